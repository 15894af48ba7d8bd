"""Specs fail before anything runs, with the file, the key and the line."""
from pathlib import Path

import pytest

from netrepro.experiment import settings_hash
from netrepro.spec import load_spec
from netrepro.yamlsrc import SpecError, load_document

SPEC = Path(__file__).resolve().parent.parent / "configs" / "liu95cool.yaml"


def edited(tmp_path: Path, old: str, new: str) -> Path:
    text = SPEC.read_text()
    assert old in text, f"the test's anchor {old!r} is gone from the spec"
    path = tmp_path / "spec.yaml"
    path.write_text(text.replace(old, new, 1))
    return path


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_the_shipped_spec_resolves():
    spec = load_spec(SPEC)
    assert spec.paper == "liu95cool"
    nasa = spec.experiments["lan-nasa"]
    assert len(nasa.settings.messages) == 19
    assert nasa.settings.messages[0].name == "earth-round.gif"
    assert nasa.link.mtu == 1500
    assert set(nasa.settings.modes) == {"tcp-per-message", "tcp", "udp-cooled", "udp"}


def test_profiles_change_repeats_only():
    quick = load_spec(SPEC).experiments["lan-large"]
    paper = load_spec(SPEC, {"profile": "paper"}).experiments["lan-large"]
    assert (paper.trials, paper.settings.echoes) == (20, 50)
    assert quick.trials < paper.trials
    assert quick.settings.messages == paper.settings.messages


def test_unknown_key_names_file_key_and_line(tmp_path):
    path = edited(tmp_path, "  datagram: 8K\n", "  datagram: 8K\n  datagramm: 8K\n")
    with pytest.raises(SpecError) as error:
        load_spec(path)
    assert error.value.path == str(path)
    assert error.value.key == "defaults.datagramm"
    assert error.value.line == line_of(path, "datagramm")
    assert "unknown key 'datagramm'" in str(error.value)


def test_a_value_without_its_unit_is_refused(tmp_path):
    path = edited(tmp_path, "    gap: 7ms", "    gap: 7")
    with pytest.raises(SpecError) as error:
        load_spec(path)
    assert error.value.key == "defaults.cooling.gap"
    assert error.value.line == line_of(path, "gap: 7")


def test_a_mode_that_does_not_exist_is_refused(tmp_path):
    path = edited(tmp_path, "modes: [tcp-per-message, tcp, udp-cooled, udp]", "modes: [tcp, udp-hot]")
    with pytest.raises(SpecError, match="udp-hot"):
        load_spec(path)


def test_a_name_that_refers_to_nothing_is_refused(tmp_path):
    path = edited(tmp_path, "  link: ethernet-10", "  link: token-ring-4")
    with pytest.raises(SpecError) as error:
        load_spec(path)
    # The error points at the line that holds the name: defaults give every experiment its link.
    assert error.value.key == "defaults.link"
    assert error.value.line == line_of(path, "token-ring-4")
    assert "token-ring-4" in error.value.message and "ethernet-10" in error.value.message


def test_a_duplicate_key_is_refused(tmp_path):
    path = edited(tmp_path, "  seed: 1995\n", "  seed: 1995\n  seed: 7\n")
    with pytest.raises(SpecError, match="given twice") as error:
        load_spec(path)
    assert error.value.line == line_of(path, "seed: 7")


def test_broken_yaml_names_its_line(tmp_path):
    path = edited(tmp_path, "  seed: 1995\n", "  seed: [1995\n")
    with pytest.raises(SpecError, match="not valid YAML"):
        load_spec(path)


def test_cooled_udp_needs_a_cooling_setting(tmp_path):
    path = edited(tmp_path, "  cooling:\n    gap: 7ms\n", "")
    with pytest.raises(SpecError, match="udp-cooled needs"):
        load_spec(path)


def test_cooled_udp_on_an_emulated_tahoe_host_is_refused_and_runs_in_virtual_time(tmp_path):
    path = edited(tmp_path, "  stack: linux\n", "  stack: tahoe\n  host: sparcstation-ipc\n")
    with pytest.raises(SpecError, match="second Tahoe stack on the same interface") as error:
        load_spec(path, {"backend": "linkemu"})
    assert error.value.key.endswith(".modes")
    assert "udp-cooled" in load_spec(path, {"backend": "sim"}).experiments["lan-nasa"].settings.modes


@pytest.mark.parametrize("overrides, key", [({"profile": "fast"}, "profile"), ({"backend": "ns2"}, "backend"),
                                            ({"cores": 2}, "cores"), ({"profile": "quick", "seed": 7}, "seed")])
def test_bad_command_line_overrides_are_refused(overrides, key):
    with pytest.raises(SpecError) as error:
        load_spec(SPEC, overrides)
    assert error.value.key == key


COMER = SPEC.parent / "comer94.yaml"


def comer_edited(tmp_path: Path, old: str, new: str) -> Path:
    text = COMER.read_text()
    assert old in text, f"the test's anchor {old!r} is gone from the spec"
    path = tmp_path / "comer.yaml"
    path.write_text(text.replace(old, new, 1))
    return path


