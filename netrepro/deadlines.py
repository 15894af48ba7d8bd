"""How long a tool may run before netrepro gives up on it: a hung tool (a peer that never
answers, a stack stuck in a syscall) ends the run with an error instead of holding the machine.
Each tool's limit (netrepro.tools.<tool>.limit_s and its kin) is what its settings need at their
slowest allowed pace, times MARGIN, plus SLACK_S; the tools' own watchdogs (pingx --timeout,
ttcp --timeout) normally end a failing run long before."""
from __future__ import annotations

from netrepro.linkspec import LinkParams

MARGIN = 4.0
SLACK_S = 60.0
# netsim runs in virtual time, where the tools' timeouts cost nothing: its limit comes from the
# work instead, the frames a run moves and the virtual time it may span, at a bound on the wall
# time of one simulated event (measured: 0.3-3 us an event on 2 shared cores, make bench-sim).
SIM_EVENT_S = 5e-6
# Events per frame on the link: its arrival, the wake-ups of the CPU and the process it causes,
# its share of the acknowledgements and of Tahoe's retransmissions on a lossy link (measured:
# 10 to 15 on liu95cool-tahoe's LAN and WAN).
SIM_EVENTS_PER_FRAME = 40
# Events per virtual second on a pair of idle hosts: echod's stop poll every 100 ms on host b
# with the wake-ups it causes (measured: 30).
SIM_EVENTS_PER_VIRTUAL_S = 40
# A transfer may go this many times slower than its line or its window allow (Tahoe's
# retransmission timeouts on a lossy link) before it counts as hung.
TTCP_SLOWDOWN = 50.0


def sim_limit_s(frames: int, virtual_s: float) -> float:
    """The wall-clock limit of a netsim run that moves frames frames over at most virtual_s
    seconds of virtual time: its events at SIM_EVENT_S each."""
    events = SIM_EVENTS_PER_FRAME * frames + SIM_EVENTS_PER_VIRTUAL_S * virtual_s
    return MARGIN * events * SIM_EVENT_S + SLACK_S


def bulk_limit_s(link: LinkParams, octets: int, window: int, wait_s: float, count: int) -> float:
    """The wall-clock limit of count transfers of octets each with window octets in flight,
    each after a pause and with a watchdog that together take wait_s."""
    line_s = octets * 8 / min(link.forward.rate_bps, link.reverse.rate_bps)
    window_s = octets / max(1, window) * max(link.min_rtt_s(), 1e-3)
    return MARGIN * count * (wait_s + TTCP_SLOWDOWN * max(line_s, window_s)) + SLACK_S
