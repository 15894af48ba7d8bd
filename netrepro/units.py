"""Parse the explicit units that specs use: sizes (16K, 9188B), rates (100Mbit) and times (200ms).

Sizes use the papers' convention: K is 1024 octets, M is 1048576 octets. Rates use the
networking convention: Kbit is 1000 bit/s, Mbit 10^6, Gbit 10^9.
"""
from __future__ import annotations

import re
from fractions import Fraction

# [0-9], not \d, which also takes other scripts' digits.
_SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?)(B|K|KB|M|MB)([+-][0-9]+)?")
_RATE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(bit|Kbit|Mbit|Gbit)")
_TIME = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(ns|us|ms|s)")
# The most digits a value may have: a 64-bit integer has 19, the finest time (ns) in seconds
# needs 9 decimals. Longer ones are no value any tool takes, and would overflow a float.
MAX_DIGITS = 30

_SIZE_FACTORS = {"B": 1, "K": 1024, "KB": 1024, "M": 1 << 20, "MB": 1 << 20}
_RATE_FACTORS = {"bit": 1, "Kbit": 10**3, "Mbit": 10**6, "Gbit": 10**9}
_TIME_FACTORS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


class UnitError(ValueError):
    """A value whose unit is missing or unknown, or whose number is too long."""


def _match(pattern: re.Pattern[str], text: object, example: str) -> re.Match[str]:
    match = pattern.fullmatch(str(text).strip())
    if not match:
        raise UnitError(f"expected {example}, got {text!r}")
    digits = sum(char.isdigit() for char in match.group(0))
    if digits > MAX_DIGITS:
        raise UnitError(f"{str(text)[:20]}... has {digits} digits; no value a tool takes has more than {MAX_DIGITS}")
    return match


def parse_size(text: str | int) -> int:
    """Octets from '16K', '12K-1', '9188B' or a bare integer. '12K-1' is 12287."""
    if isinstance(text, bool):
        raise UnitError(f"expected a size such as 16K or 9188B, got {text!r}")
    if isinstance(text, int):
        return text
    number, unit, offset = _match(_SIZE, text, "a size such as 16K, 12K-1 or 9188B").groups()
    value = Fraction(number) * _SIZE_FACTORS[unit]
    if value.denominator != 1:
        raise UnitError(f"size {text!r} is not a whole number of octets")
    return int(value) + int(offset or 0)


def parse_rate(text: str) -> float:
    """Bits per second from '10Mbit', '155.52Mbit' or '64Kbit'."""
    match = _match(_RATE, text, "a rate such as 10Mbit or 155.52Mbit")
    return float(match.group(1)) * _RATE_FACTORS[match.group(2)]


def parse_time(text: str) -> float:
    """Seconds from '200ms', '1s', '50us' or '0ms'."""
    match = _match(_TIME, text, "a time such as 200ms, 1s or 50us")
    return float(match.group(1)) * _TIME_FACTORS[match.group(2)]


def format_size(octets: int) -> str:
    """The shortest exact spelling: 16384 -> '16K', 12287 -> '12K-1', 9188 -> '9188B'."""
    if octets % 1024 == 0 and octets >= 1024:
        return f"{octets // 1024}K"
    if (octets + 1) % 1024 == 0:
        return f"{(octets + 1) // 1024}K-1"
    if (octets - 1) % 1024 == 0 and octets > 1024:
        return f"{(octets - 1) // 1024}K+1"
    return f"{octets}B"
