# netrepro: from a paper spec to its HTML report.
#   snakemake --cores 2 --configfile configs/<paper>.yaml [--config profile=paper]


include: "workflows/rules/common.smk"
include: "workflows/rules/build.smk"
include: "workflows/rules/measure.smk"
include: "workflows/rules/aggregate.smk"
include: "workflows/rules/report.smk"


rule all:
    input:
        get_report_targets(),
    default_target: True


# The spec's results without its report, for a run whose report another spec of the same paper
# renders (make reproduce: liu95cool.yaml's Linux setup, then liu95cool-tahoe.yaml renders both).
rule all_results:
    input:
        results=get_experiment_results,
        traces=get_experiment_traces,
