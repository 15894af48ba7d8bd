"""Memory cgroups (cgroup v1) that give an emulated host's processes the memory its model says
it had, so that the Linux kernel pages their buffers as the host did (milliner's hosts paged).

A host model with `ram_bytes` leaves a process `ram_bytes - resident_bytes` (the rest is the
kernel's and other processes', tools/tahoe/vm_page.h): that becomes the cgroup's
memory.limit_in_bytes, and, where the kernel accounts swap (memory.memsw.*), the limit plus
the host's swap becomes memory.memsw.limit_in_bytes.

A limit pages anonymous memory only when swap is active: with none, the kernel can only
OOM-kill a process that outgrows it. So with no swap the limit is not applied (the process
would be killed, not paged) and the cgroup only measures the process's memory; `state()` says
so. This module never creates swap: a swap file changes every process on a shared machine.

Each cgroup is named PREFIX, procmark.MARK, the run's MARK value and a tag; it is removed when its
`with` block ends, however it ends, and cleanup.sweep removes those a run killed with SIGKILL
left (`remove_stale`).
"""
from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from netrepro import hostmodel
from netrepro.procmark import MARK, die_with_parent

ROOT = Path("/sys/fs/cgroup/memory")
PREFIX = "netrepro-"
MEMINFO = Path("/proc/meminfo")
# memory.stat counters a run's provenance and rows keep.
STAT_KEYS = ("pgmajfault", "pgpgin", "pgpgout", "swap", "rss")
REMOVE_WAIT_S = 5.0


@dataclass(frozen=True)
class MemoryPlan:
    """One host's cgroup: the process's memory (octets) and the host's swap (None: unknown)."""

    limit_bytes: int
    swap_bytes: int | None

    def files(self, memsw: bool, swap_active: int) -> dict[str, str]:
        """The control files to write, in order (the memory limit before memsw's, which may
        not be below it); none without active swap."""
        if swap_active <= 0:
            return {}
        files = {"memory.limit_in_bytes": str(self.limit_bytes)}
        if memsw and self.swap_bytes is not None:
            files["memory.memsw.limit_in_bytes"] = str(self.limit_bytes + self.swap_bytes)
        return files


def plan_of(host_model: Path | None, swap_bytes: int | None) -> MemoryPlan | None:
    """The cgroup a host model asks for, or None when it has no memory size (never pages)."""
    if host_model is None:
        return None
    data = hostmodel.values(host_model)
    if not data.get("ram_bytes"):
        return None
    return MemoryPlan(int(data["ram_bytes"]) - int(data.get("resident_bytes", 0)), swap_bytes)


def swap_active(meminfo: Path = MEMINFO) -> int:
    """Octets of swap the kernel has (SwapTotal)."""
    for line in meminfo.read_text().splitlines():
        if line.startswith("SwapTotal:"):
            return int(line.split()[1]) * 1024
    return 0


class MemoryCgroup:
    """A memory cgroup for one process tree; `join` is the preexec_fn that starts a process in
    it. Use as a context manager: on exit any process left in it is killed and it is removed."""

    def __init__(self, tag: str, plan: MemoryPlan, root: Path = ROOT) -> None:
        self.plan = plan
        self.root = root
        self.path = root / f"{PREFIX}{MARK}-{os.environ.get(MARK, str(os.getpid()))}-{tag}"
        self.applied: dict[str, str] = {}
        self.swap = 0

    def __enter__(self) -> "MemoryCgroup":
        if not (self.root / "memory.limit_in_bytes").is_file():
            raise RuntimeError(f"{self.root} is not a cgroup v1 memory hierarchy; mount it or run "
                               "without host memory limits")
        self.path.mkdir()
        try:
            self.swap = swap_active()
            memsw = (self.path / "memory.memsw.limit_in_bytes").is_file()
            for name, value in self.plan.files(memsw, self.swap).items():
                (self.path / name).write_text(value)
                self.applied[name] = (self.path / name).read_text().strip()
        except BaseException:
            remove(self.path)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        remove(self.path)

    def join(self) -> None:
        """A preexec_fn: the child joins the cgroup before it runs (so every page it touches is
        charged to it) and dies with its parent (topology.TrackedHost's default)."""
        (self.path / "cgroup.procs").write_text(str(os.getpid()))
        die_with_parent()

    def stats(self) -> dict[str, Any]:
        """The peak memory and paging of what ran in it so far."""
        stat = dict(line.split() for line in (self.path / "memory.stat").read_text().splitlines())
        result: dict[str, Any] = {key: int(stat[key]) for key in STAT_KEYS if key in stat}
        result["max_usage_bytes"] = int((self.path / "memory.max_usage_in_bytes").read_text())
        result["failcnt"] = int((self.path / "memory.failcnt").read_text())
        return result

    def state(self) -> dict[str, Any]:
        """What the cgroup did, for provenance."""
        if self.applied:
            kernel_paging = "the kernel paged the process beyond the limit, to the swap the machine has"
        else:
            kernel_paging = ("none: no swap is active on this machine, so a memory limit could only "
                             "OOM-kill the process, not page it; the limit was NOT applied and the "
                             "cgroup only measured the process's memory. Paging came from the Tahoe "
                             "stack's model (tools/tahoe/vm_page.c) alone")
        return {"cgroup": self.path.name, "limit_bytes": self.plan.limit_bytes,
                "host_swap_bytes": self.plan.swap_bytes, "machine_swap_bytes": self.swap,
                "applied": self.applied, "kernel_paging": kernel_paging}


def remove(path: Path, wait_s: float = REMOVE_WAIT_S) -> None:
    """Kills what is left in the cgroup at path and removes it; nothing when it is gone."""
    deadline = time.monotonic() + wait_s
    while path.is_dir():
        try:
            pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
        except OSError:
            pids = []
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            path.rmdir()
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"memory cgroup {path} could not be removed: {sorted(pids)} still in it") from None
            time.sleep(0.02)


def remove_stale(own: str, mark: str = MARK, root: Path = ROOT) -> list[str]:
    """Removes the cgroups of runs marked `mark` other than own (cleanup.sweep, inside
    cleanup.emulation_session: only the lock's holder runs, so the others were left by a
    killed run)."""
    if not root.is_dir():
        return []
    stale = sorted(p for p in root.glob(f"{PREFIX}{mark}-*")
                   if p.is_dir() and not p.name.startswith(f"{PREFIX}{mark}-{own}-"))
    for path in stale:
        remove(path)
    return [p.name for p in stale]
