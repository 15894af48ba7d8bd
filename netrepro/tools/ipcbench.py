"""ipcbench experiments (milliner): a trial measures every curve (a UDP segment size and
unacknowledged count, or a TCP buffer size) at every message size (the profile's `sizes` where it
gives them): one run per curve and size, ipcbench's client on host a sending `transfers` messages
(the profile's key) to its server on host b; each message the client timed is one row. In virtual
time each run is one netsim run on two Tahoe stacks. Emulated, h1 -- link -- h2 on Mininet, the
client on h1 (host a, the spec's `host`) and the server on h2 (host b, ipcbench's `host_b`), both
on the spec's stack, one client and server per curve and size, host a's ticks at the phase the
run's seed gives netsim (netrepro.phase). ONC RPC (mode rpc, libtirpc) drives the kernel's
sockets, so it runs emulated on a Linux stack only.

Emulated, each ipcbench process runs in a memory cgroup of its own sized from its host model
(netrepro.memcg), so that the kernel pages its buffers as the host paged; on the Tahoe stack the
host model's paging (tools/tahoe/vm_page.c) applies as well, as in virtual time, and ipcbench
reports it in a `vmstat` record.
"""
from __future__ import annotations

import re
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import Any, Callable, Mapping

from netrepro import limits, phase, sim, stacks
from netrepro.announce import wait_announced
from netrepro.backends import emulation_backend
from netrepro.backends.linkemu import LinkemuBackend, medium_delta
from netrepro.cleanup import finish, kill_group
from netrepro.deadlines import bulk_limit_s
from netrepro.errors import RunError
from netrepro.experiment import Experiment, Spec
from netrepro.jsonlines import parse
from netrepro.linkcheck import check_link
from netrepro.memcg import MemoryCgroup, MemoryPlan, plan_of
from netrepro.paths import tool_binary
from netrepro.provenance import now_iso, read_sysctls
from netrepro.seeds import link_seed
from netrepro.specread import Source
from netrepro.topology import H1, H2, H2_IP, LinkNetwork
from netrepro.trial import base_provenance, emulation_binaries, run_name, run_order, run_seed, tool_digests, write_run
from netrepro.units import parse_size
from netrepro.yamlsrc import Document

NAME = "ipcbench"
OWN_KEYS: tuple[str, ...] = ()
SWEEP_AXES: tuple[str, ...] = ()
# A run's order: each message by its curve, size and repeat (curve by curve, size by size).
ORDER_FIELDS = ("curve", "message_bytes", "repeat")
# The stacks whose sockets are the kernel's, which libtirpc (mode rpc) drives (netrepro/stacks.py).
KERNEL_STACKS = ("linux", "linux-retro")
# The most sizes a range may hold: each is a run of every curve, a trial of 1000 takes days.
MAX_SIZES = 1000
RANGE = re.compile(r"^\s*(\S+)\s*\.\.\s*(\S+)\s+step\s+(\S+)\s*$")
# Emulated runs: each host's major page faults and peak memory, in the kernel (netrepro.memcg).
KERNEL_COLUMNS = ("a_kernel_majfaults", "b_kernel_majfaults", "a_peak_bytes", "b_peak_bytes")
DROP_KEYS = ("forward_drop_queue", "reverse_drop_queue", "medium_a_drop_queue", "medium_b_drop_queue",
             "medium_a_excessive", "medium_b_excessive")
# Fragments host B threw away unassembled: a datagram's other fragments lost before it.
FRAG_DROP_KEYS = ("b_ips_fragdropped", "b_ips_fragtimeout")


IPCBENCH = tool_binary("ipcbench")
IPC_PORT = 5002
# How long the server may take to exit once the client is done: it has seen every message
# (--count) and only echoes or closes.
SERVER_STOP_S = 60.0
# netsim's names of each host's paging counts, from ipcbench's vmstat records.
VMSTAT_KEYS = ("v_zfod", "v_pgin", "v_pgout", "v_frees", "v_maxres")



