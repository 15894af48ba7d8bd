"""Every result matches its settings: the settings file the measure rules take as input."""
import json
import os
from dataclasses import replace
from pathlib import Path

from netrepro.runsettings import expected_hash, write_settings
from netrepro.experiment import settings_hash
from netrepro.spec import load_spec
from netrepro.experiment import at_point
from tests.test_spec import SPEC

ISHIKURA = SPEC.parent / "ishikura.yaml"
COMER = SPEC.parent / "comer94.yaml"


def finished_run(folder: Path, settings: str) -> None:
    folder.mkdir(parents=True)
    (folder / "provenance.json").write_text(json.dumps({"settings_hash": settings}))


def test_the_settings_file_changes_exactly_when_the_settings_do(tmp_path):
    experiment = load_spec(SPEC).experiments["lan-large"]
    path = tmp_path / "runs/quick/settings.json"
    assert write_settings(path, experiment)
    assert json.loads(path.read_text())["settings_hash"] == settings_hash(experiment)
    os.utime(path, (1000, 1000))
    assert not write_settings(path, experiment)
    assert path.stat().st_mtime == 1000
    finished_run(path.parent / "htb/trial-1", settings_hash(experiment))
    assert write_settings(path, replace(experiment, settings=replace(experiment.settings, echoes=experiment.settings.echoes + 1)))
    assert path.stat().st_mtime > 1000
    assert write_settings(path, experiment)
    assert path.stat().st_mtime == 0, "changed back before anything ran: the run holds these settings"


def test_a_first_settings_file_is_old_only_when_every_run_already_has_its_settings(tmp_path):
    experiment = load_spec(SPEC).experiments["lan-large"]
    finished_run(tmp_path / "a/runs/quick/htb/trial-1", settings_hash(experiment))
    assert write_settings(tmp_path / "a/runs/quick/settings.json", experiment)
    assert (tmp_path / "a/runs/quick/settings.json").stat().st_mtime == 0
    finished_run(tmp_path / "b/runs/quick/htb/trial-1", "measured on another link")
    assert write_settings(tmp_path / "b/runs/quick/settings.json", experiment)
    assert (tmp_path / "b/runs/quick/settings.json").stat().st_mtime > 0


def test_each_sweep_point_has_its_own_settings():
    experiment = load_spec(ISHIKURA).experiments["fig6"]
    first = expected_hash(experiment, Path("runs/quick/sim/trial-1/point-1"))
    second = expected_hash(experiment, Path("runs/quick/sim/trial-1/point-2"))
    assert first == settings_hash(at_point(experiment, 1)) and second == settings_hash(at_point(experiment, 2))
    assert first != second


def test_the_hash_follows_the_host_models_contents_not_its_path(tmp_path):
    experiment = load_spec(COMER).experiments["table1"]
    assert experiment.host_model is not None
    copy = tmp_path / experiment.host_model.name
    copy.write_bytes(experiment.host_model.read_bytes())
    assert settings_hash(replace(experiment, host_model=copy)) == settings_hash(experiment)
    copy.write_bytes(experiment.host_model.read_bytes() + b"per_packet_ns: 1\n")
    assert settings_hash(replace(experiment, host_model=copy)) != settings_hash(experiment)
