"""netem backend: the tc and ip command lines, built without running them."""
import pytest

from netrepro.backends import BackendError
from netrepro.backends.netem import (
    NetemBackend, bridge_commands, egress_commands, error_bits, netem_framing_args, packet_loss_pct,
    start_commands,
)
from netrepro.linkspec import link_from_dict


def link(**extra):
    data = {"framing": "ethernet", "mtu": "1500B", "rate": "10Mbit", "queue": {"packets": 50}, **extra}
    return link_from_dict("l", data)


def atm(**extra):
    return link(framing="aal5-llc-snap", mtu="9188B", rate="155.52Mbit", **extra)


def value(args, key):
    return args[args.index(key) + 1]


def test_netem_rate_style_is_one_netem_qdisc_with_everything():
    lk = link(delay="35ms", jitter="2ms", loss_pct=2.7)
    [cmd] = egress_commands(lk, lk.forward, "mid-eth1")
    assert cmd[:8] == ["tc", "qdisc", "replace", "dev", "mid-eth1", "root", "handle", "1:"]
    assert value(cmd, "limit") == "50"
    assert cmd[cmd.index("delay") + 1:cmd.index("delay") + 3] == ["35000us", "2000us"]
    assert cmd[cmd.index("loss") + 1:cmd.index("loss") + 3] == ["random", "2.7%"]
    assert value(cmd, "rate") == "10000000bit"
    # FCS, preamble and gap beyond the 14-octet header that skb->len already counts.
    assert value(cmd, "packetoverhead") == "24"
    assert all(isinstance(arg, str) for arg in cmd)


def test_atm_framing_in_netem_charges_whole_cells():
    args = netem_framing_args(atm())
    # LLC/SNAP 8 + trailer 8 - Ethernet header 14; 48-octet payloads, 5-octet headers.
    assert args == ["packetoverhead", "2", "cellsize", "48", "celloverhead", "5"]
    vc = link(framing="aal5-vc-mux", mtu="9188B")
    assert value(netem_framing_args(vc), "packetoverhead") == "-6"


def test_netem_charge_matches_linkspec_wire_octets():
    """netem's cell arithmetic on skb->len must give LinkParams.wire_octets for every size."""
    for lk in (atm(), link(framing="aal5-vc-mux", mtu="9188B")):
        args = netem_framing_args(lk)
        overhead, cell, cell_overhead = (int(value(args, k)) for k in ("packetoverhead", "cellsize", "celloverhead"))
        for ip in (40, 41, 1500, 9188):
            length = ip + 14 + overhead
            cells = -(-length // cell)
            assert cells * (cell + cell_overhead) == lk.wire_octets(ip)


def test_tbf_style_has_stab_on_the_root_and_the_queue_under_tbf():
    lk = atm(delay="100ms", queue={"bytes": "64K"})
    root, tbf, fifo = egress_commands(lk, lk.forward, "mid-eth0", style="tbf")
    assert "stab" in root and value(root, "linklayer") == "atm" and "netem" in root
    assert "rate" not in root
    assert tbf[tbf.index("parent") + 1] == "1:1" and "tbf" in tbf
    assert value(tbf, "rate") == "155520000bit"
    assert int(value(tbf, "burst")) >= lk.wire_octets(9188)
    assert fifo[-3:] == ["bfifo", "limit", "65536"]


def test_bridge_joins_both_interfaces():
    cmds = bridge_commands("mid-eth0", "mid-eth1")
    assert ["ip", "link", "set", "dev", "mid-eth0", "master", "br-link"] in cmds
    assert ["ip", "link", "set", "dev", "mid-eth1", "master", "br-link"] in cmds


def test_forward_shapes_if_b_and_reverse_if_a():
    lk = link(rate="10Mbit", reverse={"rate": "1Mbit"})
    cmds = start_commands(lk, "A", "B")
    shaping = [c for c in cmds if c[:3] == ["tc", "qdisc", "replace"]]
    by_dev = {value(c, "dev"): value(c, "rate") for c in shaping}
    assert by_dev == {"B": "10000000bit", "A": "1000000bit"}


def test_cell_loss_is_refused_unless_converted_at_the_mtu():
    lk = atm(cell_loss_ratio=1e-4)
    with pytest.raises(BackendError, match="linkemu"):
        egress_commands(lk, lk.forward, "x")
    pct = packet_loss_pct(lk, lk.forward, loss_at_mtu=True)
    assert pct == pytest.approx(100 * (1 - (1 - 1e-4) ** 192))


def test_bit_errors_count_the_same_bits_as_linkemu():
    assert error_bits(atm(), 9188) == 73728  # 192 cells of 384 payload bits: ishikura's 72 kbit
    assert error_bits(link(), 1500) == 8 * 1518
    assert error_bits(link(), 20) == 8 * (46 + 18)


@pytest.mark.parametrize("style,extra,match", [
    ("netem-rate", {"queue": {"bytes": "64K"}}, "packets only"),
    ("tbf", {"delay": "10ms", "jitter": "1ms"}, "reorders"),
    ("netem-rate", {"delay": "10ms", "jitter": "1ms", "reorder": True}, "never reorders"),
])
def test_refuses_what_a_style_cannot_do(style, extra, match):
    lk = link(**extra)
    with pytest.raises(BackendError, match=match):
        egress_commands(lk, lk.forward, "x", style=style)


def test_refusal_happens_before_touching_the_node():
    class Untouchable:
        name = "mid"

        def popen(self, *args, **kwargs):
            raise AssertionError("the backend ran a command although it had to refuse")

    with pytest.raises(BackendError):
        NetemBackend().start(Untouchable(), "a", "b", atm(bit_error_ratio=1e-7), None)


def test_unknown_style_is_refused():
    with pytest.raises(BackendError, match="netem-rate"):
        NetemBackend(style="cbq")
