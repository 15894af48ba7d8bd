"""Consecutive emulated smoke trials leave the machine as they found it: the same named network
namespaces and links, no process of the trials, no temporary file. Writes
benchmarks/results/cleanliness.json and .md, then benchmarks/README.md. Needs root and Mininet
(make bench-clean).

    .venv/bin/python benchmarks/faults/bench_cleanliness.py [--trials 20]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from benchmarks.readme import write_readme  # noqa: E402
from netrepro.helptext import description  # noqa: E402
from tests.test_faults import EMULATED, job, left_processes, machine_state  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
# Names in /tmp that a leftover of a trial's tools would carry. (Other agents' work also adds
# entries meanwhile, such as reports' netrepro-browser-*: those are listed, not judged.)
OURS = ("linkemu", "echod", "pingx", "ttcp", "mininet", ".pcap", "iperf")


def tmp_entries() -> set[str]:
    return {entry.name for entry in Path("/tmp").iterdir()}


def run(trials: int) -> dict:
    spec, experiment, _ = EMULATED
    before = machine_state()
    tmp_before = tmp_entries()
    mark = uuid.uuid4().hex
    times, failures = [], []
    with tempfile.TemporaryDirectory(prefix="bench-clean-") as work:
        tmp = Path(work) / "tmp"
        tmp.mkdir()
        for trial in range(1, trials + 1):
            started = time.monotonic()
            process = job(spec, experiment, Path(work) / f"trial-{trial}", mark, tmp)
            _, errors = process.communicate(timeout=300)
            times.append(round(time.monotonic() - started, 2))
            if process.returncode != 0:
                failures.append({"trial": trial, "exit": process.returncode, "stderr": errors[-500:]})
        temp_left = sorted(p.name for p in tmp.iterdir())
    after = machine_state()
    new_tmp = sorted(tmp_entries() - tmp_before)
    result = {
        "trials": trials, "spec": spec, "experiment": experiment, "failures": failures,
        "seconds_per_trial": times,
        "netns_added": sorted(after["netns"] - before["netns"]),
        "links_added": sorted(after["links"] - before["links"]),
        "processes_left": left_processes(mark),
        "temp_files_left": temp_left,
        "tmp_entries_added": new_tmp,
        "tmp_entries_added_ours": [name for name in new_tmp if any(word in name for word in OURS)],
    }
    result["clean"] = not any(result[key] for key in ("failures", "netns_added", "links_added",
                                                      "processes_left", "temp_files_left",
                                                      "tmp_entries_added_ours"))
    return result


def write(result: dict) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "cleanliness.json").write_text(json.dumps(result, indent=1) + "\n")
    times = result["seconds_per_trial"]
    rows = [
        ("trials run / failed", f"{result['trials']} / {len(result['failures'])}"),
        ("seconds per trial (min / max)", f"{min(times):.1f} / {max(times):.1f}"),
        ("named netns added", len(result["netns_added"])),
        ("links added", len(result["links_added"])),
        ("processes left", len(result["processes_left"])),
        ("temporary files left", len(result["temp_files_left"])),
        ("/tmp entries added by netrepro (of all added)",
         f"{len(result['tmp_entries_added_ours'])} (of {len(result['tmp_entries_added'])})"),
        ("machine as found", "yes" if result["clean"] else "no"),
    ]
    table = "| check | result |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows)
    (RESULTS / "cleanliness.md").write_text(
        f"{result['trials']} consecutive emulated smoke trials of {result['spec']} {result['experiment']}:\n\n"
        + table)
    write_readme()


def main() -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--trials", type=int, default=20, help="consecutive trials (default 20)")
    result = run(parser.parse_args().trials)
    write(result)
    print((RESULTS / "cleanliness.md").read_text())
    return 0 if result["clean"] else 1


if __name__ == "__main__":
    sys.exit(main())
