"""Run one trial of one experiment: the experiment's tool (netrepro.tools) measures it, in
virtual time or emulated, and writes the trial's records and provenance.

    python -m netrepro.measure --spec configs/liu95cool.yaml --experiment lan-large --trial 1 \
        --out results/liu95cool/lan-large/runs/trial-1 [--profile quick] [--backend auto] \
        [--prepared FILE]
    python -m netrepro.measure --spec configs/liu95cool-tahoe.yaml --experiment lan-large-tahoe \
        --prepare FILE [--profile quick] [--backend sim]

Writes <out>/records.jsonl (one line per measurement), then <out>/provenance.json, then
<out>/settings-<hash>.json naming the settings it measured (netrepro.runsettings), each
atomically; a trial killed half way leaves neither, so the workflow reruns it. With --prepare
it makes only what the experiment's trials share (netrepro.tools: prepare), which each trial
then reads with --prepared instead of making it again.
"""
from __future__ import annotations

import signal

if __name__ == "__main__":
    # Until main() takes the stop signals over (signals_raise), SIGINT ends the trial as SIGTERM's
    # default does: nothing has started yet, and Python's KeyboardInterrupt would print a
    # traceback from the middle of the imports below, which take some 0.4 s.
    signal.signal(signal.SIGINT, signal.SIG_DFL)

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from netrepro.atomic import write_text
from netrepro.cleanup import Stopped, remove_temp_files, signals_raise
from netrepro.errors import RunError
from netrepro.experiment import Experiment, Spec, at_point, settings_hash
from netrepro.helptext import description
from netrepro.runsettings import PREPARED_PREFIX, drop_other_prepared, write_marker
from netrepro.safepath import refuse_links
from netrepro.spec import BACKENDS, PROFILES, SpecError, load_spec
from netrepro.tools import prepared_once, tool
from netrepro.trial import preflight


def point_of(experiment: Experiment, point: str | int) -> Experiment:
    try:
        return at_point(experiment, int(point))
    except ValueError as exc:
        raise RunError(f"--point {point}: {exc}") from exc


def run_part(spec: Spec, experiment: Experiment, trial: int, out: Path, part: int | None,
             prepared: dict[str, Any] | None = None) -> None:
    """One trial (or one sweep point of it, or one part such as a ttcp send buffer) of any tool;
    `prepared`: what prepare made for the experiment's trials, None to make it here."""
    module = tool(experiment.tool)
    preflight(experiment, module.binaries(experiment.backend))
    module.run(spec, experiment, trial, out, part, prepared)


def write_prepared(experiment: Experiment, path: Path) -> None:
    """What every trial of the experiment shares, made once, with the settings it was made
    under."""
    if not prepared_once(experiment):
        raise RunError(f"experiment {experiment.id}: its trials share nothing to prepare")
    module = tool(experiment.tool)
    preflight(experiment, module.binaries(experiment.backend))
    made = {"experiment": experiment.id, "settings_hash": settings_hash(experiment), **module.prepare(experiment)}
    write_text(path, json.dumps(made, indent=1) + "\n")
    if path.name.startswith(PREPARED_PREFIX):  # named as the workflow names it: it replaces the older ones
        drop_other_prepared(path)


def read_prepared(experiment: Experiment, path: Path) -> dict[str, Any]:
    """What --prepare wrote for this experiment under its settings now; else a RunError."""
    try:
        made = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunError(f"cannot read --prepared {path}: {exc}; make it again with --prepare") from None
    if not isinstance(made, dict) or made.get("experiment") != experiment.id:
        raise RunError(f"--prepared {path} was not made for experiment {experiment.id}; make it again with --prepare")
    if made.get("settings_hash") != settings_hash(experiment):
        raise RunError(f"--prepared {path} was made under other settings than experiment {experiment.id} "
                       "has now; make it again with --prepare (the workflow does)")
    return made


def run_points(spec: Spec, experiment: Experiment, trial: int, out: Path, part: int | None) -> None:
    """Every sweep point of a trial in one process (a job each would cost a workflow job's start
    per point), each into out/point-K; a point already finished is kept, so a run killed half
    way resumes. Writes out/points.json, listing them, last."""
    assert experiment.sweep is not None
    done = []
    for index in range(1, len(experiment.sweep.points()) + 1):
        folder = out / f"point-{index}"
        here = point_of(experiment, index)
        finished = folder / "provenance.json"
        if not finished.is_file() or json.loads(finished.read_text()).get("settings_hash") != settings_hash(here):
            run_part(spec, here, trial, folder, part)
        done.append(folder.name)
    write_text(out / "points.json", json.dumps({"points": done}) + "\n")


