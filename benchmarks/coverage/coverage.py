#!/usr/bin/python3
"""Line coverage of the Tahoe stack's TCP (tcp_input.c, tcp_output.c, tcp_timer.c, tcp_subr.c)
by the C suites, from the gcov JSON that `make -C tools coverage` leaves in tools/build-cov/gcov.

    make coverage                                # build with gcov, run the suites, then this
    python3 benchmarks/coverage/coverage.py      # the tables again from that gcov data

Writes benchmarks/results/coverage.json, coverage.md and benchmarks/README.md: per file, the
lines gcov counts as executable, how many the conformance scripts alone execute and how many
every suite executes, against the target; then each line no suite executes, with why
(benchmarks/coverage/unreached.yaml). Exits 1 when a file misses the target, when a line no
suite executes has no explanation, or when an explanation names no such line.
"""
from __future__ import annotations

import gzip
import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from benchmarks.readme import write_readme  # noqa: E402
from netrepro.provenance import git_commit  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
GCOV = REPO / "tools" / "build-cov" / "gcov"
SUITES = REPO / "tools" / "build-cov" / "tests"
SOURCES = REPO / "tools" / "tahoe"
SCRIPTS = SOURCES / "conformance"
EXPLANATIONS = Path(__file__).resolve().parent / "unreached.yaml"
FILES = ("tcp_input.c", "tcp_output.c", "tcp_timer.c", "tcp_subr.c")
RUNS = ("conformance", "all")
TARGET_PERCENT = 85.0


class CoverageError(Exception):
    """Missing or malformed input, with what to do about it."""


@dataclass(frozen=True)
class LineKey:
    """A source line as unreached.yaml names it: its text may repeat, so also which one it is."""
    file: str
    text: str
    occurrence: int


def line_counts(run: str, name: str, gcov: Path = GCOV) -> dict[int, int]:
    """Execution count per executable line of tahoe/<name> after the given run."""
    path = gcov / run / (Path(name).stem + ".gcov.json.gz")
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError) as exc:
        raise CoverageError(f"{path}: cannot read gcov's JSON ({exc}); run make coverage") from exc
    for entry in data.get("files", []):
        source = Path(entry["file"])
        if source.name == name and source.parent.name == "tahoe":
            return {line["line_number"]: line["count"] for line in entry["lines"]}
    raise CoverageError(f"{path}: no lines for tahoe/{name}; run make coverage")


def line_keys(name: str, numbers: list[int], sources: Path = SOURCES) -> dict[int, LineKey]:
    """The key of each numbered line of tahoe/<name>."""
    text = [line.strip() for line in (sources / name).read_text().splitlines()]
    return {n: LineKey(name, text[n - 1], text[:n].count(text[n - 1])) for n in numbers}


def load_explanations(path: Path = EXPLANATIONS) -> dict[LineKey, str]:
    try:
        entries = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise CoverageError(f"{path}: {exc}") from exc
    if not isinstance(entries, list):
        raise CoverageError(f"{path}: expected a list of entries with file, line and why")
    found: dict[LineKey, str] = {}
    for i, entry in enumerate(entries, 1):
        if (not isinstance(entry, dict) or set(entry) - {"file", "line", "occurrence", "why"}
                or not all(isinstance(entry.get(k), str) for k in ("file", "line", "why"))
                or not isinstance(entry.get("occurrence", 1), int)):
            raise CoverageError(f"{path}: entry {i}: give file, line and why (text), and "
                                "occurrence (a number) where the line's text repeats")
        if entry["file"] not in FILES:
            raise CoverageError(f"{path}: entry {i}: file {entry['file']!r} is not one of {', '.join(FILES)}")
        found[LineKey(entry["file"], entry["line"].strip(), entry.get("occurrence", 1))] = entry["why"]
    return found