def test_the_comer94_spec_resolves_its_buffer_matrix():
    spec = load_spec(COMER, {"profile": "paper"})
    table1 = spec.experiments["table1"]
    assert table1.tool == "ttcp" and table1.stack == "tahoe"
    assert len(table1.settings.send_buffers) == len(table1.settings.receive_buffers) == 10
    assert table1.settings.send_buffers[-1] == 52428
    assert table1.host_model.name == "sparcstation-ipc.yaml"
    assert spec.experiments["circular-wait"].settings.trace


def test_an_experiment_overrides_one_ttcp_key_and_keeps_the_matrix():
    spec = load_spec(COMER, {"profile": "paper"})
    table1, write4k = spec.experiments["table1"], spec.experiments["table1-write4k"]
    assert (table1.settings.write_size, write4k.settings.write_size) == (8192, 4096)
    assert write4k.settings.send_buffers == table1.settings.send_buffers
    assert write4k.settings.receive_buffers == table1.settings.receive_buffers


def test_the_write_size_scan_keeps_the_receive_buffers_and_its_own_rows():
    spec = load_spec(COMER, {"profile": "quick"})
    table1 = spec.experiments["table1"]
    scan = {e.settings.write_size: e for e in spec.experiments.values() if e.id.startswith("table1-write")}
    assert sorted(scan) == [1024, 2048, 3072, 4096, 6144, 12288, 16384]
    for size, experiment in scan.items():
        assert experiment.settings.receive_buffers == table1.settings.receive_buffers
        assert experiment.settings.transfer_bytes == table1.settings.transfer_bytes
        if size != 4096:
            assert experiment.settings.send_buffers == (16384, 20480, 24576)
            assert experiment.settings.transfers == 1


def test_the_settings_hash_ignores_the_backend_and_the_rest_of_the_file(tmp_path):
    sim = load_spec(COMER, {"profile": "quick", "backend": "sim"}).experiments["table1"]
    emulated = load_spec(COMER, {"profile": "quick", "backend": "linkemu"}).experiments["table1"]
    assert sim.backend != emulated.backend
    assert settings_hash(sim) == settings_hash(emulated)
    other = "  other:\n    description: x\n    mirrors: [Table 1]\n  circular-wait:\n"
    edited = load_spec(comer_edited(tmp_path, "  circular-wait:\n", other), {"profile": "quick", "backend": "sim"})
    assert settings_hash(edited.experiments["table1"]) == settings_hash(sim)
    assert settings_hash(load_spec(COMER, {"profile": "paper", "backend": "sim"}).experiments["table1"]) \
        != settings_hash(sim)
    assert settings_hash(sim) != settings_hash(load_spec(COMER, {"profile": "quick"}).experiments["table1-write4k"])


def test_a_buffer_matrix_given_nowhere_is_an_error_naming_where_it_belongs(tmp_path):
    path = comer_edited(tmp_path, "    send_buffers: [16K, 20K, 24K, 28K, 32K, 36K, 40K, 44K, 48K, 52428B]\n", "")
    with pytest.raises(SpecError, match="missing send_buffers") as error:
        load_spec(path)
    assert error.value.key == "defaults.ttcp"
    assert error.value.line == line_of(path, "  ttcp:")


def test_a_tahoe_buffer_above_sb_max_is_refused(tmp_path):
    path = comer_edited(tmp_path, "48K, 52428B]\n    receive", "48K, 60K]\n    receive")
    with pytest.raises(SpecError) as error:
        load_spec(path)
    assert error.value.key == "defaults.ttcp.send_buffers[9]"
    assert error.value.line == line_of(path, "60K]")
    assert "52428B" in str(error.value)


def test_the_tahoe_stack_needs_a_host_model(tmp_path):
    path = comer_edited(tmp_path, "  host: sparcstation-ipc\n", "")
    with pytest.raises(SpecError, match="stack tahoe needs `host`"):
        load_spec(path)


def test_backend_sim_in_a_spec_needs_the_tahoe_stack(tmp_path):
    path = edited(tmp_path, "  backend: auto", "  backend: sim")
    with pytest.raises(SpecError, match="backend sim runs the tahoe stack only"):
        load_spec(path)


def test_a_trace_of_more_than_one_pair_is_refused(tmp_path):
    path = comer_edited(tmp_path, "    mirrors: [Table 1,", "    trace: true\n    mirrors: [Table 1,")
    with pytest.raises(SpecError, match="a trace captures one ttcp buffer pair"):
        load_spec(path)


def test_a_file_parsed_again_gives_a_document_of_its_own_and_its_new_text(tmp_path: Path) -> None:
    """yamlsrc parses a text once; a caller that changes its document changes no other's."""
    path = tmp_path / "host.yaml"
    path.write_text("cpu_ns: 5\nnested: {a: 1}\n")
    first = load_document(path)
    first.data["nested"]["a"] = 2
    assert load_document(path).data == {"cpu_ns": 5, "nested": {"a": 1}}
    path.write_text("cpu_ns: 6\n\nnested: {a: 1}\n")
    again = load_document(path)
    assert again.data["cpu_ns"] == 6 and again.line_of(("nested",)) == 3
