"""liu95cool on the Tahoe stack: the spec's ttcp cooling levels, ttcp over UDP in virtual time
(Fig 15), the rows and drop counters it gives, and the Solaris 2.3 host model."""
import dataclasses
import json
from pathlib import Path

import pytest

from netrepro import measure
from netrepro.errors import RunError
from netrepro.experiment import settings_hash
from netrepro.runsettings import prepared_file
from netrepro.linkfile import link_params
from netrepro.sim import BINARY, SimError, run_netsim
from netrepro.tools.ttcp import ttcp_command
from netrepro.spec import load_spec
from netrepro.tools.ttcp import transfer_rows
from netrepro.tools.ttcp import drop_counts, levels, pair_command
from netrepro.tools import pingx, prepared_once
from netrepro.yamlsrc import SpecError, load_document

REPO = Path(__file__).resolve().parent.parent
SPEC = REPO / "configs" / "liu95cool-tahoe.yaml"
SOLARIS = REPO / "configs" / "hosts" / "sparcstation-ipx-solaris23.yaml"
needs_netsim = pytest.mark.skipif(not BINARY.is_file(), reason="needs tools/bin/netsim (make -C tools)")


def fig15(profile="smoke"):
    return load_spec(SPEC, {"profile": profile}).experiments["atm-ttcp-cooling-tahoe"]


def atm():
    return link_params("atm-oc3-155")


def test_the_spec_gives_every_network_on_the_era_hosts():
    spec = load_spec(SPEC, {"profile": "paper"})
    # Variants (variant_of) move one assumption, such as the queue in the link file, on purpose.
    pingx = [e for exp_id, e in spec.experiments.items() if e.tool == "pingx" and exp_id not in spec.variants]
    assert {e.link_name for e in pingx} == {"ethernet-10-shared", "wan-1995", "atm-oc3-155"}
    assert all(e.stack == "tahoe" and e.backend == "sim" for e in spec.experiments.values())
    assert all((e.trials, e.settings.echoes) == (20, 50) for e in pingx)
    atm_hosts = {e.host for e in spec.experiments.values() if e.link_name == "atm-oc3-155"}
    assert atm_hosts == {"sparcstation-ipx-solaris23"}
    assert {e.settings.cooling_iterations for e in pingx if e.link_name == "atm-oc3-155"} == {100}


def test_fig15_runs_tcp_once_then_udp_at_each_cooling_level():
    experiment = fig15()
    assert levels(experiment) == [None, *experiment.settings.cool_iterations]
    udp = pair_command(experiment, 8192, 8192, 7, cool_iterations=500)
    tcp = pair_command(experiment, 8192, 8192, 7)
    assert udp.count("-u") == 2 and "--cool-spin" in udp and udp[udp.index("--cool-spin") + 1] == "500"
    assert "-u" not in tcp and "--cool-spin" not in tcp


def test_cooling_is_for_udp_only():
    with pytest.raises(SimError, match="UDP only"):
        ttcp_command(atm(), 8192, 8192, 1 << 20, 1, SOLARIS, SOLARIS, seed=1, cool_spin=10)
    with pytest.raises(SimError, match="whole number"):
        ttcp_command(atm(), 8192, 8192, 1 << 20, 1, SOLARIS, SOLARIS, seed=1, udp=True, cool_spin=-1)


def bad_spec(tmp_path, ttcp_extra, backend="sim"):
    text = SPEC.read_text(encoding="utf-8").replace(
        "    tool: ttcp\n    ttcp:\n      send_buffers: [8K]",
        f"    tool: ttcp\n    backend: {backend}\n    ttcp:\n      send_buffers: [8K]", 1)
    text = text.replace("      protocols: [tcp, udp]\n", ttcp_extra, 1)
    path = tmp_path / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_cooling_levels_without_udp_are_refused_with_the_key(tmp_path):
    with pytest.raises(SpecError, match="cool_iterations.*add udp to protocols"):
        load_spec(bad_spec(tmp_path, "      protocols: [tcp]\n"))


def test_ttcp_over_udp_is_refused_outside_virtual_time(tmp_path):
    with pytest.raises(SpecError, match="virtual time only"):
        load_spec(bad_spec(tmp_path, "      protocols: [tcp, udp]\n", backend="auto"))


def udp_record(index, sent, received):
    return {"record": "transfer", "role": "transmitter", "proto": "udp", "index": index, "bytes": 8192 * sent,
            "receiver_bytes": 8192 * received, "sender_bps": 6e7, "receiver_bps": 5e7, "sndbuf": 8192,
            "receiver_rcvbuf": 8192, "datagrams_sent": sent, "datagrams_received": received,
            "cool_spin_ns_per_iter": 275.0}


