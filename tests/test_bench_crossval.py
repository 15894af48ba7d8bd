"""benchmarks/crossval/bench_crossval.py: its comparisons on hand-made rows and records, and a
reduced MFTP case on both backends (the emulated half needs root and Mininet)."""
import json
from dataclasses import asdict, replace
from pathlib import Path
from types import ModuleType

import pytest

from netrepro.spec import load_spec
from tests.conftest import REPO, load_script, needs_root_and_mininet


@pytest.fixture
def bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module = load_script("benchmarks/crossval/bench_crossval.py", "bench_crossval")
    monkeypatch.setattr(module, "WORK", tmp_path / "work")
    return module


def transfer(send: int, recv: int, backend: str, mbit: float) -> dict[str, str]:
    return {"send_buffer": str(send), "recv_buffer": str(recv), "backend": backend, "throughput_mbit": str(mbit)}


def test_transfers_compare_per_pair_and_split_lockstep(bench: ModuleType) -> None:
    rows = [transfer(16384, 16384, "sim", 20.0), transfer(16384, 16384, "linkemu", 19.5),
            transfer(16384, 24576, "sim", 0.33), transfer(16384, 24576, "linkemu", 18.0),
            transfer(20480, 20480, "sim", 21.0)]
    report = bench.compare_transfers(rows, {}, {}, {})
    assert report["pairs"] == 2  # 20K/20K ran on one backend only
    normal, locked = report["cells"]
    assert normal["within"] and normal["same_regime"]
    assert normal["diff_pct"] == pytest.approx((20.0 - 19.5) / 19.5 * 100)
    assert not locked["within"] and not locked["same_regime"]
    assert locked["sim_lockstep_share"] == 1 and locked["emulated_lockstep_share"] == 0
    assert report["pairs_same_regime_within"] == 1


def test_unsettled_pairs_are_judged_over_their_extra_seeds(bench: ModuleType) -> None:
    bench.EXTRA_SEEDS = 2
    rows = [transfer(16384, 16384, "sim", 20.0), transfer(16384, 16384, "linkemu", 19.5),
            transfer(20480, 20480, "sim", 30.0), transfer(20480, 20480, "linkemu", 22.0),
            transfer(24576, 24576, "sim", 30.0), transfer(24576, 24576, "linkemu", 22.0)]
    tight = [20.0 + 0.01 * k for k in range(40)]
    loose = [22.0, 35.0] * 20
    spread = {(16384, 16384): tight, (20480, 20480): loose, (24576, 24576): loose}
    # The emulated 20K pair under the two extra seeds: sim 22 and 35 there, emulated 35 and 30.
    extra = {"20480/20480": [[35.0], [30.0]]}
    report = bench.compare_transfers(rows, spread, extra, {})
    settled, judged, unmeasured = report["cells"]
    assert settled["settled"] and settled["agrees"]
    assert not judged["settled"] and not judged["within"]
    assert judged["sim_seeds_mbit"] == [30.0, 22.0, 35.0]
    assert judged["emulated_seeds_mbit"] == [22.0, 35.0, 30.0]
    assert judged["agrees"]
    assert unmeasured["agrees"] is None
    assert report["pairs_settled"] == 1 and report["pairs_unsettled"] == 2
    assert report["pairs_unsettled_compared_over_seeds"] == 1
    assert report["pairs_agree"] == 2
    # Next seed against the last: the tight pair always within 5%, the loose one never.
    assert report["sim_self_pairs_within"] == pytest.approx(1.0)
    extra["20480/20480"] = [[35.0], [10.0]]
    assert not bench.compare_transfers(rows, spread, extra, {})["cells"][1]["agrees"]


