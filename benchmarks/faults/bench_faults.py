"""The fault-injection suite of issue 32: every hostile case as the test that reproduces it, run
together, emulated signal cases included (NETREPRO_ALL_FAULTS=1), and counted per kind of fault.
Writes benchmarks/results/faults.json and .md, then benchmarks/README.md. Needs root and
Mininet for the emulated cases; run under `flock /tmp/netrepro-netlab.lock` (make bench-faults).

    .venv/bin/python benchmarks/faults/bench_faults.py
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from benchmarks.readme import write_readme  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
# Each kind of fault and the tests that inject it (a file, or one test of a file).
KINDS = (
    ("a spec is data: tags, yte, nesting, size, devices, through Snakemake", "tests/test_yteguard.py"),
    ("hostile specs, link kinds and host models: exact file:line errors", "tests/test_bad_specs.py"),
    ("every tool limit, each tool run at each bound and past it", "tests/test_limits.py"),
    ("a link planted where netrepro, Snakemake or a tool writes", "tests/test_links.py"),
    ("a link in a run's folders or its log, where netrepro writes", "tests/test_safepath.py"),
    ("a signal to Snakemake half way through a trial (virtual and emulated)", "tests/test_stop_signals.py"),
    ("SIGTERM, SIGHUP, SIGKILL to a measure job, then a rerun", "tests/test_faults.py"),
    ("a full or read-only disk, a device, hex and padded numbers, overflowing timeouts",
     "tests/test_tool_inputs.py"),
    ("rewording an experiment or adding a trial reruns only what it must",
     "tests/test_workflow.py::test_rewording_an_experiment_or_adding_a_trial_reruns_only_what_it_must"),
)


def run() -> dict:
    targets = list(dict.fromkeys(target for _, target in KINDS))
    with tempfile.TemporaryDirectory(prefix="bench-faults-") as work:
        report = Path(work) / "junit.xml"
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                               *targets], cwd=REPO, env={**os.environ, "NETREPRO_ALL_FAULTS": "1"},
                              capture_output=True, text=True)
        seconds = round(time.monotonic() - started, 1)
        cases = [case for case in ET.parse(report).getroot().iter("testcase")]
    results = []
    for case in cases:
        outcome, why = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome, why = "failed", child.get("message", "")[:1000]
            elif child.tag == "skipped":
                outcome, why = "skipped", child.get("message", "")
        path = case.get("classname", "").replace(".", "/") + ".py"
        results.append({"file": path, "test": case.get("name"), "outcome": outcome, "why": why,
                        "seconds": round(float(case.get("time", 0)), 2)})
    kinds = []
    for kind, target in KINDS:
        file, _, test = target.partition("::")
        mine = [r for r in results if r["file"] == file and (not test or r["test"] == test)]
        kinds.append({"kind": kind, "target": target, "cases": len(mine),
                      **{o: sum(r["outcome"] == o for r in mine) for o in ("passed", "failed", "skipped")},
                      "seconds": round(sum(r["seconds"] for r in mine), 1)})
    return {"machine": {"host": platform.node(), "kernel": platform.release(), "python": platform.python_version()},
            "date": time.strftime("%Y-%m-%d"), "pytest_exit": done.returncode, "seconds": seconds,
            "summary": done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:],
            "kinds": kinds, "cases": results,
            "clean": done.returncode == 0 and all(k["failed"] == 0 and k["cases"] for k in kinds)}


def write(result: dict) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "faults.json").write_text(json.dumps(result, indent=1) + "\n")
    rows = []
    for kind in result["kinds"]:
        rows.append(f"| {kind['kind']} | `{kind['target'].removeprefix('tests/')}` | {kind['cases']} | "
                    f"{kind['passed']} | {kind['failed']} | {kind['skipped']} | {kind['seconds']} |")
    table = ("| fault injected | tests | cases | passed | failed | skipped | seconds |\n"
             "|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    failed = "".join(f"- `{c['test']}`: {c['why'].splitlines()[0] if c['why'] else 'failed'}\n"
                     for c in result["cases"] if c["outcome"] == "failed")
    (RESULTS / "faults.md").write_text(
        f"Every fault case of issue 32, emulated signal cases included ({result['summary']}; "
        f"{result['seconds']:.0f} s in all):\n\n" + table
        + f"\nEvery case passed: {'yes' if result['clean'] else 'no'}.\n" + (f"\n{failed}" if failed else ""))
    write_readme()


def main() -> int:
    result = run()
    write(result)
    print((RESULTS / "faults.md").read_text())
    return 0 if result["clean"] else 1


if __name__ == "__main__":
    sys.exit(main())
