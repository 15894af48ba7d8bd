"""ttcp transfers emulated in real time: h1 -- link -- h2 on Mininet, ttcp on the spec's stack,
the transmitter on h1 and the receiver on h2."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from netrepro import phase, stacks
from netrepro.announce import wait_announced
from netrepro.cleanup import finish, kill_group
from netrepro.deadlines import ttcp_limit_s
from netrepro.errors import RunError
from netrepro.provenance import now_iso, read_sysctls
from netrepro.safepath import refuse_links
from netrepro.seeds import link_seed
from netrepro.spec import Experiment
from netrepro.transfer import (RECEIVER_GRACE_S, TTCP_PORT, measure_pairs, pair_seed, parse_json_lines,
                               receiver_args, stop_process, transfer_rows, transmitter_args)

TTCP = Path(__file__).resolve().parent.parent / "tools" / "bin" / "ttcp"
H1 = ("h1-eth0", "10.0.0.1/24")
H2 = ("h2-eth0", "10.0.0.2/24")
CAPTURE_READY_S = 10.0
CAPTURE_STOP_S = 30.0


def start_capture(host: Any, iface: str, pcap: Path) -> Any:
    """tcpdump on iface, headers only; returns once it is capturing. Packets go to tcpdump as
    they come (--immediate-mode): in the kernel's default blocks, those of the last block would
    be lost when the capture stops right after the transfer. A capture left by an earlier run
    is removed first: it would pass for this one's readiness."""
    refuse_links(pcap)
    pcap.parent.mkdir(parents=True, exist_ok=True)
    pcap.unlink(missing_ok=True)
    process = host.popen(["tcpdump", "-i", iface, "--immediate-mode", "-n", "-U", "-s", "128", "-w", str(pcap),
                          "tcp"],
                         stdout=-1, stderr=-1, text=True)
    deadline = time.monotonic() + CAPTURE_READY_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            _, errors = process.communicate()
            raise RunError(f"tcpdump on {iface} exited at start: {errors.strip()[-300:]}")
        if pcap.is_file() and pcap.stat().st_size > 0:
            return process
        time.sleep(0.05)
    kill_group(process)
    raise RunError(f"tcpdump on {iface} did not start capturing within {CAPTURE_READY_S:.0f} s")


def stop_capture(process: Any) -> None:
    process.terminate()
    _, errors = finish(process, CAPTURE_STOP_S, "tcpdump")
    if process.returncode not in (0, -15):
        raise RunError(f"tcpdump ended with status {process.returncode}: {errors.strip()[-300:]}")


def segment_log(pcap: Path, host: str) -> Path:
    """Where host a (the transmitter, as netsim names it) or b logs its segments, beside the capture."""
    return pcap.with_name(f"segment-log-{host}.jsonl")


def logs_segments(experiment: Experiment, pcap: Path | None) -> bool:
    """A traced transfer on the Tahoe stack: each end logs the rule behind each segment it sends
    (ttcp --segment-log), as netsim does, so that trace.csv names the rules in emulation too."""
    return pcap is not None and experiment.stack == "tahoe"


def segment_log_args(experiment: Experiment, pcap: Path | None, host: str) -> list[str]:
    return ["--segment-log", str(segment_log(pcap, host))] if logs_segments(experiment, pcap) else []


def read_segment_log(path: Path, host: str) -> list[dict[str, Any]]:
    """One end's segment records, marked with its host."""
    if not path.is_file():
        raise RunError(f"ttcp wrote no segment log at {path}; its stderr says why")
    segments = [{**json.loads(line), "host": host} for line in path.read_text(encoding="utf-8").splitlines() if line]
    path.unlink()
    return segments


