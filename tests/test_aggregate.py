import csv
import json

from netrepro.aggregate import COLUMNS, main
from tests.test_spec import SPEC


def write_trial(folder, rows, backend="htb"):
    folder.mkdir(parents=True)
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "provenance.json").write_text(json.dumps({"run_id": folder.name, "backend": backend}))


def row(trial, mode, size, rtt, datagrams, returned):
    return {"run_id": f"t{trial}", "trial": trial, "mode": mode, "message_bytes": size, "message_name": "",
            "echo": 1, "rtt_ms": rtt, "datagrams": datagrams, "datagrams_returned": returned,
            "complete": datagrams == returned, "cool_gap_us": None, "t_start_ns": 1}


def test_trials_become_one_tidy_table(tmp_path):
    write_trial(tmp_path / "trial-1", [row(1, "tcp", 4096, 3.5, 0, 0), row(1, "udp", 51200, None, 7, 3)])
    write_trial(tmp_path / "trial-2", [row(2, "tcp", 4096, 3.25, 0, 0)])
    out = tmp_path / "exp"
    assert main(["--spec", str(SPEC), "--experiment", "lan-large", "--out", str(out),
                 str(tmp_path / "trial-2"), str(tmp_path / "trial-1")]) == 0
    with (out / "results.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert tuple(table[0].keys()) == COLUMNS
    assert [r["trial"] for r in table] == ["1", "1", "2"]
    lost = table[1]
    assert lost["rtt_ms"] == "NA" and lost["complete"] == "FALSE"
    assert lost["paper"] == "liu95cool" and lost["mirrors"] == "Fig 2a; Fig 2b" and lost["backend"] == "htb"
    assert len((out / "provenance.jsonl").read_text().splitlines()) == 2


def write_part(folder, rows, backend, settings_hash="h1"):
    folder.mkdir(parents=True)
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "provenance.json").write_text(json.dumps({"backend": backend, "settings_hash": settings_hash}))


def transfer(recv, mbit):
    return {"run_id": "r", "trial": 1, "repeat": 1, "send_buffer": 16384, "recv_buffer": recv, "nodelay": False,
            "bytes": 1024, "throughput_mbit": mbit, "receiver_throughput_mbit": mbit}


def test_transfers_of_every_backend_with_the_same_settings_sit_side_by_side(tmp_path):
    from netrepro.aggregate import TRANSFER_COLUMNS

    runs = tmp_path / "results/comer94/table1/runs/quick"
    write_part(runs / "linkemu/trial-1/send-16384", [transfer(24576, 0.3)], "linkemu")
    write_part(runs / "sim/trial-1/send-16384", [transfer(24576, 0.31)], "sim")
    write_part(runs / "htb/trial-1/send-16384", [transfer(24576, 9.0)], "htb", settings_hash="other settings")
    out = tmp_path / "results/comer94/table1"
    spec = SPEC.parent / "comer94.yaml"
    assert main(["--spec", str(spec), "--experiment", "table1", "--out", str(out),
                 str(runs / "sim/trial-1/send-16384")]) == 0
    with (out / "results.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert tuple(table[0].keys()) == TRANSFER_COLUMNS
    assert [(r["backend"], r["throughput_mbit"]) for r in table] == [("sim", "0.31"), ("linkemu", "0.3")]
    assert table[0]["host"] == "sparcstation-ipc" and table[0]["stack"] == "tahoe"
