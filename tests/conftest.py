import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def needs_root_and_mininet() -> pytest.MarkDecorator:
    reasons = []
    if os.geteuid() != 0:
        reasons.append("needs root")
    if shutil.which("mnexec") is None:
        reasons.append("needs Mininet (make setup)")
    return pytest.mark.skipif(bool(reasons), reason=", ".join(reasons) or "ok")
