"""The ranges the C tools accept for the values a spec, a link kind or a host model sets: the one
table the validator checks them against (with file, line and key) and the argv builders format
flags with, so a value a tool would refuse stops at validation, not inside pingx, linkemu or
netsim once Mininet is up. tests/test_limits.py runs each tool with each bound and just past it,
so the table cannot drift from the tools' own parsers (tools/*/args.c, tools/linkemu/linkopt.c,
tools/common/stackopt.c, tools/tahoe/tahoe_host.c).

Where a range is narrower than the tool's, `narrower` says why; the test then checks that the
tool takes both ends. Where a tool had no bound of its own, the bound below was added to it too,
with the reason given here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from netrepro import hostmodel
from netrepro.errors import RunError
from netrepro.linkspec import DEFAULT_MEDIUM
from netrepro.units import UnitError, parse_rate, parse_size, parse_time
from netrepro.yamlsrc import Document

# The most trials a profile may ask for (configs/schema/spec.schema.json says the same).
MAX_TRIALS = 1000
INT64_MAX = (1 << 63) - 1
NS = 10**9
# One wait of a run (an echo's timeout, the interval between messages, a pause between transfers,
# a transfer's or a session's timeout) is at most an hour. The papers' longest is 600 s (milliner's
# timeout); a run that waits an hour for one thing is a mistake to catch before it starts. The
# tools had no bound: a deadline of now + 9223372036854775807ns wrapped around, so pingx counted
# every echo lost at once and mftpd exited at once (tools/common/nrargs.h NR_ARG_MAX_WAIT_NS).
MAX_WAIT_NS = 3600 * NS
# SunOS 4.1's sb_max: the largest socket buffer the Tahoe stack grants (tools/common/stackopt.c).
TAHOE_SB_MAX = 52428


@dataclass(frozen=True)
class Limit:
    """A value's range, both ends included, in the unit the flag is written in: a count, ns,
    ps, octets (B) or bits per second (bit)."""

    low: int
    high: float
    tool: str
    flag: str
    unit: str
    # What the value is, for an error: "echoes of each message size".
    what: str
    # Why the range is narrower than the tool's ("": the tool refuses just past both ends).
    narrower: str = ""

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def text(self, value: float) -> str:
        if isinstance(value, int):
            return f"{value}{self.unit}"
        return f"{round(value) if math.isfinite(value) and float(value).is_integer() else value}{self.unit}"

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
        if not math.isfinite(value) or not self.contains(round(value)):
            raise RunError(f"{self.tool} {self.flag} {self.text(value)}: {self.describe()}")
        return self.text(round(value))


def _wait(tool: str, flag: str, what: str, low: int = 0) -> Limit:
    return Limit(low, MAX_WAIT_NS, tool, flag, "ns", what)


# pingx and echod (netrepro.measure)
ECHOES = Limit(1, 1_000_000, "pingx", "--count", "", "echoes of each message size")
INTERVAL_NS = _wait("pingx", "--interval", "the interval between messages")
TIMEOUT_NS = _wait("pingx", "--timeout", "an echo's timeout", low=1_000_000)
# pingx refuses a gap of 0 (--cool-gap) and echod one over 1s (--echo-gap); udp-cooled uses both.
COOL_GAP_NS = Limit(1, NS, "pingx and echod", "--cool-gap, --echo-gap", "ns", "a cooling gap")
COOL_ITERATIONS = Limit(1, 1_000_000_000_000, "pingx", "--cool-iterations", "", "cooling iterations")
SOCKET_BUFFER = Limit(1, 1 << 30, "pingx, echod and ttcp", "--sndbuf, --rcvbuf", "B", "a socket buffer")
# The Tahoe stack refuses a buffer over sb_max when the socket is set up (ENOBUFS), after the run
# has started; ipcbench's and ttcp's buffers on it too.
TAHOE_SOCKET_BUFFER = Limit(1, TAHOE_SB_MAX, "the Tahoe stack", "--sndbuf, --rcvbuf", "B",
                            "a socket buffer on stack tahoe (SunOS's sb_max)")
# pingx --seed takes seed * 1000 + trial, a signed 64-bit integer.
SEED = Limit(0, (INT64_MAX - MAX_TRIALS) // 1000, "pingx", "--seed", "", "a seed (pingx gets seed x 1000 + trial)")
MESSAGE = Limit(16, 4 << 20, "pingx", "--sizes", "B", "a message",
                narrower="pingx takes 8B, its header alone; 16B leave the echo a body to check")
MESSAGE_SIZES = Limit(1, 256, "pingx", "--sizes", "", "the different message sizes of an experiment")
DATAGRAM = Limit(64, 65443, "pingx", "--datagram", "B", "a UDP datagram payload",
                 narrower="pingx takes 16B to 65507B; 64B is the papers' smallest datagram, and "
                          "65443B leaves 64 octets of IP options and headers below IP's 65535")
# pingx numbers a message's datagrams in 16 bits (tools/common/pingwire.h PW_MAX_COUNT).
DATAGRAMS = Limit(1, 65535, "pingx", "--sizes with --datagram", "", "the datagrams of one message")

# ttcp (netrepro.tools.ttcp)
WRITE = Limit(1, 4 << 20, "ttcp", "-l", "B", "a write",
              narrower="ttcp takes writes to 1024M; no paper wrote more than 4M at a time")
UDP_WRITE = Limit(64, 65507, "ttcp", "-u -l", "B", "a UDP write, one datagram",
                  narrower="ttcp takes 16B, its header; 64B is the papers' smallest datagram")
PAUSE_NS = _wait("ttcp, mftp and ipcbench", "--pause", "a pause between transfers")
PAUSE_SPREAD_NS = _wait("ttcp", "--pause-spread", "a pause's random spread")
TRANSFER_TIMEOUT_NS = _wait("ttcp, mftp, mftpd and ipcbench", "--timeout", "a transfer's timeout", low=1)
COOL_SPIN = Limit(0, 1 << 40, "ttcp", "--cool-spin", "", "cooling iterations after a datagram")
# The largest transfer or file: 32 times the papers' largest (comer94's 32 MB); an emulated mftp
# run writes the file and holds it in memory (netrepro.tools.mftp).
TRANSFER = Limit(1, 1 << 30, "ttcp and mftp", "--bytes, --file-size", "B", "a transfer",
                 narrower="ttcp and netsim take any 63-bit size; see the comment above")

# mftp and mftpd (netrepro.tools.mftp)
CONNECTIONS = Limit(1, 16, "mftp", "-n", "", "parallel connections")
MFTP_WINDOW = Limit(0, 1 << 29, "mftp", "--window", "B", "a window")
MFTP_BLOCK = Limit(1, 1 << 24, "mftp", "--block", "B", "a block")
MFTP_REORDER = Limit(0, 1 << 34, "mftp", "--reorder-max", "B", "the octets a receiver holds out of order")
SB_MAX = Limit(1, 1 << 30, "netsim", "--sb-max", "B", "the largest socket buffer")

# ipcbench (netrepro.tools.ipcbench)
SEGMENT = Limit(21, 65507, "ipcbench", "--segment", "B", "a UDP segment with its 20-octet header")
UNACK = Limit(1, 255, "ipcbench", "--unack", "", "segments per acknowledgement")
IPC_MESSAGE = Limit(1, 1 << 31, "ipcbench", "--size", "B", "a message")
IPC_BUFFER = Limit(1, TAHOE_SB_MAX, "ipcbench", "--buf", "B", "a buffer",
                   narrower="ipcbench takes 1024M; milliner's hosts grant SunOS's sb_max at most")

# Link kinds (netrepro.linkspec): linkemu and netsim parse them alike (tools/linkemu/linkopt.c).
MTU = Limit(68, 65535, "linkemu, netsim and the Tahoe stack", "--mtu", "B", "a link's MTU")
RATE = Limit(1, math.inf, "linkemu", "--rate", "bit", "a link's rate")
DELAY_NS = Limit(0, 10**15, "linkemu", "--delay, --jitter", "ns", "a delay")
# 0: no limit in this unit (the schema asks for 1 or more, the other unit limiting the queue).
QUEUE_PACKETS = Limit(0, 10**9, "linkemu", "--queue-packets", "", "a queue in packets")
QUEUE_BYTES = Limit(0, 10**15, "linkemu", "--queue-bytes", "B", "a queue in octets")
BACKGROUND_SIZE = Limit(28, 1500, "linkemu and netsim", "--background-size", "B", "a background frame's IP octets")

# Host models (configs/hosts/, netrepro.stacks): tools/tahoe/tahoe_host.c reads them. No 1990s
# cost comes near a second (the largest, a page read from disk, is tens of milliseconds), and
# with each cost at most a second, a run's costs (cost x packets or octets) stay far below the
# 64-bit nanoseconds of the virtual clock: per_packet_ns 9223372036854775807 wrapped around it
# into a 0.076 ms RTT. The tool had no upper bounds before.
MAX_COST = NS
HOST_KEYS: dict[str, Limit] = {
    key: Limit(0, MAX_COST, "netsim and the Tahoe stack", "--host-model", unit, f"host model {key}")
    for key, unit in (("per_packet_ns", "ns"), ("per_call_ns", "ns"), ("page_in_ns", "ns"),
                      ("page_out_ns", "ns"), ("print_ns", "ns"), ("per_byte_ps", "ps"))
}
HOST_KEYS.update({
    "spin_ps": Limit(1, MAX_COST, "netsim and the Tahoe stack", "--host-model", "ps", "host model spin_ps"),
    "copy_write_passes": Limit(0, 8, "netsim and the Tahoe stack", "--host-model", "", "host model copy_write_passes"),
    "dma_passes": Limit(0, 8, "netsim and the Tahoe stack", "--host-model", "", "host model dma_passes"),
    # A terabyte: the papers' hosts had 16 to 64 MB.
    "ram_bytes": Limit(0, 1 << 40, "netsim and the Tahoe stack", "--host-model", "B", "host model ram_bytes"),
    "resident_bytes": Limit(0, 1 << 40, "netsim and the Tahoe stack", "--host-model", "B",
                            "host model resident_bytes"),
    "page_size": Limit(512, 1 << 20, "netsim and the Tahoe stack", "--host-model", "B", "host model page_size"),
    "clock_hz": Limit(1, NS, "netsim and the Tahoe stack", "--host-model", "", "host model clock_hz"),
    "intr_preempts": Limit(0, 1, "netsim and the Tahoe stack", "--host-model", "", "host model intr_preempts"),
    "soreceive_loop": Limit(0, 1, "netsim and the Tahoe stack", "--host-model", "", "host model soreceive_loop"),
    "atm_buffer_bytes": Limit(0, 65535, "netsim and the Tahoe stack", "--host-model", "B",
                              "host model atm_buffer_bytes"),
    "streams_tx_hops": Limit(0, 16, "netsim and the Tahoe stack", "--host-model", "", "host model streams_tx_hops"),
    "streams_rx_hops": Limit(0, 16, "netsim and the Tahoe stack", "--host-model", "", "host model streams_rx_hops"),
    "sbus_dma_bytes_per_s": Limit(0, 1 << 40, "netsim and the Tahoe stack", "--host-model", "B/s",
                                  "host model sbus_dma_bytes_per_s"),
    "udp_sendspace_bytes": Limit(0, 65535, "netsim and the Tahoe stack", "--host-model", "B",
                                 "host model udp_sendspace_bytes"),
    "udp_recvspace_bytes": Limit(0, 262144, "netsim and the Tahoe stack", "--host-model", "B",
                                 "host model udp_recvspace_bytes"),
    "sb_addr_bytes": Limit(0, 128, "netsim and the Tahoe stack", "--host-model", "B", "host model sb_addr_bytes"),
    "udp_no_cksum": Limit(0, 1, "netsim and the Tahoe stack", "--host-model", "", "host model udp_no_cksum"),
    "le_rx_copy": Limit(0, 1, "netsim and the Tahoe stack", "--host-model", "", "host model le_rx_copy"),
    "le_tx_tmds": Limit(0, 128, "netsim and the Tahoe stack", "--host-model", "", "host model le_tx_tmds"),
    "late_wakeup_pct": Limit(0, 100, "netsim and the Tahoe stack", "--host-model", "",
                             "host model late_wakeup_pct"),
    "ctx_switch_spread_pct": Limit(0, 100, "netsim and the Tahoe stack", "--host-model", "",
                                   "host model ctx_switch_spread_pct"),
})
HOST_KEYS.update({
    key: Limit(0, MAX_COST, "netsim and the Tahoe stack", "--host-model", unit, f"host model {key}")
    for key, unit in (("wakeup_ns", "ns"), ("ctx_switch_ns", "ns"), ("clock_tick_ns", "ns"),
                      ("intr_jitter_max_ns", "ns"), ("late_wakeup_max_ns", "ns"),
                      ("le_tx_ns", "ns"), ("le_rx_ns", "ns"),
                      ("atm_tx_ns", "ns"), ("atm_rx_ns", "ns"), ("atm_per_buffer_ns", "ns"),
                      ("atm_rx_per_byte_ps", "ps"), ("streams_hop_ns", "ns"),
                      ("vac_flush_per_byte_ps", "ps"))
})
# The disk and its file system (tools/tahoe/disk.h).
HOST_KEYS.update({
    key: Limit(low, high, "netsim and the Tahoe stack", "--host-model", unit, f"host model {key}")
    for key, low, high, unit in (
        ("disk_rpm", 0, 100000, ""), ("disk_track_bytes", 0, 1 << 24, "B"),
        ("disk_seek_avg_ns", 0, MAX_COST, "ns"), ("disk_seek_track_ns", 0, MAX_COST, "ns"),
        ("disk_command_ns", 0, MAX_COST, "ns"), ("ufs_block_bytes", 512, 1 << 16, "B"),
        ("ufs_cluster_bytes", 0, 1 << 20, "B"), ("ufs_rotdelay_ns", 0, MAX_COST, "ns"),
        ("ufs_writes_limit_bytes", 0, 1 << 40, "B"), ("ufs_cache_bytes", 0, 1 << 40, "B"),
        ("swap_kluster_bytes", 0, 1 << 20, "B"))
})


def value(document: Document, key_path: tuple, parse: Callable[[Any], Any], text: Any) -> Any:
    """text parsed, or the document's error at key_path."""
    try:
        return parse(text)
    except UnitError as exc:
        raise document.error(key_path, str(exc)) from exc


