"""pingx's pacing: liu95db's Fig 12 program set alarm(1) again in its SIGALRM handler, so its
experiments run pingx --pacing alarm; every other experiment keeps the grid; and the host models of the era say how often their clocks tick."""
from dataclasses import replace
from pathlib import Path

from netrepro import hostmodel
from netrepro.experiment import settings_hash
from netrepro.spec import load_spec
from netrepro.tools import pingx

REPO = Path(__file__).resolve().parent.parent
SPEC = REPO / "configs" / "liu95db.yaml"
HOSTS = REPO / "configs" / "hosts"


def paper():
    return load_spec(SPEC, {"profile": "paper", "backend": "sim"})


def test_fig12_runs_on_alarms_and_the_rest_on_the_grid():
    experiments = paper().experiments
    for name in ("atm-8k", "ethernet-8k"):
        argv = pingx.pingx_argv(experiments[name], "tcp", 1)
        assert argv[argv.index("--pacing") + 1] == "alarm"
    assert experiments["atm-nodelay"].settings.pacing == "grid"
    assert "--pacing" not in pingx.pingx_argv(experiments["atm-nodelay"], "tcp", 1)


def test_pacing_is_part_of_the_settings_hash():
    experiment = paper().experiments["atm-nodelay"]
    assert settings_hash(replace(experiment, settings=replace(experiment.settings, pacing="alarm"))) != settings_hash(experiment)


def test_the_eras_hosts_tick_at_100_hz_and_the_modern_one_does_not_say():
    for path in HOSTS.glob("*.yaml"):
        if hostmodel.is_part(path):
            continue
        model = hostmodel.values(path)
        if path.stem == "modern":
            assert "clock_hz" not in model
        else:
            assert model["clock_hz"] == 100, path.name
