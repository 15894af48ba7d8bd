"""tool: mftp and sweeps in the spec language: resolving, refusing bad input with file, line and
key, planning one job per sweep point, and one row per transfer with the sweep as columns."""
import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from netrepro import aggregate
from netrepro.spec import load_spec
from netrepro.experiment import at_point
from netrepro.tools import mftp
from netrepro.trial import run_name
from netrepro.yamlsrc import SpecError
from tests.test_spec import line_of

REPO = Path(__file__).resolve().parent.parent
ISHIKURA = REPO / "configs" / "ishikura.yaml"
COMER = REPO / "configs" / "comer94.yaml"
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]


def edited(tmp_path: Path, source: Path, old: str, new: str) -> Path:
    """source with old replaced by new, as tmp_path/spec.yaml."""
    assert old in source.read_text(), f"the test's anchor {old!r} is gone from {source.name}"
    (tmp_path / "spec.yaml").write_text(source.read_text().replace(old, new, 1))
    return tmp_path / "spec.yaml"


def test_one_experiment_states_rtt_by_connections():
    fig6 = load_spec(ISHIKURA, {"profile": "paper"}).experiments["fig6"]
    points = fig6.sweep.points()
    assert len(points) == 5 * 16
    assert fig6.settings.transfers == 10 and fig6.settings.transfer_bytes == 16 << 20
    last = at_point(fig6, len(points))
    assert dict(last.point) == {"added_rtt": 0.5, "connections": 16}
    assert last.link.forward.delay_s == last.link.reverse.delay_s == 0.25
    assert last.settings.connections == 16 and last.settings.window == 24 << 10


def test_a_point_sets_the_link_error_ratio_and_the_window():
    spec = load_spec(ISHIKURA)
    cell = at_point(spec.experiments["cell-loss"], 1)
    assert cell.link.forward.cell_loss_ratio == cell.link.reverse.cell_loss_ratio == 3.8e-6
    single = at_point(spec.experiments["table2-single"], 5)
    assert single.settings.window == 512 << 10 and single.settings.window_scale
    assert single.link.forward.bit_error_ratio == 3.0e-7


def test_a_backwards_range_names_file_line_and_key(tmp_path):
    path = edited(tmp_path, ISHIKURA, "connections: 1..16", "connections: 16..1")
    with pytest.raises(SpecError) as error:
        load_spec(path)
    text = str(error.value)
    assert f"spec.yaml:{line_of(path, '16..1')}" in text and "connections" in text


def test_sweeping_connections_needs_mftp(tmp_path):
    path = edited(tmp_path, COMER, "    mirrors: [Table 1, Fig 3, Fig 7, Fig 9, Fig 10, Fig 11, Fig 12, Fig 13]\n",
                  "    mirrors: [Table 1]\n    sweep:\n      connections: [1, 2]\n")
    with pytest.raises(SpecError, match="needs tool mftp") as error:
        load_spec(path)
    assert f":{line_of(path, 'connections: [1, 2]')}" in str(error.value)


def test_a_window_above_sb_max_is_refused_where_it_is_set(tmp_path):
    path = edited(tmp_path, ISHIKURA, "    window: 24K\n", "    window: 60K\n")
    with pytest.raises(SpecError, match="sb_max") as error:
        load_spec(path)
    assert f":{line_of(path, 'window: 60K')}" in str(error.value)


def test_a_ratio_that_is_not_a_ratio_is_refused(tmp_path):
    path = edited(tmp_path, ISHIKURA, "cell_loss_ratio: [3.8e-6,", "cell_loss_ratio: [3.8,")
    with pytest.raises(SpecError) as error:
        load_spec(path)
    assert "cell_loss_ratio" in str(error.value)


def test_serial_setup_reaches_mftp_only_in_block_mode(tmp_path):
    experiments = load_spec(ISHIKURA, {"profile": "smoke"}).experiments
    serial = mftp.mftp_args(experiments["fig6-serial-setup"].settings, 1)
    assert serial[serial.index("--setup") + 1] == "serial"
    assert "--setup" not in mftp.mftp_args(experiments["fig6"].settings, 1)
    path = edited(tmp_path, ISHIKURA, "      setup: serial\n", "      setup: serial\n      mode: stream\n")
    with pytest.raises(SpecError, match="setup serial needs mode block") as error:
        load_spec(path)
    assert f":{line_of(path, 'setup: serial')}" in str(error.value)


def test_reorder_bound_reaches_mftp_in_octets_and_needs_block_mode(tmp_path):
    experiments = load_spec(ISHIKURA, {"profile": "smoke"}).experiments
    bounded = mftp.mftp_args(experiments["table2-multi-reorder1"].settings, 1)
    block = experiments["table2-multi-reorder1"].settings.block
    assert bounded[bounded.index("--reorder-max") + 1] == f"{block}B"
    assert "--reorder-max" not in mftp.mftp_args(experiments["table2-multi"].settings, 1)
    path = edited(tmp_path, ISHIKURA, "      reorder_blocks: 1\n", "      reorder_blocks: 1\n      mode: stream\n")
    with pytest.raises(SpecError, match="reorder_blocks needs mode block") as error:
        load_spec(path)
    assert f":{line_of(path, 'reorder_blocks: 1')}" in str(error.value)