def ns(text: Any) -> int:
    """A time in whole nanoseconds."""
    return round(parse_time(text) * NS)


def check_link(document: Document) -> None:
    """A link kind's values (each direction's too) against linkemu's and netsim's ranges; the
    schema has already checked their form."""
    data = document.data
    MTU.check(document, ("mtu",), value(document, ("mtu",), parse_size, data["mtu"]))
    for prefix, values in (((), data), (("reverse",), data.get("reverse", {}))):
        for key, limit, parse in (("rate", RATE, parse_rate), ("delay", DELAY_NS, ns), ("jitter", DELAY_NS, ns)):
            if key in values:
                limit.check(document, (*prefix, key), value(document, (*prefix, key), parse, values[key]))
        queue = values.get("queue", {})
        if "packets" in queue:
            QUEUE_PACKETS.check(document, (*prefix, "queue", "packets"), queue["packets"])
        if "bytes" in queue:
            where = (*prefix, "queue", "bytes")
            QUEUE_BYTES.check(document, where, value(document, where, parse_size, queue["bytes"]))
    if "background" in data:
        if data.get("medium") != "shared":
            where = document.nearest(("background",), ("medium",))
            raise document.error(where, f"other stations' traffic (background) needs medium: shared, "
                                        f"not {data.get('medium', f'{DEFAULT_MEDIUM} (the default)')}")
        where = ("background", "size")
        BACKGROUND_SIZE.check(document, where, value(document, where, parse_size, data["background"]["size"]))


