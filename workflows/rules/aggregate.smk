rule aggregate_results:
    input:
        provenance=get_trial_provenance,
        code=get_aggregate_code(),
    output:
        results="results/{paper}/{experiment}/results.csv",
        provenance="results/{paper}/{experiment}/provenance.jsonl",
        digest="results/{paper}/{experiment}/digest.json",
    params:
        argv=get_aggregate_argv,
        words=get_experiment_words,
    localrule: True
    log:
        "logs/{paper}/{experiment}/aggregate_results.log",
    run:
        run_logged(params.argv, log[0])


rule extract_trace:
    input:
        provenance=get_trial_provenance,
        code=get_trace_code(),
    output:
        trace="results/{paper}/{experiment}/trace.csv",
    params:
        argv=get_trace_argv,
    localrule: True
    log:
        "logs/{paper}/{experiment}/extract_trace.log",
    run:
        run_logged(params.argv, log[0])
