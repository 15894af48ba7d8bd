"""benchmarks/README.md is composed from the tables the benchmarks wrote, never by hand."""
from pathlib import Path

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