def run_pair(net: Any, experiment: Experiment, tool_args: dict[str, list[str]], send_buffer: int,
             recv_buffer: int, pcap: Path | None, seed: int) -> list[dict[str, Any]]:
    """One buffer pair: the receiver on h2, then, once it listens, the transmitter on h1, its
    Tahoe ticks at the phase that seed gives netsim (netrepro.phase); returns both ends' records."""
    port = ["--port", str(TTCP_PORT)]
    receiver = net.h2.popen([str(TTCP), *receiver_args(experiment, recv_buffer), *port, *tool_args["h2"],
                             *phase.host_b_args(experiment.stack, seed), *segment_log_args(experiment, pcap, "b")],
                            stdout=-1, stderr=-1, text=True)
    capture = None
    try:
        wait_announced(receiver, "ttcp: receiving", f"ttcp -r ({send_buffer}/{recv_buffer})")
        capture = start_capture(net.h1, H1[0], pcap) if pcap else None
        transmitter = net.h1.popen([str(TTCP), *transmitter_args(experiment, send_buffer, seed), *port,
                                    *tool_args["h1"], *phase.host_a_args(experiment.stack, seed),
                                    *segment_log_args(experiment, pcap, "a"), "10.0.0.2"],
                                   stdout=-1, stderr=-1, text=True)
        tx_out, tx_err = finish(transmitter, ttcp_limit_s(experiment, send_buffer, recv_buffer),
                                f"ttcp -t ({send_buffer}/{recv_buffer})")
        timeout = experiment.ttcp.timeout_s + RECEIVER_GRACE_S if experiment.ttcp else RECEIVER_GRACE_S
        rx_out, rx_err = stop_process(receiver, timeout, f"ttcp receiver ({send_buffer}/{recv_buffer})")
    except BaseException:
        # Killed, not stopped: their output no longer matters, and stopping them must not
        # hide why the pair failed.
        for process in (receiver, capture):
            if process is not None:
                kill_group(process)
        raise
    if capture is not None:
        stop_capture(capture)
    records = parse_json_lines(tx_out, "ttcp -t") + parse_json_lines(rx_out, "ttcp -r")
    errors = [r for r in records if r.get("record") == "error"]
    if transmitter.returncode != 0 or receiver.returncode != 0 or errors:
        detail = errors[0].get("error") if errors else (tx_err or rx_err).strip()[-300:]
        raise RunError(f"ttcp {send_buffer}/{recv_buffer} failed (transmitter exit {transmitter.returncode}, "
                       f"receiver exit {receiver.returncode}): {detail}")
    return records


def run_part(experiment: Experiment, trial: int, send_buffer: int, run_id: str, out: Path) -> dict[str, Any]:
    """Measures send_buffer with every receive buffer on one emulated network; returns the
    part's provenance (the rows are in the pairs it lists)."""
    from netrepro.backends import emulation_backend
    from netrepro.linkcheck import check_link
    from netrepro.topology import H2_IP, LinkNetwork

    assert experiment.ttcp is not None
    seed_of_link = link_seed(experiment.seed, experiment.draws_id, trial, send_buffer)
    backend = emulation_backend(experiment.backend, experiment.stack, seed_of_link)
    buffers = (max(experiment.ttcp.send_buffers), max(experiment.ttcp.receive_buffers))
    with LinkNetwork(experiment.link, backend, out / "logs") as net:
        link_check = check_link(net, experiment.link, H2_IP)
        tool_args = stacks.setup_hosts([(net.h1, *H1), (net.h2, *H2)], experiment.stack,
                                       experiment.host_model, experiment.link.mtu, buffers, net.frame_times)
        sysctls = read_sysctls(net.h1)

        def measure_one(recv_buffer: int) -> dict[str, Any]:
            pcap = out / "capture.pcap" if experiment.trace else None
            seed = pair_seed(experiment, trial, send_buffer, recv_buffer)
            records = run_pair(net, experiment, tool_args, send_buffer, recv_buffer, pcap, seed)
            segments = ([s for host in "ab" for s in read_segment_log(segment_log(pcap, host), host)]
                        if logs_segments(experiment, pcap) else [])
            return {"rows": transfer_rows(experiment, trial, run_id, send_buffer, recv_buffer, records),
                    "segments": segments,
                    "seed": seed, "boot_b_ns": phase.boot_b_ns(seed), "finished_at": now_iso()}

        pairs, run_log = measure_pairs(experiment, trial, send_buffer, out, measure_one)
    return {
        "pairs": pairs,
        "run_log": run_log,
        **net.provenance(link_check, seed_of_link),
        "sysctls": sysctls,
        "tool_args": tool_args,
    }
