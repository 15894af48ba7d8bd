"""MFTP sessions (ishikura): mftp on host a GETs a `transfer`-octet file from mftpd on host b,
`transfers` times in one session (the profile's keys), over N parallel data connections; one row
per transfer. In virtual time netsim runs both on two Tahoe stacks; emulated, h1 -- link -- h2
on Mininet with mftp on h1 and mftpd on h2, both on the spec's stack with the host's costs.
The window is SunOS's: both socket buffers of each data connection (tools/mftpcore/flags.h).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from netrepro import limits, phase, recovery, sim, stacks
from netrepro.announce import wait_announced
from netrepro.backends import emulation_backend
from netrepro.cleanup import finish, kill_group
from netrepro.deadlines import bulk_limit_s
from netrepro.errors import RunError
from netrepro.experiment import Experiment, Spec
from netrepro.jsonlines import parse
from netrepro.linkcheck import check_link
from netrepro.linkspec import LinkParams
from netrepro.paths import tool_binary
from netrepro.provenance import now_iso, read_sysctls
from netrepro.safepath import open_for_write
from netrepro.seeds import link_seed
from netrepro.specread import Source
from netrepro.topology import H1, H2, H2_IP, LinkNetwork
from netrepro.trial import (base_provenance, emulation_binaries, point_name, run_name, run_order, run_seed,
                            tool_digests, write_run)
from netrepro.units import parse_rate, parse_size

NAME = "mftp"
OWN_KEYS: tuple[str, ...] = ()
# The sweep axes that set mftp's own settings (netrepro.sweep).
SWEEP_AXES = ("connections", "window")
# A run's order: each transfer of the session, by its connections and number.
ORDER_FIELDS = ("connections", "repeat")
# Keys of `mftp:` that exist only on netsim's stacks: with any, the experiment runs in virtual time.
SIM_ONLY = ("window_scale", "sb_max", "cwnd_trace")
# The largest window a TCP header holds without RFC 1323 scaling.
TCP_MAXWIN = 65535
MFTP_PORT = 2121
# mftpd's wait for mftp's last reply once mftp is done.
SERVER_STOP_S = 60.0


@dataclass(frozen=True)
class Settings:
    """What mftp does at every point: N (None: chosen by mftp from Tm = N*W/D), the window;
    and the profile's session of `transfers` GETs of `transfer_bytes` each."""

    connections: int | None
    target_rate_bps: float | None
    window: int
    block: int
    block_mode: bool
    # The receiver's bound on out-of-order octets, in blocks (0: none).
    reorder_blocks: int
    # The sender writes one block at a time, as blocking writes do (mftpd --blocking-writes).
    blocking_writes: bool
    window_scale: bool
    sb_max: int | None
    pause_s: float
    timeout_s: float
    transfers: int
    transfer_bytes: int
    cwnd_trace: bool = False
    write_file: bool = False
    serial_setup: bool = False


