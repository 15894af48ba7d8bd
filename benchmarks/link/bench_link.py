#!/usr/bin/python3
"""Benchmark of linkemu: does an emulated link give the rate, delay and loss it was configured
with? Measured with clients netrepro did not write: iperf3 for goodput, ping for RTT, and the
emulator's own counters for loss. Run as root:

    sudo /usr/bin/python3 benchmarks/link/bench_link.py [--quick]

Builds h1 -- mid -- h2 in Mininet (plain veth links, no switch, no controller), runs linkemu in
mid through LinkemuBackend, and writes benchmarks/results/linkemu.json and linkemu.md, then
benchmarks/README.md from every benchmark's table.
Not a test: the figures depend on the machine, and the JSON says whether each target was met.
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from mininet.link import Link  # noqa: E402
from mininet.log import setLogLevel  # noqa: E402
from mininet.net import Mininet  # noqa: E402
from mininet.node import Host  # noqa: E402

from benchmarks.readme import write_readme  # noqa: E402
from netrepro.backends.linkemu import LinkemuBackend  # noqa: E402
from netrepro.cpuidle import ShallowIdle  # noqa: E402
from netrepro.linkspec import LinkParams, link_from_dict  # noqa: E402
from netrepro.provenance import git_commit  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
H1_IP, H2_IP = "10.0.0.1", "10.0.0.2"
IF_A, IF_B = "mid-eth0", "mid-eth1"
# Linux puts a 12-octet timestamp option in every TCP segment: 20 IP + 20 TCP + 12.
TCP_HEADER = 52
UDP_HEADER = 28
PING_IP_OCTETS = 84  # default ping: 56 data + 8 ICMP + 20 IP
GOODPUT_TOLERANCE = 0.02
MEDIAN_TOLERANCE_S = 0.0002
P99_TOLERANCE_S = 0.001
CAPACITY_TARGET_BPS = 1e9
# 1 Gb/s of UDP payload is 1.019 Gb/s of 1500-octet IP packets, just above the target.
CAPACITY_OFFERED_PAYLOAD_BPS = 1e9
Z95 = 1.96


def run(host: Host, args: list[str], timeout: float = 120) -> str:
    process = host.popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise RuntimeError(f"{' '.join(args)} in {host.name} timed out")
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} in {host.name} failed: {err.strip() or out.strip()}")
    return out


class Bench:
    """The three-node network, reconfigured per case."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.net = Mininet(topo=None, controller=None, build=False, autoSetMacs=True, waitConnected=False)
        self.h1 = self.net.addHost("h1", cls=Host, ip=f"{H1_IP}/24")
        self.mid = self.net.addHost("mid", cls=Host, ip=None)
        self.h2 = self.net.addHost("h2", cls=Host, ip=f"{H2_IP}/24")
        self.net.addLink(self.h1, self.mid, cls=Link, intfName1="h1-eth0", intfName2=IF_A)
        self.net.addLink(self.mid, self.h2, cls=Link, intfName1=IF_B, intfName2="h2-eth0")
        self.net.build()
        self.ifaces = ((self.h1, "h1-eth0"), (self.mid, IF_A), (self.mid, IF_B), (self.h2, "h2-eth0"))
        for host, iface in self.ifaces:
            # Frames must be the sizes the stacks chose and carry finished checksums.
            run(host, ["ethtool", "-K", iface, "tso", "off", "gso", "off", "gro", "off", "tx", "off",
                       "rx", "off", "sg", "off"])
        self.mtu = 0

    def set_mtu(self, mtu: int) -> None:
        if mtu != self.mtu:
            for host, iface in self.ifaces:
                run(host, ["ip", "link", "set", "dev", iface, "mtu", str(mtu)])
            self.mtu = mtu

    def emulate(self, link: LinkParams, name: str) -> "Emulation":
        self.set_mtu(link.mtu)
        return Emulation(self, link, self.log_dir / name)

    def stop(self) -> None:
        self.net.stop()