def test_a_second_emulated_run_is_compared_with_the_first_and_with_the_sim(bench: ModuleType) -> None:
    rows = [transfer(16384, 16384, "sim", 20.0), transfer(16384, 16384, "linkemu", 19.5),
            transfer(20480, 20480, "sim", 30.0), transfer(20480, 20480, "linkemu", 22.0)]
    report = bench.compare_transfers(rows, {}, {}, {"16384/16384": [19.0, 19.2], "20480/20480": [29.0]})
    steady, flipped = report["cells"]
    assert steady["emulated_again_mbit"] == pytest.approx(19.1)
    assert steady["emulated_self_diff_pct"] == pytest.approx((19.1 - 19.5) / 19.5 * 100)
    assert flipped["sim_vs_emulated_again_diff_pct"] == pytest.approx((30.0 - 29.0) / 29.0 * 100)
    assert report["pairs_emulated_again"] == 2
    assert report["emulated_self_pairs_within"] == 1  # 22 then 29: the emulation moved
    assert report["sim_vs_emulated_again_pairs_within"] == 2
    assert "the emulation against itself: 1 of 2 pairs" in bench.markdown(
        {"comer94/table1": report, "liu95db/atm": {}, "mftp": {"compared": False, "note": "-"}})


def test_the_emulation_plans_cover_unsettled_pairs_and_every_pair_once_more(bench: ModuleType) -> None:
    experiment = bench.table1_experiment()
    pairs = bench.table1_pairs(experiment)
    tight, loose = [20.0] * 40, [22.0, 35.0] * 20
    spread = {p: (loose if p == pairs[3] else tight) for p in pairs}
    extra = bench.extra_seeds_plan(experiment, spread)
    own = bench.pair_seed(experiment, 1, *pairs[3])
    assert extra == {pairs[3]: [bench.spread_seed(own, k) for k in range(1, bench.EXTRA_SEEDS + 1)]}
    again = bench.repeat_plan(experiment)
    assert len(again) == len(pairs) and again[pairs[3]] == [own]


def test_spread_seeds_differ_from_each_other_and_repeat(bench: ModuleType) -> None:
    seeds = [bench.spread_seed(12345, k) for k in range(1, 51)]
    assert len(set(seeds)) == 50 and 12345 not in seeds
    assert seeds == [bench.spread_seed(12345, k) for k in range(1, 51)]
    assert bench.is_settled([10.0, 10.2, 9.9, 10.1] * 10)
    assert not bench.is_settled([10.0, 10.2, 9.9, 11.0] * 10)


def test_echoes_compare_medians_and_udp_loss_bounds(bench: ModuleType) -> None:
    def echo(backend: str, mode: str, rtt: str, sent: int, back: int) -> dict[str, str]:
        return {"experiment": "atm-8k", "mode": mode, "message_bytes": "8192", "backend": backend,
                "rtt_ms": rtt, "datagrams": str(sent), "datagrams_returned": str(back)}

    rows = [echo("sim", "tcp", "200", 1, 1), echo("sim", "tcp", "210", 1, 1), echo("linkemu", "tcp", "205", 1, 1),
            echo("sim", "udp", "3", 100, 99), echo("linkemu", "udp", "NA", 100, 60), echo("linkemu", "udp", "4", 100, 60)]
    report = bench.compare_echoes(rows)
    tcp, udp = report["rows"]
    assert tcp["within"] and tcp["sim_median_ms"] == 205
    assert not udp["within"] and not udp["loss_bounds_overlap"]
    assert bench.wilson(0, 0) == (0.0, 1.0)


def test_each_echo_case_has_its_own_row(bench: ModuleType) -> None:
    def echo(experiment: str, backend: str, rtt: str) -> dict[str, str]:
        return {"experiment": experiment, "mode": "tcp", "message_bytes": "8192", "backend": backend,
                "rtt_ms": rtt, "datagrams": "0", "datagrams_returned": "0"}

    atm = bench.compare_echoes([echo("atm-8k", "sim", "200"), echo("atm-8k", "linkemu", "201")])
    ethernet = bench.compare_echoes([echo("ethernet-8k", "sim", "20"), echo("ethernet-8k", "linkemu", "30")])
    table = bench.markdown({"comer94/table1": {}, "liu95db/atm": atm, "liu95db/ethernet": ethernet,
                            "mftp": {"compared": False, "note": "-"}})
    assert "| liu95db ATM echoes, quick | 1 (experiment, mode, size) | 1 of 1 |" in table
    assert "| liu95db shared-Ethernet echoes, quick | 1 (experiment, mode, size) | 0 of 1 |" in table
    assert bench.CASES["liu95db/ethernet"][2] == bench.SHARED_ETHERNET_ECHOES


