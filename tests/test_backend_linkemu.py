"""linkemu backend: the argument list it builds and, as root with `ip netns`, real forwarding
between namespaces this test creates and removes."""
import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from netrepro.backends import FRAME_TIME_OCTETS, BackendError, emulation_backend, get_backend
from netrepro.backends.linkemu import BINARY, LinkemuBackend, command, refuse_unsupported
from netrepro.linkfile import link_params
from netrepro.linkspec import link_from_dict
from tests.conftest import sh


def link(**extra):
    data = {"framing": "ethernet", "mtu": "1500B", "rate": "10Mbit", "queue": {"packets": 50}, **extra}
    return link_from_dict("l", data)


def value(args, key):
    return args[args.index(key) + 1]


def test_ethernet_10_kind_becomes_explicit_flags():
    args = command(link_params("ethernet-10"), "m0", "m1", Path("s.json"), Path("r"))
    assert args[0] == str(BINARY)
    assert value(args, "--if-a") == "m0" and value(args, "--if-b") == "m1"
    assert value(args, "--rate") == "10000000bit"
    assert value(args, "--framing") == "ethernet"
    assert value(args, "--mtu") == "1500B"
    assert value(args, "--delay") == "0ns"
    assert value(args, "--queue-packets") == "50"
    assert value(args, "--queue-bytes") == "0B"
    assert value(args, "--stats") == "s.json"
    assert not any(a.startswith("--reverse-") for a in args)
    assert all(isinstance(a, str) for a in args)


def test_values_keep_their_precision():
    lk = link(rate="155.52Mbit", delay="12.5ms", cell_loss_ratio=3.8e-6, loss_pct=2.7,
              framing="aal5-llc-snap", mtu="9188B")
    args = command(lk, "a", "b", Path("s"), Path("r"), seed=7)
    assert value(args, "--rate") == "155520000bit"
    assert value(args, "--delay") == "12500000ns"
    assert float(value(args, "--cell-loss-ratio")) == 3.8e-6
    assert float(value(args, "--loss-pct")) == 2.7
    assert value(args, "--seed") == "7"


def test_reverse_overrides_become_reverse_flags():
    lk = link(delay="10ms", reverse={"rate": "1Mbit", "queue": {"bytes": "16K"}})
    args = command(lk, "a", "b", Path("s"), Path("r"))
    assert value(args, "--reverse-rate") == "1000000bit"
    assert value(args, "--reverse-queue-bytes") == "16384B"
    assert value(args, "--reverse-queue-packets") == "0"
    assert value(args, "--reverse-delay") == "10000000ns"


def test_reorder_is_passed_only_when_asked():
    assert "--reorder" not in command(link(jitter="1ms", delay="5ms"), "a", "b", Path("s"), Path("r"))
    assert "--reorder" in command(link(jitter="1ms", delay="5ms", reorder=True), "a", "b", Path("s"), Path("r"))


@pytest.mark.skipif(not BINARY.is_file(), reason="tools/bin/linkemu not built (make -C tools)")
def test_every_flag_built_is_one_linkemu_knows():
    usage = subprocess.run([str(BINARY), "--help"], capture_output=True, text=True, check=True).stdout
    lk = link(jitter="1ms", delay="5ms", reorder=True, reverse={"rate": "1Mbit", "reorder": True})
    flags = {a for a in command(lk, "a", "b", Path("s"), Path("r")) if a.startswith("--")}
    assert flags and all(f"  {flag} " in usage for flag in flags), flags


@pytest.mark.parametrize("extra,match", [
    ({"jitter": "5ms", "delay": "1ms"}, "jitter"),
    ({"mtu": "70000B"}, "MTU"),
])
def test_refuses_what_it_cannot_honour(extra, match):
    with pytest.raises(BackendError, match=match):
        refuse_unsupported(link(**extra))


def test_refuses_a_link_without_a_queue():
    lk = link_from_dict("q", {"framing": "ethernet", "mtu": "1500B", "rate": "10Mbit"})
    with pytest.raises(BackendError, match="queue"):
        refuse_unsupported(lk)


def test_missing_binary_is_reported_before_touching_the_node(tmp_path):
    class Untouchable:
        name = "mid"

        def popen(self, *args, **kwargs):
            raise AssertionError("ran a command although linkemu is missing")

    with pytest.raises(BackendError, match="make -C tools"):
        LinkemuBackend(binary=tmp_path / "nope").start(Untouchable(), "a", "b", link(), tmp_path)


class NetnsNode:
    """The part of a Mininet node the backend uses, for a plain network namespace."""

    def __init__(self, ns: str) -> None:
        self.name = ns

    def popen(self, args, **kwargs):
        return subprocess.Popen(["ip", "netns", "exec", self.name, *args], **kwargs)


