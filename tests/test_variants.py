"""variant_of: an experiment declared as another one with one assumption moved."""
from dataclasses import replace
from pathlib import Path

import pytest

from netrepro.trial import run_seed
from netrepro.experiment import Variant, settings_hash
from netrepro.spec import load_spec
from netrepro.tools.ttcp import pair_seed
from netrepro.yamlsrc import SpecError

CONFIGS = Path(__file__).resolve().parent.parent / "configs"

# What every spec of these tests starts with: a one-transfer quick profile, ttcp on the IPC.
HEADER = """\
paper: comer94
title: t
profiles:
  quick: {trials: 1, transfers: 1, transfer: 1M}
defaults:
  tool: ttcp
  link: atm-taxi-100
  stack: tahoe
  host: sparcstation-ipc
"""
SPEC = HEADER + """\
  ttcp: {send_buffers: [16K], receive_buffers: [16K]}
experiments:
  a: {}
  b:
    description: a with 8K writes
    ttcp: {write_size: 8K}
VARIANT
  ftp:
    tool: mftp
    mftp: {connections: 1, mode: stream}
assumptions:
  write_size: The paper does not give the write size.
"""
GOOD = """\
    variant_of:
      experiment: a
      assumption: write_size
      moved: write_size 8K"""


def spec_with(tmp_path: Path, variant: str) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(SPEC.replace("VARIANT", variant))
    return path


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_a_variant_names_its_base_assumption_and_move(tmp_path):
    spec = load_spec(spec_with(tmp_path, GOOD))
    assert spec.variants == {"b": Variant(experiment="a", assumption="write_size", moved="write_size 8K")}


def test_declaring_a_variant_changes_only_the_variants_settings_hash(tmp_path):
    plain = load_spec(spec_with(tmp_path, ""))
    declared = load_spec(spec_with(tmp_path, GOOD))
    assert plain.variants == {}
    for exp_id in ("a", "ftp"):
        assert settings_hash(declared.experiments[exp_id]) == settings_hash(plain.experiments[exp_id])
    # b now draws its base's random numbers, so its results change: it must rerun.
    assert settings_hash(declared.experiments["b"]) != settings_hash(plain.experiments["b"])


def test_a_variant_draws_the_same_random_numbers_as_its_base(tmp_path):
    # Common random numbers: the variant differs from its base only by the moved assumption,
    # not by its own tick phases, mode order or link draws.
    spec = load_spec(spec_with(tmp_path, GOOD))
    base, variant = spec.experiments["a"], spec.experiments["b"]
    assert (variant.draws_as, variant.draws_id, base.draws_id) == ("a", "a", "a")
    assert run_seed(variant, 1, "tcp") == run_seed(base, 1, "tcp")
    assert pair_seed(variant, 1, 16384, 16384) == pair_seed(base, 1, 16384, 16384)
    plain = load_spec(spec_with(tmp_path, "")).experiments["b"]
    assert run_seed(plain, 1, "tcp") != run_seed(base, 1, "tcp")


@pytest.mark.parametrize("variant, key, message", [
    (GOOD.replace("experiment: a", "experiment: c"), "experiments.b.variant_of.experiment",
     "no other experiment named 'c' in this spec; known: a, ftp"),
    (GOOD.replace("experiment: a", "experiment: b"), "experiments.b.variant_of.experiment",
     "no other experiment named 'b'"),
    ("    tool: ttcp\n" + GOOD.replace("experiment: a", "experiment: ftp"), "experiments.b.variant_of.experiment",
     "'ftp' runs mftp and this experiment ttcp: a variant runs its base's tool"),
    (GOOD.replace("assumption: write_size", "assumption: pause"), "experiments.b.variant_of.assumption",
     "no assumption named 'pause' under assumptions; known: write_size"),
])
def test_a_wrong_variant_names_file_line_and_key(tmp_path, variant, key, message):
    path = spec_with(tmp_path, variant)
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.path == str(path)
    assert caught.value.key == key
    assert caught.value.line == line_of(path, key.rsplit(".", 1)[1] + ":")
    assert message in caught.value.message


def test_a_variant_of_a_variant_names_the_base(tmp_path):
    chained = GOOD + "\n  c:\n    description: again\n    variant_of: {experiment: b, assumption: write_size, moved: again}"
    path = spec_with(tmp_path, chained)
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.key == "experiments.c.variant_of.experiment"
    assert "'b' is itself a variant; name its base, 'a'" in caught.value.message


def test_variant_of_is_refused_under_defaults(tmp_path):
    path = spec_with(tmp_path, "")
    path.write_text(path.read_text().replace(
        "defaults:\n", "defaults:\n  variant_of: {experiment: a, assumption: write_size, moved: x}\n"))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert (caught.value.key, caught.value.line) == ("defaults.variant_of", 6)


def test_a_variant_without_moved_is_refused_by_the_schema(tmp_path):
    path = spec_with(tmp_path, GOOD.replace("      moved: write_size 8K", ""))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.key == "experiments.b.variant_of"
    assert "moved" in caught.value.message


INHERITING = HEADER + """\
experiments:
  moved:
    description: base with 8K writes
    ttcp: {write_size: 8K}
    variant_of: {experiment: base, assumption: write_size, moved: write_size 8K}
  base:
    description: the base
    mirrors: [Table 1]
    host: sparcstation-ipc-uncalibrated
    ttcp: {send_buffers: [16K, 24K], receive_buffers: [BUFFER], write_size: 4K}
    profiles:
      quick: {transfers: 3}
assumptions:
  write_size: The paper does not give the write size.
"""


def test_a_variant_takes_every_setting_of_its_base_it_does_not_set(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text(INHERITING.replace("BUFFER", "20K"))
    spec = load_spec(path)
    base, moved = spec.experiments["base"], spec.experiments["moved"]
    assert (moved.settings.send_buffers, moved.settings.receive_buffers) == ((16384, 24576), (20480,))
    assert (moved.settings.write_size, base.settings.write_size) == (8192, 4096)
    assert moved.settings.transfers == 3
    assert (moved.host, moved.mirrors, moved.description) == ("sparcstation-ipc-uncalibrated", ("Table 1",),
                                                              "base with 8K writes")
    assert moved.settings == replace(base.settings, write_size=8192)


def test_a_wrong_inherited_value_is_the_bases_error_at_its_line(tmp_path):
    # The variant comes first in the file, so its settings are read before the base's own.
    path = tmp_path / "spec.yaml"
    path.write_text(INHERITING.replace("BUFFER", "20Q"))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.key == "experiments.base.ttcp.receive_buffers[0]"
    assert caught.value.line == line_of(path, "20Q")


def test_a_variant_without_its_own_description_is_refused(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text(INHERITING.replace("BUFFER", "20K").replace("    description: base with 8K writes\n", ""))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert (caught.value.key, caught.value.line) == ("experiments.moved", line_of(path, "moved:"))
    assert "say what differs from 'base'" in caught.value.message


@pytest.mark.parametrize("name", ["comer94", "liu95db", "liu95cool-tahoe"])
def test_the_shipped_variants_name_real_bases(name):
    spec = load_spec(CONFIGS / f"{name}.yaml")
    assert spec.variants
    for exp_id, variant in spec.variants.items():
        assert variant.experiment in spec.experiments and variant.experiment != exp_id
        assert variant.assumption in spec.assumptions
