"""Keeping the CPUs out of deep idle while an emulated network runs.

A halted CPU, a virtual machine's above all, takes tens to hundreds of microseconds to wake
for a frame, and the link emulator and the hosts add that to the frame's time, which virtual
time does not. The kernel's PM QoS interface keeps idle CPUs in their shallowest state for as
long as a 0 stays written to /dev/cpu_dma_latency and the file stays open.
"""
from __future__ import annotations

import os
import struct
from pathlib import Path

PM_QOS_PATH = Path("/dev/cpu_dma_latency")


class ShallowIdle:
    """A context manager that holds the CPUs' wake-up latency at 0 where the kernel lets it;
    `state` says what it got, for the provenance. Without the interface (no root, no PM QoS)
    the run goes on as before: only its timing is coarser."""

    def __init__(self, path: Path = PM_QOS_PATH) -> None:
        self.path = path
        self.state = "not requested"
        self._fd: int | None = None

    def __enter__(self) -> "ShallowIdle":
        self.hold()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def hold(self) -> None:
        try:
            fd = os.open(self.path, os.O_WRONLY)
        except OSError as err:
            self.state = f"not held: opening {self.path}: {err.strerror}"
            return
        try:
            os.write(fd, struct.pack("=i", 0))
        except OSError as err:
            os.close(fd)
            self.state = f"not held: writing {self.path}: {err.strerror}"
            return
        self._fd = fd
        self.state = f"held at 0 us through {self.path}"

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
