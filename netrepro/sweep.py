"""Sweeps: one experiment measured at every point of a product of link and tool settings,
e.g. added RTT in [0, 100, 200, 300, 500] ms x connections 1..16.

A sweep names its axes under `sweep:` in a spec. Each point is run as its own part of a trial
(runs/<profile>/<backend>/trial-N/point-K/), on the experiment's link with the point's values
put in, and every result row carries the point's values as columns.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable

from netrepro import limits
from netrepro.columns import sweep_columns
from netrepro.units import UnitError, parse_size, parse_time
from netrepro.yamlsrc import Document

if TYPE_CHECKING:
    from netrepro.spec import Experiment

RANGE = re.compile(r"^([0-9]{1,9})\.\.([0-9]{1,9})$")
# The most points a sweep may have: each is a run of every trial.
MAX_POINTS = 10000
# Axes that change the link (both directions alike) and axes that change mftp's settings.
LINK_AXES = ("added_rtt", "delay", "cell_loss_ratio", "bit_error_ratio", "loss_pct")
TOOL_AXES = ("connections", "window")
# The result column of each axis, in the unit its name says (configs/schema/results-columns.json).
COLUMNS = sweep_columns()


@dataclass(frozen=True)
class Sweep:
    """The axes of a sweep in the order the spec gives them, each with its values."""

    axes: tuple[tuple[str, tuple[Any, ...]], ...]

    def points(self) -> list[tuple[tuple[str, Any], ...]]:
        names = [name for name, _ in self.axes]
        return [tuple(zip(names, values)) for values in itertools.product(*(v for _, v in self.axes))]

    def columns(self) -> list[str]:
        return [COLUMNS[name] for name, _ in self.axes]


def _number(text: Any) -> float:
    if isinstance(text, bool) or not isinstance(text, (int, float)):
        raise UnitError(f"{text!r} is not a number")
    return float(text)


def _whole(text: Any) -> int:
    if isinstance(text, bool) or not isinstance(text, int):
        raise UnitError(f"{text!r} is not a whole number")
    return text


AXIS_LIMITS = {"connections": limits.CONNECTIONS, "window": limits.MFTP_WINDOW}
PARSERS: dict[str, Callable[[Any], Any]] = {
    "added_rtt": parse_time, "delay": parse_time, "cell_loss_ratio": _number,
    "bit_error_ratio": _number, "loss_pct": _number, "connections": _whole, "window": parse_size,
}


def parse_sweep(document: Document, key_path: tuple, raw: dict[str, Any], tool: str) -> Sweep:
    """The sweep at key_path of document; errors name the axis and the value."""
    axes = []
    for name, values in raw.items():
        if name in TOOL_AXES and tool != "mftp":
            raise document.error((*key_path, name), f"sweeping {name} needs tool mftp, not {tool}")
        if isinstance(values, str):
            match = RANGE.match(values)
            if not match or name != "connections" or int(match[1]) > int(match[2]):
                raise document.error((*key_path, name), f"{values!r}: only connections takes a range "
                                     "like 1..16; give a list otherwise")
            limits.CONNECTIONS.check(document, (*key_path, name), int(match[2]))
            values = list(range(int(match[1]), int(match[2]) + 1))
        parsed = []
        for index, value in enumerate(values):
            try:
                parsed.append(PARSERS[name](value))
            except UnitError as exc:
                raise document.error((*key_path, name, index), str(exc)) from exc
        if name in ("cell_loss_ratio", "bit_error_ratio") and any(not 0 <= v < 1 for v in parsed):
            raise document.error((*key_path, name), "a ratio must be at least 0 and below 1")
        if name == "loss_pct" and any(not 0 <= v <= 100 for v in parsed):
            raise document.error((*key_path, name), "a loss is 0 to 100 percent")
        for index, value in enumerate(parsed):
            if name in ("added_rtt", "delay"):
                # added_rtt is split between the two directions, each a delay.
                limits.DELAY_NS.check(document, (*key_path, name, index),
                                      round(value * limits.NS / (2 if name == "added_rtt" else 1)))
            elif name in AXIS_LIMITS:
                AXIS_LIMITS[name].check(document, (*key_path, name, index), value)
        axes.append((name, tuple(parsed)))
    if math.prod(len(values) for _, values in axes) > MAX_POINTS:
        raise document.error(key_path, f"more than {MAX_POINTS} points; each is a run of every trial")
    if "added_rtt" in raw and "delay" in raw:
        raise document.error(key_path, "give added_rtt or delay, not both: both set the link's delay")
    return Sweep(axes=tuple(axes))


def column_values(point: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """A point's values as result columns: times in ms, sizes in octets."""
    values = {}
    for name, value in point:
        values[COLUMNS[name]] = value * 1e3 if name in ("added_rtt", "delay") else value
    return values


def at_point(experiment: Experiment, index: int) -> Experiment:
    """The experiment at its sweep's point `index` (from 1): the link and tool set to it."""
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
    mftp = experiment.mftp
    if tool_changes and mftp is not None:
        mftp = replace(mftp, **tool_changes)
    return replace(experiment, link=link, mftp=mftp, point=point)
