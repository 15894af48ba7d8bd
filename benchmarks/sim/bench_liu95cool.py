#!/usr/bin/python3
"""Benchmark of netsim on liu95cool's era hosts: how long configs/liu95cool-tahoe.yaml's paper
profile takes, experiment by experiment, run job by job as make reproduce runs it (the
workflow's prepare and measure jobs, 2 at a time), and how many events netsim handles a second.

    python3 benchmarks/sim/bench_liu95cool.py                # the whole paper profile
    python3 benchmarks/sim/bench_liu95cool.py --against REV  # and trial 1's netsim runs again
                                                             # with netsim built at git REV
    python3 benchmarks/sim/bench_liu95cool.py --tables       # the tables again from the JSON

Writes benchmarks/results/sim-liu95cool.json and .md and benchmarks/README.md: each
experiment's jobs, their wall time summed, netsim's events and events per second of job time,
and a SHA-256 of the experiment's records (two runs of one model and seed give the same one).
With --against, every netsim run of each experiment's first trial (and of its prepare job) is
run again by the netsim of REV, and their outputs must be byte for byte the same: a faster
netsim changes no result. The check fails (exit status 1) when one differs. Not a test: the
times depend on the machine.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from benchmarks.readme import RESULTS, add_output_args, write_result, write_tables_again  # noqa: E402
from netrepro.experiment import Experiment  # noqa: E402
from netrepro.helptext import description  # noqa: E402
from netrepro.measure import measure_argv  # noqa: E402
from netrepro.provenance import git_commit, git_rev  # noqa: E402
from netrepro.sim import BINARY  # noqa: E402
from netrepro.spec import load_spec  # noqa: E402
from netrepro.tools import prepared_once, tool  # noqa: E402

SPEC = REPO / "configs" / "liu95cool-tahoe.yaml"
PROFILE = "paper"
PYTHON = REPO / ".venv" / "bin" / "python"


def jobs_of(experiment: Experiment) -> list[tuple[int, int | None]]:
    """The workflow's measure jobs of an experiment: a trial each, and for ttcp a trial and
    send buffer each (workflows/rules/common.smk, get_trial_dirs)."""
    trials = range(1, experiment.trials + 1)
    parts = tool(experiment.tool).parts(experiment.settings)
    if parts is not None:
        return [(trial, send) for trial in trials for send in parts]
    return [(trial, None) for trial in trials]


def python() -> str:
    return str(PYTHON) if PYTHON.is_file() else sys.executable


def job_argv(experiment: Experiment, trial: int, send: int | None, out: Path, prepared: Path | None) -> list[str]:
    """The measure job's command, as the workflow's get_measure_argv gives it."""
    return measure_argv(python(), SPEC, experiment.id, PROFILE, backend="sim", trial=trial, out=out,
                        send_buffer=send, point="all" if experiment.sweep else None, prepared=prepared)


def prepare_argv(experiment: Experiment, prepared: Path) -> list[str]:
    """The prepare job's command, as the workflow's get_prepare_argv gives it."""
    return measure_argv(python(), SPEC, experiment.id, PROFILE, backend="sim", prepare=prepared)


def walk(value: Any) -> Iterator[Any]:
    yield value
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    for child in children:
        yield from walk(child)


def sim_records(provenance: dict[str, Any]) -> list[dict[str, Any]]:
    """The netsim sim records a job's provenance keeps, one per netsim run."""
    return [v for v in walk(provenance) if isinstance(v, dict) and v.get("record") == "sim"]


def tune_levels(provenance: dict[str, Any]) -> list[dict[str, Any]]:
    """The netsim runs a job made to tune its cooling loop (cooling.tune), one per loop length:
    none where the trial read a loop tuned once for the experiment (the prepare job's)."""
    if provenance.get("cooling_tune_prepared"):
        return []
    return (provenance.get("cooling_tune") or {}).get("levels", [])


def netsim_commands(provenance: dict[str, Any]) -> list[list[str]]:
    """The netsim argument lists a job's provenance keeps, one per netsim run."""
    return [v for v in walk(provenance) if isinstance(v, list) and v and isinstance(v[0], str)
            and Path(v[0]).name == "netsim"]


