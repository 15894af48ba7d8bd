"""ttcp transfers in virtual time: tools/bin/netsim runs both ttcp ends on two Tahoe stacks and
linkemu's link model in one process, one netsim run per buffer pair."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from netrepro.deadlines import ttcp_limit_s
from netrepro.errors import RunError
from netrepro.phase import boot_b_ns
from netrepro.provenance import now_iso
from netrepro.sim import SimError, run_netsim, ttcp_command
from netrepro.spec import Experiment
from netrepro.transfer import measure_pairs, pair_seed, transfer_rows


# The Tahoe stack's counters of why it sent each segment, summed over a pair's transfers: the
# transmitter's (host a) sender rules and the receiver's (host b) ACKs by rule or by the timer.
PAIR_COUNTERS = {
    "pair_segments_s1": "a_tcps_out_s1",
    "pair_segments_s2": "a_tcps_out_s2",
    "pair_segments_s3": "a_tcps_out_s3",
    "pair_segments_nodelay": "a_tcps_out_nodelay",
    "pair_acks_r1": "b_tcps_out_r1",
    "pair_acks_r2": "b_tcps_out_r2",
    "pair_acks_timer": "b_tcps_delack",
}


def pair_counts(sim: dict[str, Any]) -> dict[str, int]:
    missing = [key for key in PAIR_COUNTERS.values() if key not in sim]
    if missing:
        raise RunError(f"netsim's sim record lacks {', '.join(missing)}; rebuild the tools (make build)")
    return {column: int(sim[key]) for column, key in PAIR_COUNTERS.items()}


# The link's and the receiving host's drop counters of a run: where UDP datagrams were lost
# (liu95cool Sec 4.3: no cell lost, so the receiving host was the bottleneck).
DROP_COUNTERS = {
    "link_drops": ("forward_drop_queue", "forward_drop_loss", "forward_drop_cell_loss",
                   "forward_drop_bit_error", "forward_drop_oversize"),
    "link_cells_lost": ("forward_drop_cell_loss",),
    "receiver_fullsock": ("b_udps_fullsock",),
    "receiver_ipq_drops": ("b_ips_qdrop", "b_ips_fragdropped", "b_ips_fragtimeout"),
}


def drop_counts(sim: dict[str, Any]) -> dict[str, int]:
    missing = [key for keys in DROP_COUNTERS.values() for key in keys if key not in sim]
    if missing:
        raise RunError(f"netsim's sim record lacks {', '.join(missing)}; rebuild the tools (make build)")
    return {column: sum(int(sim[key]) for key in keys) for column, keys in DROP_COUNTERS.items()}


def levels(experiment: Experiment) -> list[int | None]:
    """A buffer pair's runs: None for TCP, then UDP's cooling levels in iterations."""
    assert experiment.ttcp is not None
    plan = experiment.ttcp
    return [*([None] if "tcp" in plan.protocols else []),
            *(list(plan.cool_iterations) if "udp" in plan.protocols else [])]


def pair_command(experiment: Experiment, send_buffer: int, recv_buffer: int, seed: int,
                 pcap: Path | None = None, cool_iterations: int | None = None) -> list[str]:
    """netsim's arguments for one buffer pair's transfers with the tick phases of seed: TCP, or
    UDP cooled by cool_iterations busy-loop iterations after each datagram."""
    assert experiment.ttcp is not None
    plan = experiment.ttcp
    return ttcp_command(
        experiment.link, send_buffer, recv_buffer, experiment.transfer_bytes, experiment.transfers,
        experiment.host_model, experiment.host_model, seed, nodelay=plan.nodelay,
        write_size=plan.write_size, pause_s=plan.pause_s, pause_spread_s=plan.pause_spread_s,
        timeout_s=plan.timeout_s,
        pcap=pcap, boot_b=boot_b_ns(seed), udp=cool_iterations is not None, cool_spin=cool_iterations or 0,
    )


def run_part(experiment: Experiment, trial: int, send_buffer: int, run_id: str, out: Path) -> dict[str, Any]:
    """Measures send_buffer with every receive buffer; returns the part's provenance."""
    def measure_one(recv_buffer: int) -> dict[str, Any]:
        seed = pair_seed(experiment, trial, send_buffer, recv_buffer)
        rows, sims, segments, commands = [], [], [], []
        for level in levels(experiment):
            command = pair_command(experiment, send_buffer, recv_buffer, seed,
                                   out / "capture.pcap" if experiment.trace else None, level)
            what = "TCP" if level is None else f"UDP cooled by {level} iterations"
            try:
                result = run_netsim(command, ttcp_limit_s(experiment, send_buffer, recv_buffer))
            except SimError as exc:
                raise RunError(f"ttcp {send_buffer}/{recv_buffer} ({what}) in virtual time: {exc}") from exc
            counts = {**pair_counts(result.sim), **drop_counts(result.sim)}
            rows += [{**row, **counts} for row in
                     transfer_rows(experiment, trial, run_id, send_buffer, recv_buffer, result.transfers, level)]
            sims.append(result.sim)
            segments += result.segments
            commands.append(command)
        return {
            "rows": rows,
            "sim": sims[0] if len(sims) == 1 else sims,
            "segments": segments,
            "command": commands[0] if len(commands) == 1 else commands,
            "seed": seed,
            "boot_b_ns": boot_b_ns(seed),
            "finished_at": now_iso(),
        }

    pairs, run_log = measure_pairs(experiment, trial, send_buffer, out, measure_one)
    return {"pairs": pairs, "run_log": run_log, "backend": "sim"}
