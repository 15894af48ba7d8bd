"""Gather an experiment's runs into one tidy table, one provenance file and the digest of its
virtual-time runs' records (netrepro.digest).

    python -m netrepro.aggregate --spec configs/liu95cool.yaml --experiment lan-large \
        --out results/liu95cool/lan-large RUN_FOLDER...

It reads only the run folders it is given: the workflow lists each trial's, and the finished runs
of the same settings on other backends (netrepro.runsettings.other_backend_runs), so a report can
set virtual time and emulation side by side. A run measured under other settings than the spec's
now is refused (netrepro.runsettings.check_runs).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from netrepro.atomic import write_text
from netrepro.columns import tool_columns
from netrepro.digest import write_digest
from netrepro.errors import RunError
from netrepro.helptext import description
from netrepro.jsonlines import dumps, read
from netrepro.experiment import Experiment
from netrepro.runsettings import check_runs
from netrepro.spec import SpecError, load_spec
from netrepro.tools import tool


def csv_value(value: Any) -> str:
    if value is None:
        return "NA"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".")
    return str(value)


def read_trial(trial_dir: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    provenance = json.loads((trial_dir / "provenance.json").read_text(encoding="utf-8"))
    rows = read(trial_dir / "records.jsonl")
    return rows, provenance


def sweep_columns(provenance: dict[str, Any]) -> dict[str, Any]:
    """A run's sweep point as columns; ratios as small as 3e-8 keep their significant digits."""
    return {key: f"{value:.6g}" if isinstance(value, float) else value
            for key, value in provenance.get("sweep", {}).items()}


def table(experiment: Experiment, trials: list[tuple[list[dict[str, Any]], dict[str, Any]]]) -> str:
    columns = tool_columns(experiment.tool)
    if experiment.sweep is not None:
        columns = (*columns[:-1], *(c for c in experiment.sweep.columns() if c not in columns), columns[-1])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for rows, provenance in trials:
        fixed = {
            "paper": experiment.paper, "experiment": experiment.id, "mirrors": "; ".join(experiment.mirrors),
            "link": experiment.link_name, "stack": experiment.stack, "backend": provenance["backend"],
            "host": experiment.host, **tool(experiment.tool).fixed_columns(experiment.settings),
        }
        for row in rows:
            record = {**fixed, **sweep_columns(provenance), **row}
            writer.writerow([csv_value(record.get(column)) for column in columns])
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--spec", required=True, type=Path)
    parser.add_argument("--experiment", required=True)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--out", required=True, type=Path,
                        help="experiment folder for results.csv, provenance.jsonl and digest.json")
    parser.add_argument("trials", nargs="+", type=Path,
                        help="run folders (a trial, or a trial's send buffer), each with records.jsonl and provenance.json")
    args = parser.parse_args(argv)
    try:
        experiment = load_spec(args.spec, {"profile": args.profile}).experiments[args.experiment]
    except SpecError as exc:
        print(f"netrepro: {exc}", file=sys.stderr)
        return 2
    try:
        check_runs(experiment, args.spec, args.trials)
    except RunError as exc:
        print(f"netrepro: {exc}", file=sys.stderr)
        return 2
    trials = [read_trial(path) for path in sorted(args.trials)]
    write_text(args.out / "results.csv", table(experiment, trials))
    write_text(args.out / "provenance.jsonl", dumps([p for _, p in trials]))
    try:
        write_digest(args.out, args.trials)
    except RunError as exc:
        print(f"netrepro: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
