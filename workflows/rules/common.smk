# Shared state and get_* helpers: the spec named by --configfile, loaded and validated once.
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, workflow.basedir)

from netrepro.backends import resolve_backend_name  # noqa: E402
from netrepro.jobs import forward_stop_signals, run_logged  # noqa: E402
from netrepro.measure import measure_argv  # noqa: E402
from netrepro.runsettings import marker, other_backend_runs, prepared_file  # noqa: E402
from netrepro.reportinputs import report_reads  # noqa: E402
from netrepro.safepath import links_under  # noqa: E402
from netrepro.spec import PROFILES, SpecError, load_spec  # noqa: E402
from netrepro.tools import prepared_once, tool  # noqa: E402


def get_spec_path():
    files = [Path(f) for f in workflow.overwrite_configfiles]
    if len(files) != 1:
        sys.exit("netrepro: give exactly one spec, e.g. --configfile configs/liu95cool.yaml")
    return files[0]


def get_overrides():
    """The --config values, which load_spec checks (netrepro.spec.OVERRIDE_KEYS)."""
    return dict(workflow.config_settings.config)


def get_loaded_spec():
    try:
        return load_spec(get_spec_path(), get_overrides())
    except SpecError as exc:
        sys.exit(f"netrepro: invalid spec: {exc}")


SPEC = get_loaded_spec()
PAPER = SPEC.paper


def get_linked_outputs():
    """Symbolic links where this workflow writes or Snakemake deletes outputs: results/, logs/,
    reports/html/ themselves, and anything under the paper's folders in results/ and logs/."""
    tops = [Path("results"), Path("logs"), Path("reports"), Path("reports/html")]
    return [top for top in tops if top.is_symlink()] or links_under([Path("results") / PAPER, Path("logs") / PAPER])


# Checked at parse time, before anything is written: with results/ a link to another tree,
# Snakemake deleted that tree's incomplete outputs before any job of netrepro's could refuse it.
_LINKED = get_linked_outputs()
if _LINKED:
    sys.exit(f"netrepro: {_LINKED[0]} is a symbolic link; netrepro runs as root and neither writes nor lets "
             "Snakemake delete through links: remove it and run again")

PROFILE = SPEC.profile
for _experiment in SPEC.experiments.values():
    if _experiment.backend_note:
        print(f"netrepro: {_experiment.id}: {_experiment.backend_note}", file=sys.stderr)

# Jobs run in Snakemake's threads (profiles/default), which its signals do not reach: a stop
# signal to Snakemake is passed on to the running jobs (netrepro.jobs), set up once Snakemake's
# scheduler has set its own handlers.
onstart:
    forward_stop_signals()


# The backends this invocation runs; other backends' finished runs are read, never remade here.
RUN_BACKENDS = sorted({resolve_backend_name(e.backend) for e in SPEC.experiments.values()})


wildcard_constraints:
    paper=PAPER,
    experiment="|".join(SPEC.experiments),
    profile="|".join(PROFILES),
    backend="|".join(RUN_BACKENDS),
    run=r"trial-[1-9][0-9]*(/point-[1-9][0-9]*)?(/send-[1-9][0-9]*)?",
    settings="[0-9a-f]{64}",


def get_python():
    return sys.executable


def get_experiment_words(wildcards):
    """What the spec says of an experiment that no trial measures (its description and the
    paper's figures it mirrors, which results.csv carries): a new wording rewrites its
    results.csv from the kept runs and reruns none of them (settings_hash leaves it out)."""
    experiment = SPEC.experiments[wildcards.experiment]
    return [experiment.description, *experiment.mirrors]


def get_backend_name(experiment):
    """The backend an experiment's runs use: `auto` resolved on this machine."""
    return resolve_backend_name(SPEC.experiments[experiment].backend)


def get_run_dir(experiment):
    return f"results/{PAPER}/{experiment}/runs/{PROFILE}/{get_backend_name(experiment)}"


