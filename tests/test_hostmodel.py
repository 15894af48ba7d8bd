"""Host models read with the models they extend (netrepro/hostmodel.py)."""
from pathlib import Path

import pytest

from netrepro import hostmodel
from netrepro.yamlsrc import SpecError

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


@pytest.mark.parametrize("path", sorted(HOSTS.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_host_model_validates_with_its_bases(path: Path) -> None:
    merged = hostmodel.values(path)
    assert merged["name"] == path.stem
    assert {"per_packet_ns", "per_byte_ps", "per_call_ns"} <= merged.keys()
