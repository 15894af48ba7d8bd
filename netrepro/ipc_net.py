"""ipcbench emulated in real time: h1 -- link -- h2 on Mininet, ipcbench's client on h1 (host a,
the spec's `host`) sending to its server on h2 (host b, ipcbench's `host_b`), both on the spec's
stack, as netsim arranges them in virtual time: one client and server per curve and message
size, host a's ticks at the phase the run's seed gives netsim (netrepro.phase). ONC RPC (mode
rpc) runs here only, on the Linux stack: libtirpc drives the kernel's sockets.

Each ipcbench process runs in a memory cgroup of its own sized from its host model
(netrepro.memcg), so that the kernel pages its buffers as the host paged; on the Tahoe stack the
host model's paging (tools/tahoe/vm_page.c) applies as well, as in virtual time, and ipcbench
reports it in a `vmstat` record.
"""
from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from itertools import count
from pathlib import Path
from typing import Any, Mapping

from netrepro import phase, stacks
from netrepro.announce import wait_announced
from netrepro.cleanup import finish, kill_group
from netrepro.errors import RunError
from netrepro.memcg import MemoryCgroup, MemoryPlan, plan_of
from netrepro.spec import Experiment

IPCBENCH = Path(__file__).resolve().parent.parent / "tools" / "bin" / "ipcbench"
IPC_PORT = 5002
H1 = ("h1-eth0", "10.0.0.1/24")
H2 = ("h2-eth0", "10.0.0.2/24")
# How long the server may take to exit once the client is done: it has seen every message
# (--count) and only echoes or closes.
SERVER_STOP_S = 60.0
# netsim's names of each host's paging counts, from ipcbench's vmstat records.
VMSTAT_KEYS = ("v_zfod", "v_pgin", "v_pgout", "v_frees", "v_maxres")


def memory_plans(experiment: Experiment) -> dict[str, MemoryPlan | None]:
    """Each host's memory cgroup: h1 from the spec's host model, h2 from host_b's (else the
    same), with ipcbench's swap and swap_b."""
    plan = experiment.ipcbench
    assert plan is not None
    return {"h1": plan_of(experiment.host_model, plan.swap_a),
            "h2": plan_of(plan.host_b_model or experiment.host_model, plan.swap_b)}


def with_host_model(argv: list[str], model: Path | None) -> list[str]:
    """argv with its --host-model's value made model (h2 runs host b's model)."""
    if model is None or "--host-model" not in argv:
        return argv
    at = argv.index("--host-model") + 1
    return [*argv[:at], str(model), *argv[at + 1:]]


def client_argv(tool_args: list[str], stack: str, seed: int, client: list[str], server_ip: str) -> list[str]:
    """ipcbench's client on h1: its stack's arguments, its tick phase from seed, the curve's own."""
    return [str(IPCBENCH), *tool_args, *phase.host_a_args(stack, seed), "-p", str(IPC_PORT), *client, server_ip]


def server_argv(tool_args: list[str], stack: str, server: list[str], messages: int) -> list[str]:
    """ipcbench's server on h2, exiting once it has seen `messages` messages."""
    return [str(IPCBENCH), "--server", *tool_args, *phase.host_b_args(stack), "-p", str(IPC_PORT), *server,
            "--count", str(messages)]


