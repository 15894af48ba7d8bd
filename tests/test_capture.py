"""An emulated ttcp run's capture (netrepro.tools.ttcp) keeps every packet up to the moment it
stops, also those the kernel had not yet handed to tcpdump: a run stops its capture as soon as
the transfer ends."""
import subprocess

from netrepro.backends import get_backend
from netrepro.spec import load_spec
from netrepro.topology import H2_IP, LinkNetwork
from netrepro.tools.ttcp import start_capture, stop_capture
from tests.conftest import needs_root_and_mininet
from tests.test_spec import COMER

pytestmark = needs_root_and_mininet()
ATTEMPTS = 5


def test_the_last_packets_before_the_stop_are_in_the_file(tmp_path):
    link = load_spec(COMER, {"profile": "smoke", "backend": "linkemu"}).experiments["table1"].link
    pcap = tmp_path / "capture.pcap"
    with LinkNetwork(link, get_backend("linkemu"), tmp_path / "logs") as net:
        capture = start_capture(net.h1, "h1-eth0", pcap)
        # Each connect to a closed port is a SYN and h2's RST.
        net.h1.cmd(f"for i in $(seq {ATTEMPTS}); do (exec 3<>/dev/tcp/{H2_IP}/9) 2>/dev/null; done")
        stop_capture(capture)
    packets = subprocess.run(["tcpdump", "-n", "-r", str(pcap)], capture_output=True, text=True,
                             check=True).stdout.splitlines()
    assert len(packets) == 2 * ATTEMPTS
