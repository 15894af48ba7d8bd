"""A spec cannot run code: before Snakemake's JSON parser or yte (whose loader builds Python
objects and evaluates templates) sees a --configfile, netrepro's own loader judges it, and
anything but plain YAML data is refused with its file and line, in a line and no traceback."""
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# The hostile spec of issue 32: yte templating, a tag yaml.safe_load cannot construct (so the
# old guard let the file through) and a template that runs a command.
YTE_WITH_TAG = ("__use_yte__: true\n"
                "x: !!python/tuple []\n"
                "paper: comer94\n"
                "title: \"?__import__('os').system('touch {planted}') and 'x'\"\n"
                "profiles: {{quick: {{trials: 1}}}}\n"
                "experiments: {{a: {{}}}}\n")


def dry_run(spec: Path | str, workdir: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "-n",
         "--directory", str(workdir), "--configfile", str(spec)],
        capture_output=True, text=True, timeout=timeout)


def refused(done: subprocess.CompletedProcess[str], message: str) -> None:
    assert done.returncode != 0
    assert message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and 'File "' not in done.stderr, done.stderr


def test_a_spec_asking_for_yte_templating_is_refused_before_its_code_runs(tmp_path):
    planted = tmp_path / "planted"
    spec = tmp_path / "evil.yaml"
    spec.write_text(
        "__use_yte__: true\n"
        f"paper: ?__import__('pathlib').Path('{planted}').write_text('ran') and 'comer94'\n"
        "title: x\nprofiles: {quick: {trials: 1}}\nexperiments: {a: {}}\n")
    refused(dry_run(spec, tmp_path), "'__use_yte__' asks for yte templating")
    assert not planted.exists()


def test_yte_templating_with_a_tag_safe_yaml_cannot_read_runs_nothing(tmp_path):
    planted = tmp_path / "planted"
    spec = tmp_path / "evil.yaml"
    spec.write_text(YTE_WITH_TAG.format(planted=planted))
    refused(dry_run(spec, tmp_path), f"{spec}:2: (top level): not valid YAML: tags "
            "(tag:yaml.org,2002:python/tuple) are not allowed in a spec")
    assert not planted.exists()


def test_deep_nesting_is_refused_with_its_line_not_a_recursion_error(tmp_path):
    spec = tmp_path / "deep.yaml"
    spec.write_text("paper: comer94\nx: " + "[" * 5000 + "]" * 5000 + "\n")
    refused(dry_run(spec, tmp_path), f"{spec}:2: (top level): not valid YAML: nested more than 32 levels deep")


def test_a_100_mb_spec_is_refused_at_once(tmp_path):
    spec = tmp_path / "big.yaml"
    with spec.open("w") as out:
        out.write("paper: comer94\n# ")
        for _ in range(100):
            out.write("x" * (1 << 20))
        out.write("\n")
    started = time.monotonic()
    refused(dry_run(spec, tmp_path, timeout=60), f"{spec}: (top level): the file has more than 1048576 octets")
    assert time.monotonic() - started < 30


def test_a_device_is_refused_without_reading_it(tmp_path):
    refused(dry_run("/dev/zero", tmp_path, timeout=60), "/dev/zero: (top level): not a regular file")


def test_yte_itself_refuses_templating_and_loads_plain_yaml_as_before():
    import yte

    assert yte.process_yaml("a: 1\nb: [x]\n", require_use_yte=True) == {"a": 1, "b": ["x"]}
    with pytest.raises(SystemExit, match="'__use_yte__' asks for yte templating"):
        yte.process_yaml("__use_yte__: true\na: ?1 + 1\n")
    with pytest.raises(SystemExit, match="tags"):
        yte.process_yaml("a: !!python/tuple []\n", require_use_yte=True)