def measure(gcov: Path = GCOV, sources: Path = SOURCES,
            explanations: dict[LineKey, str] | None = None) -> dict[str, Any]:
    """Per file and run the executed lines, the lines no run executes and why, and the verdict."""
    why = load_explanations() if explanations is None else explanations
    files, unreached, unexplained = [], [], []
    used: set[LineKey] = set()
    for name in FILES:
        counts = {run: line_counts(run, name, gcov) for run in RUNS}
        row: dict[str, Any] = {"file": name, "lines": len(counts["all"])}
        for run in RUNS:
            executed = sum(1 for c in counts[run].values() if c > 0)
            row[run] = {"executed": executed, "percent": 100.0 * executed / len(counts[run])}
        row["met"] = row["all"]["percent"] >= TARGET_PERCENT
        files.append(row)
        missed = sorted(n for n, c in counts["all"].items() if c == 0)
        for number, key in line_keys(name, missed, sources).items():
            entry = {"file": name, "line_number": number, "code": key.text, "why": why.get(key)}
            if key in why:
                used.add(key)
                unreached.append(entry)
            else:
                unexplained.append(entry)
    stale = [{"file": k.file, "code": k.text, "occurrence": k.occurrence} for k in why if k not in used]
    return {
        "files": files,
        "unreached": unreached,
        "unexplained": unexplained,
        "stale_explanations": stale,
        "met": all(f["met"] for f in files) and not unexplained and not stale,
    }


def markdown(result: dict[str, Any]) -> str:
    rows = [
        f"{result['scripts']} conformance scripts (`tools/tahoe/conformance`), then every suite "
        f"({', '.join(result['suites'])}); target {result['target_percent']:g}% of each file's "
        "executable lines.",
        "",
        "| file | executable lines | conformance scripts alone | all C suites | met |",
        "|---|---|---|---|---|",
    ]
    for f in result["files"]:
        cells = [f"{f[run]['executed']} ({f[run]['percent']:.1f}%)" for run in RUNS]
        rows.append(f"| {f['file']} | {f['lines']} | {cells[0]} | {cells[1]} | {'yes' if f['met'] else 'no'} |")
    rows += ["", "Lines no suite executes:", "", "| line | code | why |", "|---|---|---|"]
    for u in result["unreached"] + result["unexplained"]:
        code = u["code"].replace("|", "\\|")
        rows.append(f"| {u['file']}:{u['line_number']} | `{code}` | {u['why'] or 'NOT EXPLAINED'} |")
    for s in result["stale_explanations"]:
        rows.append(f"| {s['file']} | `{s['code']}` | STALE: explained in unreached.yaml, but executed or gone |")
    return "\n".join(rows) + "\n"


def gcov_version() -> str:
    out = subprocess.run(["gcov", "--version"], capture_output=True, text=True)
    return out.stdout.splitlines()[0] if out.stdout else "unknown"


def main() -> int:
    try:
        result = measure()
    except CoverageError as exc:
        print(f"coverage: {exc}", file=sys.stderr)
        return 1
    result.update({
        "benchmark": "coverage",
        "what": "line coverage of tools/tahoe's tcp_input.c, tcp_output.c, tcp_timer.c and "
                "tcp_subr.c by the C suites that drive the stack in virtual time (gcov)",
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "git_commit": git_commit(),
        "gcov": gcov_version(),
        "scripts": len(list(SCRIPTS.glob("*.tahoe"))),
        "suites": sorted(p.name.replace("-", "/", 1) for p in SUITES.iterdir()),
        "target_percent": TARGET_PERCENT,
    })
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "coverage.json").write_text(json.dumps(result, indent=1) + "\n")
    (RESULTS / "coverage.md").write_text(markdown(result))
    write_readme()
    for f in result["files"]:
        print(f"{f['file']}: {f['all']['percent']:.1f}% of {f['lines']} lines "
              f"({f['conformance']['percent']:.1f}% by the conformance scripts alone)")
    for u in result["unexplained"]:
        print(f"coverage: tools/tahoe/{u['file']}:{u['line_number']} is not executed and "
              f"{EXPLANATIONS.name} does not say why", file=sys.stderr)
    for s in result["stale_explanations"]:
        print(f"coverage: {EXPLANATIONS.name} explains {s['file']} '{s['code']}' (occurrence "
              f"{s['occurrence']}), which is executed or gone", file=sys.stderr)
    print(f"wrote {RESULTS / 'coverage.md'}")
    return 0 if result["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
