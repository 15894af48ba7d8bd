"""Runs a workflow job's command as an argument list (never through a shell) with its output in
the job's log, and fails with the log's tail so the user sees why without opening it.

The default profile runs jobs in Snakemake's threads, where a signal to Snakemake never reaches
them: on SIGTERM or SIGINT Snakemake waited for a running emulated trial to finish, and on
SIGHUP it died and left the trial's processes running as root. So each job runs in a process
group of its own, and forward_stop_signals (called from the workflow's onstart, in Snakemake's
main thread, once its scheduler has set its own handlers) sends every stop signal to the running
jobs' groups before Snakemake's own handling: measure ends what it started (netrepro.cleanup),
Snakemake then sees the jobs fail, keeps what finished and exits. SIGHUP, which Snakemake does
not handle, is handled as SIGTERM; one ignored from the start (nohup) stays ignored.
"""
from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path
from types import FrameType
from typing import Any, Callable, Sequence

from netrepro.cleanup import STOP_SIGNALS
from netrepro.safepath import open_for_write

TAIL_LINES = 20
# Mininet imports distutils, and setuptools' hook in the venv would load setuptools' own copy:
# 0.15 s of the 0.45 s a virtual-time job takes to start. Python 3.11's own serves Mininet alike.
JOB_ENV = {"SETUPTOOLS_USE_DISTUTILS": "stdlib"}
_running: set[subprocess.Popen] = set()
# Reentrant: the handler runs in the main thread, which may hold it (a job run in that thread).
_lock = threading.RLock()
# The stop signal forwarded, for a job that starts while it is handled.
_stopping: list[int] = []


class JobError(RuntimeError):
    pass


def _signal_group(process: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except ProcessLookupError:
        pass


def run_logged(argv: Sequence[str], log: str | Path) -> None:
    log = Path(log)
    with open_for_write(log) as handle:
        try:
            process = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT,
                                       process_group=0, env={**os.environ, **JOB_ENV})
        except OSError as exc:
            raise JobError(f"cannot run {argv[0]}: {exc.strerror}; run `make setup`") from exc
        with _lock:
            _running.add(process)
            for signum in _stopping:
                _signal_group(process, signum)
        try:
            code = process.wait()
        finally:
            with _lock:
                _running.discard(process)
    if code != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-TAIL_LINES:]
        raise JobError(f"{' '.join(map(str, argv[:4]))} ... failed (exit {code}); end of {log}:\n" + "\n".join(tail))


def forward_stop_signals() -> None:
    """In the main thread: every stop signal goes to the running jobs, then to what handled it
    before (Snakemake's scheduler: SIGTERM stops scheduling and waits for the running jobs,
    SIGINT raises KeyboardInterrupt, which cancels them)."""
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}

    def chained(signum: int) -> Callable[[int, FrameType | None], Any]:
        def handler(received: int, frame: FrameType | None) -> Any:
            with _lock:
                if received not in _stopping:
                    _stopping.append(received)
                for process in _running:
                    _signal_group(process, received)
            then = previous[signum]
            if signum == signal.SIGHUP:
                then = previous[signal.SIGTERM]
            if callable(then):
                return then(received, frame)
            raise KeyboardInterrupt
        return handler

    for signum, action in previous.items():
        if action != signal.SIG_IGN:
            signal.signal(signum, chained(signum))
