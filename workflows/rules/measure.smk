rule measure_trial:
    input:
        pingx=ancient(rules.build_tools.output.pingx),
        echod=ancient(rules.build_tools.output.echod),
    output:
        records="results/{paper}/{experiment}/runs/{profile}/trial-{trial}/records.jsonl",
        provenance="results/{paper}/{experiment}/runs/{profile}/trial-{trial}/provenance.json",
    params:
        argv=get_measure_argv,
        experiment_hash=get_experiment_hash,
    log:
        "logs/{paper}/{experiment}/{profile}/trial-{trial}.log",
    resources:
        netlab=1,
    run:
        run_logged(params.argv, log[0])
