"""The workflow as users drive it: lint, dry runs of every spec, resuming, refusing bad specs."""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from netrepro.backends import resolve_backend_name
from netrepro.runsettings import write_marker
from netrepro.spec import load_spec
from netrepro.tools import prepared_once, tool

REPO = Path(__file__).resolve().parent.parent
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]
SPECS = sorted((REPO / "configs").glob("*.yaml"))


def snakemake(*args, cwd=REPO):
    return subprocess.run([*SNAKEMAKE, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def job_counts(output: str) -> dict[str, int]:
    stats = output.split("Job stats:")[1]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, re.M)}


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file and folder under root but Snakemake's own records: contents and time."""
    return {str(path.relative_to(root)): (path.read_bytes() if path.is_file() else b"", path.stat().st_mtime_ns)
            for path in sorted(root.rglob("*")) if ".snakemake" not in path.relative_to(root).parts}


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
    loaded = load_spec(spec, {"profile": profile})
    done = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--config", f"profile={profile}",
                     "--directory", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    counts = job_counts(done.stdout)
    runs = 0
    for e in loaded.experiments.values():
        parts = tool(e.tool).parts(e.settings)
        points = len(e.sweep.points()) if e.sweep is not None and parts is not None else 1
        runs += e.trials * points * (len(parts) if parts is not None else 1)
    assert counts["measure_run"] == runs
    # What an experiment's trials share is made once (a tuned cooling loop), not by every trial.
    prepared = sum(prepared_once(e) for e in loaded.experiments.values())
    assert counts.get("prepare_experiment", 0) == prepared
    assert prepared > 0 or spec.name != "liu95cool-tahoe.yaml"
    assert counts["aggregate_results"] == len(loaded.experiments)
    assert counts.get("extract_trace", 0) == sum(tool(e.tool).traced(e.settings) for e in loaded.experiments.values())


def test_the_results_report_and_index_targets_split_the_default_one(tmp_path):
    """make reproduce measures every spec (all_results), renders the reports side by side
    (paper_report), then the index: together the default target's jobs, none twice."""
    def planned(*target: str) -> dict[str, int]:
        done = snakemake("-n", "--cores", "2", "--configfile", str(REPO / "configs" / "comer94.yaml"),
                         "--config", "backend=sim", "profile=smoke", "--directory", str(tmp_path), *target)
        assert done.returncode == 0, done.stdout + done.stderr
        return {rule: n for rule, n in job_counts(done.stdout).items() if rule != "total"}

    whole, results, report = planned(), planned("all_results"), planned("paper_report")
    index = planned("reports/html/index.html")
    assert "render_report" not in results and "render_index" not in results
    assert report.get("render_report") == 1 and "render_index" not in report
    assert index.get("render_index") == 1
    assert whole["render_report"] == 1 and whole["render_index"] == 1
    assert {rule: n for rule, n in whole.items() if rule != "all"} == {
        **{rule: n for rule, n in report.items() if rule != "paper_report"},
        "render_index": 1,
    }
    assert {rule: n for rule, n in results.items() if rule != "all_results"}.items() <= whole.items()


def test_backend_sim_runs_tahoe_experiments_in_virtual_time_and_says_why_others_stay(tmp_path):
    comer = snakemake("-n", "--cores", "2", "--configfile", str(REPO / "configs" / "comer94.yaml"),
                      "--config", "backend=sim", "--directory", str(tmp_path))
    assert comer.returncode == 0, comer.stdout + comer.stderr
    assert "results/comer94/table1/runs/quick/sim/trial-1/send-16384/settings-" in comer.stdout
    linux = snakemake("-n", "--cores", "2", "--configfile", str(REPO / "configs" / "liu95cool.yaml"),
                      "--config", "backend=sim", "--directory", str(tmp_path))
    assert linux.returncode == 0, linux.stdout + linux.stderr
    assert "/runs/quick/sim/" not in linux.stdout
    assert "lan-nasa: backend sim was asked for, but stack linux runs only in emulation" in linux.stderr
    assert f"/runs/quick/{resolve_backend_name('auto')}/trial-1/" in linux.stdout


def test_a_rerun_does_only_what_is_missing(tmp_path):
    from netrepro.experiment import settings_hash
    spec = REPO / "configs" / "liu95cool.yaml"
    lan_512b = load_spec(spec).experiments["lan-512b"]
    backend = resolve_backend_name("auto")
    for trial in (1, 2):
        folder = tmp_path / f"results/liu95cool/lan-512b/runs/quick/{backend}/trial-{trial}"
        folder.mkdir(parents=True)
        (folder / "records.jsonl").write_text("{}\n")
        (folder / "provenance.json").write_text(json.dumps({"settings_hash": settings_hash(lan_512b)}) + "\n")
        write_marker(lan_512b, folder)
    done = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"output: results/liu95cool/lan-512b/runs/quick/{backend}/trial-1/" not in done.stdout
    assert f"output: results/liu95cool/lan-2k/runs/quick/{backend}/trial-1/" in done.stdout
    assert job_counts(done.stdout)["measure_run"] == 8


