"""No write follows a link (issue 32): each test plants a symbolic link (or a hard link) where
netrepro, Snakemake or a tool writes as root, and checks that the write is refused with the
path named and the link's target left as it was."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from netrepro.atomic import write_text
from netrepro.backends.linkemu import LinkemuBackend
from netrepro.errors import RunError
from netrepro.linkspec import link_from_dict
from netrepro.runsettings import marker
from netrepro.safepath import open_for_write
from netrepro.spec import load_spec

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "tools" / "bin"
KEPT = "the link's target, kept\n"


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "elsewhere" / "precious"
    path.parent.mkdir()
    path.write_text(KEPT)
    return path


def link(at: Path, to: Path) -> Path:
    at.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(to, at)
    return at


def test_a_result_written_atomically_refuses_a_link_and_keeps_its_target(tmp_path, target, monkeypatch):
    monkeypatch.chdir(tmp_path)
    records = link(tmp_path / "results/p/e/runs/quick/sim/trial-1/records.jsonl", target)
    with pytest.raises(RunError, match="trial-1/records.jsonl is a symbolic link"):
        write_text(records.relative_to(tmp_path), "{}\n")
    assert target.read_text() == KEPT


def test_a_log_opened_for_writing_refuses_a_link_and_a_hard_link(tmp_path, target, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RunError, match="logs/a.log is a symbolic link"):
        open_for_write(link(tmp_path / "logs/a.log", target).relative_to(tmp_path))
    os.link(target, tmp_path / "logs/b.log")
    with pytest.raises(RunError, match="logs/b.log has other hard links"):
        open_for_write(Path("logs/b.log"))
    assert target.read_text() == KEPT


def test_linkemu_stderr_is_not_written_through_a_link(tmp_path, target):
    """linkemu's log in an emulated run's logs/ folder: the link is refused before linkemu starts."""
    class Node:
        name = "mid"

        def popen(self, args, **kwargs):
            if args[0] != "ethtool":
                raise AssertionError(f"started {args[0]} with its stderr through a link")
            return subprocess.Popen(["true"], **kwargs)

    logs = tmp_path / "trial-1" / "logs"
    link(logs / "linkemu.stderr", target)
    lk = link_from_dict("l", {"framing": "ethernet", "mtu": "1500B", "rate": "10Mbit", "queue": {"packets": 50}})
    with pytest.raises(RunError, match="linkemu.stderr is a symbolic link"):
        LinkemuBackend().start(Node(), "a", "b", lk, logs)
    assert target.read_text() == KEPT


def test_an_mftp_run_in_virtual_time_does_not_write_its_file_through_a_link(tmp_path, target):
    """netsim writes the file mftp fetches (point-N/files/src.bin) as root; a link there once
    had the link's target overwritten with 256 KB."""
    out = tmp_path / "trial-1"
    link(out / "point-1" / "files" / "src.bin", target)
    done = subprocess.run(
        [sys.executable, "-m", "netrepro.measure", "--spec", str(REPO / "configs" / "ishikura.yaml"),
         "--experiment", "fig6", "--trial", "1", "--profile", "smoke", "--backend", "sim", "--out", str(out),
         "--point", "all"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert f"{out}/point-1/files/src.bin failed: it is a symbolic link" in done.stderr, done.stderr
    assert target.read_text() == KEPT


@pytest.mark.parametrize("flag, name", [("--pcap", "capture.pcap")])
def test_netsim_does_not_write_a_capture_through_a_link(tmp_path, target, flag, name):
    capture = link(tmp_path / name, target)
    done = subprocess.run(
        [str(BIN / "netsim"), "--app", "pingx", "--rate", "10Mbit", flag, str(capture), "--no-wall", "--",
         "--mode", "udp", "--sizes", "1K", "--count", "1", "--", "--proto", "udp"],
        capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "it is a symbolic link" in done.stderr, done.stderr
    assert target.read_text() == KEPT


def test_a_results_folder_that_is_a_link_is_refused_before_snakemake_deletes_anything(tmp_path):
    """results/ a link to another tree holding a run Snakemake would redo: once, Snakemake
    deleted that run's old output before the job refused the link. Now the workflow stops as
    it is read, and writes nothing."""
    spec = REPO / "configs" / "liu95db.yaml"
    experiment = load_spec(spec, {"profile": "smoke", "backend": "sim"}).experiments["lan-512b"]
    other = tmp_path / "other-tree"
    runs = other / "liu95db/lan-512b/runs/smoke"
    half_done = runs / "sim/trial-1/provenance.json"
    half_done.parent.mkdir(parents=True)
    half_done.write_text(json.dumps({"settings_hash": "from another run"}) + "\n")
    before = sorted((p.relative_to(other), p.read_bytes()) for p in other.rglob("*") if p.is_file())
    work = tmp_path / "work"
    work.mkdir()
    os.symlink(other, work / "results")
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--cores", "1",
         "--configfile", str(spec), "--config", "profile=smoke", "backend=sim", "--directory", str(work),
         str(marker(experiment, Path("results/liu95db/lan-512b/runs/smoke/sim/trial-1")))],
        capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "netrepro: results is a symbolic link" in done.stderr, done.stderr
    assert sorted((p.relative_to(other), p.read_bytes()) for p in other.rglob("*") if p.is_file()) == before
    assert not (work / "logs").exists()


def test_a_link_deep_in_the_papers_results_is_refused_too(tmp_path):
    work = tmp_path / "work"
    (work / "results/liu95db").mkdir(parents=True)
    os.symlink(tmp_path, work / "results/liu95db/lan-512b")
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "-n",
         "--configfile", str(REPO / "configs" / "liu95db.yaml"), "--directory", str(work)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "netrepro: results/liu95db/lan-512b is a symbolic link" in done.stderr, done.stderr
