import pytest

from netrepro.backends import BackendError, get_backend
from netrepro.backends.htb import HtbBackend, egress_commands, refuse_unsupported, stab_args
from netrepro.linkspec import link_from_dict


def link(**extra):
    return link_from_dict("eth", {"framing": "ethernet", "mtu": "1500B", "rate": "10Mbit", "queue": {"packets": 50}, **extra})


def test_egress_is_htb_at_line_rate_over_a_fifo_of_the_queue_length():
    commands = egress_commands(link(), link().forward, "mid-eth1")
    root, klass, leaf = commands
    assert root[:8] == ["tc", "qdisc", "replace", "dev", "mid-eth1", "root", "handle", "1:"]
    assert root[root.index("overhead") + 1] == "24"
    assert klass[klass.index("rate") + 1] == "10000000bit"
    assert klass[klass.index("ceil") + 1] == "10000000bit"
    assert leaf[-3:] == ["pfifo", "limit", "50"]


def test_a_byte_limited_queue_uses_bfifo():
    byte_link = link(queue={"bytes": "64K"})
    assert egress_commands(byte_link, byte_link.forward, "x")[2][-3:] == ["bfifo", "limit", "65536"]


def test_atm_framing_charges_cells():
    atm = link_from_dict("atm", {"framing": "aal5-llc-snap", "mtu": "9188B", "rate": "100Mbit", "queue": {"packets": 50}})
    args = stab_args(atm)
    assert args[args.index("linklayer") + 1] == "atm"
    # LLC/SNAP 8 + AAL5 trailer 8, less the Ethernet header the bridge counts in.
    assert args[args.index("overhead") + 1] == "2"


@pytest.mark.parametrize("extra", [{"delay": "10ms"}, {"loss_pct": 1}, {"jitter": "1ms"}, {"bit_error_ratio": 1e-7}])
def test_htb_refuses_what_it_cannot_emulate(extra):
    with pytest.raises(BackendError, match="linkemu or netem"):
        refuse_unsupported(link(**extra))


def test_refusal_happens_before_touching_the_node():
    class Untouchable:
        name = "mid"

        def popen(self, *args, **kwargs):
            raise AssertionError("the backend ran a command although it had to refuse")

    with pytest.raises(BackendError):
        HtbBackend().start(Untouchable(), "a", "b", link(delay="1ms"), None)


def test_unknown_backend_names_the_choices():
    with pytest.raises(BackendError, match="linkemu"):
        get_backend("dummynet")
