"""ttcp bulk transfers over a matrix of socket buffers (comer94, liu95cool's Fig 15). One job
measures one send buffer with every receive buffer of the spec (a "part" of a trial), in virtual
time (netsim runs both ends on two Tahoe stacks, one netsim run per buffer pair) or emulated (the
receiver on h2, the transmitter on h1, on one Mininet network); one row per transfer.

Each finished buffer pair is saved at once under <out>/cells/, so a part killed half way
loses no finished pair and its rerun measures only the pairs still missing.
"""
from __future__ import annotations

import hashlib
import json
import random
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from netrepro import limits, phase, sim, stacks
from netrepro.announce import wait_announced
from netrepro.atomic import write_text
from netrepro.backends import emulation_backend
from netrepro.cleanup import finish, kill_group
from netrepro.deadlines import bulk_limit_s
from netrepro.errors import RunError
from netrepro.experiment import Experiment, Spec, settings_hash
from netrepro.jsonlines import parse, read
from netrepro.linkcheck import check_link
from netrepro.linkspec import LinkParams
from netrepro.paths import tool_binary
from netrepro.provenance import now_iso, read_sysctls
from netrepro.safepath import refuse_links
from netrepro.seeds import derive_seed, link_seed
from netrepro.specread import Source, require
from netrepro.topology import H1, H2, H2_IP, LinkNetwork
from netrepro.trial import base_provenance, emulation_binaries, run_name, run_order, tool_digests, write_run
from netrepro.units import parse_size, parse_time

NAME = "ttcp"
# Spec keys only ttcp reads: an experiment of another tool that sets one is refused.
OWN_KEYS = ("trace",)
SWEEP_AXES: tuple[str, ...] = ()
# A part's order (one send buffer): each transfer by its receive buffer, protocol, cooling
# loop (liu95cool's Fig 15) and number; pairs a killed run finished count where they ran
# (provenance `run_log`, `resumed`).
ORDER_FIELDS = ("recv_buffer", "proto", "cool_iterations", "repeat")
TTCP = tool_binary("ttcp")
TTCP_PORT = 5001
# ttcp's own default write size (tools/ttcp/args.c).
DEFAULT_WRITE_SIZE = 8192
# Watchdog of each ttcp end in virtual time when none is given: long enough for Tahoe's
# backed-off retransmissions on a lossy link; costs nothing while no one waits.
DEFAULT_TIMEOUT_S = 600.0
CAPTURE_READY_S = 10.0
CAPTURE_STOP_S = 30.0
# A receiver that outlives its transmitter by this long (beyond ttcp's own no-progress
# timeout) is stuck, not slow.
RECEIVER_GRACE_S = 30.0


@dataclass(frozen=True)
class Settings:
    """ttcp's buffer matrix and transfer settings, and the profile's repeats and size."""

    send_buffers: tuple[int, ...]
    receive_buffers: tuple[int, ...]
    write_size: int
    pause_s: float
    # Each pause adds a draw uniform in [0, pause_spread_s) from the pair's seed.
    pause_spread_s: float
    nodelay: bool
    timeout_s: float
    transfers: int
    transfer_bytes: int
    protocols: tuple[str, ...] = ("tcp",)
    # UDP's cooling levels: busy-loop iterations after each datagram.
    cool_iterations: tuple[int, ...] = (0,)
    # A packet capture of the (one) buffer pair, for trace.csv.
    trace: bool = False


def _sizes(source: Source, keys: tuple, texts: list[str]) -> tuple[int, ...]:
    sizes = []
    for index, text in enumerate(texts):
        size = source.parse(source.key(*keys, index), parse_size, text)
        limits.socket_buffer(source.stack).check(source.document, source.key(*keys, index), size)
        sizes.append(size)
    return tuple(sizes)


