"""netrepro.limits against the tools themselves: each tool takes each bound of the table and
refuses the value just past it, so the validator accepts exactly what the tools accept."""
import json
import math
import subprocess

import pytest

from netrepro import limits
from netrepro.provenance import REPO

BIN = REPO / "tools" / "bin"
SCHEMA = json.loads((REPO / "configs" / "schema" / "spec.schema.json").read_text())
# Each limit, the flags it stands for, and the flag's value for a value of the limit (pingx's
# --seed is seed x 1000 + trial, at the last trial a profile may have).
CASES = {
    "echoes": (limits.ECHOES, [("pingx", "--count")], str),
    "timeout": (limits.TIMEOUT_NS, [("pingx", "--timeout")], lambda v: f"{v}ns"),
    "cooling gap": (limits.COOL_GAP_NS, [("pingx", "--cool-gap"), ("echod", "--echo-gap")], lambda v: f"{v}ns"),
    "cooling iterations": (limits.COOL_ITERATIONS, [("pingx", "--cool-iterations")], str),
    "socket buffer": (limits.SOCKET_BUFFER, [(tool, flag) for tool in ("pingx", "echod")
                                             for flag in ("--sndbuf", "--rcvbuf")], lambda v: f"{v}B"),
    "seed": (limits.SEED, [("pingx", "--seed")], lambda v: str(v * 1000 + limits.MAX_TRIALS)),
    "mtu": (limits.MTU, [("linkemu", "--mtu")], lambda v: f"{v}B"),
    "rate": (limits.RATE, [("linkemu", "--rate")], lambda v: f"{v}bit"),
}


def refused(tool: str, flag: str, value: str) -> bool:
    """Whether the tool's parser refuses the value; an operand after it makes a parser that took
    every flag stop with its no-operands error instead of starting."""
    done = subprocess.run([str(BIN / tool), flag, value, "stray-operand"], capture_output=True, text=True, timeout=10)
    assert done.returncode == 2, done.stderr
    took = "takes no operands" in done.stderr or "unexpected argument 'stray-operand'" in done.stderr
    assert took or value in done.stderr, done.stderr
    return not took


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_tools_take_each_bound_and_refuse_what_lies_past_it(name):
    limit, flags, text = CASES[name]
    bounds = [limit.low] + ([] if math.isinf(limit.high) else [int(limit.high)])
    for value in bounds:
        assert not any(refused(tool, flag, text(value)) for tool, flag in flags), (name, value)
    beyond = [limit.low - 1] + ([] if math.isinf(limit.high) else [int(limit.high) + 1])
    for value in beyond:
        if value >= 0:  # a negative seed is the schema's to refuse (minimum 0)
            assert any(refused(tool, flag, text(value)) for tool, flag in flags), (name, value)


def test_the_schema_gives_the_same_maxima():
    profile = SCHEMA["$defs"]["profile"]["properties"]
    assert profile["echoes"]["maximum"] == limits.ECHOES.high
    assert profile["trials"]["maximum"] == limits.MAX_TRIALS


def test_the_argv_builders_refuse_a_value_past_a_limit():
    from netrepro.errors import RunError

    assert limits.TIMEOUT_NS.arg(5e9) == "5000000000ns"
    with pytest.raises(RunError, match=r"echod --cool-gap, --echo-gap 1000000001ns"):
        limits.COOL_GAP_NS.arg(1_000_000_001)
