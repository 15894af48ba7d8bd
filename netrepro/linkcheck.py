"""Before a run measures anything, check that the emulated link is the link the spec asked for:
the median ping RTT and the bulk goodput in each direction (TCP, or UDP on a lossy link),
measured with ping and iperf3 at the receiving end, within the link kind's tolerances. A link that is off fails the run loudly."""
from __future__ import annotations

import json
import re
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any

from netrepro.cleanup import finish, kill_group
from netrepro.linkspec import LinkParams

PING_COUNT = 21
PING_BYTES = 56  # ping's default: 84-octet IP packets
IPERF_PORT = 5201
IPERF_SECONDS = 2
IPERF_OMIT_SECONDS = 1
# Linux TCP carries timestamps: 20 IP + 20 TCP + 12 option octets per segment.
LINUX_TCP_HEADERS = 52
# A lossy link is checked with UDP offered this much above its line rate, so the line saturates
# even after random loss before the queue.
UDP_OVERLOAD = 1.25
# A receiver interval counts if it is nearly a whole second (iperf3's default interval) and
# ends with the test, give or take the server's clock starting a little apart from the client's.
MIN_INTERVAL_S = 0.9
END_SLACK_S = 0.1
# The error of a UDP test whose first datagram, or the server's answer, the link lost (iperf3
# sends it once); such a test is run again, at most IPERF_ATTEMPTS times in all.
SETUP_ERRORS = ("unable to read from stream socket",)
IPERF_ATTEMPTS = 5
# A goodput outside the tolerance is measured once more and judged on that second sample: one
# second of a fast link can run a few per cent high or low by its interval's edges alone (seen:
# 133.9 Mb/s for 125.7 on the 140 Mb/s ATM link, once in many runs), while a link that is off
# is off twice.
GOODPUT_SAMPLES = 2
# Wall-clock limits of the check's tools; one past its limit is killed and the run fails.
PING_LIMIT_S = 60.0
PROBE_LIMIT_S = 10.0
IPERF_GRACE_S = 60.0


class LinkCheckError(RuntimeError):
    """The emulated link differs from its specification by more than the tolerance."""


@dataclass(frozen=True)
class LinkCheck:
    expected_rtt_ms: float
    measured_rtt_ms: float
    rtt_tolerance_ms: float
    expected_goodput_mbit: float
    measured_goodput_mbit: float
    measured_reverse_goodput_mbit: float
    expected_reverse_goodput_mbit: float
    rate_tolerance_pct: float
    goodput_formula: str
    goodput_samples: int
    passed: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def ping_rtts_ms(output: str) -> list[float]:
    return [float(value) for value in re.findall(r"time=([0-9.]+) ms", output)]


def measure_rtt_ms(src: Any, dst_ip: str) -> float:
    process = src.popen(["ping", "-n", "-c", str(PING_COUNT), "-i", "0.02", "-s", str(PING_BYTES), dst_ip],
                        stdout=-1, stderr=-2, text=True)
    output, _ = finish(process, PING_LIMIT_S, f"ping {dst_ip} from {src.name}")
    # The first echo carries ARP resolution; it says nothing about the link.
    rtts = ping_rtts_ms(output)[1:]
    if len(rtts) < PING_COUNT // 2:
        raise LinkCheckError(f"ping {dst_ip} from {src.name} got {len(rtts)} of {PING_COUNT} replies: {output.strip()[-300:]}")
    return statistics.median(rtts)


def iperf3_command(server_ip: str, reverse: bool, udp_offer: tuple[float, int] | None) -> list[str]:
    # --get-server-output: in the forward direction the server is the receiver, and only its
    # intervals say what arrived while the sender was still sending.
    command = ["iperf3", "--client", server_ip, "--port", str(IPERF_PORT), "--time", str(IPERF_SECONDS),
               "--omit", str(IPERF_OMIT_SECONDS), "--json", "--get-server-output"]
    if reverse:
        command.append("--reverse")
    if udp_offer:
        command += ["--udp", "--bitrate", str(int(udp_offer[0])), "--length", str(udp_offer[1])]
    return command


