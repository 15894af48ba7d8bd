"""Run one trial of one experiment: build the topology, check the link, run the tool in every
mode, and write the trial's records and provenance.

    python -m netrepro.measure --spec configs/liu95cool.yaml --experiment lan-large --trial 1 \
        --out results/liu95cool/lan-large/runs/trial-1 [--profile quick] [--backend auto]

Writes <out>/records.jsonl (one line per echoed message) and then <out>/provenance.json, each
atomically; a trial killed half way leaves no provenance, so the workflow reruns it.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
from pathlib import Path
from typing import Any

from netrepro import hostmodel, limits, phase, stacks
from netrepro.announce import wait_announced
from netrepro.atomic import write_text
from netrepro.cleanup import Stopped, finish, kill_group, remove_temp_files, signals_raise
from netrepro.deadlines import pingx_limit_s, pingx_sim_limit_s
from netrepro.errors import RunError
from netrepro.safepath import refuse_links
from netrepro.seeds import derive_seed, link_seed
from netrepro.spec import Experiment, Spec, SpecError, load_spec, settings_hash
from netrepro.sweep import at_point, column_values
from netrepro.provenance import (REPO, binary_digest, binary_digests, executor, machine, now_iso, read_sysctls,
                                 tool_version)

TOOLS_BIN = REPO / "tools" / "bin"
ECHO_PORT = 7007
# udp-cooled messages go to a second echod that paces its echo by the same gap, so the round
# trip is cooled both ways, as when both hosts ran the paper's cooled sender.
COOLED_ECHO_PORT = 7008
# CPU time of one busy-loop iteration in netsim for a host model without spin_ps: its
# --spin-ps default (tools/netsim/args.c), an ASSUMPTION of one cycle of a 25 MHz CPU.
NETSIM_SPIN_PS = 40000
# How long echod may take to print its summary once told to stop.
ECHOD_STOP_S = 30.0
REQUIRED_COMMANDS = ("ip", "tc", "ethtool", "ping", "iperf3", "ss", "mnexec")


def emulation_binaries(backend: str, tools: list[str]) -> list[Path]:
    """The binaries an emulated run used: its tools, and linkemu where it emulated the link, so
    that the provenance tells runs of one build from another's."""
    return [TOOLS_BIN / name for name in [*tools, *(["linkemu"] if backend == "linkemu" else [])]]


def preflight(experiment: Experiment) -> None:
    tools = ("netsim",) if experiment.backend == "sim" else (experiment.tool,)
    if experiment.tool == "pingx" and experiment.backend != "sim":
        tools += ("echod",)
    for tool in tools:
        if not (TOOLS_BIN / tool).is_file():
            raise RunError(f"{TOOLS_BIN / tool} is missing; build the tools with `make build`")
    if experiment.backend == "sim":
        return
    if os.geteuid() != 0:
        raise RunError("emulated runs build network namespaces and need root: run as root (sudo), "
                       "or run a tahoe-stack spec with --config backend=sim")
    missing = [name for name in REQUIRED_COMMANDS if shutil.which(name) is None]
    if missing:
        raise RunError(f"missing commands: {', '.join(missing)}; run `make setup` (envs/setup.sh)")


def mode_order(experiment: Experiment, trial: int) -> list[str]:
    """Modes in a per-trial shuffled order, so no mode always runs first on a fresh link."""
    modes = list(experiment.modes)
    random.Random(f"{experiment.seed}:{experiment.draws_id}:{trial}").shuffle(modes)
    return modes