def parse_settings(source: Source) -> Settings:
    """The experiment's `mftp:` settings and its profile's transfers."""
    source.require_profile("transfers", "transfer")
    document = source.document
    plan = source.settings.get("mftp", {})
    key = ("mftp",)
    connections = plan.get("connections", 1)
    target = plan.get("target_rate")
    if connections == "auto" and target is None:
        raise document.error(source.key(*key, "connections"), "connections auto picks N from "
                             "Tm = N*W/D: give target_rate (Tm) too")
    if connections != "auto":
        limits.CONNECTIONS.check(document, source.key(*key, "connections"), connections)
    window = source.parse(source.key(*key, "window"), parse_size, plan.get("window", "24K"))
    limits.MFTP_WINDOW.check(document, source.key(*key, "window"), window)
    scale = bool(plan.get("window_scale", False))
    sb_max = source.parse(source.key(*key, "sb_max"), parse_size, plan["sb_max"]) if "sb_max" in plan else None
    if sb_max is not None:
        limits.SB_MAX.check(document, source.key(*key, "sb_max"), sb_max)
    limit = sb_max or limits.TAHOE_SB_MAX
    if window > limit:
        raise document.error(source.key(*key, "window"), f"a window of {window} octets needs socket "
                             f"buffers above sb_max ({limit}B): raise mftp.sb_max")
    if window > TCP_MAXWIN and not scale:
        raise document.error(source.key(*key, "window"), "a window above 65535 octets needs "
                             "window_scale: true (RFC 1323)")
    block_mode = plan.get("mode", "block") == "block"
    if not block_mode and connections not in (1, "auto"):
        raise document.error(source.key(*key, "mode"), "stream mode is plain FTP: one connection")
    if not block_mode and plan.get("setup") == "serial":
        raise document.error(source.key(*key, "setup"), "stream mode opens one data connection: "
                             "setup serial needs mode block")
    block = source.parse(source.key(*key, "block"), parse_size, plan.get("block", "32K"))
    limits.MFTP_BLOCK.check(document, source.key(*key, "block"), block)
    reorder_blocks = int(plan.get("reorder_blocks", 0))
    limits.MFTP_REORDER.check(document, source.key(*key, "reorder_blocks"), reorder_blocks * block)
    if reorder_blocks and not block_mode:
        raise document.error(source.key(*key, "reorder_blocks"), "stream mode has no blocks to "
                             "reorder: reorder_blocks needs mode block")
    blocking_writes = bool(plan.get("blocking_writes", False))
    if blocking_writes and not block_mode:
        raise document.error(source.key(*key, "blocking_writes"), "stream mode writes one connection: "
                             "blocking_writes needs mode block")
    pause = source.parse(source.key(*key, "pause"), limits.ns, plan.get("pause", "1s"))
    limits.PAUSE_NS.check(document, source.key(*key, "pause"), pause)
    timeout = source.parse(source.key(*key, "timeout"), limits.ns, plan.get("timeout", "120s"))
    limits.TRANSFER_TIMEOUT_NS.check(document, source.key(*key, "timeout"), timeout)
    if timeout <= pause:
        raise document.error(source.key(*key, "timeout"), "must be longer than pause (mftp --timeout)")
    transfer_bytes = source.parse(source.profile_key("transfer"), parse_size, source.profile["transfer"])
    limits.TRANSFER.check(document, source.profile_key("transfer"), transfer_bytes)
    return Settings(
        connections=None if connections == "auto" else int(connections),
        target_rate_bps=source.parse(source.key(*key, "target_rate"), parse_rate, target) if target else None,
        window=window,
        block=block,
        block_mode=block_mode,
        reorder_blocks=reorder_blocks,
        blocking_writes=blocking_writes,
        window_scale=scale,
        sb_max=sb_max,
        pause_s=pause / limits.NS,
        timeout_s=timeout / limits.NS,
        transfers=int(source.profile.get("transfers", 1)),
        transfer_bytes=transfer_bytes,
        cwnd_trace=bool(plan.get("cwnd_trace", False)),
        write_file=bool(plan.get("write_file", False)),
        serial_setup=plan.get("setup", "parallel") == "serial",
    )


def sim_only(settings: Mapping[str, Any]) -> list[str]:
    """The keys set under `mftp:` that exist only on netsim's stacks (their flags and traces,
    which the emulated tools lack)."""
    plan = settings.get("mftp", {})
    return [key for key in SIM_ONLY if plan.get(key)]


def binaries(backend: str) -> tuple[str, ...]:
    """The programs a trial runs on backend."""
    return ("netsim",) if backend == "sim" else ("mftp", "mftpd")


def parts(settings: Settings) -> tuple[int, ...] | None:
    """An mftp trial is one job (a sweep's points all in it)."""
    return None


def traced(settings: Settings) -> bool:
    return False


def fixed_columns(settings: Settings) -> dict[str, Any]:
    """Every column of an mftp row is the row's own."""
    return {}


def limit_s(experiment: Experiment) -> float:
    """The wall-clock limit of one mftp session (every transfer of a trial, or of a sweep
    point), with the window of its one connection: the slowest pace N connections can take."""
    settings: Settings = experiment.settings
    return bulk_limit_s(experiment.link, settings.transfer_bytes, settings.window,
                        settings.pause_s + settings.timeout_s, settings.transfers)


