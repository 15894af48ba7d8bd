"""The commit every result and benchmark names comes from one place: netrepro.provenance."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from netrepro import provenance


def test_git_rev_names_the_commit_git_does() -> None:
    head = subprocess.run(["git", "-C", str(provenance.REPO), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert provenance.git_rev() == head
    assert provenance.git_rev("HEAD") == head
    assert provenance.git_commit() in (head, f"{head}-dirty")


def test_a_rev_that_names_no_commit_is_unknown() -> None:
    assert provenance.git_rev("no-such-branch-or-tag") == "unknown"
    # A tree is not a commit, though git can name it.
    assert provenance.git_rev("HEAD^{tree}") == "unknown"


def test_outside_a_repository_everything_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(provenance, "REPO", tmp_path)
    assert provenance.git_rev() == "unknown"
    assert provenance.git_commit() == "unknown"
