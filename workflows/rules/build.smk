# Builds the tools when they are missing. `make build` rebuilds them after a change; finished
# trials are not rerun for that (the measure rules take the binaries as ancient), and their
# provenance names the tool versions that measured them.
rule build_tools:
    output:
        pingx=get_tools_path("bin/pingx"),
        echod=get_tools_path("bin/echod"),
        ttcp=get_tools_path("bin/ttcp"),
        netsim=get_tools_path("bin/netsim"),
        mftp=get_tools_path("bin/mftp"),
        mftpd=get_tools_path("bin/mftpd"),
        ipcbench=get_tools_path("bin/ipcbench"),
        linkemu=get_tools_path("bin/linkemu"),
    # On a cluster (profiles/slurm) only the measurements become jobs; this, the aggregating
    # and the report rules run where snakemake runs.
    localrule: True
    log:
        "logs/build_tools.log",
    run:
        run_logged(["make", "-C", get_tools_path(""), "all"], log[0])