@pytest.mark.parametrize("stale", [True, False], ids=["older-than-code", "newer-than-code"])
def test_results_older_than_the_aggregating_code_are_written_again_from_the_kept_runs(tmp_path, stale):
    from netrepro.experiment import settings_hash
    spec = REPO / "configs" / "liu95cool.yaml"
    lan_512b = load_spec(spec).experiments["lan-512b"]
    backend = resolve_backend_name("auto")
    for trial in range(1, lan_512b.trials + 1):
        folder = tmp_path / f"results/liu95cool/lan-512b/runs/quick/{backend}/trial-{trial}"
        folder.mkdir(parents=True)
        (folder / "records.jsonl").write_text("{}\n")
        (folder / "provenance.json").write_text(json.dumps({"settings_hash": settings_hash(lan_512b)}) + "\n")
        write_marker(lan_512b, folder)
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


def test_a_config_key_the_workflow_would_ignore_stops_it(tmp_path):
    """--config cores=2 (meant as --cores 2) or a spec key would otherwise do nothing."""
    for given in ("cores=2", "seed=7"):
        done = snakemake("-n", "--cores", "2", "--configfile", str(REPO / "configs" / "liu95cool.yaml"),
                         "--config", "profile=smoke", given, "--directory", str(tmp_path))
        key = given.split("=")[0]
        assert done.returncode != 0 and f"--config: {key}: not a setting --config takes" in done.stderr


def test_a_changed_spec_reruns_finished_runs_even_after_make_clean(tmp_path):
    """A trial measured on ethernet-10 is measured again once the spec says wan-1995, though
    .snakemake (Snakemake's own records) is gone; the other experiments' runs are kept."""
    from netrepro.experiment import settings_hash
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
            write_marker(loaded.experiments[experiment], folder)
    first = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert first.returncode == 0, first.stdout + first.stderr
    assert "output: results/liu95cool/lan-large/runs/" not in first.stdout
    text = spec.read_text()
    own = text.index("  lan-large:")
    spec.write_text(text[:own] + text[own:].replace("\n", "\n    link: wan-1995\n", 1))
    assert load_spec(spec).experiments["lan-large"].link_name == "wan-1995"
    assert not (tmp_path / ".snakemake" / "metadata").exists() or not any((tmp_path / ".snakemake" / "metadata").iterdir())
    before = tree(tmp_path)
    again = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"output: results/liu95cool/lan-large/runs/quick/{backend}/trial-1/" in again.stdout
    assert "output: results/liu95cool/lan-512b/runs/" not in again.stdout
    assert tree(tmp_path) == before, "the dry run wrote into the tree"


def test_rewording_an_experiment_or_adding_a_trial_reruns_only_what_it_must(tmp_path):
    """A new description or mirrors measure nothing again; raising trials from 2 to 3 measures
    trial 3 only. Both once reran every trial: they were part of the settings hash."""
    from netrepro.experiment import settings_hash
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
            write_marker(experiment, folder)
    first = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert first.returncode == 0, first.stdout + first.stderr
    assert "rule measure_run:" not in first.stdout
    spec.write_text(spec.read_text()
                    .replace("Round-trip time of messages under 512 bytes.", "RTTs of the smallest messages.")
                    .replace("mirrors: [Fig 1a]", "mirrors: [Fig 1a, Fig 1c]"))
    reworded = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert reworded.returncode == 0, reworded.stdout + reworded.stderr
    assert "rule measure_run:" not in reworded.stdout
    spec.write_text(spec.read_text().replace("    trials: 2\n", "    trials: 3\n", 1))
    more = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--directory", str(tmp_path))
    assert more.returncode == 0, more.stdout + more.stderr
    planned = re.findall(r"output: (results/liu95cool/[^/]+/runs/quick/[^/]+/trial-\d+)/", more.stdout)
    assert sorted(set(planned)) == sorted(f"results/liu95cool/{e}/runs/quick/{backend}/trial-3"
                                          for e in loaded.experiments)


def planned_outputs(output: str) -> dict[str, list[str]]:
    """The outputs of each job a dry run plans, by rule."""
    planned: dict[str, list[str]] = {}
    for rule, files in re.findall(r"^rule (\w+):\n(?:    .*\n)*?    output: (.*)$", output, re.M):
        planned.setdefault(rule, []).extend(files.split(", "))
    return planned


