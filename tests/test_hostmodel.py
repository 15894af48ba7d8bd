"""Host models read with the models they extend (netrepro/hostmodel.py)."""
from pathlib import Path

import pytest

from netrepro import hostmodel
from netrepro.limits import check_host
from netrepro.yamlsrc import SpecError, load_document

HOSTS = Path(__file__).resolve().parent.parent / "configs" / "hosts"
BASE = "name: base\nper_packet_ns: 100\nper_byte_ps: 2\nper_call_ns: 3\nram_bytes: 8192\nresident_bytes: 0\npage_size: 4096\npage_in_ns: 1\npage_out_ns: 1\n"


def test_a_variant_takes_its_base_and_replaces_what_it_names(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(BASE)
    (tmp_path / "variant.yaml").write_text("name: variant\nextends: base\nram_bytes: 16384\n")
    merged = hostmodel.values(tmp_path / "variant.yaml")
    assert merged["ram_bytes"] == 16384 and merged["per_packet_ns"] == 100 and merged["name"] == "variant"
    assert "extends" not in merged


def test_a_changed_base_changes_the_variants_digest(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(BASE)
    (tmp_path / "variant.yaml").write_text("name: variant\nextends: base\n")
    before = hostmodel.digest(tmp_path / "variant.yaml")
    (tmp_path / "base.yaml").write_text(BASE.replace("per_call_ns: 3", "per_call_ns: 4"))
    assert hostmodel.digest(tmp_path / "variant.yaml") != before


def test_a_reworded_comment_keeps_the_digest_and_so_the_results(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("# per_call_ns: a guess\n" + BASE)
    before = hostmodel.digest(tmp_path / "base.yaml")
    (tmp_path / "base.yaml").write_text("# per_call_ns: from a source of the era\n" + BASE + "# more notes\n")
    assert hostmodel.digest(tmp_path / "base.yaml") == before
    (tmp_path / "base.yaml").write_text(BASE + "fitted:\n  parameters: [per_call_ns]\n  training_set:\n    - reference: comer94-table1\n")
    assert hostmodel.digest(tmp_path / "base.yaml") == before
    (tmp_path / "base.yaml").write_text(BASE.replace("ram_bytes: 8192", "ram_bytes: 16384"))
    assert hostmodel.digest(tmp_path / "base.yaml") != before


def test_a_missing_base_or_a_loop_is_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "orphan.yaml").write_text("name: orphan\nextends: nowhere\n")
    with pytest.raises(SpecError, match=r"orphan.yaml:2: extends: no host model named 'nowhere'"):
        hostmodel.chain(tmp_path / "orphan.yaml")
    (tmp_path / "a.yaml").write_text("name: a\nextends: b\n")
    (tmp_path / "b.yaml").write_text("name: b\nextends: a\n")
    with pytest.raises(SpecError, match="loop"):
        hostmodel.chain(tmp_path / "a.yaml")


def test_a_model_without_extends_needs_its_three_costs(tmp_path: Path) -> None:
    (tmp_path / "bare.yaml").write_text("name: bare\nper_packet_ns: 1\n")
    with pytest.raises(SpecError):
        hostmodel.chain(tmp_path / "bare.yaml")


def test_a_list_of_bases_lays_each_over_the_ones_before(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(BASE + "wakeup_ns: 5\n")
    (tmp_path / "part.yaml").write_text("name: part\npart: true\nwakeup_ns: 9\nctx_switch_ns: 4\n")
    (tmp_path / "host.yaml").write_text("name: host\nextends: [base, part]\nctx_switch_ns: 6\n")
    merged = hostmodel.values(tmp_path / "host.yaml")
    assert (merged["wakeup_ns"], merged["ctx_switch_ns"], merged["per_packet_ns"]) == (9, 6, 100)
    assert "part" not in merged and merged["name"] == "host"
    # The provenance's text: the first line that sets a key gives the model's value.
    first = {}
    for line in hostmodel.text(tmp_path / "host.yaml").splitlines():
        key, _, value = line.partition(":")
        first.setdefault(key, value.strip())
    assert (first["wakeup_ns"], first["ctx_switch_ns"], first["per_packet_ns"]) == ("9", "6", "100")
    (tmp_path / "host.yaml").write_text("name: host\nextends: [base, nowhere]\n")
    with pytest.raises(SpecError, match=r"host.yaml:2: extends\[1\]: no host model named 'nowhere'"):
        hostmodel.chain(tmp_path / "host.yaml")


def test_a_part_needs_no_costs_and_is_no_host(tmp_path: Path) -> None:
    (tmp_path / "part.yaml").write_text("name: part\npart: true\nwakeup_ns: 9\n")
    assert hostmodel.is_part(tmp_path / "part.yaml")
    assert hostmodel.values(tmp_path / "part.yaml") == {"name": "part", "wakeup_ns": 9}
    (tmp_path / "notpart.yaml").write_text("name: notpart\npart: false\nwakeup_ns: 9\n")
    with pytest.raises(SpecError, match="part"):
        hostmodel.chain(tmp_path / "notpart.yaml")


HOST_FILES = sorted(path for path in HOSTS.glob("*.yaml") if not hostmodel.is_part(path))


@pytest.mark.parametrize("path", HOST_FILES, ids=lambda p: p.stem)
def test_every_host_model_validates_with_its_bases(path: Path) -> None:
    merged = hostmodel.values(path)
    assert merged["name"] == path.stem
    assert set(hostmodel.REQUIRED_COSTS) <= merged.keys()


@pytest.mark.parametrize("path", sorted(set(HOSTS.glob("*.yaml")) - set(HOST_FILES)), ids=lambda p: p.stem)
def test_every_part_is_taken_by_a_host(path: Path) -> None:
    assert any(path.stem in hostmodel.bases(hostmodel.chain(host)[0]) for host in HOST_FILES)


def test_a_host_missing_a_cost_or_with_a_base_out_of_range_is_refused_where_it_is(tmp_path: Path) -> None:
    (tmp_path / "part.yaml").write_text("name: part\npart: true\nwakeup_ns: 9\n")
    (tmp_path / "host.yaml").write_text("name: host\nextends: [part]\n")
    with pytest.raises(SpecError, match=r"host.yaml:2: extends: no per_packet_ns, per_byte_ps, per_call_ns"):
        check_host(load_document(tmp_path / "host.yaml"))
    (tmp_path / "base.yaml").write_text(BASE.replace("per_call_ns: 3", "per_call_ns: 9223372036854775807"))
    (tmp_path / "host.yaml").write_text("name: host\nextends: [base, part]\n")
    with pytest.raises(SpecError, match=r"base.yaml:4: per_call_ns: .* is out of range"):
        check_host(load_document(tmp_path / "host.yaml"))


def test_bases_that_share_bases_cannot_multiply_the_reads(tmp_path: Path) -> None:
    """Four bases a level, each extending the level below: reads grow fourfold a level unless the
    files read in all are bounded."""
    (tmp_path / "m0.yaml").write_text(BASE.replace("name: base", "name: m0"))
    for level in range(1, 4):
        for each in "abcd":
            (tmp_path / f"{each}{level}.yaml").write_text(f"name: {each}{level}\nextends: m{level - 1}\n")
        (tmp_path / f"m{level}.yaml").write_text(f"name: m{level}\nextends: [a{level}, b{level}, c{level}, d{level}]\n")
    with pytest.raises(SpecError, match="reach more than 32 files"):
        hostmodel.chain(tmp_path / "m3.yaml")
