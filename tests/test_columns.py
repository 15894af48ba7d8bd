"""The one data contract of results.csv (configs/schema/results-columns.json): its own rules, the
doc written from it, and that the aggregator writes every tool's columns, all of them and no
other, as the rows of the tools' own row builders fill them."""
import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from netrepro.spec import AXIS_TOOLS
from netrepro import columns, recovery, sweep
from netrepro.tools import ipcbench, mftp, ttcp
from netrepro.aggregate import table
from netrepro.spec import load_spec
from netrepro.tools import pingx

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "configs"
# Keys a row builder keeps for the run but results.csv leaves out: pingx's send time, for the
# phase checks (netrepro.phase).
RECORD_ONLY = {"pingx": {"t_start_ns"}}


def test_the_shipped_schema_keeps_its_rules() -> None:
    current = columns.schema()
    assert tuple(current.tools) == columns.TOOLS
    for tool in columns.TOOLS:
        names = columns.tool_columns(tool)
        assert names[-1] == "run_id" and len(set(names)) == len(names)
    assert columns.sweep_columns()["added_rtt"] == "added_rtt_ms"
    # Every axis a spec may sweep has its column.
    assert set(columns.sweep_columns()) == {*sweep.LINK_AXES, *AXIS_TOOLS} == set(sweep.PARSERS)


def edited(change) -> dict:
    document = json.loads(columns.SCHEMA_PATH.read_text(encoding="utf-8"))
    change(document)
    return document


@pytest.mark.parametrize("change, message", [
    (lambda d: d["tools"]["ttcp"]["columns"][9].update(type="float"), "ttcp: column nodelay: type 'float'"),
    (lambda d: d["tools"]["mftp"]["columns"].append(d["tools"]["mftp"]["columns"][0]), "paper listed twice"),
    (lambda d: d["tools"]["pingx"]["columns"].pop(), "pingx: the last column is run_drops_client_socket, not run_id"),
    (lambda d: d["sweep"]["columns"][-1].update(type="integer"), "mftp: column window is double, the sweep's"),
    (lambda d: d["tools"]["ipcbench"]["columns"][1].update(description=" "), "column experiment has no description"),
    (lambda d: d["tools"].pop("ipcbench"), "expected ipcbench, mftp, pingx, ttcp"),
    (lambda d: d["sweep"]["columns"][0].pop("axis"), "sweep: column added_rtt_ms names no axis"),
])
def test_a_broken_schema_is_refused_by_tool_and_column(change, message) -> None:
    with pytest.raises(columns.SchemaError, match=message.replace("(", r"\(")):
        columns.parse(edited(change))


def test_docs_results_md_lists_the_schemas_columns() -> None:
    """A stale doc fails here; `python -m netrepro.columns --markdown docs/results.md` mends it."""
    doc = REPO / "docs" / "results.md"
    text = doc.read_text(encoding="utf-8")
    assert columns.with_markdown(text, columns.markdown()) == text
    for tool in columns.TOOLS:
        for column in columns.schema().tools[tool]:
            assert f"| `{column.name}` | {column.type} | {column.description} |" in text


def test_the_markdown_command_rewrites_only_the_marked_section(tmp_path: Path) -> None:
    doc = tmp_path / "results.md"
    doc.write_text(f"before\n\n{columns.BEGIN}\nstale\n{columns.END}\n\nafter\n", encoding="utf-8")
    assert columns.main(["--markdown", str(doc)]) == 0
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("before\n\n") and text.endswith("\n\nafter\n") and "stale" not in text
    assert "| `receiver_ipq_drops` | double |" in text
    unmarked = tmp_path / "plain.md"
    unmarked.write_text("no markers\n", encoding="utf-8")
    assert columns.main(["--markdown", str(unmarked)]) == 2
    assert unmarked.read_text(encoding="utf-8") == "no markers\n"


def pingx_trial():
    base = load_spec(CONFIGS / "liu95cool.yaml").experiments["lan-nasa"]
    experiment = replace(base, host="sparcstation-ipc",
                         settings=replace(base.settings, send_buffer=16384, receive_buffer=24576))
    records = [{"size": 60379, "seq": 0, "rtt_ns": 2_500_000, "datagrams": 8, "datagrams_returned": 8,
                "complete": True, "cool_gap_ns": 7_000_000, "t_start_ns": 5}]
    counters = {key: 1 for keys in pingx.RUN_DROPS.values() for key in keys}
    drops = pingx.run_drops(counters)
    return [(experiment, [{**row, **drops} for row in pingx.message_rows(experiment, "udp-cooled", 1, "r", records)], {})]


