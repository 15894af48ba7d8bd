"""ipcbench specs: ranges, curves and the errors that name file, line and key."""
from pathlib import Path

import pytest

from netrepro.spec import load_spec
from netrepro.yamlsrc import SpecError

BASE = """paper: t
title: t
profiles:
  quick: {trials: 1, transfers: 1}
experiments:
  e:
    tool: ipcbench
    link: ethernet-10
    stack: tahoe
    host: sun-4c-20mb
    backend: sim
    ipcbench:
"""


def spec(tmp_path: Path, body: str):
    path = tmp_path / "t.yaml"
    path.write_text(BASE + body)
    return load_spec(path)


def test_ranges_and_curves(tmp_path: Path) -> None:
    plan = spec(tmp_path, "      mode: udp\n      segments: 1K..3K step 1K\n      unack: [1, 6]\n"
                          "      sizes: 1M..3M step 1M\n      host_b: sun-4c-16mb\n").experiments["e"].settings
    assert plan.segments == (1024, 2048, 3072)
    assert plan.sizes == (1 << 20, 2 << 20, 3 << 20)
    assert len(plan.curves()) == 6
    assert plan.host_b_model is not None and plan.host_b_model.name == "sun-4c-16mb.yaml"


@pytest.mark.parametrize("body, where", [
    ("      mode: rpc\n      sizes: [1M]\n", "t.yaml:13: experiments.e.ipcbench.mode"),
    ("      mode: udp\n      buffers: [16K]\n      sizes: [1M]\n", "t.yaml:14: experiments.e.ipcbench.buffers"),
    ("      mode: tcp\n      sizes: 3M..1M step 1M\n", "t.yaml:14: experiments.e.ipcbench.sizes"),
])
def test_errors_name_file_line_and_key(tmp_path: Path, body: str, where: str) -> None:
    with pytest.raises(SpecError) as err:
        spec(tmp_path, body)
    assert where in str(err.value)


def rpc_spec(tmp_path: Path, stack: str, backend: str, overrides: dict | None = None):
    path = tmp_path / "t.yaml"
    path.write_text(BASE.replace("stack: tahoe", f"stack: {stack}").replace("backend: sim", f"backend: {backend}")
                    + "      mode: rpc\n      buffers: [4096B]\n      sizes: [1M]\n")
    return load_spec(path, overrides)


def test_rpc_is_planned_emulated_on_the_linux_stack(tmp_path: Path) -> None:
    """libtirpc drives the kernel's sockets: the plan passes --api rpc and the record buffers
    to both ends, and no --proto, which ipcbench's RPC does not take but as tcp."""
    from netrepro.tools.ipcbench import ipcbench_args

    experiment = rpc_spec(tmp_path, "linux", "linkemu").experiments["e"]
    plan = experiment.settings
    assert experiment.backend == "linkemu" and plan is not None and plan.mode == "rpc"
    assert plan.curves() == [{"curve": "rpc 4096B", "segment": None, "unack": None, "buffer": 4096}]
    client, server = ipcbench_args(plan, plan.curves()[0], plan.sizes[0], 2)
    for argv in (client, server):
        assert argv[argv.index("--api") + 1] == "rpc" and argv[argv.index("--buf") + 1] == "4096B"
        assert "--proto" not in argv
    assert client[client.index("--size") + 1] == f"{1 << 20}B" and "--size" not in server
    # --config backend=sim keeps it emulated, and says so.
    experiment = rpc_spec(tmp_path, "linux", "linkemu", {"backend": "sim"}).experiments["e"]
    assert experiment.backend != "sim" and "runs only in emulation" in experiment.backend_note


@pytest.mark.parametrize("backend", ["sim", "linkemu"])
def test_rpc_is_refused_on_the_tahoe_stack(tmp_path: Path, backend: str) -> None:
    with pytest.raises(SpecError, match=r"t\.yaml:13: experiments\.e\.ipcbench\.mode: mode rpc runs on libtirpc, "
                                        r"which drives the kernel's sockets: it cannot run on the Tahoe stack"):
        rpc_spec(tmp_path, "tahoe", backend)


def test_rpc_is_refused_in_virtual_time(tmp_path: Path) -> None:
    """A Linux stack never runs in virtual time, whatever the tool."""
    with pytest.raises(SpecError, match=r"experiments\.e\.backend: backend sim runs the tahoe stack only, not linux"):
        rpc_spec(tmp_path, "linux", "sim")


def test_rpc_rows_are_mode_rpc() -> None:
    """ipcbench's RPC records say proto tcp and api rpc; the rows keep the curves apart."""
    from netrepro.tools.ipcbench import message_rows

    record = {"record": "message", "role": "client", "api": "rpc", "proto": "tcp", "index": 0, "size": 1 << 20,
              "elapsed_ns": 10**9, "timing_end": "rpc_return", "throughput_bps": 8.4e6}
    curve = {"curve": "rpc 4096B", "segment": None, "unack": None, "buffer": 4096}
    rows = message_rows(curve, [record, {**record, "api": "sockets", "role": "server"}], {})
    assert [(r["mode"], r["throughput_mbit"], r["timing_end"]) for r in rows] == [("rpc", 8.4, "rpc_return")]


