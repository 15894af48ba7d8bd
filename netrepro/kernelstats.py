"""The Linux kernel's own drop counters in an emulated network, one namespace at a time, read
through /proc/<pid>/net of the Mininet node's shell (a process inside the namespace), so that a
run on the Linux stack says where its datagrams were lost as a Tahoe run does.

Per namespace the kernel keeps IP's and UDP's MIB (/proc/net/snmp), the reassembly queues still
open (/proc/net/sockstat, FRAG inuse: each will end in a failure counted later, Linux waiting
30 s) and each interface's drops (/proc/net/dev). A host's input backlog is per CPU, not per
namespace; a frame the backlog refuses is counted as a transmit drop of the veth that hands it
over, the middle node's side of the host's link.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from netrepro.errors import RunError

# The MIB counters a snapshot takes, by group (a snapshot names each node.group.counter).
SNMP = {"Ip": ("OutDiscards", "ReasmFails"), "Udp": ("RcvbufErrors",)}
FRAG_PENDING = "FRAG.pending"


def parse_snmp(text: str) -> dict[str, int]:
    """/proc/net/snmp's counters as group.name (Ip.ReasmFails): each group is a line of names
    followed by a line of values."""
    counters: dict[str, int] = {}
    lines = [line.split() for line in text.splitlines() if line.strip()]
    for names, values in zip(lines[::2], lines[1::2]):
        if names[0] != values[0]:
            raise ValueError(f"unexpected /proc/net/snmp lines: {names[0]} names, {values[0]} values")
        group = names[0].rstrip(":")
        counters.update({f"{group}.{name}": int(value) for name, value in zip(names[1:], values[1:])})
    return counters


def parse_frag_inuse(text: str) -> int:
    """The reassembly queues open, from /proc/net/sockstat's FRAG line."""
    for line in text.splitlines():
        fields = line.split()
        if fields[:2] == ["FRAG:", "inuse"]:
            return int(fields[2])
    raise ValueError("no FRAG line in /proc/net/sockstat")


def parse_tx_drops(text: str, interface: str) -> int:
    """An interface's transmit drops from /proc/net/dev (the 12th number of its line: 8 receive
    fields, then bytes, packets, errs, drop)."""
    for line in text.splitlines():
        name, sep, numbers = line.partition(":")
        if sep and name.strip() == interface:
            return int(numbers.split()[11])
    raise ValueError(f"no interface {interface} in /proc/net/dev")


def _read(node: Any, name: str) -> str:
    return (Path("/proc") / str(node.pid) / "net" / name).read_text(encoding="ascii")


def host_counters(host: Any) -> dict[str, int]:
    """A host's IP and UDP drop counters and its open reassembly queues."""
    snmp = parse_snmp(_read(host, "snmp"))
    wanted = [f"{group}.{name}" for group, names in SNMP.items() for name in names]
    missing = [key for key in wanted if key not in snmp]
    if missing:
        raise RunError(f"this kernel's /proc/net/snmp lacks {', '.join(missing)}, which the drops by place read")
    counters = {key: snmp[key] for key in wanted}
    counters[FRAG_PENDING] = parse_frag_inuse(_read(host, "sockstat"))
    return counters


def snapshot(hosts: Mapping[str, Any], middle: Any, handing: Mapping[str, str]) -> dict[str, int]:
    """Every host's counters (named host.group.counter) and, for each host, the transmit drops
    of the middle node's interface that hands it its frames (host.backlog)."""
    dev = _read(middle, "dev")
    counters: dict[str, int] = {}
    for name, host in hosts.items():
        counters.update({f"{name}.{key}": value for key, value in host_counters(host).items()})
        counters[f"{name}.backlog"] = parse_tx_drops(dev, handing[name])
    return counters


def delta(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    """What each counter counted between two snapshots; for the open reassembly queues, those
    opened and not yet failed, which will fail as those already counted did."""
    return {key: int(after[key]) - int(before[key]) for key in after}
