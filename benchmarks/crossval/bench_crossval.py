#!/usr/bin/python3
"""Cross-validation of virtual time against emulation: the same Tahoe-stack experiments run with
backend=sim (netsim) and emulated in real time (Mininet, linkemu), compared on throughput, round
trip time and loss.

    python3 benchmarks/crossval/bench_crossval.py          # compare what results/ holds
    python3 benchmarks/crossval/bench_crossval.py --run    # first run what is missing (root)

Cases, all at the quick profile: comer94 Table 1 (ttcp, 100 buffer pairs) and liu95db's ATM
echo experiments (atm-8k, atm-boundaries, atm-nodelay). Each experiment's results.csv holds
both backends' rows (the workflow gathers every backend's finished runs of a spec).
Writes benchmarks/results/crossval.json and crossval.md. Not a test: the figures are measured.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benchmarks" / "results"
TOLERANCE_PCT = 5.0
EMULATED = ("linkemu", "netem", "htb")
CASES = {
    "comer94": ("configs/comer94.yaml", ["table1"]),
    "liu95db": ("configs/liu95db.yaml", ["atm-8k", "atm-boundaries", "atm-nodelay"]),
}
# A transfer slower than this share of its table's fastest is in lockstep (comer94's abnormal
# cells run 30-100 times slower than the normal ones, so the split is not sensitive to it).
LOCKSTEP_SHARE = 0.1


def run_missing() -> None:
    for paper, (spec, experiments) in CASES.items():
        targets = [f"results/{paper}/{e}/results.csv" for e in experiments]
        for backend in ("sim", "auto"):
            command = [sys.executable, "-m", "snakemake", *targets, "--cores", "2", "--configfile", spec,
                       "--config", "profile=quick", f"backend={backend}"]
            subprocess.run(command, cwd=REPO, check=True)


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


def compare_transfers(rows: list[dict[str, str]]) -> dict[str, Any]:
    """Per buffer pair: mean throughput of each backend, and the share of lockstep transfers."""
    by = defaultdict(list)
    for row in rows:
        backend = "sim" if row["backend"] == "sim" else "emulated" if row["backend"] in EMULATED else None
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
        cells.append({"send_buffer": send, "recv_buffer": recv, "sim_mbit": statistics.mean(sim),
                      "emulated_mbit": statistics.mean(emu), "diff_pct": diff,
                      "within": abs(diff) <= TOLERANCE_PCT, "sim_lockstep_share": lock[0],
                      "emulated_lockstep_share": lock[1], "same_regime": lock[0] == lock[1]})
    same = [c for c in cells if c["same_regime"]]
    return {
        "metric": "mean ttcp throughput per buffer pair",
        "pairs": len(cells),
        "within_pct": TOLERANCE_PCT,
        "pairs_within": sum(c["within"] for c in cells),
        "pairs_same_regime": len(same),
        "pairs_same_regime_within": sum(c["within"] for c in same),
        "mean_abs_diff_pct_same_regime": statistics.mean(abs(c["diff_pct"]) for c in same) if same else None,
        "cells": cells,
    }


def compare_echoes(rows: list[dict[str, str]]) -> dict[str, Any]:
    """Per experiment, mode and size: median RTT of each backend, and UDP loss with 95% bounds."""
    rtts, lost = defaultdict(list), defaultdict(lambda: [0, 0])
    for row in rows:
        backend = "sim" if row["backend"] == "sim" else "emulated" if row["backend"] in EMULATED else None
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


def markdown(report: dict[str, Any]) -> str:
    lines = ["| case | compared | within 5% | note |", "|---|---|---|---|"]
    t = report["comer94/table1"]
    if t.get("pairs"):
        lines.append(f"| comer94 Table 1, quick | {t['pairs']} buffer pairs | {t['pairs_within']} of {t['pairs']} "
                     f"| {t['pairs_same_regime']} pairs in the same regime on both backends, "
                     f"{t['pairs_same_regime_within']} of them within; mean abs. difference "
                     f"{t['mean_abs_diff_pct_same_regime']:.1f}% |")
    e = report["liu95db/atm"]
    if e.get("items"):
        loss = [i for i in e["rows"] if "loss_bounds_overlap" in i]
        lines.append(f"| liu95db ATM echoes, quick | {e['items']} (experiment, mode, size) | "
                     f"{e['items_within']} of {e['items']} | UDP loss bounds overlap in "
                     f"{sum(i['loss_bounds_overlap'] for i in loss)} of {len(loss)} |")
    lines.append(f"| MFTP with delay and cell loss | not run | - | {report['mftp']} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run the missing runs first (emulation needs root)")
    args = parser.parse_args()
    if args.run:
        run_missing()
    echo_rows = [r for e in CASES["liu95db"][1] for r in read_rows("liu95db", e)]
    report = {
        "benchmark": "crossval",
        "what": "backend=sim against emulation (linkemu) for the same specs at the quick profile",
        "tolerance_pct": TOLERANCE_PCT,
        "comer94/table1": compare_transfers(read_rows("comer94", "table1")),
        "liu95db/atm": compare_echoes(echo_rows),
        "mftp": "mftp and mftpd run only on the kernel stack and netsim has no MFTP application, "
                "so this case cannot be compared yet",
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "crossval.json").write_text(json.dumps(report, indent=1) + "\n")
    (RESULTS / "crossval.md").write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