def ttcp_trial():
    experiment = load_spec(CONFIGS / "liu95cool-tahoe.yaml", {"profile": "smoke"}).experiments["atm-ttcp-cooling-tahoe"]
    records = [{"record": "transfer", "role": "transmitter", "proto": "udp", "index": i, "bytes": 8192 * 128,
                "receiver_bytes": 8192 * 100, "sender_bps": 6e7, "receiver_bps": 5e7, "sndbuf": 8192,
                "receiver_rcvbuf": 8192, "datagrams_sent": 128, "datagrams_received": 100,
                "cool_spin_ns_per_iter": 275.0} for i in range(experiment.settings.transfers)]
    sim = {key: 1 for key in ttcp.PAIR_COUNTERS.values()}
    sim.update({key: 1 for keys in ttcp.DROP_COUNTERS.values() for key in keys})
    counts = {**ttcp.pair_counts(sim), **ttcp.drop_counts(sim)}
    rows = ttcp.transfer_rows(experiment, 1, "r", 8192, 8192, records, cool_iterations=200)
    return [(experiment, [{**row, **counts} for row in rows], {})]


# A Tahoe backend's per-transfer disk counts (tools/common/nrcounts.h).
DISK = {"disk_ios": 12, "disk_busy_ns": 9 * 10**7, "disk_wait_ns": 4 * 10**7}


def mftp_trial():
    experiment = load_spec(CONFIGS / "ishikura.yaml", {"profile": "smoke"}).experiments["fig1-multi"]
    records = [{"record": "transfer", "tool": "mftp", "index": 0, "connections": 4, "connections_chosen_by": "formula",
                "window_start": 24576, "block_size": 8192, "bytes": 1 << 21, "throughput_bps": 3e7,
                "elapsed_ns": 5 * 10**8, "rtt_ns": 2 * 10**8, "formula_connections": 3.7,
                "reorder_stalls": 0, "held_ahead_max": 16384, **DISK},
               {"record": "transfer", "tool": "mftpd", "block_size": 8192, "write_holds": 0, **DISK}]
    sim = {"b_tcps_sndrexmitpack": 3, "b_tcps_rexmttimeo": 1}
    session = recovery.summary([recovery.Episode((2121, 1024), 0, 4 * 10**8, 24576, 1000, 10**8)])
    point = {"sweep": {"cell_loss_ratio": 3.8e-6, "added_rtt_ms": 200.0, "connections": 4}}
    return [(experiment, mftp.transfer_rows(experiment, 1, "r", records, sim, session), point)]


def ipcbench_trial():
    """UDP fills the segment columns, TCP the buffer's."""
    sim = {"a_v_pgin": 1, "a_v_pgout": 1, "b_v_pgin": 1, "b_v_pgout": 1, "b_udps_fullsock": 1, "b_ips_qdrop": 1,
           "a_ips_odropped": 1, "b_ips_fragtimeout": 1,
           "forward_drop_queue": 1, "medium_a_tx_frames": 9, "medium_b_tx_frames": 9, "medium_a_collisions": 1,
           "medium_b_collisions": 1, "medium_collision_pct": 11.1,
           **{key: 1 for key in ipcbench.KERNEL_COLUMNS}}
    trials = []
    for name in ("collisions-udp", "collisions-tcp"):
        experiment = load_spec(CONFIGS / "milliner.yaml", {"profile": "smoke"}).experiments[name]

        def run_one(curve, size, seed, client, server, limit_s, transfers=experiment.settings.transfers):
            records = [{"record": "message", "role": "client", "proto": curve["curve"].split()[0], "index": i,
                        "size": size, "elapsed_ns": 10**9, "throughput_bps": 8e6, "timing_end": "receiver_ack",
                        "echo_ns": 2 * 10**9, "echo_equal": True, "segments": 9, "acks": 9, "retransmissions": 0,
                        "pageins": 3, "pageouts": 2, **DISK}
                       for i in range(transfers)]
            records += [{"record": "message", "role": "server", "index": i, "pageins": 1, "pageouts": 0, **DISK}
                        for i in range(transfers)]
            return records, sim, {}

        rows, _ = ipcbench.measure_curves(experiment, 1, "r", run_one)
        trials.append((experiment, rows, {}))
    return trials


TRIALS = {"pingx": pingx_trial, "ttcp": ttcp_trial, "mftp": mftp_trial, "ipcbench": ipcbench_trial}


@pytest.mark.parametrize("tool", columns.TOOLS)
def test_the_aggregator_writes_every_schema_column_and_no_other(tool: str) -> None:
    """Each column the rows of a fully measured run carry is in the schema, and each column of the
    schema gets a value: none is written only as NA."""
    written = []
    for experiment, rows, provenance in TRIALS[tool]():
        assert experiment.tool == tool
        swept = [columns.sweep_columns()[axis] for axis, _ in experiment.sweep.axes] if experiment.sweep else []
        expected = columns.tool_columns(tool)
        expected = (*expected[:-1], *(c for c in swept if c not in expected), expected[-1])
        emitted = {key for row in rows for key in row} | set(provenance.get("sweep", {}))
        assert emitted - set(expected) == RECORD_ONLY.get(tool, set())
        text = table(experiment, [(rows, {"backend": "sim", **provenance})])
        header, *_ = text.splitlines()
        assert tuple(header.split(",")) == expected
        written += list(csv.DictReader(io.StringIO(text)))
    never = [c for c in written[0] if all(row[c] in ("NA", "") for row in written)]
    assert never == []