def check_host(document: Document) -> None:
    """A host model's values and those of every model it extends against the Tahoe stack's
    ranges (tahoe_hostcost_read), and the values it takes from them all against each other."""
    model = hostmodel.read(document.path)
    for each in model.chain:
        for key, limit in HOST_KEYS.items():
            if key in each.data:
                limit.check(each, (key,), each.data[key])
    data = model.values
    missing = [key for key in hostmodel.REQUIRED_COSTS if key not in data]
    if missing:
        raise document.error(("extends",), f"no {', '.join(missing)}: give it here or extend a model that does")
    hz = data.get("clock_hz")
    if hz is not None and NS % hz:
        raise document.error(("clock_hz",), f"{hz} does not divide 1000000000: a clock tick must be a whole "
                             "number of nanoseconds (e.g. 50, 60, 64, 100 or 1000)")
    if "ram_bytes" in data and data["resident_bytes"] + data["page_size"] > data["ram_bytes"]:
        raise document.error(("resident_bytes",), "resident_bytes plus a page must fit in ram_bytes: the "
                             "application needs at least one page of memory")
    disk = [key for key in data if key.startswith(("disk_", "ufs_"))]
    if disk and not (data.get("disk_rpm") and data.get("disk_track_bytes")):
        raise document.error((disk[0],), "a disk needs disk_rpm and disk_track_bytes (the media rate); "
                             "without both the other disk_ and ufs_ keys change nothing")
    if disk and ("page_in_ns" in data or "page_out_ns" in data):
        raise document.error(("disk_rpm",), "a host with a disk pages through it: drop page_in_ns and "
                             "page_out_ns (the Tahoe stack refuses both together)")