def parse_records(output: str, who: str) -> list[dict[str, Any]]:
    try:
        return [json.loads(line) for line in output.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise RunError(f"ipcbench ({who}) wrote a line that is not JSON: {exc}") from exc


def counts_of(records: list[dict[str, Any]], memory: Mapping[str, Any]) -> dict[str, Any]:
    """A run's counters under netsim's names (a_v_pgin, ...) from the two ends' vmstat records,
    and the kernel's major faults and peak memory of each host's cgroup."""
    counts: dict[str, Any] = {}
    for record in records:
        if record.get("record") == "vmstat":
            side = "a" if record["role"] == "client" else "b"
            counts.update({f"{side}_{key}": record[key] for key in VMSTAT_KEYS})
    for host, side in (("h1", "a"), ("h2", "b")):
        stats = memory.get(host, {}).get("stats", {})
        counts[f"{side}_kernel_majfaults"] = stats.get("pgmajfault")
        counts[f"{side}_peak_bytes"] = stats.get("max_usage_bytes")
    return counts


def run_pair(net: Any, tool_args: dict[str, list[str]], plans: Mapping[str, MemoryPlan | None], stack: str,
             seed: int, client: list[str], server: list[str], messages: int, limit_s: float,
             tag: str) -> tuple[list[dict[str, Any]], int, str, dict[str, Any]]:
    """One client and server, each in its memory cgroup (removed on every exit). Returns both
    ends' records, the client's exit status and its stderr, and each cgroup's state and stats."""
    from netrepro.topology import H2_IP

    with ExitStack() as cleanup:
        groups = {host: cleanup.enter_context(MemoryCgroup(f"{tag}-{host}", plan))
                  for host, plan in plans.items() if plan is not None}
        joins = {host: {"preexec_fn": group.join} for host, group in groups.items()}
        serving = net.h2.popen(server_argv(tool_args["h2"], stack, server, messages), stdout=-1, stderr=-1,
                               text=True, **joins.get("h2", {}))
        try:
            wait_announced(serving, "ipcbench: serving", "ipcbench --server")
            sending = net.h1.popen(client_argv(tool_args["h1"], stack, seed, client, H2_IP), stdout=-1,
                                   stderr=-1, text=True, **joins.get("h1", {}))
            client_out, client_err = finish(sending, limit_s, "ipcbench (client)")
            server_out = ""
            # A failed client leaves the server waiting for its messages: it is killed below.
            if sending.returncode == 0:
                server_out, server_err = finish(serving, SERVER_STOP_S, "ipcbench --server")
                if serving.returncode != 0:
                    raise RunError(f"ipcbench --server failed (exit {serving.returncode}): "
                                   f"{server_err.strip()[-300:]}")
        finally:
            kill_group(serving)
        memory = {host: {**group.state(), "stats": group.stats()} for host, group in groups.items()}
    records = parse_records(client_out, "client") + parse_records(server_out, "server")
    return records, sending.returncode, client_err, memory


def run_emulated(experiment: Experiment, trial: int, run_id: str, out: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every curve and size on one emulated network (the experiment's link); the rows and the
    provenance. Needs root."""
    from netrepro import measure
    from netrepro.backends import emulation_backend
    from netrepro.backends.linkemu import LinkemuBackend, medium_delta
    from netrepro.ipc_plan import Unfinished, measure_curves, run_messages
    from netrepro.linkcheck import check_link
    from netrepro.provenance import binary_digests, read_sysctls
    from netrepro.seeds import link_seed
    from netrepro.topology import H2_IP, LinkNetwork

    plan = experiment.ipcbench
    assert plan is not None
    seed_of_link = link_seed(experiment.seed, experiment.draws_id, trial)
    backend = emulation_backend(experiment.backend, experiment.stack, seed_of_link)
    # A shared medium's counts are each run's own: linkemu's before and after it.
    medium_snapshot = None
    if experiment.link.medium == "shared":
        if not isinstance(backend, LinkemuBackend):
            raise RunError(f"link {experiment.link.name} is a shared medium, which backend {backend.name} "
                           "cannot emulate; give backend linkemu")
        medium_snapshot = backend.snapshot
    plans = memory_plans(experiment)
    with LinkNetwork(experiment.link, backend, out / "logs") as net:
        link_check = check_link(net, experiment.link, H2_IP)
        tool_args = stacks.setup_hosts([(net.h1, *H1), (net.h2, *H2)], experiment.stack, experiment.host_model,
                                       experiment.link.mtu, frame_times=net.frame_times)
        tool_args["h2"] = with_host_model(tool_args["h2"], plan.host_b_model)
        sysctls = read_sysctls(net.h1)
        numbers = count(1)

        def run_one(curve: Mapping[str, Any], size: int, seed: int, client: list[str], server: list[str],
                    limit_s: float) -> tuple[list[dict[str, Any]], Mapping[str, Any], dict[str, Any]]:
            tag = f"run{next(numbers)}"
            before = medium_snapshot() if medium_snapshot else {}
            records, status, errors, memory = run_pair(net, tool_args, plans, experiment.stack, seed, client,
                                                       server, run_messages(client), limit_s, tag)
            medium = medium_delta(before, medium_snapshot()) if medium_snapshot else {}
            run = {"client": client, "server": server, "boot_b_ns": phase.boot_b_ns(seed), "memory": memory,
                   **({"medium": medium} if medium else {})}
            failures = [r for r in records if r.get("record") == "error"]
            if status != 0 or failures:
                detail = failures[0].get("error") if failures else errors.strip()[-300:]
                if plan.mode == "udp" and "timeout" in str(detail):
                    raise Unfinished(str(detail), run)
                raise RunError(f"ipcbench ({curve['curve']}, {size} octets) failed (exit {status}): {detail}")
            return records, {**counts_of(records, memory), **medium}, run

        rows, runs = measure_curves(experiment, trial, run_id, run_one)
    return rows, {
        **net.provenance(link_check, seed_of_link),
        "sysctls": sysctls,
        "tool_args": tool_args,
        "memory_plans": {host: None if p is None else {"limit_bytes": p.limit_bytes, "swap_bytes": p.swap_bytes}
                         for host, p in plans.items()},
        "runs": runs,
        "tools": {**binary_digests(measure.emulation_binaries(backend.name, ["ipcbench"])),
                  "python": sys.version.split()[0]},
    }
