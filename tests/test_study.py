"""A study of one's own: a spec no paper ran, written by `netrepro new`, with inline messages and
only a quick profile, validates, runs in virtual time and gets the generic report."""
import csv
import subprocess
import sys
from pathlib import Path

import pytest

from netrepro.new import main as new_main
from netrepro.new import write_study
from netrepro.sim import BINARY
from netrepro.spec import SpecError, load_spec
from netrepro.tools.pingx import INLINE_MESSAGES

REPO = Path(__file__).resolve().parent.parent

STUDY = """\
paper: my-study
title: two sizes around an ATM boundary
profiles:
  quick:
    trials: 1
    echoes: 2
    interval: 1s
experiments:
  around-40k:
    tool: pingx
    link: atm-oc3-155
    stack: tahoe
    host: sparcstation-ipc
    backend: sim
    modes: [tcp, udp]
    messages: [36K, 40K+1]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "my-study.yaml"
    path.write_text(text)
    return path


def test_inline_messages_and_a_lone_quick_profile_resolve_for_every_profile(tmp_path):
    path = write(tmp_path, STUDY)
    for profile in ("quick", "paper", "smoke"):
        spec = load_spec(path, {"profile": profile})
        experiment = spec.experiments["around-40k"]
        assert spec.profile == "quick" and experiment.settings.echoes == 2
        assert [m.size for m in experiment.settings.messages] == [36 * 1024, 40 * 1024 + 1]
        assert experiment.settings.message_set == INLINE_MESSAGES and experiment.mirrors == ()


def test_an_inline_message_out_of_range_names_its_line_and_key(tmp_path):
    path = write(tmp_path, STUDY.replace("[36K, 40K+1]", "\n      - 36K\n      - 5M"))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.line == 18 and caught.value.key == "experiments.around-40k.messages[1]"
    assert "out of range: a message must be 16B to 4194304B (pingx --sizes)" in str(caught.value)


def test_an_inline_message_without_its_unit_is_refused_by_the_schema(tmp_path):
    path = write(tmp_path, STUDY.replace("[36K, 40K+1]", "[36K, 4000]"))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.line == 16 and "messages" in caught.value.key


def test_a_spec_without_a_quick_profile_is_refused(tmp_path):
    path = write(tmp_path, STUDY.replace("  quick:", "  paper:"))
    with pytest.raises(SpecError, match="'quick' is required here"):
        load_spec(path)


def test_new_writes_a_commented_spec_that_loads_and_never_overwrites(tmp_path, capsys):
    path = write_study("my-study", "ttcp", "atm-taxi-100", tmp_path)
    text = path.read_text()
    assert text.startswith("# my-study: a study of one's own") and "write_size: 4K" in text
    assert load_spec(path).experiments["buffers"].settings.send_buffers == (16384, 24576, 32768)
    assert new_main(["my-study", "--dir", str(tmp_path)]) == 2
    assert "exists already" in capsys.readouterr().err
    assert new_main(["My Study", "--dir", str(tmp_path)]) == 2
    assert "not a study name" in capsys.readouterr().err
    assert new_main(["other", "--link", "no-such-link", "--dir", str(tmp_path)]) == 2
    assert "no link kind 'no-such-link'" in capsys.readouterr().err


@pytest.mark.parametrize("tool", ["pingx", "ttcp", "mftp", "ipcbench"])
def test_new_starts_a_study_of_each_tool(tmp_path, tool):
    spec = load_spec(write_study("my-study", tool, "ethernet-10", tmp_path))
    (experiment,) = spec.experiments.values()
    assert experiment.tool == tool and experiment.backend == "sim"
    assert (experiment.sweep is not None) == (tool == "mftp")


@pytest.mark.skipif(not BINARY.is_file(), reason="needs tools/bin/netsim (make -C tools)")
def test_a_study_runs_in_virtual_time_and_renders_its_own_report(tmp_path):
    spec = write(tmp_path, STUDY)
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--cores", "2",
         "--directory", str(tmp_path), "--configfile", str(spec)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with (tmp_path / "results/my-study/around-40k/results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert {(r["mode"], r["message_bytes"]) for r in rows} == {
        (mode, size) for mode in ("tcp", "udp") for size in ("36864", "40961")}
    html = (tmp_path / "reports/html/my-study.html").read_text()
    assert 'id="around-40k"' in html and html.count("<img") >= 2
    assert "no scorecard" in html and not (tmp_path / "reports/html/my-study-scorecard.csv").exists()
    assert "my-study" in (tmp_path / "reports/html/index.html").read_text()
