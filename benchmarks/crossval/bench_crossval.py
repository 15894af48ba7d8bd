#!/usr/bin/python3
"""Cross-validation of virtual time against emulation: the same Tahoe-stack experiments run with
backend=sim (netsim) and emulated in real time (Mininet, linkemu), compared on throughput, round
trip time and loss.

    python3 benchmarks/crossval/bench_crossval.py          # compare what results/ holds
    python3 benchmarks/crossval/bench_crossval.py --run    # first run what is missing (root)

Cases: comer94 Table 1 (ttcp, 100 buffer pairs), liu95db's ATM echo experiments (atm-8k,
atm-boundaries, atm-nodelay) and its echoes on the shared half-duplex Ethernet (ethernet-8k,
ethernet-nodelay: tools/linkemu/medium.c in netsim and in linkemu --medium shared) and
milliner's transfers between paging 4c hosts on that medium (tcp-buffers-small, udp-unack),
and liu95cool's uncooled UDP echoes of very large messages between the Solaris 2.3 hosts on the
ATM LAN (benchmarks/crossval/liu95cool-atm-drops.yaml: loss, and the drops at each place),
all at the quick profile; each experiment's results.csv holds
both backends' rows (the workflow gathers every backend's finished runs of the same settings). And MFTP
(ishikura) over the atm-wan-emulator link with its 200 ms RTT and cell loss: GETs by mftp and
mftpd on two Tahoe stacks with the sparcstation-20 host model, in netsim and between two
Mininet hosts; their records are kept in benchmarks/work/crossval/ so a rerun measures only
what is missing.
A 1 MB transfer hinges on which side of a 200 ms tick a batch lands, so many Table 1 pairs
move by more than the tolerance with the tick phases alone. Each pair is therefore also run in
virtual time under other seeds; a pair whose result moves (unsettled) is emulated under a few
of them as well (kept in benchmarks/work/crossval/ too) and compared on the mean over its seeds.
Every pair is also emulated a second time on its own seed, which shows how well the emulation
agrees with itself: the yardstick for how well the sim can agree with it.
Each run is tied to the builds of the binaries that made it: with --run, runs of another build
(in virtual time or emulated) are set aside to benchmarks/work/crossval/stale/ and run again, and
the kept records of another build are measured again.
`--case` measures some cases only and carries the others from the last crossval.json; the
table says when each case was measured.
Writes benchmarks/results/crossval.json and crossval.md, then benchmarks/README.md from every
benchmark's table. Not a test: the figures are measured.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mininet.log import setLogLevel

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from benchmarks.readme import write_readme  # noqa: E402
from netrepro import hostmodel, phase, stacks  # noqa: E402
from netrepro.backends import EMULATORS, emulation_backend  # noqa: E402
from netrepro.cleanup import Stopped, signals_raise  # noqa: E402
from netrepro.experiment import Experiment, settings_hash  # noqa: E402
from netrepro.helptext import description  # noqa: E402
from netrepro.linkfile import link_params  # noqa: E402
from netrepro.linkspec import LinkParams, with_direction  # noqa: E402
from netrepro.paths import TOOLS_BIN  # noqa: E402
from netrepro.provenance import binary_digests  # noqa: E402
from netrepro.sim import BINARY, run_netsim  # noqa: E402
from netrepro.spec import load_spec  # noqa: E402
from netrepro.tools import ipcbench, mftp, pingx  # noqa: E402
from netrepro.tools.mftp import mftp_command  # noqa: E402
from netrepro.tools.ttcp import pair_command, pair_seed, run_pair  # noqa: E402
from netrepro.topology import H1, H2, LinkNetwork  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
WORK = REPO / "benchmarks" / "work" / "crossval"
TOLERANCE_PCT = 5.0
EMULATED = tuple(EMULATORS)
# How long a stopped workflow run may take to end its jobs (netrepro.jobs) before it is killed.
STOP_WAIT_S = 30.0
ATM_ECHOES = ["atm-8k", "atm-boundaries", "atm-nodelay"]
SHARED_ETHERNET_ECHOES = ["ethernet-8k", "ethernet-nodelay"]
# milliner's transfers between paging 4c hosts on the shared Ethernet, one curve family each way.
MILLINER_TRANSFERS = ["tcp-buffers-small", "udp-unack"]
# The cases run through the workflow: their keys in the report, paper, spec and experiments.
CASES = {
    "comer94/table1": ("comer94", "configs/comer94.yaml", ["table1"]),
    "liu95db/atm": ("liu95db", "configs/liu95db.yaml", ATM_ECHOES),
    "liu95db/ethernet": ("liu95db", "configs/liu95db.yaml", SHARED_ETHERNET_ECHOES),
    "milliner/ipcbench": ("milliner", "configs/milliner.yaml", MILLINER_TRANSFERS),
    "liu95cool/atm-drops": ("liu95cool", "benchmarks/crossval/liu95cool-atm-drops.yaml", ["atm-drops-crossval"]),
}
# How the table names each place the Tahoe hosts lost datagrams (pingx's run_drops_* columns).
DROP_PLACES = dict(zip(pingx.RUN_DROPS, ("interface queues", "link", "echo host's IP input", "echo host's socket",
                                         "client's IP input", "client's socket"), strict=True))
# The echo cases' rows' names in the table.
ECHO_CASES = {
    "liu95db/atm": "liu95db ATM echoes, quick",
    "liu95db/ethernet": "liu95db shared-Ethernet echoes, quick",
}
MFTP_KEY = "mftp"
CASE_KEYS = (*CASES, MFTP_KEY)
# The workflow's --config overrides of run_missing's two passes: the specs' own backends (auto,
# so emulated, for the compared experiments), then every experiment in virtual time, whose
# aggregation gathers the emulated runs beside its own (a workflow leaves out the runs of
# backends it makes itself, and a spec's own backends include sim where it keeps cooled UDP in
# virtual time). A backend=auto override would also move those experiments, which the spec then
# refuses, though none of them is a target.
EMULATION_PASSES = ([], ["backend=sim"])
# A transfer slower than this share of its table's fastest is in lockstep (comer94's abnormal
# cells run 30-100 times slower than the normal ones, so the split is not sensitive to it).
LOCKSTEP_SHARE = 0.1
# Each Table 1 pair is also run in virtual time under this many other seeds: how far its quick
# result moves with the tick phases alone. A pair is settled when the central 95% of those
# results stays within the tolerance of their median.
SPREAD_SEEDS = 50
# An unsettled pair is measured again on both backends under the first few of those seeds, and
# compared on the mean over them and its own seed: one run of it says little, as the sim under
# another seed would not agree with itself within the tolerance either.
EXTRA_SEEDS = 4
EXTRA_SEEDS_FILE = "table1-extra-seeds-emulated.json"
REPEAT_FILE = "table1-repeat-emulated.json"


@dataclass(frozen=True)
class MftpCase:
    """One MFTP setting, run `repeats` times on each backend. The cell loss ratio is in
    ishikura's Table 1 range; each 9188-octet packet is 192 cells, so about 0.2 % of packets
    die, a few per 4 MB file, enough to exercise Tahoe's loss recovery at a 200 ms RTT."""

    link: str = "atm-wan-emulator"
    cell_loss_ratio: float = 1e-5
    host: str = "sparcstation-20"
    connections: int = 4
    window: str = "24K"
    file_bytes: int = 4 << 20
    repeats: int = 10
    timeout: str = "120s"