@dataclass(frozen=True)
class Settings:
    """What ipcbench does: the mode, the curves and the message sizes; the profile's messages
    per run (transfers)."""

    mode: str
    segments: tuple[int, ...]
    unacks: tuple[int, ...]
    buffers: tuple[int, ...]
    sizes: tuple[int, ...]
    host_b: str | None
    host_b_model: Path | None
    pause_s: float
    timeout_s: float
    transfers: int
    # The hosts' swap (octets; None: not given), for the emulated hosts' memory cgroups.
    swap_a: int | None = None
    swap_b: int | None = None

    def curves(self) -> list[dict[str, Any]]:
        """Every curve a trial measures, with its label."""
        if self.mode == "udp":
            return [{"curve": f"udp {s}B {k}UnAck", "segment": s, "unack": k, "buffer": None}
                    for k in self.unacks for s in self.segments]
        return [{"curve": f"{self.mode} {b}B", "segment": None, "unack": None, "buffer": b}
                for b in self.buffers]


def parse_sizes(document: Document, key_path: tuple, value: Any, limit: limits.Limit) -> tuple[int, ...]:
    """A list of sizes, or a range written `1M..24M step 1M` (both ends included)."""
    if isinstance(value, str):
        match = RANGE.match(value)
        if not match:
            raise document.error(key_path, f"{value!r} is not a range like `1M..24M step 1M`")
        first, last, step = (limits.value(document, key_path, parse_size, t) for t in match.groups())
        if step < 1 or last < first:
            raise document.error(key_path, f"{value!r}: the range must rise by a positive step")
        limit.check(document, key_path, last)
        if (last - first) // step >= MAX_SIZES:
            raise document.error(key_path, f"{value!r} holds more than {MAX_SIZES} sizes, each one run per curve")
        sizes = tuple(range(first, last + 1, step))
    else:
        sizes = tuple(limits.value(document, (*key_path, i), parse_size, t) for i, t in enumerate(value))
    for size in sizes:
        limit.check(document, key_path, size)
    return sizes


def parse_settings(source: Source) -> Settings:
    """The experiment's `ipcbench:` settings; the profile's `sizes` replace ipcbench's."""
    source.require("ipcbench")
    source.require_profile("transfers")
    document, settings, where = source.document, source.settings, source.where
    profile_sizes = source.profile.get("sizes")
    plan = settings.get("ipcbench", {})
    key = ("ipcbench",)
    mode = plan.get("mode", "tcp")
    # A Linux stack never runs in virtual time (netrepro/spec.py runs it emulated).
    if mode == "rpc" and settings["stack"] not in KERNEL_STACKS:
        raise document.error(where + (*key, "mode"), "mode rpc runs on libtirpc, which drives the "
                             "kernel's sockets: it cannot run on the Tahoe stack nor in virtual time; "
                             "give stack linux and an emulated backend (e.g. linkemu)")
    if mode == "udp" and "buffers" in plan:
        raise document.error(where + (*key, "buffers"), "buffers apply to tcp and rpc; udp uses segments and unack")
    if mode != "udp" and ("segments" in plan or "unack" in plan):
        raise document.error(where + key, "segments and unack apply to mode udp only")
    if "sizes" not in plan:
        raise document.error(where + key, "missing sizes (a list, or a range like `1M..24M step 1M`)")
    unacks = tuple(plan.get("unack", [1]))
    for index, unack in enumerate(unacks):
        limits.UNACK.check(document, where + (*key, "unack", index), unack)
    segments = parse_sizes(document, where + (*key, "segments"), plan.get("segments", ["9000B"]),
                           limits.SEGMENT) if mode == "udp" else ()
    buffers = parse_sizes(document, where + (*key, "buffers"), plan.get("buffers", ["4096B"]),
                          limits.IPC_BUFFER) if mode != "udp" else ()
    host_b = plan.get("host_b")
    if profile_sizes is not None:
        # The experiment's own profiles, else the spec's (the profile's name is not known here).
        own = where + ("profiles",)
        sizes = parse_sizes(document, own if own[0] == "experiments" else ("profiles",), profile_sizes,
                            limits.IPC_MESSAGE)
    else:
        sizes = parse_sizes(document, where + (*key, "sizes"), plan["sizes"], limits.IPC_MESSAGE)
    pause = limits.value(document, where + (*key, "pause"), limits.ns, plan.get("pause", "1s"))
    limits.PAUSE_NS.check(document, where + (*key, "pause"), pause)
    timeout = limits.value(document, where + (*key, "timeout"), limits.ns, plan.get("timeout", "600s"))
    limits.TRANSFER_TIMEOUT_NS.check(document, where + (*key, "timeout"), timeout)
    if timeout <= pause:
        raise document.error(where + (*key, "timeout"), "must be longer than pause (ipcbench --timeout)")
    swaps = [limits.value(document, where + (*key, name), parse_size, plan[name]) if name in plan else None
             for name in ("swap", "swap_b")]
    return Settings(
        mode=mode, segments=segments, unacks=unacks if mode == "udp" else (), buffers=buffers,
        sizes=sizes, swap_a=swaps[0], swap_b=swaps[1] if "swap_b" in plan else swaps[0],
        host_b=host_b,
        host_b_model=source.host_model(host_b, where + (*key, "host_b")) if host_b else None,
        pause_s=pause / limits.NS,
        timeout_s=timeout / limits.NS,
        transfers=int(source.profile.get("transfers", 1)),
    )