def test_the_emulated_pass_keeps_the_specs_own_backends(bench: ModuleType) -> None:
    passes = bench.EMULATION_PASSES
    assert not any(o.startswith("backend=") for o in passes[0]) and passes[-1] == ["backend=sim"]
    for key, (_, spec, experiments) in bench.CASES.items():
        loaded = load_spec(REPO / spec, {"profile": "quick"}).experiments
        assert all(loaded[e].backend in ("auto", "linkemu") for e in experiments), key


def mftp_record(name: str, mbit: float, crc: str = "00c0ffee") -> dict:
    client = {"throughput_bps": mbit * 1e6, "crc32": crc, "crc32_python": crc}
    return {name: 1, "client": client, "server": {"crc32": crc}, "source_crc32": crc,
            "data_packets": 500, "cell_loss_drops": 1}


def test_mftp_compares_only_what_both_backends_measured_for_this_case(bench: ModuleType) -> None:
    assert not bench.compare_mftp()["compared"]
    bench.WORK.mkdir(parents=True)
    case = asdict(bench.MFTP)
    bench.builds = lambda names: {name: "sha256:1" for name in names}
    host = bench.hostmodel.digest(bench.host_model())
    sim = {"case": case, "host_model": host, "builds": bench.builds(["netsim"]), "backend": "sim",
           "runs": [mftp_record("seed", 2.9), mftp_record("seed", 3.1)]}
    emulated = {"case": case, "host_model": host, "builds": bench.builds(["mftp", "mftpd", "linkemu"]),
                "backend": "linkemu",
                "runs": [mftp_record("repeat", 2.8)], "data_packets": 500, "cell_loss_drops": 2}
    (bench.WORK / "mftp-sim.json").write_text(json.dumps(sim))
    (bench.WORK / "mftp-emulated.json").write_text(json.dumps(emulated))
    report = bench.compare_mftp()
    assert report["compared"] and report["all_intact"] and report["loss_bounds_overlap"]
    assert report["diff_pct"] == pytest.approx((3.0 - 2.8) / 2.8 * 100)
    assert not report["within"]
    assert report["sim_loss"]["drops"] == 2 and report["sim_loss"]["packets"] == 1000
    assert "MFTP GET" in bench.markdown({"comer94/table1": {}, "liu95db/atm": {}, "mftp": report})
    emulated["runs"][0]["client"]["crc32_python"] = "deadbeef"
    (bench.WORK / "mftp-emulated.json").write_text(json.dumps(emulated))
    assert not bench.compare_mftp()["all_intact"]
    bench.builds = lambda names: {name: "sha256:2" for name in names}
    assert not bench.compare_mftp()["compared"]  # records of another build do not count
    bench.builds = lambda names: {name: "sha256:1" for name in names}
    emulated["runs"][0]["client"]["crc32_python"] = "00c0ffee"
    (bench.WORK / "mftp-emulated.json").write_text(json.dumps({**emulated, "host_model": "another model's values"}))
    assert not bench.compare_mftp()["compared"]  # records of another host model do not count
    (bench.WORK / "mftp-emulated.json").write_text(json.dumps(emulated))
    assert bench.compare_mftp()["compared"]
    bench.MFTP = replace(bench.MFTP, repeats=3)
    assert not bench.compare_mftp()["compared"]  # records of another case do not count


