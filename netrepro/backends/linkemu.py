"""The user-space link emulator: tools/bin/linkemu runs in the middle node and forwards frames
between its two interfaces through a drop-tail queue, a line of the link's rate charged with
its framing, a propagation delay, and random, cell and bit-error loss; or, for a link with
`medium: shared`, through one half-duplex Ethernet both hosts take turns on (CSMA/CD, 802.3
backoff), as netsim's --medium shared. It needs no qdisc, so it runs on kernels without
sch_netem."""
from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Mapping

from netrepro import limits
from netrepro.backends.base import FRAME_TIME_OCTETS, BackendError
from netrepro.linkspec import FRAMINGS, Direction, LinkParams
from netrepro.paths import tool_binary
from netrepro.safepath import open_for_write

BINARY = tool_binary("linkemu")
# Offloads that would hand the emulator frames larger than the MTU or merged by GRO.
OFFLOADS = ("tso", "gso", "gro")
READY_TIMEOUT_S = 5.0
STOP_TIMEOUT_S = 10.0
SNAPSHOT_TIMEOUT_S = 5.0
# SCHED_FIFO priority of the forwarding threads: on a shared 2-core machine it cut the 99th
# percentile of added delay from about 1 ms late to 0.2 ms (benchmarks/link).
PRIORITY = 10


def _rate(bps: float) -> str:
    return f"{bps:.15g}bit"


def _time(seconds: float) -> str:
    return f"{round(seconds * 1e9)}ns"


def _direction_args(direction: Direction, prefix: str) -> list[str]:
    args = [
        f"--{prefix}rate", _rate(direction.rate_bps),
        f"--{prefix}delay", _time(direction.delay_s),
        f"--{prefix}jitter", _time(direction.jitter_s),
        f"--{prefix}loss-pct", f"{direction.loss_pct:.17g}",
        f"--{prefix}cell-loss-ratio", f"{direction.cell_loss_ratio:.17g}",
        f"--{prefix}bit-error-ratio", f"{direction.bit_error_ratio:.17g}",
        f"--{prefix}queue-packets", str(direction.queue_packets or 0),
        f"--{prefix}queue-bytes", f"{direction.queue_bytes or 0}B",
    ]
    if direction.reorder:
        args.append(f"--{prefix}reorder")
    return args


def refuse_unsupported(link: LinkParams) -> None:
    """Raises BackendError for a link linkemu cannot emulate as specified."""
    if link.framing not in FRAMINGS:
        raise BackendError(f"link {link.name}: linkemu knows framings {', '.join(FRAMINGS)}, not {link.framing!r}")
    if not limits.MTU.contains(link.mtu):
        raise BackendError(f"link {link.name}: MTU {link.mtu}: {limits.MTU.describe()}")
    if link.medium == "shared":
        lossy = link.forward.jitter_s or link.forward.loss_pct or link.forward.cell_loss_ratio \
            or link.forward.bit_error_ratio or link.forward.queue_bytes
        if link.framing != "ethernet" or link.reverse != link.forward or lossy:
            raise BackendError(f"link {link.name}: a shared medium is an Ethernet with one rate, delay and "
                               "packet queue for both hosts, and no jitter, loss or byte queue")
    for name, direction in link.directions().items():
        if direction.rate_bps <= 0:
            raise BackendError(f"link {link.name} ({name}): linkemu needs a positive rate")
        if direction.queue_packets is None and direction.queue_bytes is None:
            raise BackendError(f"link {link.name} ({name}): give a queue limit in packets or bytes")
        if direction.jitter_s > 0 and direction.delay_s < direction.jitter_s:
            # A uniform spread below zero delay would be clipped and no longer uniform.
            raise BackendError(
                f"link {link.name} ({name}): jitter {direction.jitter_s}s exceeds delay {direction.delay_s}s"
            )


def link_args(link: LinkParams) -> list[str]:
    """The link flags of linkemu, which netsim shares, so both emulate the same link."""
    args = ["--framing", link.framing, "--mtu", f"{link.mtu}B", *_direction_args(link.forward, "")]
    if link.reverse != link.forward:
        args += _direction_args(link.reverse, "reverse-")
    if link.medium == "shared":
        args += ["--medium", "shared"]
    if link.background_fps > 0:
        args += ["--background-fps", f"{link.background_fps:g}", "--background-size", f"{link.background_octets}B"]
    return args


# A shared medium's counts per station that add up over a run (queue_max_packets does not).
MEDIUM_COUNTS = ("offered", "tx_frames", "collisions", "deferrals", "excessive", "drop_queue")


def medium_delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The shared medium's counts between two of linkemu's records, under netsim's names
    (medium_a_tx_frames, ..., medium_collision_pct), so that a run's rows read them alike."""
    counts = {f"medium_{side}_{key}": int(after[f"medium_{side}_{key}"]) - int(before[f"medium_{side}_{key}"])
              for side in "ab" for key in MEDIUM_COUNTS}
    frames = counts["medium_a_tx_frames"] + counts["medium_b_tx_frames"]
    collisions = counts["medium_a_collisions"] + counts["medium_b_collisions"]
    counts["medium_collision_pct"] = 100.0 * collisions / frames if frames else 0.0
    return counts


