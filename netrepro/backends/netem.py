"""The kernel's netem, for kernels that have sch_netem: a Linux bridge joins the middle node's two
interfaces and each egress gets the qdiscs of one direction.

Two styles:
- "netem-rate": one netem qdisc does delay, jitter, loss and the rate, charging framing with
  netem's own `packetoverhead`, `cellsize` and `celloverhead`; its queue is limited in packets.
  netem with a rate keeps packets in order.
- "tbf": netem (delay, jitter, loss) as root with a stab that charges framing, and a tbf child
  at the line rate whose FIFO is the link's drop-tail queue, in packets or bytes.

netem drops packets with one probability whatever their size, so a cell loss or bit error
ratio is refused unless the backend is told to convert it at the MTU (loss_at_mtu=True).
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from netrepro.backends.base import BackendError
from netrepro.backends.htb import run_checked, stab_args
from netrepro.linkspec import (
    AAL5_TRAILER, ATM_CELL, ATM_CELL_PAYLOAD, ETHERNET_MIN_PAYLOAD, ETHERNET_OVERHEAD, LLC_SNAP, Direction,
    LinkParams,
)

ETH_HEADER = 14  # in skb->len of the frames the bridge forwards
ETH_FCS = 4
BRIDGE = "br-link"
STYLES = ("netem-rate", "tbf")
# netem queues every delayed packet; its limit must hold the delay line, not only the queue.
NETEM_DELAY_LIMIT = 100000


def _rate(bps: float) -> str:
    return f"{bps:.15g}bit"


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.6g}us"


def _pct(pct: float) -> str:
    return f"{pct:.10g}%"


def error_bits(link: LinkParams, ip_octets: int) -> int:
    """Bits in which an error loses the packet, as linkemu counts them: on ATM the cell payloads
    (ishikura's 72 kbit in a 9 KB packet), on Ethernet what the FCS covers, else the packet."""
    if link.framing.startswith("aal5"):
        return 8 * ATM_CELL_PAYLOAD * link.cells(ip_octets)
    if link.framing == "ethernet":
        return 8 * (max(ip_octets, ETHERNET_MIN_PAYLOAD) + ETH_HEADER + ETH_FCS)
    return 8 * ip_octets


def packet_loss_pct(link: LinkParams, direction: Direction, loss_at_mtu: bool) -> float:
    """The per-packet loss netem is given: random loss, plus cell and bit losses converted at the
    MTU when allowed (the lossiest packet: smaller ones are then dropped too often)."""
    keep = 1.0 - direction.loss_pct / 100.0
    if direction.cell_loss_ratio or direction.bit_error_ratio:
        if not loss_at_mtu:
            raise BackendError(
                f"link {link.name}: netem loses packets regardless of size, so it cannot turn a cell loss "
                "or bit error ratio into per-packet loss; use backend linkemu, or NetemBackend(loss_at_mtu=True)"
            )
        cells = link.cells(link.mtu)
        keep *= (1.0 - direction.cell_loss_ratio) ** cells * (1.0 - direction.bit_error_ratio) ** error_bits(link, link.mtu)
    return 100.0 * (1.0 - keep)


def netem_framing_args(link: LinkParams) -> list[str]:
    """netem rate arguments that charge each frame (skb->len, Ethernet header included) its line octets."""
    if link.framing == "ethernet":
        # FCS, preamble and gap; netem cannot pad frames below the 64-octet minimum.
        return ["packetoverhead", str(ETHERNET_OVERHEAD - ETH_HEADER)]
    if link.framing.startswith("aal5"):
        encap = LLC_SNAP if link.framing == "aal5-llc-snap" else 0
        return ["packetoverhead", str(encap + AAL5_TRAILER - ETH_HEADER),
                "cellsize", str(ATM_CELL_PAYLOAD), "celloverhead", str(ATM_CELL - ATM_CELL_PAYLOAD)]
    return ["packetoverhead", str(-ETH_HEADER)]


def netem_args(link: LinkParams, direction: Direction, loss_at_mtu: bool, limit: int) -> list[str]:
    """The netem qdisc's queue limit, delay, jitter and loss arguments."""
    args = ["netem", "limit", str(limit), "delay", _us(direction.delay_s)]
    if direction.jitter_s:
        # Without a distribution table netem draws jitter uniformly, as linkspec defines it.
        args.append(_us(direction.jitter_s))
    loss = packet_loss_pct(link, direction, loss_at_mtu)
    if loss:
        args += ["loss", "random", _pct(loss)]
    return args


def refuse_unsupported(link: LinkParams, style: str, loss_at_mtu: bool) -> None:
    if style not in STYLES:
        raise BackendError(f"unknown netem style {style!r}; choose {', '.join(STYLES)}")
    for name, direction in link.directions().items():
        packet_loss_pct(link, direction, loss_at_mtu)
        if direction.queue_packets is None and direction.queue_bytes is None:
            raise BackendError(f"link {link.name} ({name}): give a queue limit in packets or bytes")
        if style == "netem-rate" and direction.queue_packets is None:
            raise BackendError(
                f"link {link.name} ({name}): netem limits its queue in packets only; use style tbf for a byte limit"
            )
        if style == "tbf" and direction.jitter_s and not direction.reorder:
            raise BackendError(
                f"link {link.name} ({name}): netem without a rate reorders jittered packets; "
                "use style netem-rate to keep them in order"
            )
        if style == "netem-rate" and direction.reorder:
            raise BackendError(f"link {link.name} ({name}): netem with a rate never reorders; use style tbf")


def egress_commands(link: LinkParams, direction: Direction, iface: str, style: str = "netem-rate",
                    loss_at_mtu: bool = False) -> list[list[str]]:
    """The tc commands that impose one direction on the egress interface iface."""
    refuse_unsupported(link, style, loss_at_mtu)
    root = ["tc", "qdisc", "replace", "dev", iface, "root", "handle", "1:"]
    if style == "netem-rate":
        assert direction.queue_packets is not None
        return [[*root, *netem_args(link, direction, loss_at_mtu, direction.queue_packets),
                 "rate", _rate(direction.rate_bps), *netem_framing_args(link)]]
    # One frame of burst: the line never runs faster than its rate, even briefly.
    burst = str(link.wire_octets(link.mtu) + ETH_HEADER)
    if direction.queue_packets is not None:
        fifo = ["pfifo", "limit", str(direction.queue_packets)]
    else:
        fifo = ["bfifo", "limit", str(direction.queue_bytes)]
    return [
        # The stab sits on the root: the kernel computes a packet's charged length only there.
        [*root, *stab_args(link), *netem_args(link, direction, loss_at_mtu, NETEM_DELAY_LIMIT)],
        ["tc", "qdisc", "add", "dev", iface, "parent", "1:1", "handle", "10:", "tbf",
         "rate", _rate(direction.rate_bps), "burst", burst, "limit", burst],
        ["tc", "qdisc", "replace", "dev", iface, "parent", "10:1", "handle", "20:", *fifo],
    ]


def bridge_commands(if_a: str, if_b: str, bridge: str = BRIDGE) -> list[list[str]]:
    """A Linux bridge that forwards between the two interfaces at layer 2."""
    return [
        ["ip", "link", "add", "name", bridge, "type", "bridge"],
        ["ip", "link", "set", "dev", if_a, "master", bridge],
        ["ip", "link", "set", "dev", if_b, "master", bridge],
        ["ip", "link", "set", "dev", bridge, "up"],
    ]


def offload_commands(if_a: str, if_b: str) -> list[list[str]]:
    """Offloads off, so qdiscs see frames of the sizes the hosts sent rather than GRO merges."""
    return [["ethtool", "-K", iface, "tso", "off", "gso", "off", "gro", "off"] for iface in (if_a, if_b)]


def teardown_commands(if_a: str, if_b: str, bridge: str = BRIDGE) -> list[list[str]]:
    return [
        ["tc", "qdisc", "del", "dev", if_b, "root"],
        ["tc", "qdisc", "del", "dev", if_a, "root"],
        ["ip", "link", "del", "dev", bridge],
    ]


def start_commands(link: LinkParams, if_a: str, if_b: str, style: str = "netem-rate",
                   loss_at_mtu: bool = False) -> list[list[str]]:
    """Everything start() runs, in order: forward is imposed on if_b's egress, reverse on if_a's."""
    return [
        *offload_commands(if_a, if_b),
        *bridge_commands(if_a, if_b),
        *egress_commands(link, link.forward, if_b, style, loss_at_mtu),
        *egress_commands(link, link.reverse, if_a, style, loss_at_mtu),
    ]


def qdisc_counters(output: str) -> list[dict[str, Any]]:
    """Each qdisc's kind and counters from `tc -s -j qdisc show dev IF`."""
    keys = ("kind", "handle", "packets", "bytes", "drops", "overlimits", "requeues", "backlog", "qlen")
    return [{key: qdisc.get(key) for key in keys if key in qdisc} for qdisc in json.loads(output)]


class NetemBackend:
    """tc/netem in the middle node; see the LinkBackend protocol and this module's notes."""

    name = "netem"
    trailer_octets = 0

    def __init__(self, style: str = "netem-rate", loss_at_mtu: bool = False) -> None:
        if style not in STYLES:
            raise BackendError(f"unknown netem style {style!r}; choose {', '.join(STYLES)}")
        self.style = style
        self.loss_at_mtu = loss_at_mtu
        self._node: Any = None
        self._ifaces: tuple[str, str] = ("", "")
        self._commands: list[list[str]] = []

    def start(self, node: Any, if_a: str, if_b: str, link: LinkParams, log_dir: Path) -> None:
        commands = start_commands(link, if_a, if_b, self.style, self.loss_at_mtu)
        self._node, self._ifaces = node, (if_a, if_b)
        for args in commands:
            run_checked(node, args)
            self._commands.append(args)

    def settings(self) -> dict[str, Any]:
        return {"backend": self.name, "style": self.style, "loss_at_mtu": self.loss_at_mtu,
                "commands": [list(args) for args in self._commands]}

    def stop(self) -> dict[str, Any]:
        if self._node is None:
            raise BackendError("netem was not started")
        if_a, if_b = self._ifaces
        counters = {
            "forward": qdisc_counters(run_checked(self._node, ["tc", "-s", "-j", "qdisc", "show", "dev", if_b])),
            "reverse": qdisc_counters(run_checked(self._node, ["tc", "-s", "-j", "qdisc", "show", "dev", if_a])),
        }
        # Best effort: the counters are read, and Mininet removes the interfaces anyway.
        for args in teardown_commands(if_a, if_b):
            process = self._node.popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            process.communicate()
        self._node = None
        return {"backend": self.name, "qdisc": counters}
