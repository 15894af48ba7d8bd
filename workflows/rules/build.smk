rule build_tools:
    input:
        makefile=get_tools_path("Makefile"),
        sources=get_tool_sources(),
    output:
        pingx=get_tools_path("bin/pingx"),
        echod=get_tools_path("bin/echod"),
    log:
        "logs/build_tools.log",
    run:
        run_logged(["make", "-C", get_tools_path(""), "all"], log[0])
