"""benchmarks/coverage/coverage.py: per-file line coverage from gcov's JSON, and every line no
suite executes either explained in unreached.yaml or reported."""
import gzip
import json
from pathlib import Path

import pytest

from tests.conftest import load_script

coverage = load_script("benchmarks/coverage/coverage.py", "bench_coverage")

SOURCE = ["int f(int x)", "{", "    if (x)", "        return 0;", "    if (x > 1)", "        return 0;",
          "    return 1;", "}"]


def write_gcov(gcov: Path, run: str, name: str, counts: dict[int, int]) -> None:
    (gcov / run).mkdir(parents=True, exist_ok=True)
    data = {"files": [{"file": f"/x/tools/tahoe/{name}",
                       "lines": [{"line_number": n, "count": c} for n, c in counts.items()]}]}
    (gcov / run / (Path(name).stem + ".gcov.json.gz")).write_bytes(gzip.compress(json.dumps(data).encode()))


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    sources, gcov = tmp_path / "tahoe", tmp_path / "gcov"
    sources.mkdir()
    for name in coverage.FILES:
        (sources / name).write_text("\n".join(SOURCE) + "\n")
        write_gcov(gcov, "conformance", name, {3: 1, 4: 0, 5: 1, 6: 0, 7: 1})
        write_gcov(gcov, "all", name, {3: 1, 4: 1, 5: 1, 6: 0, 7: 1})
    return sources, gcov


def test_percentages_per_run_and_the_unexecuted_line_explained_by_its_occurrence(tree) -> None:
    sources, gcov = tree
    why = {coverage.LineKey(name, "return 0;", 2): "a guard" for name in coverage.FILES}
    result = coverage.measure(gcov, sources, why)
    first = result["files"][0]
    assert first["lines"] == 5
    assert first["conformance"] == {"executed": 3, "percent": 60.0}
    assert first["all"] == {"executed": 4, "percent": 80.0}
    assert not first["met"]  # 80% is under the 85% target
    assert [(u["line_number"], u["why"]) for u in result["unreached"][:1]] == [(6, "a guard")]
    assert not result["unexplained"] and not result["stale_explanations"]


def test_an_unexplained_line_and_a_stale_explanation_fail(tree) -> None:
    sources, gcov = tree
    why = {coverage.LineKey("tcp_input.c", "return 0;", 1): "executed, so stale"}
    result = coverage.measure(gcov, sources, why)
    assert len(result["unexplained"]) == len(coverage.FILES)
    assert result["stale_explanations"] == [{"file": "tcp_input.c", "code": "return 0;", "occurrence": 1}]
    assert not result["met"]
    assert "NOT EXPLAINED" in coverage.markdown({**result, "scripts": 1, "suites": ["a"], "target_percent": 85.0})


def test_missing_gcov_data_says_to_run_make_coverage(tmp_path: Path) -> None:
    with pytest.raises(coverage.CoverageError, match="run make coverage"):
        coverage.line_counts("all", "tcp_input.c", tmp_path)


def test_a_malformed_explanation_names_its_entry(tmp_path: Path) -> None:
    path = tmp_path / "unreached.yaml"
    path.write_text("- file: tcp_input.c\n  line: x\n- file: tcp_input.c\n  why: no line\n")
    with pytest.raises(coverage.CoverageError, match="entry 1"):
        coverage.load_explanations(path)
    path.write_text("- file: udp_usrreq.c\n  line: x\n  why: y\n")
    with pytest.raises(coverage.CoverageError, match="not one of"):
        coverage.load_explanations(path)


def test_the_committed_explanations_load() -> None:
    assert coverage.load_explanations()
