if get_has_own_report():

    rule render_report:
        input:
            results=get_experiment_results,
            traces=get_experiment_traces,
            report=get_report_source(),
            renderer=get_report_script("render.R"),
            helpers=get_report_helpers(),
            reference=get_report_reference(),
        output:
            html="reports/html/{paper}.html",
            scorecard="reports/html/{paper}-scorecard.csv",
        localrule: True
        log:
            "logs/{paper}/render_report.log",
        run:
            run_logged(get_render_argv(), log[0])

else:

    # A study of one's own: the generic report, with no scorecard.
    rule render_study:
        input:
            results=get_experiment_results,
            traces=get_experiment_traces,
            report=get_report_source(),
            renderer=get_report_script("render.R"),
            helpers=get_report_helpers(),
            spec=str(get_spec_path()),
        output:
            html="reports/html/{paper}.html",
        localrule: True
        log:
            "logs/{paper}/render_study.log",
        run:
            run_logged(get_render_argv(), log[0])


rule render_index:
    input:
        reports=get_index_inputs(),
    output:
        index="reports/html/index.html",
    localrule: True
    log:
        "logs/render_index.log",
    run:
        run_logged(["Rscript", get_report_script("index.R"), str(Path("reports/html").resolve())], log[0])
