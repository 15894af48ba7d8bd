"""What each TCP/IP stack of a spec needs on a Mininet host, as argument lists.

- ``linux``: the kernel as it is; nothing to do.
- ``linux-retro``: a stock kernel pushed towards a 1990s BSD TCP with what sysctls, routes and
  socket options can do. What it cannot do is listed in docs/emulation-timing.md.
- ``tahoe``: the project's 4.3BSD-Tahoe stack (tools/tahoe) runs inside each tool and owns the
  host's interface; the kernel must give up its IPv4 address there.

The functions that build commands are pure (tested in tests/test_stacks.py); ``apply`` runs
them through ``host.popen(argv)``, never through a shell.
"""
from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any, Sequence

from netrepro.backends import FRAME_TIME_OCTETS

STACKS = ("linux", "linux-retro", "tahoe")

# 4.3BSD's shortest retransmission timeout (TCPTV_MIN, two 500 ms slow ticks).
BSD_RTO_MIN = "1s"
# SunOS 4.1's buffers on the ATM interface, the retro default when a spec names none.
RETRO_DEFAULT_BUFFER = 16384
# Linux refuses tcp_rmem/tcp_wmem minimums below one page.
LINUX_MIN_BUFFER = 4096

class StackError(RuntimeError):
    """A stack's settings could not be applied on a host; the message says what to do."""


def _check_stack(stack: str) -> None:
    if stack not in STACKS:
        raise ValueError(f"unknown stack {stack!r}; give one of {', '.join(STACKS)}")


def _check_buffer(name: str, octets: int) -> None:
    if not LINUX_MIN_BUFFER <= octets <= 1 << 30:
        raise ValueError(f"{name} {octets}: give {LINUX_MIN_BUFFER} to {1 << 30} octets")


def linux_commands() -> list[list[str]]:
    """The kernel as it is: nothing to change."""
    return []


def linux_retro_commands(iface: str, address: str, *, send_buffer: int = RETRO_DEFAULT_BUFFER,
                         receive_buffer: int = RETRO_DEFAULT_BUFFER) -> list[list[str]]:
    """sysctls (per network namespace) and a route that make a stock kernel's TCP as close to a
    1990s BSD TCP as they can. `address` is the host's own address with its prefix
    (10.0.0.1/24); the buffers become the defaults and maxima, with autotuning off."""
    _check_buffer("send_buffer", send_buffer)
    _check_buffer("receive_buffer", receive_buffer)
    interface = ipaddress.ip_interface(address)
    sysctls = {
        "net.ipv4.tcp_sack": "0",
        "net.ipv4.tcp_dsack": "0",
        "net.ipv4.tcp_timestamps": "0",
        "net.ipv4.tcp_window_scaling": "0",
        "net.ipv4.tcp_ecn": "0",
        "net.ipv4.tcp_frto": "0",
        "net.ipv4.tcp_congestion_control": "reno",
        "net.ipv4.tcp_moderate_rcvbuf": "0",
        # A run must not inherit the cwnd and RTT a previous run left in the route cache.
        "net.ipv4.tcp_no_metrics_save": "1",
        "net.ipv4.tcp_rmem": f"{LINUX_MIN_BUFFER} {receive_buffer} {receive_buffer}",
        "net.ipv4.tcp_wmem": f"{LINUX_MIN_BUFFER} {send_buffer} {send_buffer}",
    }
    commands = [["sysctl", "-w", f"{key}={value}"] for key, value in sysctls.items()]
    commands.append([
        "ip", "route", "replace", str(interface.network), "dev", iface, "proto", "kernel",
        "scope", "link", "src", str(interface.ip), "quickack", "0", "rto_min", BSD_RTO_MIN,
    ])
    return commands


def tahoe_commands(iface: str, mtu: int | None = None) -> list[list[str]]:
    """Takes the kernel off the interface the Tahoe stack will own: no IPv4 address (else the
    kernel answers the stack's peers with resets and unreachables), no IPv6 chatter on the
    measured link, and the link up (flushing keeps it up; the last command makes sure). mtu,
    if given, becomes the interface's MTU."""
    up = ["ip", "link", "set", "dev", iface, "up"]
    if mtu is not None:
        up[-1:] = ["mtu", str(mtu), "up"]
    return [
        ["ip", "-4", "addr", "flush", "dev", iface],
        ["sysctl", "-w", f"net.ipv6.conf.{iface}.disable_ipv6=1"],
        up,
    ]