def test_an_emulated_backend_plans_the_profile_sizes_and_the_hosts_swap(tmp_path: Path) -> None:
    """Emulated ipcbench parses (netrepro/tools/ipcbench.py runs it); a profile's sizes replace
    ipcbench's, and swap_b defaults to swap."""
    path = tmp_path / "t.yaml"
    path.write_text(BASE.replace("backend: sim", "backend: linkemu")
                    .replace("  quick: {trials: 1, transfers: 1}", "  quick: {trials: 1, transfers: 1, sizes: [2M, 3M]}")
                    + "      sizes: 1M..8M step 1M\n      swap: 68M\n")
    experiment = load_spec(path).experiments["e"]
    plan = experiment.settings
    assert experiment.backend == "linkemu"
    assert plan is not None and plan.sizes == (2 << 20, 3 << 20)
    assert plan.swap_a == plan.swap_b == 68 << 20


def test_bad_profile_sizes_name_file_line_and_key(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(BASE.replace("  quick: {trials: 1, transfers: 1}", "  quick: {trials: 1, transfers: 1, sizes: 4M..1M step 1M}")
                    + "      sizes: [1M]\n")
    with pytest.raises(SpecError, match=r"t\.yaml:3: profiles: '4M\.\.1M step 1M': the range must rise"):
        load_spec(path)


@pytest.mark.parametrize("backend", ["netem", "htb"])
def test_shared_medium_is_refused_on_tc(tmp_path: Path, backend: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(BASE.replace("link: ethernet-10", "link: ethernet-10-shared")
                    .replace("backend: sim", f"backend: {backend}") + "      sizes: [1M]\n")
    with pytest.raises(SpecError, match=rf"experiments\.e\.link: link ethernet-10-shared is a shared medium, "
                                        rf"which netsim and linkemu model and {backend} cannot"):
        load_spec(path)


@pytest.mark.parametrize("asked, runs", [("linkemu", "linkemu"), ("auto", "linkemu"), ("sim", "sim")])
def test_shared_medium_runs_on_linkemu_and_netsim(tmp_path: Path, asked: str, runs: str) -> None:
    """auto would pick netem where the kernel has it, which has no shared medium."""
    path = tmp_path / "t.yaml"
    path.write_text(BASE.replace("link: ethernet-10", "link: ethernet-10-shared")
                    .replace("backend: sim", f"backend: {asked}") + "      sizes: [1M]\n")
    assert load_spec(path).experiments["e"].backend == runs


def test_shared_medium_counts_collisions_in_virtual_time(tmp_path: Path) -> None:
    """A short TCP message on the shared Ethernet: data and ACKs collide, and the rows carry
    the counts; on the duplex link the same run counts none."""
    from netrepro.tools.ipcbench import ipcbench_args, ipcbench_command, medium_counts
    from netrepro.sim import run_netsim

    counts = {}
    for link in ("ethernet-10-shared", "ethernet-10"):
        path = tmp_path / "t.yaml"
        path.write_text(BASE.replace("link: ethernet-10", f"link: {link}")
                        + "      mode: tcp\n      buffers: [50000B]\n      sizes: [256K]\n")
        experiment = load_spec(path).experiments["e"]
        plan = experiment.settings
        assert plan is not None
        client, server = ipcbench_args(plan, plan.curves()[0], plan.sizes[0], 1)
        result = run_netsim(ipcbench_command(experiment.link, experiment.host_model, None, 7, client, server))
        counts[link] = medium_counts(result.sim)
    shared = counts["ethernet-10-shared"]
    assert shared["medium_frames"] > 180  # 256K in 1460-octet segments, and the ACKs
    assert 0 < shared["medium_collisions"] < shared["medium_frames"]
    assert shared["collision_pct"] == pytest.approx(100 * shared["medium_collisions"] / shared["medium_frames"])
    assert shared["medium_frames"] == shared["medium_a_frames"] + shared["medium_b_frames"]
    assert shared["medium_collisions"] == shared["medium_a_collisions"] + shared["medium_b_collisions"]
    assert set(counts["ethernet-10"].values()) == {None}


def test_an_unfinished_udp_run_says_where_its_packets_were_lost(tmp_path: Path) -> None:
    """Seven unacknowledged 9000-octet datagrams overrun the sending sun-4c's interface, so the
    run never finishes; its row still counts the drops by place, as a finished run's does."""
    from netrepro.tools.ipcbench import run_sim

    path = tmp_path / "t.yaml"
    path.write_text(BASE + "      mode: udp\n      segments: [9000B]\n      unack: [1, 7]\n      sizes: [1M]\n"
                    "      host_b: sun-4c-16mb\n      timeout: 60s\n")
    rows, provenance = run_sim(load_spec(path).experiments["e"], 1, "t/e/trial-1")
    by_unack = {row["unack"]: row for row in rows}
    assert by_unack[1]["completed"] and by_unack[1]["sender_drops"] == 0
    unfinished = by_unack[7]
    assert unfinished["completed"] is False
    assert unfinished["sender_drops"] > 0 and unfinished["receiver_frag_drops"] > 0
    assert unfinished["link_drops"] == 0 and unfinished["receiver_fullsock"] == 0
    assert provenance["runs"][1]["sim"]["a_ips_odropped"] == unfinished["sender_drops"]