# The order a finished tree's files were written in: each rule's outputs after its inputs'.
FINISHED_ORDER = ("measure_run", "aggregate_results", "extract_trace", "render_report", "render_index")


def finished_comer94_tree(root: Path) -> dict[str, list[str]]:
    """comer94's smoke profile in virtual time as a finished tree: every output the workflow
    plans on an empty tree, written in the order the jobs write them (contents play no part in
    what Snakemake plans). Returns the planned outputs by rule."""
    done = snakemake("-n", "--cores", "2", "--configfile", str(REPO / "configs" / "comer94.yaml"),
                     "--config", "profile=smoke", "backend=sim", "--directory", str(root))
    assert done.returncode == 0, done.stdout + done.stderr
    planned = planned_outputs(done.stdout)
    if "build_tools" in planned:
        pytest.skip("needs the tools built (make -C tools all)")
    assert set(planned) == set(FINISHED_ORDER), sorted(planned)
    stamp = time.time() - len(FINISHED_ORDER)
    for rank, rule in enumerate(FINISHED_ORDER):
        for name in planned[rule]:
            made = root / name
            made.parent.mkdir(parents=True, exist_ok=True)
            made.write_text("\n")
            os.utime(made, (stamp + rank, stamp + rank))
    return planned


@pytest.mark.parametrize("deleted", ["experiment", "run", "scorecard"])
def test_the_default_target_measures_again_what_was_deleted_from_a_finished_tree(tmp_path, deleted):
    """A deleted experiment folder (or one run's folder, or the scorecard) is missing, and the
    default target makes it again and renders the report again, while the report's HTML exists.
    Snakemake reruns a job whose output is missing only where a target asks for that output:
    the default target once named the reports alone, so nothing was done."""
    planned = finished_comer94_tree(tmp_path)
    args = ("-n", "--cores", "2", "--configfile", str(REPO / "configs" / "comer94.yaml"),
            "--config", "profile=smoke", "backend=sim", "--directory", str(tmp_path))
    finished = snakemake(*args)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "Nothing to be done" in finished.stdout + finished.stderr
    experiment = "results/comer94/circular-wait"
    runs = sorted(f for f in planned["measure_run"] if f.startswith(f"{experiment}/"))
    if deleted == "experiment":
        shutil.rmtree(tmp_path / experiment)
        remade = {"measure_run": runs, "aggregate_results": [f"{experiment}/results.csv"],
                  "extract_trace": [f"{experiment}/trace.csv"]}
    elif deleted == "run":
        shutil.rmtree((tmp_path / runs[0]).parent)
        remade = {"measure_run": runs[:1], "aggregate_results": [f"{experiment}/results.csv"],
                  "extract_trace": [f"{experiment}/trace.csv"]}
    else:
        (tmp_path / "reports/html/comer94-scorecard.csv").unlink()
        remade = {}
    again = snakemake(*args)
    assert again.returncode == 0, again.stdout + again.stderr
    replanned = planned_outputs(again.stdout)
    assert sorted(replanned.get("measure_run", [])) == remade.get("measure_run", [])
    for rule in ("aggregate_results", "extract_trace"):
        assert [f for f in replanned.get(rule, []) if f.endswith(".csv")] == remade.get(rule, [])
    assert "reports/html/comer94.html" in replanned["render_report"]
    assert replanned["render_index"] == ["reports/html/index.html"]


def test_an_experiment_gathers_another_backends_runs_that_another_experiment_of_the_spec_runs_on(tmp_path):
    """milliner under backend=sim keeps its RPC experiments emulated (linkemu), and its other
    experiments' finished linkemu runs of the same settings still join their results."""
    spec = REPO / "configs" / "milliner.yaml"
    loaded = load_spec(spec, {"profile": "quick", "backend": "sim"})
    assert resolve_backend_name(loaded.experiments["compare-rpc"].backend) == "linkemu"
    emulated = tmp_path / "results/milliner/udp-unack/runs/quick/linkemu/trial-1"
    emulated.mkdir(parents=True)
    (emulated / "provenance.json").write_text(json.dumps(
        {"settings_hash": json.loads(write_marker(loaded.experiments["udp-unack"], emulated).read_text())
         ["settings_hash"]}))
    done = snakemake("-n", "--cores", "2", "--configfile", str(spec), "--config", "backend=sim",
                     "--directory", str(tmp_path), "results/milliner/udp-unack/results.csv")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "results/milliner/udp-unack/runs/quick/linkemu/trial-1/provenance.json" in done.stdout
