# One run of an experiment, whatever its tool: a trial (trial-N), a ttcp trial's send buffer
# (trial-N/send-S) or a ttcp sweep point's (trial-N/point-K/send-S); for another tool's sweep,
# every point of a trial (trial-N, measure.py --point all). Its output names the settings the run
# is measured under (netrepro.runsettings), so a run of other settings is measured again; its
# inputs are the programs the experiment's tool runs on the backend.
rule measure_run:
    input:
        unpack(get_measure_tools),
        unpack(get_prepared),
    output:
        settings="results/{paper}/{experiment}/runs/{profile}/{backend}/{run}/settings-{settings}.json",
    params:
        argv=get_measure_argv,
    log:
        "logs/{paper}/{experiment}/{profile}/{backend}/{run}/settings-{settings}.log",
    resources:
        netlab=get_netlab,
    run:
        run_logged(params.argv, log[0])


# What every trial of an experiment shares and its tool makes once, before them (netrepro.tools:
# prepare; pingx's tuned cooling loop): named by the settings it was made under, as a run's
# settings file is (netrepro.runsettings.prepared_file), so other settings make it again and
# the file of the old ones goes.
rule prepare_experiment:
    input:
        unpack(get_measure_tools),
    output:
        prepared="results/{paper}/{experiment}/runs/{profile}/{backend}/prepared-{settings}.json",
    params:
        argv=get_prepare_argv,
    log:
        "logs/{paper}/{experiment}/{profile}/{backend}/prepared-{settings}.log",
    resources:
        netlab=get_netlab,
    run:
        run_logged(params.argv, log[0])
