"""Fault injection: SIGTERM, SIGHUP and SIGKILL at a random point of an emulated smoke trial and
of a virtual-time job, then a rerun. Afterwards no namespace, veth, tool process or temporary
file of the jobs is left, a trial finished before is intact, and the rerun completes.

Emulated: needs root and Mininet.
Every process of a job carries FAULT_MARK in its environment (Mininet's processes inherit it),
so what is left of it is found without guessing at names.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from netrepro.cleanup import marked_processes
from tests.conftest import needs_root_and_mininet

REPO = Path(__file__).resolve().parent.parent
FAULT_MARK = "NETREPRO_FAULT_TEST"
# How soon after a job ends its processes must be gone: those killed by SIGKILL of their job
# (prctl's parent-death signal) are reaped by init, not by the job.
CLEANUP_GRACE_S = 1.0
SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGKILL)
# (spec, experiment, longest random delay before the signal in s; a smoke trial takes ~11 s
# emulated, ~1 s in virtual time)
EMULATED = ("liu95cool.yaml", "lan-512b", 9.0)
VIRTUAL = ("liu95db.yaml", "lan-512b", 1.0)


def machine_state() -> dict[str, set[str]]:
    """What a run could leave outside its processes: named network namespaces, and links (veths)
    of this namespace. Anonymous namespaces (Mininet's) live only as long as a process in them,
    which left_processes finds."""
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    return {"netns": set(netns.split()),
            "links": {line.split(":")[1].strip().split("@")[0] for line in links.splitlines()}}


def left_processes(mark: str) -> list[str]:
    """The processes of the jobs marked with mark still there, with their command lines."""
    leftover = []
    for pid, value in marked_processes(FAULT_MARK).items():
        if value == mark:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            leftover.append(f"{pid} {cmdline}")
    return leftover


def wait_no_processes(mark: str, wait_s: float = 10.0) -> list[str]:
    deadline = time.monotonic() + wait_s
    while (left := left_processes(mark)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def job(spec: str, experiment: str, out: Path, mark: str, tmp: Path) -> subprocess.Popen[str]:
    env = {**os.environ, FAULT_MARK: mark, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-m", "netrepro.measure", "--spec", str(REPO / "configs" / spec), "--experiment",
         experiment, "--trial", "1", "--out", str(out), "--profile", "smoke"],
        cwd=out.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (folder / "records.jsonl",
                                                                          folder / "provenance.json")}


def assert_complete(folder: Path) -> None:
    provenance = json.loads((folder / "provenance.json").read_text())
    assert provenance["finished_at"]
    rows = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
    assert rows


def kill_and_rerun(case: tuple[str, str, float], tmp_path: Path) -> None:
    spec, experiment, longest = case
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    before = machine_state()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    finished = tmp_path / "finished"
    mark = uuid.uuid4().hex
    done = job(spec, experiment, finished, mark, tmp)
    _, errors = done.communicate(timeout=120)
    assert done.returncode == 0, errors
    kept = digest(finished)
    for signum in SIGNALS:
        out = tmp_path / f"killed-{signal.Signals(signum).name}"
        delay = rng.uniform(0.1, longest)
        where = f"seed {seed}: {experiment} {signal.Signals(signum).name} after {delay:.2f} s"
        process = job(spec, experiment, out, mark, tmp)
        time.sleep(delay)
        process.send_signal(signum)
        _, errors = process.communicate(timeout=120)
        if signum != signal.SIGKILL:
            # 0: it finished first; -signum: the signal came while Python started, before the
            # job had started anything or set its handlers (what is left is checked below).
            assert process.returncode in (0, 128 + signum, -signum), f"{where}: {errors}"
            assert "Traceback" not in errors, where
        # At once: left alone, a killed trial's tools end within seconds as their namespaces'
        # veths go, after having run on as root meanwhile.
        assert wait_no_processes(mark, CLEANUP_GRACE_S) == [], f"{where}: left running"
        again = job(spec, experiment, out, mark, tmp)
        _, errors = again.communicate(timeout=120)
        assert again.returncode == 0, f"{where}, rerun: {errors}"
        assert_complete(out)
        assert not list(out.rglob(".*.tmp")), where
    assert wait_no_processes(mark) == []
    assert digest(finished) == kept
    after = machine_state()
    assert after["netns"] == before["netns"]
    assert after["links"] <= before["links"], after["links"] - before["links"]
    assert not list(tmp.iterdir()), "temporary files left"


def test_virtual_time_job_killed_and_rerun(tmp_path: Path) -> None:
    kill_and_rerun(VIRTUAL, tmp_path)


@needs_root_and_mininet()
def test_emulated_trial_killed_and_rerun(tmp_path: Path) -> None:
    kill_and_rerun(EMULATED, tmp_path)