MFTP = MftpCase()
# One emulated repeat's wall-clock limit: a 4 MB file at 200 ms with cell loss takes seconds.
MFTP_LIMIT_S = 600.0
# The emulated runs' file: the same octets on every rerun.
MFTP_FILE_SEED = 1


def builds(names: list[str]) -> dict[str, str]:
    """The current build of each named tool binary."""
    return binary_digests([TOOLS_BIN / name for name in names])


def is_current_run(tools: dict[str, str], backend: str) -> bool:
    """Whether a run's provenance names this build of every tool binary it used, netsim's for
    the sim and linkemu's for an emulated run; emulated runs from before linkemu's build was
    recorded are not current."""
    used = [name for name in tools if (TOOLS_BIN / name).is_file()]
    needed = "netsim" if backend == "sim" else "linkemu"
    return needed in used and all(tools[name] == digest for name, digest in builds(used).items())


def set_aside_stale_runs(keys: list[str]) -> list[str]:
    """Moves the runs of the named cases made by other builds, in virtual time or emulated, to
    WORK/stale, where nothing reads them, so the workflow runs them again; returns what it
    moved."""
    moved = []
    for paper, _, experiments in (CASES[key] for key in keys if key in CASES):
        for experiment in experiments:
            for backend in ("sim", *EMULATED):
                for provenance in sorted((REPO / "results" / paper / experiment / "runs" / "quick" / backend)
                                         .glob("**/provenance.json")):
                    if is_current_run(json.loads(provenance.read_text()).get("tools", {}), backend):
                        continue
                    run = provenance.parent
                    target = WORK / "stale" / run.relative_to(REPO / "results")
                    shutil.rmtree(target, ignore_errors=True)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.move(str(run), str(target))
                    moved.append(str(run.relative_to(REPO)))
    return moved


def run_missing(keys: list[str]) -> None:
    """Runs what the named workflow cases miss, emulated and in virtual time."""
    for run in set_aside_stale_runs(keys):
        print(f"crossval: {run} was made by another build; set aside to be run again", file=sys.stderr)
    for paper, spec, experiments in (CASES[key] for key in keys if key in CASES):
        targets = [f"results/{paper}/{e}/results.csv" for e in experiments]
        for overrides in EMULATION_PASSES:
            # Aggregated anew, so results.csv holds the quick profile's runs even where another
            # profile's were gathered last.
            command = [sys.executable, "-m", "snakemake", *targets, "--cores", "2", "--configfile", spec,
                       "--config", "profile=quick", *overrides, "--forcerun", "aggregate_results"]
            run_workflow(command)


def run_workflow(command: list[str]) -> None:
    """Runs the workflow command; a stop signal to the benchmark goes on to it, which ends its
    jobs and keeps what they finished, and is waited for, so no trial runs on without it."""
    process = subprocess.Popen(command, cwd=REPO)
    try:
        code = process.wait()
    except Stopped as stop:
        process.send_signal(stop.signum)
        try:
            process.wait(timeout=STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        raise
    if code != 0:
        raise subprocess.CalledProcessError(code, command)



def mftp_link() -> LinkParams:
    return with_direction(link_params(MFTP.link), cell_loss_ratio=MFTP.cell_loss_ratio)


def mftp_args() -> list[str]:
    return ["-n", str(MFTP.connections), "--window", MFTP.window, "--timeout", MFTP.timeout]


def host_model() -> Path:
    return REPO / "configs" / "hosts" / f"{MFTP.host}.yaml"


def mftp_sim_runs() -> dict[str, Any]:
    """Each repeat in netsim, seeds 1..repeats; data flows from host b (mftpd) to host a."""
    runs = []
    for seed in range(1, MFTP.repeats + 1):
        with tempfile.TemporaryDirectory(prefix="crossval-mftp-") as tmp:
            result = run_netsim(mftp_command(mftp_link(), host_model(), seed, MFTP.file_bytes, Path(tmp),
                                             mftp_args(), boot_b=phase.boot_b_ns(seed)))
        (client,) = [r for r in result.transfers if r.get("tool") == "mftp"]
        (server,) = [r for r in result.transfers if r.get("tool") == "mftpd"]
        runs.append({"seed": seed, "client": client, "server": server,
                     "data_packets": result.sim["reverse_rx_packets"],
                     "cell_loss_drops": result.sim["reverse_drop_cell_loss"]})
    return {"backend": "sim", "runs": runs}


def mftp_emulated_runs() -> dict[str, Any]:
    """Each repeat between two Mininet hosts on the Tahoe stack, over linkemu, with the tick
    phases of the sim's repeat of the same number (netrepro.tools.mftp); needs root. The
    emulator's counters of the data direction (h2 to h1: reverse) cover all repeats."""
    setLogLevel("warning")
    link = mftp_link()
    runs = []
    with tempfile.TemporaryDirectory(prefix="crossval-mftp-") as tmp:
        root = Path(tmp)
        source = mftp.write_source(root, MFTP.file_bytes, MFTP_FILE_SEED)
        crc = f"{zlib.crc32(source.read_bytes()):08x}"
        net = LinkNetwork(link, emulation_backend("linkemu", "tahoe", seed=1), WORK / "logs")
        with net:
            args = mftp.hosts_ready(net, "tahoe", host_model(), link)
            for repeat in range(1, MFTP.repeats + 1):
                try:
                    (client_record,), (server_record,) = mftp.run_session(
                        net, args, "tahoe", root, mftp_args(), root / "got.bin", repeat, MFTP_LIMIT_S)
                except ValueError as exc:
                    raise RuntimeError(f"mftp repeat {repeat}: not one transfer record per end") from exc
                client_record["crc32_python"] = f"{zlib.crc32((root / 'got.bin').read_bytes()):08x}"
                runs.append({"repeat": repeat, "client": client_record, "server": server_record,
                             "source_crc32": crc})
        counters = net.counters.get("reverse", {})
    return {"backend": "linkemu", "runs": runs, "data_packets": counters.get("rx_packets"),
            "cell_loss_drops": counters.get("drop_cell_loss")}


# The binaries each kind of kept record depends on.
MFTP_BUILDS = {"sim": ["netsim"], "emulated": ["mftp", "mftpd", "linkemu"]}
TABLE1_EMULATED_BUILDS = ["ttcp", "linkemu"]
# milliner's transfers are emulated this many times more, on the same seeds, into WORK: how far
# the emulation moves between runs of one build, the yardstick for its agreement with the sim.
MILLINER_AGAIN = 2
MILLINER_AGAIN_FILE = "milliner-emulated-again.json"
MILLINER_EMULATED_BUILDS = ["ipcbench", "linkemu"]


def run_missing_mftp() -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    for name, measure in (("sim", mftp_sim_runs), ("emulated", mftp_emulated_runs)):
        if read_mftp(name) is None:
            record = {"case": asdict(MFTP), "host_model": hostmodel.digest(host_model()),
                      "builds": builds(MFTP_BUILDS[name]), **measure()}
            (WORK / f"mftp-{name}.json").write_text(json.dumps(record, indent=1) + "\n")


def read_mftp(name: str) -> dict[str, Any] | None:
    """The kept MFTP runs of one backend, if made for this case, with the host model's values
    now, by these builds."""
    path = WORK / f"mftp-{name}.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    kept = (data.get("case") == asdict(MFTP) and data.get("host_model") == hostmodel.digest(host_model())
            and data.get("builds") == builds(MFTP_BUILDS[name]))
    return data if kept else None


