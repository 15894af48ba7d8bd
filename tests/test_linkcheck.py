"""The link check's reading of iperf3 reports, on samples iperf3 3.12 printed over the wan-1995
link (1.536 Mb/s, 35 ms, 2.7% loss, 40-packet queue), UDP offered at 1.92 Mb/s in 1472-octet
datagrams; only the parts the check reads are kept."""
import json

import pytest

from netrepro import linkcheck
from netrepro.linkcheck import LinkCheckError, parse_iperf3_report, receiver_goodput_mbit, setup_failed

def interval(start, end, nbytes, omitted=False):
    return {"sum": {"start": start, "end": end, "seconds": end - start, "bytes": nbytes, "omitted": omitted,
                    "sender": False}}


# Forward: the server received; the client's report carries the server's (--get-server-output).
# Its last interval is the link's queue draining after the sender stopped.
SERVER_INTERVALS = [interval(0, 1.000117, 173696, omitted=True), interval(5e-05, 1.00005, 188416),
                    interval(1.00005, 2.000182, 188416), interval(2.000182, 2.377312, 72128)]
FORWARD = {
    "intervals": [interval(0, 1.0, 238464)],
    "end": {"sum_received": {"start": 0, "end": 2.377312, "seconds": 2.377312, "bytes": 448960}},
    "server_output_json": {"intervals": SERVER_INTERVALS},
}
# --reverse: the client received, and its own intervals say so.
REVERSE = {
    "intervals": [interval(0, 1.000089, 186944, omitted=True), interval(5.2e-05, 1.000038, 188416),
                  interval(1.000038, 1.999965, 188416)],
    "end": {"sum_received": {"start": 0, "end": 1.999965, "seconds": 1.999965, "bytes": 376832}},
}
# Forward again, but the end-of-test message crossed the lossy link late, as in a failed run
# (receiver total 4.004 s): the server went on counting an idle link for two more seconds.
LATE_END = {**FORWARD, "end": {"sum_received": {"seconds": 4.004, "bytes": 448960}},
            "server_output_json": {"intervals": SERVER_INTERVALS[:3] + [
                interval(2.000182, 3.000201, 72128), interval(3.000201, 4.004, 0)]}}
# The first datagram of the UDP stream, or the server's answer to it, was lost.
SETUP_LOST = {
    "start": {"connected": [], "version": "iperf 3.12", "target_bitrate": 1920000},
    "intervals": [],
    "end": {},
    "error": "unable to read from stream socket: ",
}
WARNING = "warning: UDP block size 1472 exceeds TCP MSS 1448, may result in fragmentation / drops\n"


@pytest.mark.parametrize("report,reverse", [(FORWARD, False), (REVERSE, True), (LATE_END, False)])
def test_goodput_is_what_the_receiver_counted_while_the_sender_sent(report, reverse):
    # Two whole seconds of 128 datagrams of 1472 octets: the T1's 1.536 Mb/s x 1472/1500.
    assert receiver_goodput_mbit(report, reverse) == pytest.approx(1.5072, abs=2e-4)


def test_a_report_without_whole_receiver_intervals_fails_loudly():
    with pytest.raises(LinkCheckError, match="no whole receiver interval"):
        receiver_goodput_mbit({**FORWARD, "server_output_json": {"intervals": SERVER_INTERVALS[:1]}}, False)
    with pytest.raises(LinkCheckError, match="no whole receiver interval"):
        receiver_goodput_mbit({"intervals": [], "end": {}}, True)


def test_a_warning_on_stderr_does_not_reach_the_parser():
    assert parse_iperf3_report(json.dumps(FORWARD)) == FORWARD
    assert "no JSON report" in parse_iperf3_report(WARNING + json.dumps(FORWARD))["error"]


def test_only_a_test_that_never_started_is_run_again():
    assert setup_failed(SETUP_LOST)
    assert not setup_failed({"intervals": [{}], "error": "unable to read from stream socket: "})
    assert not setup_failed({"intervals": [], "error": "the server is busy running a test"})


class FakeHost:
    """Plays an iperf3 server and client: the client's reports come from a list."""

    name = "h"

    def __init__(self, outputs: list[str]) -> None:
        self.outputs = outputs
        self.commands: list[list[str]] = []

    def popen(self, argv, **kwargs):
        self.commands.append(argv)
        return FakeProcess(self.outputs.pop(0) if argv[:2] == ["iperf3", "--client"] else ":5201")


class FakeProcess:
    def __init__(self, output: str) -> None:
        self.output = output
        self.returncode = 0

    def communicate(self, timeout=None):
        return self.output, WARNING

    def poll(self):
        return 0


def test_a_lost_setup_datagram_is_retried_and_the_rest_is_not(monkeypatch):
    host = FakeHost([json.dumps(SETUP_LOST), json.dumps(FORWARD)])
    assert linkcheck.iperf3_goodput_mbit(host, host, "10.0.0.2", False, (1.92e6, 1472)) == pytest.approx(1.5072, abs=2e-4)
    client = [c for c in host.commands if c[:2] == ["iperf3", "--client"]]
    assert len(client) == 2 and ["--udp", "--bitrate", "1920000", "--length", "1472"] == client[0][-5:]
    monkeypatch.setattr(linkcheck, "IPERF_ATTEMPTS", 2)
    with pytest.raises(LinkCheckError, match="stream socket"):
        linkcheck.iperf3_goodput_mbit(FakeHost([json.dumps(SETUP_LOST)] * 2), FakeHost([]), "10.0.0.2", True)


def test_a_goodput_off_once_is_measured_again_and_one_off_twice_stays_off():
    samples = iter([133.9, 127.0])
    assert linkcheck.goodput_within(lambda: next(samples), 125.7, 5.0) == (127.0, 2)
    samples = iter([126.0])
    assert linkcheck.goodput_within(lambda: next(samples), 125.7, 5.0) == (126.0, 1)
    samples = iter([140.0, 139.0, 110.0])
    assert linkcheck.goodput_within(lambda: next(samples), 125.7, 5.0) == (139.0, 2)
