import pytest

from netrepro.linkspec import link_from_dict


def atm(framing="aal5-llc-snap"):
    return link_from_dict("atm", {"framing": framing, "mtu": "9188B", "rate": "100Mbit", "queue": {"packets": 50}})


def ethernet(**extra):
    return link_from_dict("eth", {"framing": "ethernet", "mtu": "1500B", "rate": "10Mbit",
                                  "queue": {"packets": 50}, **extra})


def test_a_full_atm_packet_is_192_cells():
    assert atm().cells(9188) == 192
    assert atm().wire_octets(9188) == 192 * 53


def test_aal5_pads_to_whole_cells():
    # 40 octets + 8 LLC/SNAP + 8 trailer = 56 -> two cells; without LLC/SNAP, 48 -> one.
    assert atm().cells(40) == 2
    assert atm("aal5-vc-mux").cells(40) == 1


def test_ethernet_framing_and_minimum_frame():
    assert ethernet().wire_octets(1500) == 1538
    assert ethernet().wire_octets(28) == 84


def test_goodput_and_rtt_follow_from_the_parameters():
    link = ethernet(delay="10ms")
    assert link.tcp_goodput_bps(1448, 52) == pytest.approx(10e6 * 1448 / 1538)
    assert link.min_rtt_s(84) == pytest.approx(0.010 * 2 + 2 * (84 + 38) * 8 / 10e6)


def test_reverse_overrides_only_what_it_names():
    link = ethernet(delay="5ms", reverse={"rate": "1Mbit"})
    assert link.reverse.rate_bps == 1e6
    assert link.reverse.delay_s == pytest.approx(0.005)
    assert link.forward.rate_bps == 10e6


def test_cell_loss_kills_a_packet_if_any_of_its_cells_dies():
    link = link_from_dict("atm", {"framing": "aal5-llc-snap", "mtu": "9188B", "rate": "100Mbit",
                                  "cell_loss_ratio": 1e-4, "queue": {"packets": 50}})
    assert link.is_lossy()
    assert link.corruption_loss(9188) == pytest.approx(1 - (1 - 1e-4) ** 192)
    assert link.udp_goodput_bps(9160) == pytest.approx(100e6 * 9160 / (192 * 53) * (1 - 1e-4) ** 192)


def test_random_loss_is_not_corruption():
    link = ethernet(loss_pct=2.7)
    assert link.is_lossy()
    assert link.corruption_loss(1500) == 0
    assert not ethernet().is_lossy()
