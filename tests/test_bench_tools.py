"""A reduced benchmarks/tools/bench_tools.py through Mininet: ttcp agrees with iperf3 on a
10 Mb/s Ethernet, and mftp moves a file intact over 1 and 4 window-limited connections."""
import importlib.util
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO, needs_root_and_mininet

pytestmark = needs_root_and_mininet()


def load_bench() -> ModuleType:
    path = REPO / "benchmarks" / "tools" / "bench_tools.py"
    spec = importlib.util.spec_from_file_location("bench_tools", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench()


@pytest.fixture(scope="module")
def plan(bench: ModuleType):
    return replace(bench.QUICK, repeats=1, ttcp_seconds=2, mftp_file=2 << 20, mftp_conns=(1, 4), mftp_delay_s=0.01)


def test_ttcp_agrees_with_iperf3(bench: ModuleType, plan, tmp_path: Path) -> None:
    case = bench.bulk_case(bench.load_link("ethernet-10"), plan, REPO / "tools" / "bin", tmp_path)
    measured = case["measured"]
    assert abs(measured["difference_pct"]) <= 100 * bench.AGREEMENT, measured
    assert case["target_met"]


def test_mftp_moves_the_file_intact_and_gains_with_connections(bench: ModuleType, plan, tmp_path: Path) -> None:
    cases = bench.mftp_case(bench.load_link("atm-wan-emulator"), plan, REPO / "tools" / "bin", tmp_path)
    assert [c["configured"]["connections"] for c in cases] == [1, 4]
    for case in cases:
        measured = case["measured"]
        assert measured["sha256_equal"], case["case"]
        assert measured["crc32"] == measured["server_crc32"], case["case"]
        assert measured["bytes"] == plan.mftp_file
    assert cases[1]["measured"]["throughput_mbit"] > 2 * cases[0]["measured"]["throughput_mbit"]
