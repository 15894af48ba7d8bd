"""Gather an experiment's runs into one tidy table and one provenance file.

    python -m netrepro.aggregate --spec configs/liu95cool.yaml --experiment lan-large \
        --out results/liu95cool/lan-large RUN_FOLDER...

The finished runs of the same experiment settings on other backends (runs/<profile>/<backend>/...)
join the table too, so a report can set virtual time and emulation side by side.
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
    "paper", "experiment", "mirrors", "link", "stack", "backend", "host", "send_buffer", "recv_buffer",
    "mode", "message_set", "message_name", "message_bytes", "trial", "echo", "rtt_ms", "datagrams",
    "datagrams_returned", "complete", "cool_gap_us", "run_id",
)
TRANSFER_COLUMNS = (
    "paper", "experiment", "mirrors", "link", "stack", "backend", "host", "send_buffer", "recv_buffer",
    "nodelay", "trial", "repeat", "bytes", "throughput_mbit", "receiver_throughput_mbit",
    "sndbuf_granted", "rcvbuf_granted", "pair_segments_s1", "pair_segments_s2", "pair_segments_s3",
    "pair_segments_nodelay", "pair_acks_r1", "pair_acks_r2", "pair_acks_timer", "run_id",
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


def other_backends(runs: list[Path]) -> list[Path]:
    """Finished runs of the same experiment and profile on backends other than the runs' own:
    the folders laid out like runs under runs/<profile>/<backend>/ whose settings hash
    (netrepro.spec.settings_hash) is the same."""
    found: list[Path] = []
    for run in runs:
        parts = run.parts
        if "runs" not in parts or len(parts) < parts.index("runs") + 4:
            continue
        at = parts.index("runs") + 2
        backends_dir = Path(*parts[:at])
        own = json.loads((run / "provenance.json").read_text(encoding="utf-8")).get("settings_hash")
        for backend_dir in sorted(p for p in backends_dir.iterdir() if p.is_dir() and p.name != parts[at]):
            candidate = backend_dir.joinpath(*parts[at + 1:])
            provenance = candidate / "provenance.json"
            if candidate in found or not provenance.is_file():
                continue
            if own and json.loads(provenance.read_text(encoding="utf-8")).get("settings_hash") == own:
                found.append(candidate)
    return found


def table(experiment: Experiment, trials: list[tuple[list[dict[str, Any]], dict[str, Any]]]) -> str:
    columns = TRANSFER_COLUMNS if experiment.tool == "ttcp" else COLUMNS
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for rows, provenance in trials:
        fixed = {
            "paper": experiment.paper, "experiment": experiment.id, "mirrors": "; ".join(experiment.mirrors),
            "link": experiment.link_name, "stack": experiment.stack, "backend": provenance["backend"],
            "host": experiment.host, "send_buffer": experiment.send_buffer,
            "recv_buffer": experiment.receive_buffer, "message_set": experiment.message_set,
        }
        for row in rows:
            record = {**fixed, **row}
            writer.writerow([csv_value(record.get(column)) for column in columns])
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True, type=Path)
    parser.add_argument("--experiment", required=True)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--out", required=True, type=Path, help="experiment folder for results.csv and provenance.jsonl")
    parser.add_argument("trials", nargs="+", type=Path,
                        help="run folders (a trial, or a trial's send buffer), each with records.jsonl and provenance.json")
    args = parser.parse_args(argv)
    try:
        experiment = load_spec(args.spec, {"profile": args.profile}).experiments[args.experiment]
    except SpecError as exc:
        print(f"netrepro: {exc}", file=sys.stderr)
        return 2
    trials = [read_trial(path) for path in sorted(args.trials) + other_backends(args.trials)]
    write_text(args.out / "results.csv", table(experiment, trials))
    write_text(args.out / "provenance.jsonl", "".join(json.dumps(p) + "\n" for _, p in trials))
    return 0


if __name__ == "__main__":
    sys.exit(main())
