#!/usr/bin/python3
"""Benchmark of the README's `make reproduce` on a fresh clone: how long it takes from a clean
checkout of HEAD, stage by stage (set-up and build, each spec's runs, the reports), against the
goal of 30 minutes on a 2-core machine.

    python3 benchmarks/reproduce/bench_reproduce.py             # clone into a temporary folder
    python3 benchmarks/reproduce/bench_reproduce.py --dir DIR   # clone into DIR (new) and keep it
    python3 benchmarks/reproduce/bench_reproduce.py --tables    # the tables again from the JSON

Writes benchmarks/results/reproduce.json and .md and benchmarks/README.md, and make's whole
output to benchmarks/work/reproduce.log. The clone shares nothing with this tree but the
machine's package caches: its venv, tools, results and reports are its own. Run it as root on an
otherwise idle machine, as make reproduce itself: its emulated stage measures in real time.
Not a test: the times depend on the machine.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from benchmarks.readme import RESULTS, add_output_args, write_result, write_tables_again  # noqa: E402
from netrepro.helptext import description  # noqa: E402
from netrepro.provenance import git_rev  # noqa: E402

GOAL_MIN = 30.0
# make reproduce prints a line starting so before each stage (the Makefile's echo lines).
STAGE_MARK = "== "
FIRST_STAGE = "set-up and build"
LOG = REPO / "benchmarks" / "work" / "reproduce.log"


def stages(lines: list[tuple[float, str]], end: float) -> list[dict[str, Any]]:
    """The stages of make's output, given each line with the time it came: a stage runs from
    its mark (the first from the start) to the next mark or the end."""
    marks = [(0.0, FIRST_STAGE)] + [(t, line[len(STAGE_MARK):].strip()) for t, line in lines
                                    if line.startswith(STAGE_MARK)]
    bounds = [t for t, _ in marks[1:]] + [end]
    return [{"stage": name, "elapsed_s": stop - start} for (start, name), stop in zip(marks, bounds)]


def run_reproduce(clone: Path, log: Path) -> tuple[int, list[tuple[float, str]], float]:
    """make reproduce in clone: its exit status, its output's lines with the seconds from the
    start each came at, and the seconds it took."""
    start = time.monotonic()
    lines: list[tuple[float, str]] = []
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(["make", "reproduce"], cwd=clone, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert process.stdout is not None
        for line in process.stdout:
            lines.append((time.monotonic() - start, line))
            out.write(line)
        code = process.wait()
    return code, lines, time.monotonic() - start


def markdown(result: dict[str, Any]) -> str:
    rows = ["| stage | minutes |", "|---|---|"]
    rows += [f"| {s['stage']} | {s['elapsed_s'] / 60:.1f} |" for s in result["stages"]]
    total = result["elapsed_s"] / 60
    status = "finished" if result["exit_status"] == 0 else f"FAILED (exit {result['exit_status']})"
    rows.append(f"| all ({status}) | {total:.1f} |")
    rows += ["", f"`make reproduce` on a fresh clone of {result['git_commit'][:12]}, {result['machine']['cpus']} "
                 f"cores: {total:.1f} minutes against a goal of {GOAL_MIN:.0f}; "
                 f"met: {'yes' if result['met'] else 'no'}."]
    return "\n".join(rows) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--dir", type=Path, help="clone into this new folder and keep it (default: a temporary one)")
    add_output_args(parser, RESULTS / "reproduce.json")
    opts = parser.parse_args()
    if opts.tables:
        write_tables_again(markdown, opts.output)
        return 0
    if opts.dir is not None and opts.dir.exists():
        print(f"{opts.dir} exists: give a new folder, the clone must start empty", file=sys.stderr)
        return 2
    head = git_rev()
    load_before = os.getloadavg()
    parent = Path(tempfile.mkdtemp(prefix="netrepro-reproduce-")) if opts.dir is None else None
    clone = opts.dir if opts.dir is not None else parent / "netrepro"
    try:
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        code, lines, elapsed = run_reproduce(clone, LOG)
    finally:
        if parent is not None:
            shutil.rmtree(parent, ignore_errors=True)
    result = {
        "benchmark": "make-reproduce",
        "what": "the README's make reproduce on a fresh git clone of HEAD (its own venv, tools, results "
                "and reports), timed stage by stage from make's output",
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "load_average_before": load_before},
        "git_commit": head,
        "exit_status": code,
        "elapsed_s": elapsed,
        "goal_s": GOAL_MIN * 60,
        "met": code == 0 and elapsed <= GOAL_MIN * 60,
        "stages": stages(lines, elapsed),
    }
    write_result(result, markdown, opts.output)
    print(f"make reproduce: {elapsed / 60:.1f} min, exit {code}; wrote {opts.output} (make's output: {LOG})")
    if code != 0:
        print("".join(line for _, line in lines[-20:]), file=sys.stderr, end="")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
