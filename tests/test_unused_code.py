"""No dead names in the Python tree: pyflakes finds no unused import or variable, no name used
before it is defined and no f-string without a placeholder in netrepro, the benchmarks and the
tests. Pyflakes ignores `# noqa`, so a fixture is shared through conftest.py, not imported."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TREES = ("netrepro", "benchmarks", "tests")


def pyflakes(*paths: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyflakes", *paths], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def test_pyflakes_finds_nothing_in_the_python_tree():
    done = pyflakes(*TREES)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_pyflakes_reports_an_unused_import(tmp_path):
    # The check above passes only because pyflakes looked and found nothing.
    module = tmp_path / "dead.py"
    module.write_text("import os\n")
    done = pyflakes(str(module))
    assert done.returncode == 1 and "'os' imported but unused" in done.stdout
