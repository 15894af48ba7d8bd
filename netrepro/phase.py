"""The phase of the two hosts' 200 ms and 500 ms ticks in a Tahoe run, drawn from the run's seed
and given to both backends alike, so that emulation and virtual time start a run from the same
state: a 1 MB transfer or an abnormal echo hinges on where the receiver's delayed-ACK tick falls.

In virtual time host a boots as the application starts and host b `boot_b_ns` earlier (netsim's
--boot-b). On Mininet every host reads one CLOCK_MONOTONIC, so each Tahoe tool takes an
absolute phase (--tick-phase): it waits for the next instant that lies that long after a whole
second and boots its stack then, so the active tool (ttcp -t, pingx, mftp) starts as its host
boots, as host a does in netsim.
"""
from __future__ import annotations

import hashlib

# The 200 ms and 500 ms ticks come back to the same phase every second.
TICK_CYCLE_NS = 1_000_000_000
# Host b's absolute phase. Its server starts first (in liu95db an echod for each mode of a
# trial), so host a's phase is the one each run's seed sets.
HOST_B_PHASE_NS = 0


def boot_b_ns(seed: int) -> int:
    """How long before host a host b booted, uniform over one tick cycle, from seed."""
    digest = hashlib.sha256(f"tick-phase:{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % TICK_CYCLE_NS


def host_a_phase(boot_b: int) -> int:
    """Host a's absolute phase, so that host b, at HOST_B_PHASE_NS, booted boot_b earlier."""
    return (HOST_B_PHASE_NS + boot_b) % TICK_CYCLE_NS


def tick_phase_args(stack: str, phase_ns: int) -> list[str]:
    """A tool's --tick-phase on the Tahoe stack; nothing on the Linux stacks, whose timers
    are the kernel's."""
    return ["--tick-phase", f"{phase_ns % TICK_CYCLE_NS}ns"] if stack == "tahoe" else []


# netsim draws each host's interrupt and scheduling jitter from the run's seed on a stream of
# its own (tools/netsim/sim.c, STREAM_JITTER + host): the Tahoe tools take the same (--jitter).
JITTER_STREAM_A = 5
JITTER_STREAM_B = 6


def jitter_args(stack: str, seed: int, stream: int) -> list[str]:
    """A Tahoe tool's --jitter: the run's seed and its host's stream; nothing on Linux."""
    return ["--jitter", f"{seed}:{stream}"] if stack == "tahoe" else []


def host_a_args(stack: str, seed: int) -> list[str]:
    """The active tool's (host a's) --tick-phase and jitter stream for the run drawn from seed."""
    return [*tick_phase_args(stack, host_a_phase(boot_b_ns(seed))), *jitter_args(stack, seed, JITTER_STREAM_A)]


def host_b_args(stack: str, seed: int | None = None) -> list[str]:
    """The server's (host b's) --tick-phase, the same for every run, and, for a server that
    serves one run (seed given), that run's jitter stream; a server of several runs draws its
    own."""
    jitter = jitter_args(stack, seed, JITTER_STREAM_B) if seed is not None else []
    return [*tick_phase_args(stack, HOST_B_PHASE_NS), *jitter]