def test_runs_of_another_build_are_set_aside(bench: ModuleType, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "REPO", tmp_path)
    monkeypatch.setattr(bench, "TOOLS_BIN", tmp_path / "bin")
    (tmp_path / "bin").mkdir()
    for name in ("ttcp", "linkemu", "netsim"):
        (tmp_path / "bin" / name).write_bytes(name.encode())
    now = bench.builds(["ttcp", "linkemu", "netsim"])
    quick = tmp_path / "results" / "comer94" / "table1" / "runs" / "quick"
    kept = {"linkemu": {"send-16384": {"ttcp": now["ttcp"], "linkemu": now["linkemu"]},
                        "send-20480": {"ttcp": now["ttcp"], "linkemu": "sha256:old"},
                        "send-24576": {"ttcp": now["ttcp"]}},
            "sim": {"send-16384": {"netsim": now["netsim"]},
                    "send-20480": {"netsim": "sha256:old"}}}
    for backend, parts in kept.items():
        for part, tools in parts.items():
            (quick / backend / "trial-1" / part).mkdir(parents=True)
            (quick / backend / "trial-1" / part / "provenance.json").write_text(
                json.dumps({"tools": {**tools, "python": "3.11.2"}}))
    assert bench.set_aside_stale_runs(["liu95db/atm"]) == []  # another case's runs stay
    moved = bench.set_aside_stale_runs(["comer94/table1"])
    assert sorted(str(Path(m).relative_to(Path(m).parents[2])) for m in moved) == [
        "linkemu/trial-1/send-20480", "linkemu/trial-1/send-24576", "sim/trial-1/send-20480"]
    for backend in ("linkemu", "sim"):
        assert (quick / backend / "trial-1" / "send-16384").is_dir()
        assert not (quick / backend / "trial-1" / "send-20480").exists()
    assert (bench.WORK / "stale" / "comer94" / "table1" / "runs" / "quick" / "sim" / "trial-1" / "send-20480"
            / "provenance.json").is_file()
    assert bench.set_aside_stale_runs(list(bench.CASE_KEYS)) == []


def test_kept_emulated_pairs_count_only_for_their_build(bench: ModuleType) -> None:
    experiment = bench.table1_experiment()
    bench.builds = lambda names: {name: "sha256:1" for name in names}
    bench.WORK.mkdir(parents=True)
    record = {"settings_hash": bench.settings_hash(experiment), "seeds": 1,
              "builds": bench.builds(bench.TABLE1_EMULATED_BUILDS), "pairs": {"16384/16384": [[20.0]]}}
    (bench.WORK / bench.REPEAT_FILE).write_text(json.dumps(record))
    assert bench.read_repeat(experiment) == {"16384/16384": [20.0]}
    bench.builds = lambda names: {name: "sha256:2" for name in names}
    assert bench.read_repeat(experiment) == {}


@pytest.mark.skipif(not (REPO / "tools" / "bin" / "netsim").is_file(), reason="needs tools/bin (make build)")
def test_mftp_sim_runs_move_the_file_intact(bench: ModuleType) -> None:
    bench.MFTP = replace(bench.MFTP, file_bytes=512 << 10, repeats=2)
    runs = bench.mftp_sim_runs()["runs"]
    assert [r["seed"] for r in runs] == [1, 2]
    for run in runs:
        assert run["client"]["bytes"] == 512 << 10
        assert run["client"]["crc32"] == run["server"]["crc32"]
        assert run["data_packets"] > (512 << 10) // 9188


@needs_root_and_mininet()
def test_mftp_emulated_runs_move_the_file_intact_on_the_tahoe_stack(bench: ModuleType) -> None:
    bench.MFTP = replace(bench.MFTP, file_bytes=512 << 10, repeats=1, cell_loss_ratio=0.0)
    measured = bench.mftp_emulated_runs()
    (run,) = measured["runs"]
    assert run["client"]["stack"] == "tahoe" and run["client"]["bytes"] == 512 << 10
    assert run["client"]["crc32"] == run["server"]["crc32"]
    assert run["client"]["crc32_python"] == run["source_crc32"]
    assert measured["data_packets"] > (512 << 10) // 9188 and measured["cell_loss_drops"] == 0


