"""A Tahoe-stack spec through the whole pipeline in virtual time, as a user without root runs
it: spec -> netsim runs -> results and trace -> HTML report, then a rerun with nothing to do."""
import csv
import hashlib
from pathlib import Path

import pytest

from tests.conftest import snakemake_comer94_sim


def tree(root: Path) -> dict[str, tuple[str, int]]:
    """Every file and folder under root but Snakemake's own records (.snakemake): its contents'
    digest and its modification time."""
    return {str(path.relative_to(root)): (hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "",
                                          path.stat().st_mtime_ns)
            for path in sorted(root.rglob("*")) if ".snakemake" not in path.relative_to(root).parts}


@pytest.mark.xdist_group("comer94_quick_tree")  # one worker runs the tree (make test: -n)
def test_comer94_in_virtual_time_from_spec_to_report(comer94_quick_tree):
    workdir = comer94_quick_tree
    with (workdir / "results/comer94/table1/results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    # The quick profile: 2 transfers for each of table1's 10 x 10 buffer pairs.
    assert len(rows) == 200
    assert {r["backend"] for r in rows} == {"sim"} and {r["stack"] for r in rows} == {"tahoe"}
    assert all(float(r["throughput_mbit"]) > 0 for r in rows)
    with (workdir / "results/comer94/circular-wait/trace.csv").open() as handle:
        trace = list(csv.DictReader(handle))
    data = [r for r in trace if r["direction"] == "data" and int(r["len"]) > 0]
    # The stack names the rule that sent each data segment: the capture and the log agree.
    assert data and all(r["rule"] != "NA" for r in data)
    assert max(int(r["len"]) for r in data) == 9188 - 40
    assert (workdir / "reports/html/comer94.html").is_file()
    before = tree(workdir)
    planned = snakemake_comer94_sim(workdir, "-n")
    assert planned.returncode == 0, planned.stderr[-3000:]
    assert tree(workdir) == before, "a dry run changed the tree"
    again = snakemake_comer94_sim(workdir)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Nothing to be done" in again.stdout + again.stderr
