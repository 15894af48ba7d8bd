"""ipcbench emulated (netrepro/ipcbench.py): the client's and server's argument lists and memory
cgroups, planned without a network; a real memory cgroup (root); one small run end to end on
Mininet over linkemu (root and Mininet)."""
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from netrepro import hostmodel, memcg, phase, stacks
from netrepro.tools import ipcbench
from netrepro.tools.ipcbench import ipcbench_args, run_messages
from netrepro.spec import load_spec
from tests.conftest import needs_root_and_mininet
from tests.test_ipc_plan import BASE

MILLINER = Path(__file__).resolve().parent.parent / "configs" / "milliner.yaml"
# ipcbench's spec of tests/test_ipc_plan.py, emulated: one small TCP message.
TINY = BASE.replace("backend: sim", "backend: linkemu") + (
    "      mode: tcp\n      buffers: [16K]\n      sizes: [256K]\n      host_b: sun-4c-16mb\n      timeout: 20s\n")


def memory_of(model: Path) -> int:
    data = hostmodel.values(model)
    return data["ram_bytes"] - data["resident_bytes"]


def test_the_quick_profile_is_emulated_and_the_paper_profile_is_not() -> None:
    quick = load_spec(MILLINER, {"profile": "quick"}).experiments
    paper = load_spec(MILLINER, {"profile": "paper", "backend": "sim"}).experiments
    assert quick["compare-tcp"].backend == "linkemu" and paper["compare-tcp"].backend == "sim"
    # Fig 8's claim compares about 10 and 20 million bytes, and paging begins between them.
    sizes = quick["compare-udp"].settings.sizes
    assert min(abs(s - 10e6) for s in sizes) < 1e6 and min(abs(s - 20e6) for s in sizes) < 1e6
    assert set(sizes) < set(paper["compare-udp"].settings.sizes)
    # The shared Ethernet is linkemu's emulated, netsim's in virtual time.
    assert quick["collisions-tcp"].backend == "linkemu" and paper["collisions-tcp"].backend == "sim"
    # ONC RPC and its sockets baseline run on the Linux stack, emulated even when sim is asked for.
    for name in ("compare-rpc", "compare-tcp-linux"):
        assert quick[name].backend == "linkemu" and paper[name].backend != "sim" and paper[name].backend_note


def test_argv_of_both_ends_and_their_memory_cgroups() -> None:
    experiment = load_spec(MILLINER, {"profile": "quick"}).experiments["compare-tcp"]
    plan = experiment.settings
    assert plan is not None and plan.host_b_model is not None
    client, server = ipcbench_args(plan, plan.curves()[0], plan.sizes[-1], 2)
    h1 = stacks.tool_args("tahoe", "h1-eth0", "10.0.0.1/24", experiment.host_model, mtu=1500)
    h2 = ipcbench.with_host_model(stacks.tool_args("tahoe", "h2-eth0", "10.0.0.2/24", experiment.host_model,
                                                  mtu=1500), plan.host_b_model)
    argv = ipcbench.client_argv(h1, "tahoe", 7, client, "10.0.0.2")
    assert argv[0].endswith("tools/bin/ipcbench") and argv[-1] == "10.0.0.2"
    assert argv[argv.index("--host-model") + 1] == str(experiment.host_model)
    assert argv[argv.index("--tick-phase") + 1] == phase.host_a_args("tahoe", 7)[1]
    assert argv[argv.index("--buf") + 1] == "50000B" and argv[argv.index("--repeat") + 1] == "2"
    argv = ipcbench.server_argv(h2, "tahoe", server, 2)
    assert argv[1] == "--server" and argv[argv.index("--count") + 1] == "2" and run_messages(client) == 2
    assert argv[argv.index("--host-model") + 1] == str(plan.host_b_model)
    assert "--size" not in argv and argv[argv.index("--buf") + 1] == "50000B"

    plans = ipcbench.memory_plans(experiment)
    assert plans["h1"] == memcg.MemoryPlan(memory_of(experiment.host_model), plan.swap_a)
    assert plans["h2"] == memcg.MemoryPlan(memory_of(plan.host_b_model), plan.swap_b)
    assert plans["h2"].limit_bytes < plans["h1"].limit_bytes


def test_a_limit_is_written_only_with_swap_behind_it() -> None:
    plan = memcg.MemoryPlan(12_000_000, 57 << 20)
    assert plan.files(memsw=True, swap_active=0) == {}
    assert plan.files(memsw=True, swap_active=1 << 30) == {
        "memory.limit_in_bytes": "12000000", "memory.memsw.limit_in_bytes": str(12_000_000 + (57 << 20))}
    assert plan.files(memsw=False, swap_active=1 << 30) == {"memory.limit_in_bytes": "12000000"}
    assert memcg.MemoryPlan(12_000_000, None).files(memsw=True, swap_active=1) == {"memory.limit_in_bytes": "12000000"}
    assert memcg.plan_of(None, None) is None


def test_swap_active_reads_meminfo(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal: 100 kB\nSwapTotal:        2048 kB\n")
    assert memcg.swap_active(meminfo) == 2 << 20
    meminfo.write_text("SwapTotal: 0 kB\n")
    assert memcg.swap_active(meminfo) == 0


def test_stale_cgroups_of_other_runs_are_removed_and_this_runs_kept(tmp_path: Path) -> None:
    mark = "NETREPRO_TEST"
    for name in (f"{memcg.PREFIX}{mark}-old-run1-h1", f"{memcg.PREFIX}{mark}-own-run1-h1",
                 f"{memcg.PREFIX}OTHER_MARK-old-run1-h1", "someone-else"):
        (tmp_path / name).mkdir()
    assert memcg.remove_stale("own", mark, tmp_path) == [f"{memcg.PREFIX}{mark}-old-run1-h1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([
        f"{memcg.PREFIX}OTHER_MARK-old-run1-h1", f"{memcg.PREFIX}{mark}-own-run1-h1", "someone-else"])