def main(argv: list[str] | None = None) -> int:
    """run_job, with a stop signal (SIGTERM, SIGHUP, SIGINT) ending the job as an error does:
    what it started is ended, nothing half written is kept; exits 128 + the signal's number."""
    with signals_raise():
        try:
            return run_job(argv)
        except Stopped as stop:
            print(f"netrepro: {stop}; what the run started was ended", file=sys.stderr)
            return 128 + stop.signum


def measure_argv(python: str, spec: Path, experiment: str, profile: str, *, backend: str | None = None,
                 trial: int | str | None = None, out: Path | str | None = None,
                 send_buffer: int | str | None = None, point: str | None = None,
                 prepared: Path | str | None = None, prepare: Path | str | None = None) -> list[str]:
    """The command that runs this module as the workflow's jobs do (a trial into `out`, or with
    `prepare` what the trials share), for the workflow and the benchmarks alike; numbers may come
    as the strings of a run folder's name."""
    def flag(name: str, value: object) -> list[str]:
        return [name, str(value)] if value is not None else []

    return [python, "-m", "netrepro.measure", "--spec", str(spec), "--experiment", experiment,
            *flag("--trial", trial), "--profile", profile, *flag("--out", out), *flag("--prepare", prepare),
            *flag("--backend", backend), *flag("--send-buffer", send_buffer), *flag("--point", point),
            *flag("--prepared", prepared)]


def run_job(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--spec", required=True, type=Path, help="the paper spec (configs/<paper>.yaml)")
    parser.add_argument("--experiment", required=True, help="experiment id in the spec")
    parser.add_argument("--trial", type=int, help="trial number, from 1 (needed but with --prepare)")
    parser.add_argument("--out", type=Path, help="folder for records.jsonl and provenance.json (needed but with "
                                                 "--prepare)")
    parser.add_argument("--profile", default="quick", help=f"{', '.join(PROFILES)} (default quick)")
    parser.add_argument("--backend", default=None, help=f"override the spec's backend: {', '.join(BACKENDS)}")
    parser.add_argument("--send-buffer", type=int, default=None,
                        help="ttcp experiments: the send buffer (octets) whose pairs to measure")
    parser.add_argument("--point", default=None,
                        help="experiments with a sweep: the point (from 1) to measure, or `all`: each "
                             "into <out>/point-K (those not yet finished), then <out>/points.json")
    parser.add_argument("--prepare", type=Path, default=None,
                        help="measure nothing: write to this file what the experiment's trials share "
                             "(e.g. a tuned cooling loop), made once for all of them")
    parser.add_argument("--prepared", type=Path, default=None,
                        help="a file --prepare wrote for the experiment: the trial reads it instead of making "
                             "it (default: the trial makes its own)")
    args = parser.parse_args(argv)
    if args.prepare is None and (args.trial is None or args.out is None):
        parser.error("give --trial and --out, or --prepare")
    overrides = {"profile": args.profile, **({"backend": args.backend} if args.backend else {})}
    try:
        spec = load_spec(args.spec, overrides)
        if args.experiment not in spec.experiments:
            raise RunError(f"{args.spec} has no experiment {args.experiment!r}; it has {', '.join(spec.experiments)}")
        experiment = spec.experiments[args.experiment]
        if args.prepare is not None:
            write_prepared(experiment, args.prepare)
            return 0
        prepared = read_prepared(experiment, args.prepared) if args.prepared is not None else None
        refuse_links(args.out / "logs")
        remove_temp_files(args.out)
        if not 1 <= args.trial <= experiment.trials:
            raise RunError(f"trial {args.trial} is outside 1..{experiment.trials} of profile {spec.profile}")
        if (args.point is None) != (experiment.sweep is None):
            raise RunError(f"experiment {experiment.id}: give --point exactly when it has a sweep")
        if args.point == "all":
            run_points(spec, experiment, args.trial, args.out, args.send_buffer)
        else:
            run_part(spec, point_of(experiment, args.point) if args.point is not None else experiment, args.trial,
                     args.out, args.send_buffer, prepared)
        write_marker(experiment, args.out)
    except (SpecError, RunError) as exc:
        print(f"netrepro: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"netrepro: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a disk gone full or read-only where no writer caught it
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"netrepro: {where}{exc.strerror or exc}; free some space or make the folder writable, "
              "and run again", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