def parse_settings(source: Source) -> Settings:
    source.require("ttcp")
    source.require_profile("transfers", "transfer")
    document, settings = source.document, source.settings
    plan = settings["ttcp"]
    key = ("ttcp",)
    require(document, source.key(*key), plan, ("send_buffers", "receive_buffers"))
    write_size = source.parse(source.key(*key, "write_size"), parse_size, plan.get("write_size", "8K"))
    protocols = tuple(plan.get("protocols", ["tcp"]))
    (limits.UDP_WRITE if "udp" in protocols else limits.WRITE).check(document, source.key(*key, "write_size"),
                                                                      write_size)
    if "cool_iterations" in plan and "udp" not in protocols:
        raise document.error(source.key(*key, "cool_iterations"), "cooling applies to UDP: add udp to protocols")
    for index, spins in enumerate(plan.get("cool_iterations", [])):
        limits.COOL_SPIN.check(document, source.key(*key, "cool_iterations", index), spins)
    waits = {}
    for name, limit, default in (("pause", limits.PAUSE_NS, "1s"), ("pause_spread", limits.PAUSE_SPREAD_NS, "0s"),
                                 ("timeout", limits.TRANSFER_TIMEOUT_NS, "30s")):
        waits[name] = source.parse(source.key(*key, name), limits.ns, plan.get(name, default))
        limit.check(document, source.key(*key, name), waits[name])
    if waits["timeout"] <= waits["pause"] + waits["pause_spread"]:
        raise document.error(source.key(*key, "timeout"), "must be longer than pause plus pause_spread, "
                             "or the pause between transfers ends the run (ttcp --timeout)")
    if "udp" in protocols and source.backend != "sim":
        raise document.error(source.key(*key, "protocols"), "ttcp over UDP runs in virtual time only "
                             "(the emulated runner times TCP): give stack tahoe and backend sim")
    trace = bool(settings.get("trace", False))
    if trace and (len(plan["send_buffers"]) != 1 or len(plan["receive_buffers"]) != 1):
        raise document.error(source.key("trace"), "a trace captures one ttcp buffer pair: "
                             "give tool ttcp with one send and one receive buffer")
    transfer_bytes = source.parse(source.profile_key("transfer"), parse_size, source.profile["transfer"])
    limits.TRANSFER.check(document, source.profile_key("transfer"), transfer_bytes)
    return Settings(
        send_buffers=_sizes(source, (*key, "send_buffers"), plan["send_buffers"]),
        receive_buffers=_sizes(source, (*key, "receive_buffers"), plan["receive_buffers"]),
        write_size=write_size,
        pause_s=source.parse(source.key(*key, "pause"), parse_time, plan.get("pause", "1s")),
        pause_spread_s=source.parse(source.key(*key, "pause_spread"), parse_time, plan.get("pause_spread", "0s")),
        nodelay=bool(plan.get("nodelay", False)),
        timeout_s=source.parse(source.key(*key, "timeout"), parse_time, plan.get("timeout", "30s")),
        transfers=int(source.profile.get("transfers", 1)),
        transfer_bytes=transfer_bytes,
        protocols=protocols,
        cool_iterations=tuple(plan.get("cool_iterations", [0])),
        trace=trace,
    )


def sim_only(settings: Mapping[str, Any]) -> list[str]:
    """ttcp has no settings that exist only on netsim's stacks."""
    return []


def binaries(backend: str) -> tuple[str, ...]:
    """The programs a part runs on backend."""
    return ("netsim",) if backend == "sim" else ("ttcp",)


def parts(settings: Settings) -> tuple[int, ...] | None:
    """A trial's jobs: one per send buffer, each with every receive buffer."""
    return settings.send_buffers


def traced(settings: Settings) -> bool:
    return settings.trace


def fixed_columns(settings: Settings) -> dict[str, Any]:
    """Every column of a ttcp row is the row's own."""
    return {}


