"""netrepro.cleanup and the error paths that use it: nothing a run started outlives it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from netrepro import cleanup, measure
from netrepro.announce import wait_announced
from netrepro.errors import RunError
from netrepro.provenance import REPO
from netrepro.tools import pingx

SPEC = REPO / "configs" / "liu95cool.yaml"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def gone_soon(pid: int, wait_s: float = 5.0) -> bool:
    deadline = time.monotonic() + wait_s
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not alive(pid)


def session_process(script: str) -> subprocess.Popen[str]:
    """A Python process in a session of its own, as Mininet's mnexec -d starts a host's tools."""
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


class FakeHost:
    def __init__(self, scripts: list[str]) -> None:
        self.scripts = scripts
        self.started: list[subprocess.Popen[str]] = []

    def popen(self, argv: list[str], **_: object) -> subprocess.Popen[str]:
        self.started.append(session_process(self.scripts[len(self.started)]))
        return self.started[-1]


class FakeNet:
    def __init__(self, scripts: list[str]) -> None:
        self.h2 = FakeHost(scripts)


SERVING = "import sys, time; sys.stderr.write('echod: serving\\n'); sys.stderr.flush(); time.sleep(60)"


def test_a_stop_signal_becomes_an_exception_and_finally_blocks_run() -> None:
    # The handler found is put back, whatever it was (nohup, say, starts with SIGHUP ignored).
    before = signal.getsignal(signal.SIGHUP)
    ran = []
    with pytest.raises(cleanup.Stopped, match="SIGHUP"):
        with cleanup.signals_raise():
            try:
                os.kill(os.getpid(), signal.SIGHUP)
                time.sleep(5)
            finally:
                ran.append("finally")
    assert ran == ["finally"]
    assert signal.getsignal(signal.SIGHUP) == before


class _SignalsInDel:
    """Garbage whose __del__ receives a stop signal: Python cannot raise from there."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler runs here, inside __del__
            pass


def test_a_stop_signal_raised_where_python_drops_it_is_raised_again(capfd: pytest.CaptureFixture[str]) -> None:
    # Seen in CI: SIGHUP raised in logging's fork hook (subprocess runs it after each fork) was
    # printed as "Exception ignored" and the run went on.
    hook = sys.unraisablehook
    with pytest.raises(cleanup.Stopped, match="SIGTERM"):
        with cleanup.signals_raise():
            _SignalsInDel()
            time.sleep(5)
    assert "Traceback" not in capfd.readouterr().err
    assert sys.unraisablehook is hook


