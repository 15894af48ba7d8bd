"""A Tahoe-stack spec through the whole pipeline in virtual time, as a user without root runs
it: spec -> netsim runs -> results and trace -> HTML report, then a rerun with nothing to do."""
import csv
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from netrepro.sim import BINARY

pytestmark = pytest.mark.skipif(not BINARY.is_file(), reason="needs tools/bin/netsim (make -C tools)")

REPO = Path(__file__).resolve().parent.parent
SPEC = REPO / "configs" / "comer94.yaml"


def snakemake(workdir: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--cores", "2", *options,
         "--directory", str(workdir), "--configfile", str(SPEC), "--config", "profile=smoke", "backend=sim"],
        capture_output=True, text=True, timeout=900,
    )


def tree(root: Path) -> dict[str, tuple[str, int]]:
    """Every file and folder under root but Snakemake's own records (.snakemake): its contents'
    digest and its modification time."""
    return {str(path.relative_to(root)): (hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "",
                                          path.stat().st_mtime_ns)
            for path in sorted(root.rglob("*")) if ".snakemake" not in path.relative_to(root).parts}


def test_comer94_in_virtual_time_from_spec_to_report(tmp_path):
    done = snakemake(tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    with (tmp_path / "results/comer94/table1/results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 100
    assert {r["backend"] for r in rows} == {"sim"} and {r["stack"] for r in rows} == {"tahoe"}
    assert all(float(r["throughput_mbit"]) > 0 for r in rows)
    with (tmp_path / "results/comer94/circular-wait/trace.csv").open() as handle:
        trace = list(csv.DictReader(handle))
    data = [r for r in trace if r["direction"] == "data" and int(r["len"]) > 0]
    # The stack names the rule that sent each data segment: the capture and the log agree.
    assert data and all(r["rule"] != "NA" for r in data)
    assert max(int(r["len"]) for r in data) == 9188 - 40
    assert (tmp_path / "reports/html/comer94.html").is_file()
    before = tree(tmp_path)
    planned = snakemake(tmp_path, "-n")
    assert planned.returncode == 0, planned.stderr[-3000:]
    assert tree(tmp_path) == before, "a dry run changed the tree"
    again = snakemake(tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Nothing to be done" in again.stdout + again.stderr
