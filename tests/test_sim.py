"""netrepro.sim: the netsim argument list, and real virtual-time runs of the binary."""
from pathlib import Path

import pytest

from netrepro.linkfile import link_params
from netrepro.linkspec import with_direction
from netrepro.sim import BINARY, SimError, run_netsim
from netrepro.tools.mftp import mftp_command
from netrepro.tools.ttcp import ttcp_command

REPO = Path(__file__).resolve().parent.parent
IPC = REPO / "configs/hosts/sparcstation-ipc.yaml"
SS20 = REPO / "configs/hosts/sparcstation-20.yaml"

needs_netsim = pytest.mark.skipif(not BINARY.is_file(), reason="needs tools/bin/netsim (make -C tools)")


def atm():
    return link_params("atm-taxi-100")


def value(args, key, start=0):
    return args[args.index(key, start) + 1]


def test_command_carries_link_hosts_and_both_ttcp_ends():
    args = ttcp_command(atm(), 16384, 24576, 1 << 20, 3, IPC, IPC, seed=9, nodelay=True)
    assert args[0] == str(BINARY)
    assert value(args, "--framing") == "aal5-vc-mux"
    assert value(args, "--mtu") == "9188B"
    assert value(args, "--rate") == "100000000bit"
    assert value(args, "--queue-packets") == "50"
    assert value(args, "--host-model-a") == str(IPC)
    assert value(args, "--seed") == "9"
    first = args.index("--")
    second = args.index("--", first + 1)
    tx, rx = args[first + 1:second], args[second + 1:]
    assert tx[0] == "-t" and tx[-1] == "10.0.0.2"
    assert value(tx, "--sndbuf") == "16384B" and "--nodelay" in tx
    assert rx[0] == "-r" and value(rx, "--rcvbuf") == "24576B"
    assert value(tx, "--repeat") == value(rx, "--repeat") == "3"


def test_boot_b_is_passed_when_given_and_left_to_netsim_otherwise():
    args = ttcp_command(atm(), 16384, 24576, 1 << 20, 1, IPC, IPC, seed=1, boot_b=392772117)
    assert value(args, "--boot-b") == "392772117ns"
    assert args.index("--boot-b") < args.index("--")
    assert "--boot-b" not in ttcp_command(atm(), 16384, 24576, 1 << 20, 1, IPC, IPC, seed=1)
    with pytest.raises(SimError, match="boot_b"):
        ttcp_command(atm(), 16384, 24576, 1 << 20, 1, IPC, IPC, seed=1, boot_b=-1)


@needs_netsim
def test_the_same_boot_b_gives_the_same_run_whatever_the_seed_draws():
    # Without boot_b netsim draws the phase from the seed; given, the seed no longer moves it.
    args = ttcp_command(atm(), 16384, 24576, 1 << 20, 1, IPC, IPC, seed=1, boot_b=392772117)
    assert run_netsim(args).transfers == run_netsim(args).transfers
    boots = {run_netsim(ttcp_command(atm(), 16384, 16384, 64 * 1024, 1, IPC, IPC, seed=s,
                                     boot_b=100_000_000)).sim["boot_b_ns"] for s in (1, 2)}
    assert boots == {100_000_000}


@needs_netsim
def test_a_pause_spread_draws_each_pause_from_the_seed():
    def pauses(seed):
        args = ttcp_command(atm(), 49152, 49152, 64 * 1024, 4, IPC, IPC, seed=seed, pause_s=0.5,
                            pause_spread_s=1.0)
        return [r["pause_ns"] for r in run_netsim(args).transfers if r["role"] == "transmitter"]
    first = pauses(3)
    assert first[0] is None
    assert all(500_000_000 <= p < 1_500_000_000 for p in first[1:])
    assert len(set(first[1:])) == 3
    assert pauses(3) == first and pauses(4) != first


def test_no_host_model_means_no_flag():
    args = ttcp_command(atm(), 16384, 24576, 1 << 20, 1, None, IPC, seed=1)
    assert "--host-model-a" not in args and value(args, "--host-model-b") == str(IPC)


def test_command_refuses_bad_values():
    with pytest.raises(SimError, match="send_buffer"):
        ttcp_command(atm(), 0, 24576, 1 << 20, 1, IPC, IPC, seed=1)
    with pytest.raises(SimError, match="jitter"):
        ttcp_command(with_direction(atm(), jitter_s=0.01), 16384, 24576, 1 << 20, 1, IPC, IPC, seed=1)