def pingx_argv(experiment: Experiment, mode: str, trial: int, stack_args: tuple[str, ...] = ()) -> list[str]:
    sizes = ",".join(f"{size}B" for size in sorted({m.size for m in experiment.messages}))
    port = COOLED_ECHO_PORT if mode == "udp-cooled" else ECHO_PORT
    argv = [
        str(TOOLS_BIN / "pingx"), "--host", "10.0.0.2", "--port", str(port), "--mode", mode,
        "--sizes", sizes, "--count", limits.ECHOES.arg(experiment.echoes),
        "--interval", limits.INTERVAL_NS.arg(experiment.interval_s * 1e9),
        "--datagram", f"{experiment.datagram}B",
        "--timeout", limits.TIMEOUT_NS.arg(experiment.timeout_s * 1e9),
        "--order", "shuffled", "--seed", str(experiment.seed * 1000 + trial),
    ]
    if mode == "udp-cooled":
        if experiment.cooling_gap_s is not None:
            argv += ["--cool-gap", limits.COOL_GAP_NS.arg(experiment.cooling_gap_s * 1e9)]
        else:
            argv += ["--cool-iterations", limits.COOL_ITERATIONS.arg(experiment.cooling_iterations)]
    if experiment.print_each:
        argv.append("--print-each")
    if experiment.pacing != "grid":
        argv += ["--pacing", experiment.pacing]
    argv += buffer_args(experiment)
    return argv + list(stack_args)


def buffer_args(experiment: Experiment) -> list[str]:
    argv = []
    buffers = limits.socket_buffer(experiment.stack)
    if experiment.send_buffer:
        argv += ["--sndbuf", buffers.arg(experiment.send_buffer)]
    if experiment.receive_buffer:
        argv += ["--rcvbuf", buffers.arg(experiment.receive_buffer)]
    return argv


