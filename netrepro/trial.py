"""What every tool's trial shares: the check that it can run, its seeds, the provenance every
run records, and writing its records and provenance (records first, provenance last: a trial
killed half way leaves no provenance, so the workflow reruns it)."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Iterable

from netrepro import hostmodel
from netrepro.atomic import write_text
from netrepro.errors import RunError
from netrepro.experiment import Experiment, Spec, settings_hash
from netrepro.jsonlines import dumps
from netrepro.paths import TOOLS_BIN, tool_binary
from netrepro.provenance import binary_digests, executor, machine, now_iso
from netrepro.seeds import derive_seed
from netrepro.sweep import column_values

REQUIRED_COMMANDS = ("ip", "tc", "ethtool", "ping", "iperf3", "ss", "mnexec")


def preflight(experiment: Experiment, binaries: Iterable[str]) -> None:
    """Refuses a trial that cannot run here: a program of `binaries` not built, or an emulated
    run without root or the commands it drives."""
    for name in binaries:
        if not tool_binary(name).is_file():
            raise RunError(f"{tool_binary(name)} is missing; build the tools with `make build`")
    if experiment.backend == "sim":
        return
    if os.geteuid() != 0:
        raise RunError("emulated runs build network namespaces and need root: run as root (sudo), "
                       "or run a tahoe-stack spec with --config backend=sim")
    missing = [name for name in REQUIRED_COMMANDS if shutil.which(name) is None]
    if missing:
        raise RunError(f"missing commands: {', '.join(missing)}; run `make setup` (envs/setup.sh)")


def emulation_binaries(backend: str, tools: list[str]) -> list[Path]:
    """The binaries an emulated run used: its tools, and linkemu where it emulated the link, so
    that the provenance tells runs of one build from another's."""
    return [TOOLS_BIN / name for name in [*tools, *(["linkemu"] if backend == "linkemu" else [])]]


def tool_digests(binaries: list[Path], **versions: str) -> dict[str, Any]:
    """The provenance's `tools`: each binary's digest, other tools' versions, Python's."""
    return {**binary_digests(binaries), **versions, "python": sys.version.split()[0]}


def point_name(experiment: Experiment) -> str:
    """The sweep point an experiment is at, named as measure names its folder (point-K, K from
    1 in the sweep's order); "" for an experiment not at a point."""
    if experiment.sweep is None or experiment.point is None:
        return ""
    return f"point-{experiment.sweep.points().index(experiment.point) + 1}"


def run_name(spec: Spec, experiment: Experiment, trial: int, part: str | None = None) -> str:
    """A run's id in its rows and provenance: paper/experiment/trial-N, then its sweep point
    and its part (e.g. send-16384) where it has them."""
    names = [spec.paper, experiment.id, f"trial-{trial}", point_name(experiment), part or ""]
    return "/".join(name for name in names if name)


def run_seed(experiment: Experiment, trial: int, what: str) -> int:
    """The seed of one run of a trial (a pingx mode, an mftp session, an ipcbench curve and size)."""
    return derive_seed(experiment.seed, experiment.draws_id, trial, what)


def link_summary(experiment: Experiment) -> dict[str, Any]:
    link = experiment.link
    return {
        "name": link.name, "framing": link.framing, "mtu": link.mtu,
        "rate_bps": link.forward.rate_bps, "delay_s": link.forward.delay_s,
        "queue_packets": link.forward.queue_packets, "queue_bytes": link.forward.queue_bytes,
        "loss_pct": link.forward.loss_pct, "reverse_rate_bps": link.reverse.rate_bps,
    }


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


def run_order(rows: list[dict[str, Any]], fields: tuple[str, ...]) -> dict[str, Any]:
    """The provenance's actual run order: an entry per measurement of rows (in the order they
    were taken), its fields' values joined by ':' (NA for none); a report counts the switches
    of the first."""
    return {"run_order_fields": list(fields),
            "run_order": [":".join("NA" if row[field] is None else str(row[field]) for field in fields)
                          for row in rows]}


def write_run(out: Path, rows: list[dict[str, Any]], provenance: dict[str, Any],
              segments: list[dict[str, Any]] | None = None) -> None:
    """A finished run: records.jsonl (a row per measurement), segments.jsonl when the stack
    logged its segments, then provenance.json, stamped with the time it finished. The
    provenance must hold the run order (run_order)."""
    if "run_order" not in provenance:
        raise ValueError(f"{out}: a run's provenance must record its run order (trial.run_order)")
    write_text(out / "records.jsonl", dumps(rows))
    if segments:
        write_text(out / "segments.jsonl", dumps(segments))
    write_text(out / "provenance.json", json.dumps({**provenance, "finished_at": now_iso()}, indent=1) + "\n")
