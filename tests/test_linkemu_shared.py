"""linkemu --medium shared from netrepro: the argument list for a shared link, the refusal of
links the medium cannot be, the counts of a run between two of linkemu's records, and one small
TCP run over the shared Ethernet on Mininet (root and Mininet) whose rows count the medium."""
import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from netrepro.backends import BackendError
from netrepro.backends.linkemu import LinkemuBackend, drop_delta, link_args, medium_delta, refuse_unsupported
from netrepro.tools import ipcbench
from netrepro.tools.ipcbench import message_rows
from netrepro.linkfile import link_params
from netrepro.linkspec import with_direction
from netrepro.sim import link_args as netsim_link_args
from netrepro.spec import load_spec
from tests.conftest import needs_root_and_mininet
from tests.test_backend_linkemu import NetnsNode, needs_netns
from tests.test_ipc_net import TINY


def link(name: str = "ethernet-10-shared"):
    return link_params(name)


def test_a_shared_link_asks_linkemu_and_netsim_for_the_medium_once() -> None:
    args = link_args(link())
    at = args.index("--medium")
    assert args[at:at + 2] == ["--medium", "shared"] and args.count("--medium") == 1
    # The segment's other stations (configs/links/ethernet-10-shared.yaml: background).
    assert args[args.index("--background-fps") + 1] == f"{link().background_fps:g}"
    assert netsim_link_args(link()) == args
    assert "--medium" not in link_args(link("ethernet-10"))


def test_a_shared_medium_with_loss_or_two_rates_is_refused() -> None:
    refuse_unsupported(link())
    for bad in (with_direction(link(), loss_pct=1.0), replace(link(), reverse=replace(link().reverse, rate_bps=1e6))):
        with pytest.raises(BackendError, match="a shared medium is an Ethernet"):
            refuse_unsupported(bad)


def record(a_tx: int, a_coll: int, b_tx: int, b_coll: int) -> dict:
    counts = {f"medium_{side}_{key}": 0 for side in "ab"
              for key in ("offered", "tx_frames", "collisions", "deferrals", "excessive", "drop_queue")}
    counts.update(medium_a_tx_frames=a_tx, medium_a_collisions=a_coll, medium_b_tx_frames=b_tx,
                  medium_b_collisions=b_coll, medium_a_drop_queue=a_coll // 2)
    return counts


def test_a_runs_counts_are_the_difference_of_two_records_under_netsims_names() -> None:
    counts = medium_delta(record(10, 1, 5, 1), record(110, 5, 55, 3))
    assert counts["medium_a_tx_frames"] == 100 and counts["medium_b_collisions"] == 2
    assert counts["medium_collision_pct"] == pytest.approx(100 * 6 / 150)
    row, = message_rows({"curve": "c"}, [{"record": "message", "role": "client", "index": 0, "proto": "tcp",
                                         "size": 1, "elapsed_ns": 1, "throughput_bps": 1}], counts)
    assert (row["medium_frames"], row["medium_collisions"]) == (150, 6)
    assert (row["medium_a_frames"], row["medium_a_collisions"], row["medium_b_frames"], row["medium_b_collisions"]) \
        == (100, 4, 50, 2)
    assert row["collision_pct"] == pytest.approx(4.0) and row["link_drops"] == 2
    assert medium_delta(record(3, 0, 0, 0), record(3, 0, 0, 0))["medium_collision_pct"] == 0.0


@needs_netns
def test_snapshots_count_a_span_while_linkemu_forwards(namespaces, tmp_path: Path) -> None:
    """Pings take turns on the shared medium; the snapshots around them count their frames, and
    linkemu forwards on to its final record."""
    names, if_a, if_b = namespaces
    backend = LinkemuBackend()
    # Without the segment's other stations, whose frames could collide with the pings.
    quiet = replace(link(), background_fps=0.0)
    backend.start(NetnsNode(names["mid"]), if_a, if_b, quiet, tmp_path)
    try:
        ping = ["ip", "netns", "exec", names["h1"], "ping", "-c", "5", "-i", "0.05", "-W", "2", "10.231.0.2"]
        subprocess.run(ping, capture_output=True, timeout=30)  # ARP settles first
        before = backend.snapshot()
        done = subprocess.run(ping, capture_output=True, text=True, timeout=30)
        after = backend.snapshot()
    finally:
        final = backend.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    assert before["snapshot"] == 1 and after["snapshot"] == 2 and not after["final"] and final["final"]
    assert before["medium"] == "shared" and "--medium" in backend.settings()["command"]
    span = medium_delta(before, after)
    # Five requests from a, five replies from b, one at a time: no collision.
    assert span["medium_a_tx_frames"] >= 5 and span["medium_b_tx_frames"] >= 5
    assert span["medium_a_collisions"] == span["medium_b_collisions"] == 0
    assert final["medium_a_tx_frames"] >= after["medium_a_tx_frames"]
    # Every frame host a's interface sent went out of linkemu towards b.
    assert final["forward"]["tx_packets"] == final["medium_a_tx_frames"]


@needs_root_and_mininet()
def test_a_small_tcp_run_over_the_shared_ethernet_on_linkemu_counts_the_medium(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(TINY.replace("link: ethernet-10", "link: ethernet-10-shared"))
    spec = load_spec(path)
    out = tmp_path / "trial-1"
    ipcbench.run(spec, spec.experiments["e"], 1, out, None, None)
    rows = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(rows) == 1 and rows[0]["completed"]
    provenance = json.loads((out / "provenance.json").read_text())
    run = provenance["runs"][0]["medium"]
    # 256K from a in 1460-octet segments, and b's ACKs: every frame either host's interface
    # took went out whole (none queued past 50, none given up), and the row counts them.
    assert run["medium_a_tx_frames"] > (256 << 10) // 1460
    assert run["medium_b_tx_frames"] > 0
    for side in "ab":
        assert run[f"medium_{side}_tx_frames"] == run[f"medium_{side}_offered"]
        assert run[f"medium_{side}_excessive"] == run[f"medium_{side}_drop_queue"] == 0
    assert rows[0]["medium_frames"] == run["medium_a_tx_frames"] + run["medium_b_tx_frames"]
    assert rows[0]["medium_collisions"] == run["medium_a_collisions"] + run["medium_b_collisions"]
    # b's ACKs wait for a's frames: as LANCEs, its deferring ACKs let a's next frame go first.
    assert run["medium_b_deferrals"] > 0
    assert rows[0]["collision_pct"] == pytest.approx(100 * rows[0]["medium_collisions"] / rows[0]["medium_frames"])


def test_drop_delta_gives_each_cause_and_direction_under_netsim_s_names():
    before = {"forward": {"drop_queue": 5, "drop_loss": 1, "rx_packets": 10}, "reverse": {"drop_queue": 0}}
    after = {"forward": {"drop_queue": 9, "drop_loss": 1, "rx_packets": 90},
             "reverse": {"drop_queue": 2, "drop_cell_loss": 3}}
    assert drop_delta(before, after) == {"forward_drop_queue": 4, "forward_drop_loss": 0,
                                         "reverse_drop_queue": 2, "reverse_drop_cell_loss": 3}
