"""The project carries over the papers' facts and figures, never their sentences: no text of
ours repeats a run of the papers' prose (their titles and lists of sizes aside)."""
import csv
import os
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAPERS = Path(os.environ.get("NETREPRO_PAPERS", REPO.parent / "shared" / "papers"))
RUN = 8  # words in a row that make a repeated passage
OURS = ["reports/reference/*.csv", "reports/*.Rmd", "reports/R/*.R", "configs/**/*.yaml",
        "README.md", "docs/*.md", "netrepro/*.py"]


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def is_prose(run: tuple[str, ...]) -> bool:
    """A run of mostly words, not a list of sizes, buffers or a formula."""
    return sum(1 for w in run if w.isalpha() and len(w) > 1) >= RUN - 2


def runs_of(tokens: list[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + RUN]) for i in range(len(tokens) - RUN + 1)}


def titles() -> set[tuple[str, ...]]:
    with open(REPO / "reports" / "reference" / "papers.csv", newline="") as f:
        return set().union(*(runs_of(words(row["title"])) for row in csv.DictReader(f)))


def repeated_passages(paper_runs: set[tuple[str, ...]]) -> list[str]:
    allowed = titles()
    found = []
    for pattern in OURS:
        for path in sorted(REPO.glob(pattern)):
            if path.name == "inventory.md":  # the project's inventory, written from INVENTORY.md
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                shared = sorted(r for r in runs_of(words(line)) & paper_runs if r not in allowed)
                if shared:
                    found.append(f"{path.relative_to(REPO)}:{number}: {' '.join(shared[0])}")
    return found


@pytest.mark.skipif(not any(PAPERS.glob("*.txt")), reason=f"no paper texts in {PAPERS} (set NETREPRO_PAPERS)")
def test_no_text_of_ours_repeats_the_papers_prose():
    paper_runs = set()
    for paper in PAPERS.glob("*.txt"):
        paper_runs |= {r for r in runs_of(words(paper.read_text(errors="replace"))) if is_prose(r)}
    assert repeated_passages(paper_runs) == []


def test_a_copied_sentence_is_found(tmp_path, monkeypatch):
    sentence = "the quick brown fox jumps over the lazy dog near the river bank"
    (tmp_path / "README.md").write_text(f"intro\nAs they wrote, {sentence.upper()}.\n")
    (tmp_path / "reports" / "reference").mkdir(parents=True)
    (tmp_path / "reports" / "reference" / "papers.csv").write_text("id,title\nx,A Title\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    found = repeated_passages({r for r in runs_of(words(sentence)) if is_prose(r)})
    assert found == ["README.md:2: brown fox jumps over the lazy dog near"]
