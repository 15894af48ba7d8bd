"""The ranges the C tools accept for the values a spec sets: the one table the spec validator
checks a spec against (with file, line and key) and the argv builders format flags with, so a
value the tools would refuse stops at validation, not inside pingx or echod once Mininet is up.
tests/test_limits.py runs each tool with each bound and just past it, so the table cannot drift
from the tools' own parsers (tools/pingx/args.c, tools/echod/args.c, tools/linkemu/linkopt.c).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from netrepro.errors import RunError
from netrepro.units import parse_rate, parse_size, parse_time
from netrepro.yamlsrc import Document

# The most trials a profile may ask for (configs/schema/spec.schema.json says the same).
MAX_TRIALS = 1000
INT64_MAX = (1 << 63) - 1


@dataclass(frozen=True)
class Limit:
    """A value's range, both ends included, in the unit the flag is written in: a count, ns,
    octets (B) or bits per second (bit)."""

    low: int
    high: float
    tool: str
    flag: str
    unit: str
    # What the value is, for an error: "echoes of each message size".
    what: str

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def text(self, value: float) -> str:
        return f"{round(value) if float(value).is_integer() else value}{self.unit}"

    def describe(self) -> str:
        high = " or more" if math.isinf(self.high) else f" to {self.text(self.high)}"
        return f"{self.what} must be {self.text(self.low)}{high} ({self.tool} {self.flag})"

    def check(self, document: Document, key_path: tuple, value: float) -> None:
        """Raises the document's error at key_path when value is outside the range."""
        if not self.contains(value):
            raise document.error(key_path, f"{self.text(value)} is out of range: {self.describe()}")

    def arg(self, value: float) -> str:
        """The flag's value, whole in the flag's unit; a value outside the range is a bug past
        validation, refused before any tool starts."""
        if not self.contains(round(value)):
            raise RunError(f"{self.tool} {self.flag} {self.text(value)}: {self.describe()}")
        return self.text(round(value))


ECHOES = Limit(1, 1_000_000, "pingx", "--count", "", "echoes of each message size")
TIMEOUT_NS = Limit(1_000_000, math.inf, "pingx", "--timeout", "ns", "an echo's timeout")
# pingx refuses a gap of 0 (--cool-gap) and echod one over 1s (--echo-gap); udp-cooled uses both.
COOL_GAP_NS = Limit(1, 1_000_000_000, "pingx and echod", "--cool-gap, --echo-gap", "ns", "a cooling gap")
COOL_ITERATIONS = Limit(1, 1_000_000_000_000, "pingx", "--cool-iterations", "", "cooling iterations")
SOCKET_BUFFER = Limit(1, 1 << 30, "pingx and echod", "--sndbuf, --rcvbuf", "B", "a socket buffer")
# pingx --seed takes seed * 1000 + trial, a signed 64-bit integer.
SEED = Limit(0, (INT64_MAX - MAX_TRIALS) // 1000, "pingx", "--seed", "", "a seed (pingx gets seed x 1000 + trial)")
MTU = Limit(68, 65535, "linkemu", "--mtu", "B", "a link's MTU")
RATE = Limit(1, math.inf, "linkemu", "--rate", "bit", "a link's rate")


def check_link(document: Document) -> None:
    """A link kind's rates (each direction's too) and MTU, against linkemu's ranges; the schema
    has already checked that they parse."""
    data = document.data
    MTU.check(document, ("mtu",), parse_size(data["mtu"]))
    RATE.check(document, ("rate",), parse_rate(data["rate"]))
    for direction in ("forward", "reverse"):
        if "rate" in data.get(direction, {}):
            RATE.check(document, (direction, "rate"), parse_rate(data[direction]["rate"]))


# An experiment's settings the tools take, each with its keys and how it becomes the flag's unit.
SETTINGS = (
    (TIMEOUT_NS, ("timeout",), lambda text: round(parse_time(text) * 1e9)),
    (COOL_GAP_NS, ("cooling", "gap"), lambda text: round(parse_time(text) * 1e9)),
    (COOL_ITERATIONS, ("cooling", "iterations"), int),
    (SOCKET_BUFFER, ("socket_buffers", "send"), parse_size),
    (SOCKET_BUFFER, ("socket_buffers", "receive"), parse_size),
    (SEED, ("seed",), int),
)


def check_settings(document: Document, where: Any, settings: Mapping[str, Any]) -> None:
    """An experiment's settings (merged with defaults) against the tools' ranges; `where + keys`
    is the key path of the line that holds a value (netrepro.spec._Where)."""
    for limit, keys, to_unit in SETTINGS:
        node: Any = settings
        for key in keys:
            node = node.get(key) if isinstance(node, Mapping) else None
        if node is not None:
            limit.check(document, where + keys, to_unit(node))
