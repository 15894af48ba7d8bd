"""Run digests (netrepro.digest): the canonical form, what a digest covers and leaves out, the
command that compares two results trees or a tree and a report, and two virtual-time runs of
comer94's quick profile into two results trees giving the same digest for every experiment."""
import json
import math
from pathlib import Path

import pytest

from netrepro import aggregate, digest
from netrepro.errors import RunError
from netrepro.spec import load_spec
from tests.conftest import COMER94, snakemake_comer94_sim



def write_run(folder, records, backend="sim", segments=None, capture=None, started="2026-01-01T00:00:00+00:00"):
    folder.mkdir(parents=True)
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if segments is not None:
        (folder / "segments.jsonl").write_text("".join(json.dumps(s) + "\n" for s in segments))
    if capture is not None:
        (folder / "capture.pcap").write_bytes(capture)
    (folder / "provenance.json").write_text(json.dumps({"backend": backend, "started_at": started,
                                                        "finished_at": started, "hostname": str(folder)}))
    return folder


RECORDS = [{"run_id": "p/e/trial-1", "trial": 1, "throughput_mbit": 4.25, "rtt_ms": None, "complete": True},
           {"run_id": "p/e/trial-1", "trial": 1, "throughput_mbit": 0.1, "rtt_ms": 3.0, "complete": False}]


def test_the_canonical_form_sorts_keys_and_spells_every_number_one_way():
    assert digest.canonical({"b": 0.1, "a": [1, 2.5, None, True, "é"]}) == \
        '{"a":[1,2.5,null,true,"\\u00e9"],"b":0.10000000000000001}'
    assert digest.canonical(3.0) == digest.canonical(3) == "3"
    assert digest.canonical([float("nan"), float("-inf"), "nan"]) == '[nan,-inf,"nan"]'


def test_a_run_digest_is_its_records_however_spelled_and_not_its_provenance(tmp_path):
    one = digest.run_digest(write_run(tmp_path / "one", RECORDS))
    # The same records, keys in another order and numbers spelled otherwise, in another folder
    # with another provenance (its clock and host).
    respelled = tmp_path / "two"
    respelled.mkdir()
    (respelled / "records.jsonl").write_text(
        '{"complete": true, "rtt_ms": null, "throughput_mbit": 4.250, "trial": 1, "run_id": "p/e/trial-1"}\n'
        '\n{"trial":1.0,"run_id":"p/e/trial-1","throughput_mbit":1e-1,"rtt_ms":3,"complete":false}\n')
    (respelled / "provenance.json").write_text(json.dumps({"backend": "sim", "started_at": "2030-05-05"}))
    assert digest.run_digest(respelled) == one
    assert one["records"] == 2 and one["capture"] is False and one["digest"].startswith("sha256:")
    changed = [RECORDS[0], {**RECORDS[1], "throughput_mbit": 0.1000000001}]
    assert digest.run_digest(write_run(tmp_path / "changed", changed))["digest"] != one["digest"]
    swapped = digest.run_digest(write_run(tmp_path / "swapped", RECORDS[::-1]))
    assert swapped["digest"] != one["digest"]


def test_segments_and_the_capture_are_digested_too(tmp_path):
    segment = {"host": "a", "seq": 1, "ack": 1, "len": 512, "flags": 16, "rule": "S1"}
    base = digest.run_digest(write_run(tmp_path / "base", RECORDS, segments=[segment], capture=b"\xd4\xc3\xb2\xa1 1"))
    assert base["segments"] == 1 and base["capture"] is True
    other_rule = write_run(tmp_path / "rule", RECORDS, segments=[{**segment, "rule": "S2"}], capture=b"\xd4\xc3\xb2\xa1 1")
    other_packet = write_run(tmp_path / "pcap", RECORDS, segments=[segment], capture=b"\xd4\xc3\xb2\xa1 2")
    # A record that moves from records.jsonl to segments.jsonl is a change too.
    moved = write_run(tmp_path / "moved", RECORDS[:1], segments=[RECORDS[1], segment], capture=b"\xd4\xc3\xb2\xa1 1")
    digests = {digest.run_digest(run)["digest"] for run in (other_rule, other_packet, moved)}
    assert len(digests) == 3 and base["digest"] not in digests


def test_an_experiment_digests_its_virtual_time_runs_in_the_order_of_their_names(tmp_path):
    runs = tmp_path / "exp" / "runs" / "quick"
    second = write_run(runs / "sim/trial-1/send-8192", RECORDS[1:])
    first = write_run(runs / "sim/trial-1/send-16384", RECORDS[:1])
    emulated = write_run(runs / "linkemu/trial-1/send-16384", RECORDS, backend="linkemu")
    record = digest.experiment_digest(tmp_path / "exp", [second, emulated, first])
    assert [run["run"] for run in record["runs"]] == ["runs/quick/sim/trial-1/send-16384",
                                                      "runs/quick/sim/trial-1/send-8192"]
    assert record["not_digested"] == [{"run": "runs/quick/linkemu/trial-1/send-16384", "backend": "linkemu"}]
    assert record["digest"] == digest.combine([run["digest"] for run in record["runs"]])
    assert record["form"] == digest.FORM
    assert digest.experiment_digest(tmp_path / "exp", [first, second]) == {**record, "not_digested": []}
    only_emulated = digest.experiment_digest(tmp_path / "exp", [emulated])
    assert only_emulated["digest"] is None and only_emulated["runs"] == []


