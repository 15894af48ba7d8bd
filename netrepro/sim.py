"""Virtual-time runs: tools/bin/netsim runs the real ttcp, pingx or mftp on two Tahoe stacks
joined by linkemu's link model, in one process and in simulated time, so a run is deterministic
for a given seed and far faster than real time.

    link = link_from_dict("atm-taxi-100", yaml.safe_load(open("configs/links/atm-taxi-100.yaml")))
    records = run_ttcp_sim(link, 16384, 24576, 32 << 20, 50, IPC, IPC, seed=1)
"""
from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from netrepro.backends import BackendError, linkemu
from netrepro.cleanup import die_with_parent
from netrepro.linkspec import LinkParams
from netrepro.transfer import pause_spread_args

BINARY = Path(__file__).resolve().parents[1] / "tools" / "bin" / "netsim"
ADDR_B = "10.0.0.2"  # netsim's host b, where the ttcp receiver runs
# ttcp's own default write size (tools/ttcp/args.c).
DEFAULT_WRITE_SIZE = 8192
# Watchdog of each ttcp end, in virtual time: long enough for Tahoe's backed-off
# retransmissions on a lossy link; costs nothing while no one waits.
DEFAULT_TIMEOUT_S = 600.0


class SimError(RuntimeError):
    """netsim refused its arguments, or a transfer or the simulation failed."""


@dataclass(frozen=True)
class SimResult:
    """Everything one netsim run wrote."""

    records: list[dict[str, Any]]  # every record the applications wrote, in virtual-time order
    transfers: list[dict[str, Any]]  # ttcp's transfer records, both ends
    segments: list[dict[str, Any]]  # with --trace: every TCP segment sent, with its rule
    # with --tcp-debug: each connection's send state after every segment in and timer out
    tcp_debug: list[dict[str, Any]]
    sim: dict[str, Any]  # the {"record": "sim"} record
    command: list[str]


def _time(seconds: float) -> str:
    return f"{round(seconds * 1e9)}ns"


def link_args(link: LinkParams) -> list[str]:
    """netsim's link flags for link; they are linkemu's, so the two emulate the same link."""
    try:
        linkemu.refuse_unsupported(link)
    except BackendError as err:
        raise SimError(str(err)) from err
    return linkemu.link_args(link)


