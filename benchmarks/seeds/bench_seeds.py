#!/usr/bin/python3
"""Benchmark of how much the era hosts' verdicts rest on the seeds: `make reproduce`'s
virtual-time specs run on fresh clones of HEAD, once with the specs' own seeds and once per
other seed, and every era-host claim's verdict compared across them.

    python3 benchmarks/seeds/bench_seeds.py                      # offsets 0, 1 and 2
    python3 benchmarks/seeds/bench_seeds.py --offsets 0,7 --dir DIR
    python3 benchmarks/seeds/bench_seeds.py --tables              # the tables again from the JSON

Offset k adds k to the `seed` of every spec's defaults in the clone (0 leaves them as they are);
each run's draws are hashed from that seed (netrepro/seeds.py), so another seed gives other clock
phases, context-switch costs and loss draws, the model's only run-to-run variation. A claim
whose verdict changes with the seed rests on a draw, not on a mechanism. Writes
benchmarks/results/seeds.json and .md and benchmarks/README.md, and each clone's make output to
benchmarks/work/seeds-offset-<k>.log. Runs make reproduce without its emulated spec
(DEFAULT_SPECS empty), so as root for milliner's RPC, about 14 minutes an offset.
"""
from __future__ import annotations

import argparse
import csv
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from benchmarks.readme import RESULTS, add_output_args, write_result, write_tables_again  # noqa: E402
from netrepro.helptext import description  # noqa: E402
from netrepro.provenance import git_rev  # noqa: E402

WORK = REPO / "benchmarks" / "work"
# The defaults' seed line of a spec (two spaces in, as every spec under configs/ writes it).
SEED_LINE = re.compile(r"^(  seed: )(\d+)$", re.MULTILINE)


def offsets_arg(text: str) -> list[int]:
    values = [int(part) for part in text.split(",") if part.strip()]
    if not values or any(v < 0 for v in values) or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError("give distinct offsets of 0 or more, e.g. 0,1,2")
    return values


def move_seeds(clone: Path, offset: int) -> dict[str, int]:
    """Adds offset to the defaults' seed of every spec in the clone's configs/; returns each
    spec's seed as run."""
    seeds = {}
    for spec in sorted((clone / "configs").glob("*.yaml")):
        text = spec.read_text(encoding="utf-8")
        found = SEED_LINE.findall(text)
        if len(found) != 1:
            raise SystemExit(f"{spec}: expected one '  seed: N' line in its defaults, found {len(found)}")
        seed = int(found[0][1]) + offset
        spec.write_text(SEED_LINE.sub(lambda m: f"{m.group(1)}{seed}", text), encoding="utf-8")
        seeds[spec.name] = seed
    return seeds


def run_make(clone: Path, log: Path) -> tuple[int, float]:
    """make reproduce in clone without the emulated default spec: its exit status and seconds."""
    start = time.monotonic()
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as out:
        code = subprocess.run(["make", "reproduce", "DEFAULT_SPECS="], cwd=clone, stdin=subprocess.DEVNULL,
                              stdout=out, stderr=subprocess.STDOUT).returncode
    return code, time.monotonic() - start


