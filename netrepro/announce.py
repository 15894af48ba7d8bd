"""Waiting for a server tool to say it is up. echod, ttcp -r and mftpd each write one line on
stderr once they listen, on whichever stack they run. A client started before then is refused
by the kernel stack, or goes unanswered on a Tahoe stack that does not own its interface yet:
that SYN is lost, and the connect waits out a six-second retransmission."""
from __future__ import annotations

import os
import select
import time
from typing import Any

from netrepro.cleanup import kill_group
from netrepro.errors import RunError


def wait_announced(process: Any, prefix: str, name: str, timeout_s: float = 10.0) -> None:
    """Reads process's stderr up to its first newline and checks it starts with prefix.
    Reads byte by byte from the descriptor, so nothing after the line is consumed. A process
    that does not announce itself is killed (with its process group) before the error."""
    deadline = time.monotonic() + timeout_s
    line = b""
    while time.monotonic() < deadline and not line.endswith(b"\n"):
        ready, _, _ = select.select([process.stderr], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(process.stderr.fileno(), 1)
        if not chunk:
            kill_group(process)
            raise RunError(f"{name} exited at start (exit {process.returncode}): "
                           f"{line.decode(errors='replace').strip() or 'no output'}")
        line += chunk
    if not line.startswith(prefix.encode()):
        kill_group(process)
        raise RunError(f"{name} did not start within {timeout_s:g} s: "
                       f"{line.decode(errors='replace').strip() or 'no output'}")
