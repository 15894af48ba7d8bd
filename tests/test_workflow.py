"""The workflow as users drive it: lint, dry runs of every spec, resuming, refusing bad specs."""
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from netrepro.backends import resolve_backend_name

REPO = Path(__file__).resolve().parent.parent
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]
SPECS = sorted((REPO / "configs").glob("*.yaml"))


def snakemake(*args, cwd=REPO):
    return subprocess.run([*SNAKEMAKE, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def job_counts(output: str) -> dict[str, int]:
    stats = output.split("Job stats:")[1]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, re.M)}


def test_there_are_specs():
    assert SPECS


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.name)
def test_lint_is_clean(spec):
    done = snakemake("--lint", "--configfile", str(spec))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Congratulations" in done.stdout + done.stderr


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.name)
@pytest.mark.parametrize("profile", ["quick", "paper", "smoke"])
def test_dry_run_plans_one_job_per_trial(spec, profile, tmp_path):
    from netrepro.spec import load_spec

    loaded = load_spec(spec, {"profile": profile})
    done = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--config", f"profile={profile}",
                     "--directory", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    counts = job_counts(done.stdout)
    plain = [e for e in loaded.experiments.values() if e.sweep is None]
    swept = [e for e in loaded.experiments.values() if e.sweep is not None]
    echo_trials = sum(e.trials for e in plain if e.ttcp is None)
    transfer_parts = sum(e.trials * len(e.ttcp.send_buffers) for e in plain if e.ttcp)
    assert counts.get("measure_trial", 0) == echo_trials
    assert counts.get("measure_transfers", 0) == transfer_parts
    assert counts.get("measure_sweep", 0) == sum(e.trials for e in swept if e.ttcp is None)
    assert counts.get("measure_point_transfers", 0) == sum(
        e.trials * len(e.sweep.points()) * len(e.ttcp.send_buffers) for e in swept if e.ttcp)
    assert counts["aggregate_results"] == len(loaded.experiments)
    assert counts.get("extract_trace", 0) == sum(e.trace for e in loaded.experiments.values())


def test_backend_sim_runs_tahoe_experiments_in_virtual_time_and_says_why_others_stay(tmp_path):
    comer = snakemake("-n", "--cores", "2", "--configfile", str(REPO / "configs" / "comer94.yaml"),
                      "--config", "backend=sim", "--directory", str(tmp_path))
    assert comer.returncode == 0, comer.stdout + comer.stderr
    assert "results/comer94/table1/runs/quick/sim/trial-1/send-16384/records.jsonl" in comer.stdout
    linux = snakemake("-n", "--cores", "2", "--configfile", str(REPO / "configs" / "liu95cool.yaml"),
                      "--config", "backend=sim", "--directory", str(tmp_path))
    assert linux.returncode == 0, linux.stdout + linux.stderr
    assert "/runs/quick/sim/" not in linux.stdout
    assert "lan-nasa: backend sim was asked for, but stack linux runs only in emulation" in linux.stderr
    assert f"/runs/quick/{resolve_backend_name('auto')}/trial-1/" in linux.stdout


def test_a_rerun_does_only_what_is_missing(tmp_path):
    from netrepro.spec import load_spec, settings_hash

    spec = REPO / "configs" / "liu95cool.yaml"
    lan_512b = load_spec(spec).experiments["lan-512b"]
    backend = resolve_backend_name("auto")
    for trial in (1, 2):
        folder = tmp_path / f"results/liu95cool/lan-512b/runs/quick/{backend}/trial-{trial}"
        folder.mkdir(parents=True)
        (folder / "records.jsonl").write_text("{}\n")
        (folder / "provenance.json").write_text(json.dumps({"settings_hash": settings_hash(lan_512b)}) + "\n")
    done = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"output: results/liu95cool/lan-512b/runs/quick/{backend}/trial-1/" not in done.stdout
    assert f"output: results/liu95cool/lan-2k/runs/quick/{backend}/trial-1/" in done.stdout
    assert job_counts(done.stdout)["measure_trial"] == 8


@pytest.mark.parametrize("stale", [True, False], ids=["older-than-code", "newer-than-code"])
def test_results_older_than_the_aggregating_code_are_written_again_from_the_kept_runs(tmp_path, stale):
    from netrepro.spec import load_spec, settings_hash

    spec = REPO / "configs" / "liu95cool.yaml"
    lan_512b = load_spec(spec).experiments["lan-512b"]
    backend = resolve_backend_name("auto")
    for trial in range(1, lan_512b.trials + 1):
        folder = tmp_path / f"results/liu95cool/lan-512b/runs/quick/{backend}/trial-{trial}"
        folder.mkdir(parents=True)
        (folder / "records.jsonl").write_text("{}\n")
        (folder / "provenance.json").write_text(json.dumps({"settings_hash": settings_hash(lan_512b)}) + "\n")
    # Snakemake reads an output time of 0 as "none": the runs are dated an hour before the
    # results, and the results an hour before aggregate.py or an hour after now.
    stamp = (REPO / "netrepro" / "aggregate.py").stat().st_mtime - 3600 if stale else time.time() + 3600
    for name in ("results.csv", "provenance.jsonl", "digest.json"):
        made = tmp_path / "results/liu95cool/lan-512b" / name
        made.write_text("\n")
        os.utime(made, (stamp, stamp))
    for folder in (tmp_path / "results/liu95cool/lan-512b/runs").rglob("trial-*"):
        for made in folder.iterdir():
            os.utime(made, (stamp - 3600, stamp - 3600))
    done = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"output: results/liu95cool/lan-512b/runs/quick/{backend}/trial-1/" not in done.stdout
    planned = "output: results/liu95cool/lan-512b/results.csv" in done.stdout
    assert planned == stale


