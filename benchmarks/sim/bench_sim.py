#!/usr/bin/python3
"""Benchmark of netsim: how fast does virtual time run, and how long does comer94's Table 1
take at the paper's full scale (10 x 10 buffer pairs, 50 transfers of 32 MB each, 5 s apart)
on the ATM link with two SPARCstation IPC host models?

    python3 benchmarks/sim/bench_sim.py              # full scale, 2 processes
    python3 benchmarks/sim/bench_sim.py --repeats 5  # a sample; the full time is extrapolated
    python3 benchmarks/sim/bench_sim.py --tables     # sim.md again from sim.json, measuring nothing

Writes benchmarks/results/sim.json, sim.md and benchmarks/README.md: the wall time of the run
(measured, or extrapolated from the sample and labelled so), events per second, the
virtual-to-wall speed-up, and each cell's mean throughput. Where ns-3 is installed (Debian libns3-dev), the same run also times one bulk
TCP transfer of 32 MB in ns-3 (ns3_bulk.cc: its own TCP, ideal hosts) beside netsim's
48K/48K transfer, with and without host models. Not a test: the times depend on the machine.
Needs tools/bin/netsim.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from benchmarks.readme import RESULTS, add_output_args, write_result, write_tables_again  # noqa: E402
from netrepro.helptext import description  # noqa: E402
from netrepro.linkfile import link_params  # noqa: E402
from netrepro.provenance import git_commit  # noqa: E402
from netrepro.sim import BINARY, run_netsim  # noqa: E402
from netrepro.tools.ttcp import ttcp_command  # noqa: E402

LINK = "atm-taxi-100"
HOST = REPO / "configs" / "hosts" / "sparcstation-ipc.yaml"
# comer94 Sec 3: buffers 16K, 20K, ..., 48K and SunOS's largest, 52428 ("51K").
BUFFERS = [k * 1024 for k in range(16, 49, 4)] + [52428]
TRANSFER_BYTES = 32 << 20
FULL_REPEATS = 50
PAUSE_S = 5.0
TARGET_WALL_S = 600.0
NS3_SOURCE = Path(__file__).resolve().parent / "ns3_bulk.cc"
NS3_LIBS = ["-lns3-core", "-lns3-network", "-lns3-internet", "-lns3-point-to-point", "-lns3-applications"]
COMPARE_BUFFER = 49152
COMPARE_RUNS = 5


def run_cell(link: Any, send: int, recv: int, repeats: int, seed: int) -> dict[str, Any]:
    args = ttcp_command(link, send, recv, TRANSFER_BYTES, repeats, HOST, HOST, seed=seed,
                        pause_s=PAUSE_S, wall=True)
    start = time.monotonic()
    result = run_netsim(args)
    wall = time.monotonic() - start
    sent = [r for r in result.transfers if r["role"] == "transmitter"]
    complete = all(r["receiver_bytes"] == TRANSFER_BYTES for r in sent)
    return {
        "send_buffer": send,
        "recv_buffer": recv,
        "seed": seed,
        "transfers": len(sent),
        "complete": complete,
        "mean_bps": statistics.fmean(r["sender_bps"] for r in sent),
        "min_bps": min(r["sender_bps"] for r in sent),
        "max_bps": max(r["sender_bps"] for r in sent),
        "delayed_acks_b": result.sim["b_tcps_delack"],
        "events": result.sim["events"],
        "virtual_s": result.sim["virtual_ns"] / 1e9,
        "process_wall_s": wall,
        "sim_wall_s": result.sim["wall_ns"] / 1e9,
    }


def compare_ns3(link: Any) -> dict[str, Any] | None:
    """Wall time of one 32 MB bulk transfer in ns-3 and in netsim (median of COMPARE_RUNS)."""
    compiler = shutil.which("g++")
    if not compiler or not Path("/usr/include/ns3/core-module.h").is_file():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        binary = Path(tmp) / "ns3_bulk"
        subprocess.run([compiler, "-O2", "-std=c++17", "-o", str(binary), str(NS3_SOURCE), *NS3_LIBS],
                       check=True, capture_output=True, text=True)
        ns3 = []
        for _ in range(COMPARE_RUNS):
            out = subprocess.run([str(binary), f"--bytes={TRANSFER_BYTES}", f"--buffer={COMPARE_BUFFER}"],
                                 check=True, capture_output=True, text=True)
            ns3.append(json.loads(out.stdout))
        version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libns3-dev"],
                                 capture_output=True, text=True).stdout.strip()
    netsim = {}
    for name, host in (("ipc_hosts", HOST), ("ideal_hosts", None)):
        args = ttcp_command(link, COMPARE_BUFFER, COMPARE_BUFFER, TRANSFER_BYTES, COMPARE_RUNS, host, host,
                            seed=1, pause_s=PAUSE_S, wall=True)
        result = run_netsim(args)
        sent = [r for r in result.transfers if r["role"] == "transmitter"]
        netsim[name] = {
            "wall_s_per_transfer": result.sim["wall_ns"] / 1e9 / COMPARE_RUNS,
            "virtual_s_per_transfer": statistics.median(r["sender_elapsed_ns"] / 1e9 for r in sent),
            "events_per_s": result.sim["events_per_s"],
        }
    return {
        "what": f"one bulk TCP transfer of {TRANSFER_BYTES} octets, {COMPARE_BUFFER}-octet buffers, "
                "100 Mb/s, MTU 9188, no delay; median of "
                f"{COMPARE_RUNS}. ns-3 runs its own TCP (NewReno) with ideal hosts on a plain "
                "point-to-point link (no ATM cells), so the virtual times differ",
        "ns3_version": version,
        "ns3_wall_s_per_transfer": statistics.median(r["wall_s"] for r in ns3),
        "ns3_virtual_s_per_transfer": statistics.median(r["virtual_s"] for r in ns3),
        "netsim": netsim,
    }


def markdown(result: dict[str, Any]) -> str:
    rows = [
        "| case | measured | target | met |",
        "|---|---|---|---|",
        f"| {result['what']} | {result['full_scale_wall_s']:.0f} s wall ({result['full_scale_note']}), "
        f"{result['jobs']} processes; {result['events_per_s'] / 1e6:.2f} M events/s; virtual/wall "
        f"{result['speedup_overall']:.0f}x; every transfer complete: "
        f"{'yes' if result['all_complete'] else 'no'} | under {result['target_wall_s']:.0f} s | "
        f"{'yes' if result['target_met'] else 'no'} |",
    ]
    ns3 = result["ns3_comparison"]
    if isinstance(ns3, dict):
        ipc, ideal = ns3["netsim"]["ipc_hosts"], ns3["netsim"]["ideal_hosts"]
        rows.append(
            f"| {ns3['what']} | ns-3 {ns3['ns3_version']}: {ns3['ns3_wall_s_per_transfer'] * 1e3:.1f} ms wall "
            f"per transfer; netsim: {ideal['wall_s_per_transfer'] * 1e3:.1f} ms with ideal hosts, "
            f"{ipc['wall_s_per_transfer'] * 1e3:.1f} ms with SPARCstation IPC hosts | none: a reference | - |")
    else:
        rows.append(f"| ns-3 beside netsim | {ns3} | none: a reference | - |")
    return "\n".join(rows) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--repeats", type=int, default=FULL_REPEATS,
                        help=f"transfers per cell (default {FULL_REPEATS}, the paper's)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel netsim processes (default 2)")
    add_output_args(parser, RESULTS / "sim.json")
    opts = parser.parse_args()
    if opts.tables:
        write_tables_again(markdown, opts.output)
        return 0
    if not BINARY.is_file():
        print(f"{BINARY} is missing; run make -C tools", file=sys.stderr)
        return 1
    link = link_params(LINK)
    cells = [(s, r) for s in BUFFERS for r in BUFFERS]
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        rows = list(pool.map(lambda c: run_cell(link, c[0], c[1], opts.repeats,
                                                1 + cells.index(c)), cells))
    wall = time.monotonic() - start
    ns3 = compare_ns3(link)

    events = sum(r["events"] for r in rows)
    sim_wall = sum(r["sim_wall_s"] for r in rows)
    virtual = sum(r["virtual_s"] for r in rows)
    scale = FULL_REPEATS / opts.repeats
    full_wall = wall * scale
    result = {
        "benchmark": "netsim",
        "what": "comer94 Table 1 in virtual time: 10 x 10 send/receive buffer pairs, "
                f"transfers of {TRANSFER_BYTES} octets, {PAUSE_S} s apart, ttcp on two Tahoe "
                "stacks over the atm-taxi-100 link with sparcstation-ipc host models",
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "git_commit": git_commit(),
        "jobs": opts.jobs,
        "repeats_per_cell": opts.repeats,
        "wall_s": wall,
        "full_scale_wall_s": full_wall,
        "full_scale_measured": opts.repeats == FULL_REPEATS,
        "full_scale_note": ("measured" if opts.repeats == FULL_REPEATS else
                            f"extrapolated: {opts.repeats} of {FULL_REPEATS} transfers per cell "
                            f"measured, wall time scaled by {scale:g}; each transfer of a cell "
                            "costs about the same, but the first (connection set-up) is not "
                            "repeated"),
        "target_wall_s": TARGET_WALL_S,
        "target_met": full_wall < TARGET_WALL_S,
        "events": events,
        "events_per_s": events / sim_wall,
        "virtual_s": virtual,
        "speedup_per_process": virtual / sim_wall,
        "speedup_overall": virtual / wall,
        "all_complete": all(r["complete"] for r in rows),
        "ns3_comparison": ns3 if ns3 else "ns-3 not installed (apt-get install libns3-dev)",
        "cells": rows,
    }
    write_result(result, markdown, opts.output)
    print(f"{len(rows)} cells x {opts.repeats} transfers: {wall:.1f} s wall "
          f"({'measured' if opts.repeats == FULL_REPEATS else 'full scale extrapolated'}: "
          f"{full_wall:.1f} s), {events / sim_wall:.0f} events/s, "
          f"virtual/wall {virtual / wall:.0f}x; wrote {opts.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
