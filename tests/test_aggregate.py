import csv
import json

from netrepro.aggregate import main
from netrepro.columns import tool_columns
from netrepro.experiment import settings_hash
from netrepro.spec import load_spec
from tests.test_spec import COMER, SPEC

LAN_LARGE = settings_hash(load_spec(SPEC).experiments["lan-large"])
TABLE1 = settings_hash(load_spec(COMER).experiments["table1"])


def write_trial(folder, rows, backend="htb", settings=LAN_LARGE):
    folder.mkdir(parents=True)
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "provenance.json").write_text(json.dumps({"run_id": folder.name, "backend": backend,
                                                       "settings_hash": settings}))


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
    assert tuple(table[0].keys()) == tool_columns("pingx")
    assert [r["trial"] for r in table] == ["1", "1", "2"]
    lost = table[1]
    assert lost["rtt_ms"] == "NA" and lost["complete"] == "FALSE"
    assert lost["paper"] == "liu95cool" and lost["mirrors"] == "Fig 2a; Fig 2b" and lost["backend"] == "htb"
    assert len((out / "provenance.jsonl").read_text().splitlines()) == 2


def write_part(folder, rows, backend, settings=TABLE1):
    folder.mkdir(parents=True)
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "provenance.json").write_text(json.dumps({"backend": backend, "settings_hash": settings}))


def transfer(recv, mbit):
    return {"run_id": "r", "trial": 1, "repeat": 1, "send_buffer": 16384, "recv_buffer": recv, "nodelay": False,
            "bytes": 1024, "throughput_mbit": mbit, "receiver_throughput_mbit": mbit}


def test_transfers_of_every_backend_with_the_same_settings_sit_side_by_side(tmp_path):
    from netrepro.runsettings import other_backend_runs

    runs = tmp_path / "results/comer94/table1/runs/quick"
    write_part(runs / "linkemu/trial-1/send-16384", [transfer(24576, 0.3)], "linkemu")
    write_part(runs / "sim/trial-1/send-16384", [transfer(24576, 0.31)], "sim")
    write_part(runs / "htb/trial-1/send-16384", [transfer(24576, 9.0)], "htb", settings="other settings")
    write_part(runs / "netem/trial-1/send-16384", [transfer(24576, 5.0)], "netem")
    own = [str(runs / "sim/trial-1/send-16384")]
    # netem stands for a backend the invocation runs itself: its runs are its own jobs' outputs.
    others = other_backend_runs(load_spec(COMER).experiments["table1"], own, {"sim", "netem"})
    assert others == [str(runs / "linkemu/trial-1/send-16384")]
    out = tmp_path / "results/comer94/table1"
    assert main(["--spec", str(COMER), "--experiment", "table1", "--out", str(out), *own, *others]) == 0
    with (out / "results.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert tuple(table[0].keys()) == tool_columns("ttcp")
    assert [(r["backend"], r["throughput_mbit"]) for r in table] == [("linkemu", "0.3"), ("sim", "0.31")]
    assert table[0]["host"] == "sparcstation-ipc" and table[0]["stack"] == "tahoe"


def test_a_run_measured_under_other_settings_is_refused_by_name(tmp_path, capsys):
    """A trial measured on ethernet-10 must not be aggregated once the spec says wan-1995."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.read_text())
    write_trial(tmp_path / "trial-1", [row(1, "tcp", 4096, 3.5, 0, 0)])
    out = tmp_path / "exp"
    assert main(["--spec", str(spec), "--experiment", "lan-large", "--out", str(out), str(tmp_path / "trial-1")]) == 0
    text = SPEC.read_text()
    link = next(line for line in text.splitlines() if line.strip().startswith("link:"))
    spec.write_text(text.replace(link, link.split(":")[0] + ": wan-1995", 1))
    assert settings_hash(load_spec(spec).experiments["lan-large"]) != LAN_LARGE
    (out / "results.csv").unlink()
    assert main(["--spec", str(spec), "--experiment", "lan-large", "--out", str(out), str(tmp_path / "trial-1")]) == 2
    error = capsys.readouterr().err
    assert f"{tmp_path / 'trial-1' / 'provenance.json'}: measured under settings {LAN_LARGE[:12]}" in error
    assert "experiment lan-large" in error and "Traceback" not in error
    assert not (out / "results.csv").exists()
