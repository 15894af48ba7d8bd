# Builds the tools when they are missing. `make build` rebuilds them after a change; finished
# trials are not rerun for that (measure_trial takes the binaries as ancient), and their
# provenance names the tool versions that measured them.
rule build_tools:
    output:
        pingx=get_tools_path("bin/pingx"),
        echod=get_tools_path("bin/echod"),
    log:
        "logs/build_tools.log",
    run:
        run_logged(["make", "-C", get_tools_path(""), "all"], log[0])
