"""MFTP experiments (ishikura): the `mftp:` settings of a spec and one trial's run.

A trial is one mftp session of `transfers` GETs of a `transfer`-octet file (the profile's keys),
mftp on host a fetching from mftpd on host b, in virtual time with netsim on two Tahoe stacks.
The window is SunOS's: both socket buffers of each data connection (tools/mftpcore/flags.h).
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from netrepro import limits, recovery
from netrepro.atomic import write_text
from netrepro.errors import RunError
from netrepro.units import UnitError, parse_rate, parse_size, parse_time
from netrepro.yamlsrc import Document

if TYPE_CHECKING:
    from netrepro.sim import SimResult
    from netrepro.spec import Experiment, Spec

# The largest window a TCP header holds without RFC 1323 scaling.
TCP_MAXWIN = 65535


@dataclass(frozen=True)
class MftpPlan:
    """What mftp does at every point: N (None: chosen by mftp from Tm = N*W/D), the window."""

    connections: int | None
    target_rate_bps: float | None
    window: int
    block: int
    block_mode: bool
    window_scale: bool
    sb_max: int | None
    pause_s: float
    timeout_s: float
    cwnd_trace: bool = False
    write_file: bool = False


def _get(document: Document, key_path: tuple, parser: Any, text: Any) -> Any:
    try:
        return parser(text)
    except UnitError as exc:
        raise document.error(key_path, str(exc)) from exc


def parse_plan(document: Document, where: Any, settings: Mapping[str, Any]) -> MftpPlan:
    """The experiment's `mftp:` settings; `where` maps a key path to the line that sets it."""
    plan = settings.get("mftp", {})
    key = ("mftp",)
    connections = plan.get("connections", 1)
    target = plan.get("target_rate")
    if connections == "auto" and target is None:
        raise document.error(where + (*key, "connections"), "connections auto picks N from "
                             "Tm = N*W/D: give target_rate (Tm) too")
    if connections != "auto":
        limits.CONNECTIONS.check(document, where + (*key, "connections"), connections)
    window = _get(document, where + (*key, "window"), parse_size, plan.get("window", "24K"))
    limits.MFTP_WINDOW.check(document, where + (*key, "window"), window)
    scale = bool(plan.get("window_scale", False))
    sb_max = _get(document, where + (*key, "sb_max"), parse_size, plan["sb_max"]) if "sb_max" in plan else None
    if sb_max is not None:
        limits.SB_MAX.check(document, where + (*key, "sb_max"), sb_max)
    limit = sb_max or limits.TAHOE_SB_MAX
    if window > limit:
        raise document.error(where + (*key, "window"), f"a window of {window} octets needs socket "
                             f"buffers above sb_max ({limit}B): raise mftp.sb_max")
    if window > TCP_MAXWIN and not scale:
        raise document.error(where + (*key, "window"), "a window above 65535 octets needs "
                             "window_scale: true (RFC 1323)")
    block_mode = plan.get("mode", "block") == "block"
    if not block_mode and connections not in (1, "auto"):
        raise document.error(where + (*key, "mode"), "stream mode is plain FTP: one connection")
    block = _get(document, where + (*key, "block"), parse_size, plan.get("block", "32K"))
    limits.MFTP_BLOCK.check(document, where + (*key, "block"), block)
    pause = _get(document, where + (*key, "pause"), limits.ns, plan.get("pause", "1s"))
    limits.PAUSE_NS.check(document, where + (*key, "pause"), pause)
    timeout = _get(document, where + (*key, "timeout"), limits.ns, plan.get("timeout", "120s"))
    limits.TRANSFER_TIMEOUT_NS.check(document, where + (*key, "timeout"), timeout)
    if timeout <= pause:
        raise document.error(where + (*key, "timeout"), "must be longer than pause (mftp --timeout)")
    return MftpPlan(
        connections=None if connections == "auto" else int(connections),
        target_rate_bps=_get(document, where + (*key, "target_rate"), parse_rate, target) if target else None,
        window=window,
        block=block,
        block_mode=block_mode,
        window_scale=scale,
        sb_max=sb_max,
        pause_s=pause / limits.NS,
        timeout_s=timeout / limits.NS,
        cwnd_trace=bool(plan.get("cwnd_trace", False)),
        write_file=bool(plan.get("write_file", False)),
    )