def test_measure_turns_sigterm_into_cleanup_and_exit_143(tmp_path: Path) -> None:
    """A job stopped by SIGTERM unwinds (its finally blocks run) and says why."""
    marker = tmp_path / "cleaned"
    script = (
        "import os, signal, sys, time\n"
        "from netrepro import measure\n"
        "def run_part(*args):\n"
        "    try:\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "        time.sleep(10)\n"
        "    finally:\n"
        f"        open({str(marker)!r}, 'w').write('yes')\n"
        "measure.run_part = run_part\n"
        f"sys.exit(measure.main(['--spec', {str(SPEC)!r}, '--experiment', 'lan-512b', '--trial', '1',\n"
        f"                        '--out', {str(tmp_path / 'out')!r}, '--profile', 'smoke']))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert "stopped by SIGTERM" in done.stderr
    assert "Traceback" not in done.stderr
    assert marker.read_text() == "yes"


def sigint_ignored(pid: int) -> bool:
    """Whether the process ignores SIGINT (/proc/PID/status, SigIgn)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) >> (signal.SIGINT - 1) & 1)
    raise AssertionError(f"no SigIgn line for process {pid}")


def test_sigint_while_measure_starts_ends_it_without_a_traceback() -> None:
    """A SIGINT that lands while measure is still importing its modules (about 0.4 s, before
    signals_raise takes over) ends it by the signal, without a KeyboardInterrupt traceback. The
    child starts with SIGINT ignored, as a job started in the background does, so the signal is
    sent the moment measure has taken it back, whatever the machine's load: a fixed sleep could
    land before that, or after --help was done."""
    process = subprocess.Popen([sys.executable, "-m", "netrepro.measure", "--help"], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    deadline = time.monotonic() + 30
    while sigint_ignored(process.pid):
        assert time.monotonic() < deadline, "measure never took SIGINT back"
        time.sleep(0.001)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == -signal.SIGINT
    assert "Traceback" not in output, output


def test_start_echods_ends_the_first_echod_when_the_second_fails() -> None:
    net = FakeNet([SERVING, "import sys; sys.stderr.write('echod: port in use\\n'); sys.exit(2)"])
    experiment = measure.load_spec(SPEC, {"profile": "smoke"}).experiments["lan-512b"]
    with pytest.raises(RunError, match="echod \\(cooled\\)"):
        pingx.start_echods(net, experiment, (), seed=1)
    assert len(net.h2.started) == 2
    assert gone_soon(net.h2.started[0].pid)


def test_wait_announced_ends_the_process_it_gave_up_on() -> None:
    process = session_process("import time; time.sleep(60)")
    with pytest.raises(RunError, match="did not start within 0.3 s"):
        wait_announced(process, "echod: serving", "echod", timeout_s=0.3)
    assert gone_soon(process.pid)


def test_stop_echod_that_hangs_is_killed_with_a_run_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pingx, "ECHOD_STOP_S", 0.5)
    process = session_process("import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                              "print('ignoring', file=sys.stderr, flush=True); time.sleep(60)")
    assert process.stderr.readline() == "ignoring\n"
    started = time.monotonic()
    with pytest.raises(RunError, match="echod did not finish within"):
        pingx.stop_echod(process)
    assert time.monotonic() - started < 10
    assert gone_soon(process.pid)


def test_link_check_ping_that_hangs_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    from netrepro import linkcheck

    monkeypatch.setattr(linkcheck, "PING_LIMIT_S", 0.5)

    class Host:
        name = "h1"
        started: list[subprocess.Popen[str]] = []

        def popen(self, argv: list[str], **_: object) -> subprocess.Popen[str]:
            self.started.append(session_process("import time; time.sleep(60)"))
            return self.started[-1]

    host = Host()
    started = time.monotonic()
    with pytest.raises(RunError, match="ping 10.0.0.2 from h1 did not finish"):
        linkcheck.measure_rtt_ms(host, "10.0.0.2")
    assert time.monotonic() - started < 10
    assert gone_soon(host.started[0].pid)


def test_netsim_dies_with_a_job_killed_by_sigkill(tmp_path: Path) -> None:
    """run_netsim's child does not run on after its job is SIGKILLed (sleep stands in for netsim)."""
    pid_file = tmp_path / "child"
    script = (
        "import subprocess, threading, time\n"
        "from netrepro import sim\n"
        "real = subprocess.run\n"
        "def run(args, **kw):\n"
        "    process = subprocess.Popen(args, preexec_fn=kw.get('preexec_fn'))\n"
        f"    open({str(pid_file)!r}, 'w').write(str(process.pid))\n"
        "    process.wait()\n"
        "sim.subprocess.run = run\n"
        "sim.run_netsim(['/bin/sleep', '60'])\n"
    )
    job = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": str(REPO)})
    deadline = time.monotonic() + 20
    while not (pid_file.is_file() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.02)
    child = int(pid_file.read_text())
    assert alive(child)
    job.kill()
    job.wait()
    killed = gone_soon(child)
    if not killed:
        os.kill(child, signal.SIGKILL)
    assert killed


def test_sim_pingx_runs_have_a_limit_from_the_plan(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from netrepro import sim

    limits = []

    def fake(command: list[str], timeout_s: float | None = None) -> sim.SimResult:
        limits.append(timeout_s)
        raise sim.SimError("stop here")

    monkeypatch.setattr(sim, "run_netsim", fake)
    spec = measure.load_spec(SPEC, {"profile": "smoke", "backend": "sim"})
    experiment = spec.experiments["lan-512b"]
    with pytest.raises(RunError):
        pingx.run_sim(spec, experiment, 1, tmp_path, None)
    # The limit of the plan's work in virtual time (netrepro.deadlines), not of its timeouts.
    assert limits == [pingx.sim_limit_s(experiment)]
    assert limits[0] < 24 * 3600


def test_process_groups_kill_a_whole_group() -> None:
    groups = cleanup.ProcessGroups()
    leader = groups.add(session_process(
        "import subprocess, sys, time; c = subprocess.Popen(['sleep', '60']); print(c.pid, flush=True); "
        "time.sleep(60)"))
    child = int(leader.stdout.readline())
    groups.end_all()
    assert gone_soon(leader.pid) and gone_soon(child)


def test_sweep_kills_only_processes_of_another_run(tmp_path: Path) -> None:
    mark = f"NETREPRO_TEST_{os.getpid()}"
    stale = subprocess.Popen(["sleep", "60"], env={**os.environ, mark: "earlier-run"})
    ours = subprocess.Popen(["sleep", "60"], env={**os.environ, mark: "this-run"})
    other = subprocess.Popen(["sleep", "60"])
    try:
        time.sleep(0.1)
        assert cleanup.stale_processes("this-run", mark) == [stale.pid]
        cleanup.kill_and_wait(cleanup.stale_processes("this-run", mark))
        stale.wait(timeout=5)
        assert ours.poll() is None and other.poll() is None
    finally:
        for process in (stale, ours, other):
            process.kill()
            process.wait()


def test_emulation_session_marks_its_processes_and_releases_the_lock(tmp_path: Path) -> None:
    mark = f"NETREPRO_TEST_{os.getpid()}"
    lock = tmp_path / "lock"
    with cleanup.emulation_session(lock, mark):
        value = os.environ[mark]
        child = subprocess.run([sys.executable, "-c", f"import os; print(os.environ[{mark!r}])"],
                               capture_output=True, text=True, check=True)
        assert child.stdout.strip() == value
    assert mark not in os.environ
    with cleanup.emulation_session(lock, mark):  # the lock was let go
        pass


def test_remove_temp_files_leaves_results(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / ".records.jsonl.abc.tmp").write_text("half")
    (tmp_path / "logs" / ".x.tmp").write_text("half")
    (tmp_path / "records.jsonl").write_text("{}\n")
    removed = cleanup.remove_temp_files(tmp_path)
    assert len(removed) == 2
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["logs", "records.jsonl"]
