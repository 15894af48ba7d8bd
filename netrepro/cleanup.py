"""Nothing a run starts outlives it, however the run ends.

- A stop signal (SIGTERM from a cancelled job, SIGHUP from a closed terminal, SIGINT) becomes a
  `Stopped` exception where the run is, so `with` blocks and `finally` clauses clean up as on any
  error (`signals_raise`).
- Mininet starts every process of a host in a session of its own (mnexec -d), where net.stop()
  does not reach: `ProcessGroups` keeps each one and kills its whole process group.
- An emulated network exists only inside `emulation_session`: one at a time on the machine (a
  lock), every process started inside carries the environment variable MARK naming the run, and
  before a run begins the leftovers of a run killed with SIGKILL (processes carrying another
  run's MARK, the namespaces they hold, veth pairs of the topology's names, netrepro's memory
  cgroups (netrepro.memcg)) are removed.
  Nothing without MARK, or without the topology's names, is touched.
- A virtual-time job's netsim dies with its parent (netrepro.procmark.die_with_parent).
"""
from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, Iterator

from netrepro.errors import RunError
from netrepro.memcg import remove_stale
from netrepro.procmark import MARK

LOCK = Path("/run/netrepro-emulation.lock")
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
# The veth pairs of netrepro.topology.LinkTopo: (host side, middle node side).
VETH_PAIRS = (("h1-eth0", "mid-eth0"), ("h2-eth0", "mid-eth1"))
GONE_WAIT_S = 5.0
# How soon a stop signal Python dropped is sent again (signals_raise).
RESEND_S = 0.01


class Stopped(BaseException):
    """The run was asked to stop by a signal. A BaseException, as KeyboardInterrupt is, so that
    handlers of run errors do not swallow it."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


@contextmanager
def signals_raise() -> Iterator[None]:
    """Inside, the first stop signal raises Stopped in the main thread; later ones are noted
    and ignored, so the cleanup they would interrupt runs to its end (SIGKILL still ends all).

    Python drops an exception raised where it cannot propagate (in a fork hook such as
    logging's, which subprocess runs after each fork, or in __del__) and prints its traceback:
    a Stopped lost so would let the run go on. The unraisable hook takes it and has the
    signal sent again a moment later, from a thread (sent from the hook, it would be raised in
    the hook), to be raised where it can propagate."""
    stopping = False

    def handler(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        if stopping:
            return
        stopping = True
        raise Stopped(signum)

    def unraisable(report: sys.UnraisableHookArgs) -> None:
        nonlocal stopping
        if not isinstance(report.exc_value, Stopped):
            previous_hook(report)
            return
        stopping = False
        resend = threading.Timer(RESEND_S, os.kill, (os.getpid(), report.exc_value.signum))
        resend.daemon = True
        resend.start()

    previous = {signum: signal.signal(signum, handler) for signum in STOP_SIGNALS}
    previous_hook, sys.unraisablehook = sys.unraisablehook, unraisable
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        for signum, action in previous.items():
            signal.signal(signum, action)


def kill_group(process: subprocess.Popen, wait_s: float = GONE_WAIT_S) -> None:
    """Kills process's whole process group (it leads one: Mininet's mnexec -d made it a session
    leader) if it has not been reaped, then reaps it."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            process.kill()  # not a group leader: a process started without mnexec -d
    try:
        process.communicate(timeout=wait_s)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass


def finish(process: subprocess.Popen, timeout_s: float, what: str) -> tuple[Any, Any]:
    """process's (stdout, stderr) once it ends; one still running after timeout_s is killed with
    its process group, and RunError says so."""
    try:
        return process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(process)
        raise RunError(f"{what} did not finish within {timeout_s:.0f} s and was killed") from None


class ProcessGroups:
    """Every process a run started in a session of its own; end_all kills those still there."""

    def __init__(self) -> None:
        self.processes: list[subprocess.Popen] = []

    def add(self, process: subprocess.Popen) -> subprocess.Popen:
        self.processes.append(process)
        return process

    def end_all(self) -> None:
        while self.processes:
            kill_group(self.processes.pop())


def marked_processes(mark: str = MARK) -> dict[int, str]:
    """Processes whose environment carries mark, as {pid: its value}."""
    found = {}
    prefix = f"{mark}=".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        for item in environ.split(b"\0"):
            if item.startswith(prefix):
                found[int(entry.name)] = item[len(prefix):].decode(errors="replace")
    return found


def stale_processes(own: str, mark: str = MARK) -> list[int]:
    """Processes of another emulated run than own: stale, as only the lock's holder runs one.
    This process and its ancestors are never among them."""
    keep = _ancestors()
    return sorted(pid for pid, run in marked_processes(mark).items() if run != own and pid not in keep)


def _ancestors() -> set[int]:
    pids, pid = set(), os.getpid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            break
        pid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))
    return pids


def kill_and_wait(pids: list[int], wait_s: float = GONE_WAIT_S) -> list[int]:
    """SIGKILLs pids and waits until they are gone; returns those still there."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + wait_s
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in alive if _running(pid)]
        if alive:
            time.sleep(0.02)
    return alive


def _running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return status.rpartition(")")[2].split()[0] != "Z"


def stale_veths() -> list[str]:
    """Veths in this namespace named as the topology's pairs, with their peer of that pair:
    only a killed run of netrepro leaves those."""
    result = subprocess.run(["ip", "-json", "link", "show", "type", "veth"], capture_output=True,
                            text=True, check=False)
    if result.returncode != 0 or not result.stdout.strip():
        return []
    links = {link["ifname"]: link.get("link") for link in json.loads(result.stdout)}
    ours = []
    for a, b in VETH_PAIRS:
        if links.get(a) == b or links.get(b) == a:
            ours.append(a if a in links else b)
    return ours


def sweep(own: str, mark: str = MARK) -> dict[str, Any]:
    """Removes what earlier, killed emulated runs left: their processes (and so the network
    namespaces those held) and the topology's veth pairs. Returns what it removed."""
    pids = stale_processes(own, mark)
    left = kill_and_wait(pids)
    if left:
        raise RuntimeError(f"processes {left} of an earlier netrepro run did not end on SIGKILL")
    return {"processes": pids, "veths": delete_stale_veths(), "memory_cgroups": remove_stale(own, mark)}


def delete_stale_veths() -> list[str]:
    """Deletes the topology's veth pairs left in this namespace; returns their names."""
    veths = stale_veths()
    for name in veths:
        subprocess.run(["ip", "link", "delete", name], capture_output=True, check=False)
    return veths


@contextmanager
def emulation_session(lock: Path = LOCK, mark: str = MARK) -> Iterator[dict[str, Any]]:
    """Holds the machine's emulation lock (waiting for a run that holds it), sweeps the
    leftovers of killed runs, and marks every process started inside with this run's MARK.
    Yields what the sweep removed."""
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        own = f"{os.getpid()}-{time.monotonic_ns()}"
        swept = sweep(own, mark)
        before = os.environ.get(mark)
        os.environ[mark] = own
        try:
            yield swept
        finally:
            if before is None:
                os.environ.pop(mark, None)
            else:
                os.environ[mark] = before
    finally:
        os.close(fd)


def remove_temp_files(folder: Path) -> list[Path]:
    """Removes the temporary files netrepro.atomic leaves in folder when killed mid-write."""
    if not folder.is_dir():
        return []
    stale = [path for path in folder.rglob(".*.tmp") if path.is_file() and not path.is_symlink()]
    for path in stale:
        path.unlink(missing_ok=True)
    return stale