def test_udp_rows_keep_their_loss_and_cooling():
    rows = transfer_rows(fig15(), 1, "run", 8192, 8192, [udp_record(0, 128, 100)], cool_iterations=200)
    assert rows[0]["proto"] == "udp" and rows[0]["cool_iterations"] == 200
    assert (rows[0]["datagrams_sent"], rows[0]["datagrams_received"]) == (128, 100)
    assert rows[0]["cool_gap_us"] == pytest.approx(55.0)
    # The same short delivery is an error for TCP, which must deliver every octet.
    with pytest.raises(RunError, match="the receiver got"):
        transfer_rows(fig15(), 1, "run", 8192, 8192, [udp_record(0, 128, 100)])


def test_drop_counts_need_the_counters_and_sum_the_link_s_drops():
    sim = {"forward_drop_queue": 2, "forward_drop_loss": 1, "forward_drop_cell_loss": 3,
           "forward_drop_bit_error": 0, "forward_drop_oversize": 0, "b_udps_fullsock": 7,
           "b_ips_qdrop": 1, "b_ips_fragdropped": 0, "b_ips_fragtimeout": 2}
    assert drop_counts(sim) == {"link_drops": 6, "link_cells_lost": 3, "receiver_fullsock": 7,
                                "receiver_ipq_drops": 3}
    with pytest.raises(RunError, match="b_udps_fullsock"):
        drop_counts({k: v for k, v in sim.items() if k != "b_udps_fullsock"})


@needs_netsim
def test_a_udp_stream_on_solaris_hosts_is_lost_in_the_receiver_not_the_link():
    args = ttcp_command(atm(), 8192, 8192, 1 << 20, 1, SOLARIS, SOLARIS, seed=3, udp=True, write_size=8192)
    result = run_netsim(args)
    sent = [r for r in result.transfers if r["role"] == "transmitter"][0]
    lost = sent["datagrams_sent"] - sent["datagrams_received"]
    drops = drop_counts(result.sim)
    assert lost > 0
    assert drops["link_drops"] == 0 and drops["link_cells_lost"] == 0
    assert drops["receiver_fullsock"] >= lost


@needs_netsim
def test_a_fig15_part_writes_tcp_and_udp_rows(tmp_path):
    out = tmp_path / "send-8192"
    assert measure.main(["--spec", str(SPEC), "--experiment", "atm-ttcp-cooling-tahoe", "--trial", "1",
                         "--profile", "smoke", "--out", str(out), "--send-buffer", "8192"]) == 0
    rows = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert [r["cool_iterations"] for r in rows] == levels(fig15())
    udp = [r for r in rows if r["proto"] == "udp"]
    assert all(r["link_cells_lost"] == 0 for r in udp)
    assert udp[0]["datagrams_sent"] > 0


def test_the_solaris_model_costs_more_per_packet_and_call_but_loops_alike():
    ipx = load_document(REPO / "configs" / "hosts" / "sparcstation-ipx.yaml").data
    solaris = load_document(SOLARIS).data
    # Solaris charges its STREAMS hand-offs per hop on top of the protocol work.
    for hops in ("streams_rx_hops", "streams_tx_hops"):
        per_packet = solaris["per_packet_ns"] + solaris[hops] * solaris["streams_hop_ns"]
        assert per_packet > ipx["per_packet_ns"]
    assert solaris["per_call_ns"] > ipx["per_call_ns"]
    assert solaris["per_byte_ps"] == ipx["per_byte_ps"] and solaris["spin_ps"] == ipx["spin_ps"]


def test_the_knee_is_the_fewest_iterations_within_the_margin_of_the_least_loss():
    levels = [{"iterations": 1000, "loss_pct": 90.0}, {"iterations": 4000, "loss_pct": 6.0},
              {"iterations": 2000, "loss_pct": 40.0}, {"iterations": 8000, "loss_pct": 5.5},
              {"iterations": 16000, "loss_pct": 5.0}]
    assert pingx.knee(levels, 1) == 4000
    assert pingx.knee(levels, 0.6) == 8000
    assert pingx.knee(levels, 0) == 16000


def test_a_tuned_loop_is_refused_outside_virtual_time(tmp_path):
    linux = REPO / "configs" / "liu95cool.yaml"
    tune = "    tune: {iterations: [1000, 2000], message: 100K, echoes: 1, margin_points: 1}\n"
    text = linux.read_text(encoding="utf-8").replace("    gap: 7ms\n", tune, 1)
    path = tmp_path / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError, match=r"spec\.yaml:\d+: defaults\.cooling\.tune: .*virtual time"):
        load_spec(path)