needs_netns = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None or shutil.which("ethtool") is None or not BINARY.is_file(),
    reason="needs root, ip, ethtool and a built tools/bin/linkemu",
)


@needs_netns
def test_forwards_with_the_configured_delay(namespaces, tmp_path):
    names, if_a, if_b = namespaces
    backend = LinkemuBackend()
    backend.start(NetnsNode(names["mid"]), if_a, if_b, link(delay="5ms"), tmp_path)
    try:
        ping = subprocess.run(["ip", "netns", "exec", names["h1"], "ping", "-c", "10", "-i", "0.05", "-W", "2",
                               "10.231.0.2"], capture_output=True, text=True, timeout=30)
    finally:
        counters = backend.stop()
    assert ping.returncode == 0, ping.stdout + ping.stderr
    rtts = [float(line.split("time=")[1].split()[0]) for line in ping.stdout.splitlines() if "time=" in line]
    assert len(rtts) >= 9
    # 2 x 5 ms of delay, never less; a loaded machine may add a little.
    assert min(rtts) >= 10.0 and sorted(rtts)[len(rtts) // 2] < 15.0
    forward = counters["forward"]
    assert forward["tx_packets"] >= 10 and forward["dropped_packets"] == 0
    assert counters["reverse"]["tx_packets"] >= 10
    assert (tmp_path / "linkemu-stats.json").is_file()
    assert backend.settings()["command"][0] == str(BINARY)


@needs_netns
def test_a_lossy_link_drops_and_says_why(namespaces, tmp_path):
    names, if_a, if_b = namespaces
    backend = LinkemuBackend(seed=3)
    backend.start(NetnsNode(names["mid"]), if_a, if_b, link(loss_pct=50), tmp_path)
    try:
        subprocess.run(["ip", "netns", "exec", names["h1"], "ping", "-c", "40", "-i", "0.01", "-W", "1",
                        "10.231.0.2"], capture_output=True, timeout=30)
    finally:
        counters = backend.stop()
    forward = counters["forward"]
    assert forward["drop_loss"] > 5
    assert forward["rx_packets"] == forward["tx_packets"] + forward["dropped_packets"] + forward["pending_packets"]


@needs_netns
def test_tcp_crosses_with_the_hosts_checksum_offload_on(namespaces, tmp_path):
    """The hosts' veths keep their default offloads: TCP checksums left to "hardware" and TSO
    handing the middle node 64 KB frames. linkemu must split those and finish every checksum,
    or h2 drops the segments (or they are dropped as oversize) and the transfer crawls on
    retransmissions."""
    if shutil.which("iperf3") is None:
        pytest.skip("needs iperf3")
    names, if_a, if_b = namespaces
    backend = LinkemuBackend()
    backend.start(NetnsNode(names["mid"]), if_a, if_b, link(rate="100Mbit"), tmp_path)
    server = subprocess.Popen(["ip", "netns", "exec", names["h2"], "iperf3", "-s", "-1", "-B", "10.231.0.2"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = None
        for _ in range(20):
            client = subprocess.run(["ip", "netns", "exec", names["h1"], "iperf3", "-c", "10.231.0.2", "-n", "8M",
                                     "--json", "--connect-timeout", "1000"], capture_output=True, text=True, timeout=30)
            if "Connection refused" not in client.stderr + client.stdout:
                break
        assert client is not None and client.returncode == 0, client.stdout + client.stderr
    finally:
        if server.poll() is None:
            server.kill()
        server.wait()
        counters = backend.stop()
    received = json.loads(client.stdout)["end"]["sum_received"]
    forward = counters["forward"]
    # 8 MB at 100 Mb/s takes 0.7 s; a transfer that lives on retransmission timeouts takes many.
    assert received["bytes"] > 6_000_000 and received["seconds"] < 3, received
    assert forward["drop_oversize"] == 0 and forward["send_errors"] == 0, forward
    assert forward["tx_bytes"] > received["bytes"]


def test_frame_times_flag_and_room_for_the_trailer():
    assert "--frame-times" not in command(link(), "a", "b", Path("s"), Path("r"))
    assert "--frame-times" in command(link(), "a", "b", Path("s"), Path("r"), frame_times=True)
    assert LinkemuBackend().trailer_octets == 0
    assert LinkemuBackend(frame_times=True).trailer_octets == FRAME_TIME_OCTETS


def test_only_linkemu_reads_frame_times():
    assert get_backend("linkemu", frame_times=True).trailer_octets == FRAME_TIME_OCTETS
    with pytest.raises(BackendError, match="only linkemu"):
        get_backend("htb", frame_times=True)
    assert emulation_backend("linkemu", "tahoe", seed=1).trailer_octets == FRAME_TIME_OCTETS
    assert emulation_backend("linkemu", "linux", seed=1).trailer_octets == 0
    assert emulation_backend("htb", "tahoe", seed=1).trailer_octets == 0


# Sends, inside a namespace, one UDP frame from MAC 02:..:01 to 02:..:02 on an interface; the
# frame ends in a frame-time trailer that states argv[2] ns before the send (CLOCK_MONOTONIC).
# Prints the time of the send and the time stated.
TIMED_SENDER = """
import socket, struct, sys, time
iface, early = sys.argv[1], int(sys.argv[2])
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + 100, 0, 0, 64, 17, 0,
                 socket.inet_aton("10.231.0.1"), socket.inet_aton("10.231.0.2"))
udp = struct.pack("!HHHH", 9, 9, 8 + 100, 0) + bytes(100)
frame = bytes.fromhex("020000000002020000000001") + b"\\x08\\x00" + ip + udp
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
sent = time.monotonic_ns()
s.send(frame + b"NRft" + struct.pack("!q", sent - early))
print(sent, sent - early)
"""

# Prints when the first frame to UDP port 9 reached an interface in a namespace, and the frame
# as hex.
TIMED_RECEIVER = """
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((sys.argv[1], 0))
s.settimeout(10)
print("listening", flush=True)
while True:
    f = s.recv(65535)
    if f[12:14] == b"\\x08\\x00" and f[23] == 17 and f[36:38] == b"\\x00\\x09":
        print(time.monotonic_ns(), f.hex(), flush=True)
        break
"""


@needs_netns
def test_a_timed_frame_is_admitted_at_its_stated_time_and_leaves_with_its_release_time(namespaces, tmp_path):
    """A frame stated 3 ms before it is sent is admitted then: it reaches h2 about 2 ms after
    it was sent on a link with 5 ms of delay, with a trailer that states its release time, 5 ms
    and its line time after the stated time. The ping's frames, which carry no trailer, pass
    as they are."""
    names, if_a, if_b = namespaces
    if_h1, if_h2 = if_a[:-1] + "a", if_b[:-1] + "d"
    sh("ip", "-n", names["h1"], "link", "set", if_h1, "address", "02:00:00:00:00:01")
    sh("ip", "-n", names["h2"], "link", "set", if_h2, "address", "02:00:00:00:00:02")
    for dev in (if_a, if_b):
        sh("ip", "-n", names["mid"], "link", "set", dev, "mtu", str(1500 + FRAME_TIME_OCTETS))
    backend = LinkemuBackend(frame_times=True)
    backend.start(NetnsNode(names["mid"]), if_a, if_b, link(delay="5ms"), tmp_path)
    try:
        ping = subprocess.run(["ip", "netns", "exec", names["h1"], "ping", "-c", "3", "-i", "0.05", "-W", "2",
                               "10.231.0.2"], capture_output=True, text=True, timeout=30)
        receiver = subprocess.Popen(["ip", "netns", "exec", names["h2"], "python3", "-c", TIMED_RECEIVER, if_h2],
                                    stdout=subprocess.PIPE, text=True)
        assert receiver.stdout is not None and receiver.stdout.readline().strip() == "listening"
        sender = subprocess.run(["ip", "netns", "exec", names["h1"], "python3", "-c", TIMED_SENDER, if_h1,
                                 "3000000"], check=True, capture_output=True, text=True, timeout=30)
        sent, stated = map(int, sender.stdout.split())
        arrived_text, frame_hex = receiver.communicate(timeout=30)[0].split()
        arrived, frame = int(arrived_text), bytes.fromhex(frame_hex)
    finally:
        counters = backend.stop()
    assert ping.returncode == 0, ping.stdout + ping.stderr
    assert counters["frame_times"] is True
    assert counters["forward"]["timed_frames"] == 1 and counters["reverse"]["timed_frames"] == 0
    assert counters["forward"]["timed_late_max_ns"] >= 3_000_000
    # The IP packet (128 octets) arrives whole, followed by a fresh trailer.
    assert len(frame) == 14 + 128 + FRAME_TIME_OCTETS and frame[-12:-8] == b"NRft"
    release = struct.unpack("!q", frame[-8:])[0]
    line_ns = (128 + 38) * 8 * 100  # with Ethernet's 38 octets of header, FCS, preamble and gap
    assert release - stated == pytest.approx(5_000_000 + line_ns, abs=1000)
    # Released 2 ms after it was sent, not 5: it left at its stated time's release.
    assert arrived - sent < 4_500_000
