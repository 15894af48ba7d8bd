"""Every netsim run of a plan has a wall-clock limit (netrepro.deadlines): pingx's, mftp's and ipcbench's."""
from dataclasses import replace
from pathlib import Path

import pytest

from netrepro import sim
from netrepro.errors import RunError
from netrepro.experiment import at_point
from netrepro.spec import load_spec
from netrepro.tools import ipcbench, mftp, pingx

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def limits_given(monkeypatch: pytest.MonkeyPatch) -> list:
    """The time limit of each run_netsim call; each call fails as a hung netsim would."""
    given = []

    def hung(args: list[str], timeout_s: float | None = None) -> None:
        given.append(timeout_s)
        raise sim.SimError(f"netsim ran longer than {timeout_s} s of wall-clock time")

    monkeypatch.setattr(sim, "run_netsim", hung)
    return given


def test_an_mftp_session_in_netsim_has_a_time_limit(monkeypatch, tmp_path):
    spec = load_spec(CONFIGS / "ishikura.yaml", {"backend": "sim"})
    experiment = at_point(spec.experiments["fig6"], 1)
    given = limits_given(monkeypatch)
    with pytest.raises(RunError, match="wall-clock"):
        mftp.run(spec, experiment, 1, tmp_path / "point-1", None, None)
    assert given == [mftp.limit_s(experiment)] and 60 < given[0] < float("inf")


def test_an_ipcbench_run_in_netsim_has_a_time_limit(monkeypatch, tmp_path):
    spec = load_spec(CONFIGS / "milliner.yaml", {"backend": "sim"})
    experiment = next(e for e in spec.experiments.values() if e.settings and e.settings.mode == "tcp")
    given = limits_given(monkeypatch)
    with pytest.raises(RunError, match="wall-clock"):
        ipcbench.run(spec, experiment, 1, tmp_path / "trial-1", None, None)
    plan = experiment.settings
    assert given == [ipcbench.limit_s(experiment, plan.buffers[0], plan.sizes[0])]
    assert 60 < given[0] < float("inf")


def test_a_pingx_run_in_netsim_has_a_limit_from_its_work_not_its_timeouts(monkeypatch, tmp_path):
    """liu95cool-tahoe's WAN waits up to 600 s of virtual time an echo: a limit of that in wall
    time came to weeks and overflowed poll(). The limit of each mode's run is its work's, a
    stuck run ends within minutes, and a larger plan gets a longer one."""
    spec = load_spec(CONFIGS / "liu95cool-tahoe.yaml", {"backend": "sim", "profile": "paper"})
    for experiment in (e for e in spec.experiments.values() if e.tool == "pingx"):
        given = limits_given(monkeypatch)
        with pytest.raises(RunError, match="wall-clock"):
            pingx.run_sim(spec, experiment, 1, tmp_path / experiment.id, None)
        # A tuned cooling loop's echoes run first, under the limit of their own work.
        first = pingx.tune_probe(experiment) if experiment.settings.cooling_tune else experiment
        assert given == [pingx.sim_limit_s(first)], experiment.id
        assert 60 < given[0] < 15 * 60, experiment.id
    wan = spec.experiments["wan-nasa-tahoe"]
    doubled = replace(wan, settings=replace(wan.settings, echoes=2 * wan.settings.echoes))
    assert pingx.sim_limit_s(doubled) > pingx.sim_limit_s(wan)
    assert pingx.frames(wan, 8192) < pingx.frames(wan, 81920)


def test_a_netsim_past_its_limit_is_stopped_with_a_reason(tmp_path):
    stand_in = tmp_path / "netsim"
    stand_in.write_text("#!/bin/sh\nexec sleep 30\n")
    stand_in.chmod(0o755)
    with pytest.raises(sim.SimError, match="ran longer than 0 s of wall-clock time.*stuck"):
        sim.run_netsim([str(stand_in)], 0.2)
