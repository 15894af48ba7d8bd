"""ttcp experiments: buffer-pair order and seeds, rows from ttcp's records, resuming a part,
and a real virtual-time part through netrepro.measure."""
import json
from pathlib import Path

import pytest

from netrepro import measure
from netrepro.errors import RunError
from netrepro.sim import BINARY
from netrepro.spec import load_spec
from netrepro.tools.ttcp import experiment_key, measure_pairs, pair_seed, pause_spread_args, receive_order, transfer_rows, transmitter_args
from netrepro.tools.ttcp import pair_command

REPO = Path(__file__).resolve().parent.parent
COMER = REPO / "configs" / "comer94.yaml"
needs_netsim = pytest.mark.skipif(not BINARY.is_file(), reason="needs tools/bin/netsim (make -C tools)")


def table1(profile="smoke", backend="sim"):
    return load_spec(COMER, {"profile": profile, "backend": backend}).experiments["table1"]


def transmitter(index, bps, received=None, nbytes=1000):
    return {"record": "transfer", "role": "transmitter", "index": index, "bytes": nbytes,
            "receiver_bytes": nbytes if received is None else received, "sender_bps": bps,
            "receiver_bps": bps * 0.99, "sndbuf": 16384, "receiver_rcvbuf": 24576}


def test_every_receive_buffer_runs_once_in_an_order_fixed_by_the_seed():
    experiment = table1()
    order = receive_order(experiment, 1, 16384)
    assert sorted(order) == sorted(experiment.settings.receive_buffers)
    assert order == receive_order(experiment, 1, 16384)
    assert order != receive_order(experiment, 1, 20480) or order != receive_order(experiment, 2, 16384)


def test_pair_seeds_differ_between_pairs_and_repeat_across_runs():
    experiment = table1()
    seeds = {pair_seed(experiment, 1, s, r) for s in (16384, 20480) for r in (16384, 24576)}
    assert len(seeds) == 4
    assert pair_seed(experiment, 1, 16384, 24576) == pair_seed(table1(), 1, 16384, 24576)


def test_rows_are_one_per_transfer_in_megabits():
    experiment = table1("quick")
    records = [transmitter(1, 2e6), transmitter(0, 1e6), {"role": "receiver", "index": 0}]
    rows = transfer_rows(experiment, 1, "run", 16384, 24576, records)
    assert [(r["repeat"], r["throughput_mbit"]) for r in rows] == [(1, 1.0), (2, 2.0)]
    assert rows[0]["send_buffer"] == 16384 and rows[0]["recv_buffer"] == 24576
    assert rows[0]["nodelay"] is False


def test_a_missing_or_short_transfer_is_an_error_not_a_row():
    experiment = table1("quick")
    with pytest.raises(RunError, match="1 transfer records, expected 2"):
        transfer_rows(experiment, 1, "run", 16384, 24576, [transmitter(0, 1e6)])
    with pytest.raises(RunError, match="the receiver got 10 of 1000"):
        transfer_rows(experiment, 1, "run", 16384, 24576, [transmitter(0, 1e6), transmitter(1, 1e6, 10)])


def test_the_transmitter_carries_the_spec_settings():
    argv = transmitter_args(table1("paper"), 20480, 77)
    assert argv[:3] == ["-t", "--sndbuf", "20480B"]
    assert argv[argv.index("--bytes") + 1] == f"{32 << 20}B"
    assert argv[argv.index("--repeat") + 1] == "50"
    assert argv[argv.index("--pause") + 1] == "5000ms"
    assert argv[argv.index("--pause-spread") + 1] == "1000000000ns"
    assert argv[argv.index("--seed") + 1] == "77"
    assert "--nodelay" not in argv


def test_both_backends_draw_the_same_pauses_for_a_pair():
    experiment = table1("quick")
    seed = pair_seed(experiment, 1, 16384, 24576)
    emulated = transmitter_args(experiment, 16384, seed)
    sim = pair_command(experiment, 16384, 24576, seed)
    sim_tx = sim[sim.index("--") + 1:]
    for flag in ("--pause-spread", "--seed"):
        assert sim_tx[sim_tx.index(flag) + 1] == emulated[emulated.index(flag) + 1]
    assert emulated[emulated.index("--seed") + 1] == str(seed)


