"""What a spec resolves to: the experiments, each with the settings every tool shares and its
tool's own (netrepro.tools.<tool>.Settings), and the hash of what a run measures."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any

from netrepro import hostmodel
from netrepro.linkspec import LinkParams
from netrepro.sweep import LINK_AXES, Sweep


@dataclass(frozen=True)
class Experiment:
    paper: str
    id: str
    description: str
    mirrors: tuple[str, ...]
    network: str
    tool: str
    link_name: str
    link: LinkParams
    stack: str
    backend: str
    # Why the backend differs from the one asked for (e.g. sim asked, Linux stack emulated).
    backend_note: str
    host: str | None
    host_model: Path | None
    seed: int
    trials: int
    # The tool's own settings: a netrepro.tools.<tool>.Settings.
    settings: Any
    # The settings swept (netrepro.sweep), and the point a run measures: ((axis, value), ...).
    sweep: Sweep | None = None
    point: tuple[tuple[str, Any], ...] = ()
    # The experiment whose random draws this one shares (a variant's base; "" for its own), so
    # that a variant differs from its base only by the assumption it moves.
    draws_as: str = ""

    @property
    def draws_id(self) -> str:
        """The id the experiment's seeds are derived from."""
        return self.draws_as or self.id


@dataclass(frozen=True)
class Variant:
    """An experiment that is another one (its base) with one assumption moved. Kept out of
    Experiment, so that declaring a variant changes no experiment's settings hash."""

    experiment: str
    assumption: str
    moved: str


@dataclass(frozen=True)
class Spec:
    path: Path
    paper: str
    title: str
    profile: str
    sha256: str
    experiments: dict[str, Experiment]
    assumptions: dict[str, str] = field(default_factory=dict)
    # Variants by experiment id (see Variant).
    variants: dict[str, Variant] = field(default_factory=dict)


def settings_hash(experiment: Experiment) -> str:
    """What an experiment measures, whichever backend runs it: runs with the same hash used the
    same settings, so their results may stand side by side. Unlike the spec file's hash it stays
    put when another experiment or a comment in the file changes, and when the experiment's own
    words (description, mirrors) or its number of trials do: no trial measures them, so a
    reworded experiment reruns nothing, and one more trial runs only that trial."""
    neutral = replace(experiment, backend="", backend_note="", description="", mirrors=(), trials=0)
    return hashlib.sha256(repr(_settings_view(neutral)).encode()).hexdigest()


def _settings_view(value: Any) -> Any:
    """value with each file it names replaced by the file's name and the digest of its contents
    (of a host model: the values it takes, with those of the models it extends): a changed host
    value reruns what used it, a moved checkout reruns nothing."""
    if isinstance(value, Path):
        if not value.is_file():
            return value.name
        contents = hostmodel.digest(value) if value.parent.name == "hosts" else hashlib.sha256(value.read_bytes()).hexdigest()
        return f"{value.name}:{contents}"
    if is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, tuple((f.name, _settings_view(getattr(value, f.name))) for f in fields(value)))
    if isinstance(value, (tuple, list)):
        return tuple(_settings_view(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((str(key), _settings_view(item)) for key, item in value.items()))
    return value


def at_point(experiment: Experiment, index: int) -> Experiment:
    """The experiment at its sweep's point `index` (from 1): the link and the tool's settings
    set to it."""
    if experiment.sweep is None:
        raise ValueError(f"experiment {experiment.id} has no sweep")
    points = experiment.sweep.points()
    if not 1 <= index <= len(points):
        raise ValueError(f"point {index} is outside 1..{len(points)} of experiment {experiment.id}")
    point = points[index - 1]
    link_changes: dict[str, Any] = {}
    tool_changes: dict[str, Any] = {}
    for name, value in point:
        if name == "added_rtt":
            link_changes["delay_s"] = value / 2
        elif name == "delay":
            link_changes["delay_s"] = value
        elif name in LINK_AXES:
            link_changes[name] = value
        else:
            tool_changes[name] = value
    link = experiment.link
    link = replace(link, forward=replace(link.forward, **link_changes),
                   reverse=replace(link.reverse, **link_changes))
    settings = replace(experiment.settings, **tool_changes) if tool_changes else experiment.settings
    return replace(experiment, link=link, settings=settings, point=point)