# An experiment's settings the tools take, each with its keys and how it becomes the flag's unit.
SETTINGS = (
    (TIMEOUT_NS, ("timeout",), ns),
    (COOL_GAP_NS, ("cooling", "gap"), ns),
    (COOL_ITERATIONS, ("cooling", "iterations"), int),
    (SEED, ("seed",), int),
)


def check_settings(document: Document, where: Any, settings: Mapping[str, Any]) -> None:
    """An experiment's settings (merged with defaults) against the tools' ranges; `where + keys`
    is the key path of the line that holds a value (netrepro.specread.Where)."""
    for limit, keys, to_unit in SETTINGS:
        node: Any = settings
        for key in keys:
            node = node.get(key) if isinstance(node, Mapping) else None
        if node is not None:
            limit.check(document, where + keys, value(document, where + keys, to_unit, node))
    buffers = socket_buffer(settings.get("stack", ""))
    for key in ("send", "receive"):
        text = settings.get("socket_buffers", {}).get(key)
        if text is not None:
            keys = where + ("socket_buffers", key)
            buffers.check(document, keys, value(document, keys, parse_size, text))


def socket_buffer(stack: str) -> Limit:
    """The range of a socket buffer on stack."""
    return TAHOE_SOCKET_BUFFER if stack == "tahoe" else SOCKET_BUFFER
