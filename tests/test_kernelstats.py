"""netrepro.kernelstats: the Linux kernel's drop counters of one namespace, parsed from the
/proc/net files as this kernel writes them, and a mode's drops by place on the Linux stack."""
import dataclasses
from pathlib import Path

import pytest

from netrepro import kernelstats
from netrepro.errors import RunError
from netrepro.spec import load_spec
from netrepro.tools import pingx

SNMP = """Ip: Forwarding DefaultTTL InReceives OutDiscards ReasmFails
Ip: 2 64 300599 3 7
Icmp: InMsgs InErrors
Icmp: 1535 0
Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors
Udp: 100 0 4 90 4 0
"""
SOCKSTAT = "sockets: used 13\nTCP: inuse 1 orphan 0 tw 0 alloc 6 mem 103\nFRAG: inuse 2 memory 4096\n"
DEV = """Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
mid-eth0: 10 1 0 0 0 0 0 0 20 2 0 5 0 0 0 0
mid-eth1: 10 1 0 9 0 0 0 0 20 2 0 6 0 0 0 0
"""


def test_parsers_read_the_proc_files_as_the_kernel_writes_them() -> None:
    snmp = kernelstats.parse_snmp(SNMP)
    assert snmp["Ip.ReasmFails"] == 7 and snmp["Udp.RcvbufErrors"] == 4 and snmp["Icmp.InMsgs"] == 1535
    assert kernelstats.parse_frag_inuse(SOCKSTAT) == 2
    assert kernelstats.parse_tx_drops(DEV, "mid-eth1") == 6 and kernelstats.parse_tx_drops(DEV, "mid-eth0") == 5
    with pytest.raises(ValueError, match="no interface"):
        kernelstats.parse_tx_drops(DEV, "h1-eth0")
    with pytest.raises(ValueError, match="no FRAG"):
        kernelstats.parse_frag_inuse("TCP: inuse 1\n")
    with pytest.raises(ValueError, match="unexpected"):
        kernelstats.parse_snmp("Ip: Forwarding\nUdp: 1\n")


def test_the_parsers_read_this_machines_own_files() -> None:
    snmp = kernelstats.parse_snmp(Path("/proc/net/snmp").read_text())
    assert all(f"{group}.{name}" in snmp for group, names in kernelstats.SNMP.items() for name in names)
    assert kernelstats.parse_frag_inuse(Path("/proc/net/sockstat").read_text()) >= 0
    assert kernelstats.parse_tx_drops(Path("/proc/net/dev").read_text(), "lo") >= 0


def test_a_snapshot_reads_each_node_through_its_process(monkeypatch) -> None:
    files = {"snmp": SNMP, "sockstat": SOCKSTAT, "dev": DEV}
    monkeypatch.setattr(kernelstats, "_read", lambda node, name: files[name])
    node = object()
    counters = kernelstats.snapshot({"h1": node, "h2": node}, node, {"h1": "mid-eth0", "h2": "mid-eth1"})
    assert counters["h1.backlog"] == 5 and counters["h2.backlog"] == 6
    assert counters["h2.Ip.OutDiscards"] == 3 and counters["h2.FRAG.pending"] == 2
    assert set(counters) == {f"{h}.{k}" for h in ("h1", "h2")
                             for k in ("Ip.OutDiscards", "Ip.ReasmFails", "Udp.RcvbufErrors", "FRAG.pending", "backlog")}
    files["snmp"] = SNMP.replace("RcvbufErrors", "Rcvbuf")
    with pytest.raises(RunError, match="lacks Udp.RcvbufErrors"):
        kernelstats.snapshot({"h1": node}, node, {"h1": "mid-eth0"})


def test_a_linux_modes_drops_are_the_kernels_and_the_links_differences() -> None:
    keys = [f"{h}.{k}" for h in ("h1", "h2") for k in ("Ip.OutDiscards", "Ip.ReasmFails", "Udp.RcvbufErrors",
                                                        "FRAG.pending", "backlog")]
    kernel_before = dict.fromkeys(keys, 10)
    # A reassembly queue open before the mode fails in it: counted by ReasmFails, not again.
    kernel_after = {**kernel_before, "h2.Udp.RcvbufErrors": 14, "h2.Ip.ReasmFails": 13, "h2.FRAG.pending": 9,
                    "h2.backlog": 11, "h1.Ip.OutDiscards": 12}
    causes = ("drop_queue", "drop_loss", "drop_cell_loss", "drop_bit_error", "drop_oversize")
    link = {direction: dict.fromkeys(causes, 0) for direction in ("forward", "reverse")}
    link_after = {**link, "forward": {**link["forward"], "drop_queue": 2, "drop_loss": 1}}
    experiment = load_spec(Path("configs/liu95cool.yaml"), {"profile": "smoke"}).experiments["lan-large"]
    assert experiment.stack == "linux"
    before = {"link": link, "kernel": kernel_before}
    after = {"link": link_after, "kernel": kernel_after}
    drops = pingx.mode_drops(experiment, None, [None], before, after)
    assert drops == {"run_drops_send_queue": 2, "run_drops_link": 3, "run_drops_echo_ipq": 3,
                     "run_drops_echo_socket": 4, "run_drops_client_ipq": 0, "run_drops_client_socket": 0}
    assert set(drops) == set(pingx.RUN_DROPS) == set(pingx.LINUX_RUN_DROPS)
    with pytest.raises(RunError, match="lacks h1.backlog"):
        pingx.mode_drops(experiment, None, [None], {**before, "kernel": {k: 0 for k in keys if k != "h1.backlog"}},
                         {**after, "kernel": {k: 0 for k in keys if k != "h1.backlog"}})
    assert pingx.mode_drops(dataclasses.replace(experiment, stack="linux"), None, [None], None, None) == {}
