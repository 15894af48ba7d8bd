"""Slow-start recovery episodes (ishikura Fig 1) from a sender's segment and TCP_DEBUG records:
hand-made traces with known answers, and one short netsim run with losses."""
import math

import pytest

from netrepro import recovery
from netrepro.sim import mftp_command, run_netsim
from netrepro.linkspec import link_from_dict

MSS = 1000
PORTS = {"sport": 2121, "dport": 1024}


def sent(at_ms, seq, length=MSS):
    return {"record": "segment", "host": "b", "at_ns": at_ms * 10**6, "seq": seq, "len": length, **PORTS}


def acked(at_ms, una, cwnd, wnd=4 * MSS, act="input", req=0):
    return {"record": "tcp_debug", "host": "b", "at_ns": at_ms * 10**6, "act": act, "req": req,
            "snd_una": una, "snd_wnd": wnd, "cwnd": cwnd, "ssthresh": 2 * MSS, "maxseg": MSS, **PORTS}


def test_a_recovery_runs_from_the_fall_of_cwnd_to_the_full_window_in_base_rtts():
    trace = [
        sent(0, 0), acked(100, MSS, 4 * MSS),        # RTT sample 100 ms
        sent(100, MSS), sent(101, 2 * MSS),
        acked(1000, MSS, MSS, act="user"),           # timeout: cwnd back to one segment
        sent(1000, MSS),                             # resent: no sample (Karn)
        acked(1150, 2 * MSS, 2 * MSS), acked(1300, 3 * MSS, 3 * MSS), acked(1400, 4 * MSS, 4 * MSS),
    ]
    (episode,) = recovery.episodes(trace)
    assert episode.base_rtt_ns == 100 * 10**6
    assert episode.seconds == pytest.approx(0.4)
    assert episode.rtts == pytest.approx(4.0)
    summary = recovery.summary([episode])
    assert summary["recoveries"] == 1 and summary["recoveries_cut"] == summary["recoveries_unfinished"] == 0
    assert summary["recovery_formula_rtts"] == pytest.approx(math.log2(2) + 2)


def test_a_recovery_met_by_the_next_loss_or_the_end_is_cut_not_timed():
    trace = [
        acked(0, MSS, 4 * MSS), acked(100, MSS, MSS, act="drop"), acked(200, 2 * MSS, 2 * MSS),
        acked(300, 2 * MSS, MSS, act="user"), acked(400, 3 * MSS, 2 * MSS),
    ]
    found = recovery.episodes(trace)
    assert [e.end_ns for e in found] == [None, None]
    assert [e.unfinished for e in found] == [False, True]
    summary = recovery.summary(found)
    assert summary["recoveries"] == 0
    assert summary["recoveries_cut"] == 1 and summary["recoveries_unfinished"] == 1
    assert summary["recovery_s"] is None


def test_a_second_timeout_cuts_a_recovery_though_cwnd_cannot_fall_further():
    trace = [
        acked(0, MSS, 4 * MSS), acked(100, MSS, MSS, act="user"),     # timeout: one segment
        acked(1100, MSS, MSS, act="user"),                            # the resend lost too
        acked(1300, 2 * MSS, 2 * MSS), acked(1500, 3 * MSS, 4 * MSS),
        acked(1600, 3 * MSS, 4 * MSS, act="user", req=1),             # the persist timer: no loss
    ]
    found = recovery.episodes(trace)
    assert [(e.start_ns, e.end_ns) for e in found] == [(100 * 10**6, None), (1100 * 10**6, 1500 * 10**6)]


def test_netsim_traces_give_recoveries_near_the_formula_for_a_small_window(tmp_path):
    """Four connections of 24K at 200 ms with cell loss in virtual time: every timed recovery
    takes a whole number of round trips, at least the formula's slow start."""
    link = link_from_dict("atm", {"framing": "aal5-vc-mux", "mtu": "9188B", "rate": "140Mbit", "delay": "100ms",
                                  "cell_loss_ratio": 6e-5, "queue": {"packets": 50}})
    command = mftp_command(link, None, 3, 4 << 20, tmp_path, ["-n", "4", "--window", "24K"],
                           stack_args=["--trace", "--tcp-debug"], dest=tmp_path / "got.bin")
    result = run_netsim(command)
    trace = sorted([*result.segments, *result.tcp_debug], key=lambda r: r["at_ns"])
    found = recovery.episodes(trace)
    done = [e for e in found if e.rtts is not None]
    assert done, "no recovery completed"
    assert all(e.window == 24576 and e.maxseg == 9148 for e in found)
    assert all(200 < e.base_rtt_ns / 1e6 < 210 for e in done)
    assert all(recovery.formula_rtts(24576, 9148) - 0.5 < e.rtts < 6 for e in done)