def ttcp_command(link: LinkParams, send_buffer: int, recv_buffer: int, bytes: int, repeats: int,
                 host_model_a: Path | None, host_model_b: Path | None, seed: int, nodelay: bool = False,
                 write_size: int = DEFAULT_WRITE_SIZE, pause_s: float | None = None,
                 pause_spread_s: float = 0.0, timeout_s: float = DEFAULT_TIMEOUT_S, wall: bool = False,
                 pcap: Path | None = None, boot_b: int | None = None, udp: bool = False,
                 cool_spin: int = 0, binary: Path = BINARY) -> list[str]:
    """The netsim argument list for ttcp from host a to host b: send_buffer is the
    transmitter's SO_SNDBUF, recv_buffer the receiver's SO_RCVBUF (ttcp -b sets just these).
    wall=True keeps the wall-clock fields in the sim record (the output is then not
    byte-identical from run to run). A host model of None is a host whose work costs no time.
    pcap names a file for the packets at host a's interface, with each segment's sender rule
    beside them in the output (--trace). pause_spread_s lengthens each pause by a draw from
    seed. boot_b (ns) is how long before host a host b booted (netrepro.phase); None lets
    netsim draw it from the seed. udp=True sends datagrams of write_size, with cool_spin
    busy-loop iterations after each (ttcp --cool-spin), timed by the host model."""
    for name, value in (("send_buffer", send_buffer), ("recv_buffer", recv_buffer),
                        ("bytes", bytes), ("repeats", repeats), ("write_size", write_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise SimError(f"{name} must be a positive whole number, not {value!r}")
    if isinstance(cool_spin, bool) or not isinstance(cool_spin, int) or cool_spin < 0 or (cool_spin and not udp):
        raise SimError(f"cool_spin must be a whole number of iterations, for UDP only, not {cool_spin!r}")
    common = ["--bytes", f"{bytes}B", "--repeat", str(repeats), "-l", f"{write_size}B",
              "--timeout", _time(timeout_s), *(["-u"] if udp else [])]
    tx = ["-t", "--sndbuf", f"{send_buffer}B", *common]
    if nodelay:
        tx.append("--nodelay")
    if cool_spin:
        tx += ["--cool-spin", str(cool_spin)]
    if pause_s is not None:
        tx += ["--pause", _time(pause_s)]
    tx += pause_spread_args(pause_spread_s, seed)
    tx.append(ADDR_B)
    rx = ["-r", "--rcvbuf", f"{recv_buffer}B", *common]
    hosts = []
    for flag, model in (("--host-model-a", host_model_a), ("--host-model-b", host_model_b)):
        if model is not None:
            hosts += [flag, str(model)]
    capture = ["--pcap", str(pcap), "--trace"] if pcap is not None else []
    return [
        str(binary), *link_args(link), *hosts, *capture, *boot_b_args(boot_b),
        "--seed", str(seed), *([] if wall else ["--no-wall"]), "--", *tx, "--", *rx,
    ]


def boot_b_args(boot_b: int | None) -> list[str]:
    if boot_b is None:
        return []
    if isinstance(boot_b, bool) or not isinstance(boot_b, int) or boot_b < 0:
        raise SimError(f"boot_b must be a whole number of nanoseconds, not {boot_b!r}")
    return ["--boot-b", f"{boot_b}ns"]


def both_hosts(host_model: Path | None) -> list[str]:
    """netsim's flags giving both hosts host_model; none for hosts whose work costs no time."""
    return ["--host-model-a", str(host_model), "--host-model-b", str(host_model)] if host_model else []


def pingx_command(link: LinkParams, host_model: Path | None, seed: int, pingx_args: list[str],
                  echod_args: list[str], boot_b: int | None = None, binary: Path = BINARY) -> list[str]:
    """The netsim argument list for pingx on host a echoing off echod on host b, both hosts
    with host_model. The tools' own arguments carry no stack flags: netsim gives the stacks."""
    return [str(binary), "--app", "pingx", *link_args(link), *both_hosts(host_model), *boot_b_args(boot_b),
            "--seed", str(seed), "--no-wall", "--", *pingx_args, "--", *echod_args]


def mftp_command(link: LinkParams, host_model: Path | None, seed: int, file_bytes: int, root: Path,
                 mftp_args: list[str], boot_b: int | None = None, binary: Path = BINARY,
                 stack_args: list[str] | None = None, dest: Path | None = None) -> list[str]:
    """The netsim argument list for an MFTP GET of root/src.bin from mftpd on host b by mftp on
    host a into dest (default root/got.bin; /dev/null as ishikura), both hosts with host_model.
    netsim first writes file_bytes octets drawn from the seed into src.bin. mftp_args are
    mftp's own options (-n, --window, ...), stack_args netsim's for both stacks
    (--window-scale, --sb-max)."""
    if isinstance(file_bytes, bool) or not isinstance(file_bytes, int) or file_bytes < 1:
        raise SimError(f"file_bytes must be a positive whole number, not {file_bytes!r}")
    return [str(binary), "--app", "mftp", *link_args(link), *both_hosts(host_model), *boot_b_args(boot_b),
            *(stack_args or []), "--seed", str(seed), "--no-wall", "--file-size", f"{file_bytes}B", "--",
            *mftp_args, "--get", "src.bin", "--dest", str(dest or root / "got.bin"), ADDR_B, "--",
            "--root", str(root)]


def run_netsim(args: list[str], timeout_s: float | None = None) -> SimResult:
    """Runs a netsim argument list (never through a shell) and parses its records. netsim is
    killed when timeout_s of wall-clock time pass, when this process is stopped, and when it
    dies, even by SIGKILL (netrepro.cleanup.die_with_parent)."""
    binary = Path(args[0])
    if not binary.is_file():
        raise SimError(f"{binary} is missing; build it with `make -C tools`")
    try:
        process = subprocess.run(args, capture_output=True, text=True, timeout=timeout_s, check=False,
                                 preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired as err:
        raise SimError(f"netsim ran longer than {timeout_s:.0f} s of wall-clock time, the limit "
                       "netrepro/deadlines.py gives its plan, and was stopped: it is stuck, or this machine is far "
                       "slower than the limit allows") from err
    records = [json.loads(line) for line in process.stdout.splitlines() if line.strip()]
    errors = [r for r in records if r.get("record") == "error"]
    sims = [r for r in records if r.get("record") == "sim"]
    if process.returncode != 0 or errors or len(sims) != 1:
        detail = "; ".join(r.get("error", "") for r in errors) or process.stderr.strip()
        raise SimError(f"netsim failed with status {process.returncode}: {detail or 'no sim record'}")
    transfers = [r for r in records if r.get("record") == "transfer"]
    segments = [r for r in records if r.get("record") == "segment"]
    debug = [r for r in records if r.get("record") == "tcp_debug"]
    apps = [r for r in records if r.get("record") not in ("sim", "segment", "tcp_debug")]
    return SimResult(records=apps, transfers=transfers, segments=segments, tcp_debug=debug, sim=sims[0],
                     command=list(args))


def run_ttcp_sim(link: LinkParams, send_buffer: int, recv_buffer: int, bytes: int, repeats: int,
                 host_model_a: Path, host_model_b: Path, seed: int, nodelay: bool = False,
                 write_size: int = DEFAULT_WRITE_SIZE, pause_s: float | None = None) -> list[dict[str, Any]]:
    """ttcp's transmitter records, one per transfer, of `repeats` transfers of `bytes` octets
    from host a (send_buffer) to host b (recv_buffer) over link, in virtual time.

    Throughput is the record's sender_bps (first to last write, as comer94 measured it);
    receiver_bytes says what arrived. Raises SimError when anything failed.
    """
    args = ttcp_command(link, send_buffer, recv_buffer, bytes, repeats, host_model_a, host_model_b,
                        seed, nodelay, write_size, pause_s)
    result = run_netsim(args)
    sent = [r for r in result.transfers if r.get("role") == "transmitter"]
    if len(sent) != repeats:
        raise SimError(f"netsim reported {len(sent)} transfers, expected {repeats}")
    return sent
