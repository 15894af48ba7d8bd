"""tool: mftp emulated as the quick profile runs it: one small sweep point of ishikura's fig6,
mftp on h1 fetching from mftpd on h2 over linkemu, both on the Tahoe stack with the
sparcstation-20 model, a row per transfer and the provenance of an emulated run."""
import json
from pathlib import Path

from netrepro.tools import mftp
from netrepro.seeds import link_seed
from netrepro.spec import load_spec
from netrepro.experiment import at_point
from tests.conftest import needs_root_and_mininet

pytestmark = needs_root_and_mininet()
ISHIKURA = Path(__file__).resolve().parent.parent / "configs" / "ishikura.yaml"


def test_one_emulated_point_gives_a_row_per_transfer_with_its_link(tmp_path):
    spec = load_spec(ISHIKURA, {"profile": "smoke", "backend": "linkemu"})
    # fig6's point 18: added RTT 100 ms (the second value), 2 connections.
    experiment = at_point(spec.experiments["fig6"], 18)
    assert dict(experiment.point) == {"added_rtt": 0.1, "connections": 2}
    out = tmp_path / "point-18"
    mftp.run(spec, experiment, 1, out, None, None)
    rows = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(rows) == experiment.settings.transfers
    assert all(r["bytes"] == experiment.settings.transfer_bytes and r["connections"] == 2 for r in rows)
    # 2 x 24K over 100 ms can move at most about 3.9 Mbit/s.
    assert all(0.5 < r["throughput_mbit"] < 2 * 24576 * 8 / 0.1 / 1e6 for r in rows)
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["backend"] == "linkemu"
    assert provenance["link_seed"] == link_seed(experiment.seed, "fig6", 1, "/point-18")
    assert provenance["sweep"] == {"added_rtt_ms": 100.0, "connections": 2}
    assert provenance["link"]["delay_s"] == 0.05
    assert set(provenance["tools"]) >= {"mftp", "mftpd", "linkemu"}
    assert not (out / "files" / "src.bin").exists()


def test_a_receiver_bounded_to_one_block_ahead_stalls_connections_emulated(tmp_path):
    """fig6-reorder1 (mftp --reorder-max of one block) over linkemu: four connections' blocks
    arrive together, so the receiver holds back those beyond its bound and records it, and
    every transfer still completes."""
    spec = load_spec(ISHIKURA, {"profile": "smoke", "backend": "linkemu"})
    experiment = at_point(spec.experiments["fig6-reorder1"], 4)
    assert dict(experiment.point) == {"added_rtt": 0.0, "connections": 4}
    out = tmp_path / "point-4"
    mftp.run(spec, experiment, 1, out, None, None)
    records = json.loads((out / "provenance.json").read_text())["records"]
    client = [r for r in records if r.get("record") == "transfer" and r.get("tool") == "mftp"]
    assert len(client) == experiment.settings.transfers
    assert all(r["bytes"] == experiment.settings.transfer_bytes and r["connections"] == 4 for r in client)
    assert all(0 < r["held_ahead_max"] <= experiment.settings.block for r in client)
    assert sum(r["reorder_stalls"] for r in client) > 0
