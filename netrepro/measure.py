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
import time
from pathlib import Path
from typing import Any

from netrepro.atomic import write_text
from netrepro.spec import Experiment, Spec, SpecError, load_spec
from netrepro.provenance import machine, now_iso, read_sysctls, tool_version, REPO

TOOLS_BIN = REPO / "tools" / "bin"
ECHO_PORT = 7007
# udp-cooled messages go to a second echod that paces its echo by the same gap, so the round
# trip is cooled both ways, as when both hosts ran the paper's cooled sender.
COOLED_ECHO_PORT = 7008
REQUIRED_COMMANDS = ("ip", "tc", "ethtool", "ping", "iperf3", "ss", "mnexec")


class RunError(RuntimeError):
    """A run that cannot start or did not finish; the message says what to do."""


def preflight(experiment: Experiment) -> None:
    if os.geteuid() != 0:
        raise RunError("emulated runs build network namespaces and need root: run as root (sudo)")
    missing = [name for name in REQUIRED_COMMANDS if shutil.which(name) is None]
    if missing:
        raise RunError(f"missing commands: {', '.join(missing)}; run `make setup` (envs/setup.sh)")
    for tool in (experiment.tool, "echod"):
        if not (TOOLS_BIN / tool).is_file():
            raise RunError(f"{TOOLS_BIN / tool} is missing; build the tools with `make build`")


def mode_order(experiment: Experiment, trial: int) -> list[str]:
    """Modes in a per-trial shuffled order, so no mode always runs first on a fresh link."""
    modes = list(experiment.modes)
    random.Random(f"{experiment.seed}:{experiment.id}:{trial}").shuffle(modes)
    return modes


def cooling_gap_us(experiment: Experiment) -> int | None:
    return round(experiment.cooling_gap_s * 1e6) if experiment.cooling_gap_s is not None else None


def pingx_argv(experiment: Experiment, mode: str, trial: int) -> list[str]:
    sizes = ",".join(f"{size}B" for size in sorted({m.size for m in experiment.messages}))
    port = COOLED_ECHO_PORT if mode == "udp-cooled" else ECHO_PORT
    argv = [
        str(TOOLS_BIN / "pingx"), "--host", "10.0.0.2", "--port", str(port), "--mode", mode,
        "--sizes", sizes, "--count", str(experiment.echoes),
        "--interval", f"{round(experiment.interval_s * 1e6)}us",
        "--datagram", f"{experiment.datagram}B",
        "--timeout", f"{round(experiment.timeout_s * 1e3)}ms",
        "--order", "shuffled", "--seed", str(experiment.seed * 1000 + trial),
    ]
    if mode == "udp-cooled":
        if experiment.cooling_gap_s is not None:
            argv += ["--cool-gap", f"{cooling_gap_us(experiment)}us"]
        else:
            argv += ["--cool-iterations", str(experiment.cooling_iterations)]
    argv += buffer_args(experiment)
    return argv


def buffer_args(experiment: Experiment) -> list[str]:
    argv = []
    if experiment.send_buffer:
        argv += ["--sndbuf", f"{experiment.send_buffer}B"]
    if experiment.receive_buffer:
        argv += ["--rcvbuf", f"{experiment.receive_buffer}B"]
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


