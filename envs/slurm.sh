#!/usr/bin/env bash
# A one-node Slurm cluster on this machine (Debian's slurm-wlm: munged, slurmctld, slurmd), to
# run the workflow through `--profile profiles/slurm` as on a real cluster (docs/slurm.md).
# The node offers the `netlab` GRES (one emulated trial at a time) and the `netlab` feature.
# Its slurm.conf, gres.conf, state, logs and pid files live in $NETREPRO_SLURM_DIR (default
# <repo>/.slurm); the only file outside it is /etc/slurm/slurm.conf, a link to that slurm.conf
# so that sbatch, squeue and scontrol find the cluster (an existing real one is left alone).
# munged runs with Debian's own key and socket (/etc/munge/munge.key, /run/munge).
# Needs root. Safe to run again: start starts what is not running, stop stops what it started.
#   usage: envs/slurm.sh start|status|stop   (stop also removes the link)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${NETREPRO_SLURM_DIR:-$repo/.slurm}"
conf="$dir/slurm.conf"
etc_conf=/etc/slurm/slurm.conf
node="$(hostname -s)"
export SLURM_CONF="$conf"

say() { printf 'slurm: %s\n' "$*"; }
die() { say "$*" >&2; exit 1; }

usage() {
    cat <<EOF
usage: envs/slurm.sh start|status|stop
  start   write the configuration to $dir, start munged, slurmctld and slurmd, wait until
          node $node is idle (at most 60 s)
  status  show the daemons and the node; exit 1 unless the cluster takes jobs
  stop    stop the daemons this script started
environment: NETREPRO_SLURM_DIR (default <repo>/.slurm)
EOF
}

# The pid in a pid file, if that process still runs.
running_pid() {
    local pid
    [[ -f "$1" ]] || return 1
    pid="$(cat "$1")"
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && printf '%s\n' "$pid"
}

write_config() {
    local cpus memory
    cpus="$(nproc)"
    # Leave 1 GB to the machine; jobs ask for memory (--mem) and must fit on the node.
    memory="$(awk '/^MemTotal:/ { print int($2 / 1024) - 1024 }' /proc/meminfo)"
    mkdir -p "$dir/state/ctld" "$dir/state/d" "$dir/log" "$dir/run"
    cat > "$conf.new" <<EOF
# Written by envs/slurm.sh: a one-node cluster on $node. Do not edit; edit envs/slurm.sh.
ClusterName=netrepro
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state/ctld
SlurmdSpoolDir=$dir/state/d
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No cgroups: the machine may be a container.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
# Jobs share the node by CPU; an emulated trial also holds the node's one netlab.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
GresTypes=netlab
ReturnToService=2
# Finished jobs stay visible to squeue for 5 minutes: Snakemake reads their end state there.
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory Gres=netlab:1 Feature=netlab State=UNKNOWN
PartitionName=main Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
    mv "$conf.new" "$conf"
    printf '# Written by envs/slurm.sh.\nNodeName=%s Name=netlab Count=1\n' "$node" > "$dir/gres.conf"
    mkdir -p /etc/slurm
    if [[ -L "$etc_conf" || ! -e "$etc_conf" ]]; then
        ln -sfn "$conf" "$etc_conf"
    else
        say "$etc_conf is a real configuration; left alone (use SLURM_CONF=$conf)"
    fi
}

munge_works() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

start_munge() {
    munge_works && return
    [[ -f /etc/munge/munge.key ]] || mungekey --create --keyfile=/etc/munge/munge.key
    mkdir -p /run/munge
    chown munge:munge /run/munge /etc/munge/munge.key
    runuser -u munge -- /usr/sbin/munged
    echo started > "$dir/run/munged.ours"
}

node_state() { sinfo -h -n "$node" -o '%T' 2>/dev/null | head -1; }

start() {
    [[ $EUID -eq 0 ]] || die "needs root (slurmd runs jobs as their user)"
    for program in munged slurmctld slurmd sbatch; do
        command -v "$program" >/dev/null || die "$program is missing: run envs/setup.sh (envs/debian-packages.txt lists slurm-wlm and munge)"
    done
    write_config
    start_munge || die "munged did not start: see /var/log/munge/munged.log"
    running_pid "$dir/run/slurmctld.pid" >/dev/null || slurmctld \
        || die "slurmctld did not start: see $dir/log/slurmctld.log"
    running_pid "$dir/run/slurmd.pid" >/dev/null || slurmd -N "$node" \
        || die "slurmd did not start: see $dir/log/slurmd.log"
    local state="" waited
    for waited in $(seq 60); do
        state="$(node_state)"
        case "$state" in
            idle|mixed|allocated) say "node $node is $state (cluster up, config $conf)"; return ;;
            down*|drain*) scontrol update NodeName="$node" State=RESUME 2>/dev/null || true ;;
        esac
        sleep 1
    done
    die "node $node is not idle after ${waited} s (state: ${state:-unknown}); see $dir/log/"
}

status() {
    local ok=0 name
    for name in slurmctld slurmd; do
        if pid="$(running_pid "$dir/run/$name.pid")"; then say "$name runs (pid $pid)"; else say "$name is not running"; ok=1; fi
    done
    if munge_works; then say "munge works"; else say "munge does not work"; ok=1; fi
    if ((ok == 0)); then
        scontrol ping || ok=1
        sinfo -N -o '%N %P %T %c %m %G %f'
        [[ "$(node_state)" =~ ^(idle|mixed|allocated)$ ]] || ok=1
    fi
    return "$ok"
}

stop_daemon() {
    local pid
    pid="$(running_pid "$1")" || return 0
    kill "$pid"
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
    die "$2 (pid $pid) did not stop"
}

stop() {
    stop_daemon "$dir/run/slurmd.pid" slurmd
    stop_daemon "$dir/run/slurmctld.pid" slurmctld
    if [[ -f "$dir/run/munged.ours" ]]; then
        munged --stop >/dev/null 2>&1 || true
        rm -f "$dir/run/munged.ours"
    fi
    # With the link left, every Slurm client (and Snakemake's Slurm plugin, as each snakemake
    # starts) would spend 9 s retrying the stopped controller.
    if [[ -L "$etc_conf" && "$(readlink "$etc_conf")" == "$conf" ]]; then
        rm -f "$etc_conf"
    fi
    say "stopped"
}

case "${1:-}" in
    start) start ;;
    status) status ;;
    stop) stop ;;
    -h|--help) usage ;;
    *) usage >&2; exit 2 ;;
esac
