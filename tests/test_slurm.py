"""The same spec through a real Slurm (envs/slurm.sh, a one-node cluster on this machine) and
locally gives byte-identical records; the provenance names the executor and the Slurm job; a
job Slurm cancelled is submitted again by Snakemake (profiles/slurm: retries) while the parts
that finished are kept. Needs root and slurm-wlm (envs/setup.sh): without them it fails."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SLURM_SH = REPO / "envs" / "slurm.sh"
SLURM_CONF = REPO / ".slurm" / "slurm.conf"
SPEC = REPO / "configs" / "comer94.yaml"
# Three send buffers, so three Slurm jobs: two run side by side on the 2-CPU node here.
EXPERIMENT = "table1-write1k"
TARGET = f"results/comer94/{EXPERIMENT}/results.csv"
RUNS = f"results/comer94/{EXPERIMENT}/runs/smoke/sim/trial-1"


pytestmark = pytest.mark.xdist_group("cluster")  # one worker starts the cluster (make test: -n)


def run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False, **kwargs)


def slurm_env() -> dict[str, str]:
    return {**os.environ, "SLURM_CONF": str(SLURM_CONF)}


def local_env() -> dict[str, str]:
    """As if not inside any Slurm job, even when pytest runs in one."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SLURMD_"))}


@pytest.fixture(scope="module")
def cluster():
    if os.geteuid() != 0:
        pytest.fail("the Slurm test needs root: slurmd and munged run as system daemons (envs/slurm.sh)")
    started = run(["bash", str(SLURM_SH), "start"])
    if started.returncode != 0:
        pytest.fail(f"could not start the local Slurm cluster (envs/slurm.sh start; run envs/setup.sh "
                    f"to install slurm-wlm and munge): {started.stdout}{started.stderr}")
    yield
    stopped = run(["bash", str(SLURM_SH), "stop"])
    assert stopped.returncode == 0, stopped.stderr
    # Left behind, the link would make every later snakemake wait 9 s on the stopped controller.
    etc_conf = Path("/etc/slurm/slurm.conf")
    assert not (etc_conf.is_symlink() and Path(os.readlink(etc_conf)) == SLURM_CONF)


def snakemake(workdir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"),
            "--directory", str(workdir), "--configfile", str(SPEC),
            "--config", "profile=smoke", "backend=sim", *extra, "--", TARGET]


def scontrol_node(state: str) -> None:
    node = run(["sinfo", "-h", "-o", "%n"], env=slurm_env()).stdout.split()[0]
    done = run(["scontrol", "update", f"NodeName={node}", f"State={state}", "Reason=test_slurm"], env=slurm_env())
    assert done.returncode == 0, done.stderr


def pending_jobs() -> list[str]:
    return run(["squeue", "-h", "-t", "PENDING", "-o", "%i"], env=slurm_env()).stdout.split()


def run_through_slurm_cancelling_one(workdir: Path) -> tuple[subprocess.CompletedProcess, str]:
    """Holds the node (drained) until the three jobs wait in the queue, cancels one, then lets
    them run; returns snakemake's result and the cancelled job's id."""
    scontrol_node("DRAIN")
    process = subprocess.Popen(snakemake(workdir, "--profile", str(REPO / "profiles" / "slurm")),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=slurm_env())
    try:
        deadline = time.monotonic() + 60
        while len(pending_jobs()) < 3 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
        queued = pending_jobs()
        assert len(queued) == 3, f"expected 3 queued jobs, saw {queued}"
        cancelled = queued[0]
        assert run(["scancel", cancelled], env=slurm_env()).returncode == 0
    except BaseException:
        process.terminate()  # snakemake cancels the jobs it submitted
        process.communicate(timeout=60)
        raise
    finally:
        scontrol_node("RESUME")
    output, _ = process.communicate(timeout=240)
    return subprocess.CompletedProcess(process.args, process.returncode, output, ""), cancelled


def part_files(workdir: Path, name: str) -> dict[str, bytes]:
    return {str(p.relative_to(workdir)): p.read_bytes() for p in sorted((workdir / RUNS).glob(f"send-*/{name}"))}


def test_slurm_and_local_runs_give_the_same_records(cluster, tmp_path):
    on_slurm, local = tmp_path / "slurm", tmp_path / "local"
    done, cancelled = run_through_slurm_cancelling_one(on_slurm)
    assert done.returncode == 0, done.stdout[-4000:]
    submitted = re.findall(r"submitted with SLURM jobid (\d+)", done.stdout)
    # Three jobs, then the cancelled one again: Snakemake's retries, not a rerun of the others.
    assert len(submitted) == 4 and cancelled in submitted[:3], done.stdout[-4000:]

    here = subprocess.run(snakemake(local, "--cores", "1"), capture_output=True, text=True, timeout=240,
                          env=local_env())
    assert here.returncode == 0, here.stderr[-4000:]

    slurm_records, local_records = part_files(on_slurm, "records.jsonl"), part_files(local, "records.jsonl")
    assert len(slurm_records) == 3 and slurm_records == local_records
    assert (on_slurm / TARGET).read_bytes() == (local / TARGET).read_bytes()

    slurm_runs = [json.loads(text) for text in part_files(on_slurm, "provenance.json").values()]
    assert {p["executor"] for p in slurm_runs} == {"slurm"}
    job_ids = sorted(p["slurm_job_id"] for p in slurm_runs)
    # The two jobs that were not cancelled kept their results; the cancelled part is from its rerun.
    assert job_ids == sorted(set(submitted) - {cancelled}), (job_ids, submitted, cancelled)
    local_runs = [json.loads(text) for text in part_files(local, "provenance.json").values()]
    assert [(p["executor"], p["slurm_job_id"]) for p in local_runs] == [("local", None)] * 3

    again = subprocess.run(snakemake(on_slurm, "--profile", str(REPO / "profiles" / "slurm")),
                           capture_output=True, text=True, timeout=120, env=slurm_env())
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr


def test_provenance_names_the_slurm_job_from_the_environment(monkeypatch):
    from netrepro.provenance import executor
    monkeypatch.setenv("SLURM_JOB_ID", "42")
    monkeypatch.setenv("SLURMD_NODENAME", "lab01")
    assert executor() == {"executor": "slurm", "slurm_job_id": "42", "slurm_node": "lab01"}
    monkeypatch.delenv("SLURM_JOB_ID")
    assert executor() == {"executor": "local", "slurm_job_id": None, "slurm_node": None}