def test_a_run_of_some_cases_carries_the_others_and_says_when_each_was_measured(
        bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "RESULTS", tmp_path / "results")
    assert bench.carried_cases(["mftp"]) == {}  # no report yet
    (tmp_path / "results").mkdir()
    atm = {"items": 1, "items_within": 1, "rows": []}
    ethernet = {"items": 2, "items_within": 1, "rows": [], "measured": {"date": "2026-11-27", "commit": "abc1234"}}
    (tmp_path / "results" / "crossval.json").write_text(json.dumps(
        {"benchmark": "crossval", "liu95db/atm": atm, "liu95db/ethernet": ethernet, "mftp": {"compared": False}}))
    carried = bench.carried_cases(["mftp"])
    assert carried == {"liu95db/atm": atm, "liu95db/ethernet": ethernet}
    table = bench.markdown(carried)
    assert "| 1 of 1 | UDP loss bounds overlap in 0 of 0 (an earlier run, its date not recorded) |" in table
    assert "(measured 2026-11-27 at abc1234) |" in table
    assert "MFTP" not in table and "comer94" not in table
    assert set(bench.measured_stamp()) == {"commit", "date"}


def test_milliner_transfers_compare_median_times_and_the_sims_seed_spread(bench: ModuleType) -> None:
    def run(backend: str, size: int, elapsed: str, completed: str = "TRUE") -> dict[str, str]:
        return {"experiment": "udp-unack", "curve": "udp 9000B 6UnAck", "message_bytes": str(size),
                "segment": "9000", "unack": "6", "buffer": "NA", "medium_frames": "100",
                "medium_collisions": "1" if backend == "sim" else "30",
                "backend": backend, "elapsed_s": elapsed, "completed": completed}

    rows = [run("sim", 1 << 20, "1.00"), run("sim", 1 << 20, "1.10"), run("linkemu", 1 << 20, "1.02"),
            run("linkemu", 1 << 20, "9.0", completed="FALSE"),  # an unfinished transfer has no time
            run("sim", 2 << 20, "2.0"), run("linkemu", 2 << 20, "2.5"),
            run("sim", 3 << 20, "3.0")]  # one backend only: not compared
    command = ["netsim", "--seed", "7", "--", "--proto", "udp", "--segment", "9000B", "--unack", "6",
               "--size", f"{2 << 20}B", "10.0.0.2", "--", "--proto", "udp"]
    item = bench.ipcbench_command_item("udp-unack", command)
    assert item == ("udp-unack", str(2 << 20), "9000", "6", "NA")
    spread = {item: [2.0, 2.1, 2.4, 2.5, 1.9]}  # 2 MB moves with the seed: 2.5 s lies in its spread
    report = bench.compare_ipcbench(rows, spread)
    assert report["items"] == 2 and report["items_within"] == 1
    assert report["rows"][0]["diff_pct"] == pytest.approx((1.05 - 1.02) / 1.02 * 100)
    assert report["mean_abs_diff_pct"] == pytest.approx((abs(report["rows"][0]["diff_pct"]) + 20.0) / 2)
    assert "settled" not in report["rows"][0]  # no spread measured for 1 MB
    assert report["rows"][1]["in_sim_spread"] and not report["rows"][1]["settled"]
    assert (report["items_with_spread"], report["items_in_sim_spread"], report["items_settled"]) == (1, 1, 0)
    assert not bench.compare_ipcbench(rows, {item: [2.0, 2.0, 2.01]})["rows"][1]["in_sim_spread"]
    assert report["collision_pct"] == {"sim": 1.0, "emulated": 30.0}  # completed runs only
    table = bench.markdown({"milliner/ipcbench": report})
    assert "| milliner transfers on the shared Ethernet, quick | 2 (experiment, curve, size) | 1 of 2 |" in table
    assert "Collisions per frame on the medium: 1.00% in virtual time, 30.00% emulated" in table
    assert bench.client_elapsed_s([{"record": "message", "role": "client", "elapsed_ns": 2e9},
                                   {"record": "message", "role": "server", "elapsed_ns": 1e9}]) == 2.0


