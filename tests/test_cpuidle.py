"""netrepro.cpuidle: the PM QoS hold writes a 0 and keeps the file open while it lasts, and a
missing interface is reported, not fatal."""
import os
import struct
from pathlib import Path

from netrepro.cpuidle import ShallowIdle


def open_fds_on(path: Path) -> int:
    return sum(os.path.realpath(f"/proc/self/fd/{fd}") == str(path) for fd in os.listdir("/proc/self/fd"))


def test_writes_zero_and_holds_the_file_open_until_exit(tmp_path: Path) -> None:
    qos = tmp_path / "cpu_dma_latency"
    qos.write_bytes(b"")
    with ShallowIdle(qos) as hold:
        assert hold.state.startswith("held at 0 us")
        assert open_fds_on(qos) == 1
        assert struct.unpack("=i", qos.read_bytes()) == (0,)
    assert open_fds_on(qos) == 0


def test_without_the_interface_the_state_says_why(tmp_path: Path) -> None:
    with ShallowIdle(tmp_path / "missing") as hold:
        assert hold.state.startswith("not held: opening")
        assert "No such file" in hold.state

