"""The kernel's own rate limit: a Linux bridge in the middle node and, on each egress, HTB at the
line rate with a stab that charges framing, over a drop-tail FIFO. It emulates rate and queue
only; it refuses delay, jitter and loss, which need linkemu or netem."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from netrepro.backends.base import BackendError
from netrepro.linkspec import AAL5_TRAILER, LLC_SNAP, Direction, LinkParams

# The bridge hands HTB Ethernet frames whose length includes the 14-octet header.
ETH_HEADER = 14


def stab_args(link: LinkParams) -> list[str]:
    """tc size-table arguments that make HTB charge each packet its octets on the line."""
    if link.framing == "ethernet":
        # header is in skb->len; add FCS, preamble and inter-frame gap, and pad to the minimum frame.
        return ["stab", "overhead", "24", "mpu", "84", "linklayer", "ethernet"]
    if link.framing.startswith("aal5"):
        encap = LLC_SNAP if link.framing == "aal5-llc-snap" else 0
        return ["stab", "overhead", str(encap + AAL5_TRAILER - ETH_HEADER), "linklayer", "atm"]
    return ["stab", "overhead", str(-ETH_HEADER), "linklayer", "ethernet"]


def egress_commands(link: LinkParams, direction: Direction, iface: str) -> list[list[str]]:
    """The tc commands that shape one egress interface."""
    rate = f"{int(direction.rate_bps)}bit"
    # One full frame of burst: the line never sends faster than its rate, even briefly.
    burst = str(link.wire_octets(link.mtu) + ETH_HEADER)
    if direction.queue_packets is not None:
        leaf = ["pfifo", "limit", str(direction.queue_packets)]
    else:
        leaf = ["bfifo", "limit", str(direction.queue_bytes)]
    return [
        ["tc", "qdisc", "replace", "dev", iface, "root", "handle", "1:", *stab_args(link), "htb", "default", "1"],
        ["tc", "class", "add", "dev", iface, "parent", "1:", "classid", "1:1", "htb",
         "rate", rate, "ceil", rate, "burst", burst, "cburst", burst],
        ["tc", "qdisc", "add", "dev", iface, "parent", "1:1", "handle", "10:", *leaf],
    ]


def refuse_unsupported(link: LinkParams) -> None:
    for name, direction in link.directions().items():
        unsupported = {
            "delay": direction.delay_s, "jitter": direction.jitter_s, "loss_pct": direction.loss_pct,
            "cell_loss_ratio": direction.cell_loss_ratio, "bit_error_ratio": direction.bit_error_ratio,
        }
        given = [key for key, value in unsupported.items() if value]
        if given or direction.reorder:
            raise BackendError(
                f"backend htb emulates rate and queue only, but link {link.name} ({name}) sets "
                f"{', '.join(given or ['reorder'])}; use backend linkemu or netem"
            )


class HtbBackend:
    name = "htb"
    trailer_octets = 0

    def __init__(self) -> None:
        self._node: Any = None
        self._ifaces: tuple[str, str] = ("", "")
        self._commands: list[list[str]] = []

    def start(self, node: Any, if_a: str, if_b: str, link: LinkParams, log_dir: Path) -> None:
        refuse_unsupported(link)
        self._node, self._ifaces = node, (if_a, if_b)
        commands = [
            ["ip", "link", "add", "br0", "type", "bridge"],
            ["ip", "link", "set", if_a, "master", "br0"],
            ["ip", "link", "set", if_b, "master", "br0"],
            ["ip", "link", "set", "br0", "up"],
            *egress_commands(link, link.forward, if_b),
            *egress_commands(link, link.reverse, if_a),
        ]
        for command in commands:
            run_checked(node, command)
        self._commands = commands

    def settings(self) -> dict[str, Any]:
        return {"backend": self.name, "commands": [" ".join(c) for c in self._commands]}

    def stop(self) -> dict[str, Any]:
        counters = {iface: qdisc_counters(self._node, iface) for iface in self._ifaces}
        return {"backend": self.name, "qdisc": counters}


def run_checked(node: Any, command: list[str]) -> str:
    """Runs an argument list in a Mininet node without a shell; raises with its output on failure."""
    process = node.popen(command, stdout=-1, stderr=-2, text=True)
    output, _ = process.communicate()
    if process.returncode != 0:
        raise BackendError(f"{' '.join(command)} failed in {node.name}: {output.strip()}")
    return output


def qdisc_counters(node: Any, iface: str) -> dict[str, Any]:
    """Packets sent and dropped by the FIFO under HTB, from `tc -s -j qdisc show`."""
    output = run_checked(node, ["tc", "-s", "-j", "qdisc", "show", "dev", iface])
    for qdisc in json.loads(output):
        if qdisc.get("kind") in ("pfifo", "bfifo"):
            return {key: qdisc.get(key) for key in ("packets", "bytes", "drops", "overlimits", "backlog", "qlen")}
    raise BackendError(f"no FIFO qdisc found on {iface} in {node.name}")
