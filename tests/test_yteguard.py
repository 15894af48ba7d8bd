"""A spec cannot run code: Snakemake's yte templating is refused before any of it is evaluated."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_a_spec_asking_for_yte_templating_is_refused_before_its_code_runs(tmp_path):
    planted = tmp_path / "planted"
    spec = tmp_path / "evil.yaml"
    spec.write_text(
        "__use_yte__: true\n"
        f"paper: ?__import__('pathlib').Path('{planted}').write_text('ran') and 'comer94'\n"
        "title: x\nprofiles: {quick: {trials: 1}}\nexperiments: {a: {}}\n")
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "-n",
         "--directory", str(tmp_path), "--configfile", str(spec)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "'__use_yte__' asks for yte templating" in done.stdout + done.stderr
    assert not planted.exists()


def test_yte_itself_refuses_templating_and_loads_plain_yaml_as_before():
    import yte

    assert yte.process_yaml("a: 1\nb: [x]\n", require_use_yte=True) == {"a": 1, "b": ["x"]}
    try:
        yte.process_yaml("__use_yte__: true\na: ?1 + 1\n")
    except Exception as exc:  # Snakemake's WorkflowError
        assert "refused" in str(exc)
    else:
        raise AssertionError("yte evaluated a template")
