"""How netrepro knows its own processes: each process an emulated run starts carries MARK in
its environment (netrepro.cleanup sweeps what a killed run left by it), and a child started with
die_with_parent dies with the process that started it."""
from __future__ import annotations

import ctypes
import signal

MARK = "NETREPRO_EMULATION"
PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """A preexec_fn: the child gets SIGKILL when the process that started it dies, even by
    SIGKILL, so a killed job's netsim does not run on."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