def test_a_damaged_record_or_an_unfinished_run_is_an_error_that_names_the_file(tmp_path):
    run = write_run(tmp_path / "exp/runs/quick/sim/trial-1", RECORDS)
    (run / "records.jsonl").write_text(json.dumps(RECORDS[0]) + "\n{\"trial\": \n")
    with pytest.raises(RunError, match=r"trial-1/records.jsonl:2: not a JSON record"):
        digest.run_digest(run)
    (run / "records.jsonl").write_bytes(b'{"name": "\xff"}\n')
    with pytest.raises(RunError, match=r"trial-1/records.jsonl:1: not a JSON record"):
        digest.run_digest(run)
    (run / "records.jsonl").unlink()
    with pytest.raises(RunError, match=r"records.jsonl is missing"):
        digest.run_digest(run)


def results_tree(root, value):
    """results/p with two experiments: one in virtual time, one emulated."""
    paper = root / "results" / "p"
    sim = write_run(paper / "e1/runs/quick/sim/trial-1", [{**RECORDS[0], "throughput_mbit": value}])
    digest.write_digest(paper / "e1", [sim])
    emulated = write_run(paper / "e2/runs/quick/linkemu/trial-1", RECORDS, backend="linkemu")
    digest.write_digest(paper / "e2", [emulated])
    return paper


def test_the_command_compares_two_trees_and_finds_digests_in_a_report(tmp_path, capsys):
    mine = results_tree(tmp_path / "a", 4.25)
    assert digest.main([str(mine), "--against", str(results_tree(tmp_path / "b", 4.25))]) == 0
    out = capsys.readouterr().out.splitlines()
    e1 = json.loads((mine / "e1" / "digest.json").read_text())["digest"]
    assert out == [f"p/e1 {e1} same", "p/e2 none (no run in virtual time) nothing to compare"]
    assert digest.main([str(mine), "--against", str(results_tree(tmp_path / "c", 4.5))]) == 1
    assert "p/e1 " + e1 + " DIFFERS from sha256:" in capsys.readouterr().out
    report = tmp_path / "p.html"
    report.write_text(f"<td><code>{e1}</code></td>")
    assert digest.main([str(mine), "--report", str(report)]) == 0
    assert f"p/e1 {e1} in the report" in capsys.readouterr().out
    report.write_text("<td><code>sha256:0000</code></td>")
    assert digest.main([str(mine / "e1"), "--report", str(report)]) == 1
    assert capsys.readouterr().out == f"p/e1 {e1} NOT IN THE REPORT\n"


def test_a_run_changed_after_aggregating_is_caught(tmp_path, capsys):
    mine = results_tree(tmp_path / "a", 4.25)
    records = mine / "e1/runs/quick/sim/trial-1/records.jsonl"
    records.write_text(records.read_text().replace("4.25", "4.5"))
    assert digest.main([str(mine)]) == 2
    assert "a run changed after it was aggregated" in capsys.readouterr().err
    assert digest.main([str(tmp_path)]) == 2
    assert "no digest.json in it" in capsys.readouterr().err


def reaggregate(paper: Path, experiment: str) -> dict:
    folder = paper / experiment
    runs = [str(folder / run["run"]) for run in json.loads((folder / "digest.json").read_text())["runs"]]
    assert aggregate.main(["--spec", str(COMER94), "--experiment", experiment, "--profile", "quick",
                           "--out", str(folder), *runs]) == 0
    return json.loads((folder / "digest.json").read_text())


@pytest.mark.xdist_group("comer94_quick_tree")  # one worker runs the tree (make test: -n)
def test_two_runs_of_comer94_quick_in_virtual_time_give_the_same_digests(comer94_quick_tree, tmp_path, capsys):
    """A second tree run as a user would, against the one the pipeline test reads."""
    done = snakemake_comer94_sim(tmp_path, "all_results")
    assert done.returncode == 0, done.stderr[-3000:]
    trees = {"a": comer94_quick_tree / "results" / "comer94", "b": tmp_path / "results" / "comer94"}
    experiments = list(load_spec(COMER94).experiments)
    for experiment in experiments:
        a, b = (json.loads((trees[n] / experiment / "digest.json").read_text()) for n in ("a", "b"))
        assert a["digest"] is not None and a["runs"], experiment
        assert a == b, experiment
    assert digest.main([str(trees["a"]), "--against", str(trees["b"])]) == 0
    assert capsys.readouterr().out.count(" same\n") == len(experiments)

    # Aggregating the complete runs again (as a change to the aggregating code does) leaves
    # the digest byte for byte. Tree b is this test's own: tree a stays as its run left it.
    stored = (trees["b"] / "circular-wait" / "digest.json").read_bytes()
    reaggregate(trees["b"], "circular-wait")
    assert (trees["b"] / "circular-wait" / "digest.json").read_bytes() == stored

    # One transfer's throughput changed in its last digit changes table1's digest, and only its.
    run = trees["b"] / "table1" / json.loads((trees["b"] / "table1" / "digest.json").read_text())["runs"][0]["run"]
    lines = (run / "records.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["throughput_mbit"] = math.nextafter(first["throughput_mbit"], math.inf)
    (run / "records.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    assert digest.main([str(trees["b"] / "table1")]) == 2
    changed = reaggregate(trees["b"], "table1")
    assert changed["digest"] != json.loads((trees["a"] / "table1" / "digest.json").read_text())["digest"]
    capsys.readouterr()
    assert digest.main([str(trees["a"]), "--against", str(trees["b"])]) == 1
    differing = [line for line in capsys.readouterr().out.splitlines() if not line.endswith(" same")]
    assert len(differing) == 1 and differing[0].startswith("comer94/table1 ")
