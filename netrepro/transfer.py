"""ttcp bulk transfers over a matrix of socket buffers. One job measures one send buffer with
every receive buffer of the spec (a "part" of a trial), emulated on Mininet or in virtual time.

Each finished buffer pair is saved at once under <out>/cells/, so a part killed half way
loses no finished pair and its rerun measures only the pairs still missing.
"""
from __future__ import annotations

import hashlib
import json
import random
import signal
import subprocess
from pathlib import Path
from typing import Any

from netrepro.atomic import write_text
from netrepro.errors import RunError
from netrepro.seeds import derive_seed
from netrepro.spec import Experiment, settings_hash

TTCP_PORT = 5001
# A receiver that outlives its transmitter by this long (beyond ttcp's own no-progress
# timeout) is stuck, not slow.
RECEIVER_GRACE_S = 30.0


def experiment_key(experiment: Experiment, trial: int) -> str:
    """Changes whenever anything a pair's result depends on changes, so a rerun after a spec
    edit never reuses a pair measured under the old spec."""
    return hashlib.sha256(f"{settings_hash(experiment)}:{experiment.backend}:{trial}".encode()).hexdigest()[:16]


def receive_order(experiment: Experiment, trial: int, send_buffer: int) -> list[int]:
    """The receive buffers in a shuffled order fixed by the seed, so no pair always runs first."""
    assert experiment.ttcp is not None
    order = list(experiment.ttcp.receive_buffers)
    random.Random(f"{experiment.seed}:{experiment.draws_id}:{trial}:{send_buffer}").shuffle(order)
    return order


def pair_seed(experiment: Experiment, trial: int, send_buffer: int, recv_buffer: int) -> int:
    """A seed per buffer pair, so pairs are independent yet every rerun draws the same."""
    return derive_seed(experiment.seed, experiment.draws_id, trial, send_buffer, recv_buffer)


def ttcp_common_args(experiment: Experiment) -> list[str]:
    assert experiment.ttcp is not None
    return [
        "--bytes", f"{experiment.transfer_bytes}B", "--repeat", str(experiment.transfers),
        "-l", f"{experiment.ttcp.write_size}B", "--timeout", f"{round(experiment.ttcp.timeout_s * 1e3)}ms",
    ]


def transmitter_args(experiment: Experiment, send_buffer: int, seed: int) -> list[str]:
    """ttcp -t's arguments after the binary, without the stack's and the peer address; seed
    draws the pauses' spread, as netsim's ttcp draws it (netrepro.sim.ttcp_command)."""
    assert experiment.ttcp is not None
    argv = ["-t", "--sndbuf", f"{send_buffer}B", *ttcp_common_args(experiment),
            "--pause", f"{round(experiment.ttcp.pause_s * 1e3)}ms",
            *pause_spread_args(experiment.ttcp.pause_spread_s, seed)]
    if experiment.ttcp.nodelay:
        argv.append("--nodelay")
    return argv


def pause_spread_args(spread_s: float, seed: int) -> list[str]:
    """ttcp -t's flags for a pause spread drawn from seed; none without a spread."""
    return ["--pause-spread", f"{round(spread_s * 1e9)}ns", "--seed", str(seed)] if spread_s > 0 else []


def receiver_args(experiment: Experiment, recv_buffer: int) -> list[str]:
    return ["-r", "--rcvbuf", f"{recv_buffer}B", *ttcp_common_args(experiment)]


def transfer_rows(experiment: Experiment, trial: int, run_id: str, send_buffer: int, recv_buffer: int,
                  records: list[dict[str, Any]], cool_iterations: int | None = None) -> list[dict[str, Any]]:
    """One row per transfer from ttcp's transmitter records; refuses an incomplete set. A UDP
    transfer (cool_iterations given) may lose datagrams; a TCP one must deliver every octet."""
    assert experiment.ttcp is not None
    sent = sorted((r for r in records if r.get("role") == "transmitter"), key=lambda r: r["index"])
    if len(sent) != experiment.transfers:
        raise RunError(f"ttcp {send_buffer}/{recv_buffer}: {len(sent)} transfer records, "
                       f"expected {experiment.transfers}")
    rows = []
    for record in sent:
        if cool_iterations is None and record.get("receiver_bytes") != record["bytes"]:
            raise RunError(f"ttcp {send_buffer}/{recv_buffer} transfer {record['index']}: the receiver got "
                           f"{record.get('receiver_bytes')} of {record['bytes']} octets")
        receiver_bps = record.get("receiver_bps")
        rows.append({
            "run_id": run_id,
            "trial": trial,
            "repeat": record["index"] + 1,
            "send_buffer": send_buffer,
            "recv_buffer": recv_buffer,
            "sndbuf_granted": record["sndbuf"],
            "rcvbuf_granted": record.get("receiver_rcvbuf"),
            "nodelay": experiment.ttcp.nodelay,
            "bytes": record["bytes"],
            "throughput_mbit": record["sender_bps"] / 1e6,
            "receiver_throughput_mbit": receiver_bps / 1e6 if receiver_bps is not None else None,
            "proto": record.get("proto", "tcp"),
            "cool_iterations": cool_iterations,
            "cool_gap_us": record["cool_spin_ns_per_iter"] * cool_iterations / 1e3
            if cool_iterations and record.get("cool_spin_ns_per_iter") is not None else None,
            "datagrams_sent": record.get("datagrams_sent"),
            "datagrams_received": record.get("datagrams_received"),
        })
    return rows


class PairStore:
    """The finished buffer pairs of one part, one JSON file each."""

    def __init__(self, out: Path, key: str) -> None:
        self.folder = out / "cells" / key

    def path(self, recv_buffer: int) -> Path:
        return self.folder / f"recv-{recv_buffer}.json"

    def load(self, recv_buffer: int) -> dict[str, Any] | None:
        path = self.path(recv_buffer)
        if not path.is_file():
            return None
        return json.loads(path.read_text(encoding="utf-8"))

    def save(self, recv_buffer: int, pair: dict[str, Any]) -> None:
        write_text(self.path(recv_buffer), json.dumps(pair) + "\n")


def measure_pairs(experiment: Experiment, trial: int, send_buffer: int, out: Path,
                  measure_one: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Runs measure_one(recv_buffer) -> pair dict (with "rows") for every receive buffer not yet
    stored; returns all pairs in run order and the run log (which pairs ran now, which resumed)."""
    store = PairStore(out, experiment_key(experiment, trial))
    pairs, log = [], []
    for recv_buffer in receive_order(experiment, trial, send_buffer):
        pair = store.load(recv_buffer)
        resumed = pair is not None
        if pair is None:
            pair = measure_one(recv_buffer)
            store.save(recv_buffer, pair)
        pairs.append(pair)
        log.append({"send_buffer": send_buffer, "recv_buffer": recv_buffer, "resumed": resumed,
                    "finished_at": pair["finished_at"]})
    return pairs, log


def stop_process(process: subprocess.Popen, timeout_s: float, what: str) -> tuple[str, str]:
    """Waits for a process; interrupts, then kills it when it does not end in time."""
    try:
        return process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGINT)
        try:
            output, errors = process.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            output, errors = process.communicate()
        raise RunError(f"{what} did not finish within {timeout_s:.0f} s and was stopped: "
                       f"{(errors or '').strip()[-300:]}") from None