def test_no_spread_no_draw_flags():
    assert pause_spread_args(0.0, 5) == []


def test_a_part_killed_half_way_resumes_with_the_pairs_still_missing(tmp_path):
    experiment = table1()
    order = receive_order(experiment, 1, 16384)
    calls, failed = [], []

    def flaky(recv):
        calls.append(recv)
        if recv == order[2] and not failed:
            failed.append(recv)
            raise RunError("the peer never answered")
        return {"rows": [{"recv_buffer": recv}], "finished_at": "now"}

    with pytest.raises(RunError):
        measure_pairs(experiment, 1, 16384, tmp_path, flaky)
    calls.clear()
    pairs, log = measure_pairs(experiment, 1, 16384, tmp_path, flaky)
    assert calls == order[2:]
    assert [entry["resumed"] for entry in log] == [True, True] + [False] * (len(order) - 2)
    assert [p["rows"][0]["recv_buffer"] for p in pairs] == order


def test_pairs_measured_under_another_spec_are_not_reused():
    assert experiment_key(table1("smoke"), 1) != experiment_key(table1("quick"), 1)
    assert experiment_key(table1(), 1) != experiment_key(table1(), 2)


@needs_netsim
def test_a_virtual_time_part_writes_rows_and_provenance_and_is_deterministic(tmp_path):
    outputs = []
    for name in ("a", "b"):
        out = tmp_path / name
        assert measure.main(["--spec", str(COMER), "--experiment", "table1", "--trial", "1", "--profile", "smoke",
                             "--backend", "sim", "--send-buffer", "16384", "--out", str(out)]) == 0
        outputs.append((out / "records.jsonl").read_text())
        provenance = json.loads((out / "provenance.json").read_text())
        assert provenance["backend"] == "sim" and provenance["stack"] == "tahoe"
        assert len(provenance["pairs"]) == 10 and all(p["sim"]["virtual_ns"] > 0 for p in provenance["pairs"])
        assert provenance["tools"]["netsim"].startswith("sha256:")
    rows = [json.loads(line) for line in outputs[0].splitlines()]
    assert len(rows) == 10 and all(r["throughput_mbit"] > 0 for r in rows)
    assert provenance["run_order_fields"] == ["recv_buffer", "proto", "cool_iterations", "repeat"]
    assert provenance["run_order"] == [f"{r['recv_buffer']}:tcp:NA:{r['repeat']}" for r in rows]
    assert [entry["recv_buffer"] for entry in provenance["run_log"]] == [r["recv_buffer"] for r in rows]
    assert {r["recv_buffer"] for r in rows} == set(table1().settings.receive_buffers)
    assert outputs[0] == outputs[1]


def test_a_send_buffer_outside_the_matrix_is_refused(tmp_path, capsys):
    assert measure.main(["--spec", str(COMER), "--experiment", "table1", "--trial", "1", "--profile", "smoke",
                         "--backend", "sim", "--send-buffer", "1000", "--out", str(tmp_path)]) == 2
    assert "send buffer 1000 is not one of" in capsys.readouterr().err


def test_both_ends_of_a_traced_tahoe_transfer_log_their_segments_beside_the_capture(tmp_path):
    from netrepro.tools.ttcp import read_segment_log, segment_log, segment_log_args
    tahoe = table1(backend="linkemu")
    pcap = tmp_path / "capture.pcap"
    assert segment_log_args(tahoe, pcap, "a") == ["--segment-log", str(tmp_path / "segment-log-a.jsonl")]
    assert segment_log_args(tahoe, pcap, "b") == ["--segment-log", str(tmp_path / "segment-log-b.jsonl")]
    assert segment_log_args(tahoe, None, "a") == []
    linux = load_spec(Path("configs/liu95cool.yaml"), {"profile": "smoke"}).experiments["lan-2k"]
    assert segment_log_args(linux, pcap, "a") == []
    log = segment_log(pcap, "b")
    log.write_text('{"record":"segment","rule":"R2","len":0}\n\n{"record":"segment","rule":"delack","len":0}\n')
    segments = read_segment_log(log, "b")
    assert [s["rule"] for s in segments] == ["R2", "delack"]
    assert {s["host"] for s in segments} == {"b"}
    assert not log.exists()
    with pytest.raises(RunError, match="wrote no segment log"):
        read_segment_log(log, "b")
