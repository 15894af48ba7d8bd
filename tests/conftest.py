import importlib.util
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent


def needs_root_and_mininet() -> pytest.MarkDecorator:
    reasons = []
    if os.geteuid() != 0:
        reasons.append("needs root")
    if shutil.which("mnexec") is None:
        reasons.append("needs Mininet (make setup)")
    return pytest.mark.skipif(bool(reasons), reason=", ".join(reasons) or "ok")


def load_script(relpath: str, name: str) -> ModuleType:
    """Imports a script that is not in a package (a benchmark) as module `name`."""
    spec = importlib.util.spec_from_file_location(name, REPO / relpath)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module