def sim_only(settings: Mapping[str, Any]) -> list[str]:
    """ipcbench has no settings that exist only on netsim's stacks."""
    return []


def binaries(backend: str) -> tuple[str, ...]:
    """The programs a trial runs on backend."""
    return ("netsim",) if backend == "sim" else ("ipcbench",)


def parts(settings: Settings) -> tuple[int, ...] | None:
    """An ipcbench trial is one job."""
    return None


def traced(settings: Settings) -> bool:
    return False


def fixed_columns(settings: Settings) -> dict[str, Any]:
    """Every column of an ipcbench row is the row's own."""
    return {}


def limit_s(experiment: Experiment, window: int, size: int) -> float:
    """The wall-clock limit of one ipcbench run: every message of size octets of one curve,
    window octets in flight (a curve's buffer, or its segment times its unacknowledged ones)."""
    settings: Settings = experiment.settings
    return bulk_limit_s(experiment.link, size, window, settings.pause_s + settings.timeout_s, settings.transfers)


def ipcbench_args(plan: Settings, curve: Mapping[str, Any], size: int, repeats: int) -> tuple[list[str], list[str]]:
    """The client's and the server's own options for one curve and message size."""
    proto = "udp" if plan.mode == "udp" else "tcp"
    # ONC RPC always runs over TCP; its --buf sizes the record buffers of both ends.
    api = ["--api", "rpc"] if plan.mode == "rpc" else ["--proto", proto]
    common = [*api, "--timeout", f"{round(plan.timeout_s * 1e9)}ns"]
    own = ["--segment", f"{curve['segment']}B", "--unack", str(curve["unack"])] if proto == "udp" \
        else ["--buf", f"{curve['buffer']}B"]
    client = [*common, *own, "--size", f"{size}B", "--repeat", str(repeats),
              "--pause", f"{round(plan.pause_s * 1e9)}ns"]
    server = [*common, *([] if proto == "udp" else own)]
    return client, server


def run_messages(client: list[str]) -> int:
    """The messages one run's client sends (its --repeat): what an emulated server waits for."""
    return int(client[client.index("--repeat") + 1])