def run_prepare(experiment: Experiment, prepared: Path) -> dict[str, Any]:
    """The experiment's prepare job: its cooling tune's netsim runs."""
    start = time.monotonic()
    done = subprocess.run(prepare_argv(experiment, prepared), cwd=REPO, capture_output=True, text=True)
    wall = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"{experiment.id}: prepare failed: {done.stderr.strip()[-800:]}")
    runs = tune_levels(json.loads(prepared.read_text()))
    return {
        "trial": 0, "send_buffer": None, "wall_s": wall, "netsim_runs": len(runs),
        "events": sum(int(run["events"]) for run in runs),
        "virtual_s": sum(int(run["virtual_ns"]) for run in runs) / 1e9,
        "records": b"", "commands": [run["command"] for run in runs],
    }


def run_job(experiment: Experiment, trial: int, send: int | None, out: Path, prepared: Path | None) -> dict[str, Any]:
    start = time.monotonic()
    done = subprocess.run(job_argv(experiment, trial, send, out, prepared), cwd=REPO, capture_output=True, text=True)
    wall = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"{experiment.id} trial {trial}: measure failed: {done.stderr.strip()[-800:]}")
    provenance = json.loads((out / "provenance.json").read_text())
    runs = sim_records(provenance) + tune_levels(provenance)
    return {
        "trial": trial, "send_buffer": send, "wall_s": wall, "netsim_runs": len(runs),
        "events": sum(int(run["events"]) for run in runs),
        "virtual_s": sum(int(run["virtual_ns"]) for run in runs) / 1e9,
        "records": (out / "records.jsonl").read_bytes(),
        "commands": netsim_commands(provenance),
    }


