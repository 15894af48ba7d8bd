"""Slow-start recovery after a loss (ishikura Fig 1), measured from a sender's congestion window.

netsim's --tcp-debug records (4.3BSD TCP_DEBUG: a connection's send state after every segment
taken in and every timer run out) give cwnd ACK by ACK; its --trace records give when each
segment left. An episode starts where cwnd falls (a retransmission timeout or the third
duplicate ACK: Tahoe restarts from one segment) and ends at the first record whose cwnd is back
at the connection's full window W (the largest window the receiver offered). One that meets
another loss first is cut; one still open when the trace of its connection ends (the transfer
was over) is unfinished. Neither is timed. The RTT it is counted in is the
connection's base RTT: the shortest time from sending a segment, never resent (Karn), to the
ACK that covers it.
"""
from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

TCPT_REXMT = 0  # the retransmission timer's number in a tcp_debug record's req (tcp_timer.h)


@dataclass(frozen=True)
class Episode:
    """One recovery of one connection; end_ns None when it was cut (by a loss) or unfinished."""

    connection: tuple[int, int]
    start_ns: int
    end_ns: int | None
    window: int
    maxseg: int
    base_rtt_ns: int | None
    unfinished: bool = False

    @property
    def seconds(self) -> float | None:
        return None if self.end_ns is None else (self.end_ns - self.start_ns) / 1e9

    @property
    def rtts(self) -> float | None:
        if self.end_ns is None or not self.base_rtt_ns:
            return None
        return (self.end_ns - self.start_ns) / self.base_rtt_ns


def formula_rtts(window: int, maxseg: int) -> float:
    """The paper's Tr in RTTs: log2(W/(2*MSS)) + W/(2*MSS)."""
    half = window / (2 * maxseg)
    return math.log2(half) + half


def base_rtts(records: Iterable[dict[str, Any]], host: str) -> dict[tuple[int, int], int]:
    """Each connection's shortest RTT sample at host, from its segment and tcp_debug records."""
    sent: dict[tuple[int, int], dict[int, int | None]] = defaultdict(dict)
    last_una: dict[tuple[int, int], int] = {}
    best: dict[tuple[int, int], int] = {}
    for record in records:
        if record.get("host") != host:
            continue
        key = (record["sport"], record["dport"])
        if record["record"] == "segment" and record["len"] > 0:
            end = (record["seq"] + record["len"]) & 0xFFFFFFFF
            # A segment sent twice gives no sample (Karn).
            sent[key][end] = None if end in sent[key] else record["at_ns"]
        elif record["record"] == "tcp_debug" and record["act"] == "input":
            una = record["snd_una"]
            if una != last_una.get(key):
                at = sent[key].get(una)
                if at is not None:
                    sample = record["at_ns"] - at
                    best[key] = min(sample, best.get(key, sample))
            last_una[key] = una
    return best


def episodes(records: list[dict[str, Any]], host: str = "b") -> list[Episode]:
    """The recovery episodes of every connection that sent data from host (mftpd's: b)."""
    debug: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        if record.get("record") == "tcp_debug" and record.get("host") == host:
            debug[(record["sport"], record["dport"])].append(record)
    rtts = base_rtts(records, host)
    found = []
    for key, trail in debug.items():
        window = max(r["snd_wnd"] for r in trail)
        open_at: int | None = None
        maxseg = trail[0]["maxseg"]
        for previous, record in zip(trail, trail[1:]):
            # A timeout is a loss even when cwnd was already down to one segment.
            timeout = record["act"] == "user" and record["req"] == TCPT_REXMT
            if record["cwnd"] < previous["cwnd"] or timeout:
                if open_at is not None:
                    found.append(Episode(key, open_at, None, window, maxseg, rtts.get(key)))
                open_at, maxseg = record["at_ns"], record["maxseg"]
            elif open_at is not None and record["cwnd"] >= window:
                found.append(Episode(key, open_at, record["at_ns"], window, maxseg, rtts.get(key)))
                open_at = None
        if open_at is not None:
            found.append(Episode(key, open_at, None, window, maxseg, rtts.get(key), unfinished=True))
    return sorted(found, key=lambda e: (e.start_ns, e.connection))


def summary(found: list[Episode]) -> dict[str, Any]:
    """A session's recoveries as result columns: completed, cut and unfinished counts, the mean Tr of the
    completed ones in seconds and in base RTTs, the formula's Tr for their window and MSS, and
    the mean base RTT of the connections that lost a segment."""
    done = [e for e in found if e.end_ns is not None]
    in_rtts = [r for r in (e.rtts for e in done) if r is not None]
    rtt_ns = {e.connection: e.base_rtt_ns for e in found if e.base_rtt_ns}
    return {
        "recoveries": len(done),
        "recoveries_cut": sum(1 for e in found if e.end_ns is None and not e.unfinished),
        "recoveries_unfinished": sum(1 for e in found if e.unfinished),
        "recovery_s": statistics.fmean(e.seconds or 0.0 for e in done) if done else None,
        "recovery_rtts": statistics.fmean(in_rtts) if in_rtts else None,
        "recovery_formula_rtts": statistics.fmean(formula_rtts(e.window, e.maxseg) for e in found) if found else None,
        "base_rtt_ms": statistics.fmean(rtt_ns.values()) / 1e6 if rtt_ns else None,
    }