def snakemake(*args, cwd=REPO):
    return subprocess.run([*SNAKEMAKE, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_a_ttcp_experiment_sweeps_its_link_in_the_workflow(tmp_path):
    path = edited(tmp_path, COMER, "    mirrors: [Table 1, Fig 3, Fig 7, Fig 9, Fig 10, Fig 11, Fig 12, Fig 13]\n",
                  "    mirrors: [Table 1]\n    sweep:\n      added_rtt: [0ms, 20ms]\n")
    done = snakemake("-n", "--cores", "2", "--configfile", str(path), "--config", "backend=sim",
                     "--directory", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "results/comer94/table1/runs/quick/sim/trial-1/point-2/send-16384/settings-" in done.stdout
    assert "rule measure_run:" in done.stdout
    spec = load_spec(path)
    table1 = spec.experiments["table1"]
    assert at_point(table1, 2).link.forward.delay_s == 0.01
    # Each point's runs are told apart in rows and provenance, as their folders are.
    assert run_name(spec, at_point(table1, 2), 1, "send-16384") == "comer94/table1/trial-1/point-2/send-16384"
    assert run_name(load_spec(COMER), load_spec(COMER).experiments["table1"], 1, "send-16384") == \
        "comer94/table1/trial-1/send-16384"


def test_the_ishikura_paper_profile_plans_a_job_per_trial_of_each_sweep(tmp_path):
    done = snakemake("-n", "--cores", "2", "--configfile", str(ISHIKURA), "--config", "backend=sim",
                     "profile=paper", "--directory", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    spec = load_spec(ISHIKURA, {"profile": "paper"})
    assert all(e.sweep for e in spec.experiments.values())
    assert re.search(rf"^measure_run\s+{sum(e.trials for e in spec.experiments.values())}$", done.stdout, re.M)


def test_a_point_runs_in_virtual_time_and_its_rows_carry_the_sweep(tmp_path):
    """A tiny transfer at one point of fig6, aggregated: the sweep values are columns."""
    path = edited(tmp_path, ISHIKURA, "    transfer: 256K\n", "    transfer: 64K\n")
    run = tmp_path / "runs" / "smoke" / "sim" / "trial-1" / "point-34"
    done = subprocess.run([sys.executable, "-m", "netrepro.measure", "--spec", str(path), "--experiment", "fig6",
                           "--trial", "1", "--profile", "smoke", "--backend", "sim", "--point", "34",
                           "--out", str(run)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    provenance = json.loads((run / "provenance.json").read_text())
    assert provenance["sweep"] == {"added_rtt_ms": 200.0, "connections": 2}
    assert provenance["run_order_fields"] == ["connections", "repeat"] and provenance["run_order"] == ["2:1"]
    assert aggregate.main(["--spec", str(path), "--experiment", "fig6", "--profile", "smoke",
                           "--out", str(tmp_path), str(run)]) == 0
    rows = list(csv.DictReader((tmp_path / "results.csv").open()))
    assert len(rows) == 1
    assert rows[0]["added_rtt_ms"] == "200" and rows[0]["connections"] == "2"
    assert float(rows[0]["throughput_mbit"]) > 0 and rows[0]["bytes"] == str(64 << 10)


def test_all_points_of_a_trial_run_in_one_process_and_resume(tmp_path):
    path = edited(tmp_path, ISHIKURA, "    transfer: 256K\n", "    transfer: 32K\n")
    out = tmp_path / "trial-1"
    argv = [sys.executable, "-m", "netrepro.measure", "--spec", str(path), "--experiment", "auto-n", "--trial", "1",
            "--profile", "smoke", "--backend", "sim", "--point", "all", "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "points.json").read_text()) == {"points": [f"point-{k}" for k in range(1, 5)]}
    first = (out / "point-2" / "provenance.json").stat().st_mtime_ns
    (out / "point-3" / "provenance.json").unlink()
    assert subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=REPO).returncode == 0
    assert (out / "point-2" / "provenance.json").stat().st_mtime_ns == first
    assert (out / "point-3" / "provenance.json").is_file()


def test_tiny_error_ratios_keep_their_digits_in_results():
    columns = aggregate.sweep_columns({"sweep": {"bit_error_ratio": 3e-8, "added_rtt_ms": 200.0, "connections": 4}})
    assert columns == {"bit_error_ratio": "3e-08", "added_rtt_ms": "200", "connections": 4}


def test_an_emulated_quick_run_keeps_netsims_stack_flags_in_virtual_time():
    experiments = load_spec(ISHIKURA, {"profile": "quick", "backend": "linkemu"}).experiments
    assert experiments["fig6"].backend == "linkemu" and experiments["fig6"].backend_note == ""
    for sim_only in ("table2-single", "sec2", "fig1-multi"):
        assert experiments[sim_only].backend == "sim"
        assert "exist only on netsim's stacks" in experiments[sim_only].backend_note
    assert experiments["fig1-multi"].settings.cwnd_trace
    assert not experiments["fig6"].settings.cwnd_trace
