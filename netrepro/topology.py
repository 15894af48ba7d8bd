"""The measurement topology: host h1, a middle node that emulates the link, host h2.

h1 and h2 share one IPv4 subnet; the middle node forwards between its two interfaces at layer 2
while a link backend imposes rate, framing, queue, delay and loss. The hosts' own interfaces
carry no rate limit: a limit there would only block the sender, never drop its datagrams.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from mininet.link import Link
from mininet.net import Mininet
from mininet.node import Host
from mininet.topo import Topo

from netrepro import limits
from netrepro.backends import LinkBackend
from netrepro.cleanup import ProcessGroups, delete_stale_veths, emulation_session
from netrepro.procmark import die_with_parent
from netrepro.backends.htb import run_checked
from netrepro.cpuidle import ShallowIdle
from netrepro.linkspec import LinkParams

H1_IP = "10.0.0.1"
H2_IP = "10.0.0.2"
# Each host's interface and address with its prefix, as the stacks set them up (netrepro.stacks).
H1 = ("h1-eth0", f"{H1_IP}/24")
H2 = ("h2-eth0", f"{H2_IP}/24")
IF_A = "mid-eth0"
IF_B = "mid-eth1"
OFFLOADS = ("tso", "gso", "gro", "lro", "tx", "rx", "sg")


class LinkTopo(Topo):
    """h1 -- mid -- h2 with plain veth links; refuses MTUs the kernel or IPv4 cannot carry."""

    def build(self, mtu: int = 1500) -> None:  # noqa: D401 - Mininet's hook name
        if not limits.MTU.contains(mtu):
            raise ValueError(f"MTU {mtu}: {limits.MTU.describe()}")
        h1 = self.addHost("h1", ip=H1[1])
        h2 = self.addHost("h2", ip=H2[1])
        mid = self.addHost("mid", ip=None)
        self.addLink(h1, mid, cls=Link, intfName1="h1-eth0", intfName2=IF_A)
        self.addLink(mid, h2, cls=Link, intfName1=IF_B, intfName2="h2-eth0")


class TrackedHost(Host):
    """A Mininet host that hands every process it starts to `groups`: Mininet starts each in a
    session of its own, which net.stop() does not end."""

    def __init__(self, name: str, groups: ProcessGroups, **params: Any) -> None:
        super().__init__(name, **params)
        self.groups = groups

    def popen(self, *args: Any, **kwargs: Any) -> Any:
        # die_with_parent: a run killed by SIGKILL leaves no tool running on until the sweep.
        kwargs.setdefault("preexec_fn", die_with_parent)
        return self.groups.add(super().popen(*args, **kwargs))


class LinkNetwork:
    """A running LinkTopo whose middle node emulates `link` with `backend`.

    Use as a context manager; on exit the backend's counters are in `counters`, and the
    settings the run ended with (offloads, CPU idle hold, backend) in `at_stop`. While it
    runs the CPUs are held out of deep idle where the kernel allows; `cpu_idle` says how.
    It runs inside netrepro.cleanup.emulation_session (one network at a time, leftovers of a
    killed run swept first; `swept` says what was removed), and every process started in its
    hosts is killed with its process group when it stops.
    """

    def __init__(self, link: LinkParams, backend: LinkBackend, log_dir: Path) -> None:
        self.link = link
        self.backend = backend
        self.log_dir = log_dir
        self.counters: dict[str, Any] = {}
        self.at_stop: dict[str, Any] = {}
        self.offloads: dict[str, dict[str, str]] = {}
        self._net: Mininet | None = None
        self._idle = ShallowIdle()
        self._groups = ProcessGroups()
        self._session = emulation_session()
        self.swept: dict[str, Any] = {}

    def __enter__(self) -> "LinkNetwork":
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.swept = self._session.__enter__()
        try:
            self._idle.hold()
            self._net = Mininet(topo=LinkTopo(mtu=self.link.mtu), host=partial(TrackedHost, groups=self._groups),
                                controller=None, autoSetMacs=True, waitConnected=False)
        except BaseException:
            self._stop()
            raise
        try:
            self._net.start()
            # The middle node's interfaces also carry frame-time trailers; the hosts' get the
            # room only when their stacks send trailers (stacks.setup_hosts), so the kernel's
            # own packets never exceed the link's MTU.
            mid_mtu = self.link.mtu + self.backend.trailer_octets
            for host, iface, mtu in ((self.h1, "h1-eth0", self.link.mtu), (self.h2, "h2-eth0", self.link.mtu),
                                     (self.mid, IF_A, mid_mtu), (self.mid, IF_B, mid_mtu)):
                run_checked(host, ["ip", "link", "set", "dev", iface, "mtu", str(mtu)])
                self.offloads[iface] = disable_offloads(host, iface)
            self.backend.start(self.mid, IF_A, IF_B, self.link, self.log_dir)
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._net is not None
        try:
            self.at_stop = {"offloads": self.offloads, "cpu_idle": self.cpu_idle,
                            "backend_settings": self.backend.settings()}
            self.counters = self.backend.stop()
        finally:
            self._stop()

    def _stop(self) -> None:
        """Ends every process the hosts started, then the network, each step even if one before
        failed."""
        try:
            self._groups.end_all()
        finally:
            try:
                if self._net is not None:
                    stop_network(self._net)
            finally:
                self._idle.release()
                self._session.__exit__(None, None, None)

    def provenance(self, link_check: Any, link_seed: int) -> dict[str, Any]:
        """The emulated link's part of a run's provenance, once the network has stopped."""
        return {"backend": self.backend.name, "link_check": link_check.as_dict(), "link_seed": link_seed,
                "link_counters": self.counters, **self.at_stop}

    @property
    def frame_times(self) -> bool:
        """Whether the backend reads frame-time trailers, so Tahoe hosts should send them."""
        return self.backend.trailer_octets > 0

    @property
    def cpu_idle(self) -> str:
        return self._idle.state

    def _host(self, name: str) -> Host:
        assert self._net is not None, "the network is not running"
        return self._net[name]

    @property
    def h1(self) -> Host:
        return self._host("h1")

    @property
    def h2(self) -> Host:
        return self._host("h2")

    @property
    def mid(self) -> Host:
        return self._host("mid")


def stop_network(net: Mininet) -> None:
    """Stops net. Mininet's net.stop() deletes each link through a node's shell and waits for
    the shell's answer, so a shell that died under the run (killed from outside, by `mn -c` or
    the OOM killer) would hold the run, and the emulation lock, forever. With one dead, each
    node is terminated instead (the shells still alive end, and their namespaces with them) and
    the topology's veths left in this namespace are deleted."""
    if all(node.shell is None or node.shell.poll() is None for node in net.hosts):
        net.stop()
        return
    for node in net.hosts:
        node.terminate()
    delete_stale_veths()


def disable_offloads(host: Any, iface: str) -> dict[str, str]:
    """Turns segmentation and receive offloads off, so packets on the link are the sizes the
    stacks chose; returns the offload state read back."""
    command = ["ethtool", "-K", iface]
    for offload in OFFLOADS:
        command += [offload, "off"]
    process = host.popen(command, stdout=-1, stderr=-2, text=True)
    output, _ = process.communicate()
    state = read_offloads(host, iface)
    still_on = [key for key, value in state.items() if value.startswith("on") and "[fixed]" not in value]
    if still_on:
        raise RuntimeError(f"offloads still on for {iface} in {host.name}: {', '.join(still_on)} ({output.strip()})")
    return state


def read_offloads(host: Any, iface: str) -> dict[str, str]:
    names = {
        "tcp-segmentation-offload", "generic-segmentation-offload", "generic-receive-offload",
        "large-receive-offload", "rx-checksumming", "tx-checksumming", "scatter-gather",
    }
    output = run_checked(host, ["ethtool", "-k", iface])
    state = {}
    for line in output.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in names:
            state[key.strip()] = value.strip()
    return state