def mftp_args(plan: MftpPlan, repeats: int) -> list[str]:
    """mftp's own options for a session of `repeats` transfers."""
    argv = ["--window", f"{plan.window}B", "--block", f"{plan.block}B", "--repeat", str(repeats),
            "--pause", f"{round(plan.pause_s * 1e9)}ns", "--timeout", f"{round(plan.timeout_s * 1e9)}ns"]
    if not plan.block_mode:
        return [*argv, "--plain"]
    if plan.connections is None:
        return [*argv, "--target-rate", f"{round(plan.target_rate_bps or 0)}bit"]
    return [*argv, "-n", str(plan.connections)]


def host_space(plan: MftpPlan) -> int | None:
    """Both hosts' default TCP buffers, in stream mode the window: plain FTP has no MCON to tell
    mftpd the window, and SunOS's ftpd took the kernel's default (tcp_sendspace and
    tcp_recvspace), so the window reaches the sending end only as the hosts' default. None in
    block mode, where each end sets it."""
    return None if plan.block_mode else plan.window


def stack_args(plan: MftpPlan) -> list[str]:
    """netsim's flags for the stacks both hosts run, and with cwnd_trace for their traces."""
    space = host_space(plan)
    return [*(["--tcp-space", f"{space}B"] if space else []),
            *(["--window-scale"] if plan.window_scale else []),
            *(["--sb-max", f"{plan.sb_max}B"] if plan.sb_max else []),
            *(["--trace", "--tcp-debug"] if plan.cwnd_trace else [])]


def dest_of(plan: MftpPlan, root: Path) -> Path:
    """Where mftp writes the file it gets: root/got.bin with write_file, else /dev/null."""
    return root / "got.bin" if plan.write_file else Path("/dev/null")


def recovery_columns(plan: MftpPlan, result: SimResult) -> dict[str, Any]:
    """With cwnd_trace, the session's recoveries from the sender's (mftpd's, host b) traces."""
    if not plan.cwnd_trace:
        return {}
    trace = sorted([*result.segments, *result.tcp_debug], key=lambda r: r["at_ns"])
    return recovery.summary(recovery.episodes(trace, host="b"))


def transfer_rows(experiment: Experiment, trial: int, run_id: str, records: list[dict[str, Any]],
                  sim: Mapping[str, Any], session: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per transfer, from mftp's (the receiving client's) records; session's columns
    (the recoveries) go on every row."""
    assert experiment.mftp is not None
    from netrepro.sim import disk_columns

    clients = [r for r in records if r.get("record") == "transfer" and r.get("tool") == "mftp"]
    servers = [r for r in records if r.get("record") == "transfer" and r.get("tool") == "mftpd"]
    rows = []
    for i, record in enumerate(clients):
        rtt = record.get("rtt_ns")
        rows.append({
            "run_id": run_id, "trial": trial, "repeat": record["index"] + 1,
            "connections": record["connections"], "connections_chosen_by": record["connections_chosen_by"],
            "window": experiment.mftp.window, "window_in_force": record.get("window_start"),
            "window_scale": experiment.mftp.window_scale, "block_size": record["block_size"],
            "bytes": record["bytes"], "throughput_mbit": record["throughput_bps"] / 1e6,
            "elapsed_s": record["elapsed_ns"] / 1e9, "rtt_measured_ms": rtt / 1e6 if rtt else None,
            "formula_connections": record.get("formula_connections"),
            # The session's totals at the sender (host b); the same on every row of the session.
            "retransmitted_packets": sim.get("b_tcps_sndrexmitpack"),
            "retransmit_timeouts": sim.get("b_tcps_rexmttimeo"),
            # Each host's disk during this transfer: mftp's record (host a) and mftpd's (b).
            **disk_columns(record, servers[i] if i < len(servers) else None),
            **(session or {}),
        })
    return rows


def run_trial(spec: Spec, experiment: Experiment, trial: int, out: Path) -> None:
    """One mftp session, in virtual time or emulated; writes records.jsonl (a row per transfer)
    and then provenance.json."""
    from netrepro import measure

    assert experiment.mftp is not None
    measure.preflight(experiment)
    point = f"/point-{out.name.split('-')[-1]}" if out.name.startswith("point-") else ""
    run_id = f"{spec.paper}/{experiment.id}/trial-{trial}{point}"
    started = measure.now_iso()
    seed = measure.mode_seed(experiment, trial, f"mftp{point}")
    root = out / "files"
    root.mkdir(parents=True, exist_ok=True)
    try:
        if experiment.backend == "sim":
            rows, run = run_sim(experiment, trial, run_id, seed, root)
        else:
            rows, run = run_emulated(experiment, trial, run_id, seed, root, point)
    finally:
        (root / "src.bin").unlink(missing_ok=True)
        (root / "got.bin").unlink(missing_ok=True)
    if len(rows) != experiment.transfers:
        raise RunError(f"mftp reported {len(rows)} transfers, expected {experiment.transfers}")
    write_text(out / "records.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    provenance = {
        **measure.base_provenance(spec, experiment, run_id, started),
        **run,
        "mftp_seed": seed,
        "finished_at": measure.now_iso(),
    }
    write_text(out / "provenance.json", json.dumps(provenance, indent=1) + "\n")


def run_sim(experiment: Experiment, trial: int, run_id: str, seed: int,
            root: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The session in netsim; its rows and provenance."""
    from netrepro import measure, phase
    from netrepro.deadlines import mftp_limit_s
    from netrepro.sim import SimError, mftp_command, run_netsim

    assert experiment.mftp is not None
    # Host b's ticks at the phase the emulated run of the same seed gives them (netrepro.phase).
    boot_b = phase.boot_b_ns(seed)
    command = mftp_command(experiment.link, experiment.host_model, seed, experiment.transfer_bytes, root,
                           mftp_args(experiment.mftp, experiment.transfers), boot_b=boot_b,
                           stack_args=stack_args(experiment.mftp), dest=dest_of(experiment.mftp, root))
    try:
        result = run_netsim(command, mftp_limit_s(experiment))
    except SimError as exc:
        raise RunError(f"mftp in virtual time: {exc}") from exc
    rows = transfer_rows(experiment, trial, run_id, result.records, result.sim,
                         recovery_columns(experiment.mftp, result))
    return rows, {
        "backend": "sim",
        "command": command,
        "boot_b_ns": boot_b,
        "records": result.records,
        "sim": result.sim,
        "tools": {"netsim": measure.binary_digest(measure.TOOLS_BIN / "netsim"),
                  "python": sys.version.split()[0]},
    }


