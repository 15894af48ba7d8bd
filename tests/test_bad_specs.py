"""The bad-input corpus in tests/bad_specs/: each spec is refused with its exact error, naming the
file, the line and the key, without a traceback and without exhausting the validator."""
import subprocess
import sys
from pathlib import Path

import pytest

from netrepro.spec import load_spec
from netrepro.yamlsrc import SpecError

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
