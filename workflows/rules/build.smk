# Builds the tools when they are missing. `make build` rebuilds them after a change; finished
# trials are not rerun for that (the measure rules take the binaries as ancient), and their
# provenance names the tool versions that measured them.
rule build_tools:
    output:
        pingx=get_tools_path("bin/pingx"),
        echod=get_tools_path("bin/echod"),
        ttcp=get_tools_path("bin/ttcp"),
        netsim=get_tools_path("bin/netsim"),
    log:
        "logs/build_tools.log",
    run:
        run_logged(["make", "-C", get_tools_path(""), "all"], log[0])