def parse_records(output: str, where: str) -> list[dict[str, Any]]:
    records = []
    for number, line in enumerate(output.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise RunError(f"{where} printed a line that is not JSON (line {number}: {line[:120]!r})") from exc
    return records


def check_pingx(records: list[dict[str, Any]], mode: str, status: int, errors: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """pingx's meta record and message records; raises when it failed."""
    failures = [r for r in records if r.get("record") == "error"]
    if status != 0 or failures:
        detail = failures[0] if failures else errors.strip()[-500:]
        raise RunError(f"pingx --mode {mode} failed (exit {status}): {detail}")
    meta = next((r for r in records if r.get("record") == "meta"), {})
    return meta, [r for r in records if r.get("record") == "message"]


def run_mode(net: Any, experiment: Experiment, mode: str, trial: int,
             stack_args: tuple[str, ...]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Runs pingx in one mode, its Tahoe ticks at the phase the mode's seed gives netsim
    against echod's (netrepro.phase); returns its meta record and its message records."""
    phase_a = phase.host_a_args(experiment.stack, mode_seed(experiment, trial, mode))
    argv = pingx_argv(experiment, mode, trial, (*stack_args, *phase_a))
    process = net.h1.popen(argv, stdout=-1, stderr=-1, text=True)
    output, errors = finish(process, pingx_limit_s(experiment), f"pingx --mode {mode}")
    return check_pingx(parse_records(output, "pingx"), mode, process.returncode, errors)


def message_rows(experiment: Experiment, mode: str, trial: int, run_id: str,
                 records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = {m.size: m.name for m in experiment.messages}
    rows = []
    for record in records:
        rtt_ns = record.get("rtt_ns")
        gap_ns = record.get("cool_gap_ns")
        rows.append({
            "run_id": run_id,
            "trial": trial,
            "mode": mode,
            "message_bytes": record["size"],
            "message_name": names.get(record["size"], ""),
            "echo": record["seq"] + 1,
            "rtt_ms": rtt_ns / 1e6 if rtt_ns is not None else None,
            "datagrams": record.get("datagrams", 0),
            "datagrams_returned": record.get("datagrams_returned", 0),
            "complete": bool(record["complete"]),
            "cool_gap_us": gap_ns / 1e3 if gap_ns is not None else None,
            "t_start_ns": record.get("t_start_ns"),
        })
    return rows


def host_spin_ps(host_model: Path | None) -> int:
    """One busy-loop iteration on host_model as netsim charges it: the model's spin_ps, else
    netsim's default."""
    if host_model is None:
        return NETSIM_SPIN_PS
    return int(hostmodel.values(host_model).get("spin_ps", NETSIM_SPIN_PS))


def echod_argv(experiment: Experiment, cooled: bool) -> list[str]:
    argv = [str(TOOLS_BIN / "echod"), "--proto", "both", *buffer_args(experiment)]
    if not cooled:
        return argv + ["--port", str(ECHO_PORT)]
    if experiment.cooling_gap_s is not None:
        gap_ns = round(experiment.cooling_gap_s * 1e9)
    elif experiment.backend == "sim":
        # The echo host's loop takes as long as pingx's on the same host model in netsim.
        gap_ns = round(experiment.cooling_iterations * host_spin_ps(experiment.host_model) / 1000)
    else:
        raise RunError("udp-cooled by busy-loop iterations has no echo gap in time; give cooling.gap")
    return argv + ["--port", str(COOLED_ECHO_PORT), "--echo-gap", limits.COOL_GAP_NS.arg(gap_ns)]


def start_echods(net: Any, experiment: Experiment, stack_args: tuple[str, ...]) -> dict[str, Any]:
    servers = {"plain": echod_argv(experiment, cooled=False)}
    if "udp-cooled" in experiment.modes:
        servers["cooled"] = echod_argv(experiment, cooled=True)
    processes = {}
    phase_b = phase.host_b_args(experiment.stack)
    try:
        for name, argv in servers.items():
            processes[name] = net.h2.popen([*argv, *stack_args, *phase_b], stdout=-1, stderr=-1, text=True)
            wait_announced(processes[name], "echod: serving", f"echod ({name})")
    except BaseException:
        for process in processes.values():
            kill_group(process)
        raise
    return processes


def stop_echod(process: Any) -> dict[str, Any]:
    if process.poll() is None:
        process.terminate()
    output, errors = finish(process, ECHOD_STOP_S, "echod")
    records = parse_records(output, "echod")
    if not records:
        raise RunError(f"echod ended without its summary (exit {process.returncode}): {errors.strip()[-300:]}")
    return records[-1]


def run_trial(spec: Spec, experiment: Experiment, trial: int, out: Path) -> None:
    preflight(experiment)
    if experiment.backend == "sim":
        run_trial_sim(spec, experiment, trial, out)
        return
    from netrepro.backends import emulation_backend
    from netrepro.linkcheck import check_link
    from netrepro.topology import H1_IP, H2_IP, LinkNetwork

    run_id = f"{spec.paper}/{experiment.id}/trial-{trial}"
    started = now_iso()
    seed_of_link = link_seed(experiment.seed, experiment.draws_id, trial)
    backend = emulation_backend(experiment.backend, experiment.stack, seed_of_link)
    rows: list[dict[str, Any]] = []
    metas: dict[str, Any] = {}
    order = mode_order(experiment, trial)
    with LinkNetwork(experiment.link, backend, out / "logs") as net:
        link_check = check_link(net, experiment.link, H2_IP)
        tool_args = stacks.setup_hosts(
            [(net.h1, "h1-eth0", f"{H1_IP}/24"), (net.h2, "h2-eth0", f"{H2_IP}/24")], experiment.stack,
            experiment.host_model, experiment.link.mtu, buffers=(experiment.send_buffer or stacks.RETRO_DEFAULT_BUFFER,
                                                                 experiment.receive_buffer or stacks.RETRO_DEFAULT_BUFFER),
            frame_times=net.frame_times)
        sysctls = read_sysctls(net.h1)
        echods = start_echods(net, experiment, tuple(tool_args["h2"]))
        try:
            for mode in order:
                metas[mode], records = run_mode(net, experiment, mode, trial, tuple(tool_args["h1"]))
                rows += message_rows(experiment, mode, trial, run_id, records)
        except BaseException:
            # Their summaries no longer matter; ending them must not hide why the run failed.
            for process in echods.values():
                kill_group(process)
            raise
        echod_summary = {name: stop_echod(process) for name, process in echods.items()}
    write_text(out / "records.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    provenance = {
        **base_provenance(spec, experiment, run_id, started),
        "sysctls": sysctls,
        "offloads": net.at_stop["offloads"],
        "cpu_idle": net.at_stop["cpu_idle"],
        "link": {**link_summary(experiment), "backend_settings": net.at_stop["backend_settings"],
                 "seed": seed_of_link},
        "link_check": link_check.as_dict(),
        "link_counters": net.counters,
        "backend": backend.name,
        "tools": {
            **binary_digests(emulation_binaries(backend.name, ["pingx", "echod"])),
            "iperf3": tool_version(["iperf3", "--version"]),
            "python": sys.version.split()[0],
        },
        "tool_settings": metas,
        "tool_args": tool_args,
        "echod_summary": echod_summary,
        "run_order": [f"{row['mode']}:{row['message_bytes']}:{row['echo']}"
                      for row in sorted(rows, key=lambda r: r["t_start_ns"] or 0)],
        "mode_order": order,
        "boot_b_ns": {mode: phase.boot_b_ns(mode_seed(experiment, trial, mode)) for mode in order},
        "finished_at": now_iso(),
    }
    write_text(out / "provenance.json", json.dumps(provenance, indent=1) + "\n")


def mode_seed(experiment: Experiment, trial: int, mode: str) -> int:
    return derive_seed(experiment.seed, experiment.draws_id, trial, mode)


# Where a mode's netsim run lost UDP datagrams, by place (the Tahoe stacks' and the link's own
# counters): host a runs pingx, host b echod. The same totals stand on each of the run's rows.
PINGX_DROPS = {
    "run_drops_send_queue": ("a_ips_odropped", "b_ips_odropped"),
    "run_drops_link": ("forward_drop_queue", "forward_drop_loss", "forward_drop_cell_loss",
                       "forward_drop_bit_error", "forward_drop_oversize", "reverse_drop_queue",
                       "reverse_drop_loss", "reverse_drop_cell_loss", "reverse_drop_bit_error",
                       "reverse_drop_oversize"),
    "run_drops_echo_ipq": ("b_ips_qdrop", "b_ips_fragdropped", "b_ips_fragtimeout"),
    "run_drops_echo_socket": ("b_udps_fullsock",),
    "run_drops_client_ipq": ("a_ips_qdrop", "a_ips_fragdropped", "a_ips_fragtimeout"),
    "run_drops_client_socket": ("a_udps_fullsock",),
}


def pingx_drops(sim: dict[str, Any]) -> dict[str, int | None]:
    """The run's drops by place; None for a place whose counters the record lacks."""
    return {column: sum(int(sim[k]) for k in keys) if all(k in sim for k in keys) else None
            for column, keys in PINGX_DROPS.items()}


def run_trial_sim(spec: Spec, experiment: Experiment, trial: int, out: Path) -> None:
    """A pingx trial in virtual time: one netsim run per mode, each with its own echod."""
    from netrepro.sim import SimError, pingx_command, run_netsim

    run_id = f"{spec.paper}/{experiment.id}/trial-{trial}"
    started = now_iso()
    rows: list[dict[str, Any]] = []
    modes: dict[str, Any] = {}
    order = mode_order(experiment, trial)
    for mode in order:
        seed = mode_seed(experiment, trial, mode)
        command = pingx_command(experiment.link, experiment.host_model, seed,
                                pingx_argv(experiment, mode, trial)[1:],
                                echod_argv(experiment, cooled=mode == "udp-cooled")[1:],
                                boot_b=phase.boot_b_ns(seed))
        try:
            result = run_netsim(command, pingx_sim_limit_s(experiment))
        except SimError as exc:
            raise RunError(f"pingx --mode {mode} in virtual time: {exc}") from exc
        meta, records = check_pingx(result.records, mode, 0, "")
        drops = pingx_drops(result.sim)
        rows += [{**row, **drops} for row in message_rows(experiment, mode, trial, run_id, records)]
        summary = next((r for r in result.records if r.get("record") == "summary"), {})
        modes[mode] = {"seed": seed, "boot_b_ns": phase.boot_b_ns(seed), "command": command,
                       "tool_settings": meta, "echod_summary": summary, "sim": result.sim}
    write_text(out / "records.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    netsim = TOOLS_BIN / "netsim"
    provenance = {
        **base_provenance(spec, experiment, run_id, started),
        "backend": "sim",
        "modes": modes,
        "tools": {"netsim": binary_digest(netsim), "python": sys.version.split()[0]},
        "run_order": [f"{row['mode']}:{row['message_bytes']}:{row['echo']}" for row in rows],
        "mode_order": order,
        "finished_at": now_iso(),
    }
    write_text(out / "provenance.json", json.dumps(provenance, indent=1) + "\n")


def base_provenance(spec: Spec, experiment: Experiment, run_id: str, started: str) -> dict[str, Any]:
    """What every run records, whatever its tool and backend."""
    host_model = experiment.host_model
    return {
        "run_id": run_id,
        "paper": spec.paper,
        "experiment": experiment.id,
        **machine(),
        **executor(),
        "spec_file": str(spec.path),
        "spec_hash": spec.sha256,
        "settings_hash": settings_hash(experiment),
        "profile": spec.profile,
        "stack": experiment.stack,
        "backend_asked": experiment.backend,
        "backend_note": experiment.backend_note,
        "host": experiment.host,
        "host_model": hostmodel.text(host_model) if host_model else None,
        "link": link_summary(experiment),
        "seed": experiment.seed,
        "started_at": started,
        "assumptions": spec.assumptions,
        "sweep": column_values(experiment.point),
    }


def run_transfer_part(spec: Spec, experiment: Experiment, trial: int, send_buffer: int, out: Path) -> None:
    """One send buffer of a ttcp experiment, with every receive buffer; writes records.jsonl (one
    row per transfer), segments.jsonl when the stack logged them, then provenance.json."""
    assert experiment.ttcp is not None
    if send_buffer not in experiment.ttcp.send_buffers:
        raise RunError(f"send buffer {send_buffer} is not one of the experiment's: "
                       f"{', '.join(map(str, experiment.ttcp.send_buffers))}")
    preflight(experiment)
    run_id = f"{spec.paper}/{experiment.id}/trial-{trial}/send-{send_buffer}"
    started = now_iso()
    if experiment.backend == "sim":
        from netrepro import transfer_sim as runner
    else:
        from netrepro import transfer_net as runner
    part = runner.run_part(experiment, trial, send_buffer, run_id, out)
    pairs = part.pop("pairs")
    rows = [row for pair in pairs for row in pair["rows"]]
    segments = [segment for pair in pairs for segment in pair.get("segments", [])]
    write_text(out / "records.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    if segments:
        write_text(out / "segments.jsonl", "".join(json.dumps(s) + "\n" for s in segments))
    binaries = [TOOLS_BIN / "netsim"] if experiment.backend == "sim" else emulation_binaries(part["backend"], ["ttcp"])
    provenance = {
        **base_provenance(spec, experiment, run_id, started),
        **part,
        "send_buffer": send_buffer,
        "pairs": [{key: value for key, value in pair.items() if key not in ("rows", "segments")}
                  for pair in pairs],
        "tools": {**binary_digests(binaries), "python": sys.version.split()[0]},
        "finished_at": now_iso(),
    }
    write_text(out / "provenance.json", json.dumps(provenance, indent=1) + "\n")


def link_summary(experiment: Experiment) -> dict[str, Any]:
    link = experiment.link
    return {
        "name": link.name, "framing": link.framing, "mtu": link.mtu,
        "rate_bps": link.forward.rate_bps, "delay_s": link.forward.delay_s,
        "queue_packets": link.forward.queue_packets, "queue_bytes": link.forward.queue_bytes,
        "loss_pct": link.forward.loss_pct, "reverse_rate_bps": link.reverse.rate_bps,
    }


def point_of(experiment: Experiment, point: str | int) -> Experiment:
    try:
        return at_point(experiment, int(point))
    except ValueError as exc:
        raise RunError(f"--point {point}: {exc}") from exc


def run_part(spec: Spec, experiment: Experiment, trial: int, out: Path, send_buffer: int | None) -> None:
    """One trial (or one sweep point of it) of any tool."""
    if experiment.tool == "ttcp":
        if send_buffer is None:
            raise RunError(f"experiment {experiment.id} runs ttcp: give --send-buffer")
        run_transfer_part(spec, experiment, trial, send_buffer, out)
    elif experiment.tool == "mftp":
        from netrepro import mftp_plan
        mftp_plan.run_trial(spec, experiment, trial, out)
    elif experiment.tool == "ipcbench":
        from netrepro import ipc_plan
        ipc_plan.run_trial(spec, experiment, trial, out)
    else:
        run_trial(spec, experiment, trial, out)


def run_points(spec: Spec, experiment: Experiment, trial: int, out: Path, send_buffer: int | None) -> None:
    """Every sweep point of a trial in one process (a job each would cost a workflow job's start
    per point), each into out/point-K; a point already finished is kept, so a run killed half
    way resumes. Writes out/points.json, listing them, last."""
    assert experiment.sweep is not None
    done = []
    for index in range(1, len(experiment.sweep.points()) + 1):
        part = out / f"point-{index}"
        here = point_of(experiment, index)
        finished = part / "provenance.json"
        if not finished.is_file() or json.loads(finished.read_text()).get("settings_hash") != settings_hash(here):
            run_part(spec, here, trial, part, send_buffer)
        done.append(part.name)
    write_text(out / "points.json", json.dumps({"points": done}) + "\n")


def main(argv: list[str] | None = None) -> int:
    """run_job, with a stop signal (SIGTERM, SIGHUP, SIGINT) ending the job as an error does:
    what it started is ended, nothing half written is kept; exits 128 + the signal's number."""
    with signals_raise():
        try:
            return run_job(argv)
        except Stopped as stop:
            print(f"netrepro: {stop}; what the run started was ended", file=sys.stderr)
            return 128 + stop.signum


def run_job(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True, type=Path, help="the paper spec (configs/<paper>.yaml)")
    parser.add_argument("--experiment", required=True, help="experiment id in the spec")
    parser.add_argument("--trial", required=True, type=int, help="trial number, from 1")
    parser.add_argument("--out", required=True, type=Path, help="folder for records.jsonl and provenance.json")
    parser.add_argument("--profile", default="quick", help="quick (default) or paper")
    parser.add_argument("--backend", default=None, help="override the spec's link backend")
    parser.add_argument("--send-buffer", type=int, default=None,
                        help="ttcp experiments: the send buffer (octets) whose pairs to measure")
    parser.add_argument("--point", default=None,
                        help="experiments with a sweep: the point (from 1) to measure, or `all`: each "
                             "into <out>/point-K (those not yet finished), then <out>/points.json")
    args = parser.parse_args(argv)
    overrides = {"profile": args.profile, **({"backend": args.backend} if args.backend else {})}
    try:
        spec = load_spec(args.spec, overrides)
        if args.experiment not in spec.experiments:
            raise RunError(f"{args.spec} has no experiment {args.experiment!r}; it has {', '.join(spec.experiments)}")
        experiment = spec.experiments[args.experiment]
        refuse_links(args.out / "logs")
        remove_temp_files(args.out)
        if not 1 <= args.trial <= experiment.trials:
            raise RunError(f"trial {args.trial} is outside 1..{experiment.trials} of profile {spec.profile}")
        if (args.point is None) != (experiment.sweep is None):
            raise RunError(f"experiment {experiment.id}: give --point exactly when it has a sweep")
        if args.point == "all":
            run_points(spec, experiment, args.trial, args.out, args.send_buffer)
        else:
            if args.point is not None:
                experiment = point_of(experiment, args.point)
            run_part(spec, experiment, args.trial, args.out, args.send_buffer)
    except (SpecError, RunError) as exc:
        print(f"netrepro: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"netrepro: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a disk gone full or read-only where no writer caught it
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"netrepro: {where}{exc.strerror or exc}; free some space or make the folder writable, "
              "and run again", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
