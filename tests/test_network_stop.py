"""An emulated network stops, and leaves nothing behind, even when a node's shell died under it
(netrepro.topology.stop_network)."""
import subprocess
import sys

from tests.conftest import needs_root_and_mininet
from tests.test_spec import COMER

pytestmark = needs_root_and_mininet()


def test_a_network_whose_host_shell_died_still_stops_and_leaves_nothing(tmp_path):
    """Mininet's net.stop() asks each node's shell to delete its links and waits for the answer:
    a shell killed under the run (mn -c, the OOM killer) held the run and the emulation lock
    forever. Run in a child, so that a hang fails the test instead of holding pytest."""
    script = (
        "import os, signal\n"
        "from pathlib import Path\n"
        "from netrepro.backends import BackendError, get_backend\n"
        "from netrepro.spec import load_spec\n"
        "from netrepro.topology import LinkNetwork\n"
        f"link = load_spec(Path({str(COMER)!r}), {{'profile': 'smoke', 'backend': 'linkemu'}}).experiments['table1'].link\n"
        "try:\n"
        f"    with LinkNetwork(link, get_backend('linkemu'), Path({str(tmp_path / 'logs')!r})) as net:\n"
        "        os.killpg(net.h1.shell.pid, signal.SIGKILL)\n"
        "        net.h1.shell.wait()\n"
        # h1's namespace went with its shell, and the veth pair with it, so linkemu fails: the
        # run's error, after the network has stopped.
        "except BackendError as error:\n"
        "    print(error)\n"
        "print('stopped')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.splitlines()[-1:] == ["stopped"], done.stderr[-2000:]
    veths = subprocess.run(["ip", "-br", "link", "show", "type", "veth"], capture_output=True, text=True,
                           check=True).stdout
    assert not [name for name in ("h1-eth0", "h2-eth0", "mid-eth0", "mid-eth1") if name in veths]
    assert not subprocess.run(["pgrep", "-f", "mnexec"], capture_output=True).stdout
