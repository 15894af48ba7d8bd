"""Every result matches its settings: the settings each run folder must have been measured under.

Each run's provenance holds the settings hash it was measured under (netrepro.experiment
.settings_hash; for a sweep, each point's), and each finished run folder holds one file named by
it, settings-<hash>.json (write_marker), which is what the workflow's measure rule makes. When an
experiment's settings change, the file the workflow asks for has another name, so the run is
measured again, though Snakemake's own records (.snakemake) are gone; the run replaces its old
file, so settings changed back later measure it again too. Deciding this reads the runs and
writes nothing: `snakemake -n` leaves the tree as it was. The aggregator then refuses a run
whose provenance names other settings (check_runs), and joins another backend's runs only when
the workflow declared them (other_backend_runs).
"""
from __future__ import annotations

import json
from pathlib import Path

from netrepro.atomic import write_text
from netrepro.errors import RunError
from netrepro.experiment import Experiment, at_point, settings_hash

MARKER_PREFIX = "settings-"
# What an experiment's trials share (netrepro.tools: prepare), beside its run folders.
PREPARED_PREFIX = "prepared-"


def expected_hash(experiment: Experiment, run: Path) -> str:
    """The settings hash a run folder's provenance must hold: its sweep point's (a `point-K`
    part of its path) or the experiment's."""
    points = [part for part in run.parts if part.startswith("point-") and part[6:].isdigit()]
    if experiment.sweep is not None and points:
        return settings_hash(at_point(experiment, int(points[-1][6:])))
    return settings_hash(experiment)


def marker(experiment: Experiment, run: Path) -> Path:
    """The file a run folder holds once finished under the experiment's settings now (its sweep
    point's, for a point's folder)."""
    return run / f"{MARKER_PREFIX}{expected_hash(experiment, run)}.json"


def write_marker(experiment: Experiment, run: Path) -> Path:
    """Marks a finished run folder with the settings it was measured under, in place of any
    settings it held before."""
    path = marker(experiment, run)
    for old in run.glob(f"{MARKER_PREFIX}*.json"):
        if old != path:
            old.unlink()
    write_text(path, json.dumps({"experiment": experiment.id, "settings_hash": expected_hash(experiment, run)},
                                indent=1) + "\n")
    return path


def prepared_file(backend_dir: Path, experiment: Experiment) -> Path:
    """The file of what the experiment's trials share under its settings now, in the folder of
    its runs on one backend (runs/<profile>/<backend>)."""
    return backend_dir / f"{PREPARED_PREFIX}{settings_hash(experiment)}.json"


def drop_other_prepared(path: Path) -> None:
    """Removes the files of what was prepared under earlier settings beside path, which holds
    what the settings now give; a folder so named is no such file and stays."""
    for old in path.parent.glob(f"{PREPARED_PREFIX}*.json"):
        if old != path and not old.is_dir():
            old.unlink()


def recorded_hash(run: Path) -> str | None:
    provenance = run / "provenance.json"
    if not provenance.is_file():
        return None
    return json.loads(provenance.read_text(encoding="utf-8")).get("settings_hash")


def check_runs(experiment: Experiment, spec: Path, runs: list[Path]) -> None:
    """Raises RunError naming the first run folder measured under other settings than the
    experiment's (or its sweep point's) in the spec now."""
    for run in runs:
        want = expected_hash(experiment, run)
        have = recorded_hash(run)
        if have != want:
            raise RunError(
                f"{run / 'provenance.json'}: measured under settings {str(have)[:12]}, but experiment "
                f"{experiment.id} in {spec} now has settings {want[:12]}; its results would be labelled "
                f"with settings they were not measured under. Rerun it (the workflow measures a run "
                f"again when its settings changed) or delete the folder")


def other_backend_runs(experiment: Experiment, runs: list[str], produced: set[str]) -> list[str]:
    """The finished runs of the same experiment and profile on other backends (the folders laid
    out like runs under runs/<profile>/<backend>/) that hold the experiment's settings. Backends
    in produced, whose runs this workflow makes, are left out: declared as inputs, their runs
    would be remade under this invocation's options."""
    found: list[str] = []
    for run in runs:
        parts = Path(run).parts
        if "runs" not in parts or len(parts) < parts.index("runs") + 4:
            continue
        at = parts.index("runs") + 2
        backends = Path(*parts[:at])
        if not backends.is_dir():
            continue
        for backend in sorted(p for p in backends.iterdir() if p.is_dir() and p.name not in produced):
            candidate = backend.joinpath(*parts[at + 1:])
            if str(candidate) not in found and recorded_hash(candidate) == expected_hash(experiment, candidate):
                found.append(str(candidate))
    return found
