# Shared state and get_* helpers: the spec named by --configfile, loaded and validated once.
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, workflow.basedir)

from netrepro.jobs import run_logged  # noqa: E402
from netrepro.spec import SpecError, load_spec  # noqa: E402


def get_spec_path():
    files = [Path(f) for f in workflow.overwrite_configfiles]
    if len(files) != 1:
        sys.exit("netrepro: give exactly one spec, e.g. --configfile configs/liu95cool.yaml")
    return files[0]


def get_overrides():
    return {key: config[key] for key in ("profile", "backend") if key in config}


def get_loaded_spec():
    try:
        return load_spec(get_spec_path(), get_overrides())
    except SpecError as exc:
        sys.exit(f"netrepro: invalid spec: {exc}")


SPEC = get_loaded_spec()
PAPER = SPEC.paper
PROFILE = SPEC.profile


wildcard_constraints:
    paper=PAPER,
    experiment="|".join(SPEC.experiments),
    profile="quick|paper|smoke",
    trial=r"[1-9][0-9]*",


def get_python():
    return sys.executable


def get_experiment_hash(wildcards):
    """Changes when anything the experiment's trials depend on changes in the spec."""
    return hashlib.sha256(repr(SPEC.experiments[wildcards.experiment]).encode()).hexdigest()[:16]


def get_trial_dirs(wildcards):
    trials = SPEC.experiments[wildcards.experiment].trials
    return [
        f"results/{PAPER}/{wildcards.experiment}/runs/{PROFILE}/trial-{n}"
        for n in range(1, trials + 1)
    ]


def get_trial_provenance(wildcards):
    return [f"{d}/provenance.json" for d in get_trial_dirs(wildcards)]


def get_experiment_results(wildcards):
    return [f"results/{PAPER}/{exp}/results.csv" for exp in SPEC.experiments]


def get_report_targets():
    return [f"reports/html/{PAPER}.html", "reports/html/index.html"]


def get_tools_path(name):
    return str(Path(workflow.basedir) / "tools" / name)



def get_measure_argv(wildcards, output):
    backend = ["--backend", config["backend"]] if "backend" in config else []
    return [
        get_python(), "-m", "netrepro.measure", "--spec", str(get_spec_path()),
        "--experiment", wildcards.experiment, "--trial", wildcards.trial,
        "--profile", wildcards.profile, "--out", str(Path(output.records).parent), *backend,
    ]


def get_aggregate_argv(wildcards, output):
    return [
        get_python(), "-m", "netrepro.aggregate", "--spec", str(get_spec_path()),
        "--experiment", wildcards.experiment, "--profile", PROFILE,
        "--out", str(Path(output.results).parent), *get_trial_dirs(wildcards),
    ]


def get_report_helpers():
    return sorted(str(p) for p in (Path(workflow.basedir) / "reports" / "R").glob("*.R"))


def get_report_reference():
    reports = Path(workflow.basedir) / "reports"
    return sorted(str(p) for p in [*reports.glob(f"reference/{PAPER}-*.csv"), *reports.glob("*.css")])


def get_render_argv():
    """Absolute paths: the renderer works from the reports folder, not the run directory."""
    return [
        "Rscript", get_report_script("render.R"), PAPER,
        str(Path("results").resolve()), str(Path("reports/html").resolve()),
    ]


def get_report_source():
    return str(Path(workflow.basedir) / "reports" / f"{PAPER}.Rmd")


def get_report_script(name):
    return str(Path(workflow.basedir) / "reports" / name)
