"""Every netsim run of a plan has a wall-clock limit (netrepro.deadlines): mftp's and ipcbench's too."""
from pathlib import Path

import pytest

from netrepro import sim
from netrepro.tools import ipcbench, mftp
from netrepro.errors import RunError
from netrepro.spec import load_spec
from netrepro.experiment import at_point

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
        mftp.run(spec, experiment, 1, tmp_path / "point-1", None)
    assert given == [mftp.limit_s(experiment)] and 60 < given[0] < float("inf")


def test_an_ipcbench_run_in_netsim_has_a_time_limit(monkeypatch, tmp_path):
    spec = load_spec(CONFIGS / "milliner.yaml", {"backend": "sim"})
    experiment = next(e for e in spec.experiments.values() if e.settings and e.settings.mode == "tcp")
    given = limits_given(monkeypatch)
    with pytest.raises(RunError, match="wall-clock"):
        ipcbench.run(spec, experiment, 1, tmp_path / "trial-1", None)
    plan = experiment.settings
    assert given == [ipcbench.limit_s(experiment, plan.buffers[0], plan.sizes[0])]
    assert 60 < given[0] < float("inf")