def mftp_args(plan: Settings, repeats: int) -> list[str]:
    """mftp's own options for a session of `repeats` transfers."""
    argv = ["--window", f"{plan.window}B", "--block", f"{plan.block}B", "--repeat", str(repeats),
            "--pause", f"{round(plan.pause_s * 1e9)}ns", "--timeout", f"{round(plan.timeout_s * 1e9)}ns"]
    if not plan.block_mode:
        return [*argv, "--plain"]
    if plan.serial_setup:
        argv += ["--setup", "serial"]
    if plan.reorder_blocks:
        argv += ["--reorder-max", f"{plan.reorder_blocks * plan.block}B"]
    if plan.connections is None:
        return [*argv, "--target-rate", f"{round(plan.target_rate_bps or 0)}bit"]
    return [*argv, "-n", str(plan.connections)]


def mftpd_args(plan: Settings) -> list[str]:
    """mftpd's own options beyond its root: it sends the file of a GET, in blocks of its own
    --block (mftp's --block is for the blocks it sends, a PUT's)."""
    if not plan.block_mode:
        return []
    return ["--block", f"{plan.block}B", *(["--blocking-writes"] if plan.blocking_writes else [])]


def host_space(plan: Settings) -> int | None:
    """Both hosts' default TCP buffers, in stream mode the window: plain FTP has no MCON to tell
    mftpd the window, and SunOS's ftpd took the kernel's default (tcp_sendspace and
    tcp_recvspace), so the window reaches the sending end only as the hosts' default. None in
    block mode, where each end sets it."""
    return None if plan.block_mode else plan.window


def stack_args(plan: Settings) -> list[str]:
    """netsim's flags for the stacks both hosts run, and with cwnd_trace for their traces."""
    space = host_space(plan)
    return [*(["--tcp-space", f"{space}B"] if space else []),
            *(["--window-scale"] if plan.window_scale else []),
            *(["--sb-max", f"{plan.sb_max}B"] if plan.sb_max else []),
            *(["--trace", "--tcp-debug"] if plan.cwnd_trace else [])]


def dest_of(plan: Settings, root: Path) -> Path:
    """Where mftp writes the file it gets: root/got.bin with write_file, else /dev/null."""
    return root / "got.bin" if plan.write_file else Path("/dev/null")


def recovery_columns(plan: Settings, result: sim.SimResult) -> dict[str, Any]:
    """With cwnd_trace, the session's recoveries from the sender's (mftpd's, host b) traces."""
    if not plan.cwnd_trace:
        return {}
    trace = sorted([*result.segments, *result.tcp_debug], key=lambda r: r["at_ns"])
    return recovery.summary(recovery.episodes(trace, host="b"))


def transfer_rows(experiment: Experiment, trial: int, run_id: str, records: list[dict[str, Any]],
                  counters: Mapping[str, Any], session: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per transfer, from mftp's (the receiving client's) records; session's columns
    (the recoveries) go on every row."""
    clients = [r for r in records if r.get("record") == "transfer" and r.get("tool") == "mftp"]
    servers = [r for r in records if r.get("record") == "transfer" and r.get("tool") == "mftpd"]
    rows = []
    for i, record in enumerate(clients):
        rtt = record.get("rtt_ns")
        # mftpd sent the file: its record says in what blocks and how its writes waited.
        sender = servers[i] if i < len(servers) else {}
        rows.append({
            "run_id": run_id, "trial": trial, "repeat": record["index"] + 1,
            "connections": record["connections"], "connections_chosen_by": record["connections_chosen_by"],
            "window": experiment.settings.window, "window_in_force": record.get("window_start"),
            "window_scale": experiment.settings.window_scale, "block_size": sender.get("block_size"),
            "bytes": record["bytes"], "throughput_mbit": record["throughput_bps"] / 1e6,
            "elapsed_s": record["elapsed_ns"] / 1e9, "rtt_measured_ms": rtt / 1e6 if rtt else None,
            "formula_connections": record.get("formula_connections"),
            # The session's totals at the sender (host b); the same on every row of the session.
            "retransmitted_packets": counters.get("b_tcps_sndrexmitpack"),
            "retransmit_timeouts": counters.get("b_tcps_rexmttimeo"),
            "reorder_stalls": record["reorder_stalls"], "held_ahead_max": record["held_ahead_max"],
            "write_holds": sender.get("write_holds"),
            # Each host's disk during this transfer: mftp's record (host a) and mftpd's (b).
            **sim.disk_columns(record, sender or None),
            **(session or {}),
        })
    return rows


def mftp_command(link: LinkParams, host_model: Path | None, seed: int, file_bytes: int, root: Path,
                 mftp_args: list[str], boot_b: int | None = None, binary: Path = sim.BINARY,
                 stack_args: list[str] | None = None, dest: Path | None = None,
                 mftpd_args: list[str] | None = None) -> list[str]:
    """The netsim argument list for an MFTP GET of root/src.bin from mftpd on host b by mftp on
    host a into dest (default root/got.bin; /dev/null as ishikura), both hosts with host_model.
    netsim first writes file_bytes octets drawn from the seed into src.bin. mftp_args are
    mftp's own options (-n, --window, ...), mftpd_args mftpd's beyond --root, stack_args
    netsim's for both stacks (--window-scale, --sb-max)."""
    if isinstance(file_bytes, bool) or not isinstance(file_bytes, int) or file_bytes < 1:
        raise sim.SimError(f"file_bytes must be a positive whole number, not {file_bytes!r}")
    return [str(binary), "--app", "mftp", *sim.link_args(link), *sim.both_hosts(host_model), *sim.boot_b_args(boot_b),
            *(stack_args or []), "--seed", str(seed), "--no-wall", "--file-size", f"{file_bytes}B", "--",
            *mftp_args, "--get", "src.bin", "--dest", str(dest or root / "got.bin"), sim.ADDR_B, "--",
            "--root", str(root), *(mftpd_args or [])]