def compare_mftp() -> dict[str, Any]:
    """Mean throughput of the repeats on each backend, and the data direction's cell-loss drop
    rate with 95% Wilson bounds."""
    sim, emu = read_mftp("sim"), read_mftp("emulated")
    if not sim or not emu:
        return {"case": asdict(MFTP), "compared": False,
                "note": "run benchmarks/crossval/bench_crossval.py --run as root to measure both backends"}
    mean = {name: statistics.mean(r["client"]["throughput_bps"] for r in d["runs"]) / 1e6
            for name, d in (("sim", sim), ("emulated", emu))}
    intact = all(r["client"]["crc32"] == r["server"]["crc32"] for d in (sim, emu) for r in d["runs"])
    intact = intact and all(r["client"]["crc32_python"] == r["source_crc32"] for r in emu["runs"])
    sim_drops = sum(r["cell_loss_drops"] for r in sim["runs"])
    sim_packets = sum(r["data_packets"] for r in sim["runs"])
    bounds = [wilson(sim_drops, sim_packets), wilson(emu["cell_loss_drops"] or 0, emu["data_packets"] or 0)]
    diff = rel_diff_pct(mean["sim"], mean["emulated"])
    return {
        "case": asdict(MFTP), "compared": True, "all_intact": intact,
        "sim_mbit": mean["sim"], "emulated_mbit": mean["emulated"], "diff_pct": diff,
        "within": abs(diff) <= TOLERANCE_PCT,
        "sim_runs_mbit": [r["client"]["throughput_bps"] / 1e6 for r in sim["runs"]],
        "emulated_runs_mbit": [r["client"]["throughput_bps"] / 1e6 for r in emu["runs"]],
        "sim_loss": {"drops": sim_drops, "packets": sim_packets, "ci95": bounds[0]},
        "emulated_loss": {"drops": emu["cell_loss_drops"], "packets": emu["data_packets"], "ci95": bounds[1]},
        "loss_bounds_overlap": bounds[0][0] <= bounds[1][1] and bounds[1][0] <= bounds[0][1],
    }


