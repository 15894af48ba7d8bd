import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from netrepro.sim import BINARY

REPO = Path(__file__).resolve().parent.parent


NETLAB = "netlab"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{NETLAB}: emulates a network (root and Mininet); make test runs these alone, first")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker(NETLAB) is None:
        return
    reasons = []
    if os.geteuid() != 0:
        reasons.append("needs root")
    if shutil.which("mnexec") is None:
        reasons.append("needs Mininet (make setup)")
    if reasons:
        pytest.skip(", ".join(reasons))


def needs_root_and_mininet() -> pytest.MarkDecorator:
    """Marks a test that emulates a network: skipped without root or Mininet; make test runs
    these in a pytest of their own (-m netlab), one at a time and with no other pytest test beside
    them, since their links run in real time on the machine's cores (Makefile, target test)."""
    return getattr(pytest.mark, NETLAB)


def load_script(relpath: str, name: str) -> ModuleType:
    """Imports a script that is not in a package (a benchmark) as module `name`."""
    spec = importlib.util.spec_from_file_location(name, REPO / relpath)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


COMER94 = REPO / "configs" / "comer94.yaml"

# A test render checks what a report shows, not the precision of its intervals: few bootstrap
# resamples (reports/R/claims.R), as in the R render tests.
FEW_RESAMPLES_ENV = {**os.environ, "NETREPRO_BOOTSTRAP_REPS": "20"}


def snakemake_comer94_sim(workdir: Path, *options: str, profile: str = "quick") -> subprocess.CompletedProcess:
    """Snakemake on comer94's spec in virtual time, as a user without root runs it."""
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *options, "--snakefile", str(REPO / "Snakefile"), "--cores", "2",
         "--directory", str(workdir), "--configfile", str(COMER94), "--config", f"profile={profile}", "backend=sim"],
        capture_output=True, text=True, timeout=900, env=FEW_RESAMPLES_ENV,
    )


@pytest.fixture(scope="session")
def comer94_quick_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """comer94's quick profile run once in virtual time, to its report: the pipeline test reads
    it and the digest test runs a second tree against it (each run costs a minute or two)."""
    if not BINARY.is_file():
        pytest.skip("needs tools/bin/netsim (make -C tools)")
    workdir = tmp_path_factory.mktemp("comer94-quick")
    done = snakemake_comer94_sim(workdir)
    assert done.returncode == 0, done.stderr[-3000:]
    return workdir


def sh(*args: str) -> None:
    subprocess.run(list(args), check=True, capture_output=True)


@pytest.fixture
def namespaces():
    """h1 -- mid -- h2 in three namespaces with 10.231.x addresses, removed even on failure."""
    tag = f"nrle{os.getpid()}"
    names = {role: f"{tag}{role}" for role in ("h1", "mid", "h2")}
    try:
        for ns in names.values():
            sh("ip", "netns", "add", ns)
        sh("ip", "link", "add", f"{tag}a", "type", "veth", "peer", "name", f"{tag}b")
        sh("ip", "link", "add", f"{tag}c", "type", "veth", "peer", "name", f"{tag}d")
        for dev, ns in ((f"{tag}a", "h1"), (f"{tag}b", "mid"), (f"{tag}c", "mid"), (f"{tag}d", "h2")):
            sh("ip", "link", "set", dev, "netns", names[ns])
            sh("ip", "-n", names[ns], "link", "set", dev, "up")
        sh("ip", "-n", names["h1"], "addr", "add", "10.231.0.1/24", "dev", f"{tag}a")
        sh("ip", "-n", names["h2"], "addr", "add", "10.231.0.2/24", "dev", f"{tag}d")
        yield names, f"{tag}b", f"{tag}c"
    finally:
        for ns in names.values():
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