def ipcbench_command(link: Any, host_a: Path | None, host_b: Path | None, seed: int,
                     client: list[str], server: list[str]) -> list[str]:
    """The netsim argument list: ipcbench's client on host a (host_a's model) sending to its
    server on host b (host_b's model, else host_a's)."""
    hosts = [*(["--host-model-a", str(host_a)] if host_a else []),
             *(["--host-model-b", str(host_b or host_a)] if host_b or host_a else [])]
    return [str(sim.BINARY), "--app", "ipcbench", *sim.link_args(link), *hosts, "--seed", str(seed), "--no-wall",
            "--", *client, sim.ADDR_B, "--", *server]


def message_rows(curve: Mapping[str, Any], records: list[dict[str, Any]],
                 counters: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per message the client timed; the run's paging and drop counts on each."""
    clients = [r for r in records if r.get("record") == "message" and r.get("role") == "client"]
    servers = {r["index"]: r for r in records if r.get("record") == "message" and r.get("role") == "server"}
    return [{
        "repeat": r["index"] + 1, "mode": "rpc" if r.get("api") == "rpc" else r["proto"], **curve,
        "message_bytes": r["size"],
        "elapsed_s": r["elapsed_ns"] / 1e9, "throughput_mbit": r["throughput_bps"] / 1e6,
        "timing_end": r.get("timing_end"),
        "echo_s": r["echo_ns"] / 1e9 if "echo_ns" in r else None, "echo_equal": r.get("echo_equal"), "completed": True,
        "segments": r.get("segments"), "acks": r.get("acks"), "retransmissions": r.get("retransmissions"),
        # Each end's paging during this message, from its own record; the run's totals where
        # the backend gives none per message.
        "a_pageins": r.get("pageins", counters.get("a_v_pgin")),
        "a_pageouts": r.get("pageouts", counters.get("a_v_pgout")),
        "b_pageins": servers.get(r["index"], {}).get("pageins", counters.get("b_v_pgin")),
        "b_pageouts": servers.get(r["index"], {}).get("pageouts", counters.get("b_v_pgout")),
        **sim.disk_columns(r, servers.get(r["index"])),
        **{key: counters.get(key) for key in KERNEL_COLUMNS},
        **drop_counts(counters),
    } for r in clients]


def drop_counts(counters: Mapping[str, Any]) -> dict[str, Any]:
    """Where the run lost packets, by place, and its shared medium's frames and collisions: on
    the rows of a finished run and of one that never finished, whose losses say why. netsim
    counts per run; an emulated link's drops are the trial's, in its provenance (None here)."""
    drops = [k for k in DROP_KEYS if k in counters]
    frag_drops = [k for k in FRAG_DROP_KEYS if k in counters]
    return {
        "sender_drops": counters.get("a_ips_odropped"),
        "link_drops": sum(counters[k] for k in drops) if drops else None,
        "receiver_ipq_drops": counters.get("b_ips_qdrop"),
        "receiver_frag_drops": sum(counters[k] for k in frag_drops) if frag_drops else None,
        "receiver_fullsock": counters.get("b_udps_fullsock"),
        **medium_counts(counters),
    }


MEDIUM_COLUMNS = ("medium_a_frames", "medium_a_collisions", "medium_b_frames", "medium_b_collisions",
                  "medium_frames", "medium_collisions", "collision_pct")


def medium_counts(counters: Mapping[str, Any]) -> dict[str, Any]:
    """The run's frames and collisions on a shared medium, per host (a sends, b answers; as
    each host's netstat -i counts them) and both together (None on a duplex link, which has
    no collisions to count)."""
    if "medium_collision_pct" not in counters:
        return dict.fromkeys(MEDIUM_COLUMNS)
    return {"medium_a_frames": counters["medium_a_tx_frames"],
            "medium_a_collisions": counters["medium_a_collisions"],
            "medium_b_frames": counters["medium_b_tx_frames"],
            "medium_b_collisions": counters["medium_b_collisions"],
            "medium_frames": counters["medium_a_tx_frames"] + counters["medium_b_tx_frames"],
            "medium_collisions": counters["medium_a_collisions"] + counters["medium_b_collisions"],
            "collision_pct": counters["medium_collision_pct"]}


class Unfinished(Exception):
    """A UDP run that ended on its timeout: a group that loses the same fragments every time it
    is sent again never finishes, milliner's "not reliable". `run` is the run's provenance,
    `counters` what the run counted up to then (netsim's names; empty when emulated)."""

    def __init__(self, message: str, run: dict[str, Any], counters: Mapping[str, Any]) -> None:
        super().__init__(message)
        self.run = run
        self.counters = counters


RunOne = Callable[[Mapping[str, Any], int, int, list[str], list[str], float],
                  tuple[list[dict[str, Any]], Mapping[str, Any], dict[str, Any]]]


def measure_curves(experiment: Experiment, trial: int, run_id: str,
                   run_one: RunOne) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every curve at every size, each by run_one(curve, size, seed, client, server, limit_s),
    which returns the run's records, its counters (netsim's names) and its provenance, or
    raises Unfinished. Returns the rows and the runs' provenance."""
    plan: Settings = experiment.settings
    rows: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    for curve in plan.curves():
        for size in plan.sizes:
            window = curve["buffer"] or curve["segment"] * curve["unack"]
            # Each repeat is a run of its own, as the paper's runs were (configs/milliner.yaml,
            # assumptions.repeats): a second message in one process would find its buffer paged out.
            for repeat in range(1, plan.transfers + 1):
                label = f"{curve['curve']} {size}" + ("" if repeat == 1 else f" repeat {repeat}")
                seed = run_seed(experiment, trial, label)
                client, server = ipcbench_args(plan, curve, size, 1)
                try:
                    records, counts, run = run_one(curve, size, seed, client, server,
                                                   limit_s(experiment, window, size))
                except Unfinished as exc:
                    rows.append({"run_id": run_id, "trial": trial, "host_b": plan.host_b, "repeat": repeat,
                                 "mode": plan.mode, **curve, "message_bytes": size, "completed": False,
                                 **drop_counts(exc.counters)})
                    runs.append({**exc.run, "seed": seed, "error": str(exc)})
                    continue
                got = message_rows(curve, records, counts)
                if len(got) != 1:
                    raise RunError(f"ipcbench reported {len(got)} messages, expected 1")
                rows += [{"run_id": run_id, "trial": trial, "host_b": plan.host_b, **row, "repeat": repeat}
                         for row in got]
                runs.append({**run, "seed": seed})
    return rows, runs


