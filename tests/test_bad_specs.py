"""The bad-input corpus in tests/bad_specs/: each spec is refused with its exact error, naming the
file, the line and the key, without a traceback and without exhausting the validator."""
import subprocess
import sys
from pathlib import Path

import pytest

from netrepro.limits import check_link
from netrepro.spec import load_spec
from netrepro.yamlsrc import SpecError, load_document, validate

CORPUS = Path(__file__).resolve().parent / "bad_specs"

# file: (line, key, what the message says)
EXPECTED = {
    "alias-bomb.yaml": (3, "", "anchors and aliases (& and *) are not allowed in a spec"),
    "recursive-alias.yaml": (12, "", "anchors and aliases (& and *) are not allowed in a spec"),
    "deep-nesting.yaml": (13, "", "nested more than 32 levels deep"),
    "control-character.yaml": (13, "", "unacceptable character #x0007"),
    "not-utf8.yaml": (13, "", "not UTF-8 text"),
    "name-with-newline.yaml": (12, "", "the key 'a\\n' holds a control character"),
    "huge-trials.yaml": (4, "profiles.quick.trials", "100000000000 is greater than the maximum of 1000"),
    "unknown-key.yaml": (12, "experiments.a.moes", "unknown key 'moes'"),
    # Values the tools refuse (netrepro.limits, checked against the tools by tests/test_limits.py).
    "too-many-echoes.yaml": (4, "profiles.quick.echoes", "1000001 is greater than the maximum of 1000000"),
    "short-timeout.yaml": (12, "experiments.a.timeout",
                           "999000ns is out of range: an echo's timeout must be 1000000ns or more (pingx --timeout)"),
    "zero-cooling-gap.yaml": (12, "experiments.a.cooling.gap", "0ns is out of range: a cooling gap must be 1ns to "
                              "1000000000ns (pingx and echod --cool-gap, --echo-gap)"),
    "long-cooling-gap.yaml": (12, "experiments.a.cooling.gap", "1001000000ns is out of range: a cooling gap must be"),
    "zero-socket-buffer.yaml": (12, "experiments.a.socket_buffers.send", "0B is out of range: a socket buffer must "
                                "be 1B to 1073741824B (pingx and echod --sndbuf, --rcvbuf)"),
    "negative-socket-buffer.yaml": (12, "experiments.a.socket_buffers.receive", "'-16K' is not valid here"),
    "variant-of-unknown-assumption.yaml": (17, "experiments.b.variant_of.assumption",
                                           "no assumption named 'write-size' under assumptions; known: write_size"),
    "huge-seed.yaml": (12, "experiments.a.seed", "99999999999999999999 is out of range: a seed (pingx gets seed x "
                       "1000 + trial) must be 0 to 9223372036854774 (pingx --seed)"),
}
# Link kinds (configs/links/) the tools refuse: file: (line, key, what the message says).
EXPECTED_LINKS = {
    "zero-rate.yaml": (12, "rate", "0bit is out of range: a link's rate must be 1bit or more (linkemu --rate)"),
    "zero-mtu.yaml": (11, "mtu", "0B is out of range: a link's MTU must be 68B to 65535B (linkemu --mtu)"),
}


def test_the_corpus_and_its_expectations_list_the_same_files():
    assert sorted(p.name for p in CORPUS.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_bad_spec_gives_its_exact_error(name):
    line, key, message = EXPECTED[name]
    with pytest.raises(SpecError) as caught:
        load_spec(CORPUS / name)
    assert (caught.value.line, caught.value.key) == (line, key)
    assert message in caught.value.message


def test_the_validator_reports_every_one_in_a_line_without_a_traceback():
    done = subprocess.run([sys.executable, "-m", "netrepro.validate", *sorted(map(str, CORPUS.glob("*.yaml")))],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    errors = done.stderr.strip().splitlines()
    assert len(errors) == len(EXPECTED) and all(e.startswith(f"error: {CORPUS}/") for e in errors)


def test_an_experiment_named_like_a_yaml_bool_or_number_keeps_its_name(tmp_path):
    text = (CORPUS / "unknown-key.yaml").read_text().replace("  a: {moes: [tcp]}\n", "  on: {}\n  1995: {}\n")
    (tmp_path / "spec.yaml").write_text(text)
    assert list(load_spec(tmp_path / "spec.yaml").experiments) == ["on", "1995"]


@pytest.mark.parametrize("name", sorted(EXPECTED_LINKS))
def test_each_bad_link_kind_gives_its_exact_error(name):
    """What load_spec does with the link kind an experiment names."""
    line, key, message = EXPECTED_LINKS[name]
    document = load_document(CORPUS / "links" / name)
    validate(document, "link.schema.json")
    with pytest.raises(SpecError) as caught:
        check_link(document)
    assert (caught.value.path, caught.value.line, caught.value.key) == (str(CORPUS / "links" / name), line, key)
    assert message in caught.value.message
