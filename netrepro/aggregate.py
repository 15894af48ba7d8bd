"""Gather an experiment's trials into one tidy table and one provenance file.

    python -m netrepro.aggregate --spec configs/liu95cool.yaml --experiment lan-large \
        --runs results/liu95cool/lan-large/runs --out results/liu95cool/lan-large
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
from netrepro.spec import Experiment, SpecError, load_spec

COLUMNS = (
    "paper", "experiment", "mirrors", "link", "stack", "backend", "mode", "message_set", "message_name",
    "message_bytes", "trial", "echo", "rtt_ms", "datagrams", "datagrams_returned", "complete",
    "cool_gap_us", "run_id",
)


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
    rows = [json.loads(line) for line in (trial_dir / "records.jsonl").read_text(encoding="utf-8").splitlines() if line]
    return rows, provenance


def table(experiment: Experiment, trials: list[tuple[list[dict[str, Any]], dict[str, Any]]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for rows, provenance in trials:
        fixed = {
            "paper": experiment.paper, "experiment": experiment.id, "mirrors": "; ".join(experiment.mirrors),
            "link": experiment.link_name, "stack": experiment.stack, "backend": provenance["backend"],
            "message_set": experiment.message_set,
        }
        for row in rows:
            record = {**fixed, **row}
            writer.writerow([csv_value(record.get(column)) for column in COLUMNS])
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True, type=Path)
    parser.add_argument("--experiment", required=True)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--out", required=True, type=Path, help="experiment folder for results.csv and provenance.jsonl")
    parser.add_argument("trials", nargs="+", type=Path, help="trial folders, each with records.jsonl and provenance.json")
    args = parser.parse_args(argv)
    try:
        experiment = load_spec(args.spec, {"profile": args.profile}).experiments[args.experiment]
    except SpecError as exc:
        print(f"netrepro: {exc}", file=sys.stderr)
        return 2
    trials = [read_trial(path) for path in sorted(args.trials)]
    write_text(args.out / "results.csv", table(experiment, trials))
    write_text(args.out / "provenance.jsonl", "".join(json.dumps(p) + "\n" for _, p in trials))
    return 0


if __name__ == "__main__":
    sys.exit(main())
