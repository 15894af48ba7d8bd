"""The bad-input corpus in tests/bad_specs/: each spec is refused with its exact error, naming the
file, the line and the key, without a traceback and without exhausting the validator."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from netrepro import linkfile
from netrepro.limits import check_host
from netrepro.spec import load_spec
from netrepro.yamlsrc import MAX_FILE_BYTES, SpecError, load_document, validate

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
    # A part of host models (configs/hosts/other-process.yaml) is no host a run can take.
    "host-is-a-part.yaml": (12, "experiments.a.host", "'other-process' is a part of host models (part: true), "
                            "not a host"),
    # Values the tools refuse (netrepro.limits, checked against the tools by tests/test_limits.py).
    "too-many-echoes.yaml": (4, "profiles.quick.echoes", "1000001 is greater than the maximum of 1000000"),
    "short-timeout.yaml": (12, "experiments.a.timeout",
                           "999000ns is out of range: an echo's timeout must be 1000000ns to 3600000000000ns "
                           "(pingx --timeout)"),
    "zero-cooling-gap.yaml": (12, "experiments.a.cooling.gap", "0ns is out of range: a cooling gap must be 1ns to "
                              "1000000000ns (pingx and echod --cool-gap, --echo-gap)"),
    "long-cooling-gap.yaml": (12, "experiments.a.cooling.gap", "1001000000ns is out of range: a cooling gap must be"),
    "zero-socket-buffer.yaml": (12, "experiments.a.socket_buffers.send", "0B is out of range: a socket buffer must "
                                "be 1B to 1073741824B (pingx, echod and ttcp --sndbuf, --rcvbuf)"),
    "negative-socket-buffer.yaml": (12, "experiments.a.socket_buffers.receive", "'-16K' is not valid here"),
    "variant-of-unknown-assumption.yaml": (18, "experiments.b.variant_of.assumption",
                                           "no assumption named 'write-size' under assumptions; known: write_size"),
    "huge-seed.yaml": (12, "experiments.a.seed", "99999999999999999999 is out of range: a seed (pingx gets seed x "
                       "1000 + trial) must be 0 to 9223372036854774 (pingx --seed)"),
    # Issue 32: anything but plain data, values no tool takes, and numbers that broke Python.
    "tag.yaml": (10, "", "tags (tag:yaml.org,2002:python/object/apply:os.system) are not allowed in a spec"),
    "hex-number.yaml": (12, "", "0x10 is not a decimal number: write numbers in decimal"),
    "huge-integer.yaml": (12, "", "a number of 5000 characters; no value a tool takes needs more than 40"),
    "huge-size.yaml": (12, "experiments.a.messages[0]", "99999999999999999999... has 400 digits; no value a tool "
                       "takes has more than 30"),
    "huge-timeout.yaml": (12, "experiments.a.timeout", "99999999999999999999... has 400 digits"),
    "huge-interval.yaml": (4, "profiles.quick.interval", "99999999999999999999... has 400 digits"),
    "long-timeout.yaml": (12, "experiments.a.timeout", "3601000000000ns is out of range: an echo's timeout must be "
                          "1000000ns to 3600000000000ns (pingx --timeout)"),
    "paper-with-newline.yaml": (1, "paper", "'x\\n' is not valid here"),
    "too-many-sizes.yaml": (12, "experiments.a.messages", "257 is out of range: the different message sizes of an "
                            "experiment must be 1 to 256 (pingx --sizes)"),
    "tiny-datagrams.yaml": (12, "experiments.a.datagram", "a 4194304B message in 64B datagrams is 65536 datagrams: "
                            "the datagrams of one message must be 1 to 65535 (pingx --sizes with --datagram)"),
    "tahoe-socket-buffer.yaml": (14, "experiments.a.socket_buffers.send", "65536B is out of range: a socket buffer "
                                 "on stack tahoe (SunOS's sb_max) must be 1B to 52428B (the Tahoe stack --sndbuf, "
                                 "--rcvbuf)"),
    "ttcp-timeout-within-pause.yaml": (12, "experiments.a.ttcp.timeout", "must be longer than pause plus "
                                       "pause_spread, or the pause between transfers ends the run (ttcp --timeout)"),
    # A range of 2 billion sizes, which the validator once built as a tuple (memory, not time).
    "ipcbench-size-range.yaml": (13, "experiments.a.ipcbench.sizes", "'1B..2000M step 1B' holds more than 1000 "
                                 "sizes, each one run per curve"),
}
# Link kinds (configs/links/) the tools refuse: file: (line, key, what the message says).
EXPECTED_LINKS = {
    "zero-rate.yaml": (12, "rate", "0bit is out of range: a link's rate must be 1bit or more (linkemu --rate)"),
    "zero-mtu.yaml": (11, "mtu", "0B is out of range: a link's MTU must be 68B to 65535B (linkemu, netsim and the "
                      "Tahoe stack --mtu)"),
    "huge-mtu.yaml": (11, "mtu", "99999999999999999999... has 400 digits; no value a tool takes has more than 30"),
    "long-delay.yaml": (13, "delay", "2000000000000000ns is out of range: a delay must be 0ns to 1000000000000000ns "
                        "(linkemu --delay, --jitter)"),
    "huge-queue.yaml": (15, "queue.packets", "2000000000 is out of range: a queue in packets must be 0 to "
                        "1000000000 (linkemu --queue-packets)"),
    "nan-loss.yaml": (14, "", ".nan is not a finite number"),
    # `extends` (netrepro.linkfile): a base that is not there, and a loop.
    "extends-unknown.yaml": (4, "extends", "no link named 'ethernet-10-share' beside this one"),
    "extends-itself.yaml": (4, "extends", "a loop: extends-itself extends extends-itself"),
}
# Host models (configs/hosts/) the Tahoe stack refuses.
EXPECTED_HOSTS = {
    "clock-hz-7.yaml": (9, "clock_hz", "7 does not divide 1000000000: a clock tick must be a whole number of "
                        "nanoseconds"),
    "huge-per-packet.yaml": (2, "per_packet_ns", "9223372036854775807ns is out of range: host model per_packet_ns "
                             "must be 0ns to 1000000000ns (netsim and the Tahoe stack --host-model)"),
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


@pytest.mark.parametrize("kind, name", [("links", name) for name in sorted(EXPECTED_LINKS)]
                         + [("hosts", name) for name in sorted(EXPECTED_HOSTS)])
def test_each_bad_link_kind_or_host_model_gives_its_exact_error(kind, name):
    """What load_spec does with the link kind or host model an experiment names."""
    line, key, message = (EXPECTED_LINKS if kind == "links" else EXPECTED_HOSTS)[name]
    path = CORPUS / kind / name
    with pytest.raises(SpecError) as caught:
        if kind == "links":
            linkfile.load(path)
        else:
            document = load_document(path)
            validate(document, "host.schema.json")
            check_host(document)
    assert (caught.value.path, caught.value.line, caught.value.key) == (str(path), line, key)
    assert message in caught.value.message


def test_the_link_and_host_corpus_and_their_expectations_list_the_same_files():
    assert sorted(p.name for p in (CORPUS / "links").glob("*.yaml")) == sorted(EXPECTED_LINKS)
    assert sorted(p.name for p in (CORPUS / "hosts").glob("*.yaml")) == sorted(EXPECTED_HOSTS)


def test_a_device_a_fifo_and_a_large_file_are_refused_without_reading_them(tmp_path):
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    large = tmp_path / "large.yaml"
    large.write_text("paper: comer94\n# " + "x" * (MAX_FILE_BYTES + 1) + "\n")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "netrepro.validate", "/dev/zero", str(fifo), str(large)],
                          capture_output=True, text=True, timeout=30)
    assert time.monotonic() - started < 10
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        "error: /dev/zero: (top level): not a regular file: a spec is a file of YAML text",
        f"error: {fifo}: (top level): not a regular file: a spec is a file of YAML text",
        f"error: {large}: (top level): the file has more than {MAX_FILE_BYTES} octets, the most a spec may have"]
