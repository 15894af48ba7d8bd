"""One emulated ttcp pair on the Tahoe stack through Mininet and linkemu, as the workflow runs
it: the receiver says when it listens, both stacks boot at the pair's tick phases, and the
transfer arrives whole without waiting out a lost SYN."""
from netrepro import stacks
from netrepro.backends import emulation_backend
from netrepro.spec import load_spec
from netrepro.topology import LinkNetwork
from netrepro.transfer import pair_seed
from netrepro.transfer_net import H1, H2, run_pair
from tests.conftest import needs_root_and_mininet
from tests.test_spec import COMER

pytestmark = needs_root_and_mininet()


def test_a_tahoe_pair_moves_its_bytes_from_first_write_on(tmp_path):
    spec = load_spec(COMER, {"profile": "smoke", "backend": "linkemu"})
    experiment = spec.experiments["table1"]
    send, receive = 49152, 49152
    with LinkNetwork(experiment.link, emulation_backend("linkemu", "tahoe"), tmp_path / "logs") as net:
        tool_args = stacks.setup_hosts([(net.h1, *H1), (net.h2, *H2)], "tahoe", experiment.host_model,
                                       experiment.link.mtu, frame_times=net.frame_times)
        records = run_pair(net, experiment, tool_args, send, receive, None,
                           pair_seed(experiment, 1, send, receive))
    transfers = [r for r in records if r.get("record") == "transfer"]
    assert {r["role"] for r in transfers} == {"transmitter", "receiver"}
    (sent,) = [r for r in transfers if r["role"] == "transmitter"]
    assert sent["stack"] == "tahoe"
    assert sent["bytes"] == sent["receiver_bytes"] == experiment.transfer_bytes
    # The sender's clock starts at its first write; had the connect or the first segment waited
    # for a retransmission, the sender would report a fraction of the receiver's rate.
    assert sent["sender_bps"] > 0.5 * sent["receiver_bps"]
