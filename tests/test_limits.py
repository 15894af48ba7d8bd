"""netrepro.limits against the tools themselves: each tool takes each bound of the table and
refuses the value just past it (where the table's range is narrower than the tool's, it takes
both ends), so the validator accepts nothing a tool refuses. Host-model keys are checked the way
the tools read them: netsim loading a model file that holds the bound, then one past it."""
import json
import math
import subprocess
from pathlib import Path

import pytest

from netrepro import limits
from netrepro.provenance import REPO

BIN = REPO / "tools" / "bin"
SCHEMA = json.loads((REPO / "configs" / "schema" / "spec.schema.json").read_text())
HOST_SCHEMA = json.loads((REPO / "configs" / "schema" / "host.schema.json").read_text())
STRAY = "stray-operand"
ns = lambda v: f"{v}ns"  # noqa: E731
octets = lambda v: f"{v}B"  # noqa: E731
# Each limit, the (tool, arguments before the flag, flag) it stands for, and the flag's value
# for a value of the limit (pingx's --seed is seed x 1000 + trial, at the last trial a profile
# may have). A stray operand after the flag makes a parser that took the flag stop on it.
CASES = {
    "echoes": (limits.ECHOES, [("pingx", [], "--count")], str),
    "interval": (limits.INTERVAL_NS, [("pingx", [], "--interval")], ns),
    "timeout": (limits.TIMEOUT_NS, [("pingx", [], "--timeout")], ns),
    "cooling gap": (limits.COOL_GAP_NS, [("pingx", [], "--cool-gap"), ("echod", [], "--echo-gap")], ns),
    "cooling iterations": (limits.COOL_ITERATIONS, [("pingx", [], "--cool-iterations")], str),
    "socket buffer": (limits.SOCKET_BUFFER, [(tool, [], flag) for tool in ("pingx", "echod", "ttcp")
                                             for flag in ("--sndbuf", "--rcvbuf")], octets),
    "seed": (limits.SEED, [("pingx", [], "--seed")], lambda v: str(v * 1000 + limits.MAX_TRIALS)),
    "message": (limits.MESSAGE, [("pingx", [], "--sizes")], octets),
    "message sizes": (limits.MESSAGE_SIZES, [("pingx", [], "--sizes")],
                      lambda n: ",".join(f"{16 + i}B" for i in range(n))),
    "datagram": (limits.DATAGRAM, [("pingx", [], "--datagram")], octets),
    "write": (limits.WRITE, [("ttcp", ["-t"], "-l")], octets),
    "udp write": (limits.UDP_WRITE, [("ttcp", ["-t", "-u"], "-l")], octets),
    "pause": (limits.PAUSE_NS, [("ttcp", ["-t"], "--pause"), ("mftp", [], "--pause"), ("ipcbench", [], "--pause")],
              ns),
    "pause spread": (limits.PAUSE_SPREAD_NS, [("ttcp", ["-t"], "--pause-spread")], ns),
    "transfer timeout": (limits.TRANSFER_TIMEOUT_NS, [("ttcp", ["-t"], "--timeout"), ("mftp", [], "--timeout"),
                                                      ("mftpd", [], "--timeout"), ("ipcbench", [], "--timeout")], ns),
    "cool spin": (limits.COOL_SPIN, [("ttcp", ["-t", "-u"], "--cool-spin")], str),
    "transfer": (limits.TRANSFER, [("ttcp", ["-t"], "--bytes"), ("netsim", [], "--file-size")], octets),
    "connections": (limits.CONNECTIONS, [("mftp", [], "-n")], str),
    "mftp window": (limits.MFTP_WINDOW, [("mftp", [], "--window")], octets),
    "mftp block": (limits.MFTP_BLOCK, [("mftp", [], "--block")], octets),
    "mftp reorder": (limits.MFTP_REORDER, [("mftp", [], "--reorder-max"), ("mftpd", [], "--reorder-max")], octets),
    "sb_max": (limits.SB_MAX, [("netsim", [], "--sb-max")], octets),
    "segment": (limits.SEGMENT, [("ipcbench", ["--proto", "udp"], "--segment")], octets),
    "unack": (limits.UNACK, [("ipcbench", ["--proto", "udp"], "--unack")], str),
    "ipcbench message": (limits.IPC_MESSAGE, [("ipcbench", [], "--size")], octets),
    "ipcbench buffer": (limits.IPC_BUFFER, [("ipcbench", [], "--buf")], octets),
    "mtu": (limits.MTU, [("linkemu", [], "--mtu"), ("netsim", [], "--mtu")], octets),
    "rate": (limits.RATE, [("linkemu", [], "--rate"), ("netsim", [], "--rate")], lambda v: f"{v}bit"),
    "delay": (limits.DELAY_NS, [(tool, [], flag) for tool in ("linkemu", "netsim")
                                for flag in ("--delay", "--jitter", "--reverse-delay")], ns),
    "queue packets": (limits.QUEUE_PACKETS, [("linkemu", [], "--queue-packets"), ("netsim", [], "--queue-packets")],
                      str),
    "queue bytes": (limits.QUEUE_BYTES, [("linkemu", [], "--queue-bytes")], octets),
    "background size": (limits.BACKGROUND_SIZE, [("linkemu", [], "--background-size"),
                                                 ("netsim", [], "--background-size")], octets),
}


def refused(tool: str, before: list[str], flag: str, value: str) -> bool:
    """Whether the tool's parser refuses the value: its message names the value (or, for ttcp's
    -l, the flag with the number), and it exits 2 before running."""
    done = subprocess.run([str(BIN / tool), *before, flag, value, STRAY], capture_output=True, text=True,
                          timeout=10)
    assert done.returncode == 2, (tool, flag, value, done.stderr)
    said = done.stderr.splitlines()[0]  # the usage that follows names values of its own
    return (f"{flag} {value}:" in said or f"'{value}'" in said or said.startswith(f"{tool}: {flag}: ")
            or (flag == "-l" and f"-l {value.rstrip('B')}:" in said))


