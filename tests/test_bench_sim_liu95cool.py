"""benchmarks/sim/bench_liu95cool.py: the workflow's jobs of liu95cool-tahoe's paper profile,
the netsim runs found in their provenance, and the check that another netsim's output is the same."""
from pathlib import Path

import pytest

from tests.conftest import load_script

bench = load_script("benchmarks/sim/bench_liu95cool.py", "bench_sim_liu95cool")


def test_the_jobs_are_the_workflows_a_trial_each_and_for_ttcp_a_send_buffer_each() -> None:
    spec = bench.load_spec(bench.SPEC, {"profile": "paper", "backend": "sim"})
    ttcp = spec.experiments["lan-ttcp-cooling-tahoe"]
    assert bench.jobs_of(ttcp) == [(t, s) for t in range(1, ttcp.trials + 1) for s in ttcp.settings.send_buffers]
    pingx = spec.experiments["wan-nasa-tahoe"]
    assert bench.jobs_of(pingx) == [(t, None) for t in range(1, 21)]
    argv = bench.job_argv(ttcp, 1, 9216, Path("/out"), None)
    assert argv[1:3] == ["-m", "netrepro.measure"] and argv[-2:] == ["--send-buffer", "9216"]
    assert ["--profile", "paper"] == argv[argv.index("--profile"):argv.index("--profile") + 2]
    # A tuned LAN experiment's trials read the loop its prepare job tuned once; nothing else prepares.
    lan = spec.experiments["lan-large-tahoe"]
    assert bench.prepared_once(lan) and not bench.prepared_once(pingx) and not bench.prepared_once(ttcp)
    assert bench.job_argv(lan, 3, None, Path("/out"), Path("/p.json"))[-2:] == ["--prepared", "/p.json"]
    assert bench.prepare_argv(lan, Path("/p.json"))[-4:] == ["--prepare", "/p.json", "--backend", "sim"]


def test_tune_runs_are_counted_by_the_job_that_made_them() -> None:
    tune = {"levels": [{"events": 1, "virtual_ns": 2}, {"events": 3, "virtual_ns": 4}]}
    assert bench.tune_levels({"cooling_tune": tune}) == tune["levels"]
    assert bench.tune_levels({"cooling_tune": tune, "cooling_tune_prepared": False}) == tune["levels"]
    assert bench.tune_levels({"cooling_tune": tune, "cooling_tune_prepared": True}) == []


def test_sim_records_and_commands_are_found_wherever_the_provenance_keeps_them() -> None:
    sim = {"record": "sim", "events": 5, "virtual_ns": 7}
    provenance = {"modes": {"tcp": {"sim": sim, "command": ["/x/tools/bin/netsim", "--seed", "1"]}},
                  "pairs": [{"sim": [sim, sim], "command": [["/x/tools/bin/netsim", "-u"], ["/y/netsim"]]}],
                  "tools": {"netsim": "sha"}, "argv": ["/x/tools/bin/pingx"]}
    assert bench.sim_records(provenance) == [sim, sim, sim]
    assert bench.netsim_commands(provenance) == [["/x/tools/bin/netsim", "--seed", "1"],
                                                 ["/x/tools/bin/netsim", "-u"], ["/y/netsim"]]


def stand_in(path: Path, line: str) -> Path:
    path.write_text(f"#!/bin/sh\necho {line} \"$@\"\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("other, identical", [("same", 2), ("other", 0)])
def test_against_counts_the_runs_whose_output_another_netsim_repeats(monkeypatch, tmp_path, other, identical) -> None:
    monkeypatch.setattr(bench, "BINARY", stand_in(tmp_path / "netsim", "same"))
    monkeypatch.setattr(bench, "build_reference", lambda rev, where: stand_in(tmp_path / "ref", other))
    commands = [["/x/netsim", "--seed", "1"], ["/x/netsim", "--seed", "2"]]
    result = bench.compare("HEAD", commands, 2)
    assert result["runs"] == 2 and result["identical"] == identical
    assert len(result["different"]) == 2 - identical
    with pytest.raises(SystemExit, match="writes files"):
        bench.compare("HEAD", [["/x/netsim", "--pcap", "a.pcap"]], 1)


def test_the_table_has_a_row_an_experiment_the_total_and_the_check() -> None:
    experiment = {"jobs": 20, "netsim_runs": 80, "wall_s": 40.0, "events": 4e7, "events_per_s": 1e6}
    result = {"jobs": 2, "experiments": {"wan-nasa-tahoe": experiment},
              "total": {**experiment, "elapsed_s": 30.0},
              "against": {"rev": "main", "commit": "abc", "runs": 89, "identical": 89}}
    text = bench.markdown(result)
    assert "| wan-nasa-tahoe | 20 | 80 | 40.0 s | 40.00 M | 1.00 M |" in text
    assert "0.5 min elapsed" in text and "89 of 89 outputs" in text
