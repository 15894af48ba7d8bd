"""benchmarks/README.md is composed from the tables the benchmarks wrote, never by hand."""
import json
from pathlib import Path

import pytest

from tests.conftest import load_script

readme = load_script("benchmarks/readme.py", "bench_readme")


def test_each_section_shows_its_benchmarks_table_or_says_it_was_not_measured(tmp_path: Path) -> None:
    (tmp_path / "linkemu.md").write_text("| case | met |\n|---|---|\n| delay 1ms | yes |\n")
    text = readme.compose(tmp_path)
    link, rest = text.split("## The tools")
    assert "| delay 1ms | yes |" in link and "make bench-link" in link
    assert rest.count("Not measured yet.") == len(readme.SECTIONS) - 1


def test_the_committed_readme_is_what_the_committed_tables_compose_to() -> None:
    assert readme.README.read_text() == readme.compose()


def test_write_tables_writes_the_table_beside_the_output_and_the_readme_only_for_results(
        tmp_path: Path, monkeypatch) -> None:
    composed: list[bool] = []
    monkeypatch.setattr(readme, "write_readme", lambda: composed.append(True))
    readme.write_tables("| a |\n", tmp_path / "x.json")
    assert (tmp_path / "x.md").read_text() == "| a |\n" and not composed
    monkeypatch.setattr(readme, "RESULTS", tmp_path)
    readme.write_tables("| b |\n", tmp_path / "x.json")
    assert composed


@pytest.mark.parametrize("script, name", [("benchmarks/sim/bench_sim.py", "sim"),
                                          ("benchmarks/sim/bench_liu95cool.py", "sim-liu95cool")])
def test_the_committed_sim_tables_are_what_their_scripts_make_of_the_committed_json(script: str, name: str) -> None:
    bench = load_script(script, f"bench_table_{name.replace('-', '_')}")
    result = json.loads((readme.RESULTS / f"{name}.json").read_text())
    assert bench.markdown(result) == (readme.RESULTS / f"{name}.md").read_text()


def test_write_result_writes_the_json_whole_then_its_table_and_tables_again_reads_it_back(
        tmp_path: Path, monkeypatch) -> None:
    composed: list[bool] = []
    monkeypatch.setattr(readme, "write_readme", lambda: composed.append(True))
    output = tmp_path / "new" / "b.json"
    readme.write_result({"x": 1}, lambda result: f"| {result['x']} |\n", output)
    assert json.loads(output.read_text()) == {"x": 1} and not output.with_suffix(".tmp").exists()
    assert (output.with_suffix(".md")).read_text() == "| 1 |\n" and not composed
    readme.write_tables_again(lambda result: f"| {result['x'] + 1} |\n", output)
    assert output.with_suffix(".md").read_text() == "| 2 |\n"
