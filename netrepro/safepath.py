"""Where netrepro writes as root (results/, logs/, captures), it never writes through a symbolic
link: one planted there could make root overwrite any file of the machine."""
from __future__ import annotations

from pathlib import Path

from netrepro.errors import RunError


def refuse_links(path: Path, base: Path | None = None) -> None:
    """Raises RunError when path, or any folder between base (default: the working directory)
    and it, is a symbolic link. Folders above base, such as a home on another disk, are the
    user's own choice and are not judged."""
    base = (base or Path.cwd()).absolute()
    target = path.absolute()
    try:
        parts = target.relative_to(base).parts
    except ValueError:
        parts, base = (target.name,), target.parent
    current = base
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise RunError(f"{current} is a symbolic link; netrepro runs as root and does not write "
                           "through links: remove it and run again")
