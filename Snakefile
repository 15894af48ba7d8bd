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
