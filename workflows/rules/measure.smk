# One trial of a pingx experiment (emulated, or in virtual time with netsim).
rule measure_trial:
    input:
        pingx=ancient(rules.build_tools.output.pingx),
        echod=ancient(rules.build_tools.output.echod),
        netsim=ancient(rules.build_tools.output.netsim),
        settings=get_settings,
    output:
        records="results/{paper}/{experiment}/runs/{profile}/{backend}/trial-{trial}/records.jsonl",
        provenance="results/{paper}/{experiment}/runs/{profile}/{backend}/trial-{trial}/provenance.json",
    params:
        argv=get_measure_argv,
        experiment_hash=get_experiment_hash,
    log:
        "logs/{paper}/{experiment}/{profile}/{backend}/trial-{trial}.log",
    resources:
        netlab=get_netlab,
    run:
        run_logged(params.argv, log[0])


# One send buffer of a ttcp experiment's trial, with every receive buffer.
rule measure_transfers:
    input:
        ttcp=ancient(rules.build_tools.output.ttcp),
        netsim=ancient(rules.build_tools.output.netsim),
        settings=get_settings,
    output:
        records="results/{paper}/{experiment}/runs/{profile}/{backend}/trial-{trial}/send-{send}/records.jsonl",
        provenance="results/{paper}/{experiment}/runs/{profile}/{backend}/trial-{trial}/send-{send}/provenance.json",
    params:
        argv=get_measure_argv,
        experiment_hash=get_experiment_hash,
    log:
        "logs/{paper}/{experiment}/{profile}/{backend}/trial-{trial}/send-{send}.log",
    resources:
        netlab=get_netlab,
    run:
        run_logged(params.argv, log[0])


# Every sweep point of a trial of a pingx or mftp experiment, in one job (measure.py --point all).
rule measure_sweep:
    input:
        pingx=ancient(rules.build_tools.output.pingx),
        echod=ancient(rules.build_tools.output.echod),
        mftp=ancient(rules.build_tools.output.mftp),
        mftpd=ancient(rules.build_tools.output.mftpd),
        netsim=ancient(rules.build_tools.output.netsim),
        settings=get_settings,
    output:
        points="results/{paper}/{experiment}/runs/{profile}/{backend}/trial-{trial}/points.json",
    params:
        argv=get_measure_argv,
        experiment_hash=get_experiment_hash,
    log:
        "logs/{paper}/{experiment}/{profile}/{backend}/trial-{trial}/points.log",
    resources:
        netlab=get_netlab,
    run:
        run_logged(params.argv, log[0])


# One send buffer of a sweep point of a ttcp experiment's trial, with every receive buffer.
rule measure_point_transfers:
    input:
        ttcp=ancient(rules.build_tools.output.ttcp),
        netsim=ancient(rules.build_tools.output.netsim),
        settings=get_settings,
    output:
        records="results/{paper}/{experiment}/runs/{profile}/{backend}/trial-{trial}/point-{point}/send-{send}/records.jsonl",
        provenance="results/{paper}/{experiment}/runs/{profile}/{backend}/trial-{trial}/point-{point}/send-{send}/provenance.json",
    params:
        argv=get_measure_argv,
        experiment_hash=get_experiment_hash,
    log:
        "logs/{paper}/{experiment}/{profile}/{backend}/trial-{trial}/point-{point}/send-{send}.log",
    resources:
        netlab=get_netlab,
    run:
        run_logged(params.argv, log[0])
