"""Every result matches its settings: the file that marks a finished run with its settings."""
import json
from dataclasses import replace
from pathlib import Path

from netrepro.experiment import at_point, settings_hash
from netrepro.runsettings import drop_other_prepared, expected_hash, marker, write_marker
from netrepro.spec import load_spec
from tests.test_spec import SPEC

ISHIKURA = SPEC.parent / "ishikura.yaml"
COMER = SPEC.parent / "comer94.yaml"


def finished_run(folder: Path, settings: str) -> None:
    folder.mkdir(parents=True)
    (folder / "provenance.json").write_text(json.dumps({"settings_hash": settings}))


def test_a_finished_run_is_marked_with_its_settings_alone(tmp_path):
    experiment = load_spec(SPEC).experiments["lan-large"]
    run = tmp_path / "runs/quick/htb/trial-1"
    finished_run(run, settings_hash(experiment))
    assert marker(experiment, run).name == f"settings-{settings_hash(experiment)}.json"
    assert write_marker(experiment, run) == marker(experiment, run)
    assert json.loads(marker(experiment, run).read_text())["settings_hash"] == settings_hash(experiment)
    changed = replace(experiment, settings=replace(experiment.settings, echoes=experiment.settings.echoes + 1))
    assert marker(changed, run) != marker(experiment, run), "other settings ask for another file"
    write_marker(changed, run)
    assert [p.name for p in run.glob("settings-*.json")] == [marker(changed, run).name]


def test_a_sweep_points_folder_is_marked_with_its_points_settings(tmp_path):
    experiment = load_spec(ISHIKURA).experiments["fig6"]
    point = tmp_path / "runs/quick/sim/trial-1/point-2"
    assert marker(experiment, point).name == f"settings-{settings_hash(at_point(experiment, 2))}.json"
    assert marker(experiment, point.parent).name == f"settings-{settings_hash(experiment)}.json"


def test_each_sweep_point_has_its_own_settings():
    experiment = load_spec(ISHIKURA).experiments["fig6"]
    first = expected_hash(experiment, Path("runs/quick/sim/trial-1/point-1"))
    second = expected_hash(experiment, Path("runs/quick/sim/trial-1/point-2"))
    assert first == settings_hash(at_point(experiment, 1)) and second == settings_hash(at_point(experiment, 2))
    assert first != second


def test_the_hash_follows_the_host_models_contents_not_its_path(tmp_path):
    experiment = load_spec(COMER).experiments["table1"]
    assert experiment.host_model is not None
    (tmp_path / "hosts").mkdir()
    copy = tmp_path / "hosts" / experiment.host_model.name
    copy.write_bytes(experiment.host_model.read_bytes())
    assert settings_hash(replace(experiment, host_model=copy)) == settings_hash(experiment)
    copy.write_bytes(experiment.host_model.read_bytes() + b"# a note\n")
    assert settings_hash(replace(experiment, host_model=copy)) == settings_hash(experiment)
    copy.write_bytes(experiment.host_model.read_bytes().replace(b"\nper_packet_ns:", b"\nper_packet_ns: 1\n#"))
    assert settings_hash(replace(experiment, host_model=copy)) != settings_hash(experiment)


def test_dropping_earlier_prepared_files_keeps_the_new_one_and_leaves_folders(tmp_path):
    new = tmp_path / "prepared-new.json"
    for name in ("prepared-new.json", "prepared-old.json", "settings-x.json"):
        (tmp_path / name).write_text("{}")
    (tmp_path / "prepared-folder.json").mkdir()
    drop_other_prepared(new)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prepared-folder.json", "prepared-new.json", "settings-x.json"]
