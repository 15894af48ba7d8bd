# netrepro: from a paper spec to its HTML report.
#   snakemake --cores 2 --configfile configs/<paper>.yaml [--config profile=paper]


include: "workflows/rules/common.smk"
include: "workflows/rules/build.smk"
include: "workflows/rules/measure.smk"
include: "workflows/rules/aggregate.smk"
include: "workflows/rules/report.smk"


# Every file the workflow keeps, not the reports alone: Snakemake remakes a missing file only
# where a target names it, and took a report whose HTML existed as up to date though an
# experiment's results folder or a run's folder had been deleted, measuring nothing again.
rule all:
    input:
        reports=get_report_targets(),
        results=get_experiment_results,
        traces=get_experiment_traces,
        runs=get_experiment_runs,
    default_target: True


# The spec's results without its report, for a run whose report another spec of the same paper
# renders (make reproduce: liu95cool.yaml's Linux setup, then liu95cool-tahoe.yaml renders both).
rule all_results:
    input:
        results=get_experiment_results,
        traces=get_experiment_traces,
        runs=get_experiment_runs,


# The report and its scorecard without the index, so that several papers' reports can render
# side by side (make reproduce), the index once after them.
rule paper_report:
    input:
        reports=get_paper_report_targets(),