def spread_seed(seed: int, k: int) -> int:
    digest = hashlib.sha256(f"{seed}:spread:{k}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % (1 << 31) or 1


def table1_experiment() -> Experiment:
    _, spec_path, _ = CASES["comer94/table1"]
    return load_spec(REPO / spec_path, {"profile": "quick", "backend": "sim"}).experiments["table1"]


def table1_pairs(experiment: Experiment) -> list[tuple[int, int]]:
    return [(s, r) for s in experiment.settings.send_buffers for r in experiment.settings.receive_buffers]


def transmitter_mbit(records: list[dict[str, Any]]) -> list[float]:
    return [r["sender_bps"] / 1e6 for r in records if r.get("record", "transfer") == "transfer"
            and r.get("role") == "transmitter"]


def sim_seed_spread(experiment: Experiment, pairs: list[tuple[int, int]]) -> dict[tuple[int, int], list[float]]:
    """Per buffer pair, the mean throughput (Mbit/s) of its run in virtual time under each of
    SPREAD_SEEDS seeds other than its own, in order."""
    spread = {}
    for send, recv in pairs:
        seed = pair_seed(experiment, 1, send, recv)
        spread[(send, recv)] = [
            statistics.mean(transmitter_mbit(run_netsim(pair_command(experiment, send, recv, spread_seed(seed, k)))
                                             .transfers))
            for k in range(1, SPREAD_SEEDS + 1)]
    return spread


def seed_band(means: list[float]) -> tuple[float, float]:
    """The central 95% of the sim's results under other seeds."""
    cuts = statistics.quantiles(means, n=40, method="inclusive")
    return cuts[0], cuts[-1]


def is_settled(means: list[float]) -> bool:
    low, high = seed_band(means)
    median = statistics.median(means)
    return median * (1 - TOLERANCE_PCT / 100) <= low and high <= median * (1 + TOLERANCE_PCT / 100)


def pair_key(send: int, recv: int) -> str:
    return f"{send}/{recv}"


def read_emulated_runs(experiment: Experiment, name: str, seeds: int) -> dict[str, list[list[float]]]:
    """Emulated runs kept in WORK/name (per pair, each seed's transfers in Mbit/s), if measured
    for these settings, this many seeds per pair and by these builds."""
    path = WORK / name
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    if (data.get("settings_hash") != settings_hash(experiment) or data.get("seeds") != seeds
            or data.get("builds") != builds(TABLE1_EMULATED_BUILDS)):
        return {}
    return data["pairs"]


def read_extra_seeds(experiment: Experiment) -> dict[str, list[list[float]]]:
    """The emulated runs of unsettled pairs under extra seeds."""
    return read_emulated_runs(experiment, EXTRA_SEEDS_FILE, EXTRA_SEEDS)


def read_repeat(experiment: Experiment) -> dict[str, list[float]]:
    """Each pair's second emulated run on its own seed."""
    return {key: runs[0] for key, runs in read_emulated_runs(experiment, REPEAT_FILE, 1).items()}


def emulate_missing(experiment: Experiment, name: str, plan: dict[tuple[int, int], list[int]]) -> None:
    """Emulates each pair of plan under its seeds, on one network, into WORK/name; saves after
    each pair, so a rerun measures only the pairs still missing. Every pair has as many seeds."""
    setLogLevel("warning")
    seeds = len(next(iter(plan.values()), []))
    done = read_emulated_runs(experiment, name, seeds)
    missing = [p for p in plan if pair_key(*p) not in done]
    if not missing:
        return
    WORK.mkdir(parents=True, exist_ok=True)
    pairs = table1_pairs(experiment)
    buffers = (max(s for s, _ in pairs), max(r for _, r in pairs))
    with LinkNetwork(experiment.link, emulation_backend("linkemu", experiment.stack, seed=1), WORK / "logs") as net:
        args = stacks.setup_hosts([(net.h1, *H1), (net.h2, *H2)], experiment.stack, experiment.host_model,
                                  experiment.link.mtu, buffers, net.frame_times)
        for send, recv in missing:
            done[pair_key(send, recv)] = [transmitter_mbit(run_pair(net, experiment, args, send, recv, None, seed))
                                          for seed in plan[(send, recv)]]
            (WORK / name).write_text(json.dumps({"settings_hash": settings_hash(experiment), "seeds": seeds,
                                                 "builds": builds(TABLE1_EMULATED_BUILDS), "pairs": done},
                                                indent=1) + "\n")


def extra_seeds_plan(experiment: Experiment, spread: dict[tuple[int, int], list[float]]) -> dict[tuple[int, int], list[int]]:
    """Each unsettled pair under seeds 1..EXTRA_SEEDS of its spread."""
    return {(send, recv): [spread_seed(pair_seed(experiment, 1, send, recv), k) for k in range(1, EXTRA_SEEDS + 1)]
            for send, recv in table1_pairs(experiment) if not is_settled(spread[(send, recv)])}


def repeat_plan(experiment: Experiment) -> dict[tuple[int, int], list[int]]:
    """Every pair once more under its own seed."""
    return {(send, recv): [pair_seed(experiment, 1, send, recv)] for send, recv in table1_pairs(experiment)}


def side(row: dict[str, str]) -> str | None:
    """Which side of the comparison a results.csv row is on: sim, emulated, or neither."""
    return "sim" if row["backend"] == "sim" else "emulated" if row["backend"] in EMULATED else None


def read_rows(paper: str, experiment: str) -> list[dict[str, str]]:
    path = REPO / "results" / paper / experiment / "results.csv"
    if not path.is_file():
        return []
    with path.open() as handle:
        return list(csv.DictReader(handle))


def rel_diff_pct(sim: float, emulated: float) -> float:
    return (sim - emulated) / emulated * 100


def wilson(lost: int, total: int, z: float = 1.96) -> tuple[float, float]:
    if total == 0:
        return (0.0, 1.0)
    p = lost / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (centre - half, centre + half)


def compare_transfers(rows: list[dict[str, str]], spread: dict[tuple[int, int], list[float]],
                      extra: dict[str, list[list[float]]], repeat: dict[str, list[float]]) -> dict[str, Any]:
    """Per buffer pair: mean throughput of each backend and the share of lockstep transfers.
    Where spread has the pair's results in virtual time under other seeds, whether the pair is
    settled, and for an unsettled pair with emulated runs under extra seeds (spread's first
    ones), both backends' mean over those seeds and its own. A pair agrees when it is within
    the tolerance: settled on its own seed, unsettled over the seeds. Where repeat has the pair's
    second emulated run on its own seed, how far it lies from the first and from the sim."""
    by = defaultdict(list)
    for row in rows:
        backend = side(row)
        if backend:
            by[(int(row["send_buffer"]), int(row["recv_buffer"]), backend)].append(float(row["throughput_mbit"]))
    fastest = max((max(v) for v in by.values()), default=0.0)
    cells = []
    for send, recv in sorted({(s, r) for s, r, _ in by}):
        sim, emu = by.get((send, recv, "sim")), by.get((send, recv, "emulated"))
        if not sim or not emu:
            continue
        lock = [sum(x < LOCKSTEP_SHARE * fastest for x in v) / len(v) for v in (sim, emu)]
        diff = rel_diff_pct(statistics.mean(sim), statistics.mean(emu))
        cell = {"send_buffer": send, "recv_buffer": recv, "sim_mbit": statistics.mean(sim),
                "emulated_mbit": statistics.mean(emu), "diff_pct": diff,
                "within": abs(diff) <= TOLERANCE_PCT, "sim_lockstep_share": lock[0],
                "emulated_lockstep_share": lock[1], "same_regime": lock[0] == lock[1]}
        means = spread.get((send, recv))
        if means:
            cell.update({"sim_other_seeds_median_mbit": statistics.median(means),
                         "sim_other_seeds_95_mbit": list(seed_band(means)), "settled": is_settled(means),
                         "sim_self_within_share": statistics.mean(
                             abs(rel_diff_pct(a, b)) <= TOLERANCE_PCT for a, b in zip(means, means[1:]))})
            runs = extra.get(pair_key(send, recv))
            if not cell["settled"] and runs and len(runs) <= len(means):
                sim_seeds = [cell["sim_mbit"], *means[:len(runs)]]
                emulated_seeds = [cell["emulated_mbit"], *(statistics.mean(r) for r in runs)]
                seeds_diff = rel_diff_pct(statistics.mean(sim_seeds), statistics.mean(emulated_seeds))
                cell.update({"seeds_compared": len(sim_seeds), "sim_seeds_mbit": sim_seeds,
                             "emulated_seeds_mbit": emulated_seeds, "seeds_diff_pct": seeds_diff})
            cell["agrees"] = (cell["within"] if cell["settled"] else
                              abs(cell["seeds_diff_pct"]) <= TOLERANCE_PCT if "seeds_diff_pct" in cell else None)
        again = repeat.get(pair_key(send, recv))
        if again:
            cell["emulated_again_mbit"] = statistics.mean(again)
            cell["emulated_self_diff_pct"] = rel_diff_pct(cell["emulated_again_mbit"], cell["emulated_mbit"])
            cell["sim_vs_emulated_again_diff_pct"] = rel_diff_pct(cell["sim_mbit"], cell["emulated_again_mbit"])
        cells.append(cell)
    same = [c for c in cells if c["same_regime"]]
    report = {
        "metric": "mean ttcp throughput per buffer pair",
        "pairs": len(cells),
        "within_pct": TOLERANCE_PCT,
        "pairs_within": sum(c["within"] for c in cells),
        "pairs_same_regime": len(same),
        "pairs_same_regime_within": sum(c["within"] for c in same),
        "mean_abs_diff_pct_same_regime": statistics.mean(abs(c["diff_pct"]) for c in same) if same else None,
        "cells": cells,
    }
    repeated = [c for c in cells if "emulated_again_mbit" in c]
    if repeated:
        report.update({
            "pairs_emulated_again": len(repeated),
            "emulated_self_pairs_within": sum(abs(c["emulated_self_diff_pct"]) <= TOLERANCE_PCT for c in repeated),
            "sim_vs_emulated_again_pairs_within": sum(abs(c["sim_vs_emulated_again_diff_pct"]) <= TOLERANCE_PCT
                                                      for c in repeated),
        })
    if cells and all("settled" in c for c in cells):
        unsettled = [c for c in cells if not c["settled"]]
        compared = [c for c in unsettled if c["agrees"] is not None]
        report.update({
            "sim_other_seeds": len(spread[(cells[0]["send_buffer"], cells[0]["recv_buffer"])]),
            "sim_self_pairs_within": sum(c["sim_self_within_share"] for c in cells),
            "pairs_settled": len(cells) - len(unsettled),
            "pairs_settled_within": sum(c["within"] for c in cells if c["settled"]),
            "pairs_unsettled": len(unsettled),
            "pairs_unsettled_compared_over_seeds": len(compared),
            "pairs_unsettled_within_over_seeds": sum(c["agrees"] for c in compared),
            "pairs_agree": sum(bool(c["agrees"]) for c in cells),
        })
    return report


def compare_echoes(rows: list[dict[str, str]]) -> dict[str, Any]:
    """Per experiment, mode and size: median RTT of each backend, and UDP loss with 95% bounds."""
    rtts, lost = defaultdict(list), defaultdict(lambda: [0, 0])
    for row in rows:
        backend = side(row)
        if not backend:
            continue
        key = (row["experiment"], row["mode"], int(row["message_bytes"]), backend)
        if row["rtt_ms"] != "NA":
            rtts[key].append(float(row["rtt_ms"]))
        if row["mode"].startswith("udp"):
            lost[key][0] += int(row["datagrams"]) - int(row["datagrams_returned"])
            lost[key][1] += int(row["datagrams"])
    items = []
    for experiment, mode, size in sorted({k[:3] for k in rtts} | {k[:3] for k in lost}):
        sim, emu = rtts.get((experiment, mode, size, "sim")), rtts.get((experiment, mode, size, "emulated"))
        if not sim or not emu:
            continue
        diff = rel_diff_pct(statistics.median(sim), statistics.median(emu))
        item = {"experiment": experiment, "mode": mode, "message_bytes": size,
                "sim_median_ms": statistics.median(sim), "emulated_median_ms": statistics.median(emu),
                "diff_pct": diff, "within": abs(diff) <= TOLERANCE_PCT}
        if mode.startswith("udp"):
            bounds = [wilson(*lost[(experiment, mode, size, b)]) for b in ("sim", "emulated")]
            item["loss_bounds_overlap"] = bounds[0][0] <= bounds[1][1] and bounds[1][0] <= bounds[0][1]
            item["sim_loss_95ci"], item["emulated_loss_95ci"] = bounds
        items.append(item)
    return {"metric": "median echo RTT per experiment, mode and size; UDP loss 95% Wilson bounds",
            "items": len(items), "within_pct": TOLERANCE_PCT,
            "items_within": sum(i["within"] for i in items), "rows": items}


def compare_drops(rows: list[dict[str, str]]) -> dict[str, Any]:
    """Per experiment and UDP mode: the datagrams lost over all sizes on each backend, with 95%
    Wilson bounds, and the drops each place counted, summed over the mode's runs (each run's
    totals stand on every row of it). The places agree when no place's counts differ by more
    than the tolerance of all the drops."""
    lost: dict[tuple[str, ...], list[int]] = defaultdict(lambda: [0, 0])
    places: dict[tuple[str, ...], dict[str, int]] = defaultdict(lambda: dict.fromkeys(DROP_PLACES, 0))
    counted = set()
    for row in rows:
        backend = side(row)
        if not backend or not row["mode"].startswith("udp"):
            continue
        key = (row["experiment"], row["mode"], backend)
        lost[key][0] += int(row["datagrams"]) - int(row["datagrams_returned"])
        lost[key][1] += int(row["datagrams"])
        if (key, row["run_id"]) not in counted and all(row.get(c, "NA") not in ("NA", "") for c in DROP_PLACES):
            counted.add((key, row["run_id"]))
            for column in DROP_PLACES:
                places[key][column] += int(float(row[column]))
    items = []
    for experiment, mode in sorted({k[:2] for k in lost}):
        sim, emulated = lost.get((experiment, mode, "sim")), lost.get((experiment, mode, "emulated"))
        if not sim or not emulated:
            continue
        bounds = [wilson(*sim), wilson(*emulated)]
        item: dict[str, Any] = {
            "experiment": experiment, "mode": mode, "sim_lost": sim, "emulated_lost": emulated,
            "sim_loss_95ci": bounds[0], "emulated_loss_95ci": bounds[1],
            "loss_bounds_overlap": bounds[0][0] <= bounds[1][1] and bounds[1][0] <= bounds[0][1]}
        by_place = [places.get((experiment, mode, b)) for b in ("sim", "emulated")]
        if all(by_place):
            total = max(sum(by_place[0].values()), sum(by_place[1].values()))
            item.update({"sim_drops": by_place[0], "emulated_drops": by_place[1], "places_agree": all(
                abs(by_place[0][c] - by_place[1][c]) <= TOLERANCE_PCT / 100 * total for c in DROP_PLACES)})
        items.append(item)
    return {"metric": "UDP datagrams lost over all sizes (95% Wilson bounds), and drops by place",
            "items": len(items), "within_pct": TOLERANCE_PCT,
            "items_within": sum(i["loss_bounds_overlap"] and i.get("places_agree", False) for i in items),
            "rows": items}


def drops_note(item: dict[str, Any]) -> str:
    if "sim_drops" not in item:
        return "drops by place not recorded"
    counted = [c for c in DROP_PLACES if item["sim_drops"][c] or item["emulated_drops"][c]]
    return "drops by place, virtual time / emulated: " + (", ".join(
        f"{DROP_PLACES[c]} {item['sim_drops'][c]} / {item['emulated_drops'][c]}" for c in counted) or "none")


def ipcbench_item(experiment: str, values: dict[str, str]) -> tuple[str, ...]:
    """A milliner run's item: experiment, message size, segment, unacknowledged count and buffer
    (NA where the curve has none), as results.csv's columns give them."""
    return (experiment, *(values.get(k, "NA") for k in ("message_bytes", "segment", "unack", "buffer")))


def ipcbench_command_item(experiment: str, command: list[str]) -> tuple[str, ...]:
    """The item a netsim ipcbench command measures, from the client's flags."""
    flags = {command[i]: command[i + 1].removesuffix("B") for i in range(len(command) - 1)
             if command[i] in ("--size", "--segment", "--unack", "--buf")}
    return ipcbench_item(experiment, {"message_bytes": flags["--size"], "segment": flags.get("--segment", "NA"),
                                      "unack": flags.get("--unack", "NA"), "buffer": flags.get("--buf", "NA")})


def client_elapsed_s(records: list[dict[str, Any]]) -> float | None:
    times = [r["elapsed_ns"] / 1e9 for r in records if r.get("record") == "message" and r.get("role") == "client"]
    return statistics.mean(times) if times else None


def ipcbench_seed_spread(experiments: list[str]) -> dict[tuple[str, ...], list[float]]:
    """Per milliner item, its transfer time (s) in virtual time under each of SPREAD_SEEDS seeds
    other than its own run's: the background stations' frames and the tick phases move it."""
    spread: dict[tuple[str, ...], list[float]] = {}
    for experiment in experiments:
        runs = REPO / "results" / "milliner" / experiment / "runs" / "quick" / "sim"
        for provenance in sorted(runs.glob("trial-1/provenance.json")):
            for run in json.loads(provenance.read_text()).get("runs", []):
                # This checkout's netsim, wherever the run's was.
                command, at = [str(BINARY), *run["command"][1:]], run["command"].index("--seed") + 1
                times = [client_elapsed_s(run_netsim([*command[:at], str(spread_seed(run["seed"], k)),
                                                      *command[at + 1:]]).records)
                         for k in range(1, SPREAD_SEEDS + 1)]
                spread[ipcbench_command_item(experiment, command)] = [t for t in times if t is not None]
    return spread


def milliner_experiments() -> dict[str, Experiment]:
    """The milliner case's experiments at the quick profile, by name."""
    _, spec_path, _ = CASES["milliner/ipcbench"]
    loaded = load_spec(REPO / spec_path, {"profile": "quick"}).experiments
    return {name: loaded[name] for name in MILLINER_TRANSFERS}


def milliner_settings(experiments: dict[str, Experiment]) -> dict[str, str]:
    return {name: settings_hash(experiment) for name, experiment in experiments.items()}


def again_key(experiment: str, curve: str, size: int) -> str:
    return f"{experiment}|{curve}|{size}"


def read_milliner_again() -> dict[str, Any]:
    """The emulated runs kept in WORK: how many of each experiment (`runs`) and per item
    (again_key) its transfer time in each (`items`), if this build made them under the
    experiments' settings now; else none."""
    path = WORK / MILLINER_AGAIN_FILE
    empty = {"runs": {}, "items": {}}
    if not path.is_file():
        return empty
    record = json.loads(path.read_text())
    settings = milliner_settings(milliner_experiments())
    if record.get("builds") != builds(MILLINER_EMULATED_BUILDS) or record.get("settings") != settings:
        return empty
    return {"runs": record["runs"], "items": record["items"]}


def emulate_milliner_again() -> None:
    """Emulates each milliner experiment's trial MILLINER_AGAIN more times, on its own seeds, into
    WORK; saves after each run, so a rerun makes only what is missing."""
    setLogLevel("warning")
    kept = read_milliner_again()
    experiments = milliner_experiments()
    settings = milliner_settings(experiments)
    WORK.mkdir(parents=True, exist_ok=True)
    for name, experiment in experiments.items():
        while (made := kept["runs"].get(name, 0)) < MILLINER_AGAIN:
            rows, _ = ipcbench.run_emulated(experiment, 1, f"crossval-again-{made + 1}",
                                            WORK / f"milliner-again-{made + 1}" / name)
            for row in rows:
                if row["completed"]:
                    kept["items"].setdefault(again_key(name, row["curve"], row["message_bytes"]), []).append(
                        row["elapsed_s"])
            kept["runs"][name] = made + 1
            (WORK / MILLINER_AGAIN_FILE).write_text(json.dumps(
                {"builds": builds(MILLINER_EMULATED_BUILDS), "settings": settings, **kept}, indent=1) + "\n")


def compare_ipcbench(rows: list[dict[str, str]], spread: dict[tuple[str, ...], list[float]],
                     again: dict[str, list[float]] | None = None) -> dict[str, Any]:
    """Per experiment, curve and message size: the median transfer time of each backend, and
    whether the emulated time lies in the sim's own spread over seeds (widened by the tolerance):
    one emulated run meets other background frames than its twin in virtual time does."""
    elapsed, items_of = defaultdict(list), {}
    frames, collisions = defaultdict(int), defaultdict(int)
    for row in rows:
        backend = side(row)
        if backend and row["completed"] == "TRUE" and row["elapsed_s"] != "NA":
            key = (row["experiment"], row["curve"], int(row["message_bytes"]))
            elapsed[(*key, backend)].append(float(row["elapsed_s"]))
            items_of[key] = ipcbench_item(row["experiment"], row)
            if row.get("medium_frames", "NA") != "NA":
                frames[backend] += int(row["medium_frames"])
                collisions[backend] += int(row["medium_collisions"])
    items = []
    for experiment, curve, size in sorted({k[:3] for k in elapsed}):
        sim, emu = elapsed.get((experiment, curve, size, "sim")), elapsed.get((experiment, curve, size, "emulated"))
        if not sim or not emu:
            continue
        diff = rel_diff_pct(statistics.median(sim), statistics.median(emu))
        item = {"experiment": experiment, "curve": curve, "message_bytes": size,
                "sim_median_s": statistics.median(sim), "emulated_median_s": statistics.median(emu),
                "diff_pct": diff, "within": abs(diff) <= TOLERANCE_PCT}
        repeats = (again or {}).get(again_key(experiment, curve, size), [])
        if repeats:
            first = statistics.median(emu)
            item.update({"emulated_again_s": repeats, "emulated_self_within": all(
                abs(rel_diff_pct(r, first)) <= TOLERANCE_PCT for r in repeats)})
        seeds = spread.get(items_of[(experiment, curve, size)], [])
        if len(seeds) >= 2:
            low, high = seed_band(seeds)
            item.update({"sim_seed_band_s": [low, high], "settled": is_settled(seeds),
                         "in_sim_spread": low * (1 - TOLERANCE_PCT / 100) <= item["emulated_median_s"]
                         <= high * (1 + TOLERANCE_PCT / 100)})
        items.append(item)
    spread_items = [i for i in items if "settled" in i]
    settled = [i for i in spread_items if i["settled"]]
    return {"metric": "median transfer time per experiment, curve and message size; the sim's central "
                      f"95% over {SPREAD_SEEDS} other seeds",
            "items": len(items), "within_pct": TOLERANCE_PCT,
            "items_within": sum(i["within"] for i in items),
            "mean_abs_diff_pct": statistics.fmean(abs(i["diff_pct"]) for i in items) if items else None,
            "items_with_spread": len(spread_items),
            "items_in_sim_spread": sum(i["in_sim_spread"] for i in spread_items),
            "items_settled": len(settled), "items_settled_within": sum(i["within"] for i in settled),
            "items_emulated_again": sum("emulated_self_within" in i for i in items),
            "emulated_self_items_within": sum(i.get("emulated_self_within", False) for i in items),
            "settled_emulated_self_within": sum(i.get("emulated_self_within", False) for i in settled),
            # Pooled over the case: each frame's collisions on the shared medium (milliner M17).
            "collision_pct": {b: 100 * collisions[b] / frames[b] for b in ("sim", "emulated") if frames[b]},
            "rows": items}


def spread_note(table: dict[str, Any]) -> str:
    if "pairs_unsettled" not in table:
        return ""
    return (f". Under {table['sim_other_seeds']} other seeds the sim itself moves more than "
            f"{TOLERANCE_PCT:g}% in {table['pairs_unsettled']} pairs (unsettled); the sim against itself "
            f"with the next seed: {table['sim_self_pairs_within']:.1f} of {table['pairs']} pairs within "
            f"{TOLERANCE_PCT:g}%. Settled pairs within on their own seed: {table['pairs_settled_within']} of "
            f"{table['pairs_settled']}; unsettled pairs within over {1 + EXTRA_SEEDS} seeds: "
            f"{table['pairs_unsettled_within_over_seeds']} of {table['pairs_unsettled_compared_over_seeds']} "
            f"measured")


def repeat_note(table: dict[str, Any]) -> str:
    if "pairs_emulated_again" not in table:
        return ""
    return (f". Emulated again on the same seeds, the emulation against itself: "
            f"{table['emulated_self_pairs_within']} of {table['pairs_emulated_again']} pairs within "
            f"{TOLERANCE_PCT:g}%, the sim against that second run: {table['sim_vs_emulated_again_pairs_within']} "
            f"of {table['pairs_emulated_again']}")


def again_note(entry: dict[str, Any]) -> str:
    if not entry.get("items_emulated_again"):
        return ""
    return (f". Emulated {MILLINER_AGAIN} times more on the same seeds, every further run lies within "
            f"{TOLERANCE_PCT:g}% of the first in {entry['emulated_self_items_within']} of "
            f"{entry['items_emulated_again']} items ({entry['settled_emulated_self_within']} of the "
            f"{entry['items_settled']} settled)")


def collision_note(entry: dict[str, Any]) -> str:
    pct = entry.get("collision_pct", {})
    if set(pct) != {"sim", "emulated"}:
        return ""
    return f". Collisions per frame on the medium: {pct['sim']:.2f}% in virtual time, {pct['emulated']:.2f}% emulated"


def when_note(entry: dict[str, Any]) -> str:
    stamp = entry.get("measured")
    if not stamp:
        return " (an earlier run, its date not recorded)"
    return f" (measured {stamp['date']} at {stamp['commit']})"


def markdown(report: dict[str, Any]) -> str:
    lines = ["| case | compared | within 5% | note |", "|---|---|---|---|"]
    t = report.get("comer94/table1", {})
    if t.get("pairs"):
        agree = f"; agree {t['pairs_agree']} of {t['pairs']}" if "pairs_agree" in t else ""
        lines.append(f"| comer94 Table 1, quick | {t['pairs']} buffer pairs | {t['pairs_within']} of {t['pairs']}{agree} "
                     f"| {t['pairs_same_regime']} pairs in the same regime on both backends, "
                     f"{t['pairs_same_regime_within']} of them within; mean abs. difference "
                     f"{t['mean_abs_diff_pct_same_regime']:.2f}%{repeat_note(t)}{spread_note(t)}{when_note(t)} |")
    for key, label in ECHO_CASES.items():
        e = report.get(key, {})
        if e.get("items"):
            loss = [i for i in e["rows"] if "loss_bounds_overlap" in i]
            lines.append(f"| {label} | {e['items']} (experiment, mode, size) | "
                         f"{e['items_within']} of {e['items']} | UDP loss bounds overlap in "
                         f"{sum(i['loss_bounds_overlap'] for i in loss)} of {len(loss)}{when_note(e)} |")
    d = report.get("liu95cool/atm-drops", {})
    for item in d.get("rows", []):
        sim, emulated = item["sim_lost"], item["emulated_lost"]
        lines.append(f"| liu95cool ATM echoes on the Solaris 2.3 hosts ({item['mode']}), quick | "
                     f"{sim[1]} datagrams | {'yes' if item['loss_bounds_overlap'] and item.get('places_agree') else 'no'} | "
                     f"lost {100 * sim[0] / sim[1]:.1f}% in virtual time, {100 * emulated[0] / emulated[1]:.1f}% "
                     f"emulated, 95% bounds {'overlap' if item['loss_bounds_overlap'] else 'do not overlap'}; "
                     f"{drops_note(item)}{when_note(d)} |")
    i = report.get("milliner/ipcbench", {})
    if i.get("items"):
        lines.append(f"| milliner transfers on the shared Ethernet, quick | {i['items']} (experiment, curve, size) | "
                     f"{i['items_within']} of {i['items']} | mean abs. difference of the transfer times "
                     f"{i['mean_abs_diff_pct']:.2f}%. The sim under {SPREAD_SEEDS} other seeds (other background "
                     f"frames and tick phases) stays within {TOLERANCE_PCT:g}% of its median in "
                     f"{i['items_settled']} of {i['items_with_spread']} items, which agree in "
                     f"{i['items_settled_within']}; the emulated time lies within the sim's central 95% "
                     f"(widened by {TOLERANCE_PCT:g}%) in {i['items_in_sim_spread']} of "
                     f"{i['items_with_spread']}{again_note(i)}{collision_note(i)}{when_note(i)} |")
    m = report.get(MFTP_KEY)
    if m and m["compared"]:
        c = m["case"]
        lines.append(f"| MFTP GET, {c['link']}, cell loss {c['cell_loss_ratio']:g} | {c['repeats']} x "
                     f"{c['file_bytes'] >> 20} MB, N={c['connections']}, W={c['window']} | "
                     f"{'yes' if m['within'] else 'no'} ({m['diff_pct']:+.1f}%) | sim {m['sim_mbit']:.3f}, "
                     f"emulated {m['emulated_mbit']:.3f} Mbit/s; packet loss {m['sim_loss']['drops']}/"
                     f"{m['sim_loss']['packets']} vs {m['emulated_loss']['drops']}/{m['emulated_loss']['packets']}, "
                     f"95% bounds {'overlap' if m['loss_bounds_overlap'] else 'do not overlap'}; "
                     f"files {'intact' if m['all_intact'] else 'NOT intact'}{when_note(m)} |")
    elif m:
        lines.append(f"| MFTP with delay and cell loss | not run | - | {m['note']}{when_note(m)} |")
    return "\n".join(lines) + "\n"


def measured_stamp() -> dict[str, str]:
    """Which tree and day a case's comparison was made from, kept with it: a run of some cases
    carries the others from the last report, and the table says when each was measured."""
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPO, capture_output=True,
                            text=True, check=False).stdout.strip()
    return {"commit": commit or "unknown", "date": time.strftime("%Y-%m-%d")}