def era_rows(html: Path) -> list[dict[str, str]]:
    """The era-host rows of every scorecard in html (reports/html of a clone)."""
    rows = []
    for card in sorted(html.glob("*-scorecard.csv")):
        paper = card.name[: -len("-scorecard.csv")]
        with card.open(newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                if row["era_host"] == "TRUE":
                    rows.append({"paper": paper, "claim_id": row["claim_id"], "setup": row["setup"],
                                 "fitted": row["fitted"], "verdict": row["verdict"],
                                 "measured": row["measured"]})
    return rows


def run_offset(offset: int, clone: Path) -> dict[str, Any]:
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    seeds = move_seeds(clone, offset)
    log = WORK / f"seeds-offset-{offset}.log"
    code, elapsed = run_make(clone, log)
    rows = era_rows(clone / "reports" / "html") if code == 0 else []
    print(f"offset {offset}: make reproduce exit {code} in {elapsed / 60:.1f} min, {len(rows)} era-host rows "
          f"(log {log})", flush=True)
    return {"offset": offset, "seeds": seeds, "exit_status": code, "elapsed_s": elapsed, "rows": rows}


def key(row: dict[str, str]) -> tuple[str, str, str]:
    return row["paper"], row["claim_id"], row["setup"]


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per offset the held-out era-host rows and how many read reproduced; per claim row the
    verdicts across the offsets that finished, and which rows differ."""
    done = [r for r in runs if r["exit_status"] == 0]
    per_offset = []
    for run in done:
        held = [r for r in run["rows"] if r["fitted"] != "TRUE"]
        count = Counter(r["verdict"] for r in held)
        per_offset.append({"offset": run["offset"], "held_out": len(held), "reproduced": count["reproduced"],
                           "verdicts": dict(count)})
    by_key: dict[tuple[str, str, str], dict[int, dict[str, str]]] = {}
    for run in done:
        for row in run["rows"]:
            by_key.setdefault(key(row), {})[run["offset"]] = row
    offsets = [run["offset"] for run in done]
    claims = []
    for k in sorted(by_key):
        seen = by_key[k]
        verdicts = [seen[o]["verdict"] if o in seen else "-" for o in offsets]
        claims.append({"paper": k[0], "claim_id": k[1], "setup": k[2], "verdicts": verdicts,
                       "measured": [seen[o]["measured"] if o in seen else "" for o in offsets],
                       "fitted": any(seen[o]["fitted"] == "TRUE" for o in seen),
                       "stable": len(set(verdicts)) == 1})
    return {"offsets": offsets, "per_offset": per_offset, "claims": claims}


def markdown(result: dict[str, Any]) -> str:
    s = result["summary"]
    lines = ["| seeds | era-host claims held out | reproduced | share |", "|---|---|---|---|"]
    for p in s["per_offset"]:
        label = "the specs' own" if p["offset"] == 0 else f"each spec's + {p['offset']}"
        share = 100 * p["reproduced"] / p["held_out"] if p["held_out"] else 0.0
        lines.append(f"| {label} | {p['held_out']} | {p['reproduced']} | {share:.1f} % |")
    failed = [r for r in result["runs"] if r["exit_status"] != 0]
    for r in failed:
        lines.append(f"| each spec's + {r['offset']} | FAILED (make exit {r['exit_status']}) | | |")
    claims = s["claims"]
    moved = [c for c in claims if not c["stable"]]
    lines += ["", f"{len(claims) - len(moved)} of {len(claims)} era-host claim rows keep their verdict at every "
                  f"seed; {len(moved)} change with it:"]
    if moved:
        head = " | ".join(f"+{o}" for o in s["offsets"])
        lines += ["", f"| claim | setup | {head} |", "|---|---|" + "---|" * len(s["offsets"])]
        for c in moved:
            cells = " | ".join(f"{v} ({m})" if m else v for v, m in zip(c["verdicts"], c["measured"]))
            lines.append(f"| {c['paper']} {c['claim_id']}{' (fitted)' if c['fitted'] else ''} | {c['setup']} | {cells} |")
    lines += ["", f"Fresh clones of {result['git_commit'][:12]}, {result['machine']['cpus']} cores; "
                  f"`make reproduce DEFAULT_SPECS=` per offset, {result['elapsed_s'] / 60:.0f} minutes in all."]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--offsets", type=offsets_arg, default=[0, 1, 2],
                        help="seed offsets to run, comma-separated (default 0,1,2; 0 is the specs' own)")
    parser.add_argument("--dir", type=Path, help="clone into offset-<k> folders of this new folder and keep them")
    add_output_args(parser, RESULTS / "seeds.json")
    opts = parser.parse_args()
    if opts.tables:
        write_tables_again(markdown, opts.output)
        return 0
    if opts.dir is not None and opts.dir.exists():
        print(f"{opts.dir} exists: give a new folder, the clones must start empty", file=sys.stderr)
        return 2
    head = git_rev()
    parent = Path(tempfile.mkdtemp(prefix="netrepro-seeds-")) if opts.dir is None else opts.dir
    parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    runs = []
    try:
        for offset in opts.offsets:
            runs.append(run_offset(offset, parent / f"offset-{offset}"))
    finally:
        if opts.dir is None:
            shutil.rmtree(parent, ignore_errors=True)
    result = {
        "benchmark": "seeds",
        "what": "make reproduce's virtual-time specs on fresh clones of HEAD with every spec's seed moved by "
                "each offset; the era-host verdicts compared",
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "git_commit": head,
        "elapsed_s": time.monotonic() - start,
        "runs": runs,
        "summary": summary(runs),
    }
    write_result(result, markdown, opts.output)
    print(f"wrote {opts.output}")
    return 0 if all(r["exit_status"] == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
