"""The conformance suite catches broken rules: each mutant of tools/tahoe/conformance/mutants.yaml
breaks one rule of the era in a copy of the Tahoe stack, and the scripts it names must fail on
it, while the unbroken copy passes every script. Builds the copies with the tools' own Makefile;
a mutant's copy starts from the unbroken copy's build, so make recompiles only what its changed
file reaches (the compiler's .d files list that). Needs a C compiler."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

TOOLS = REPO / "tools"
SCRIPTS = TOOLS / "tahoe" / "conformance"
MUTANTS = yaml.safe_load((SCRIPTS / "mutants.yaml").read_text())
RUNNER = "build/tests/tahoe-test_conformance"

pytestmark = [pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)"),
              pytest.mark.xdist_group("unbroken_copy")]  # one worker builds the copy (make test: -n)


def build(dest: Path) -> Path:
    done = subprocess.run(["make", "-s", "-C", str(dest), "CFLAGS=-O0", RUNNER], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return dest / RUNNER


@pytest.fixture(scope="module")
def unbroken_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The stack and the runner, copied and built once."""
    dest = tmp_path_factory.mktemp("unbroken")
    shutil.copy(TOOLS / "Makefile", dest)
    shutil.copytree(TOOLS / "common", dest / "common")
    shutil.copytree(TOOLS / "tahoe", dest / "tahoe", ignore=shutil.ignore_patterns("conformance"))
    build(dest)
    return dest


def build_mutant(dest: Path, unbroken: Path, mutant: dict) -> Path:
    """The unbroken copy and its build, copied to dest (modification times kept), the mutant's
    text replaced (the file newer than its objects), and built again there."""
    shutil.copytree(unbroken, dest, dirs_exist_ok=True)
    source = dest / "tahoe" / mutant["file"]
    text = source.read_text()
    assert text.count(mutant["find"]) == 1, f"{mutant['name']}: its text is not in {mutant['file']} exactly once"
    source.write_text(text.replace(mutant["find"], mutant["replace"]))
    return build(dest)


def failed_scripts(runner: Path) -> tuple[set[str], str]:
    """The scripts the runner reports failed, and what it printed."""
    done = subprocess.run([str(runner)], cwd=TOOLS, capture_output=True, text=True)
    failed = set(re.findall(r"^FAIL tahoe/conformance/(\S+)\.tahoe$", done.stderr, re.MULTILINE))
    return failed, done.stderr


def test_the_unbroken_copy_passes_every_script(unbroken_copy: Path) -> None:
    failed, output = failed_scripts(unbroken_copy / RUNNER)
    assert not failed, output


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["name"] for m in MUTANTS])
def test_a_broken_rule_fails_the_scripts_that_pin_it(mutant: dict, unbroken_copy: Path, tmp_path: Path) -> None:
    assert all((SCRIPTS / f"{name}.tahoe").is_file() for name in mutant["fails"]), mutant["fails"]
    failed, output = failed_scripts(build_mutant(tmp_path, unbroken_copy, mutant))
    missed = set(mutant["fails"]) - failed
    assert not missed, f"{mutant['name']} ({mutant['rule']}): {sorted(missed)} passed\n{output}"
    for name in mutant["fails"]:
        assert re.search(rf"^tahoe/conformance/{re.escape(name)}\.tahoe:\d+: ", output, re.MULTILINE), output
