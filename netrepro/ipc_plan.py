"""ipcbench experiments (milliner): the `ipcbench:` settings of a spec and one trial's runs.

A trial measures every curve (a UDP segment size and unacknowledged count, or a TCP buffer
size) at every message size (the profile's `sizes` where it gives them): one run per curve and
size, ipcbench's client on host a sending `transfers` messages (the profile's key) to its
server on host b. In virtual time each run is one netsim run on two Tahoe stacks; emulated,
both ends run on Mininet hosts (netrepro.ipc_net). Each message the client timed is one row.
ONC RPC (mode rpc, libtirpc) drives the kernel's sockets, so it runs emulated on a Linux stack only.
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from netrepro import limits
from netrepro.atomic import write_text
from netrepro.errors import RunError
from netrepro.units import UnitError, parse_size, parse_time
from netrepro.yamlsrc import Document

if TYPE_CHECKING:
    from netrepro.spec import Experiment, Spec

MODES = ("tcp", "udp", "rpc")
# The stacks whose sockets are the kernel's, which libtirpc (mode rpc) drives (netrepro/stacks.py).
KERNEL_STACKS = ("linux", "linux-retro")
# The most sizes a range may hold: each is a run of every curve, a trial of 1000 takes days.
MAX_SIZES = 1000
RANGE = re.compile(r"^\s*(\S+)\s*\.\.\s*(\S+)\s+step\s+(\S+)\s*$")
# Emulated runs: each host's major page faults and peak memory, in the kernel (netrepro.memcg).
KERNEL_COLUMNS = ("a_kernel_majfaults", "b_kernel_majfaults", "a_peak_bytes", "b_peak_bytes")
DROP_KEYS = ("forward_drop_queue", "reverse_drop_queue", "medium_a_drop_queue", "medium_b_drop_queue",
             "medium_a_excessive", "medium_b_excessive")


@dataclass(frozen=True)
class IpcPlan:
    """What ipcbench does: the mode, the curves and the message sizes."""

    mode: str
    segments: tuple[int, ...]
    unacks: tuple[int, ...]
    buffers: tuple[int, ...]
    sizes: tuple[int, ...]
    host_b: str | None
    host_b_model: Path | None
    pause_s: float
    timeout_s: float
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


def _get(document: Document, key_path: tuple, parser: Any, text: Any) -> Any:
    try:
        return parser(text)
    except UnitError as exc:
        raise document.error(key_path, str(exc)) from exc


def parse_sizes(document: Document, key_path: tuple, value: Any, limit: limits.Limit) -> tuple[int, ...]:
    """A list of sizes, or a range written `1M..24M step 1M` (both ends included)."""
    if isinstance(value, str):
        match = RANGE.match(value)
        if not match:
            raise document.error(key_path, f"{value!r} is not a range like `1M..24M step 1M`")
        first, last, step = (_get(document, key_path, parse_size, t) for t in match.groups())
        if step < 1 or last < first:
            raise document.error(key_path, f"{value!r}: the range must rise by a positive step")
        limit.check(document, key_path, last)
        if (last - first) // step >= MAX_SIZES:
            raise document.error(key_path, f"{value!r} holds more than {MAX_SIZES} sizes, each one run per curve")
        sizes = tuple(range(first, last + 1, step))
    else:
        sizes = tuple(_get(document, (*key_path, i), parse_size, t) for i, t in enumerate(value))
    for size in sizes:
        limit.check(document, key_path, size)
    return sizes


def parse_plan(document: Document, where: Any, settings: Mapping[str, Any], host_model: Any,
               profile_sizes: Any = None) -> IpcPlan:
    """The experiment's `ipcbench:` settings; `where` maps a key path to the line that sets it;
    host_model(name, key_path) finds a host model file; profile_sizes, the profile's `sizes`,
    replace ipcbench's."""
    plan = settings.get("ipcbench", {})
    key = ("ipcbench",)
    mode = plan.get("mode", "tcp")
    # A Linux stack never runs in virtual time (netrepro/spec.py refuses backend sim for it).
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
    pause = _get(document, where + (*key, "pause"), limits.ns, plan.get("pause", "1s"))
    limits.PAUSE_NS.check(document, where + (*key, "pause"), pause)
    timeout = _get(document, where + (*key, "timeout"), limits.ns, plan.get("timeout", "600s"))
    limits.TRANSFER_TIMEOUT_NS.check(document, where + (*key, "timeout"), timeout)
    if timeout <= pause:
        raise document.error(where + (*key, "timeout"), "must be longer than pause (ipcbench --timeout)")
    swaps = [_get(document, where + (*key, name), parse_size, plan[name]) if name in plan else None
             for name in ("swap", "swap_b")]
    return IpcPlan(
        mode=mode, segments=segments, unacks=unacks if mode == "udp" else (), buffers=buffers,
        sizes=sizes, swap_a=swaps[0], swap_b=swaps[1] if "swap_b" in plan else swaps[0],
        host_b=host_b,
        host_b_model=host_model(host_b, where + (*key, "host_b")) if host_b else None,
        pause_s=pause / limits.NS,
        timeout_s=timeout / limits.NS,
    )


