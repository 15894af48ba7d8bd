"""Compares two sets of scorecards (reports/html/<paper>-scorecard.csv): the verdict counts of
each paper and every claim whose verdict or measured value changed.

    python benchmarks/fit/compare_scorecards.py BEFORE_DIR AFTER_DIR [--claims K07,F01,...]
"""
from __future__ import annotations

import argparse
import csv
from collections import Counter
from pathlib import Path

from netrepro.helptext import description

PAPERS = ("comer94", "liu95db", "liu95cool", "ishikura", "milliner")


def read(folder: Path, paper: str) -> dict[str, dict[str, str]]:
    path = folder / f"{paper}-scorecard.csv"
    if not path.is_file():
        return {}
    with path.open(newline="", encoding="utf-8") as f:
        return {row["claim_id"]: row for row in csv.DictReader(f)}


def main() -> None:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--claims", default="", help="claims to show whatever changed, e.g. K07,F01")
    args = parser.parse_args()
    named = {c for c in args.claims.split(",") if c}
    for paper in PAPERS:
        before, after = read(args.before, paper), read(args.after, paper)
        if not before and not after:
            continue
        count_b = Counter(r["verdict"] for r in before.values())
        count_a = Counter(r["verdict"] for r in after.values())
        print(f"== {paper}: before {dict(count_b)}")
        print(f"   {' ' * len(paper)}  after  {dict(count_a)}")
        for claim in sorted(set(before) | set(after)):
            b, a = before.get(claim, {}), after.get(claim, {})
            changed = (b.get("verdict"), b.get("measured")) != (a.get("verdict"), a.get("measured"))
            if changed or claim in named:
                print(f"   {claim:6} {b.get('verdict', '-'):18} {b.get('measured', '-'):>10} -> "
                      f"{a.get('verdict', '-'):18} {a.get('measured', '-'):>10}  ({a.get('published', b.get('published', ''))[:50]})")


if __name__ == "__main__":
    main()
