import json
from dataclasses import replace

import pytest

from netrepro import measure
from netrepro.spec import load_spec
from netrepro.tools import pingx
from netrepro.trial import emulation_binaries, run_order, write_run
from netrepro.paths import TOOLS_BIN
from tests.test_spec import SPEC


@pytest.fixture
def experiment():
    return load_spec(SPEC).experiments["lan-nasa"]


def flag(argv, name):
    return argv[argv.index(name) + 1]


def test_pingx_gets_every_size_exactly(experiment):
    argv = pingx.pingx_argv(experiment, "udp", 1)
    sizes = flag(argv, "--sizes").split(",")
    assert sizes[0] == "6988B" and sizes[-1] == "486430B" and len(sizes) == 19
    assert "--cool-gap" not in argv


def test_cooled_udp_gets_its_gap_and_buffers_pass_through(experiment):
    buffered = replace(experiment, settings=replace(experiment.settings, send_buffer=16384, receive_buffer=24576))
    argv = pingx.pingx_argv(buffered, "udp-cooled", 2)
    assert flag(argv, "--cool-gap") == f"{round(experiment.settings.cooling_gap_s * 1e9)}ns"
    assert flag(argv, "--sndbuf") == "16384B" and flag(argv, "--rcvbuf") == "24576B"


def test_mode_order_is_shuffled_per_trial_and_reproducible(experiment):
    orders = {tuple(pingx.mode_order(experiment, trial)) for trial in range(1, 20)}
    assert len(orders) > 1
    assert pingx.mode_order(experiment, 3) == pingx.mode_order(experiment, 3)
    assert sorted(pingx.mode_order(experiment, 3)) == sorted(experiment.settings.modes)


def test_message_rows_carry_names_and_units(experiment):
    records = [{"size": 60379, "seq": 0, "rtt_ns": 2_500_000, "datagrams": 8, "datagrams_returned": 8,
                "complete": True, "cool_gap_ns": 7_000_000, "t_start_ns": 5}]
    (row,) = pingx.message_rows(experiment, "udp-cooled", 1, "r", records)
    assert row["message_name"] == "mars.gif" and row["echo"] == 1
    assert row["rtt_ms"] == pytest.approx(2.5) and row["cool_gap_us"] == pytest.approx(7000)


def test_an_unknown_experiment_is_refused_before_running(capsys, tmp_path):
    assert measure.main(["--spec", str(SPEC), "--experiment", "wan-huge", "--trial", "1", "--out", str(tmp_path)]) == 2
    assert "lan-nasa" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_emulated_provenance_names_linkemu_only_where_it_ran():
    names = [p.name for p in emulation_binaries("linkemu", ["pingx", "echod"])]
    assert names == ["pingx", "echod", "linkemu"]
    assert [p.name for p in emulation_binaries("netem", ["ttcp"])] == ["ttcp"]
    assert all(p.parent == TOOLS_BIN for p in emulation_binaries("linkemu", ["ttcp"]))


def test_measure_argv_gives_only_the_flags_it_is_given_and_names_the_unknown_experiment(capsys, tmp_path):
    argv = measure.measure_argv("py", SPEC, "nope", "paper", trial=2, out=tmp_path / "t", send_buffer=9216)
    assert argv[:3] == ["py", "-m", "netrepro.measure"]
    assert argv[3:] == ["--spec", str(SPEC), "--experiment", "nope", "--trial", "2", "--profile", "paper",
                        "--out", str(tmp_path / "t"), "--send-buffer", "9216"]
    assert measure.main(argv[3:]) == 2  # parsed as measure's own arguments: only the experiment is wrong
    assert "has no experiment 'nope'" in capsys.readouterr().err
    prepare = measure.measure_argv("py", SPEC, "x", "quick", backend="sim", prepare=tmp_path / "p.json")
    assert prepare[3:] == ["--spec", str(SPEC), "--experiment", "x", "--profile", "quick",
                           "--prepare", str(tmp_path / "p.json"), "--backend", "sim"]


def test_a_run_records_its_order_and_cannot_be_written_without_it(tmp_path) -> None:
    rows = [{"curve": "udp 1K x1", "message_bytes": 1024, "repeat": 2},
            {"curve": "tcp 16K", "message_bytes": 2048, "repeat": 1}]
    order = run_order(rows, ("curve", "message_bytes", "repeat"))
    assert order == {"run_order_fields": ["curve", "message_bytes", "repeat"],
                     "run_order": ["udp 1K x1:1024:2", "tcp 16K:2048:1"]}
    with pytest.raises(ValueError, match="run order"):
        write_run(tmp_path, rows, {"run_id": "p/e/trial-1"})
    assert not (tmp_path / "provenance.json").exists()
    write_run(tmp_path, rows, {"run_id": "p/e/trial-1", **order})
    assert json.loads((tmp_path / "provenance.json").read_text())["run_order"] == order["run_order"]