def bounds(limit: limits.Limit) -> tuple[list[int], list[int]]:
    """The ends of the range, and the values just past them that a tool refuses."""
    ends = [limit.low] + ([] if math.isinf(limit.high) else [int(limit.high)])
    beyond = [] if limit.narrower else [limit.low - 1] + ([] if math.isinf(limit.high) else [int(limit.high) + 1])
    return ends, [value for value in beyond if value >= 0]  # a negative value is the schema's to refuse


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_tools_take_each_bound_and_refuse_what_lies_past_it(name):
    limit, flags, text = CASES[name]
    ends, beyond = bounds(limit)
    for value in ends:
        took = [(tool, flag) for tool, before, flag in flags if not refused(tool, before, flag, text(value))]
        assert took == [(tool, flag) for tool, _, flag in flags], (name, value)
    for value in beyond:
        assert any(refused(tool, before, flag, text(value)) for tool, before, flag in flags), (name, value)


def test_every_limit_is_checked_against_a_tool():
    tested = {id(limit) for limit, _, _ in CASES.values()} | {id(limit) for limit in limits.HOST_KEYS.values()}
    tested |= {id(limits.DATAGRAMS), id(limits.TAHOE_SOCKET_BUFFER)}
    table = [name for name, value in vars(limits).items() if isinstance(value, limits.Limit)]
    assert [name for name in table if id(getattr(limits, name)) not in tested] == []


def netsim_pingx(tmp_path: Path, pingx: list[str], host_model: Path | None = None) -> subprocess.CompletedProcess[str]:
    model = host_model or REPO / "configs" / "hosts" / "sparcstation-ipc.yaml"
    return subprocess.run(
        [str(BIN / "netsim"), "--app", "pingx", "--rate", "10Mbit", "--host-model-a", str(model),
         "--host-model-b", str(model), "--no-wall", "--", "--mode", "udp", "--count", "1", "--interval", "1ms",
         *pingx, "--", "--proto", "udp"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path)


def test_pingx_numbers_at_most_65535_datagrams_a_message(tmp_path):
    most = limits.DATAGRAMS.high
    for count, ok in ((most, True), (most + 1, False)):
        done = netsim_pingx(tmp_path, ["--sizes", f"{count * 64}B", "--datagram", "64B", "--udp-quiet", "1ms"])
        assert (done.returncode != 2) == ok, done.stderr
        assert ("needs more than 65535 datagrams" in done.stderr) != ok


def test_the_tahoe_stack_grants_socket_buffers_up_to_sb_max(tmp_path):
    """The Tahoe stack refuses a larger buffer only when the socket is set up, once running."""
    for size, ok in ((limits.TAHOE_SOCKET_BUFFER.high, True), (limits.TAHOE_SOCKET_BUFFER.high + 1, False)):
        done = netsim_pingx(tmp_path, ["--sizes", "1K", "--sndbuf", f"{size}B", "--rcvbuf", f"{size}B"])
        assert (done.returncode == 0) == ok, (size, done.stderr)


@pytest.mark.parametrize("key", sorted(limits.HOST_KEYS))
def test_the_tahoe_stack_reads_each_host_model_key_up_to_its_bound(key, tmp_path):
    limit = limits.HOST_KEYS[key]
    base = {"name": "t", "per_packet_ns": 1, "per_byte_ps": 1, "per_call_ns": 1}
    paging = {"ram_bytes": 1 << 30, "resident_bytes": 0, "page_size": 4096, "page_in_ns": 1, "page_out_ns": 1}

    def loads(value: int) -> bool:
        # The paging keys are judged together once ram_bytes is given; resident_bytes alone.
        model = {**base, **(paging if key in paging and key != "resident_bytes" else {}), key: value}
        path = tmp_path / f"{key}-{value}.yaml"
        path.write_text("".join(f"{k}: {v}\n" for k, v in model.items()))
        done = netsim_pingx(tmp_path, ["--sizes", "1K"], path)
        return "reading the host model" not in done.stderr

    ends, beyond = bounds(limit)
    if key == "clock_hz":  # clock_hz must also divide 1000000000, the one bound a step past
        beyond = [7]
    for value in ends:
        if key == "ram_bytes" and value == 0:
            continue  # no paging: the other paging keys are then not read
        assert loads(value), (key, value)
    for value in beyond:
        assert not loads(value), (key, value)


def test_the_schemas_give_the_same_ranges():
    profile = SCHEMA["$defs"]["profile"]["properties"]
    assert profile["echoes"]["maximum"] == limits.ECHOES.high
    assert profile["trials"]["maximum"] == limits.MAX_TRIALS
    numeric = {key for key, schema in HOST_SCHEMA["properties"].items() if schema.get("type") == "integer"}
    assert numeric == set(limits.HOST_KEYS), "every host-model key has its range in netrepro/limits.py"
    for key, limit in limits.HOST_KEYS.items():
        schema = HOST_SCHEMA["properties"][key]
        assert schema["minimum"] <= limit.high and schema.get("maximum", limit.high) == limit.high, key


def test_the_argv_builders_refuse_a_value_past_a_limit():
    from netrepro.errors import RunError

    assert limits.TIMEOUT_NS.arg(5e9) == "5000000000ns"
    with pytest.raises(RunError, match=r"echod --cool-gap, --echo-gap 1000000001ns"):
        limits.COOL_GAP_NS.arg(1_000_000_001)
    with pytest.raises(RunError, match="an echo's timeout"):
        limits.TIMEOUT_NS.arg(math.inf)
