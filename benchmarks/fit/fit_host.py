"""Fits a host model's free parameters on its declared training set, and on nothing else.

The host file's `fitted` block names the parameters and the training set (published figures in
reports/reference/<reference>.csv, rows matching `where`). This script runs, in virtual time,
only the training cells, for every point of a grid over the parameters, and writes the whole
search table to benchmarks/results/fit-<host>.csv with the error of each point; it prints the
best point. It never reads a claim, a report or a figure outside the training set: choosing
values by held-out figures is what the fitting rule forbids (docs/host-mechanisms.md, Secs 0 and 3).

    .venv/bin/python benchmarks/fit/fit_host.py configs/hosts/sparcstation-ipc.yaml \\
        --grid atm_tx_ns+atm_rx_ns=100000,200000,300000 --grid late_wakeup_pct=0,20

A grid entry names one parameter, or several joined by + that take the same value. The grid may
vary only parameters the host file declares fitted; those it leaves out keep the file's values.
Error of a point: the mean over the training figures of each one's error: |ln(measured /
published)| for a table cell, published read in the table's unit (liu95db and comer94 print Mb/s
of 2^20 bits); for a claim, the error CLAIMS gives its reading.
"""
from __future__ import annotations

import argparse
import csv
from concurrent.futures import ThreadPoolExecutor
import itertools
import json
import math
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from netrepro import hostmodel  # noqa: E402
from netrepro.helptext import description  # noqa: E402
from netrepro.measure import run_part  # noqa: E402
from netrepro.sim import run_netsim  # noqa: E402
from netrepro.spec import load_spec  # noqa: E402
from netrepro.tools.ttcp import limit_s, pair_command, pair_seed  # noqa: E402

# The published figure of a claim, as a training target: the spec and experiment that measure it
# (quick profile, trial 1), how the claim reads the records, and the error of a reading. A
# bound (liu95cool A05: more than 50 %) is met or missed: its error is the shortfall.
CLAIMS = {
    "liu95cool:A05": ("configs/liu95cool-tahoe.yaml", "atm-very-large-tahoe", "min_pooled_udp_loss_pct",
                      lambda loss: max(0.0, 50.0 - loss) / 50.0),
}

# Which spec experiment measures each reference table's cells, and the table's megabit.
REFERENCES = {
    "liu95db-table3": ("configs/liu95db.yaml", "table3", 2 ** 20),
    "comer94-table1": ("configs/comer94.yaml", "table1", 2 ** 20),
}


def min_pooled_udp_loss_pct(records: list[dict[str, Any]]) -> float:
    """The smaller of the two UDP modes' pooled round-trip loss over all messages, in %."""
    sent: dict[str, int] = {}
    back: dict[str, int] = {}
    for r in records:
        if r.get("mode", "").startswith("udp"):
            sent[r["mode"]] = sent.get(r["mode"], 0) + int(r["datagrams"] or 0)
            back[r["mode"]] = back.get(r["mode"], 0) + int(r["datagrams_returned"] or 0)
    return min(100.0 * (1 - back[m] / sent[m]) for m in sent)


def claim_error(claim: str, host: Path, tmp: Path) -> tuple[float, float]:
    """(reading, error) of a claim's experiment run on host."""
    spec_path, experiment_id, metric, error = CLAIMS[claim]
    spec = load_spec(REPO / spec_path, {"profile": "quick", "backend": "sim"})
    experiment = replace(spec.experiments[experiment_id], host_model=host)
    out = tmp / "claim"
    out.mkdir(exist_ok=True)
    run_part(spec, experiment, 1, out, None)
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    reading = {"min_pooled_udp_loss_pct": min_pooled_udp_loss_pct}[metric](records)
    return reading, error(reading)


def training_claims(fitted: dict[str, Any]) -> list[str]:
    claims = [f"{e['paper']}:{e['claim']}" for e in fitted["training_set"] if "claim" in e]
    unknown = [c for c in claims if c not in CLAIMS]
    if unknown:
        sys.exit(f"fit_host: no measurement known for claim {', '.join(unknown)}; known: {', '.join(CLAIMS)}")
    return claims


def training_cells(fitted: dict[str, Any]) -> list[tuple[str, int, int, float]]:
    """(reference, send_buffer, recv_buffer, published bits/s) of every training row, once."""
    cells: dict[tuple[str, int, int], float] = {}
    for entry in fitted["training_set"]:
        if "reference" not in entry:
            continue
        name = entry["reference"]
        if name not in REFERENCES:
            sys.exit(f"fit_host: no experiment known for reference {name}; known: {', '.join(REFERENCES)}")
        megabit = REFERENCES[name][2]
        with (REPO / "reports" / "reference" / f"{name}.csv").open(newline="") as f:
            for row in csv.DictReader(f):
                if all(str(row.get(k)) == str(v) for k, v in entry.get("where", {}).items()):
                    key = (name, int(row["send_buffer"]), int(row["recv_buffer"]))
                    cells[key] = float(row["throughput_mbit"]) * megabit
    return [(*key, bps) for key, bps in sorted(cells.items())]


