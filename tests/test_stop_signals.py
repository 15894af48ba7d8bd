"""Stopping Snakemake stops the run (issue 32). The default profile runs jobs in Snakemake's
threads, which its signals never reached: SIGTERM and SIGINT waited for the running trial to
finish, and SIGHUP killed Snakemake and left measure, linkemu, echod and pingx running as root
under PID 1. Each test starts Snakemake on a trial, sends it the signal while the trial runs,
and checks that within STOP_S Snakemake has exited and no process of the run (so none of
Mininet's namespaces), veth or temporary file is left; that a trial finished before is intact;
and that the next run completes.

Emulated (Mininet): needs root. To keep `make test` short it runs each signal once: SIGTERM
and SIGINT in virtual time, SIGHUP (the one that left root processes behind) emulated; `make
bench-faults` runs every signal on both (NETREPRO_ALL_FAULTS=1).
"""
from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from netrepro.backends import resolve_backend_name
from netrepro.cleanup import VETH_PAIRS
from netrepro.runsettings import marker
from netrepro.spec import load_spec
from tests.conftest import needs_root_and_mininet
from tests.test_faults import FAULT_MARK, left_processes, machine_state

REPO = Path(__file__).resolve().parent.parent
STOP_S = 10.0
OUR_VETHS = {name for pair in VETH_PAIRS for name in pair}
ALL = os.environ.get("NETREPRO_ALL_FAULTS") == "1"
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# A virtual-time trial of a few seconds (eight 1 GB ttcp transfers on two Tahoe stacks; two
# take about a second, too close to the signal's delay), and a short one that is finished
# before the signal comes.
VIRTUAL_SPEC = """\
paper: stop-signals
title: Virtual-time trials long enough to be stopped half way
profiles:
  quick: {trials: 1, transfers: 8, transfer: 1024M}
defaults:
  tool: ttcp
  link: atm-taxi-100
  stack: tahoe
  host: sparcstation-ipc
  backend: sim
  ttcp: {send_buffers: [52428B], receive_buffers: [52428B], pause: 0ms}
experiments:
  long: {}
  short: {profiles: {quick: {transfers: 1, transfer: 1M}}}
"""


def snakemake_argv(spec: Path, work: Path, target: str, *config: str) -> list[str]:
    return [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--cores", "1",
            "--configfile", str(spec), "--directory", str(work), target, *(["--config", *config] if config else [])]