def limit_s(experiment: Experiment, send_buffer: int, recv_buffer: int) -> float:
    """The wall-clock limit of one ttcp end's run of all its transfers of a buffer pair."""
    settings: Settings = experiment.settings
    return bulk_limit_s(experiment.link, settings.transfer_bytes, min(send_buffer, recv_buffer),
                        settings.pause_s + settings.pause_spread_s + settings.timeout_s, settings.transfers)


def experiment_key(experiment: Experiment, trial: int) -> str:
    """Changes whenever anything a pair's result depends on changes, so a rerun after a spec
    edit never reuses a pair measured under the old spec."""
    return hashlib.sha256(f"{settings_hash(experiment)}:{experiment.backend}:{trial}".encode()).hexdigest()[:16]


def receive_order(experiment: Experiment, trial: int, send_buffer: int) -> list[int]:
    """The receive buffers in a shuffled order fixed by the seed, so no pair always runs first."""
    order = list(experiment.settings.receive_buffers)
    random.Random(f"{experiment.seed}:{experiment.draws_id}:{trial}:{send_buffer}").shuffle(order)
    return order


def pair_seed(experiment: Experiment, trial: int, send_buffer: int, recv_buffer: int) -> int:
    """A seed per buffer pair, so pairs are independent yet every rerun draws the same."""
    return derive_seed(experiment.seed, experiment.draws_id, trial, send_buffer, recv_buffer)


def ttcp_common_args(experiment: Experiment) -> list[str]:
    return [
        "--bytes", f"{experiment.settings.transfer_bytes}B", "--repeat", str(experiment.settings.transfers),
        "-l", f"{experiment.settings.write_size}B", "--timeout", f"{round(experiment.settings.timeout_s * 1e3)}ms",
    ]


def transmitter_args(experiment: Experiment, send_buffer: int, seed: int) -> list[str]:
    """ttcp -t's arguments after the binary, without the stack's and the peer address; seed
    draws the pauses' spread, as netsim's ttcp draws it (ttcp_command)."""
    argv = ["-t", "--sndbuf", f"{send_buffer}B", *ttcp_common_args(experiment),
            "--pause", f"{round(experiment.settings.pause_s * 1e3)}ms",
            *pause_spread_args(experiment.settings.pause_spread_s, seed)]
    if experiment.settings.nodelay:
        argv.append("--nodelay")
    return argv


def pause_spread_args(spread_s: float, seed: int) -> list[str]:
    """ttcp -t's flags for a pause spread drawn from seed; none without a spread."""
    return ["--pause-spread", f"{round(spread_s * 1e9)}ns", "--seed", str(seed)] if spread_s > 0 else []


def receiver_args(experiment: Experiment, recv_buffer: int) -> list[str]:
    return ["-r", "--rcvbuf", f"{recv_buffer}B", *ttcp_common_args(experiment)]


def transfer_rows(experiment: Experiment, trial: int, run_id: str, send_buffer: int, recv_buffer: int,
                  records: list[dict[str, Any]], cool_iterations: int | None = None) -> list[dict[str, Any]]:
    """One row per transfer from ttcp's transmitter records; refuses an incomplete set. A UDP
    transfer (cool_iterations given) may lose datagrams; a TCP one must deliver every octet."""
    sent = sorted((r for r in records if r.get("role") == "transmitter"), key=lambda r: r["index"])
    if len(sent) != experiment.settings.transfers:
        raise RunError(f"ttcp {send_buffer}/{recv_buffer}: {len(sent)} transfer records, "
                       f"expected {experiment.settings.transfers}")
    rows = []
    for record in sent:
        if cool_iterations is None and record.get("receiver_bytes") != record["bytes"]:
            raise RunError(f"ttcp {send_buffer}/{recv_buffer} transfer {record['index']}: the receiver got "
                           f"{record.get('receiver_bytes')} of {record['bytes']} octets")
        receiver_bps = record.get("receiver_bps")
        rows.append({
            "run_id": run_id,
            "trial": trial,
            "repeat": record["index"] + 1,
            "send_buffer": send_buffer,
            "recv_buffer": recv_buffer,
            "sndbuf_granted": record["sndbuf"],
            "rcvbuf_granted": record.get("receiver_rcvbuf"),
            "nodelay": experiment.settings.nodelay,
            "bytes": record["bytes"],
            "throughput_mbit": record["sender_bps"] / 1e6,
            "receiver_throughput_mbit": receiver_bps / 1e6 if receiver_bps is not None else None,
            "proto": record.get("proto", "tcp"),
            "cool_iterations": cool_iterations,
            "cool_gap_us": record["cool_spin_ns_per_iter"] * cool_iterations / 1e3
            if cool_iterations and record.get("cool_spin_ns_per_iter") is not None else None,
            "datagrams_sent": record.get("datagrams_sent"),
            "datagrams_received": record.get("datagrams_received"),
        })
    return rows


