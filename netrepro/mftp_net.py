"""MFTP sessions emulated in real time: h1 -- link -- h2 on Mininet, mftp on h1 GETting
root/src.bin from mftpd on h2 (one session of mftp's --repeat transfers), both on the spec's
stack with the host's costs, the same arrangement as netsim's in virtual time."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from netrepro import phase, stacks
from netrepro.announce import wait_announced
from netrepro.cleanup import finish, kill_group
from netrepro.errors import RunError
from netrepro.linkspec import LinkParams
from netrepro.safepath import open_for_write

TOOLS_BIN = Path(__file__).resolve().parent.parent / "tools" / "bin"
MFTP_PORT = 2121
H1 = ("h1-eth0", "10.0.0.1/24")
H2 = ("h2-eth0", "10.0.0.2/24")
# mftpd's wait for mftp's last reply once mftp is done.
SERVER_STOP_S = 60.0


def write_source(root: Path, size: int, seed: int) -> Path:
    """root/src.bin: size octets drawn from seed, the same on every rerun of the seed."""
    source = root / "src.bin"
    with open_for_write(source, binary=True) as out:
        out.write(random.Random(seed).randbytes(size))
    return source


def hosts_ready(net: Any, stack: str, host_model: Path | None, link: LinkParams,
                space: int | None = None) -> dict[str, list[str]]:
    """Readies h1 and h2 for stack; returns each host's tool arguments (stacks.setup_hosts).
    space (octets): both hosts' default TCP send and receive buffers, on the Tahoe stack and
    as linux-retro's defaults; the kernel stack keeps its own."""
    args = stacks.setup_hosts([(net.h1, *H1), (net.h2, *H2)], stack, host_model, link.mtu,
                              buffers=(space, space) if space else None, frame_times=net.frame_times)
    if space is None or stack != "tahoe":
        return args
    return {host: [*argv, "--tcp-sendspace", f"{space}B", "--tcp-recvspace", f"{space}B"]
            for host, argv in args.items()}


def transfer_records(output: str, tool: str) -> list[dict[str, Any]]:
    try:
        records = [json.loads(line) for line in output.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise RunError(f"{tool} wrote a line that is not JSON: {exc}") from exc
    return [r for r in records if r.get("record") == "transfer"]


def run_session(net: Any, tool_args: dict[str, list[str]], stack: str, root: Path, mftp_args: list[str],
                dest: Path, seed: int, limit_s: float) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One session: mftpd on h2 serving root, then mftp on h1 with mftp_args (its own options:
    -n, --window, --repeat, --timeout, ...) GETting src.bin into dest. Host a's tick phase is
    drawn from seed, as netsim's --boot-b. Returns mftp's and mftpd's transfer records; a
    session still running after limit_s is killed and fails."""
    from netrepro.topology import H2_IP

    timeout = mftp_args[mftp_args.index("--timeout") + 1] if "--timeout" in mftp_args else "120s"
    server = net.h2.popen([str(TOOLS_BIN / "mftpd"), *tool_args["h2"], *phase.host_b_args(stack, seed),
                           "-p", str(MFTP_PORT), "--root", str(root), "--sessions", "1", "--timeout", timeout],
                          stdout=-1, stderr=-1, text=True)
    try:
        wait_announced(server, "mftpd: serving", "mftpd")
        client = net.h1.popen([str(TOOLS_BIN / "mftp"), *tool_args["h1"], *phase.host_a_args(stack, seed),
                               "-p", str(MFTP_PORT), *mftp_args, "--get", "src.bin", "--dest", str(dest), H2_IP],
                              stdout=-1, stderr=-1, text=True)
        client_out, client_err = finish(client, limit_s, "mftp")
        server_out, server_err = finish(server, SERVER_STOP_S, "mftpd")
    finally:
        kill_group(server)
    if client.returncode != 0 or server.returncode != 0:
        raise RunError(f"mftp session failed (mftp exit {client.returncode}, mftpd exit {server.returncode}): "
                       f"{(client_err or server_err or '').strip()[-300:]}")
    return transfer_records(client_out, "mftp"), transfer_records(server_out, "mftpd")
