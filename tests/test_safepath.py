"""Root never writes through a symbolic link planted in results/ or logs/."""
import os
from pathlib import Path

import pytest

from netrepro.atomic import write_text
from netrepro.errors import RunError
from netrepro.jobs import run_logged
from netrepro.safepath import refuse_links


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    return tmp_path


def test_a_linked_folder_under_the_working_directory_is_refused(workdir):
    (workdir / "results").mkdir()
    os.symlink(workdir / "elsewhere", workdir / "results" / "comer94")
    with pytest.raises(RunError, match="results/comer94 is a symbolic link"):
        write_text(Path("results/comer94/table1/results.csv"), "x")
    assert not list((workdir / "elsewhere").iterdir())


def test_a_linked_log_file_is_refused_and_its_target_kept(workdir):
    target = workdir / "elsewhere" / "precious"
    target.write_text("keep")
    (workdir / "logs").mkdir()
    os.symlink(target, workdir / "logs" / "job.log")
    with pytest.raises(RunError, match="logs/job.log is a symbolic link"):
        run_logged(["true"], "logs/job.log")
    assert target.read_text() == "keep"


def test_plain_folders_and_files_outside_the_working_directory_pass(workdir, tmp_path_factory):
    write_text(Path("results/p/e/results.csv"), "x")
    outside = tmp_path_factory.mktemp("out") / "a.csv"
    refuse_links(outside)
    assert (workdir / "results/p/e/results.csv").read_text() == "x"