class Emulation:
    """linkemu running for the duration of a with-block; counters end up in .counters."""

    def __init__(self, bench: Bench, link: LinkParams, log_dir: Path) -> None:
        self.bench, self.link, self.log_dir = bench, link, log_dir
        self.backend = LinkemuBackend(seed=1)
        self.counters: dict[str, Any] = {}

    def __enter__(self) -> "Emulation":
        self.backend.start(self.bench.mid, IF_A, IF_B, self.link, self.log_dir)
        # Resolve ARP first, so that no measurement waits for it.
        run(self.bench.h1, ["ping", "-c", "2", "-i", "0.2", "-W", "2", H2_IP])
        return self

    def __exit__(self, *exc: object) -> None:
        self.counters = self.backend.stop()


def iperf3(bench: Bench, args: list[str], seconds: int) -> dict[str, Any]:
    server = bench.h2.popen(["iperf3", "-s", "-1", "-B", H2_IP], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(0.3)
        out = run(bench.h1, ["iperf3", "-c", H2_IP, "-J", "-t", str(seconds), "-O", "1", *args],
                  timeout=seconds + 30)
        server.communicate(timeout=15)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    return json.loads(out)


def link(rate: str, framing: str, mtu: int, queue: int = 100, **extra: Any) -> LinkParams:
    return link_from_dict(f"bench-{rate}-{framing}", {"framing": framing, "mtu": f"{mtu}B", "rate": rate,
                                                      "queue": {"packets": queue}, **extra})


def throughput_case(bench: Bench, rate: str, framing: str, mtu: int, seconds: int) -> dict[str, Any]:
    lk = link(rate, framing, mtu)
    rate_bps = lk.forward.rate_bps
    mss = mtu - TCP_HEADER
    expected_tcp = lk.tcp_goodput_bps(mss, header_octets=TCP_HEADER)
    udp_payload = mtu - UDP_HEADER
    expected_udp = rate_bps * udp_payload / lk.wire_octets(mtu)
    with bench.emulate(lk, f"throughput-{rate}-tcp") as emu:
        tcp = iperf3(bench, ["-w", "4M"], seconds)
    tcp_counters = emu.counters
    # UDP is offered 5% above the line rate so that the line never idles; the queue drops the rest.
    with bench.emulate(lk, f"throughput-{rate}-udp") as emu:
        udp = iperf3(bench, ["-u", "-b", f"{int(rate_bps * 1.05)}", "-l", str(udp_payload), "-w", "8M"], seconds)
    udp_counters = emu.counters
    tcp_bps = tcp["end"]["sum_received"]["bits_per_second"]
    udp_bps = udp_received_bps(udp)
    return {
        "case": f"throughput {rate} {framing}",
        "kind": "throughput",
        "rate_mbit": rate_bps / 1e6,
        "framing": framing,
        "mtu": mtu,
        "expected_goodput_mbit": {"tcp": expected_tcp / 1e6, "udp": expected_udp / 1e6},
        "expected_how": (
            f"tcp: LinkParams.tcp_goodput_bps(mss={mss}, header_octets={TCP_HEADER}) = rate * {mss} / "
            f"wire_octets({mtu}) = rate * {mss} / {lk.wire_octets(mtu)}; "
            f"udp: rate * {udp_payload} / wire_octets({mtu})"
        ),
        "iperf3_tcp_mbit": tcp_bps / 1e6,
        "iperf3_udp_mbit": udp_bps / 1e6,
        "tcp_error_pct": 100 * (tcp_bps / expected_tcp - 1),
        "udp_error_pct": 100 * (udp_bps / expected_udp - 1),
        "tcp_retransmits": tcp["end"]["sum_sent"].get("retransmits"),
        "emulator": {"tcp": tcp_counters, "udp": udp_counters},
        "target": f"iperf3 TCP and UDP goodput within {GOODPUT_TOLERANCE:.0%} of expected",
        "target_met": abs(tcp_bps / expected_tcp - 1) <= GOODPUT_TOLERANCE
        and abs(udp_bps / expected_udp - 1) <= GOODPUT_TOLERANCE,
    }


def udp_received_bps(result: dict[str, Any]) -> float:
    """Goodput at the receiver: bytes it got over the receiving time."""
    received = result["end"]["sum_received"]
    return received["bytes"] * 8 / received["seconds"]


def ping_rtts(bench: Bench, count: int, interval: float) -> tuple[list[float], float]:
    """RTTs in seconds, and the resolution ping printed them with."""
    out = run(bench.h1, ["ping", "-c", str(count), "-i", str(interval), "-W", "2", H2_IP], timeout=count * interval + 30)
    rtts, resolution = [], 0.001
    for line in out.splitlines():
        if "time=" in line:
            text = line.split("time=")[1].split()[0]
            decimals = len(text.split(".")[1]) if "." in text else 0
            resolution = max(resolution, 10.0 ** -decimals)
            rtts.append(float(text) / 1000)
    return rtts, resolution / 1000


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = q * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def baseline_case(bench: Bench, count: int) -> dict[str, Any]:
    """Ping through a Linux bridge in mid instead of linkemu: the RTT of the hosts' stacks and
    the veths, which every delay case also pays and which is no part of the emulated link."""
    bench.set_mtu(1500)
    bridge = [["ip", "link", "add", "name", "br-base", "type", "bridge"],
              ["ip", "link", "set", "dev", IF_A, "master", "br-base"],
              ["ip", "link", "set", "dev", IF_B, "master", "br-base"],
              ["ip", "link", "set", "dev", "br-base", "up"]]
    for args in bridge:
        run(bench.mid, args)
    try:
        run(bench.h1, ["ping", "-c", "2", "-i", "0.2", "-W", "2", H2_IP])
        rtts, resolution = ping_rtts(bench, count, 0.01)
    finally:
        run(bench.mid, ["ip", "link", "del", "dev", "br-base"])
    return {
        "case": "baseline: kernel bridge, no emulation",
        "kind": "baseline",
        "pings": len(rtts),
        "rtt_median_ms": statistics.median(rtts) * 1e3,
        "rtt_p99_ms": percentile(rtts, 0.99) * 1e3,
        "rtt_resolution_ms": resolution * 1e3,
        "target": "none: the reference the delay cases subtract",
        "target_met": True,
    }


def delay_case(bench: Bench, delay: str, count: int, baseline_s: float) -> dict[str, Any]:
    lk = link("100Mbit", "ethernet", 1500, delay=delay)
    with bench.emulate(lk, f"delay-{delay}") as emu:
        rtts, resolution = ping_rtts(bench, count, 0.01)
    expected = lk.min_rtt_s(PING_IP_OCTETS)
    # What the emulator added: the RTT less the bridged path's median RTT.
    median = statistics.median(rtts) - baseline_s
    p99 = percentile(rtts, 0.99) - baseline_s
    return {
        "case": f"delay {delay} each way",
        "kind": "delay",
        "rate_mbit": lk.forward.rate_bps / 1e6,
        "framing": lk.framing,
        "delay_ms": lk.forward.delay_s * 1e3,
        "expected_rtt_ms": expected * 1e3,
        "expected_how": f"LinkParams.min_rtt_s({PING_IP_OCTETS}): 2 x delay + serialization of an "
                        f"{PING_IP_OCTETS}-octet ping each way; measured values are added delay, the "
                        "RTT less the baseline case's median",
        "baseline_rtt_median_ms": baseline_s * 1e3,
        "pings": len(rtts),
        "rtt_median_ms": statistics.median(rtts) * 1e3,
        "rtt_p99_ms": percentile(rtts, 0.99) * 1e3,
        "added_median_ms": median * 1e3,
        "added_p99_ms": p99 * 1e3,
        "rtt_resolution_ms": resolution * 1e3,
        "median_error_ms": (median - expected) * 1e3,
        "p99_error_ms": (p99 - expected) * 1e3,
        "emulator": emu.counters,
        "target": "added RTT within 0.2 ms of expected at the median, p99 within 1 ms",
        "target_met": abs(median - expected) <= MEDIAN_TOLERANCE_S and p99 - expected <= P99_TOLERANCE_S,
    }


def loss_case(bench: Bench, name: str, lk: LinkParams, expected_p: float, how: str, udp_rate: str,
              seconds: int) -> dict[str, Any]:
    payload = lk.mtu - UDP_HEADER
    with bench.emulate(lk, f"loss-{name}") as emu:
        iperf3(bench, ["-u", "-b", udp_rate, "-l", str(payload), "-w", "8M"], seconds)
    fwd = emu.counters["forward"]
    # Frames that reached the loss draw: everything received that was not oversize.
    drawn = fwd["rx_packets"] - fwd["drop_oversize"]
    lost = fwd["drop_loss"] + fwd["drop_cell_loss"] + fwd["drop_bit_error"]
    measured = lost / drawn
    half_width = Z95 * math.sqrt(measured * (1 - measured) / drawn)
    return {
        "case": f"loss {name}",
        "kind": "loss",
        "rate_mbit": lk.forward.rate_bps / 1e6,
        "framing": lk.framing,
        "loss_pct": 100 * expected_p,
        "expected_how": how,
        "packets": drawn,
        "loss_measured_pct": 100 * measured,
        "ci95_pct": [100 * (measured - half_width), 100 * (measured + half_width)],
        "unconfigured_drops": fwd["drop_queue"] + fwd["drop_nomem"] + fwd["socket_drops"] + fwd["send_errors"],
        "emulator": emu.counters,
        "target": "configured loss inside the measured 95% confidence interval",
        "target_met": abs(measured - expected_p) <= half_width,
    }


def capacity_case(bench: Bench, seconds: int) -> dict[str, Any]:
    lk = link("10Gbit", "ethernet", 1500, queue=1000)
    with bench.emulate(lk, "capacity") as emu:
        udp = iperf3(bench, ["-u", "-b", f"{CAPACITY_OFFERED_PAYLOAD_BPS:.0f}", "-l", "1472", "-w", "8M"], seconds)
    fwd = emu.counters["forward"]
    received = udp["end"]["sum_received"]
    lost = udp["end"]["sum"].get("lost_packets", 0)
    # Forwarded IP packets of 1500 octets: the received UDP payloads of 1472 plus their headers.
    pps = received["bytes"] / 1472 / received["seconds"]
    mbit = pps * 1500 * 8 / 1e6
    unconfigured = fwd["dropped_packets"] + fwd["socket_drops"] + fwd["send_errors"]
    return {
        "case": "forwarding capacity, 1500-octet packets",
        "kind": "capacity",
        "rate_mbit": lk.forward.rate_bps / 1e6,
        "framing": lk.framing,
        "offered_mbit": CAPACITY_OFFERED_PAYLOAD_BPS * 1500 / 1472 / 1e6,
        "mbit_how": "IP packets of 1500 octets per second received by iperf3, times 1500 x 8 bits",
        "pps": pps,
        "mbit": mbit,
        "iperf3_lost_packets": lost,
        "emulator_drops": unconfigured,
        "emulator": emu.counters,
        "target": "at least 1000 Mbit/s of 1500-octet IP packets forwarded, nothing lost",
        "target_met": mbit >= CAPACITY_TARGET_BPS / 1e6 and lost == 0 and unconfigured == 0,
    }


def markdown(cases: list[dict[str, Any]]) -> str:
    lines = [
        "| case | configured | expected | measured | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for c in cases:
        if c["kind"] == "throughput":
            conf = f"{c['rate_mbit']:g} Mbit/s, {c['framing']}, MTU {c['mtu']}"
            exp = f"TCP {c['expected_goodput_mbit']['tcp']:.2f}, UDP {c['expected_goodput_mbit']['udp']:.2f} Mbit/s"
            meas = (f"TCP {c['iperf3_tcp_mbit']:.2f} ({c['tcp_error_pct']:+.2f}%), "
                    f"UDP {c['iperf3_udp_mbit']:.2f} ({c['udp_error_pct']:+.2f}%)")
        elif c["kind"] == "baseline":
            conf = "mid bridges in the kernel"
            exp = "-"
            meas = (f"RTT median {c['rtt_median_ms']:.3f}, p99 {c['rtt_p99_ms']:.3f} ms, {c['pings']} pings")
        elif c["kind"] == "delay":
            conf = f"delay {c['delay_ms']:g} ms each way, {c['rate_mbit']:g} Mbit/s"
            exp = f"added RTT {c['expected_rtt_ms']:.3f} ms"
            meas = (f"RTT median {c['rtt_median_ms']:.3f}, p99 {c['rtt_p99_ms']:.3f}; added median "
                    f"{c['added_median_ms']:.3f} ({c['median_error_ms']:+.3f}), p99 {c['added_p99_ms']:.3f} "
                    f"({c['p99_error_ms']:+.3f}) ms; {c['pings']} pings, resolution {c['rtt_resolution_ms']:g} ms")
        elif c["kind"] == "loss":
            conf = c["case"].removeprefix("loss ")
            exp = f"{c['loss_pct']:.3f}%"
            low, high = c["ci95_pct"]
            meas = f"{c['loss_measured_pct']:.3f}% (95% CI {low:.3f}-{high:.3f}) of {c['packets']} packets"
        else:
            conf = f"{c['offered_mbit']:.0f} Mbit/s of 1500-octet UDP packets offered"
            exp = ">= 1000 Mbit/s, no loss"
            meas = (f"{c['mbit']:.0f} Mbit/s of IP packets, {c['pps']:.0f} packets/s, lost {c['iperf3_lost_packets']} "
                    f"(iperf3), {c['emulator_drops']} (emulator)")
        lines.append(f"| {c['case']} | {conf} | {exp} | {meas} | {c['target']} | {'yes' if c['target_met'] else 'NO'} |")
    return "\n".join(lines) + "\n"


def machine() -> dict[str, Any]:
    cpu = Path("/proc/cpuinfo").read_text()
    model = next((line.split(":", 1)[1].strip() for line in cpu.splitlines() if line.startswith("model name")), "")
    iperf = subprocess.run(["iperf3", "--version"], capture_output=True, text=True)
    return {
        "kernel": platform.release(),
        "cpus": cpu.count("processor\t:"),
        "cpu_model": model,
        "git_commit": git_commit(),
        "iperf3": iperf.stdout.splitlines()[0] if iperf.stdout else None,
        "load_before": Path("/proc/loadavg").read_text().split()[:3],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="shorter runs, for trying the script out")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for linkemu.json and linkemu.md")
    args = parser.parse_args()
    seconds = 3 if args.quick else 10
    pings = 200 if args.quick else 1000
    setLogLevel("warning")
    started = time.time()
    cases: list[dict[str, Any]] = []
    # As the workflow's emulated runs have it (netrepro.topology.LinkNetwork).
    with tempfile.TemporaryDirectory(prefix="bench-link-") as tmp, ShallowIdle() as idle:
        bench = Bench(Path(tmp))
        try:
            for rate, framing, mtu in (("10Mbit", "ethernet", 1500), ("100Mbit", "aal5-llc-snap", 9188),
                                       ("155.52Mbit", "aal5-llc-snap", 9188), ("100Mbit", "ethernet", 1500)):
                cases.append(throughput_case(bench, rate, framing, mtu, seconds))
            baseline = baseline_case(bench, pings)
            cases.append(baseline)
            for delay in ("0ms", "1ms", "4ms", "25ms"):
                cases.append(delay_case(bench, delay, pings, baseline["rtt_median_ms"] / 1e3))
            random_loss = [("random 1%", link("100Mbit", "ethernet", 1500, loss_pct=1), 0.01),
                           ("random 10%", link("100Mbit", "ethernet", 1500, loss_pct=10), 0.10)]
            for name, lk, p in random_loss:
                cases.append(loss_case(bench, name, lk, p, "loss_pct / 100", "50M", seconds))
            atm = link("155.52Mbit", "aal5-llc-snap", 9188, cell_loss_ratio=1e-4)
            p_cell = 1 - (1 - 1e-4) ** atm.cells(9188)
            cases.append(loss_case(bench, "cell loss ratio 1e-4, 9188-octet packets", atm, p_cell,
                                   f"1 - (1 - 1e-4)^{atm.cells(9188)} cells", "100M", seconds))
            eth = link("100Mbit", "ethernet", 1500, bit_error_ratio=3e-6)
            bits = 8 * (1500 + 18)
            p_bit = 1 - (1 - 3e-6) ** bits
            cases.append(loss_case(bench, "bit error ratio 3e-6, 1500-octet packets", eth, p_bit,
                                   f"1 - (1 - 3e-6)^{bits} bits (IP packet, MAC header and FCS)", "50M", seconds))
            cases.append(capacity_case(bench, seconds))
        finally:
            bench.stop()
    report = {
        "benchmark": "linkemu",
        "machine": machine(),
        "duration_s": time.time() - started,
        "cpu_idle": idle.state,
        "all_targets_met": all(c["target_met"] for c in cases),
        "cases": cases,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "linkemu.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "linkemu.md").write_text(markdown(cases))
    if args.out == RESULTS:
        write_readme()
    print(markdown(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