def run_sim(experiment: Experiment, trial: int, run_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every curve and size in virtual time, a netsim run each; the rows and the provenance."""
    plan: Settings = experiment.settings

    def run_one(curve: Mapping[str, Any], size: int, seed: int, client: list[str], server: list[str],
                time_limit_s: float) -> tuple[list[dict[str, Any]], Mapping[str, Any], dict[str, Any]]:
        command = ipcbench_command(experiment.link, experiment.host_model, plan.host_b_model, seed,
                                   client, server)
        try:
            result = sim.run_netsim(command, time_limit_s)
        except sim.SimError as exc:
            if plan.mode == "udp" and "timeout" in str(exc):
                raise Unfinished(str(exc), {"command": command, **({"sim": exc.sim} if exc.sim else {})},
                                 exc.sim or {}) from exc
            raise RunError(f"ipcbench in virtual time ({curve['curve']}, {size} octets): {exc}") from exc
        return result.records, result.sim, {"command": command, "sim": result.sim}

    rows, runs = measure_curves(experiment, trial, run_id, run_one)
    return rows, {"backend": "sim", "runs": runs,
                  "tools": tool_digests([tool_binary("netsim")])}


def prepares(experiment: Experiment) -> bool:
    """An ipcbench trial shares nothing with the others."""
    return False


def run(spec: Spec, experiment: Experiment, trial: int, out: Path, part: int | None,
        prepared: Mapping[str, Any] | None) -> None:
    """Every curve and size of one trial, in virtual time or emulated; writes records.jsonl,
    then provenance.json."""
    run_id = run_name(spec, experiment, trial)
    started = now_iso()
    if experiment.backend == "sim":
        rows, result = run_sim(experiment, trial, run_id)
    else:
        rows, result = run_emulated(experiment, trial, run_id, out)
    write_run(out, rows, {**base_provenance(spec, experiment, run_id, started), **result,
                          **run_order(rows, ORDER_FIELDS)})


def memory_plans(experiment: Experiment) -> dict[str, MemoryPlan | None]:
    """Each host's memory cgroup: h1 from the spec's host model, h2 from host_b's (else the
    same), with ipcbench's swap and swap_b."""
    plan: Settings = experiment.settings
    return {"h1": plan_of(experiment.host_model, plan.swap_a),
            "h2": plan_of(plan.host_b_model or experiment.host_model, plan.swap_b)}


