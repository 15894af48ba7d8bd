"""How long a tool may run before netrepro gives up on it: a hung tool (a peer that never
answers, a stack stuck in a syscall) ends the run with an error instead of holding the machine.
Each tool's limit (netrepro.tools.<tool>.limit_s and its kin) is what its settings need at their
slowest allowed pace, times MARGIN, plus SLACK_S; the tools' own watchdogs (pingx --timeout,
ttcp --timeout) normally end a failing run long before."""
from __future__ import annotations

from netrepro.linkspec import LinkParams

MARGIN = 4.0
SLACK_S = 60.0
# A transfer may go this many times slower than its line or its window allow (Tahoe's
# retransmission timeouts on a lossy link) before it counts as hung.
TTCP_SLOWDOWN = 50.0


def bulk_limit_s(link: LinkParams, octets: int, window: int, wait_s: float, count: int) -> float:
    """The wall-clock limit of count transfers of octets each with window octets in flight,
    each after a pause and with a watchdog that together take wait_s."""
    line_s = octets * 8 / min(link.forward.rate_bps, link.reverse.rate_bps)
    window_s = octets / max(1, window) * max(link.min_rtt_s(), 1e-3)
    return MARGIN * count * (wait_s + TTCP_SLOWDOWN * max(line_s, window_s)) + SLACK_S
