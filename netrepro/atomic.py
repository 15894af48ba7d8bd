"""Atomic file writes: a run killed half way leaves the old file or none, never half a file."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from netrepro.errors import RunError
from netrepro.safepath import refuse_links


def write_text(path: Path, text: str) -> None:
    """Writes text to a new file beside path and renames it over path; a link at path or in
    its folders is refused (refuse_links). A full or read-only disk is a RunError naming the
    path."""
    refuse_links(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        raise RunError(f"cannot write {path}: {exc.strerror}; free some space or make the folder "
                       "writable, and run again") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            Path(tmp).unlink(missing_ok=True)