def get_trial_dirs(wildcards):
    """The folders of one experiment's runs: a trial each, a sweep point of each trial, and for
    ttcp a send buffer of each (one job per send buffer, so a part killed half way costs little)."""
    experiment = SPEC.experiments[wildcards.experiment]
    base = get_run_dir(wildcards.experiment)
    trials = [f"{base}/trial-{n}" for n in range(1, experiment.trials + 1)]
    if experiment.sweep is not None:
        points = range(1, len(experiment.sweep.points()) + 1)
        trials = [f"{trial}/point-{k}" for trial in trials for k in points]
    parts = tool(experiment.tool).parts(experiment.settings)
    if parts is None:
        return trials
    return [f"{trial}/send-{send}" for trial in trials for send in parts]


def get_measure_tools(wildcards):
    """The programs a run of the experiment's tool runs on the job's backend (and linkemu, where
    it emulates the link), ancient: a rebuild reruns no finished run (its provenance names the
    build that measured it)."""
    experiment = SPEC.experiments[wildcards.experiment]
    names = tool(experiment.tool).binaries(wildcards.backend)
    if wildcards.backend == "linkemu":
        names = (*names, "linkemu")
    return {name: ancient(get_tools_path(f"bin/{name}")) for name in names}


def get_prepared(wildcards):
    """The file of what the experiment's trials share (rule prepare_experiment), where they read
    one (netrepro.tools.prepared_once)."""
    experiment = SPEC.experiments[wildcards.experiment]
    if not prepared_once(experiment):
        return {}
    # Ancient: made again under the same settings it is the same, and no finished run is remade.
    return {"prepared": ancient(str(prepared_file(Path(get_run_dir(wildcards.experiment)), experiment)))}


def get_other_backend_runs(wildcards):
    """Finished runs of the same settings on backends this invocation does not run the
    experiment on. Only the experiment's own backend is left out: another experiment of the
    spec may keep an emulated backend under backend=sim (milliner's RPC), and the runs of that
    backend are still this experiment's other runs."""
    experiment = SPEC.experiments[wildcards.experiment]
    return other_backend_runs(experiment, get_trial_dirs(wildcards), {resolve_backend_name(experiment.backend)})


def get_run_folders(wildcards):
    """Every run folder aggregating and tracing read, all declared as inputs."""
    return [*get_trial_dirs(wildcards), *get_other_backend_runs(wildcards)]


def get_measure_folders(wildcards):
    """The folder each measure job writes: a run's, or for a sweep of a tool whose trial is one
    job, each trial's (one job measures all its points)."""
    experiment = SPEC.experiments[wildcards.experiment]
    if experiment.sweep is not None and tool(experiment.tool).parts(experiment.settings) is None:
        base = get_run_dir(wildcards.experiment)
        return [f"{base}/trial-{n}" for n in range(1, experiment.trials + 1)]
    return get_trial_dirs(wildcards)


def get_trial_provenance(wildcards):
    """What aggregating waits for: each measure job's settings file (netrepro.runsettings), and
    the provenance of other backends' runs it joins."""
    experiment = SPEC.experiments[wildcards.experiment]
    others = [f"{d}/provenance.json" for d in get_other_backend_runs(wildcards)]
    return [str(marker(experiment, Path(d))) for d in get_measure_folders(wildcards)] + others


def get_experiment_runs(wildcards):
    """What aggregating waits for (get_trial_provenance) for every experiment of the spec: each
    measure job's settings file, which the default target names so that a deleted run folder is
    measured again."""
    return [path for experiment in SPEC.experiments
            for path in get_trial_provenance(SimpleNamespace(experiment=experiment))]


def get_netlab(wildcards):
    """Emulated runs hold the one network lab of the machine; virtual-time runs need none."""
    return 0 if wildcards.backend == "sim" else 1


def get_experiment_results(wildcards):
    return [f"results/{PAPER}/{exp}/results.csv" for exp in SPEC.experiments]


def get_experiment_traces(wildcards):
    return [f"results/{PAPER}/{exp}/trace.csv" for exp, e in SPEC.experiments.items()
            if tool(e.tool).traced(e.settings)]


def get_paper_report_targets():
    """The report and its scorecard (the index's input, where the paper has one)."""
    return list(dict.fromkeys([f"reports/html/{PAPER}.html", *get_index_inputs()]))