def with_host_model(argv: list[str], model: Path | None) -> list[str]:
    """argv with its --host-model's value made model (h2 runs host b's model)."""
    if model is None or "--host-model" not in argv:
        return argv
    at = argv.index("--host-model") + 1
    return [*argv[:at], str(model), *argv[at + 1:]]


def client_argv(tool_args: list[str], stack: str, seed: int, client: list[str], server_ip: str) -> list[str]:
    """ipcbench's client on h1: its stack's arguments, its tick phase from seed, the curve's own."""
    return [str(IPCBENCH), *tool_args, *phase.host_a_args(stack, seed), "-p", str(IPC_PORT), *client, server_ip]


def server_argv(tool_args: list[str], stack: str, server: list[str], messages: int) -> list[str]:
    """ipcbench's server on h2, exiting once it has seen `messages` messages."""
    return [str(IPCBENCH), "--server", *tool_args, *phase.host_b_args(stack), "-p", str(IPC_PORT), *server,
            "--count", str(messages)]


def counts_of(records: list[dict[str, Any]], memory: Mapping[str, Any]) -> dict[str, Any]:
    """A run's counters under netsim's names (a_v_pgin, ...) from the two ends' vmstat records,
    and the kernel's major faults and peak memory of each host's cgroup."""
    counts: dict[str, Any] = {}
    for record in records:
        if record.get("record") == "vmstat":
            side = "a" if record["role"] == "client" else "b"
            counts.update({f"{side}_{key}": record[key] for key in VMSTAT_KEYS})
    for host, side in (("h1", "a"), ("h2", "b")):
        stats = memory.get(host, {}).get("stats", {})
        counts[f"{side}_kernel_majfaults"] = stats.get("pgmajfault")
        counts[f"{side}_peak_bytes"] = stats.get("max_usage_bytes")
    return counts


def run_pair(net: Any, tool_args: dict[str, list[str]], plans: Mapping[str, MemoryPlan | None], stack: str,
             seed: int, client: list[str], server: list[str], messages: int, time_limit_s: float,
             tag: str) -> tuple[list[dict[str, Any]], int, str, dict[str, Any]]:
    """One client and server, each in its memory cgroup (removed on every exit). Returns both
    ends' records, the client's exit status and its stderr, and each cgroup's state and stats."""
    with ExitStack() as cleanup:
        groups = {host: cleanup.enter_context(MemoryCgroup(f"{tag}-{host}", plan))
                  for host, plan in plans.items() if plan is not None}
        joins = {host: {"preexec_fn": group.join} for host, group in groups.items()}
        serving = net.h2.popen(server_argv(tool_args["h2"], stack, server, messages), stdout=-1, stderr=-1,
                               text=True, **joins.get("h2", {}))
        try:
            wait_announced(serving, "ipcbench: serving", "ipcbench --server")
            sending = net.h1.popen(client_argv(tool_args["h1"], stack, seed, client, H2_IP), stdout=-1,
                                   stderr=-1, text=True, **joins.get("h1", {}))
            client_out, client_err = finish(sending, time_limit_s, "ipcbench (client)")
            server_out = ""
            # A failed client leaves the server waiting for its messages: it is killed below.
            if sending.returncode == 0:
                server_out, server_err = finish(serving, SERVER_STOP_S, "ipcbench --server")
                if serving.returncode != 0:
                    raise RunError(f"ipcbench --server failed (exit {serving.returncode}): "
                                   f"{server_err.strip()[-300:]}")
        finally:
            kill_group(serving)
        memory = {host: {**group.state(), "stats": group.stats()} for host, group in groups.items()}
    records = parse(client_out, "ipcbench (client)") + parse(server_out, "ipcbench --server")
    return records, sending.returncode, client_err, memory


