"""wait_announced: a server's start-up line on stderr, or a clear error."""
from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from netrepro.announce import wait_announced
from netrepro.errors import RunError
from netrepro.provenance import REPO

TOOLS_BIN = REPO / "tools" / "bin"


def server(script: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_returns_on_the_line_and_leaves_the_rest_unread() -> None:
    process = server("import sys, time\n"
                     "sys.stderr.write('ttcp: receiving tcp on 0.0.0.0 port 5001\\nlater\\n')\n"
                     "sys.stderr.flush(); time.sleep(0.2)")
    wait_announced(process, "ttcp: receiving", "ttcp -r")
    _, errors = process.communicate(timeout=10)
    assert errors == "later\n"


def test_a_server_that_exits_first_is_an_error_with_its_words() -> None:
    process = server("import sys; sys.stderr.write('ttcp: binding failed'); sys.exit(1)")
    with pytest.raises(RunError, match=r"ttcp -r exited at start \(exit 1\): ttcp: binding failed"):
        wait_announced(process, "ttcp: receiving", "ttcp -r")


def test_silence_times_out() -> None:
    process = server("import time; time.sleep(5)")
    try:
        with pytest.raises(RunError, match="did not start within 0.3 s: no output"):
            wait_announced(process, "mftpd: serving", "mftpd", timeout_s=0.3)
    finally:
        process.kill()
        process.communicate()


def test_another_first_line_is_an_error() -> None:
    process = server("import sys; sys.stderr.write('echod: something else\\n')")
    with pytest.raises(RunError, match="echod did not start within 10 s: echod: something else"):
        wait_announced(process, "echod: serving", "echod")
    process.communicate()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("argv, prefix", [
    (["ttcp", "-r", "--bind", "127.0.0.1", "--timeout", "5s", "-p"], "ttcp: receiving tcp on 127.0.0.1 port"),
    (["ttcp", "-r", "-u", "--bind", "127.0.0.1", "--timeout", "5s", "-p"], "ttcp: receiving udp on 127.0.0.1 port"),
    (["mftpd", "--bind", "127.0.0.1", "--idle-exit", "5s", "-p"], "mftpd: serving on 127.0.0.1 port"),
])
def test_the_servers_announce_once_they_listen(argv: list[str], prefix: str) -> None:
    binary = TOOLS_BIN / argv[0]
    if not binary.exists():
        pytest.fail(f"{binary} is missing; run make build first")
    port = free_port()
    process = subprocess.Popen([str(binary), *argv[1:], str(port)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        wait_announced(process, f"{prefix} {port}", argv[0])
        if "-u" not in argv:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
    finally:
        process.kill()
        process.communicate()