def run_mode(net: Any, experiment: Experiment, mode: str, trial: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Runs pingx in one mode; returns its meta record and its message records."""
    argv = pingx_argv(experiment, mode, trial)
    process = net.h1.popen(argv, stdout=-1, stderr=-1, text=True)
    output, errors = process.communicate()
    records = parse_records(output, "pingx")
    failures = [r for r in records if r.get("record") == "error"]
    if process.returncode != 0 or failures:
        detail = failures[0] if failures else errors.strip()[-500:]
        raise RunError(f"pingx --mode {mode} failed (exit {process.returncode}): {detail}")
    meta = next((r for r in records if r.get("record") == "meta"), {})
    return meta, [r for r in records if r.get("record") == "message"]


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


def echod_argv(experiment: Experiment, cooled: bool) -> list[str]:
    argv = [str(TOOLS_BIN / "echod"), "--proto", "both", *buffer_args(experiment)]
    if not cooled:
        return argv + ["--port", str(ECHO_PORT)]
    if experiment.cooling_gap_s is None:
        raise RunError("udp-cooled by busy-loop iterations has no echo gap in time; give cooling.gap")
    return argv + ["--port", str(COOLED_ECHO_PORT), "--echo-gap", f"{cooling_gap_us(experiment)}us"]


def start_echods(net: Any, experiment: Experiment) -> dict[str, Any]:
    servers = {"plain": echod_argv(experiment, cooled=False)}
    if "udp-cooled" in experiment.modes:
        servers["cooled"] = echod_argv(experiment, cooled=True)
    processes = {name: net.h2.popen(argv, stdout=-1, stderr=-1, text=True) for name, argv in servers.items()}
    for name, process in processes.items():
        wait_listening(net.h2, int(servers[name][servers[name].index("--port") + 1]), process)
    return processes


def wait_listening(host: Any, port: int, process: Any, timeout_s: float = 5.0) -> None:
    """Waits until a server listens on its TCP port, so the first connect is not refused."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            _, errors = process.communicate()
            raise RunError(f"echod on port {port} exited at start (exit {process.returncode}): {errors.strip()[-300:]}")
        probe = host.popen(["ss", "-Hltn", f"sport = :{port}"], stdout=-1, stderr=-2, text=True)
        output, _ = probe.communicate()
        if output.strip():
            return
        time.sleep(0.05)
    raise RunError(f"echod did not listen on port {port} within {timeout_s:.0f} s")


def stop_echod(process: Any) -> dict[str, Any]:
    if process.poll() is None:
        process.terminate()
    output, errors = process.communicate(timeout=30)
    records = parse_records(output, "echod")
    if not records:
        raise RunError(f"echod ended without its summary (exit {process.returncode}): {errors.strip()[-300:]}")
    return records[-1]


def run_trial(spec: Spec, experiment: Experiment, trial: int, out: Path) -> None:
    from netrepro.backends import get_backend
    from netrepro.linkcheck import check_link
    from netrepro.topology import H2_IP, LinkNetwork

    preflight(experiment)
    run_id = f"{spec.paper}/{experiment.id}/trial-{trial}"
    started = now_iso()
    backend = get_backend(experiment.backend)
    rows: list[dict[str, Any]] = []
    metas: dict[str, Any] = {}
    order = mode_order(experiment, trial)
    with LinkNetwork(experiment.link, backend, out / "logs") as net:
        link_check = check_link(net, experiment.link, H2_IP)
        sysctls = read_sysctls(net.h1)
        echods = start_echods(net, experiment)
        try:
            for mode in order:
                metas[mode], records = run_mode(net, experiment, mode, trial)
                rows += message_rows(experiment, mode, trial, run_id, records)
        finally:
            echod_summary = {name: stop_echod(process) for name, process in echods.items()}
        offloads = net.offloads
        backend_settings = backend.settings()
    write_text(out / "records.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    provenance = {
        "run_id": run_id,
        "paper": spec.paper,
        "experiment": experiment.id,
        **machine(),
        "spec_file": str(spec.path),
        "spec_hash": spec.sha256,
        "profile": spec.profile,
        "sysctls": sysctls,
        "offloads": offloads,
        "link": {**link_summary(experiment), "backend_settings": backend_settings},
        "link_check": link_check.as_dict(),
        "link_counters": net.counters,
        "backend": backend.name,
        "stack": experiment.stack,
        "tools": {
            "pingx": tool_version([str(TOOLS_BIN / "pingx"), "--version"]),
            "echod": tool_version([str(TOOLS_BIN / "echod"), "--version"]),
            "iperf3": tool_version(["iperf3", "--version"]),
            "python": sys.version.split()[0],
        },
        "tool_settings": metas,
        "echod_summary": echod_summary,
        "seed": experiment.seed,
        "run_order": [f"{row['mode']}:{row['message_bytes']}:{row['echo']}"
                      for row in sorted(rows, key=lambda r: r["t_start_ns"] or 0)],
        "mode_order": order,
        "started_at": started,
        "finished_at": now_iso(),
        "assumptions": spec.assumptions,
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True, type=Path, help="the paper spec (configs/<paper>.yaml)")
    parser.add_argument("--experiment", required=True, help="experiment id in the spec")
    parser.add_argument("--trial", required=True, type=int, help="trial number, from 1")
    parser.add_argument("--out", required=True, type=Path, help="folder for records.jsonl and provenance.json")
    parser.add_argument("--profile", default="quick", help="quick (default) or paper")
    parser.add_argument("--backend", default=None, help="override the spec's link backend")
    args = parser.parse_args(argv)
    overrides = {"profile": args.profile, **({"backend": args.backend} if args.backend else {})}
    try:
        spec = load_spec(args.spec, overrides)
        if args.experiment not in spec.experiments:
            raise RunError(f"{args.spec} has no experiment {args.experiment!r}; it has {', '.join(spec.experiments)}")
        experiment = spec.experiments[args.experiment]
        if not 1 <= args.trial <= experiment.trials:
            raise RunError(f"trial {args.trial} is outside 1..{experiment.trials} of profile {spec.profile}")
        run_trial(spec, experiment, args.trial, args.out)
    except (SpecError, RunError) as exc:
        print(f"netrepro: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"netrepro: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
