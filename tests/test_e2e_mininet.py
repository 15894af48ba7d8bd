"""One small real trial through Mininet: topology, link check, echo server, every mode."""
import json
import math
from dataclasses import replace

import pytest

from netrepro.spec import load_spec
from netrepro.tools.pingx import Message
from netrepro.tools import pingx
from tests.conftest import needs_root_and_mininet
from tests.test_spec import SPEC

pytestmark = needs_root_and_mininet()

SIZES = (1024, 12 * 1024 - 1, 300 * 1024)
ECHOES = 2


@pytest.fixture(scope="module", params=["htb", "linkemu"])
def trial(request, tmp_path_factory):
    spec = load_spec(SPEC, {"profile": "smoke", "backend": request.param})
    base = spec.experiments["lan-very-large"]
    experiment = replace(base, settings=replace(base.settings, messages=tuple(Message("", s) for s in SIZES),
                                                echoes=ECHOES))
    out = tmp_path_factory.mktemp(f"trial-{request.param}")
    pingx.run(spec, experiment, 1, out, None, None)
    rows = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    provenance = json.loads((out / "provenance.json").read_text())
    return experiment, rows, provenance


def test_every_mode_and_size_is_measured(trial):
    experiment, rows, _ = trial
    seen = {(r["mode"], r["message_bytes"]) for r in rows}
    assert seen == {(m, s) for m in experiment.settings.modes for s in SIZES}
    assert len(rows) == len(experiment.settings.modes) * len(SIZES) * ECHOES


def test_tcp_echoes_complete_and_obey_the_line_rate(trial):
    experiment, rows, _ = trial
    for row in rows:
        if row["mode"].startswith("tcp"):
            assert row["complete"], row
            # The message crosses the 10 Mb/s line twice; no echo can beat that, less the one
            # frame a token bucket (htb) lets through at once in each direction.
            octets = max(0, row["message_bytes"] - experiment.link.mtu)
            floor_ms = 2 * octets * 8 / experiment.link.forward.rate_bps * 1e3
            assert row["rtt_ms"] > floor_ms, row


def test_udp_counts_datagrams_per_round_trip(trial):
    experiment, rows, _ = trial
    for row in rows:
        if row["mode"].startswith("udp"):
            assert row["datagrams"] == math.ceil(row["message_bytes"] / experiment.settings.datagram), row
            assert 0 <= row["datagrams_returned"] <= row["datagrams"]
            assert row["complete"] == (row["datagrams_returned"] == row["datagrams"])
            assert (row["rtt_ms"] is None) == (not row["complete"])


def total_drops(counters: dict) -> int:
    """Packets the emulated link dropped in both directions, from any backend's counters."""
    if "qdisc" in counters:
        return sum(int(q.get("drops") or 0) for q in counters["qdisc"].values())
    return sum(int(counters[d]["dropped_packets"]) for d in ("forward", "reverse"))


def test_losses_happen_only_where_the_queue_dropped(trial):
    _, rows, provenance = trial
    lost = sum(r["datagrams"] - r["datagrams_returned"] for r in rows)
    drops = total_drops(provenance["link_counters"])
    assert (lost > 0) == (drops > 0)


def test_provenance_says_where_the_numbers_came_from(trial):
    _, rows, provenance = trial
    assert provenance["link_check"]["passed"] is True
    for key in ("git_commit", "spec_hash", "settings_hash", "kernel", "sysctls", "offloads", "tools", "seed",
                "run_order"):
        assert provenance[key], key
    assert len(provenance["run_order"]) == len(rows)
    assert all(not v.startswith("on") or "fixed" in v for o in provenance["offloads"].values() for v in o.values())
    assert provenance["cpu_idle"].startswith("held at 0 us")  # root, as these tests run


def test_drops_by_place_come_from_the_kernels_and_the_links_counters(trial):
    _, rows, provenance = trial
    udp = [r for r in rows if r["mode"].startswith("udp")]
    if provenance["backend"] != "linkemu":
        # htb gives no counters while it runs: the columns stay NA.
        assert all(r.get(column) is None for r in udp for column in pingx.RUN_DROPS)
        return
    for mode in {r["mode"] for r in udp}:
        of_mode = [r for r in udp if r["mode"] == mode]
        drops = {column: of_mode[0][column] for column in pingx.RUN_DROPS}
        assert all(isinstance(v, int) and v >= 0 for v in drops.values()), drops
        assert all({column: r[column] for column in pingx.RUN_DROPS} == drops for r in of_mode)
        lost = sum(r["datagrams"] - r["datagrams_returned"] for r in of_mode)
        # The link's queue is where this path loses (as above).
        assert (lost > 0) == (drops["run_drops_link"] > 0), (mode, lost, drops)