def parse_grid(texts: list[str]) -> list[tuple[list[str], list[int]]]:
    grid = []
    for text in texts:
        names, _, values = text.partition("=")
        grid.append((names.split("+"), [int(v) for v in values.split(",")]))
    return grid


def measure(cell: tuple[str, int, int, float], host: Path, transfers: int) -> float:
    """Mean receiver throughput (bits/s) of the cell's transfers on host, as its spec runs it."""
    name, send, recv, _ = cell
    spec_path, experiment_id, _ = REFERENCES[name]
    spec = load_spec(REPO / spec_path, {"profile": "paper", "backend": "sim"})
    base = spec.experiments[experiment_id]
    experiment = replace(base, host_model=host, settings=replace(base.settings, transfers=transfers))
    command = pair_command(experiment, send, recv, pair_seed(experiment, 1, send, recv))
    result = run_netsim(command, limit_s(experiment, send, recv))
    rates = [t["receiver_bps"] for t in result.transfers if t.get("role") == "receiver" and t.get("receiver_bps")]
    return sum(rates) / len(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("host", type=Path, help="the host model file with a `fitted` block")
    parser.add_argument("--grid", action="append", required=True, help="PARAM[+PARAM]=V1,V2,...")
    parser.add_argument("--transfers", type=int, default=2, help="transfers per cell (default 2)")
    parser.add_argument("--jobs", type=int, default=2, help="netsim runs at once (default 2)")
    parser.add_argument("--out", type=Path, help="default benchmarks/results/fit-<host>.csv")
    args = parser.parse_args()
    values = hostmodel.values(args.host)
    own = yaml.safe_load(args.host.read_text())
    fitted = own.get("fitted")
    if not fitted:
        sys.exit(f"fit_host: {args.host} declares no `fitted` block")
    grid = parse_grid(args.grid)
    named = {n for names, _ in grid for n in names}
    if not named <= set(fitted["parameters"]):
        sys.exit(f"fit_host: the grid varies {sorted(named - set(fitted['parameters']))}, which the host file "
                 f"does not declare fitted (it declares {sorted(fitted['parameters'])})")
    cells = training_cells(fitted)
    claims = training_claims(fitted)
    out = args.out or REPO / "benchmarks" / "results" / f"fit-{args.host.stem}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows, best = [], None
    with tempfile.TemporaryDirectory() as tmp:
        for point in itertools.product(*(vals for _, vals in grid)):
            model = {k: v for k, v in values.items() if k not in ("fitted", "name")}
            for (names, _), value in zip(grid, point):
                for n in names:
                    model[n] = value
            host = Path(tmp) / f"{args.host.stem}.yaml"
            host.write_text(yaml.safe_dump({"name": args.host.stem, **model}, sort_keys=False))
            errors = []
            with ThreadPoolExecutor(args.jobs) as pool:
                measured = list(pool.map(lambda cell: measure(cell, host, args.transfers), cells))
            at = {"+".join(n): v for (n, _), v in zip(grid, point)} | {"transfers": args.transfers}
            for cell, bps in zip(cells, measured):
                errors.append(abs(math.log(bps / cell[3])))
                rows.append({**at, "figure": f"{cell[0]} {cell[1]}/{cell[2]}", "measured": round(bps / 1e6, 4),
                             "published": round(cell[3] / 1e6, 4), "unit": "Mbit/s (10^6 bits)",
                             "error": round(errors[-1], 5)})
            for claim in claims:
                reading, err = claim_error(claim, host, Path(tmp))
                errors.append(err)
                rows.append({**at, "figure": claim, "measured": round(reading, 3), "published": "",
                             "unit": CLAIMS[claim][2], "error": round(err, 5)})
            error = sum(errors) / len(errors)
            print(" ".join(f"{'+'.join(n)}={v}" for (n, _), v in zip(grid, point)), f"error {error:.4f}", flush=True)
            if best is None or error < best[0]:
                best = (error, point)
    with out.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert best is not None
    print("best:", " ".join(f"{'+'.join(n)}={v}" for (n, _), v in zip(grid, best[1])), f"error {best[0]:.4f};",
          f"{len(cells) + len(claims)} training figures; table {out}")


if __name__ == "__main__":
    main()