def as_at_a_terminal() -> None:
    """A shell starts its background jobs with SIGINT ignored, and Snakemake leaves an ignored
    signal ignored (netrepro.jobs), so a test suite started in the background would find SIGINT
    without effect; Ctrl-C at a terminal finds it at its default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(argv: list[str], mark: str, tmp: Path) -> subprocess.Popen[str]:
    env = {**os.environ, FAULT_MARK: mark, "TMPDIR": str(tmp)}
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=as_at_a_terminal)


def run(argv: list[str], mark: str, tmp: Path) -> None:
    process = start(argv, mark, tmp)
    output, _ = process.communicate(timeout=300)
    assert process.returncode == 0, output[-3000:]


def wait_for(mark: str, word: str, process: subprocess.Popen[str], wait_s: float = 120) -> None:
    """Until a process of the run whose command line holds word is running."""
    deadline = time.monotonic() + wait_s
    while not any(word in line for line in left_processes(mark)):
        assert process.poll() is None, f"snakemake ended before {word} ran: {process.communicate()[0][-3000:]}"
        assert time.monotonic() < deadline, f"{word} did not start"
        time.sleep(0.05)


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def stop_half_way(argv: list[str], signum: int, mark: str, tmp: Path, running: str, delay_s: float) -> str:
    """Starts snakemake, signals it delay_s after `running` shows, and checks that the run is
    over within STOP_S; returns snakemake's output."""
    before = machine_state()
    process = start(argv, mark, tmp)
    wait_for(mark, running, process)
    time.sleep(delay_s)
    # Snakemake outlives the trial by its bookkeeping, so the trial itself must still run: its
    # measure process, as `running` may be between two of its runs (pingx runs once a mode).
    assert any("netrepro.measure" in line for line in left_processes(mark)), \
        "the trial ended before the signal: lengthen it"
    process.send_signal(signum)
    sent = time.monotonic()
    try:
        output, _ = process.communicate(timeout=STOP_S)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        raise AssertionError(f"snakemake still ran {STOP_S} s after {signal.Signals(signum).name}: {output[-3000:]}")
    while (left := left_processes(mark)) and time.monotonic() - sent < STOP_S:
        time.sleep(0.05)
    name = signal.Signals(signum).name
    assert left == [], f"{name}: left running {STOP_S} s after the signal: {left}"
    assert process.returncode != 0, f"{name}: snakemake finished as if nothing happened: {output[-3000:]}"
    assert "Traceback" not in output, output[-3000:]
    # Mininet's namespaces are anonymous, alive only while a process of the run holds one (none
    # is left, above). Of links, only the topology's veths are judged: other work on the machine
    # (the Tahoe stack's own tests) may add links and named namespaces of its own meanwhile.
    after = machine_state()
    assert not (after["links"] - before["links"]) & OUR_VETHS, after["links"] - before["links"]
    return output


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_to_snakemake_stops_a_virtual_time_trial_and_the_next_run_completes(signum, tmp_path):
    if signum == signal.SIGHUP and not ALL:
        pytest.skip("make test runs SIGHUP emulated (the others in virtual time); make bench-faults runs all")
    spec = tmp_path / "stop-signals.yaml"
    spec.write_text(VIRTUAL_SPEC)
    work, tmp = tmp_path / "work", tmp_path / "tmp"
    tmp.mkdir()
    runs = "results/stop-signals/{}/runs/quick/sim/trial-1/send-52428"
    mark = uuid.uuid4().hex
    # What the workflow makes of each run: its settings file (netrepro.runsettings), written last.
    loaded = load_spec(spec).experiments
    short, long = (str(marker(loaded[name], Path(runs.format(name)))) for name in ("short", "long"))
    # The short trial first (--prioritize), finished in the run the signal then stops.
    argv = [*snakemake_argv(spec, work, long), short, "--prioritize", short]
    stop_half_way(argv, signum, mark, tmp, "--experiment long", random.uniform(0.3, 0.9))
    kept = digest(work / runs.format("short"))
    assert kept and (work / short).is_file()
    assert not list((work / "results").rglob(".*.tmp"))
    assert not (work / long).exists()
    run(argv, mark, tmp)
    assert (work / long).is_file()
    assert digest(work / runs.format("short")) == kept
    assert left_processes(mark) == [] and not list(tmp.iterdir())


@needs_root_and_mininet()
@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_to_snakemake_stops_an_emulated_trial_and_the_next_run_completes(signum, tmp_path):
    if signum != signal.SIGHUP and not ALL:
        pytest.skip("make test runs SIGHUP emulated (the others in virtual time); make bench-faults runs all")
    work, tmp = tmp_path / "work", tmp_path / "tmp"
    tmp.mkdir()
    spec = REPO / "configs" / "liu95cool.yaml"
    folder = Path(f"results/liu95cool/lan-512b/runs/smoke/{resolve_backend_name('auto')}/trial-1")
    trial = str(marker(load_spec(spec, {"profile": "smoke"}).experiments["lan-512b"], folder))
    argv = snakemake_argv(spec, work, trial, "profile=smoke")
    mark = uuid.uuid4().hex
    # pingx runs once Mininet, the link and echod are up: the signal comes in mid-measurement
    # (a smoke trial's four pingx runs take 2 to 3 s).
    stop_half_way(argv, signum, mark, tmp, "pingx", random.uniform(0.1, 0.6))
    assert not (work / trial).exists(), "the trial ran to its end after the signal"
    assert not list(work.rglob(".*.tmp"))
    run(argv, mark, tmp)
    assert (work / trial).is_file()
    assert left_processes(mark) == [] and not list(tmp.iterdir())
