"""The render rules declare every file a report reads: found in the report's own source."""
from pathlib import Path

import pytest

from netrepro.reportinputs import report_reads

REPO = Path(__file__).resolve().parent.parent
PAPERS = ["comer94", "liu95db", "liu95cool", "ishikura", "milliner"]


def reads(paper: str) -> set[str]:
    return {str(path.relative_to(REPO)) for path in report_reads(REPO, REPO / "reports" / f"{paper}.Rmd")}


@pytest.mark.parametrize("paper", PAPERS)
def test_each_report_reads_its_claims_and_a_spec_and_all_of_them_exist(paper):
    found = reads(paper)
    assert f"reports/reference/{paper}-claims.csv" in found
    assert any(name.startswith(f"configs/{paper}") and name.endswith(".yaml") for name in found)
    assert all((REPO / name).is_file() for name in found), found


def test_the_reads_across_papers_and_specs_are_found():
    assert "reports/reference/comer94-table1.csv" in reads("liu95db")
    assert "configs/liu95cool-tahoe.yaml" in reads("liu95cool")
    assert "configs/liu95db.yaml" in reads("liu95db")


def test_a_name_in_the_source_is_kept_even_when_missing(tmp_path):
    source = tmp_path / "r.Rmd"
    source.write_text('x <- read_csv("reference/none-claims.csv")\ny <- file.path("..", "configs", "none.yaml")\n')
    assert report_reads(tmp_path, source) == [tmp_path / "configs/none.yaml", tmp_path / "reports/reference/none-claims.csv"]