def drop_delta(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, int]:
    """The link's drops by cause and direction between two of linkemu's records, under netsim's
    names (forward_drop_queue, ..., reverse_drop_oversize), so that a run's rows read them alike."""
    return {f"{direction}_{key}": int(value) - int(before[direction].get(key, 0))
            for direction in ("forward", "reverse")
            for key, value in after[direction].items() if key.startswith("drop_")}


def command(link: LinkParams, if_a: str, if_b: str, stats: Path, ready: Path, seed: int = 1,
            priority: int = PRIORITY, binary: Path = BINARY, frame_times: bool = False) -> list[str]:
    """The linkemu argument list for link between if_a (host a's side) and if_b."""
    args = [str(binary), "--if-a", if_a, "--if-b", if_b, *link_args(link)]
    args += ["--seed", str(seed), "--priority", str(priority), "--stats", str(stats), "--ready-file", str(ready)]
    if frame_times:
        args.append("--frame-times")
    return args


class LinkemuBackend:
    """Runs tools/bin/linkemu in the middle node; see the LinkBackend protocol."""

    name = "linkemu"

    def __init__(self, seed: int = 1, priority: int = PRIORITY, binary: Path = BINARY,
                 frame_times: bool = False) -> None:
        self.seed = seed
        self.priority = priority
        self.binary = binary
        self.frame_times = frame_times
        self._process: Any = None
        self._command: list[str] = []
        self._stats: Path | None = None
        self._offloads: dict[str, list[str]] = {}
        self._snapshots = 0

    def start(self, node: Any, if_a: str, if_b: str, link: LinkParams, log_dir: Path) -> None:
        refuse_unsupported(link)
        if not self.binary.is_file():
            raise BackendError(f"{self.binary} is missing; build it with `make -C tools`")
        log_dir = Path(log_dir)
        log_dir.mkdir(parents=True, exist_ok=True)
        self._stats = log_dir / "linkemu-stats.json"
        self._snapshots = 0
        ready = log_dir / "linkemu.ready"
        for path in (self._stats, ready):
            path.unlink(missing_ok=True)
        for iface in (if_a, if_b):
            self._offloads[iface] = disable_offloads(node, iface)
        self._command = command(link, if_a, if_b, self._stats, ready, self.seed, self.priority, self.binary,
                                self.frame_times)
        with open_for_write(log_dir / "linkemu.stderr") as err:
            self._process = node.popen(self._command, stdout=subprocess.PIPE, stderr=err, text=True)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not ready.exists():
            if self._process.poll() is not None:
                raise BackendError(f"linkemu exited with {self._process.returncode} before forwarding: "
                                   f"{(log_dir / 'linkemu.stderr').read_text().strip()}")
            if time.monotonic() > deadline:
                self._kill()
                raise BackendError(f"linkemu did not start forwarding within {READY_TIMEOUT_S}s")
            time.sleep(0.01)

    @property
    def trailer_octets(self) -> int:
        return FRAME_TIME_OCTETS if self.frame_times else 0

    def settings(self) -> dict[str, Any]:
        return {"backend": self.name, "command": list(self._command), "offloads": dict(self._offloads)}

    def snapshot(self) -> dict[str, Any]:
        """linkemu's counters so far (SIGUSR1), while it keeps forwarding; a run's own counts
        are the difference of the snapshots before and after it."""
        if self._process is None or self._stats is None:
            raise BackendError("linkemu was not started")
        self._snapshots += 1
        self._process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + SNAPSHOT_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise BackendError(f"linkemu exited with {self._process.returncode} while writing its counters")
            try:
                record = json.loads(self._stats.read_text())
            except (FileNotFoundError, json.JSONDecodeError):
                record = {}
            if record.get("snapshot") == self._snapshots:
                return record
            time.sleep(0.005)
        raise BackendError(f"linkemu did not write its counters within {SNAPSHOT_TIMEOUT_S}s of SIGUSR1")

    def stop(self) -> dict[str, Any]:
        if self._process is None:
            raise BackendError("linkemu was not started")
        process, self._process = self._process, None
        process.send_signal(signal.SIGTERM)
        try:
            stdout, _ = process.communicate(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise BackendError(f"linkemu did not stop within {STOP_TIMEOUT_S}s of SIGTERM")
        if process.returncode != 0:
            raise BackendError(f"linkemu failed with status {process.returncode}; see linkemu.stderr")
        assert self._stats is not None
        text = self._stats.read_text() if self._stats.exists() else stdout
        return json.loads(text)

    def _kill(self) -> None:
        self._process.kill()
        self._process.communicate()
        self._process = None


def disable_offloads(node: Any, iface: str) -> list[str]:
    """Turns off the offloads that would merge frames on the middle node's interface."""
    args = ["ethtool", "-K", iface]
    for offload in OFFLOADS:
        args += [offload, "off"]
    process = node.popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output, _ = process.communicate()
    if process.returncode != 0:
        raise BackendError(f"{' '.join(args)} failed in {getattr(node, 'name', 'node')}: {output.strip()}")
    return args