def build_reference(rev: str, where: Path) -> Path:
    """netsim built from the tools of git revision rev, in where."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "tools"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive.stdout, check=True)
    subprocess.run(["make", "-C", str(where / "tools"), "-j2", "bin/netsim"], capture_output=True, check=True)
    return where / "tools" / "bin" / "netsim"


def netsim_output(command: list[str], binary: Path, cwd: Path) -> bytes:
    done = subprocess.run([str(binary), *command[1:]], cwd=cwd, capture_output=True)
    return done.stdout + f"\nexit {done.returncode}\n".encode()


def compare(rev: str, commands: list[list[str]], jobs: int) -> dict[str, Any]:
    """Each command's output by this netsim and by rev's; which differ."""
    if any("--pcap" in c or "--root" in c for c in commands):
        raise SystemExit("--against compares netsim's output only; a run writes files (--pcap, --root)")
    with tempfile.TemporaryDirectory() as tmp:
        reference = build_reference(rev, Path(tmp))

        def same(command: list[str]) -> bool:
            return netsim_output(command, BINARY, Path(tmp)) == netsim_output(command, reference, Path(tmp))

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            verdicts = list(pool.map(same, commands))
    commit = git_rev(rev)
    return {"rev": rev, "commit": commit, "runs": len(commands), "identical": sum(verdicts),
            "different": [" ".join(c[1:]) for c, ok in zip(commands, verdicts) if not ok]}


def markdown(result: dict[str, Any]) -> str:
    rows = ["| experiment | jobs | netsim runs | wall time of its jobs | events | events a second of job time |",
            "|---|---|---|---|---|---|"]
    for name, e in result["experiments"].items():
        rows.append(f"| {name} | {e['jobs']} | {e['netsim_runs']} | {e['wall_s']:.1f} s | "
                    f"{e['events'] / 1e6:.2f} M | {e['events_per_s'] / 1e6:.2f} M |")
    t = result["total"]
    rows.append(f"| all, {result['jobs']} jobs at a time | {t['jobs']} | {t['netsim_runs']} | "
                f"{t['elapsed_s'] / 60:.1f} min elapsed ({t['wall_s'] / 60:.1f} min of job time) | "
                f"{t['events'] / 1e6:.1f} M | {t['events_per_s'] / 1e6:.2f} M |")
    against = result.get("against")
    if against:
        rows += ["", f"netsim at {against['rev']} ({against['commit'][:12]}) against this one on every "
                     f"netsim run of each experiment's trial 1: {against['identical']} of {against['runs']} "
                     "outputs byte for byte the same."]
    return "\n".join(rows) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--jobs", type=int, default=2, help="measure jobs at a time (default 2, as make reproduce)")
    parser.add_argument("--against", metavar="REV", help="also compare trial 1's netsim output with netsim at git REV")
    add_output_args(parser, RESULTS / "sim-liu95cool.json")
    opts = parser.parse_args()
    if opts.tables:
        write_tables_again(markdown, opts.output)
        return 0
    if not BINARY.is_file():
        print(f"{BINARY} is missing; run make -C tools", file=sys.stderr)
        return 1
    load_before = os.getloadavg()
    spec = load_spec(SPEC, {"profile": PROFILE, "backend": "sim"})
    # The prepare jobs first, as the workflow runs them before their experiments' trials.
    preparing = [(e, 0, None) for e in spec.experiments.values() if prepared_once(e)]
    work = [(e, trial, send) for e in spec.experiments.values() for trial, send in jobs_of(e)]
    with tempfile.TemporaryDirectory() as tmp:
        def made(experiment: Experiment) -> Path:
            return Path(tmp) / experiment.id / "prepared.json"

        def prepare(job: tuple[Experiment, int, None]) -> dict[str, Any]:
            made(job[0]).parent.mkdir(parents=True, exist_ok=True)
            return run_prepare(job[0], made(job[0]))

        def one(job: tuple[Experiment, int, int | None]) -> dict[str, Any]:
            experiment, trial, send = job
            return run_job(experiment, trial, send, Path(tmp) / experiment.id / f"{trial}-{send}",
                           made(experiment) if prepared_once(experiment) else None)

        start = time.monotonic()
        with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
            done = list(pool.map(prepare, preparing)) + list(pool.map(one, work))
        elapsed = time.monotonic() - start
        work = preparing + work
    experiments: dict[str, Any] = {}
    first_trial: list[list[str]] = []
    for (experiment, trial, _), job in zip(work, done):
        e = experiments.setdefault(experiment.id, {"jobs": 0, "trials": experiment.trials, "netsim_runs": 0,
                                                   "wall_s": 0.0, "events": 0, "virtual_s": 0.0,
                                                   "records_sha256": hashlib.sha256()})
        e["jobs"] += 1
        for key in ("netsim_runs", "wall_s", "events", "virtual_s"):
            e[key] += job[key]
        e["records_sha256"].update(job["records"])
        if trial <= 1:  # trial 0: the prepare job's runs
            first_trial += job["commands"]
    for e in experiments.values():
        e["events_per_s"] = e["events"] / e["wall_s"]
        e["records_sha256"] = e["records_sha256"].hexdigest()
    total = {key: sum(e[key] for e in experiments.values()) for key in ("jobs", "netsim_runs", "wall_s", "events")}
    total.update(elapsed_s=elapsed, events_per_s=total["events"] / total["wall_s"])
    result = {
        "benchmark": "netsim-liu95cool",
        "what": f"{SPEC.relative_to(REPO)} at its {PROFILE} profile in virtual time: the workflow's measure "
                "jobs, each a python -m netrepro.measure process; wall time is the jobs' own, events per "
                "second are netsim's events over it",
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "load_average_before": load_before},
        "git_commit": git_commit(),
        "jobs": opts.jobs,
        "experiments": experiments,
        "total": total,
    }
    if opts.against:
        result["against"] = compare(opts.against, first_trial, opts.jobs)
    write_result(result, markdown, opts.output)
    print(f"{total['jobs']} jobs: {elapsed / 60:.1f} min elapsed, {total['events_per_s'] / 1e6:.2f} M events/s; "
          f"wrote {opts.output}")
    if opts.against and result["against"]["different"]:
        print(f"netsim at {opts.against} gave other output on {len(result['against']['different'])} runs",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
