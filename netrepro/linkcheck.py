"""Before a run measures anything, check that the emulated link is the link the spec asked for:
the median ping RTT and the bulk TCP goodput in each direction, measured with ping and iperf3,
within the link kind's tolerances. A link that is off fails the run loudly."""
from __future__ import annotations

import json
import re
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any

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
    passed: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def ping_rtts_ms(output: str) -> list[float]:
    return [float(value) for value in re.findall(r"time=([0-9.]+) ms", output)]


def measure_rtt_ms(src: Any, dst_ip: str) -> float:
    process = src.popen(["ping", "-n", "-c", str(PING_COUNT), "-i", "0.02", "-s", str(PING_BYTES), dst_ip],
                        stdout=-1, stderr=-2, text=True)
    output, _ = process.communicate(timeout=60)
    # The first echo carries ARP resolution; it says nothing about the link.
    rtts = ping_rtts_ms(output)[1:]
    if len(rtts) < PING_COUNT // 2:
        raise LinkCheckError(f"ping {dst_ip} from {src.name} got {len(rtts)} of {PING_COUNT} replies: {output.strip()[-300:]}")
    return statistics.median(rtts)


def iperf3_goodput_mbit(client: Any, server: Any, server_ip: str, reverse: bool,
                        udp_offer: tuple[float, int] | None = None) -> float:
    """Receiver-side goodput of a short bulk transfer, in Mb/s: TCP, or UDP offered at
    udp_offer = (bit/s, datagram payload octets)."""
    daemon = server.popen(["iperf3", "--server", "--one-off", "--port", str(IPERF_PORT)],
                          stdout=-1, stderr=-2, text=True)
    try:
        command = ["iperf3", "--client", server_ip, "--port", str(IPERF_PORT), "--time", str(IPERF_SECONDS),
                   "--omit", str(IPERF_OMIT_SECONDS), "--json"] + (["--reverse"] if reverse else [])
        if udp_offer:
            command += ["--udp", "--bitrate", str(int(udp_offer[0])), "--length", str(udp_offer[1])]
        for _ in range(50):
            process = client.popen(command, stdout=-1, stderr=-2, text=True)
            output, _ = process.communicate(timeout=60)
            try:
                report = json.loads(output)
            except json.JSONDecodeError:
                report = {"error": output.strip()[-300:]}
            end = report.get("end", {})
            if process.returncode == 0 and "sum_received" in end:
                return end["sum_received"]["bits_per_second"] / 1e6
            if process.returncode == 0 and udp_offer and "sum" in end:
                received = end["sum"]["bytes"] * (1 - end["sum"]["lost_percent"] / 100)
                return received * 8 / end["sum"]["seconds"] / 1e6
            error = str(report.get("error", output.strip()[-300:]))
            if "refused" not in error:
                raise LinkCheckError(f"iperf3 to {server_ip} failed: {error}")
            time.sleep(0.1)
        raise LinkCheckError(f"iperf3 server on {server.name} never accepted a connection")
    finally:
        if daemon.poll() is None:
            daemon.terminate()
        daemon.communicate(timeout=10)


def check_link(net: Any, link: LinkParams, h2_ip: str) -> LinkCheck:
    """Measures the running network and compares it with link; raises LinkCheckError if off."""
    expected_rtt = link.min_rtt_s(PING_BYTES + 28) * 1e3
    measured_rtt = measure_rtt_ms(net.h1, h2_ip)
    if link.is_lossy():
        # TCP's goodput on a lossy path measures its congestion control, not the link: offer
        # UDP above the line rate and expect the line's goodput less what dies after the line.
        payload = link.mtu - 28
        expected_fwd = link.udp_goodput_bps(payload, "forward") / 1e6
        expected_rev = link.udp_goodput_bps(payload, "reverse") / 1e6
        offer = UDP_OVERLOAD * max(link.forward.rate_bps, link.reverse.rate_bps)
        measured_fwd = iperf3_goodput_mbit(net.h1, net.h2, h2_ip, False, (offer, payload))
        measured_rev = iperf3_goodput_mbit(net.h1, net.h2, h2_ip, True, (offer, payload))
        formula = f"UDP: rate x {payload} / wire octets of a {link.mtu}-octet packet x (1 - cell/bit loss)"
    else:
        mss = link.mtu - LINUX_TCP_HEADERS
        expected_fwd = link.tcp_goodput_bps(mss, LINUX_TCP_HEADERS, "forward") / 1e6
        expected_rev = link.tcp_goodput_bps(mss, LINUX_TCP_HEADERS, "reverse") / 1e6
        measured_fwd = iperf3_goodput_mbit(net.h1, net.h2, h2_ip, reverse=False)
        measured_rev = iperf3_goodput_mbit(net.h1, net.h2, h2_ip, reverse=True)
        formula = f"TCP: rate x {mss} / wire octets of a {link.mtu}-octet packet ({link.framing} framing)"
    rtt_tol = link.check.rtt_tolerance_s * 1e3
    pct = link.check.rate_tolerance_pct
    rate_ok = all(abs(m - e) <= e * pct / 100 for m, e in ((measured_fwd, expected_fwd), (measured_rev, expected_rev)))
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
        passed=rate_ok and abs(measured_rtt - expected_rtt) <= rtt_tol,
    )
    if not result.passed:
        raise LinkCheckError(
            f"link {link.name} is not emulated as specified: RTT {measured_rtt:.3f} ms "
            f"(expected {expected_rtt:.3f} +- {rtt_tol:.3f}), TCP goodput {measured_fwd:.3f}/{measured_rev:.3f} Mb/s "
            f"forward/reverse (expected {expected_fwd:.3f}/{expected_rev:.3f} +- {pct}%). "
            "Check that nothing else loads the machine and that the backend suits the link."
        )
    return result