def carried_cases(keys: list[str]) -> dict[str, Any]:
    """The cases not measured in this run, as the last report has them."""
    last = RESULTS / "crossval.json"
    if not last.is_file():
        return {}
    report = json.loads(last.read_text())
    return {key: report[key] for key in CASE_KEYS if key not in keys and key in report}


def compare_case(key: str, run: bool) -> dict[str, Any]:
    """Runs what the case misses when asked to, then compares its backends."""
    if key == MFTP_KEY:
        if run:
            run_missing_mftp()
        return compare_mftp()
    if key == "comer94/table1":
        table1 = table1_experiment()
        spread = sim_seed_spread(table1, table1_pairs(table1))
        if run:
            emulate_missing(table1, EXTRA_SEEDS_FILE, extra_seeds_plan(table1, spread))
            emulate_missing(table1, REPEAT_FILE, repeat_plan(table1))
        return compare_transfers(read_rows("comer94", "table1"), spread, read_extra_seeds(table1),
                                 read_repeat(table1))
    paper, _, experiments = CASES[key]
    rows = [r for e in experiments for r in read_rows(paper, e)]
    if key == "milliner/ipcbench":
        if run:
            emulate_milliner_again()
        return compare_ipcbench(rows, ipcbench_seed_spread(experiments), read_milliner_again()["items"])
    if key == "liu95cool/atm-drops":
        return compare_drops(rows)
    return compare_echoes(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--run", action="store_true", help="run the missing runs first (emulation needs root)")
    parser.add_argument("--case", action="append", choices=CASE_KEYS, dest="cases",
                        help="measure only this case (repeatable; default: every case); the others "
                             "are carried from the last benchmarks/results/crossval.json")
    args = parser.parse_args()
    keys = list(dict.fromkeys(args.cases or CASE_KEYS))
    # A stop signal raises Stopped, so the workflow runs and emulated networks below stop as on
    # an error, leaving nothing behind.
    with signals_raise():
        if args.run:
            run_missing(keys)
        stamp = measured_stamp()
        measured = {key: {**compare_case(key, args.run), "measured": stamp} for key in keys}
    for key, entry in measured.items():
        if not entry.get("items") and not entry.get("pairs") and not entry.get("compared"):
            print(f"crossval: {key} found nothing both backends measured; --run runs it", file=sys.stderr)
    report = {
        "benchmark": "crossval",
        "what": "backend=sim against emulation (linkemu) for the same specs at the quick profile",
        "tolerance_pct": TOLERANCE_PCT,
        **{key: cases[key] for key in CASE_KEYS if key in (cases := {**carried_cases(keys), **measured})},
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "crossval.json").write_text(json.dumps(report, indent=1) + "\n")
    (RESULTS / "crossval.md").write_text(markdown(report))
    write_readme()
    print(markdown(report))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Stopped as stop:
        print(f"crossval: {stop}; the runs that finished are kept, --run measures the rest", file=sys.stderr)
        sys.exit(128 + stop.signum)
