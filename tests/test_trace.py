"""Trace extraction: packets decoded by tshark from a capture, each matched with the rule the
stack logged for it."""
import shutil
import struct
from pathlib import Path

import pytest

from netrepro.trace import attach_rules, trace_csv, tshark_packets


def ipv4_tcp(src: str, dst: str, seq: int, ack: int, flags: int, win: int, payload: int) -> bytes:
    tcp = struct.pack("!HHIIBBHHH", 1024, 5001, seq, ack, 5 << 4, flags, win, 0, 0) + bytes(payload)
    total = 20 + len(tcp)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 1, 0, 64, 6, 0,
                     bytes(map(int, src.split("."))), bytes(map(int, dst.split("."))))
    return ip + tcp


def write_pcap(path: Path, packets: list[tuple[float, bytes]]) -> None:
    with path.open("wb") as handle:
        handle.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101))
        for t, data in packets:
            handle.write(struct.pack("<IIII", int(t), int((t % 1) * 1e6), len(data), len(data)))
            handle.write(data)


@pytest.mark.skipif(shutil.which("tshark") is None, reason="needs tshark (make setup)")
def test_a_capture_becomes_a_time_sequence_trace_with_rules(tmp_path):
    pcap = tmp_path / "capture.pcap"
    write_pcap(pcap, [
        (10.0, ipv4_tcp("10.0.0.1", "10.0.0.2", 1000, 1, 0x10, 16384, 100)),
        (10.002, ipv4_tcp("10.0.0.1", "10.0.0.2", 1100, 1, 0x18, 16384, 50)),
        (10.2, ipv4_tcp("10.0.0.2", "10.0.0.1", 1, 1150, 0x10, 24576, 0)),
    ])
    packets = tshark_packets(pcap)
    assert [(p["src"], p["seq"], p["len"], p["ack"], p["win"]) for p in packets] == [
        ("10.0.0.1", 1000, 100, 1, 16384), ("10.0.0.1", 1100, 50, 1, 16384), ("10.0.0.2", 1, 0, 1150, 24576)]
    segments = [
        {"host": "a", "seq": 1000, "ack": 1, "len": 100, "flags": 0x10, "rule": "S2"},
        {"host": "a", "seq": 1100, "ack": 1, "len": 50, "flags": 0x18, "rule": "S1"},
        {"host": "b", "seq": 1, "ack": 1150, "len": 0, "flags": 0x10, "rule": "timer"},
    ]
    rules = attach_rules(packets, segments)
    assert rules == ["S2", "S1", "timer"]
    lines = trace_csv(packets, rules, "sim").splitlines()
    assert lines[0] == "t_ms,direction,seq,len,ack,win,flags,rule,backend"
    assert lines[1].startswith("0.000000,data,1000,100,1,16384,")
    assert abs(float(lines[3].split(",")[0]) - 200.0) < 0.01 and ",ack,1,0,1150,24576," in lines[3]


def test_packets_the_stack_did_not_log_have_no_rule():
    packets = [{"src": "10.0.0.1", "seq": 5, "ack": 1, "len": 10, "flags": 0x10, "t_s": 0.0, "win": 1}]
    assert attach_rules(packets, []) == [None]
    assert trace_csv(packets, [None], "linkemu").splitlines()[1].endswith(",NA,linkemu")
