"""The argument lists netrepro.stacks builds for each stack, and how apply() runs them."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from netrepro import stacks
from netrepro.backends import FRAME_TIME_OCTETS


def test_linux_needs_nothing() -> None:
    assert stacks.host_commands("linux", "h1-eth0", "10.0.0.1/24") == []
    assert stacks.tool_args("linux", "h1-eth0", "10.0.0.1/24") == ["--stack", "kernel"]


def test_linux_retro_sysctls_and_route() -> None:
    commands = stacks.host_commands("linux-retro", "h1-eth0", "10.0.0.1/24",
                                    send_buffer=16384, receive_buffer=24576)
    sysctls = dict(c[2].split("=", 1) for c in commands if c[0] == "sysctl")
    assert all(c[:2] == ["sysctl", "-w"] for c in commands if c[0] == "sysctl")
    assert sysctls["net.ipv4.tcp_sack"] == "0"
    assert sysctls["net.ipv4.tcp_timestamps"] == "0"
    assert sysctls["net.ipv4.tcp_window_scaling"] == "0"
    assert sysctls["net.ipv4.tcp_congestion_control"] == "reno"
    assert sysctls["net.ipv4.tcp_moderate_rcvbuf"] == "0"
    assert sysctls["net.ipv4.tcp_rmem"] == "4096 24576 24576"
    assert sysctls["net.ipv4.tcp_wmem"] == "4096 16384 16384"
    assert commands[-1] == ["ip", "route", "replace", "10.0.0.0/24", "dev", "h1-eth0",
                            "proto", "kernel", "scope", "link", "src", "10.0.0.1",
                            "quickack", "0", "rto_min", "1s"]


def test_linux_retro_default_buffers_are_sunos_atm() -> None:
    commands = stacks.host_commands("linux-retro", "h2-eth0", "10.0.0.2/24")
    assert ["sysctl", "-w", "net.ipv4.tcp_rmem=4096 16384 16384"] in commands
    assert ["sysctl", "-w", "net.ipv4.tcp_wmem=4096 16384 16384"] in commands


def test_linux_retro_refuses_tiny_buffers() -> None:
    with pytest.raises(ValueError, match="receive_buffer"):
        stacks.linux_retro_commands("h1-eth0", "10.0.0.1/24", receive_buffer=1024)


def test_tahoe_takes_the_interface_from_the_kernel() -> None:
    assert stacks.host_commands("tahoe", "h1-eth0", "10.0.0.1/24") == [
        ["ip", "-4", "addr", "flush", "dev", "h1-eth0"],
        ["sysctl", "-w", "net.ipv6.conf.h1-eth0.disable_ipv6=1"],
        ["ip", "link", "set", "dev", "h1-eth0", "up"],
    ]


def test_tahoe_tool_args() -> None:
    argv = stacks.tool_args("tahoe", "h1-eth0", "10.0.0.1/24", "configs/hosts/sparcstation-ipc.yaml")
    assert argv == ["--stack", "tahoe", "--if", "h1-eth0", "--addr", "10.0.0.1/24",
                    "--host-model", "configs/hosts/sparcstation-ipc.yaml"]
    argv = stacks.tool_args("tahoe", "h2-eth0", "10.0.0.2/24", "m.yaml", mtu=9188,
                            tcp_sendspace=16384, tcp_recvspace=24576)
    assert argv[-6:] == ["--mtu", "9188B", "--tcp-sendspace", "16384B", "--tcp-recvspace", "24576B"]


class MacHost:
    """A Mininet host as setup_hosts uses it: commands succeed, and each has one MAC."""

    def __init__(self, name: str, mac: str) -> None:
        self.name, self.mac = name, mac

    def popen(self, command: list[str], **_: object) -> subprocess.Popen:
        return subprocess.Popen(["true"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def MAC(self, iface: str) -> str:  # noqa: N802 (Mininet's name)
        assert iface == f"{self.name}-eth0"
        return self.mac


def test_tahoe_hosts_know_each_others_link_addresses() -> None:
    h1, h2 = MacHost("h1", "00:00:00:00:00:01"), MacHost("h2", "00:00:00:00:00:02")
    args = stacks.setup_hosts([(h1, "h1-eth0", "10.0.0.1/24"), (h2, "h2-eth0", "10.0.0.2/24")],
                              "tahoe", Path("m.yaml"), 9188)
    assert args["h1"][-2:] == ["--arp", "10.0.0.2=00:00:00:00:00:02"]
    assert args["h2"][-2:] == ["--arp", "10.0.0.1=00:00:00:00:00:01"]
    assert args["h1"].count("--arp") == 1
    linux = stacks.setup_hosts([(h1, "h1-eth0", "10.0.0.1/24"), (h2, "h2-eth0", "10.0.0.2/24")],
                               "linux", None, 9188)
    assert linux == {"h1": ["--stack", "kernel"], "h2": ["--stack", "kernel"]}


class RecordingMacHost(MacHost):
    """A MacHost that keeps the commands it was given."""

    def __init__(self, name: str, mac: str) -> None:
        super().__init__(name, mac)
        self.argvs: list[list[str]] = []

    def popen(self, command: list[str], **kwargs: object) -> subprocess.Popen:
        self.argvs.append(command)
        return super().popen(command, **kwargs)


def test_frame_times_give_tahoe_hosts_the_flag_and_room_for_the_trailer() -> None:
    h1, h2 = RecordingMacHost("h1", "00:00:00:00:00:01"), RecordingMacHost("h2", "00:00:00:00:00:02")
    args = stacks.setup_hosts([(h1, "h1-eth0", "10.0.0.1/24"), (h2, "h2-eth0", "10.0.0.2/24")],
                              "tahoe", Path("m.yaml"), 9188, frame_times=True)
    assert args["h1"][-1] == args["h2"][-1] == "--frame-times"
    assert args["h1"][args["h1"].index("--mtu") + 1] == "9188B"
    assert h1.argvs[-1] == ["ip", "link", "set", "dev", "h1-eth0", "mtu", str(9188 + FRAME_TIME_OCTETS), "up"]
    plain = stacks.setup_hosts([(h1, "h1-eth0", "10.0.0.1/24"), (h2, "h2-eth0", "10.0.0.2/24")],
                               "tahoe", Path("m.yaml"), 9188)
    assert "--frame-times" not in plain["h1"]
    assert h1.argvs[-1] == ["ip", "link", "set", "dev", "h1-eth0", "up"]


def test_frame_times_are_refused_on_the_linux_stack() -> None:
    h1 = MacHost("h1", "00:00:00:00:00:01")
    with pytest.raises(ValueError, match="tahoe stack"):
        stacks.setup_hosts([(h1, "h1-eth0", "10.0.0.1/24")], "linux", None, 1500, frame_times=True)
    with pytest.raises(ValueError, match="tahoe stack"):
        stacks.tool_args("linux", "h1-eth0", "10.0.0.1/24", frame_times=True)


def test_tahoe_tool_args_refuse_missing_model_and_bad_address() -> None:
    with pytest.raises(ValueError, match="host model"):
        stacks.tool_args("tahoe", "h1-eth0", "10.0.0.1/24")
    with pytest.raises(ValueError):
        stacks.tool_args("tahoe", "h1-eth0", "10.0.0.1/0", "m.yaml")
    with pytest.raises(ValueError):
        stacks.tool_args("tahoe", "h1-eth0", "fe80::1/64", "m.yaml")


def test_unknown_stack_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown stack"):
        stacks.host_commands("bsd", "h1-eth0", "10.0.0.1/24")
    with pytest.raises(ValueError, match="unknown stack"):
        stacks.tool_args("bsd", "h1-eth0", "10.0.0.1/24")


class FakeHost:
    """Records argument lists and runs them as `true`/`false` by their first word."""

    name = "h1"

    def __init__(self) -> None:
        self.argvs: list[list[str]] = []

    def popen(self, argv: list[str], **kwargs: object) -> subprocess.Popen:
        assert isinstance(argv, list), "commands must be argument lists, never shell strings"
        self.argvs.append(argv)
        return subprocess.Popen(["false" if argv[0] == "fail" else "true"], **kwargs)


def test_apply_runs_argument_lists_in_order() -> None:
    host = FakeHost()
    commands = stacks.tahoe_commands("h1-eth0")
    stacks.apply(host, commands)
    assert host.argvs == commands


def test_apply_stops_at_the_first_failure() -> None:
    host = FakeHost()
    with pytest.raises(stacks.StackError, match="fail now failed on h1"):
        stacks.apply(host, [["true"], ["fail", "now"], ["never"]])
    assert host.argvs == [["true"], ["fail", "now"]]
