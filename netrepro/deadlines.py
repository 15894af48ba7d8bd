"""How long a tool of a plan may run before netrepro gives up on it: a hung tool (a peer that
never answers, a stack stuck in a syscall) ends the run with an error instead of holding the
machine. Each limit is what the plan needs at its slowest allowed pace, times MARGIN, plus
SLACK_S; the tools' own watchdogs (pingx --timeout, ttcp --timeout) normally end a failing run
long before."""
from __future__ import annotations

import math

from netrepro.spec import Experiment

MARGIN = 4.0
SLACK_S = 60.0
# pingx raises a large message's echo timeout to a round trip at 1 Mbit/s (tools/pingx/args.c).
PINGX_TIMEOUT_PER_OCTET_S = 16e-6
# An upper bound of one busy-loop iteration of udp-cooled's --cool-iterations on any host.
COOL_ITERATION_S = 1e-6
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
# A ttcp transfer may go this many times slower than its line or its window allow (Tahoe's
# retransmission timeouts on a lossy link) before it counts as hung.
TTCP_SLOWDOWN = 50.0


def pingx_message_s(experiment: Experiment, size: int) -> float:
    """The longest one echo of size octets may take: its interval, its sending (cooled gaps
    between datagrams) and the longest wait for its echo."""
    datagrams = math.ceil(size / experiment.datagram) + 1
    if experiment.cooling_gap_s is not None:
        gap = experiment.cooling_gap_s
    else:
        gap = (experiment.cooling_iterations or 0) * COOL_ITERATION_S
    wait = max(experiment.timeout_s, size * PINGX_TIMEOUT_PER_OCTET_S)
    return experiment.interval_s + 2 * datagrams * gap + wait


def pingx_limit_s(experiment: Experiment) -> float:
    """The wall-clock limit of one pingx run (one mode, every size, every echo)."""
    total = sum(pingx_message_s(experiment, m.size) for m in experiment.messages) * experiment.echoes
    return MARGIN * total + SLACK_S


def pingx_frames(experiment: Experiment, size: int) -> int:
    """The frames one echo of size octets puts on the link, there and back: its TCP segments
    of the link's MTU, or its datagrams of experiment.datagram octets in fragments of it."""
    payload = max(1, experiment.link.mtu - 40)
    return 2 * (math.ceil(size / payload) + math.ceil(size / experiment.datagram) + 1)


def pingx_sim_limit_s(experiment: Experiment) -> float:
    """The wall-clock limit of one pingx run in netsim (one mode, every size, every echo): its
    events at SIM_EVENT_S each, for the frames its echoes move and for the most virtual time
    they may span (every echo waiting its whole timeout)."""
    frames = sum(pingx_frames(experiment, m.size) for m in experiment.messages) * experiment.echoes
    virtual_s = sum(pingx_message_s(experiment, m.size) for m in experiment.messages) * experiment.echoes
    events = SIM_EVENTS_PER_FRAME * frames + SIM_EVENTS_PER_VIRTUAL_S * virtual_s
    return MARGIN * events * SIM_EVENT_S + SLACK_S


def bulk_limit_s(experiment: Experiment, octets: int, window: int, wait_s: float, count: int) -> float:
    """The wall-clock limit of count transfers of octets each with window octets in flight,
    each after a pause and with a watchdog that together take wait_s."""
    link = experiment.link
    line_s = octets * 8 / min(link.forward.rate_bps, link.reverse.rate_bps)
    window_s = octets / max(1, window) * max(link.min_rtt_s(), 1e-3)
    return MARGIN * count * (wait_s + TTCP_SLOWDOWN * max(line_s, window_s)) + SLACK_S


def ttcp_limit_s(experiment: Experiment, send_buffer: int, recv_buffer: int) -> float:
    """The wall-clock limit of one ttcp end's run of all its transfers of a buffer pair."""
    assert experiment.ttcp is not None
    plan = experiment.ttcp
    return bulk_limit_s(experiment, experiment.transfer_bytes, min(send_buffer, recv_buffer),
                        plan.pause_s + plan.pause_spread_s + plan.timeout_s, experiment.transfers)


def mftp_limit_s(experiment: Experiment) -> float:
    """The wall-clock limit of one mftp session (every transfer of a trial, or of a sweep
    point), with the window of its one connection: the slowest pace N connections can take."""
    assert experiment.mftp is not None
    plan = experiment.mftp
    return bulk_limit_s(experiment, experiment.transfer_bytes, plan.window, plan.pause_s + plan.timeout_s,
                        experiment.transfers)


def ipcbench_limit_s(experiment: Experiment, window: int, size: int) -> float:
    """The wall-clock limit of one ipcbench run: every message of size octets of one curve,
    window octets in flight (a curve's buffer, or its segment times its unacknowledged ones)."""
    assert experiment.ipcbench is not None
    plan = experiment.ipcbench
    return bulk_limit_s(experiment, size, window, plan.pause_s + plan.timeout_s, experiment.transfers)