class PairStore:
    """The finished buffer pairs of one part, one JSON file each."""

    def __init__(self, out: Path, key: str) -> None:
        self.folder = out / "cells" / key

    def path(self, recv_buffer: int) -> Path:
        return self.folder / f"recv-{recv_buffer}.json"

    def load(self, recv_buffer: int) -> dict[str, Any] | None:
        path = self.path(recv_buffer)
        if not path.is_file():
            return None
        return json.loads(path.read_text(encoding="utf-8"))

    def save(self, recv_buffer: int, pair: dict[str, Any]) -> None:
        write_text(self.path(recv_buffer), json.dumps(pair) + "\n")


def measure_pairs(experiment: Experiment, trial: int, send_buffer: int, out: Path,
                  measure_one: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Runs measure_one(recv_buffer) -> pair dict (with "rows") for every receive buffer not yet
    stored; returns all pairs in run order and the run log (which pairs ran now, which resumed)."""
    store = PairStore(out, experiment_key(experiment, trial))
    pairs, log = [], []
    for recv_buffer in receive_order(experiment, trial, send_buffer):
        pair = store.load(recv_buffer)
        resumed = pair is not None
        if pair is None:
            pair = measure_one(recv_buffer)
            store.save(recv_buffer, pair)
        pairs.append(pair)
        log.append({"send_buffer": send_buffer, "recv_buffer": recv_buffer, "resumed": resumed,
                    "finished_at": pair["finished_at"]})
    return pairs, log


def stop_process(process: subprocess.Popen, timeout_s: float, what: str) -> tuple[str, str]:
    """Waits for a process; interrupts, then kills it when it does not end in time."""
    try:
        return process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGINT)
        try:
            output, errors = process.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            output, errors = process.communicate()
        raise RunError(f"{what} did not finish within {timeout_s:.0f} s and was stopped: "
                       f"{(errors or '').strip()[-300:]}") from None


# The Tahoe stack's counters of why it sent each segment, summed over a pair's transfers: the
# transmitter's (host a) sender rules and how many of its new segments left behind another
# unacknowledged one, and the receiver's (host b) ACKs by rule or by the timer.
PAIR_COUNTERS = {
    "pair_segments_s1": "a_tcps_out_s1",
    "pair_segments_s2": "a_tcps_out_s2",
    "pair_segments_s3": "a_tcps_out_s3",
    "pair_segments_nodelay": "a_tcps_out_nodelay",
    "pair_data_segments": "a_tcps_sndpack",
    "pair_segments_behind": "a_tcps_sndbehind",
    "pair_acks_r1": "b_tcps_out_r1",
    "pair_acks_r2": "b_tcps_out_r2",
    "pair_acks_timer": "b_tcps_delack",
}


def pair_counts(counters: dict[str, Any]) -> dict[str, int]:
    missing = [key for key in PAIR_COUNTERS.values() if key not in counters]
    if missing:
        raise RunError(f"netsim's sim record lacks {', '.join(missing)}; rebuild the tools (make build)")
    return {column: int(counters[key]) for column, key in PAIR_COUNTERS.items()}


# The link's and the receiving host's drop counters of a run: where UDP datagrams were lost
# (liu95cool Sec 4.3: no cell lost, so the receiving host was the bottleneck).
DROP_COUNTERS = {
    "link_drops": ("forward_drop_queue", "forward_drop_loss", "forward_drop_cell_loss",
                   "forward_drop_bit_error", "forward_drop_oversize"),
    "link_cells_lost": ("forward_drop_cell_loss",),
    "receiver_fullsock": ("b_udps_fullsock",),
    "receiver_ipq_drops": ("b_ips_qdrop", "b_ips_fragdropped", "b_ips_fragtimeout"),
}


def drop_counts(counters: dict[str, Any]) -> dict[str, int]:
    missing = [key for keys in DROP_COUNTERS.values() for key in keys if key not in counters]
    if missing:
        raise RunError(f"netsim's sim record lacks {', '.join(missing)}; rebuild the tools (make build)")
    return {column: sum(int(counters[key]) for key in keys) for column, keys in DROP_COUNTERS.items()}


def levels(experiment: Experiment) -> list[int | None]:
    """A buffer pair's runs: None for TCP, then UDP's cooling levels in iterations."""
    plan: Settings = experiment.settings
    return [*([None] if "tcp" in plan.protocols else []),
            *(list(plan.cool_iterations) if "udp" in plan.protocols else [])]


def ttcp_command(link: LinkParams, send_buffer: int, recv_buffer: int, bytes: int, repeats: int,
                 host_model_a: Path | None, host_model_b: Path | None, seed: int, nodelay: bool = False,
                 write_size: int = DEFAULT_WRITE_SIZE, pause_s: float | None = None,
                 pause_spread_s: float = 0.0, timeout_s: float = DEFAULT_TIMEOUT_S, wall: bool = False,
                 pcap: Path | None = None, boot_b: int | None = None, udp: bool = False,
                 cool_spin: int = 0, binary: Path = sim.BINARY) -> list[str]:
    """The netsim argument list for ttcp from host a to host b: send_buffer is the
    transmitter's SO_SNDBUF, recv_buffer the receiver's SO_RCVBUF (ttcp -b sets just these).
    wall=True keeps the wall-clock fields in the sim record (the output is then not
    byte-identical from run to run). A host model of None is a host whose work costs no time.
    pcap names a file for the packets at host a's interface, with each segment's sender rule
    beside them in the output (--trace). pause_spread_s lengthens each pause by a draw from
    seed. boot_b (ns) is how long before host a host b booted (netrepro.phase); None lets
    netsim draw it from the seed. udp=True sends datagrams of write_size, with cool_spin
    busy-loop iterations after each (ttcp --cool-spin), timed by the host model."""
    for name, value in (("send_buffer", send_buffer), ("recv_buffer", recv_buffer),
                        ("bytes", bytes), ("repeats", repeats), ("write_size", write_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise sim.SimError(f"{name} must be a positive whole number, not {value!r}")
    if isinstance(cool_spin, bool) or not isinstance(cool_spin, int) or cool_spin < 0 or (cool_spin and not udp):
        raise sim.SimError(f"cool_spin must be a whole number of iterations, for UDP only, not {cool_spin!r}")
    common = ["--bytes", f"{bytes}B", "--repeat", str(repeats), "-l", f"{write_size}B",
              "--timeout", sim.time_arg(timeout_s), *(["-u"] if udp else [])]
    tx = ["-t", "--sndbuf", f"{send_buffer}B", *common]
    if nodelay:
        tx.append("--nodelay")
    if cool_spin:
        tx += ["--cool-spin", str(cool_spin)]
    if pause_s is not None:
        tx += ["--pause", sim.time_arg(pause_s)]
    tx += pause_spread_args(pause_spread_s, seed)
    tx.append(sim.ADDR_B)
    rx = ["-r", "--rcvbuf", f"{recv_buffer}B", *common]
    hosts = []
    for flag, model in (("--host-model-a", host_model_a), ("--host-model-b", host_model_b)):
        if model is not None:
            hosts += [flag, str(model)]
    capture = ["--pcap", str(pcap), "--trace"] if pcap is not None else []
    return [
        str(binary), *sim.link_args(link), *hosts, *capture, *sim.boot_b_args(boot_b),
        "--seed", str(seed), *([] if wall else ["--no-wall"]), "--", *tx, "--", *rx,
    ]


def pair_command(experiment: Experiment, send_buffer: int, recv_buffer: int, seed: int,
                 pcap: Path | None = None, cool_iterations: int | None = None) -> list[str]:
    """netsim's arguments for one buffer pair's transfers with the tick phases of seed: TCP, or
    UDP cooled by cool_iterations busy-loop iterations after each datagram."""
    plan: Settings = experiment.settings
    return ttcp_command(
        experiment.link, send_buffer, recv_buffer, experiment.settings.transfer_bytes, experiment.settings.transfers,
        experiment.host_model, experiment.host_model, seed, nodelay=plan.nodelay,
        write_size=plan.write_size, pause_s=plan.pause_s, pause_spread_s=plan.pause_spread_s,
        timeout_s=plan.timeout_s,
        pcap=pcap, boot_b=phase.boot_b_ns(seed), udp=cool_iterations is not None, cool_spin=cool_iterations or 0,
    )


def run_part_sim(experiment: Experiment, trial: int, send_buffer: int, run_id: str, out: Path) -> dict[str, Any]:
    """Measures send_buffer with every receive buffer in virtual time; returns the part's provenance."""
    def measure_one(recv_buffer: int) -> dict[str, Any]:
        seed = pair_seed(experiment, trial, send_buffer, recv_buffer)
        rows, sims, segments, commands = [], [], [], []
        for level in levels(experiment):
            command = pair_command(experiment, send_buffer, recv_buffer, seed,
                                   out / "capture.pcap" if experiment.settings.trace else None, level)
            what = "TCP" if level is None else f"UDP cooled by {level} iterations"
            try:
                result = sim.run_netsim(command, limit_s(experiment, send_buffer, recv_buffer))
            except sim.SimError as exc:
                raise RunError(f"ttcp {send_buffer}/{recv_buffer} ({what}) in virtual time: {exc}") from exc
            counts = {**pair_counts(result.sim), **drop_counts(result.sim)}
            rows += [{**row, **counts} for row in
                     transfer_rows(experiment, trial, run_id, send_buffer, recv_buffer, result.transfers, level)]
            sims.append(result.sim)
            segments += result.segments
            commands.append(command)
        return {
            "rows": rows,
            "sim": sims[0] if len(sims) == 1 else sims,
            "segments": segments,
            "command": commands[0] if len(commands) == 1 else commands,
            "seed": seed,
            "boot_b_ns": phase.boot_b_ns(seed),
            "finished_at": now_iso(),
        }

    pairs, run_log = measure_pairs(experiment, trial, send_buffer, out, measure_one)
    return {"pairs": pairs, "run_log": run_log, "backend": "sim"}


def start_capture(host: Any, iface: str, pcap: Path) -> Any:
    """tcpdump on iface, headers only; returns once it is capturing. Packets go to tcpdump as
    they come (--immediate-mode): in the kernel's default blocks, those of the last block would
    be lost when the capture stops right after the transfer. A capture left by an earlier run
    is removed first: it would pass for this one's readiness."""
    refuse_links(pcap)
    pcap.parent.mkdir(parents=True, exist_ok=True)
    pcap.unlink(missing_ok=True)
    process = host.popen(["tcpdump", "-i", iface, "--immediate-mode", "-n", "-U", "-s", "128", "-w", str(pcap),
                          "tcp"],
                         stdout=-1, stderr=-1, text=True)
    deadline = time.monotonic() + CAPTURE_READY_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            _, errors = process.communicate()
            raise RunError(f"tcpdump on {iface} exited at start: {errors.strip()[-300:]}")
        if pcap.is_file() and pcap.stat().st_size > 0:
            return process
        time.sleep(0.05)
    kill_group(process)
    raise RunError(f"tcpdump on {iface} did not start capturing within {CAPTURE_READY_S:.0f} s")


def stop_capture(process: Any) -> None:
    process.terminate()
    _, errors = finish(process, CAPTURE_STOP_S, "tcpdump")
    if process.returncode not in (0, -15):
        raise RunError(f"tcpdump ended with status {process.returncode}: {errors.strip()[-300:]}")


def segment_log(pcap: Path, host: str) -> Path:
    """Where host a (the transmitter, as netsim names it) or b logs its segments, beside the capture."""
    return pcap.with_name(f"segment-log-{host}.jsonl")


def logs_segments(experiment: Experiment, pcap: Path | None) -> bool:
    """A traced transfer on the Tahoe stack: each end logs the rule behind each segment it sends
    (ttcp --segment-log), as netsim does, so that trace.csv names the rules in emulation too."""
    return pcap is not None and experiment.stack == "tahoe"


def segment_log_args(experiment: Experiment, pcap: Path | None, host: str) -> list[str]:
    return ["--segment-log", str(segment_log(pcap, host))] if logs_segments(experiment, pcap) else []


def read_segment_log(path: Path, host: str) -> list[dict[str, Any]]:
    """One end's segment records, marked with its host."""
    if not path.is_file():
        raise RunError(f"ttcp wrote no segment log at {path}; its stderr says why")
    segments = [{**record, "host": host} for record in read(path)]
    path.unlink()
    return segments


def run_pair(net: Any, experiment: Experiment, tool_args: dict[str, list[str]], send_buffer: int,
             recv_buffer: int, pcap: Path | None, seed: int) -> list[dict[str, Any]]:
    """One buffer pair: the receiver on h2, then, once it listens, the transmitter on h1, its
    Tahoe ticks at the phase that seed gives netsim (netrepro.phase); returns both ends' records."""
    port = ["--port", str(TTCP_PORT)]
    receiver = net.h2.popen([str(TTCP), *receiver_args(experiment, recv_buffer), *port, *tool_args["h2"],
                             *phase.host_b_args(experiment.stack, seed), *segment_log_args(experiment, pcap, "b")],
                            stdout=-1, stderr=-1, text=True)
    capture = None
    try:
        wait_announced(receiver, "ttcp: receiving", f"ttcp -r ({send_buffer}/{recv_buffer})")
        capture = start_capture(net.h1, H1[0], pcap) if pcap else None
        transmitter = net.h1.popen([str(TTCP), *transmitter_args(experiment, send_buffer, seed), *port,
                                    *tool_args["h1"], *phase.host_a_args(experiment.stack, seed),
                                    *segment_log_args(experiment, pcap, "a"), H2_IP],
                                   stdout=-1, stderr=-1, text=True)
        tx_out, tx_err = finish(transmitter, limit_s(experiment, send_buffer, recv_buffer),
                                f"ttcp -t ({send_buffer}/{recv_buffer})")
        timeout = experiment.settings.timeout_s + RECEIVER_GRACE_S
        rx_out, rx_err = stop_process(receiver, timeout, f"ttcp receiver ({send_buffer}/{recv_buffer})")
    except BaseException:
        # Killed, not stopped: their output no longer matters, and stopping them must not
        # hide why the pair failed.
        for process in (receiver, capture):
            if process is not None:
                kill_group(process)
        raise
    if capture is not None:
        stop_capture(capture)
    records = parse(tx_out, "ttcp -t") + parse(rx_out, "ttcp -r")
    errors = [r for r in records if r.get("record") == "error"]
    if transmitter.returncode != 0 or receiver.returncode != 0 or errors:
        detail = errors[0].get("error") if errors else (tx_err or rx_err).strip()[-300:]
        raise RunError(f"ttcp {send_buffer}/{recv_buffer} failed (transmitter exit {transmitter.returncode}, "
                       f"receiver exit {receiver.returncode}): {detail}")
    return records


def run_part_emulated(experiment: Experiment, trial: int, send_buffer: int, run_id: str,
                      out: Path) -> dict[str, Any]:
    """Measures send_buffer with every receive buffer on one emulated network; returns the
    part's provenance (the rows are in the pairs it lists)."""
    seed_of_link = link_seed(experiment.seed, experiment.draws_id, trial, send_buffer)
    backend = emulation_backend(experiment.backend, experiment.stack, seed_of_link)
    buffers = (max(experiment.settings.send_buffers), max(experiment.settings.receive_buffers))
    with LinkNetwork(experiment.link, backend, out / "logs") as net:
        link_check = check_link(net, experiment.link, H2_IP)
        tool_args = stacks.setup_hosts([(net.h1, *H1), (net.h2, *H2)], experiment.stack,
                                       experiment.host_model, experiment.link.mtu, buffers, net.frame_times)
        sysctls = read_sysctls(net.h1)

        def measure_one(recv_buffer: int) -> dict[str, Any]:
            pcap = out / "capture.pcap" if experiment.settings.trace else None
            seed = pair_seed(experiment, trial, send_buffer, recv_buffer)
            records = run_pair(net, experiment, tool_args, send_buffer, recv_buffer, pcap, seed)
            segments = ([s for host in "ab" for s in read_segment_log(segment_log(pcap, host), host)]
                        if logs_segments(experiment, pcap) else [])
            return {"rows": transfer_rows(experiment, trial, run_id, send_buffer, recv_buffer, records),
                    "segments": segments,
                    "seed": seed, "boot_b_ns": phase.boot_b_ns(seed), "finished_at": now_iso()}

        pairs, run_log = measure_pairs(experiment, trial, send_buffer, out, measure_one)
    return {
        "pairs": pairs,
        "run_log": run_log,
        **net.provenance(link_check, seed_of_link),
        "sysctls": sysctls,
        "tool_args": tool_args,
    }


def prepares(experiment: Experiment) -> bool:
    """A ttcp trial shares nothing with the others."""
    return False


def run(spec: Spec, experiment: Experiment, trial: int, out: Path, part: int | None,
        prepared: Mapping[str, Any] | None) -> None:
    """One send buffer (part) of a trial, with every receive buffer; writes records.jsonl (one
    row per transfer), segments.jsonl when the stack logged them, then provenance.json."""
    settings: Settings = experiment.settings
    if part is None:
        raise RunError(f"experiment {experiment.id} runs ttcp: give --send-buffer")
    if part not in settings.send_buffers:
        raise RunError(f"send buffer {part} is not one of the experiment's: "
                       f"{', '.join(map(str, settings.send_buffers))}")
    run_id = run_name(spec, experiment, trial, f"send-{part}")
    started = now_iso()
    runner = run_part_sim if experiment.backend == "sim" else run_part_emulated
    result = runner(experiment, trial, part, run_id, out)
    pairs = result.pop("pairs")
    rows = [row for pair in pairs for row in pair["rows"]]
    segments = [segment for pair in pairs for segment in pair.get("segments", [])]
    binaries = ([tool_binary("netsim")] if experiment.backend == "sim"
                else emulation_binaries(result["backend"], ["ttcp"]))
    write_run(out, rows, {
        **base_provenance(spec, experiment, run_id, started),
        **result,
        "send_buffer": part,
        "pairs": [{key: value for key, value in pair.items() if key not in ("rows", "segments")}
                  for pair in pairs],
        "tools": tool_digests(binaries),
        **run_order(rows, ORDER_FIELDS),
    }, segments)