def run_emulated(experiment: Experiment, trial: int, run_id: str, out: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every curve and size on one emulated network (the experiment's link); the rows and the
    provenance. Needs root."""
    plan: Settings = experiment.settings
    seed_of_link = link_seed(experiment.seed, experiment.draws_id, trial)
    backend = emulation_backend(experiment.backend, experiment.stack, seed_of_link)
    # A shared medium's counts are each run's own: linkemu's before and after it.
    medium_snapshot = None
    if experiment.link.medium == "shared":
        if not isinstance(backend, LinkemuBackend):
            raise RunError(f"link {experiment.link.name} is a shared medium, which backend {backend.name} "
                           "cannot emulate; give backend linkemu")
        medium_snapshot = backend.snapshot
    plans = memory_plans(experiment)
    with LinkNetwork(experiment.link, backend, out / "logs") as net:
        link_check = check_link(net, experiment.link, H2_IP)
        tool_args = stacks.setup_hosts([(net.h1, *H1), (net.h2, *H2)], experiment.stack, experiment.host_model,
                                       experiment.link.mtu, frame_times=net.frame_times)
        tool_args["h2"] = with_host_model(tool_args["h2"], plan.host_b_model)
        sysctls = read_sysctls(net.h1)
        numbers = count(1)

        def run_one(curve: Mapping[str, Any], size: int, seed: int, client: list[str], server: list[str],
                    time_limit_s: float) -> tuple[list[dict[str, Any]], Mapping[str, Any], dict[str, Any]]:
            tag = f"run{next(numbers)}"
            before = medium_snapshot() if medium_snapshot else {}
            records, status, errors, memory = run_pair(net, tool_args, plans, experiment.stack, seed, client,
                                                       server, run_messages(client), time_limit_s, tag)
            medium = medium_delta(before, medium_snapshot()) if medium_snapshot else {}
            run = {"client": client, "server": server, "boot_b_ns": phase.boot_b_ns(seed), "memory": memory,
                   **({"medium": medium} if medium else {})}
            failures = [r for r in records if r.get("record") == "error"]
            if status != 0 or failures:
                detail = failures[0].get("error") if failures else errors.strip()[-300:]
                if plan.mode == "udp" and "timeout" in str(detail):
                    raise Unfinished(str(detail), run, medium)
                raise RunError(f"ipcbench ({curve['curve']}, {size} octets) failed (exit {status}): {detail}")
            return records, {**counts_of(records, memory), **medium}, run

        rows, runs = measure_curves(experiment, trial, run_id, run_one)
    return rows, {
        **net.provenance(link_check, seed_of_link),
        "sysctls": sysctls,
        "tool_args": tool_args,
        "memory_plans": {host: None if p is None else {"limit_bytes": p.limit_bytes, "swap_bytes": p.swap_bytes}
                         for host, p in plans.items()},
        "runs": runs,
        "tools": tool_digests(emulation_binaries(backend.name, ["ipcbench"])),
    }