def test_counts_of_name_the_paging_as_netsim_does() -> None:
    records = [{"record": "vmstat", "role": "client", "v_zfod": 5, "v_pgin": 3, "v_pgout": 4, "v_frees": 0, "v_maxres": 9},
               {"record": "vmstat", "role": "server", "v_zfod": 1, "v_pgin": 0, "v_pgout": 0, "v_frees": 0, "v_maxres": 1},
               {"record": "message", "role": "client"}]
    memory = {"h1": {"stats": {"pgmajfault": 2, "max_usage_bytes": 100}}, "h2": {"stats": {"pgmajfault": 0}}}
    counts = ipcbench.counts_of(records, memory)
    assert (counts["a_v_pgin"], counts["a_v_pgout"], counts["b_v_pgin"]) == (3, 4, 0)
    assert counts["a_kernel_majfaults"] == 2 and counts["a_peak_bytes"] == 100 and counts["b_peak_bytes"] is None


@pytest.mark.skipif(os.geteuid() != 0 or not (memcg.ROOT / "memory.limit_in_bytes").is_file(),
                    reason="needs root and a cgroup v1 memory hierarchy at /sys/fs/cgroup/memory")
def test_a_real_cgroup_holds_its_process_and_is_removed_even_on_an_error() -> None:
    plan = memcg.MemoryPlan(64 << 20, 16 << 20)
    with pytest.raises(RuntimeError, match="boom"):
        with memcg.MemoryCgroup(f"test-{os.getpid()}", plan) as group:
            child = subprocess.Popen(["sleep", "30"], preexec_fn=group.join)
            time.sleep(0.1)
            assert str(child.pid) in (group.path / "cgroup.procs").read_text().split()
            state = group.state()
            assert state["limit_bytes"] == 64 << 20
            if memcg.swap_active() == 0:
                assert state["applied"] == {} and "NOT applied" in state["kernel_paging"]
            else:
                assert state["applied"]["memory.limit_in_bytes"] == str(64 << 20)
            assert group.stats()["max_usage_bytes"] > 0
            raise RuntimeError("boom")
    assert child.wait(timeout=5) == -9
    assert not group.path.exists()


@needs_root_and_mininet()
def test_one_small_emulated_run_gives_its_row_paging_counts_and_cgroups(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(TINY)
    spec = load_spec(path)
    out = tmp_path / "trial-1"
    ipcbench.run(spec, spec.experiments["e"], 1, out, None, None)
    rows = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(rows) == 1 and rows[0]["completed"] and rows[0]["message_bytes"] == 256 << 10
    # 256K at 10 Mbit/s with the hosts' costs, timed until the server's octet: some Mbit/s,
    # never above the line.
    assert 1 < rows[0]["throughput_mbit"] < 10 and rows[0]["timing_end"] == "receiver_ack"
    # A message that fits pages nothing in the model; the pages it touched were zero-filled.
    assert rows[0]["a_pageins"] == 0 and rows[0]["b_pageouts"] == 0
    assert rows[0]["a_peak_bytes"] > 256 << 10
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["backend"] == "linkemu" and set(provenance["tools"]) >= {"ipcbench", "linkemu"}
    assert provenance["run_order"] == [f"{rows[0]['curve']}:{256 << 10}:1"]
    memory = provenance["runs"][0]["memory"]
    assert set(memory) == {"h1", "h2"} and memory["h2"]["limit_bytes"] < memory["h1"]["limit_bytes"]
    assert all(not (memcg.ROOT / m["cgroup"]).exists() for m in memory.values())


@needs_root_and_mininet()
def test_one_small_emulated_rpc_run_on_the_linux_stack(tmp_path: Path) -> None:
    """ONC RPC (libtirpc) on the kernel's stacks of both hosts, two calls of 256K, each a run of
    its own (the server waits for that run's one call, not the profile's two): its rows are mode
    rpc, timed until the call returned, below the line's 10 Mbit/s."""
    path = tmp_path / "t.yaml"
    path.write_text(TINY.replace("stack: tahoe", "stack: linux").replace("mode: tcp", "mode: rpc")
                    .replace("[16K]", "[4096B]").replace("transfers: 1", "transfers: 2"))
    spec = load_spec(path)
    out = tmp_path / "trial-1"
    ipcbench.run(spec, spec.experiments["e"], 1, out, None, None)
    rows = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert [r["repeat"] for r in rows] == [1, 2] and all(r["completed"] for r in rows)
    assert rows[0]["message_bytes"] == 256 << 10
    assert rows[0]["mode"] == "rpc" and rows[0]["curve"] == "rpc 4096B" and rows[0]["timing_end"] == "rpc_return"
    assert 1 < rows[0]["throughput_mbit"] < 10
    # No Tahoe paging model on the kernel's stack.
    assert rows[0]["a_pageins"] is None
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["tool_args"]["h1"] == ["--stack", "kernel"]
    client = provenance["runs"][0]["client"]
    assert client[client.index("--api") + 1] == "rpc"
