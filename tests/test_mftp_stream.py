"""comer94's plain-FTP runs (mftp in stream mode) in both backends, and the quick profile's
emulated path for every comer94 experiment that mirrors an item of the inventory."""
import json
from pathlib import Path

from netrepro import phase
from netrepro.tools import mftp
from netrepro.spec import load_spec
from tests.test_stacks import MacHost

REPO = Path(__file__).resolve().parent.parent
COMER = REPO / "configs" / "comer94.yaml"
ISHIKURA = REPO / "configs" / "ishikura.yaml"
SPACE_24K = ["--tcp-sendspace", "24576B", "--tcp-recvspace", "24576B"]


class FakeNet:
    """Two Mininet hosts as setup_hosts uses them, on a link whose backend reads frame times."""

    frame_times = True

    def __init__(self) -> None:
        self.h1 = MacHost("h1", "00:00:00:00:00:01")
        self.h2 = MacHost("h2", "00:00:00:00:00:02")


def test_every_mirrored_comer94_experiment_is_emulated_in_the_quick_profile():
    # backend auto, as the quick profile runs without --config backend=...: a `backend: sim`
    # pin or a netsim-only mftp setting would resolve to sim and leave the item unemulated. On
    # the shared Ethernet auto is linkemu, the one emulator with the medium.
    experiments = load_spec(COMER, {"profile": "quick"}).experiments.values()
    mirrored = [e for e in experiments if e.mirrors]
    assert {"ftp-ethernet", "ftp-atm", "fig8-16k16k", "fig8-16k20k", "ethernet"} <= {e.id for e in mirrored}
    expected = {e.id: "linkemu" if e.link.medium == "shared" else "auto" for e in mirrored}
    assert {e.id: e.backend for e in mirrored} == expected and "linkemu" in expected.values()
    assert [(e.id, e.backend_note) for e in mirrored if e.backend_note] == []


def test_the_ftp_runs_are_plain_ftp_on_the_ipc_hosts_over_both_links():
    experiments = load_spec(COMER, {"profile": "quick"}).experiments
    for name, link in (("ftp-ethernet", "ethernet-10-shared"), ("ftp-atm", "atm-taxi-100")):
        ftp = experiments[name]
        assert (ftp.stack, ftp.host, ftp.link_name) == ("tahoe", "sparcstation-ipc", link)
        assert ftp.settings is not None and not ftp.settings.block_mode and ftp.settings.connections == 1
        assert ftp.settings.window == 24576 and ftp.settings.write_file
        assert mftp.mftp_args(ftp.settings, 1)[-1] == "--plain"


def test_stream_mode_gives_the_sending_server_the_window_in_both_backends():
    # Plain FTP cannot tell mftpd the window: without the hosts' default buffers the sender
    # over Ethernet kept the stack's 4K.
    ftp = load_spec(COMER, {"profile": "quick"}).experiments["ftp-ethernet"]
    assert ftp.settings is not None and mftp.host_space(ftp.settings) == 24576
    assert mftp.stack_args(ftp.settings) == ["--tcp-space", "24576B"]
    args = mftp.hosts_ready(FakeNet(), "tahoe", Path("m.yaml"), ftp.link, mftp.host_space(ftp.settings))
    assert args["h1"][-4:] == args["h2"][-4:] == SPACE_24K


def test_block_mode_leaves_the_hosts_default_buffers_alone():
    fig6 = load_spec(ISHIKURA, {"profile": "smoke"}).experiments["fig6"]
    assert fig6.settings is not None and fig6.settings.block_mode
    assert mftp.host_space(fig6.settings) is None
    assert "--tcp-space" not in mftp.stack_args(fig6.settings)
    args = mftp.hosts_ready(FakeNet(), "tahoe", Path("m.yaml"), fig6.link)
    assert not any("--tcp-sendspace" in argv for argv in args.values())


def test_ftp_in_virtual_time_sends_from_the_window_at_the_emulated_tick_phase(tmp_path):
    spec = load_spec(COMER, {"profile": "smoke", "backend": "sim"})
    mftp.run(spec, spec.experiments["ftp-ethernet"], 1, tmp_path / "trial-1", None, None)
    provenance = json.loads((tmp_path / "trial-1" / "provenance.json").read_text())
    server = [r for r in provenance["records"] if r.get("tool") == "mftpd" and r.get("record") == "transfer"]
    # The sender is mftpd: its socket buffers, not only the client's, are the spec's window.
    assert server and all(r["sndbuf"] == r["rcvbuf"] == 24576 for r in server)
    command = provenance["command"]
    boot_b = phase.boot_b_ns(provenance["mftp_seed"])
    assert command[command.index("--boot-b") + 1] == f"{boot_b}ns" and provenance["boot_b_ns"] == boot_b
