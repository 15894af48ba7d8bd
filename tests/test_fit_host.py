"""benchmarks/fit/fit_host.py measures the training set as the specs run it: a table cell and a
claim, each on a host file, in virtual time (it once stopped importing when the code moved)."""
from pathlib import Path

import pytest

from netrepro.sim import BINARY
from tests.conftest import REPO, load_script

pytestmark = pytest.mark.skipif(not BINARY.is_file(), reason="needs tools/bin/netsim (make -C tools)")

fit_host = load_script("benchmarks/fit/fit_host.py", "fit_host")
IPC = REPO / "configs" / "hosts" / "sparcstation-ipc.yaml"
IPX_SOLARIS = REPO / "configs" / "hosts" / "sparcstation-ipx-solaris23.yaml"


def test_a_training_cell_is_measured_on_the_host_file_given() -> None:
    cell = ("comer94-table1", 16384, 16384, 0.0)
    rate = fit_host.measure(cell, IPC, 1)
    # A 100 Mb/s TAXI link: the IPC moves something, and less than the line.
    assert 0 < rate < 100e6
    assert fit_host.measure(cell, REPO / "configs" / "hosts" / "modern.yaml", 1) != rate


def test_a_training_claim_is_read_from_its_experiment(tmp_path: Path) -> None:
    reading, error = fit_host.claim_error("liu95cool:A05", IPX_SOLARIS, tmp_path)
    assert 0 <= reading <= 100
    assert error == max(0.0, 50.0 - reading) / 50.0