@needs_netsim
def test_a_lan_trial_tunes_its_loop_and_both_hosts_cool_by_it(tmp_path):
    spec = load_spec(SPEC, {"profile": "smoke"})
    experiment = spec.experiments["lan-large-tahoe"]
    pingx.run_sim(spec, experiment, 1, tmp_path, None)
    provenance = json.loads((tmp_path / "provenance.json").read_text())
    assert provenance["cooling_tune_prepared"] is False
    tuned = provenance["cooling_tune"]
    levels = {level["iterations"]: level["loss_pct"] for level in tuned["levels"]}
    assert list(levels) == list(experiment.settings.cooling_tune.iterations)
    # Every tuning run keeps its command and netsim's count of its events and virtual time.
    for level in tuned["levels"]:
        assert Path(level["command"][0]).name == "netsim"
        at = level["command"].index("--cool-iterations")
        assert level["command"][at + 1] == str(level["iterations"])
        assert level["events"] > 0 and level["virtual_ns"] > 0
    least = min(levels.values())
    assert levels[tuned["iterations"]] <= least + tuned["margin_points"]
    assert all(loss > least + tuned["margin_points"] for iterations, loss in levels.items()
               if iterations < tuned["iterations"])
    rows = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    gap_us = tuned["iterations"] * pingx.host_spin_ps(experiment.host_model) / 1e6
    cooled = [row for row in rows if row["mode"] == "udp-cooled" and row["datagrams"] > 1]
    assert cooled and all(row["cool_gap_us"] == pytest.approx(gap_us, rel=0.01) for row in cooled)


@needs_netsim
def test_trials_read_the_loop_tuned_once_for_the_experiment_and_refuse_one_of_other_settings(tmp_path, capsys):
    args = ["--spec", str(SPEC), "--experiment", "lan-large-tahoe", "--profile", "smoke"]
    experiment = load_spec(SPEC, {"profile": "smoke"}).experiments["lan-large-tahoe"]
    # A sweep's points differ, so its trials tune their own loop.
    assert prepared_once(experiment) and not prepared_once(dataclasses.replace(experiment, sweep=object()))
    prepared = prepared_file(tmp_path, experiment)
    earlier = tmp_path / "prepared-0123.json"  # made under settings the spec no longer has
    earlier.write_text("{}")
    assert measure.main([*args, "--prepare", str(prepared)]) == 0
    assert not earlier.exists()
    made = json.loads(prepared.read_text())
    assert made["settings_hash"] == settings_hash(experiment)
    # A loop the tune cannot find shows that the trial takes the file's and tunes nothing.
    made["cooling_tune"]["iterations"] = 12345
    prepared.write_text(json.dumps(made))
    assert measure.main([*args, "--trial", "1", "--out", str(tmp_path / "trial-1"), "--prepared", str(prepared)]) == 0
    provenance = json.loads((tmp_path / "trial-1" / "provenance.json").read_text())
    assert provenance["cooling_tune"]["iterations"] == 12345 and provenance["cooling_tune_prepared"] is True
    rows = [json.loads(line) for line in (tmp_path / "trial-1" / "records.jsonl").read_text().splitlines()]
    gap_us = 12345 * pingx.host_spin_ps(experiment.host_model) / 1e6
    cooled = [row for row in rows if row["mode"] == "udp-cooled" and row["datagrams"] > 1]
    assert cooled and all(row["cool_gap_us"] == pytest.approx(gap_us, rel=0.01) for row in cooled)
    prepared.write_text(json.dumps({**made, "settings_hash": "0" * 64}))
    capsys.readouterr()
    assert measure.main([*args, "--trial", "1", "--out", str(tmp_path / "trial-2"), "--prepared", str(prepared)]) == 2
    assert "made under other settings" in capsys.readouterr().err
    assert not (tmp_path / "trial-2" / "provenance.json").exists()


def test_emulated_drops_take_each_host_from_its_tool_and_the_link_from_linkemu_s_difference():
    host = {"record": "drops", "tool": "pingx", **{f"host_{k}": 0 for k in (
        "udps_fullsock", "ips_qdrop", "ips_fragdropped", "ips_fragtimeout", "ips_odropped")}}
    client = {**host, "host_udps_fullsock": 3}
    echo = {**host, "tool": "echod", "host_ips_qdrop": 2, "host_ips_odropped": 1}
    before = {"forward": {"drop_queue": 5, "drop_loss": 1}, "reverse": {"drop_cell_loss": 0}}
    after = {"forward": {"drop_queue": 9, "drop_loss": 1, "drop_cell_loss": 0, "drop_bit_error": 0,
                         "drop_oversize": 0, "rx_packets": 99},
             "reverse": {"drop_queue": 0, "drop_loss": 0, "drop_cell_loss": 2, "drop_bit_error": 0,
                         "drop_oversize": 0}}
    drops = pingx.emulated_run_drops(client, [echo], before, after)
    assert drops == {"run_drops_send_queue": 1, "run_drops_link": 6, "run_drops_echo_ipq": 2,
                     "run_drops_echo_socket": 0, "run_drops_client_ipq": 0, "run_drops_client_socket": 3}
    experiment = load_spec(SPEC, {"profile": "smoke"}).experiments["atm-very-large-tahoe"]
    assert pingx.mode_drops(experiment, client, [echo], {"link": before}, {"link": after}) == drops
    # No emulator counters while it runs: the columns stay NA.
    assert pingx.mode_drops(experiment, client, [echo], None, None) == {}
    with pytest.raises(RunError, match="printed no drops record"):
        pingx.mode_drops(experiment, client, [None], {"link": before}, {"link": after})
    with pytest.raises(RunError, match="lack.* b_udps_fullsock"):
        pingx.emulated_run_drops(client, [{"tool": "echod"}], before, after)
