"""Link kinds: the parameters of an emulated link, in SI units, and its framing arithmetic.

A link joins host a (h1) and host b (h2) through the middle node. `forward` is the a->b
direction, `reverse` b->a; a link kind file gives one set of values and may override some of
them for the reverse direction.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping

from netrepro.units import parse_rate, parse_size, parse_time

# A link kind without `medium`: one line per direction.
DEFAULT_MEDIUM = "duplex"

# Octets an Ethernet frame occupies on the wire beyond the IP packet: header 14, FCS 4,
# preamble and start delimiter 8, inter-frame gap 12. The payload is padded to 46.
ETHERNET_OVERHEAD = 38
ETHERNET_MIN_PAYLOAD = 46
# Octets the Ethernet FCS covers beyond the IP packet: the 14-octet header and the FCS itself.
ETHERNET_FCS_COVERED = 18
ATM_CELL = 53
ATM_CELL_PAYLOAD = 48
AAL5_TRAILER = 8
LLC_SNAP = 8

FRAMINGS = ("ethernet", "aal5-llc-snap", "aal5-vc-mux", "none")


@dataclass(frozen=True)
class Direction:
    """What one direction of a link does to packets."""

    rate_bps: float
    delay_s: float = 0.0
    jitter_s: float = 0.0
    loss_pct: float = 0.0
    cell_loss_ratio: float = 0.0
    bit_error_ratio: float = 0.0
    queue_packets: int | None = None
    queue_bytes: int | None = None
    reorder: bool = False


@dataclass(frozen=True)
class LinkCheck:
    """How far a measured link may stray from its configuration before a run refuses to start."""

    rate_tolerance_pct: float = 5.0
    rtt_tolerance_s: float = 0.001


@dataclass(frozen=True)
class LinkParams:
    name: str
    framing: str
    mtu: int
    forward: Direction
    reverse: Direction
    check: LinkCheck
    # "shared": one half-duplex Ethernet both hosts take turns on (netsim and linkemu --medium shared).
    medium: str = DEFAULT_MEDIUM
    # On a shared medium: other stations' frames a second (Poisson) and their IP octets.
    background_fps: float = 0.0
    background_octets: int = 1500

    def directions(self) -> dict[str, Direction]:
        return {"forward": self.forward, "reverse": self.reverse}

    def cells(self, ip_octets: int) -> int:
        """ATM cells that carry one IP packet of this size (0 for non-ATM framing)."""
        if not self.framing.startswith("aal5"):
            return 0
        encap = LLC_SNAP if self.framing == "aal5-llc-snap" else 0
        return math.ceil((ip_octets + encap + AAL5_TRAILER) / ATM_CELL_PAYLOAD)

    def wire_octets(self, ip_octets: int) -> int:
        """Octets of line capacity one IP packet of this size uses."""
        if self.framing == "ethernet":
            return max(ip_octets, ETHERNET_MIN_PAYLOAD) + ETHERNET_OVERHEAD
        if self.framing.startswith("aal5"):
            return self.cells(ip_octets) * ATM_CELL
        return ip_octets

    def serialization_s(self, ip_octets: int, direction: str = "forward") -> float:
        rate = self.directions()[direction].rate_bps
        return self.wire_octets(ip_octets) * 8 / rate

    def min_rtt_s(self, ip_octets: int = 84) -> float:
        """RTT of one packet of ip_octets each way on an idle link (84 is a default ping)."""
        return (
            self.forward.delay_s
            + self.reverse.delay_s
            + self.serialization_s(ip_octets, "forward")
            + self.serialization_s(ip_octets, "reverse")
        )

    def is_lossy(self) -> bool:
        return any(d.loss_pct or d.cell_loss_ratio or d.bit_error_ratio for d in self.directions().values())

    def corruption_loss(self, ip_octets: int, direction: str = "forward") -> float:
        """Probability that cell loss or bit errors destroy a packet after it used the line."""
        d = self.directions()[direction]
        cells = self.cells(ip_octets)
        if cells:
            bits = cells * ATM_CELL_PAYLOAD * 8
        elif self.framing == "ethernet":
            bits = (ip_octets + ETHERNET_FCS_COVERED) * 8
        else:
            bits = ip_octets * 8
        survive = (1 - d.cell_loss_ratio) ** cells * (1 - d.bit_error_ratio) ** bits
        return 1 - survive

    def udp_goodput_bps(self, payload: int, direction: str = "forward") -> float:
        """UDP goodput of a saturated line with datagrams of payload octets (28 octets of headers)."""
        rate = self.directions()[direction].rate_bps
        octets = payload + 28
        return rate * payload / self.wire_octets(octets) * (1 - self.corruption_loss(octets, direction))

    def tcp_goodput_bps(self, mss: int, header_octets: int = 40, direction: str = "forward") -> float:
        """Bulk TCP goodput the rate and framing allow with full-sized segments of mss payload.

        header_octets is the IP and TCP header with options (52 on Linux with timestamps).
        """
        rate = self.directions()[direction].rate_bps
        return rate * mss / self.wire_octets(mss + header_octets)


def _direction(values: Mapping[str, Any]) -> Direction:
    queue = values.get("queue", {})
    return Direction(
        rate_bps=parse_rate(values["rate"]),
        delay_s=parse_time(values.get("delay", "0ms")),
        jitter_s=parse_time(values.get("jitter", "0ms")),
        loss_pct=float(values.get("loss_pct", 0.0)),
        cell_loss_ratio=float(values.get("cell_loss_ratio", 0.0)),
        bit_error_ratio=float(values.get("bit_error_ratio", 0.0)),
        queue_packets=queue.get("packets"),
        queue_bytes=parse_size(queue["bytes"]) if "bytes" in queue else None,
        reorder=bool(values.get("reorder", False)),
    )


def link_from_dict(name: str, data: Mapping[str, Any], overrides: Mapping[str, Any] | None = None) -> LinkParams:
    """Builds LinkParams from a validated link kind document and a spec's per-run overrides."""
    merged = {**data, **(overrides or {})}
    forward = _direction(merged)
    reverse = _direction({**merged, **merged.get("reverse", {})}) if "reverse" in merged else forward
    check = merged.get("check", {})
    return LinkParams(
        name=name,
        framing=merged["framing"],
        mtu=parse_size(merged["mtu"]),
        forward=forward,
        reverse=reverse,
        check=LinkCheck(
            rate_tolerance_pct=float(check.get("rate_tolerance_pct", 5.0)),
            rtt_tolerance_s=parse_time(check.get("rtt_tolerance", "1ms")),
        ),
        medium=merged.get("medium", DEFAULT_MEDIUM),
        background_fps=float(merged.get("background", {}).get("frames_per_s", 0.0)),
        background_octets=parse_size(merged.get("background", {}).get("size", "1500B")),
    )


def with_direction(link: LinkParams, **changes: Any) -> LinkParams:
    """The same link with both directions changed, e.g. with_direction(link, delay_s=0.1)."""
    return replace(link, forward=replace(link.forward, **changes), reverse=replace(link.reverse, **changes))
