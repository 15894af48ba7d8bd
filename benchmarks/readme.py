"""Writes benchmarks/README.md from the tables the benchmarks wrote in benchmarks/results/.

Each benchmark script calls write_readme() after writing its own results, so the README always
shows the last measured figures and is never edited by hand:

    python3 benchmarks/readme.py    # compose it again from benchmarks/results/ (measures nothing)
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

BENCHMARKS = Path(__file__).resolve().parent
RESULTS = BENCHMARKS / "results"
README = BENCHMARKS / "README.md"


@dataclass(frozen=True)
class Section:
    title: str
    command: str
    cost: str
    about: str
    table: str


SECTIONS = (
    Section("The link emulator", "make bench-link", "root, about 4 minutes",
            "linkemu measured with clients the project did not write "
            "(iperf3, ping) and with its own counters: goodput per link kind, added delay, "
            "random, cell and bit-error loss, and forwarding capacity.",
            "linkemu.md"),
    Section("The tools", "make bench-tools", "root, about 6 minutes",
            "ttcp beside iperf3, MFTP with 1, 4 and 16 connections over a "
            "200 ms link, and ipcbench, between two Mininet hosts.",
            "tools.md"),
    Section("Virtual time", "make bench-sim", "about a minute; installs Debian's libns3-dev",
            "How fast netsim runs comer94 Table 1 at the paper's full scale, and the same bulk "
            "transfer in ns-3 beside it.",
            "sim.md"),
    Section("Virtual time: liu95cool on the era's hosts, paper profile", "make bench-sim",
            "after the above, about 5 minutes",
            "configs/liu95cool-tahoe.yaml's paper profile job by job, 2 at a time as make reproduce "
            "runs it: each experiment's wall time and netsim's events per second, the runs that "
            "tune a cooling loop (cooling.tune) counted with the trials' own.",
            "sim-liu95cool.md"),
    Section("make reproduce on a fresh clone", "make bench-reproduce", "root, what make reproduce takes",
            "The README's make reproduce on a fresh git clone of HEAD, with its own venv, tools, "
            "results and reports, timed stage by stage against the goal of 30 minutes.",
            "reproduce.md"),
    Section("Era-host verdicts under other seeds", "make bench-seeds", "root, about 45 minutes",
            "make reproduce's virtual-time specs on fresh clones of HEAD, with the specs' own seeds and "
            "with each spec's seed moved by 1 and by 2 (other clock phases, context-switch costs and loss "
            "draws): the era-host claims reproduced at each, and every claim whose verdict the seed changes.",
            "seeds.md"),
    Section("Virtual time against emulation", "make bench-crossval", "root, about 3 hours, most of it comer94's pairs",
            "Virtual time (backend=sim) against linkemu on comer94 Table 1, liu95db's "
            "ATM and shared-Ethernet echoes, milliner's transfers between paging hosts on the shared "
            "Ethernet, liu95cool's uncooled UDP echoes on the ATM LAN's Solaris hosts (loss and the drops "
            "at each place) and MFTP GETs with cell loss; `--case` measures some cases and carries the "
            "others, each row saying when it was measured; docs/cross-validation.md explains the figures.",
            "crossval.md"),
    Section("Killed and finished runs leave the machine as found", "make bench-clean", "root, about 5 minutes",
            "Consecutive emulated smoke trials, then the named network namespaces, links, processes "
            "and temporary files compared with before.",
            "cleanliness.md"),
    Section("Line coverage of the Tahoe stack's TCP", "make coverage", "about 15 seconds",
            "gcov over tools/tahoe's tcp_input.c, tcp_output.c, tcp_timer.c and tcp_subr.c while "
            "the conformance scripts (docs/conformance.md), then every C suite that drives the stack "
            "in virtual time, run; each line none executes is listed with why.",
            "coverage.md"),
    Section("Fault injection", "make bench-faults", "root, about 3 minutes",
            "Every hostile case of issue 32 as the test that reproduces it: specs that lie, values no "
            "tool takes, links where root writes, signals to Snakemake half way through a trial "
            "(emulated too), full disks and tool inputs, counted per kind of fault.",
            "faults.md"),
)


def compose(results: Path = RESULTS) -> str:
    parts = [
        "# Benchmarks",
        "",
        "Written by `benchmarks/readme.py` from `benchmarks/results/`, which each benchmark "
        "rewrites when it runs; do not edit by hand. Every figure is measured on the machine "
        "named in the benchmark's JSON file beside its table.",
    ]
    for section in SECTIONS:
        table = results / section.table
        body = table.read_text().strip() if table.is_file() else "Not measured yet."
        parts += ["", f"## {section.title}", "", f"`{section.command}` ({section.cost}). {section.about}", "", body]
    return "\n".join(parts) + "\n"


def write_readme(results: Path = RESULTS, readme: Path = README) -> None:
    readme.write_text(compose(results))


def write_tables(table: str, output: Path) -> None:
    """Writes a benchmark's markdown table beside its JSON result output, and the README when
    output is in benchmarks/results/: a run written elsewhere (--output) leaves the README alone."""
    output.with_suffix(".md").write_text(table)
    if output.parent.resolve() == RESULTS:
        write_readme()


def add_output_args(parser: argparse.ArgumentParser, default: Path) -> None:
    """The options every benchmark takes: where its JSON result goes, and --tables to write its
    table and the README again from that result, measuring nothing."""
    parser.add_argument("--output", type=Path, default=default)
    parser.add_argument("--tables", action="store_true",
                        help="write the .md and benchmarks/README.md from the existing --output, measuring nothing")


def write_tables_again(markdown: Callable[[dict[str, Any]], str], output: Path) -> None:
    """--tables: the table of the result already at output, and the README."""
    write_tables(markdown(json.loads(output.read_text())), output)


def write_result(result: dict[str, Any], markdown: Callable[[dict[str, Any]], str], output: Path) -> None:
    """A benchmark's result as JSON, whole or not at all (a killed run leaves the last one), then
    its table beside it and the README."""
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_suffix(".tmp")
    partial.write_text(json.dumps(result, indent=1) + "\n")
    partial.replace(output)
    write_tables(markdown(result), output)


if __name__ == "__main__":
    write_readme()
    print(f"wrote {README}")
    sys.exit(0)
