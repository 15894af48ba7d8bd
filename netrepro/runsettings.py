"""Every result matches its settings: the settings each run folder must have been measured under.

The workflow writes results/<paper>/<experiment>/runs/<profile>/settings.json (write_settings)
whenever an experiment's settings hash (netrepro.experiment.settings_hash; for a sweep, each point's)
changes, and every measure rule takes it as an input: a changed spec reruns the experiment's
runs even when Snakemake's own records (.snakemake) are gone. The aggregator then refuses a run
whose provenance names other settings (check_runs), and joins another backend's runs only when
the workflow declared them (other_backend_runs).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from netrepro.atomic import write_text
from netrepro.errors import RunError
from netrepro.experiment import Experiment, at_point, settings_hash

SETTINGS_FILE = "settings.json"


def expected_hash(experiment: Experiment, run: Path) -> str:
    """The settings hash a run folder's provenance must hold: its sweep point's (a `point-K`
    part of its path) or the experiment's."""
    points = [part for part in run.parts if part.startswith("point-") and part[6:].isdigit()]
    if experiment.sweep is not None and points:
        return settings_hash(at_point(experiment, int(points[-1][6:])))
    return settings_hash(experiment)


def settings_record(experiment: Experiment) -> dict[str, object]:
    record: dict[str, object] = {"experiment": experiment.id, "settings_hash": settings_hash(experiment)}
    if experiment.sweep is not None:
        record["points"] = [settings_hash(at_point(experiment, k)) for k in range(1, len(experiment.sweep.points()) + 1)]
    return record


def write_settings(path: Path, experiment: Experiment) -> bool:
    """Writes the experiment's settings to path (runs/<profile>/settings.json) unless it already
    holds them, so its time changes exactly when the settings do; returns whether it wrote. It
    is dated 1970 when every run already under runs/<profile>/ holds the settings written (a
    first file; settings changed back before anything ran), so only runs that need it rerun."""
    text = json.dumps(settings_record(experiment), indent=1) + "\n"
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    write_text(path, text)
    runs = [p.parent for p in path.parent.glob("*/**/provenance.json")]
    if all(recorded_hash(run) == expected_hash(experiment, run) for run in runs):
        os.utime(path, (0, 0))
    return True


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
                f"with settings they were not measured under. Rerun it (the workflow reruns it once "
                f"{SETTINGS_FILE} is rewritten) or delete the folder")


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
