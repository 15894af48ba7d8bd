#!/usr/bin/python3
"""Benchmark of the bundled tools on emulated links: does each measure what a client netrepro
did not write measures, move data intact, and follow the arithmetic of its paper? Run as root:

    sudo .venv/bin/python benchmarks/tools/bench_tools.py [--quick]

Cases, each between h1 and h2 of netrepro.topology.LinkNetwork with the linkemu backend:
  - ttcp and iperf3 bulk TCP goodput, alternated, on ethernet-10 and atm-taxi-100;
  - mftp GETs of one file over 1, 4 and 16 connections on atm-wan-emulator (RTT 200 ms) with a
    per-connection window, against the window limit N*W/RTT;
  - ipcbench UDP 1UnAck and 6UnAck (echoed and compared) and TCP on ethernet-10.
Writes benchmarks/results/tools.json and tools.md, then benchmarks/README.md from every benchmark's
table. Not a test: the figures depend on the machine, and the JSON says whether each target was met.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from mininet.log import setLogLevel  # noqa: E402
from mininet.node import Host  # noqa: E402

from benchmarks.readme import write_readme  # noqa: E402
from netrepro.backends import get_backend  # noqa: E402
from netrepro.linkfile import link_params  # noqa: E402
from netrepro.linkspec import LinkParams, with_direction  # noqa: E402
from netrepro.provenance import git_commit  # noqa: E402
from netrepro.topology import H2_IP, LinkNetwork  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
# Linux puts a 12-octet timestamp option in every TCP segment: 20 IP + 20 TCP + 12.
TCP_HEADER = 52
AGREEMENT = 0.03
# The window-limited throughput may fall short of N*W'/RTT by queueing behind the other
# connections and by the ramp at the start; it cannot exceed it by more than timing noise.
MFTP_BELOW, MFTP_ABOVE = 0.15, 0.03
# mftp's default block and the header each block carries (tools/mftpcore/blocks.h).
MFTP_BLOCK, MFTP_BLOCK_HEADER = 32768, 16
TTCP_PORT, IPERF_PORT, MFTP_PORT, IPC_PORT = 5001, 5201, 2121, 5002


@dataclass(frozen=True)
class Plan:
    """How much each case moves; --quick shrinks everything."""

    repeats: int
    ttcp_seconds: float  # data per bulk run: this long at the link's TCP goodput
    mftp_file: int
    mftp_conns: tuple[int, ...]
    mftp_window: int
    mftp_delay_s: float | None  # None: the link kind's own delay
    ipc_size: int
    ipc_repeat: int


FULL = Plan(repeats=3, ttcp_seconds=6, mftp_file=16 << 20, mftp_conns=(1, 4, 16), mftp_window=24 << 10,
            mftp_delay_s=None, ipc_size=1 << 20, ipc_repeat=3)
QUICK = Plan(repeats=1, ttcp_seconds=3, mftp_file=2 << 20, mftp_conns=(1, 4), mftp_window=24 << 10,
             mftp_delay_s=0.02, ipc_size=256 << 10, ipc_repeat=1)


def run(host: Host, args: list[str], timeout: float) -> str:
    """Runs an argument list in host; returns stdout, raises with stderr on failure."""
    process = host.popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise RuntimeError(f"{' '.join(args)} in {host.name} timed out after {timeout:.0f} s")
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} in {host.name} failed ({process.returncode}): "
                           f"{err.strip() or out.strip()}")
    return out


class Server:
    """A process in a host for the duration of a with-block; its stdout ends up in .out."""

    def __init__(self, host: Host, args: list[str], port: int, proto: str = "tcp") -> None:
        self.host, self.args, self.port, self.proto = host, args, port, proto
        self.out = ""
        self.process: subprocess.Popen[str] | None = None

    def __enter__(self) -> "Server":
        self.process = self.host.popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        flag = "-Hltn" if self.proto == "tcp" else "-Hlun"
        deadline = time.monotonic() + 5
        while not run(self.host, ["ss", flag, f"sport = :{self.port}"], timeout=5).strip():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{' '.join(self.args)} did not start listening on {self.port}")
            time.sleep(0.05)
        return self

    def wait(self, timeout: float) -> str:
        """Waits for the server to exit on its own; returns its stdout."""
        assert self.process is not None
        out, err = self.process.communicate(timeout=timeout)
        if self.process.returncode != 0:
            raise RuntimeError(f"{' '.join(self.args)} failed ({self.process.returncode}): {err.strip()}")
        self.out = out
        return out

    def __exit__(self, *exc: object) -> None:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.kill()
            self.out = self.process.communicate()[0] or self.out


def records(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def network(link: LinkParams, log_dir: Path) -> LinkNetwork:
    return LinkNetwork(link, get_backend("linkemu"), log_dir / link.name)


def warm_up(net: LinkNetwork) -> None:
    """Resolves ARP, so that no measurement waits for it."""
    run(net.h1, ["ping", "-c", "2", "-i", "0.2", "-W", "2", H2_IP], timeout=30)


# ---- ttcp against iperf3 ----

def ttcp_once(net: LinkNetwork, bin_dir: Path, nbytes: int, timeout: float) -> dict[str, Any]:
    receiver = [str(bin_dir / "ttcp"), "-r", "-p", str(TTCP_PORT), "--bind", H2_IP, "--timeout", "20s"]
    with Server(net.h2, receiver, TTCP_PORT) as server:
        out = run(net.h1, [str(bin_dir / "ttcp"), "-t", "-p", str(TTCP_PORT), "--bytes", f"{nbytes}B",
                           "--timeout", "20s", H2_IP], timeout=timeout)
        server.wait(timeout=30)
    (record,) = [r for r in records(out) if r["record"] == "transfer"]
    return record


def iperf3_once(net: LinkNetwork, nbytes: int, timeout: float) -> dict[str, Any]:
    with Server(net.h2, ["iperf3", "-s", "-1", "-B", H2_IP, "-p", str(IPERF_PORT)], IPERF_PORT) as server:
        out = run(net.h1, ["iperf3", "-c", H2_IP, "-p", str(IPERF_PORT), "-J", "-n", str(nbytes)], timeout=timeout)
        server.wait(timeout=30)
    return json.loads(out)


def bulk_case(link: LinkParams, plan: Plan, bin_dir: Path, log_dir: Path) -> dict[str, Any]:
    mss = link.mtu - TCP_HEADER
    goodput = link.tcp_goodput_bps(mss, header_octets=TCP_HEADER)
    nbytes = int(goodput * plan.ttcp_seconds / 8)
    timeout = plan.ttcp_seconds * 4 + 30
    ttcp_runs, iperf_runs = [], []
    with network(link, log_dir) as net:
        warm_up(net)
        for _ in range(plan.repeats):
            ttcp_runs.append(ttcp_once(net, bin_dir, nbytes, timeout))
            iperf_runs.append(iperf3_once(net, nbytes, timeout))
    ttcp_bps = [r["receiver_bps"] for r in ttcp_runs]
    iperf_bps = [r["end"]["sum_received"]["bits_per_second"] for r in iperf_runs]
    difference = statistics.mean(ttcp_bps) / statistics.mean(iperf_bps) - 1
    return {
        "case": f"ttcp vs iperf3, {link.name}",
        "kind": "bulk",
        "link": link.name,
        "configured": {"rate_mbit": link.forward.rate_bps / 1e6, "framing": link.framing, "mtu": link.mtu,
                       "bytes_per_run": nbytes, "repeats": plan.repeats,
                       "ttcp": "defaults (8K writes, the stack's buffers)", "iperf3": f"-n {nbytes}"},
        "measured": {
            "ttcp_receiver_mbit": [b / 1e6 for b in ttcp_bps],
            "ttcp_sender_mbit": [r["sender_bps"] / 1e6 for r in ttcp_runs],
            "iperf3_receiver_mbit": [b / 1e6 for b in iperf_bps],
            "iperf3_retransmits": [r["end"]["sum_sent"].get("retransmits") for r in iperf_runs],
            "ttcp_mean_mbit": statistics.mean(ttcp_bps) / 1e6,
            "iperf3_mean_mbit": statistics.mean(iperf_bps) / 1e6,
            "difference_pct": 100 * difference,
        },
        "expected": {"goodput_mbit": goodput / 1e6,
                     "how": f"LinkParams.tcp_goodput_bps(mss={mss}, header_octets={TCP_HEADER}) = rate * {mss} / "
                            f"wire_octets({mss + TCP_HEADER}); for reference, the target compares the two tools"},
        "note": "ttcp's receiver_bps (first to last octet at the receiver) against iperf3's sum_received; "
                "ttcp_sender_mbit is comer94's sender-side figure (first to last write), which also counts "
                "what still sat in the send buffer",
        "target": f"mean ttcp and iperf3 goodput within {AGREEMENT:.0%} of each other",
        "target_met": abs(difference) <= AGREEMENT,
    }


# ---- mftp over a long fat pipe ----

def window_in_flight(window: int, mss: int) -> int:
    """What a receive window lets a Linux sender keep in flight: Linux advertises, without
    window scaling (a clamp below 64K gives none), the free space rounded down to whole MSS."""
    return max(window // mss, 1) * mss


def mftp_expected_s(file_bytes: int, conns: int, in_flight: int, rtt: float, cap: float) -> float:
    """First to last data octet at the receiver: a window-limited transfer moves N*W' per RTT and
    its last round ends with the data, not with the acknowledgement, so it takes one RTT less
    than rounds * RTT; the link's goodput bounds it from below. Block headers count as data."""
    wire = file_bytes + MFTP_BLOCK_HEADER * -(-file_bytes // MFTP_BLOCK)
    rounds = wire / (conns * in_flight)
    return max((rounds - 1) * rtt, wire * 8 / cap)


def mftp_once(net: LinkNetwork, bin_dir: Path, work: Path, conns: int, window: int, timeout: float) -> dict[str, Any]:
    dest = work / f"got-{conns}.bin"
    out = run(net.h1, [str(bin_dir / "mftp"), "-p", str(MFTP_PORT), "--get", "src.bin", "--dest", str(dest),
                       "-n", str(conns), "--window", f"{window}B", "--timeout", "30s", H2_IP], timeout=timeout)
    (record,) = [r for r in records(out) if r["record"] == "transfer"]
    record["sha256"] = hashlib.sha256(dest.read_bytes()).hexdigest()
    record["crc32_python"] = f"{zlib.crc32(dest.read_bytes()):08x}"
    dest.unlink()
    return record


def mftp_case(link: LinkParams, plan: Plan, bin_dir: Path, log_dir: Path) -> list[dict[str, Any]]:
    if plan.mftp_delay_s is not None:
        link = with_direction(link, delay_s=plan.mftp_delay_s)
    mss = link.mtu - TCP_HEADER
    rtt = link.min_rtt_s(link.mtu)
    cap = link.tcp_goodput_bps(mss, header_octets=TCP_HEADER)
    in_flight = window_in_flight(plan.mftp_window, mss)
    with tempfile.TemporaryDirectory(prefix="bench-mftp-") as tmp:
        work = Path(tmp)
        source = os.urandom(plan.mftp_file)
        (work / "src.bin").write_bytes(source)
        digest = hashlib.sha256(source).hexdigest()
        server_args = [str(bin_dir / "mftpd"), "-p", str(MFTP_PORT), "--bind", H2_IP, "--root", str(work),
                       "--sessions", str(len(plan.mftp_conns)), "--timeout", "30s"]
        results = []
        with network(link, log_dir) as net:
            warm_up(net)
            with Server(net.h2, server_args, MFTP_PORT) as server:
                for conns in plan.mftp_conns:
                    slowest = plan.mftp_file * 8 / min(conns * in_flight * 8 / rtt, cap)
                    results.append(mftp_once(net, bin_dir, work, conns, plan.mftp_window, slowest * 3 + 30))
                server.wait(timeout=30)
            server_records = [r for r in records(server.out) if r["record"] == "transfer"]
    cases = []
    for record, served in zip(results, server_records):
        conns = record["connections"]
        naive = conns * plan.mftp_window * 8 / rtt
        steady = min(conns * in_flight * 8 / rtt, cap)
        predicted = plan.mftp_file * 8 / mftp_expected_s(plan.mftp_file, conns, in_flight, rtt, cap)
        ratio = record["throughput_bps"] / predicted
        intact = record["sha256"] == digest and record["crc32"] == record["crc32_python"] == served["crc32"]
        cases.append({
            "case": f"mftp {conns} connection{'s' if conns > 1 else ''}, {link.name}",
            "kind": "mftp",
            "link": link.name,
            "configured": {"rate_mbit": link.forward.rate_bps / 1e6, "framing": link.framing, "mtu": link.mtu,
                           "delay_ms_each_way": link.forward.delay_s * 1e3, "connections": conns,
                           "window": plan.mftp_window, "file_bytes": plan.mftp_file, "command": "RETR"},
            "measured": {"throughput_mbit": record["throughput_bps"] / 1e6, "elapsed_s": record["elapsed_ns"] / 1e9,
                         "bytes": record["bytes"], "conn_bytes": record["conn_bytes"],
                         "rtt_ms_mftp": record["rtt_ns"] / 1e6 if record["rtt_ns"] else None,
                         "window_start": record["window_start"], "window_end": record["window_end"],
                         "window_max": record["window_max"], "window_reasserts": record["window_reasserts"],
                         "server_window_max": served["window_max"], "sha256_equal": record["sha256"] == digest,
                         "crc32": record["crc32"], "server_crc32": served["crc32"], "ratio_to_predicted": ratio},
            "expected": {"throughput_mbit": predicted / 1e6, "steady_mbit": steady / 1e6,
                         "window_formula_mbit": naive / 1e6, "link_cap_mbit": cap / 1e6, "rtt_ms": rtt * 1e3,
                         "in_flight_per_conn": in_flight,
                         "how": f"steady: min(N * W' * 8 / RTT, link goodput) with W' = floor({plan.mftp_window} / "
                                f"MSS {mss}) * MSS = {in_flight} (Linux advertises whole MSS without window "
                                f"scaling) and RTT = LinkParams.min_rtt_s({link.mtu}) = {rtt * 1e3:.3f} ms; "
                                "throughput: the file over its first-to-last-octet time, (rounds - 1) * RTT with "
                                "rounds = (file + block headers) / (N * W'), bounded by the link; "
                                "window_formula: N*W/RTT with the whole window"},
            "target": f"file intact (SHA-256, both CRC-32s); throughput between {1 - MFTP_BELOW:.0%} and "
                      f"{1 + MFTP_ABOVE:.0%} of expected",
            "target_met": intact and 1 - MFTP_BELOW <= ratio <= 1 + MFTP_ABOVE,
        })
    rising = all(a["measured"]["throughput_mbit"] < b["measured"]["throughput_mbit"] for a, b in zip(cases, cases[1:]))
    for case in cases:
        case["measured"]["rises_with_n"] = rising
        case["target"] += "; throughput rises with N"
        case["target_met"] = case["target_met"] and rising
    return cases


# ---- ipcbench ----

def ipc_once(net: LinkNetwork, bin_dir: Path, mode: dict[str, Any], plan: Plan) -> tuple[list[dict], list[dict]]:
    proto = mode["proto"]
    server_args = [str(bin_dir / "ipcbench"), "--server", "--proto", proto, "-p", str(IPC_PORT), "--bind", H2_IP,
                   "--count", str(plan.ipc_repeat), "--timeout", "20s", *mode["args"]]
    client_args = [str(bin_dir / "ipcbench"), "--proto", proto, "-p", str(IPC_PORT), "--size", f"{plan.ipc_size}B",
                   "--repeat", str(plan.ipc_repeat), "--pause", "200ms", "--timeout", "20s", *mode["args"], H2_IP]
    with Server(net.h2, server_args, IPC_PORT, proto) as server:
        out = run(net.h1, client_args, timeout=120)
        server.wait(timeout=30)
    return records(out), records(server.out)


IPC_MODES = (
    {"name": "UDP 1UnAck", "proto": "udp", "args": ["--segment", "9000B", "--unack", "1"]},
    {"name": "UDP 6UnAck", "proto": "udp", "args": ["--segment", "9000B", "--unack", "6"]},
    {"name": "TCP", "proto": "tcp", "args": ["--buf", "48K"]},
)


def ipc_cases(link: LinkParams, plan: Plan, bin_dir: Path, log_dir: Path) -> list[dict[str, Any]]:
    cases = []
    with network(link, log_dir) as net:
        warm_up(net)
        for mode in IPC_MODES:
            client, server = ipc_once(net, bin_dir, mode, plan)
            messages = [r for r in client if r["record"] == "message"]
            served = [r for r in server if r["record"] == "message"]
            udp = mode["proto"] == "udp"
            equal = [r["echo_equal"] for r in messages] if udp else []
            intact = [r["intact"] for r in served]
            complete = len(messages) == len(served) == plan.ipc_repeat
            cases.append({
                "case": f"ipcbench {mode['name']}, {link.name}",
                "kind": "ipcbench",
                "link": link.name,
                "configured": {"rate_mbit": link.forward.rate_bps / 1e6, "mtu": link.mtu, "size": plan.ipc_size,
                               "messages": plan.ipc_repeat, "args": mode["args"]},
                "measured": {"throughput_mbit": [r["throughput_bps"] / 1e6 for r in messages],
                             "echo_equal": equal, "server_intact": intact,
                             "retransmissions": [r.get("retransmissions") for r in messages],
                             "errors": [r["error"] for r in client + server if r["record"] == "error"]},
                "expected": {"how": "every message arrives intact at the server (its pattern checked) and, for UDP, "
                                    "comes back equal to what was sent; TCP is not echoed (the server answers one "
                                    "octet). throughput_mbit runs until the server's acknowledgement of the "
                                    "whole message (UDP: of its last group; TCP: its octet), so it cannot "
                                    "exceed the link"},
                "target": "every echo equal (UDP) and every message intact",
                "target_met": complete and all(intact) and (all(equal) if udp else True),
            })
    return cases


# ---- the report ----

def summary(case: dict[str, Any]) -> tuple[str, str, str]:
    conf, meas, exp = case["configured"], case["measured"], case["expected"]
    if case["kind"] == "bulk":
        return (f"{conf['rate_mbit']:g} Mbit/s {conf['framing']}, MTU {conf['mtu']}, {conf['repeats']} x "
                f"{conf['bytes_per_run'] / 1e6:.1f} MB",
                f"link goodput {exp['goodput_mbit']:.2f} Mbit/s",
                f"ttcp {meas['ttcp_mean_mbit']:.2f}, iperf3 {meas['iperf3_mean_mbit']:.2f} Mbit/s "
                f"({meas['difference_pct']:+.2f}%)")
    if case["kind"] == "mftp":
        return (f"{conf['rate_mbit']:g} Mbit/s, RTT {exp['rtt_ms']:.1f} ms, N={conf['connections']}, "
                f"W={conf['window'] // 1024}K, {conf['file_bytes'] >> 20} MB",
                f"{exp['throughput_mbit']:.2f} Mbit/s (N*W'/RTT {exp['steady_mbit']:.2f}, N*W/RTT "
                f"{exp['window_formula_mbit']:.2f})",
                f"{meas['throughput_mbit']:.2f} Mbit/s ({100 * (meas['ratio_to_predicted'] - 1):+.1f}%), "
                f"SHA-256 {'equal' if meas['sha256_equal'] else 'DIFFERS'}, window max {meas['window_max']}, "
                f"{meas['window_reasserts']} re-asserted")
    rates = ", ".join(f"{t:.2f}" for t in meas["throughput_mbit"])
    checks = f"{sum(meas['echo_equal'])}/{len(meas['echo_equal'])} echoes equal, " if meas["echo_equal"] else ""
    return (f"{conf['rate_mbit']:g} Mbit/s, {conf['messages']} x {conf['size'] >> 10} KB, {' '.join(conf['args'])}",
            "echo equal, intact",
            f"{checks}{sum(meas['server_intact'])}/{len(meas['server_intact'])} intact; {rates} Mbit/s")


def markdown(cases: list[dict[str, Any]]) -> str:
    lines = ["| case | configured | expected | measured | target | met |", "|---|---|---|---|---|---|"]
    for case in cases:
        conf, exp, meas = summary(case)
        lines.append(f"| {case['case']} | {conf} | {exp} | {meas} | {case['target']} | "
                     f"{'yes' if case['target_met'] else 'NO'} |")
    return "\n".join(lines) + "\n"


def machine(bin_dir: Path) -> dict[str, Any]:
    cpu = Path("/proc/cpuinfo").read_text()
    iperf = subprocess.run(["iperf3", "--version"], capture_output=True, text=True)
    return {
        "kernel": platform.release(),
        "cpus": cpu.count("processor\t:"),
        "git_commit": git_commit(),
        "iperf3": iperf.stdout.splitlines()[0] if iperf.stdout else None,
        "tools": {name: hashlib.sha256((bin_dir / name).read_bytes()).hexdigest()[:16]
                  for name in ("ttcp", "mftp", "mftpd", "ipcbench", "linkemu")},
        "load_before": Path("/proc/loadavg").read_text().split()[:3],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one repeat, small files, short delay")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for tools.json and tools.md")
    parser.add_argument("--bin", type=Path, default=REPO / "tools" / "bin", help="where the tools are")
    args = parser.parse_args()
    if os.geteuid() != 0:
        parser.error("needs root: Mininet builds namespaces and veth links")
    plan = QUICK if args.quick else FULL
    setLogLevel("warning")
    started = time.time()
    about = machine(args.bin)
    cases: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-tools-") as tmp:
        log_dir = Path(tmp)
        for name in ("ethernet-10", "atm-taxi-100"):
            cases.append(bulk_case(link_params(name), plan, args.bin, log_dir))
        cases.extend(mftp_case(link_params("atm-wan-emulator"), plan, args.bin, log_dir))
        cases.extend(ipc_cases(link_params("ethernet-10"), plan, args.bin, log_dir))
    report = {
        "benchmark": "tools",
        "machine": about,
        "plan": {**plan.__dict__, "quick": args.quick},
        "duration_s": time.time() - started,
        "all_targets_met": all(c["target_met"] for c in cases),
        "cases": cases,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "tools.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "tools.md").write_text(markdown(cases))
    if args.out == RESULTS:
        write_readme()
    print(markdown(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