def test_milliner_emulated_again_is_judged_against_the_first_emulated_run(bench: ModuleType) -> None:
    def run(backend: str, elapsed: str) -> dict[str, str]:
        return {"experiment": "tcp-buffers-small", "curve": "tcp 4096B", "message_bytes": str(1 << 20),
                "segment": "NA", "unack": "NA", "buffer": "4096", "backend": backend, "elapsed_s": elapsed,
                "completed": "TRUE"}

    rows = [run("sim", "1.186"), run("linkemu", "1.38")]
    key = bench.again_key("tcp-buffers-small", "tcp 4096B", 1 << 20)
    report = bench.compare_ipcbench(rows, {}, {key: [1.199, 1.202]})
    assert report["rows"][0]["emulated_again_s"] == [1.199, 1.202]
    assert not report["rows"][0]["emulated_self_within"]  # 1.38 s against 1.2: 13 % apart
    assert (report["items_emulated_again"], report["emulated_self_items_within"]) == (1, 0)
    assert bench.compare_ipcbench(rows, {}, {key: [1.36, 1.40]})["emulated_self_items_within"] == 1
    assert "Emulated 2 times more on the same seeds" in bench.markdown(
        {"milliner/ipcbench": bench.compare_ipcbench(rows, {}, {key: [1.36, 1.40]})})
    alone = bench.compare_ipcbench(rows, {})
    assert alone["items_emulated_again"] == 0 and "Emulated" not in bench.markdown({"milliner/ipcbench": alone})


def test_milliner_runs_kept_count_only_for_their_build_and_settings(bench: ModuleType) -> None:
    assert bench.read_milliner_again() == {"runs": {}, "items": {}}
    bench.WORK.mkdir(parents=True)
    bench.builds = lambda names: {name: "sha256:1" for name in names}
    settings = bench.milliner_settings(bench.milliner_experiments())
    assert set(settings) == set(bench.MILLINER_TRANSFERS)
    kept = {"runs": {"udp-unack": 2}, "items": {"udp-unack|udp 9000B 6UnAck|1048576": [0.93, 0.92]}}
    (bench.WORK / bench.MILLINER_AGAIN_FILE).write_text(json.dumps(
        {"builds": bench.builds(bench.MILLINER_EMULATED_BUILDS), "settings": settings, **kept}))
    assert bench.read_milliner_again() == kept
    bench.builds = lambda names: {name: "sha256:2" for name in names}
    assert bench.read_milliner_again() == {"runs": {}, "items": {}}  # another build's runs do not count


def test_drops_compare_pooled_loss_and_each_place_once_a_run(bench: ModuleType) -> None:
    def echo(backend: str, run: str, back: int, socket: int, link: int = 0) -> dict[str, str]:
        drops = dict.fromkeys(bench.DROP_PLACES, "0")
        drops.update({"run_drops_echo_socket": str(socket), "run_drops_link": str(link)})
        return {"experiment": "atm-drops-crossval", "mode": "udp", "message_bytes": "819200", "backend": backend,
                "run_id": run, "rtt_ms": "NA", "datagrams": "100", "datagrams_returned": str(back), **drops}

    rows = [echo("sim", "t1", 20, 80), echo("sim", "t1", 20, 80), echo("linkemu", "t1", 21, 79),
            echo("linkemu", "t1", 19, 81), echo("linkemu", "t1", 20, 79)]
    (item,) = bench.compare_drops(rows)["rows"]
    assert item["sim_lost"] == [160, 200] and item["emulated_lost"] == [240, 300]
    assert item["sim_drops"]["run_drops_echo_socket"] == 80 and item["emulated_drops"]["run_drops_echo_socket"] == 79
    assert item["loss_bounds_overlap"] and item["places_agree"]
    moved = bench.compare_drops([echo("sim", "t1", 20, 80), echo("linkemu", "t1", 20, 40, link=40)])["rows"][0]
    assert moved["loss_bounds_overlap"] and not moved["places_agree"]
    measured = {"commit": "abc1234", "date": "2026-11-28"}
    table = bench.markdown({"liu95cool/atm-drops": {**bench.compare_drops(rows), "measured": measured}})
    assert ("| liu95cool ATM echoes on the Solaris 2.3 hosts (udp), quick | 200 datagrams | yes | lost 80.0% in "
            "virtual time, 80.0% emulated, 95% bounds overlap; drops by place, virtual time / emulated: "
            "echo host's socket 80 / 79 (measured 2026-11-28 at abc1234) |") in table
    unrecorded = [{**r, "run_drops_link": "NA"} for r in rows]
    assert "sim_drops" not in bench.compare_drops(unrecorded)["rows"][0]