def run_emulated(experiment: Experiment, trial: int, run_id: str, seed: int, root: Path,
                 point: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The session between two Mininet hosts over the experiment's link (at its sweep point),
    mftpd on h2 and mftp on h1, each on the spec's stack; needs root."""
    from netrepro import measure, mftp_net, phase
    from netrepro.backends import emulation_backend
    from netrepro.deadlines import mftp_limit_s
    from netrepro.linkcheck import check_link
    from netrepro.provenance import binary_digests, read_sysctls
    from netrepro.seeds import link_seed
    from netrepro.topology import H2_IP, LinkNetwork

    assert experiment.mftp is not None
    if not (measure.TOOLS_BIN / "mftpd").is_file():
        raise RunError(f"{measure.TOOLS_BIN / 'mftpd'} is missing; build the tools with `make build`")
    if experiment.mftp.window_scale or experiment.mftp.sb_max or experiment.mftp.cwnd_trace:
        raise RunError(f"experiment {experiment.id}: window_scale, sb_max and cwnd_trace exist only on "
                       "netsim's stacks; run it in virtual time (--config backend=sim)")
    seed_of_link = link_seed(experiment.seed, experiment.draws_id, trial, point)
    backend = emulation_backend(experiment.backend, experiment.stack, seed_of_link)
    mftp_net.write_source(root, experiment.transfer_bytes, seed)
    with LinkNetwork(experiment.link, backend, root.parent / "logs") as net:
        link_check = check_link(net, experiment.link, H2_IP)
        tool_args = mftp_net.hosts_ready(net, experiment.stack, experiment.host_model, experiment.link,
                                         host_space(experiment.mftp))
        sysctls = read_sysctls(net.h1)
        client, server = mftp_net.run_session(net, tool_args, experiment.stack, root,
                                              mftp_args(experiment.mftp, experiment.transfers),
                                              dest_of(experiment.mftp, root), seed, mftp_limit_s(experiment))
    rows = transfer_rows(experiment, trial, run_id, [*client, *server], {})
    return rows, {
        **net.provenance(link_check, seed_of_link),
        "sysctls": sysctls,
        "tool_args": tool_args,
        "boot_b_ns": phase.boot_b_ns(seed),
        "records": [*client, *server],
        "tools": {**binary_digests(measure.emulation_binaries(backend.name, ["mftp", "mftpd"])),
                  "python": sys.version.split()[0]},
    }