def get_report_targets():
    """The paper's report targets and the index."""
    return [*get_paper_report_targets(), "reports/html/index.html"]


def get_tools_path(name):
    return str(Path(workflow.basedir) / "tools" / name)



def get_measure_argv(wildcards, input, output):
    """measure.py's arguments for the run folder the job's output lies in: its trial, its sweep
    point (`all` for a trial measured in one job), its send buffer, and what was prepared for it."""
    parts = dict(part.split("-") for part in wildcards.run.split("/"))
    sweep = SPEC.experiments[wildcards.experiment].sweep
    return measure_argv(
        get_python(), get_spec_path(), wildcards.experiment, wildcards.profile, backend=config.get("backend"),
        trial=parts["trial"], out=Path(output.settings).parent, send_buffer=parts.get("send"),
        point=parts.get("point", "all") if sweep else None,
        prepared=input.prepared if "prepared" in input.keys() else None,
    )


def get_prepare_argv(wildcards, output):
    """measure.py's arguments that make what the experiment's trials share."""
    return measure_argv(get_python(), get_spec_path(), wildcards.experiment, wildcards.profile,
                        backend=config.get("backend"), prepare=output.prepared)


def get_aggregate_argv(wildcards, output):
    return [
        get_python(), "-m", "netrepro.aggregate", "--spec", str(get_spec_path()),
        "--experiment", wildcards.experiment, "--profile", PROFILE,
        "--out", str(Path(output.results).parent), *get_run_folders(wildcards),
    ]


def get_aggregate_code():
    """The code that shapes results.csv and digest.json: when it changes, every results.csv is
    written again from the runs (which are kept), so a fixed reader reaches the reports without a
    new run."""
    base = Path(workflow.basedir)
    return [str(base / "netrepro" / "aggregate.py"), str(base / "netrepro" / "columns.py"),
            str(base / "netrepro" / "digest.py"), str(base / "configs" / "schema" / "results-columns.json")]


def get_trace_code():
    return [str(Path(workflow.basedir) / "netrepro" / "trace.py")]


def get_trace_argv(wildcards, output):
    return [
        get_python(), "-m", "netrepro.trace", "--out", output.trace, *get_run_folders(wildcards),
    ]


def get_report_helpers():
    """The R helpers and the results' column contract they read with (configs/schema/results-columns.json)."""
    base = Path(workflow.basedir)
    return [*sorted(str(p) for p in (base / "reports" / "R").glob("*.R")),
            str(base / "configs" / "schema" / "results-columns.json")]


def get_report_reference():
    """Every file the report reads besides results: the specs its source names (report_reads),
    the published figures of every paper (a host model's training set may name another paper's
    table), the style sheets, and the host models, whose `fitted` blocks decide which claims
    read fitted."""
    base = Path(workflow.basedir)
    reports = base / "reports"
    return sorted({str(p) for p in [*report_reads(base, Path(get_report_source())),
                                    *reports.glob("reference/*.csv"), *reports.glob("*.css"),
                                    *(base / "configs" / "hosts").glob("*.yaml")]})


def get_render_argv():
    """Absolute paths: the renderer works from the reports folder, not the run directory."""
    return [
        "Rscript", get_report_script("render.R"), PAPER,
        str(Path("results").resolve()), str(Path("reports/html").resolve()), str(get_spec_path().resolve()),
    ]


def get_has_own_report():
    """A paper has a report of its own; any other `paper:` is a study, shown by reports/study.Rmd."""
    return (Path(workflow.basedir) / "reports" / f"{PAPER}.Rmd").is_file()


def get_report_source():
    name = PAPER if get_has_own_report() else "study"
    return str(Path(workflow.basedir) / "reports" / f"{name}.Rmd")


def get_index_inputs():
    """The index lists the papers by their scorecards; a study, which has none, by its report."""
    if get_has_own_report():
        return [f"reports/html/{PAPER}-scorecard.csv"]
    return [f"reports/html/{PAPER}.html"]


def get_report_script(name):
    return str(Path(workflow.basedir) / "reports" / name)