def transmitted(command):
    return [r for r in run_netsim(command).transfers if r.get("role") == "transmitter"]


@needs_netsim
def test_small_transfers_arrive_whole_and_repeat_identically():
    command = ttcp_command(atm(), 49152, 49152, 256 * 1024, 2, IPC, IPC, seed=4)
    records = transmitted(command)
    assert [r["index"] for r in records] == [0, 1]
    for r in records:
        assert r["role"] == "transmitter" and r["stack"] == "tahoe-sim"
        assert r["bytes"] == r["receiver_bytes"] == 256 * 1024
        assert r["sndbuf"] == 49152 and r["receiver_rcvbuf"] == 49152
        assert 0 < r["sender_bps"] < 100e6
    assert transmitted(command) == records


@needs_netsim
def test_failure_is_a_clear_error():
    args = ttcp_command(atm(), 49152, 49152, 64 * 1024, 1, IPC, REPO / "no-such-host.yaml", seed=1)
    with pytest.raises(SimError, match="no-such-host.yaml"):
        run_netsim(args)


def wan():
    return link_params("atm-wan-emulator")


def test_mftp_command_gets_src_from_host_b_into_the_root(tmp_path):
    args = mftp_command(wan(), SS20, 3, 1 << 20, tmp_path, ["-n", "4", "--window", "24K"])
    assert value(args, "--app") == "mftp" and value(args, "--delay") == "100000000ns"
    assert value(args, "--file-size") == "1048576B" and value(args, "--seed") == "3"
    first = args.index("--")
    second = args.index("--", first + 1)
    client, server = args[first + 1:second], args[second + 1:]
    assert client[:4] == ["-n", "4", "--window", "24K"] and client[-1] == "10.0.0.2"
    assert value(client, "--get") == "src.bin" and value(client, "--dest") == str(tmp_path / "got.bin")
    assert server == ["--root", str(tmp_path)]
    with pytest.raises(SimError, match="file_bytes"):
        mftp_command(wan(), SS20, 3, 0, tmp_path, [])


@needs_netsim
def test_blocking_writes_let_a_connection_waiting_on_a_loss_hold_the_others(tmp_path):
    """mftpd --blocking-writes: one block at a time, so over a lossy path n connections move the
    file more slowly than when each takes data whenever it has room; one connection alike."""
    link = link_params("ethernet-bridged")

    def get(connections: int, blocking: bool) -> tuple[dict, dict]:
        args = mftp_command(link, SS20, 7, 1 << 20, tmp_path, ["-n", str(connections), "--window", "64K",
                                                               "--timeout", "60s"],
                            stack_args=["--sb-max", "64K"], mftpd_args=["--blocking-writes"] if blocking else [])
        records = run_netsim(args).transfers
        client = next(r for r in records if r.get("tool") == "mftp")
        server = next(r for r in records if r.get("tool") == "mftpd")
        assert (tmp_path / "got.bin").read_bytes() == (tmp_path / "src.bin").read_bytes()
        return client, server

    free_client, free_server = get(4, False)
    held_client, held_server = get(4, True)
    assert free_server["write_holds"] == 0 and held_server["write_holds"] > 0
    assert (free_server["blocking_writes"], held_server["blocking_writes"]) == (0, 1)
    assert held_client["throughput_bps"] < 0.8 * free_client["throughput_bps"]
    assert get(1, True)[0]["throughput_bps"] == get(1, False)[0]["throughput_bps"]


@needs_netsim
def test_mftp_run_moves_the_file_intact_and_repeats_identically(tmp_path):
    args = mftp_command(with_direction(wan(), cell_loss_ratio=1e-4), SS20, 5, 512 * 1024, tmp_path,
                        ["-n", "2", "--window", "24K", "--timeout", "60s"])
    first = run_netsim(args)
    client = [r for r in first.transfers if r.get("tool") == "mftp"]
    server = [r for r in first.transfers if r.get("tool") == "mftpd"]
    assert len(client) == len(server) == 1
    assert client[0]["bytes"] == server[0]["bytes"] == 512 * 1024
    assert client[0]["crc32"] == server[0]["crc32"]
    assert (tmp_path / "got.bin").read_bytes() == (tmp_path / "src.bin").read_bytes()
    assert run_netsim(args).records == first.records