def parse_iperf3_report(output: str) -> dict[str, Any]:
    """The client's JSON report; a report that is not JSON becomes {"error": its tail}."""
    try:
        report = json.loads(output)
    except json.JSONDecodeError:
        return {"error": f"iperf3 printed no JSON report: {output.strip()[-300:]!r}"}
    return report if isinstance(report, dict) else {"error": f"iperf3 printed {output.strip()[-300:]!r}"}


def receiver_intervals(report: dict[str, Any], reverse: bool) -> list[dict[str, Any]]:
    """The receiving end's interval totals: the client's own with --reverse, else the server's."""
    source = report if reverse else report.get("server_output_json", {})
    return [interval["sum"] for interval in source.get("intervals", []) if "sum" in interval]


def receiver_goodput_mbit(report: dict[str, Any], reverse: bool) -> float:
    """Goodput the receiving end counted while the sender sent, in Mb/s, over the whole
    intervals of the test after --omit. Not the receiver's total: that runs on until iperf3's
    end-of-test message arrives over the control connection, which on a lossy link may take a
    retransmission timeout or several, and so counts idle seconds against the link."""
    full = [s for s in receiver_intervals(report, reverse)
            if not s.get("omitted") and s["seconds"] >= MIN_INTERVAL_S and s["end"] <= IPERF_SECONDS + END_SLACK_S]
    if not full:
        raise LinkCheckError("iperf3 reported no whole receiver interval within the test: "
                             f"{json.dumps(receiver_intervals(report, reverse))[:300]}")
    return sum(s["bytes"] for s in full) * 8 / sum(s["seconds"] for s in full) / 1e6


def setup_failed(report: dict[str, Any]) -> bool:
    """Whether the test died before any data moved, for a reason a lossy link explains: iperf3's
    UDP stream starts with one datagram each way and no retry."""
    error = str(report.get("error", ""))
    return not report.get("intervals") and any(cause in error for cause in SETUP_ERRORS)


def wait_listening(host: Any, timeout_s: float = 5.0) -> None:
    """Waits until the iperf3 server listens, so the client's first connect is not refused."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        probe = host.popen(["ss", "-Hltn", f"sport = :{IPERF_PORT}"], stdout=-1, stderr=-2, text=True)
        output, _ = finish(probe, PROBE_LIMIT_S, f"ss on {host.name}")
        if output.strip():
            return
        time.sleep(0.05)
    raise LinkCheckError(f"iperf3 server on {host.name} did not listen on port {IPERF_PORT} within {timeout_s:.0f} s")


def run_iperf3(client: Any, server: Any, command: list[str]) -> dict[str, Any]:
    """One iperf3 test against a one-off server; returns the client's report."""
    daemon = server.popen(["iperf3", "--server", "--one-off", "--json", "--port", str(IPERF_PORT)],
                          stdout=-1, stderr=-2, text=True)
    try:
        wait_listening(server)
        # stderr apart: iperf3 warns there (e.g. UDP datagrams larger than the TCP MSS) even
        # with --json, and the warning must not spoil the report on stdout.
        process = client.popen(command, stdout=-1, stderr=-1, text=True)
        output, errors = finish(process, IPERF_SECONDS + IPERF_GRACE_S, f"iperf3 client on {client.name}")
        report = parse_iperf3_report(output)
        if process.returncode != 0 and "error" not in report:
            report["error"] = f"exit {process.returncode}: {errors.strip()[-300:]}"
        return report
    finally:
        # Killed, not asked: a one-off server ends by itself after a test, and one still there
        # after a failed test has nothing to say that the client's error does not.
        kill_group(daemon)


def iperf3_goodput_mbit(client: Any, server: Any, server_ip: str, reverse: bool,
                        udp_offer: tuple[float, int] | None = None) -> float:
    """Receiver-side goodput of a short bulk transfer, in Mb/s: TCP, or UDP offered at
    udp_offer = (bit/s, datagram payload octets)."""
    command = iperf3_command(server_ip, reverse, udp_offer)
    for _ in range(IPERF_ATTEMPTS):
        report = run_iperf3(client, server, command)
        if "error" not in report:
            return receiver_goodput_mbit(report, reverse)
        if not setup_failed(report):
            break
    raise LinkCheckError(f"iperf3 {' '.join(command[1:])} failed: {report['error']}")


