"""Atomic file writes: a run killed half way leaves the old file or none, never half a file."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from netrepro.safepath import refuse_links


def write_text(path: Path, text: str) -> None:
    refuse_links(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
