"""Hostile inputs the tools and the runner meet outside a spec (issue 32): a disk that is full or
read-only under measure, a device given as a host model, numbers in hex or padded, a timeout that
overflows a deadline. Each ends in a line naming what is wrong, never a traceback or a hang."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "tools" / "bin"
needs_mounts = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                                  reason="needs root and unshare to mount a small or read-only tmpfs")


@needs_mounts
@pytest.mark.parametrize("options, says", [("size=4k", "No space left on device"), ("ro", "Read-only file system")],
                         ids=["full", "read-only"])
def test_measure_on_a_full_or_read_only_disk_names_the_path_without_a_traceback(tmp_path, options, says):
    """A tmpfs of one page, or mounted read-only, in a mount namespace of the test's own."""
    disk = tmp_path / "disk"
    disk.mkdir()
    measure = [sys.executable, "-m", "netrepro.measure", "--spec", str(REPO / "configs" / "liu95db.yaml"),
               "--experiment", "lan-512b", "--trial", "1", "--profile", "smoke", "--backend", "sim",
               "--out", str(disk / "trial-1")]
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                           f'mount -t tmpfs -o {options} tmpfs "$0" && exec "$@"', str(disk), *measure],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert f"{disk}/trial-1" in done.stderr and says in done.stderr, done.stderr


def test_netsim_refuses_a_device_as_host_model_at_once():
    done = subprocess.run([str(BIN / "netsim"), "--app", "pingx", "--rate", "10Mbit", "--host-model-a", "/dev/zero",
                           "--", "--mode", "udp", "--sizes", "1K", "--count", "1", "--", "--proto", "udp"],
                          capture_output=True, text=True, timeout=10)
    assert done.returncode != 0 and "reading the host model failed: /dev/zero: not a regular file" in done.stderr, done.stderr


@pytest.mark.parametrize("tool", ["linkemu", "netsim"])
@pytest.mark.parametrize("loss", ["0x10", " 10", "010", "+10", "1e400", "nan"])
def test_link_numbers_are_plain_decimal(tool, loss):
    """linkemu and netsim read 0x10 as 16% loss, and padded numbers as numbers."""
    done = subprocess.run([str(BIN / tool), "--rate", "10Mbit", "--loss-pct", loss, "stray-operand"],
                          capture_output=True, text=True, timeout=10)
    assert done.returncode == 2 and f"bad value '{loss}' for --loss-pct" in done.stderr, done.stderr


@pytest.mark.parametrize("argv", [
    ["pingx", "--mode", "udp", "--sizes", "1K", "--timeout", "9223372036854775807ns"],
    ["mftpd", "--timeout", "9223372036854775807ns"],
    ["ttcp", "-t", "--timeout", "9223372036854775807ns", "10.0.0.2"],
], ids=lambda argv: argv[0])
def test_a_timeout_past_an_hour_is_refused_not_wrapped_around(argv):
    """A deadline of now + 2^63-1 ns wrapped: pingx counted every echo lost and exited 0,
    mftpd exited at once."""
    done = subprocess.run([str(BIN / argv[0]), *argv[1:]], capture_output=True, text=True, timeout=10)
    assert done.returncode == 2 and "--timeout 9223372036854775807ns: give a time" in done.stderr, done.stderr
