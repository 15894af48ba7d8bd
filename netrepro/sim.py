"""Virtual-time runs: tools/bin/netsim runs the real ttcp, pingx, mftp or ipcbench on two Tahoe
stacks joined by linkemu's link model, in one process and in simulated time, so a run is
deterministic for a given seed and far faster than real time. Each tool's module
(netrepro.tools.<tool>) builds its netsim argument list from the flags here; run_netsim runs it.

    link = linkfile.link_params("atm-taxi-100")
    result = run_netsim(ttcp.ttcp_command(link, 16384, 24576, 32 << 20, 50, IPC, IPC, seed=1))
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from netrepro.backends import BackendError, linkemu
from netrepro.procmark import die_with_parent
from netrepro.errors import RunError
from netrepro.jsonlines import parse
from netrepro.linkspec import LinkParams
from netrepro.paths import tool_binary

BINARY = tool_binary("netsim")
ADDR_B = "10.0.0.2"  # netsim's host b, where the ttcp receiver runs


class SimError(RuntimeError):
    """netsim refused its arguments, or a transfer or the simulation failed. `sim` is the run's
    sim record (its counters) when netsim got as far as writing one, else None."""

    def __init__(self, message: str, sim: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.sim = sim


@dataclass(frozen=True)
class SimResult:
    """Everything one netsim run wrote."""

    records: list[dict[str, Any]]  # every record the applications wrote, in virtual-time order
    transfers: list[dict[str, Any]]  # ttcp's transfer records, both ends
    segments: list[dict[str, Any]]  # with --trace: every TCP segment sent, with its rule
    # with --tcp-debug: each connection's send state after every segment in and timer out
    tcp_debug: list[dict[str, Any]]
    sim: dict[str, Any]  # the {"record": "sim"} record
    command: list[str]


def time_arg(seconds: float) -> str:
    """A time as netsim's and the tools' flags take it, in whole nanoseconds."""
    return f"{round(seconds * 1e9)}ns"


def link_args(link: LinkParams) -> list[str]:
    """netsim's link flags for link; they are linkemu's, so the two emulate the same link."""
    try:
        linkemu.refuse_unsupported(link)
    except BackendError as err:
        raise SimError(str(err)) from err
    return linkemu.link_args(link)


def boot_b_args(boot_b: int | None) -> list[str]:
    if boot_b is None:
        return []
    if isinstance(boot_b, bool) or not isinstance(boot_b, int) or boot_b < 0:
        raise SimError(f"boot_b must be a whole number of nanoseconds, not {boot_b!r}")
    return ["--boot-b", f"{boot_b}ns"]


def both_hosts(host_model: Path | None) -> list[str]:
    """netsim's flags giving both hosts host_model; none for hosts whose work costs no time."""
    return ["--host-model-a", str(host_model), "--host-model-b", str(host_model)] if host_model else []


def run_netsim(args: list[str], timeout_s: float | None = None) -> SimResult:
    """Runs a netsim argument list (never through a shell) and parses its records. netsim is
    killed when timeout_s of wall-clock time pass, when this process is stopped, and when it
    dies, even by SIGKILL (netrepro.procmark.die_with_parent)."""
    binary = Path(args[0])
    if not binary.is_file():
        raise SimError(f"{binary} is missing; build it with `make -C tools`")
    try:
        process = subprocess.run(args, capture_output=True, text=True, timeout=timeout_s, check=False,
                                 preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired as err:
        raise SimError(f"netsim ran longer than {timeout_s:.0f} s of wall-clock time, the limit "
                       "netrepro/deadlines.py gives its plan, and was stopped: it is stuck, or this machine is far "
                       "slower than the limit allows") from err
    try:
        records = parse(process.stdout, "netsim")
    except RunError as err:
        raise SimError(str(err)) from err
    errors = [r for r in records if r.get("record") == "error"]
    sims = [r for r in records if r.get("record") == "sim"]
    if process.returncode != 0 or errors or len(sims) != 1:
        detail = "; ".join(r.get("error", "") for r in errors) or process.stderr.strip()
        raise SimError(f"netsim failed with status {process.returncode}: {detail or 'no sim record'}",
                       sims[0] if len(sims) == 1 else None)
    transfers = [r for r in records if r.get("record") == "transfer"]
    segments = [r for r in records if r.get("record") == "segment"]
    debug = [r for r in records if r.get("record") == "tcp_debug"]
    apps = [r for r in records if r.get("record") not in ("sim", "segment", "tcp_debug")]
    return SimResult(records=apps, transfers=transfers, segments=segments, tcp_debug=debug, sim=sims[0],
                     command=list(args))


def disk_columns(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> dict[str, Any]:
    """Each host's disk during one transfer, from its tool's record of it (the Tahoe backend
    counts them per transfer: tools/common/nrcounts.h); None where a record has none."""
    out: dict[str, Any] = {}
    for host, record in (("a", a or {}), ("b", b or {})):
        ios, busy, wait = (record.get(k) for k in ("disk_ios", "disk_busy_ns", "disk_wait_ns"))
        out[f"{host}_disk_ios"] = ios
        out[f"{host}_disk_busy_s"] = None if busy is None else busy / 1e9
        out[f"{host}_disk_wait_s"] = None if wait is None else wait / 1e9
    return out