def host_commands(stack: str, iface: str, address: str, *, send_buffer: int | None = None,
                  receive_buffer: int | None = None, tahoe_mtu: int | None = None) -> list[list[str]]:
    """The commands `stack` needs on a host whose interface `iface` has `address` (IP/prefix);
    tahoe_mtu, if given, becomes the interface's MTU under a Tahoe stack."""
    _check_stack(stack)
    if stack == "linux":
        return linux_commands()
    if stack == "linux-retro":
        return linux_retro_commands(iface, address,
                                    send_buffer=send_buffer or RETRO_DEFAULT_BUFFER,
                                    receive_buffer=receive_buffer or RETRO_DEFAULT_BUFFER)
    return tahoe_commands(iface, tahoe_mtu)


def tool_args(stack: str, iface: str, address: str, host_model: Path | str | None = None, *,
              mtu: int | None = None, tcp_sendspace: int | None = None,
              tcp_recvspace: int | None = None, arp: Sequence[tuple[str, str]] = (),
              frame_times: bool = False) -> list[str]:
    """Arguments every tool (pingx, echod, ttcp) takes to run on `stack` on this host. The
    tools' --sndbuf/--rcvbuf stay as they are; tcp_sendspace/tcp_recvspace set the Tahoe
    stack's defaults (else: the host model's, else 16K on an MTU above 1500, else 4K). arp
    lists (IPv4 address, MAC) pairs the Tahoe stack knows from the start. frame_times: the
    stack's frames carry their modelled times (linkemu --frame-times)."""
    _check_stack(stack)
    if stack != "tahoe":
        if frame_times:
            raise ValueError("frame times need the tahoe stack; the Linux stack cannot send them")
        return ["--stack", "kernel"]
    if host_model is None:
        raise ValueError("the tahoe stack needs a host model (configs/hosts/*.yaml)")
    interface = ipaddress.ip_interface(address)
    if interface.version != 4 or interface.network.prefixlen == 0:
        raise ValueError(f"address {address!r}: give an IPv4 address with a prefix, e.g. 10.0.0.1/24")
    argv = ["--stack", "tahoe", "--if", iface, "--addr", str(interface),
            "--host-model", str(host_model)]
    if mtu is not None:
        argv += ["--mtu", f"{mtu}B"]
    if tcp_sendspace is not None:
        argv += ["--tcp-sendspace", f"{tcp_sendspace}B"]
    if tcp_recvspace is not None:
        argv += ["--tcp-recvspace", f"{tcp_recvspace}B"]
    for ip, mac in arp:
        argv += ["--arp", f"{ipaddress.IPv4Address(ip)}={mac}"]
    if frame_times:
        argv.append("--frame-times")
    return argv


def apply(host: Any, commands: list[list[str]]) -> list[str]:
    """Runs each command on a Mininet host with host.popen(argv); returns their outputs and
    raises StackError, naming the command and its output, at the first that fails."""
    outputs = []
    for command in commands:
        process = host.popen(command, stdout=-1, stderr=-2, text=True)
        output, _ = process.communicate()
        if process.returncode != 0:
            raise StackError(
                f"{' '.join(command)} failed on {getattr(host, 'name', host)} "
                f"(exit {process.returncode}): {(output or '').strip()}; check that the host's "
                "kernel has the setting (sysctl -a) and that the interface exists")
        outputs.append(output or "")
    return outputs


def setup_hosts(hosts: list[tuple[Any, str, str]], stack: str, host_model: Path | None, mtu: int,
                buffers: tuple[int, int] | None = None, frame_times: bool = False) -> dict[str, list[str]]:
    """Readies each (host, iface, address) for `stack` and returns, by host name, the arguments
    its tools take. buffers = (send, receive) become linux-retro's fixed defaults. A Tahoe
    stack knows the other hosts' link addresses from the start, as virtual time does: an ARP
    exchange before a run's first packet would put it behind netsim's. frame_times (Tahoe
    only, for a backend that reads them): the stacks send frame-time trailers, and their
    interfaces get room for them past mtu."""
    send, receive = buffers or (RETRO_DEFAULT_BUFFER, RETRO_DEFAULT_BUFFER)
    if frame_times and stack != "tahoe":
        raise ValueError("frame times need the tahoe stack; the Linux stack cannot send them")
    args = {}
    for host, iface, address in hosts:
        apply(host, host_commands(stack, iface, address, send_buffer=send, receive_buffer=receive,
                                  tahoe_mtu=mtu + FRAME_TIME_OCTETS if frame_times else None))
        if stack == "tahoe":
            peers = [(str(ipaddress.ip_interface(a).ip), h.MAC(i)) for h, i, a in hosts if h is not host]
            args[host.name] = tool_args(stack, iface, address, host_model, mtu=mtu, arp=peers,
                                        frame_times=frame_times)
        else:
            args[host.name] = tool_args(stack, iface, address, host_model)
    return args