def ipcbench_args(plan: IpcPlan, curve: Mapping[str, Any], size: int, repeats: int) -> tuple[list[str], list[str]]:
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
    from netrepro.sim import ADDR_B, BINARY, link_args

    hosts = [*(["--host-model-a", str(host_a)] if host_a else []),
             *(["--host-model-b", str(host_b or host_a)] if host_b or host_a else [])]
    return [str(BINARY), "--app", "ipcbench", *link_args(link), *hosts, "--seed", str(seed), "--no-wall",
            "--", *client, ADDR_B, "--", *server]


def message_rows(curve: Mapping[str, Any], records: list[dict[str, Any]], sim: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per message the client timed; the run's paging and drop counts on each."""
    from netrepro.sim import disk_columns

    clients = [r for r in records if r.get("record") == "message" and r.get("role") == "client"]
    servers = {r["index"]: r for r in records if r.get("record") == "message" and r.get("role") == "server"}
    # netsim counts the link's drops per run; an emulated link's are the trial's, in its provenance.
    drops = [k for k in DROP_KEYS if k in sim]
    return [{
        "repeat": r["index"] + 1, "mode": "rpc" if r.get("api") == "rpc" else r["proto"], **curve,
        "message_bytes": r["size"],
        "elapsed_s": r["elapsed_ns"] / 1e9, "throughput_mbit": r["throughput_bps"] / 1e6,
        "timing_end": r.get("timing_end"),
        "echo_s": r["echo_ns"] / 1e9 if "echo_ns" in r else None, "echo_equal": r.get("echo_equal"), "completed": True,
        "segments": r.get("segments"), "acks": r.get("acks"), "retransmissions": r.get("retransmissions"),
        # Each end's paging during this message, from its own record; the run's totals where
        # the backend gives none per message.
        "a_pageins": r.get("pageins", sim.get("a_v_pgin")), "a_pageouts": r.get("pageouts", sim.get("a_v_pgout")),
        "b_pageins": servers.get(r["index"], {}).get("pageins", sim.get("b_v_pgin")),
        "b_pageouts": servers.get(r["index"], {}).get("pageouts", sim.get("b_v_pgout")),
        **disk_columns(r, servers.get(r["index"])),
        **{key: sim.get(key) for key in KERNEL_COLUMNS},
        "link_drops": sum(sim[k] for k in drops) if drops else None,
        "receiver_fullsock": sim.get("b_udps_fullsock"), "receiver_ipq_drops": sim.get("b_ips_qdrop"),
        **medium_counts(sim),
    } for r in clients]


def medium_counts(sim: Mapping[str, Any]) -> dict[str, Any]:
    """The run's frames and collisions on a shared medium, both hosts together (None on a
    duplex link, which has no collisions to count)."""
    if "medium_collision_pct" not in sim:
        return {"medium_frames": None, "medium_collisions": None, "collision_pct": None}
    return {"medium_frames": sim["medium_a_tx_frames"] + sim["medium_b_tx_frames"],
            "medium_collisions": sim["medium_a_collisions"] + sim["medium_b_collisions"],
            "collision_pct": sim["medium_collision_pct"]}


class Unfinished(Exception):
    """A UDP run that ended on its timeout: a group that loses the same fragments every time it
    is sent again never finishes, milliner's "not reliable". `run` is the run's provenance."""

    def __init__(self, message: str, run: dict[str, Any]) -> None:
        super().__init__(message)
        self.run = run


RunOne = Callable[[Mapping[str, Any], int, int, list[str], list[str], float],
                  tuple[list[dict[str, Any]], Mapping[str, Any], dict[str, Any]]]


def measure_curves(experiment: Experiment, trial: int, run_id: str,
                   run_one: RunOne) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every curve at every size, each by run_one(curve, size, seed, client, server, limit_s),
    which returns the run's records, its counters (netsim's names) and its provenance, or
    raises Unfinished. Returns the rows and the runs' provenance."""
    from netrepro import measure
    from netrepro.deadlines import ipcbench_limit_s

    plan = experiment.ipcbench
    assert plan is not None
    rows: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    for curve in plan.curves():
        for size in plan.sizes:
            window = curve["buffer"] or curve["segment"] * curve["unack"]
            # Each repeat is a run of its own, as the paper's runs were (configs/milliner.yaml,
            # assumptions.repeats): a second message in one process would find its buffer paged out.
            for repeat in range(1, experiment.transfers + 1):
                label = f"{curve['curve']} {size}" + ("" if repeat == 1 else f" repeat {repeat}")
                seed = measure.mode_seed(experiment, trial, label)
                client, server = ipcbench_args(plan, curve, size, 1)
                try:
                    records, counts, run = run_one(curve, size, seed, client, server,
                                                   ipcbench_limit_s(experiment, window, size))
                except Unfinished as exc:
                    rows.append({"run_id": run_id, "trial": trial, "host_b": plan.host_b, "repeat": repeat,
                                 "mode": plan.mode, **curve, "message_bytes": size, "completed": False})
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
    from netrepro import measure
    from netrepro.sim import SimError, run_netsim

    plan = experiment.ipcbench
    assert plan is not None

    def run_one(curve: Mapping[str, Any], size: int, seed: int, client: list[str], server: list[str],
                limit_s: float) -> tuple[list[dict[str, Any]], Mapping[str, Any], dict[str, Any]]:
        command = ipcbench_command(experiment.link, experiment.host_model, plan.host_b_model, seed,
                                   client, server)
        try:
            result = run_netsim(command, limit_s)
        except SimError as exc:
            if plan.mode == "udp" and "timeout" in str(exc):
                raise Unfinished(str(exc), {"command": command}) from exc
            raise RunError(f"ipcbench in virtual time ({curve['curve']}, {size} octets): {exc}") from exc
        return result.records, result.sim, {"command": command, "sim": result.sim}

    rows, runs = measure_curves(experiment, trial, run_id, run_one)
    return rows, {"backend": "sim", "runs": runs,
                  "tools": {"netsim": measure.binary_digest(measure.TOOLS_BIN / "netsim"),
                            "python": sys.version.split()[0]}}


def run_trial(spec: Spec, experiment: Experiment, trial: int, out: Path) -> None:
    """Every curve and size of one trial, in virtual time or emulated; writes records.jsonl,
    then provenance.json."""
    from netrepro import measure

    measure.preflight(experiment)
    run_id = f"{spec.paper}/{experiment.id}/trial-{trial}"
    started = measure.now_iso()
    if experiment.backend == "sim":
        rows, run = run_sim(experiment, trial, run_id)
    else:
        from netrepro import ipc_net
        rows, run = ipc_net.run_emulated(experiment, trial, run_id, out)
    write_text(out / "records.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    provenance = {**measure.base_provenance(spec, experiment, run_id, started), **run,
                  "finished_at": measure.now_iso()}
    write_text(out / "provenance.json", json.dumps(provenance, indent=1) + "\n")