def test_a_bad_spec_stops_the_workflow_with_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text((REPO / "configs" / "liu95cool.yaml").read_text().replace("  seed: 1995", "  seed: -4"))
    done = snakemake("-n", "--cores", "2", "--configfile", str(bad), "--directory", str(tmp_path))
    assert done.returncode != 0
    line = next(n for n, text in enumerate(bad.read_text().splitlines(), 1) if "seed: -4" in text)
    assert f"{bad}:{line}: defaults.seed" in done.stderr


def test_an_unknown_profile_stops_the_workflow(tmp_path):
    done = snakemake("-n", "--cores", "2", "--configfile", str(REPO / "configs" / "liu95cool.yaml"),
                     "--config", "profile=fast", "--directory", str(tmp_path))
    assert done.returncode != 0
    assert "profile" in done.stderr and "quick" in done.stderr


def test_a_changed_spec_reruns_finished_runs_even_after_make_clean(tmp_path):
    """A trial measured on ethernet-10 is measured again once the spec says wan-1995, though
    .snakemake (Snakemake's own records) is gone; the other experiments' runs are kept."""
    from netrepro.spec import load_spec, settings_hash

    spec = tmp_path / "liu95cool.yaml"
    spec.write_text((REPO / "configs" / "liu95cool.yaml").read_text())
    backend = resolve_backend_name("auto")
    loaded = load_spec(spec)
    for experiment in ("lan-512b", "lan-large"):
        for trial in range(1, loaded.experiments[experiment].trials + 1):
            folder = tmp_path / f"results/liu95cool/{experiment}/runs/quick/{backend}/trial-{trial}"
            folder.mkdir(parents=True)
            (folder / "records.jsonl").write_text("{}\n")
            provenance = {"settings_hash": settings_hash(loaded.experiments[experiment])}
            (folder / "provenance.json").write_text(json.dumps(provenance) + "\n")
    first = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert first.returncode == 0, first.stdout + first.stderr
    assert "output: results/liu95cool/lan-large/runs/" not in first.stdout
    text = spec.read_text()
    own = text.index("  lan-large:")
    spec.write_text(text[:own] + text[own:].replace("\n", "\n    link: wan-1995\n", 1))
    assert load_spec(spec).experiments["lan-large"].link_name == "wan-1995"
    assert not (tmp_path / ".snakemake" / "metadata").exists() or not any((tmp_path / ".snakemake" / "metadata").iterdir())
    again = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"output: results/liu95cool/lan-large/runs/quick/{backend}/trial-1/" in again.stdout
    assert "output: results/liu95cool/lan-512b/runs/" not in again.stdout


def test_rewording_an_experiment_or_adding_a_trial_reruns_only_what_it_must(tmp_path):
    """A new description or mirrors measure nothing again; raising trials from 2 to 3 measures
    trial 3 only. Both once reran every trial: they were part of the settings hash."""
    from netrepro.spec import load_spec, settings_hash

    spec = tmp_path / "liu95cool.yaml"
    spec.write_text((REPO / "configs" / "liu95cool.yaml").read_text())
    backend = resolve_backend_name("auto")
    loaded = load_spec(spec)
    for experiment in loaded.experiments.values():
        for trial in (1, 2):
            folder = tmp_path / f"results/liu95cool/{experiment.id}/runs/quick/{backend}/trial-{trial}"
            folder.mkdir(parents=True)
            (folder / "records.jsonl").write_text("{}\n")
            (folder / "provenance.json").write_text(json.dumps({"settings_hash": settings_hash(experiment)}) + "\n")
    first = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert first.returncode == 0, first.stdout + first.stderr
    assert "rule measure_trial:" not in first.stdout
    spec.write_text(spec.read_text()
                    .replace("Round-trip time of messages under 512 bytes.", "RTTs of the smallest messages.")
                    .replace("mirrors: [Fig 1a]", "mirrors: [Fig 1a, Fig 1c]"))
    reworded = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert reworded.returncode == 0, reworded.stdout + reworded.stderr
    assert "rule measure_trial:" not in reworded.stdout
    spec.write_text(spec.read_text().replace("    trials: 2\n", "    trials: 3\n", 1))
    more = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert more.returncode == 0, more.stdout + more.stderr
    planned = re.findall(r"output: (results/liu95cool/[^/]+/runs/quick/[^/]+/trial-\d+)/", more.stdout)
    assert sorted(set(planned)) == sorted(f"results/liu95cool/{e}/runs/quick/{backend}/trial-3"
                                          for e in loaded.experiments)