def write_source(root: Path, size: int, seed: int) -> Path:
    """root/src.bin: size octets drawn from seed, the same on every rerun of the seed."""
    source = root / "src.bin"
    with open_for_write(source, binary=True) as out:
        out.write(random.Random(seed).randbytes(size))
    return source


def hosts_ready(net: Any, stack: str, host_model: Path | None, link: LinkParams,
                space: int | None = None) -> dict[str, list[str]]:
    """Readies h1 and h2 for stack; returns each host's tool arguments (stacks.setup_hosts).
    space (octets): both hosts' default TCP send and receive buffers, on the Tahoe stack and
    as linux-retro's defaults; the kernel stack keeps its own."""
    args = stacks.setup_hosts([(net.h1, *H1), (net.h2, *H2)], stack, host_model, link.mtu,
                              buffers=(space, space) if space else None, frame_times=net.frame_times)
    if space is None or stack != "tahoe":
        return args
    return {host: [*argv, "--tcp-sendspace", f"{space}B", "--tcp-recvspace", f"{space}B"]
            for host, argv in args.items()}


def transfer_records(output: str, tool: str) -> list[dict[str, Any]]:
    return [r for r in parse(output, tool) if r.get("record") == "transfer"]


def run_session(net: Any, tool_args: dict[str, list[str]], stack: str, root: Path, mftp_args: list[str],
                dest: Path, seed: int, limit_s: float,
                mftpd_args: list[str] | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One session: mftpd on h2 serving root (with mftpd_args), then mftp on h1 with mftp_args
    (its own options: -n, --window, --repeat, --timeout, ...) GETting src.bin into dest. Host
    a's tick phase is drawn from seed, as netsim's --boot-b. Returns mftp's and mftpd's
    transfer records; a session still running after limit_s is killed and fails."""
    timeout = mftp_args[mftp_args.index("--timeout") + 1] if "--timeout" in mftp_args else "120s"
    server = net.h2.popen([str(tool_binary("mftpd")), *tool_args["h2"], *phase.host_b_args(stack, seed),
                           "-p", str(MFTP_PORT), "--root", str(root), *(mftpd_args or []), "--sessions", "1",
                           "--timeout", timeout],
                          stdout=-1, stderr=-1, text=True)
    try:
        wait_announced(server, "mftpd: serving", "mftpd")
        client = net.h1.popen([str(tool_binary("mftp")), *tool_args["h1"], *phase.host_a_args(stack, seed),
                               "-p", str(MFTP_PORT), *mftp_args, "--get", "src.bin", "--dest", str(dest), H2_IP],
                              stdout=-1, stderr=-1, text=True)
        client_out, client_err = finish(client, limit_s, "mftp")
        server_out, server_err = finish(server, SERVER_STOP_S, "mftpd")
    finally:
        kill_group(server)
    if client.returncode != 0 or server.returncode != 0:
        raise RunError(f"mftp session failed (mftp exit {client.returncode}, mftpd exit {server.returncode}): "
                       f"{(client_err or server_err or '').strip()[-300:]}")
    return transfer_records(client_out, "mftp"), transfer_records(server_out, "mftpd")


def prepares(experiment: Experiment) -> bool:
    """An mftp trial shares nothing with the others."""
    return False


def run(spec: Spec, experiment: Experiment, trial: int, out: Path, part: int | None,
        prepared: Mapping[str, Any] | None) -> None:
    """One mftp session, in virtual time or emulated; writes records.jsonl (a row per transfer)
    and then provenance.json."""
    settings: Settings = experiment.settings
    named = point_name(experiment)
    point = f"/{named}" if named else ""
    run_id = run_name(spec, experiment, trial)
    started = now_iso()
    seed = run_seed(experiment, trial, f"mftp{point}")
    root = out / "files"
    root.mkdir(parents=True, exist_ok=True)
    try:
        if experiment.backend == "sim":
            rows, result = run_sim(experiment, trial, run_id, seed, root)
        else:
            rows, result = run_emulated(experiment, trial, run_id, seed, root, point)
    finally:
        (root / "src.bin").unlink(missing_ok=True)
        (root / "got.bin").unlink(missing_ok=True)
    if len(rows) != settings.transfers:
        raise RunError(f"mftp reported {len(rows)} transfers, expected {settings.transfers}")
    write_run(out, rows, {**base_provenance(spec, experiment, run_id, started), **result, "mftp_seed": seed,
                          **run_order(rows, ORDER_FIELDS)})


def run_sim(experiment: Experiment, trial: int, run_id: str, seed: int,
            root: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The session in netsim; its rows and provenance."""
    settings: Settings = experiment.settings
    # Host b's ticks at the phase the emulated run of the same seed gives them (netrepro.phase).
    boot_b = phase.boot_b_ns(seed)
    command = mftp_command(experiment.link, experiment.host_model, seed, settings.transfer_bytes, root,
                           mftp_args(settings, settings.transfers), boot_b=boot_b,
                           stack_args=stack_args(settings), dest=dest_of(settings, root),
                           mftpd_args=mftpd_args(settings))
    try:
        result = sim.run_netsim(command, limit_s(experiment))
    except sim.SimError as exc:
        raise RunError(f"mftp in virtual time: {exc}") from exc
    rows = transfer_rows(experiment, trial, run_id, result.records, result.sim,
                         recovery_columns(settings, result))
    return rows, {
        "backend": "sim",
        "command": command,
        "boot_b_ns": boot_b,
        "records": result.records,
        "sim": result.sim,
        "tools": tool_digests([tool_binary("netsim")]),
    }


def run_emulated(experiment: Experiment, trial: int, run_id: str, seed: int, root: Path,
                 point: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The session between two Mininet hosts over the experiment's link (at its sweep point),
    mftpd on h2 and mftp on h1, each on the spec's stack; needs root."""
    settings: Settings = experiment.settings
    if settings.window_scale or settings.sb_max or settings.cwnd_trace:
        raise RunError(f"experiment {experiment.id}: window_scale, sb_max and cwnd_trace exist only on "
                       "netsim's stacks; run it in virtual time (--config backend=sim)")
    seed_of_link = link_seed(experiment.seed, experiment.draws_id, trial, point)
    backend = emulation_backend(experiment.backend, experiment.stack, seed_of_link)
    write_source(root, settings.transfer_bytes, seed)
    with LinkNetwork(experiment.link, backend, root.parent / "logs") as net:
        link_check = check_link(net, experiment.link, H2_IP)
        tool_args = hosts_ready(net, experiment.stack, experiment.host_model, experiment.link, host_space(settings))
        sysctls = read_sysctls(net.h1)
        client, server = run_session(net, tool_args, experiment.stack, root, mftp_args(settings, settings.transfers),
                                     dest_of(settings, root), seed, limit_s(experiment), mftpd_args(settings))
    rows = transfer_rows(experiment, trial, run_id, [*client, *server], {})
    return rows, {
        **net.provenance(link_check, seed_of_link),
        "sysctls": sysctls,
        "tool_args": tool_args,
        "boot_b_ns": phase.boot_b_ns(seed),
        "records": [*client, *server],
        "tools": tool_digests(emulation_binaries(backend.name, ["mftp", "mftpd"])),
    }
