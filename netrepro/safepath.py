"""Where netrepro writes as root (results/, logs/, captures), it never writes through a symbolic
link: one planted there could make root overwrite any file of the machine."""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import IO, Any

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


def open_for_write(path: Path, binary: bool = False) -> IO[Any]:
    """path opened to be written anew, its folders made: never through a symbolic link (the
    file's own is refused by O_NOFOLLOW, its folders' by refuse_links) nor into a file with
    other hard links, which the truncation would empty. The tools' writers do the same in C
    (tools/common/safeopen.c)."""
    refuse_links(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RunError(f"{path} is a symbolic link; netrepro runs as root and does not write "
                           "through links: remove it and run again") from None
        raise RunError(f"cannot write {path}: {exc.strerror}") from None
    info = os.fstat(fd)
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        os.close(fd)
        raise RunError(f"{path} has other hard links; netrepro runs as root and does not write through "
                       "them: remove it and run again")
    os.ftruncate(fd, 0)
    return os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"}))


def links_under(folders: list[Path]) -> list[Path]:
    """The symbolic links among folders and everything under them (not followed), in order."""
    found: list[Path] = []
    for folder in folders:
        if folder.is_symlink():
            found.append(folder)
            continue
        for top, dirs, files in os.walk(folder):
            found += [Path(top) / name for name in sorted(dirs + files) if (Path(top) / name).is_symlink()]
    return found