def within(measured: float, expected: float, pct: float) -> bool:
    return abs(measured - expected) <= expected * pct / 100


def goodput_within(measure: Any, expected: float, pct: float) -> tuple[float, int]:
    """measure()'s goodput, taken again while outside expected +- pct % (GOODPUT_SAMPLES in
    all), and how many samples it took."""
    for sample in range(1, GOODPUT_SAMPLES + 1):
        value = measure()
        if within(value, expected, pct):
            break
    return value, sample


def check_link(net: Any, link: LinkParams, h2_ip: str) -> LinkCheck:
    """Measures the running network and compares it with link; raises LinkCheckError if off."""
    expected_rtt = link.min_rtt_s(PING_BYTES + 28) * 1e3
    measured_rtt = measure_rtt_ms(net.h1, h2_ip)
    pct = link.check.rate_tolerance_pct
    if link.is_lossy() or link.medium == "shared":
        # TCP's goodput on a lossy path measures its congestion control, not the link: offer
        # UDP above the line rate and expect the line's goodput less what dies after the line.
        # On a shared medium TCP's ACKs take turns with its data and collide with it, which no
        # formula gives; one-way UDP has the wire to itself.
        payload = link.mtu - 28
        expected_fwd = link.udp_goodput_bps(payload, "forward") / 1e6
        expected_rev = link.udp_goodput_bps(payload, "reverse") / 1e6
        udp_offer = (UDP_OVERLOAD * max(link.forward.rate_bps, link.reverse.rate_bps), payload)
        formula = f"UDP: rate x {payload} / wire octets of a {link.mtu}-octet packet x (1 - cell/bit loss)"
    else:
        mss = link.mtu - LINUX_TCP_HEADERS
        expected_fwd = link.tcp_goodput_bps(mss, LINUX_TCP_HEADERS, "forward") / 1e6
        expected_rev = link.tcp_goodput_bps(mss, LINUX_TCP_HEADERS, "reverse") / 1e6
        udp_offer = None
        formula = f"TCP: rate x {mss} / wire octets of a {link.mtu}-octet packet ({link.framing} framing)"
    measured_fwd, fwd_samples = goodput_within(
        lambda: iperf3_goodput_mbit(net.h1, net.h2, h2_ip, False, udp_offer), expected_fwd, pct)
    measured_rev, rev_samples = goodput_within(
        lambda: iperf3_goodput_mbit(net.h1, net.h2, h2_ip, True, udp_offer), expected_rev, pct)
    rtt_tol = link.check.rtt_tolerance_s * 1e3
    rate_ok = within(measured_fwd, expected_fwd, pct) and within(measured_rev, expected_rev, pct)
    result = LinkCheck(
        expected_rtt_ms=expected_rtt,
        measured_rtt_ms=measured_rtt,
        rtt_tolerance_ms=rtt_tol,
        expected_goodput_mbit=expected_fwd,
        measured_goodput_mbit=measured_fwd,
        expected_reverse_goodput_mbit=expected_rev,
        measured_reverse_goodput_mbit=measured_rev,
        rate_tolerance_pct=pct,
        goodput_formula=formula,
        goodput_samples=fwd_samples + rev_samples,
        passed=rate_ok and abs(measured_rtt - expected_rtt) <= rtt_tol,
    )
    if not result.passed:
        raise LinkCheckError(
            f"link {link.name} is not emulated as specified: RTT {measured_rtt:.3f} ms "
            f"(expected {expected_rtt:.3f} +- {rtt_tol:.3f}), {formula.split(':')[0]} goodput "
            f"{measured_fwd:.3f}/{measured_rev:.3f} Mb/s "
            f"forward/reverse (expected {expected_fwd:.3f}/{expected_rev:.3f} +- {pct}%). "
            "Check that nothing else loads the machine and that the backend suits the link."
        )
    return result
