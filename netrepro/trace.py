"""The TCP time-sequence trace of a transfer, decoded by tshark from the packet capture taken at
the transmitter's interface (tcpdump in emulation, netsim --pcap in virtual time). On the Tahoe
stack each segment also carries the rule (S1, S2, R1, ...) the stack logged for it (netsim's
segment records, or in emulation the transmitter's ttcp --segment-log).

    python -m netrepro.trace --out results/comer94/circular-wait/trace.csv RUN_FOLDER...
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from netrepro.atomic import write_text
from netrepro.errors import RunError
from netrepro.helptext import description
from netrepro.jsonlines import read

TRANSMITTER = "10.0.0.1"
FIELDS = ("frame.time_relative", "ip.src", "tcp.seq_raw", "tcp.len", "tcp.ack_raw", "tcp.window_size_value",
          "tcp.flags")
COLUMNS = ("t_ms", "direction", "seq", "len", "ack", "win", "flags", "rule", "backend")


def tshark_packets(pcap: Path) -> list[dict[str, Any]]:
    """Every TCP packet of the capture, in capture order."""
    if shutil.which("tshark") is None:
        raise RunError("tshark is missing; run `make setup` (envs/setup.sh)")
    command = ["tshark", "-r", str(pcap), "-n", "-Y", "tcp", "-T", "fields", "-E", "separator=,"]
    for field in FIELDS:
        command += ["-e", field]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RunError(f"tshark could not read {pcap}: {done.stderr.strip()[-300:]}")
    packets = []
    for line in done.stdout.splitlines():
        t, src, seq, length, ack, win, flags = line.split(",")
        packets.append({"t_s": float(t), "src": src, "seq": int(seq), "len": int(length),
                        "ack": int(ack or 0), "win": int(win), "flags": int(flags, 16)})
    return packets


def segment_key(seq: int, ack: int, length: int, flags: int) -> tuple[int, int, int, int]:
    return seq, ack, length, flags & 0x3F


def attach_rules(packets: list[dict[str, Any]], segments: list[dict[str, Any]]) -> list[str | None]:
    """Each packet's rule: the first segment its host logged with the same header, not yet used."""
    pending: dict[tuple[str, tuple[int, int, int, int]], list[str]] = {}
    for segment in segments:
        host = TRANSMITTER if segment["host"] == "a" else "peer"
        key = segment_key(segment["seq"], segment["ack"], segment["len"], segment["flags"])
        pending.setdefault((host, key), []).append(segment["rule"])
    rules = []
    for packet in packets:
        host = TRANSMITTER if packet["src"] == TRANSMITTER else "peer"
        queue = pending.get((host, segment_key(packet["seq"], packet["ack"], packet["len"], packet["flags"])))
        rules.append(queue.pop(0) if queue else None)
    return rules


def trace_csv(packets: list[dict[str, Any]], rules: list[str | None], backend: str) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    origin = packets[0]["t_s"] if packets else 0.0
    for packet, rule in zip(packets, rules):
        direction = "data" if packet["src"] == TRANSMITTER else "ack"
        writer.writerow([f"{(packet['t_s'] - origin) * 1e3:.6f}", direction, packet["seq"], packet["len"],
                         packet["ack"], packet["win"], packet["flags"], rule or "NA", backend])
    return buffer.getvalue()


def part_trace(part: Path) -> str | None:
    """The trace CSV of one run folder, or None when it holds no capture."""
    pcap = part / "capture.pcap"
    if not pcap.is_file():
        return None
    provenance = json.loads((part / "provenance.json").read_text(encoding="utf-8"))
    segments_file = part / "segments.jsonl"
    segments = []
    if segments_file.is_file():
        segments = read(segments_file)
    packets = tshark_packets(pcap)
    return trace_csv(packets, attach_rules(packets, segments), provenance["backend"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--out", required=True, type=Path, help="the trace CSV to write")
    parser.add_argument("runs", nargs="+", type=Path,
                        help="run folders (the workflow's, with other backends' runs of the same settings); "
                             "the first with a capture on each backend is traced")
    args = parser.parse_args(argv)
    try:
        traces: dict[str, str] = {}
        for part in args.runs:
            text = part_trace(part)
            backend = json.loads((part / "provenance.json").read_text(encoding="utf-8"))["backend"]
            if text is not None and backend not in traces:
                traces[backend] = text
        if not traces:
            raise RunError(f"none of {len(args.runs)} run folders holds a capture.pcap; set `trace: true` "
                           "on the experiment and rerun it")
        bodies = [text.split("\n", 1)[1] for text in traces.values()]
        write_text(args.out, ",".join(COLUMNS) + "\n" + "".join(bodies))
    except (RunError, OSError) as exc:
        print(f"netrepro: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
