"""Runs a workflow job's command as an argument list (never through a shell) with its output in
the job's log, and fails with the log's tail so the user sees why without opening it."""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Sequence

from netrepro.safepath import open_for_write

TAIL_LINES = 20


class JobError(RuntimeError):
    pass


def run_logged(argv: Sequence[str], log: str | Path) -> None:
    log = Path(log)
    with open_for_write(log) as handle:
        try:
            code = subprocess.run(list(argv), stdout=handle, stderr=subprocess.STDOUT, check=False).returncode
        except OSError as exc:
            raise JobError(f"cannot run {argv[0]}: {exc.strerror}; run `make setup`") from exc
    if code != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-TAIL_LINES:]
        raise JobError(f"{' '.join(map(str, argv[:4]))} ... failed (exit {code}); end of {log}:\n" + "\n".join(tail))
