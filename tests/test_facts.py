"""Each fact is stated once and read from there; where two languages must each state it (a C
constant and its Python twin, a README's list for a reader), this checks they agree."""
import ast
import operator
import re
from pathlib import Path

import pytest

from netrepro import hostmodel, limits, phase, sim, stacks
from netrepro.backends import EMULATORS, FRAME_TIME_OCTETS
from netrepro.errors import RunError
from netrepro.paths import REPO
from netrepro.spec import BACKENDS, PROFILES, load_spec
from netrepro.tools import pingx, ttcp
from netrepro.units import parse_time
from netrepro.yamlsrc import load_schema

PACKAGE = REPO / "netrepro"


def c_defines(path: Path) -> dict[str, str]:
    """Every object-like #define of a C source: name -> its text, comments dropped."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    return dict(re.findall(r"^#define ([A-Z_][A-Z0-9_]*)[ \t]+(.+?)[ \t]*$", text, re.M))


def c_value(path: Path, name: str) -> int | str:
    """The value #define name has in path: a string literal, or an integer expression of
    literals and the file's other defines (1LL << 40, (1 * PR_SLOWHZ))."""
    defines = c_defines(path)
    assert name in defines, f"{path} defines no {name}"
    text = defines[name]
    if text.startswith('"'):
        return ast.literal_eval(text)
    expression = re.sub(r"\b([0-9]+)(?:[uU]?[lL]{0,2}|[lL]{1,2}[uU])\b", r"\1", text)
    for other in set(re.findall(r"\b[A-Z_][A-Z0-9_]*\b", expression)):
        expression = re.sub(rf"\b{other}\b", f"({c_value(path, other)})", expression)
    return arithmetic(ast.parse(expression, mode="eval").body, f"{path} {name}: {text}")


OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
             ast.Div: operator.floordiv, ast.LShift: operator.lshift}


def arithmetic(node: ast.AST, what: str) -> int:
    """An integer expression's value: literals, + - * / and <<, as C computes them on positives."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    assert isinstance(node, ast.BinOp) and type(node.op) in OPERATORS, f"not integer arithmetic: {what}"
    return OPERATORS[type(node.op)](arithmetic(node.left, what), arithmetic(node.right, what))


def readme_choices(key: str) -> set[str]:
    match = re.search(rf"`{key}=([a-z]+(?:\|[a-z]+)+)`", (REPO / "README.md").read_text())
    assert match, f"README.md gives no `{key}=...` choices"
    return set(match[1].split("|"))


def test_the_backends_are_the_schemas_and_every_emulator_is_one():
    schema = load_schema("spec.schema.json")["$defs"]["settings"]["properties"]["backend"]["enum"]
    assert BACKENDS == tuple(schema)
    assert set(BACKENDS) == {"auto", "sim", *EMULATORS}
    assert readme_choices("backend") == set(BACKENDS)


def test_the_profiles_are_the_schemas():
    assert PROFILES == tuple(load_schema("spec.schema.json")["properties"]["profiles"]["properties"])
    assert readme_choices("profile") == set(PROFILES)


# Facts the C tools and Python must each state: (C file, its #define, the Python value).
C_TWINS = [
    ("common/stackopt.h", "NR_SB_MAX", limits.TAHOE_SB_MAX),
    ("common/stackopt.h", "NR_MTU_MIN", limits.MTU.low),
    ("common/stackopt.h", "NR_MTU_MAX", limits.MTU.high),
    ("common/stackopt.h", "NR_TCPSPACE_ATM", stacks.RETRO_DEFAULT_BUFFER),
    ("common/stackopt.h", "NR_TICK_CYCLE_NS", phase.TICK_CYCLE_NS),
    ("common/nrargs.h", "NR_ARG_MAX_WAIT_NS", limits.MAX_WAIT_NS),
    ("common/frametime.h", "NR_FRAMETIME_LEN", FRAME_TIME_OCTETS),
    ("netsim/args.c", "DEFAULT_SPIN_PS", pingx.NETSIM_SPIN_PS),
    ("netsim/args.h", "NS_ADDR_B", sim.ADDR_B),
    ("pingx/plan.h", "PX_TIMEOUT_NS_PER_OCTET", round(pingx.PINGX_TIMEOUT_PER_OCTET_S * 10**9)),
    ("ttcp/args.c", "DEFAULT_WRITE_SIZE", ttcp.DEFAULT_WRITE_SIZE),
    ("tahoe/tahoe_host.c", "EXTENDS_DEPTH_MAX", hostmodel.EXTENDS_DEPTH_MAX),
    ("tahoe/tahoe_host.c", "EXTENDS_FILES_MAX", hostmodel.EXTENDS_FILES_MAX),
    ("tahoe/tahoe_host.c", "EXTENDS_BASES_MAX",
     load_schema("host.schema.json")["properties"]["extends"]["oneOf"][1]["maxItems"]),
]


@pytest.mark.parametrize(("source", "name", "python"), C_TWINS, ids=[name for _, name, _ in C_TWINS])
def test_c_constants_agree_with_python(source, name, python):
    assert c_value(REPO / "tools" / source, name) == python


@pytest.mark.skipif(not sim.BINARY.is_file(), reason="needs tools/bin/netsim (make -C tools)")
def test_the_counters_the_tools_read_are_in_netsims_sim_record():
    """netsim composes its counters' names (tools/netsim/report.c); a renamed one must fail
    here. One record shape serves every netsim app, so a short pingx run gives them all."""
    spec = load_spec(REPO / "configs" / "liu95db.yaml", {"profile": "smoke", "backend": "sim"})
    experiment = spec.experiments["lan-512b"]
    command = pingx.netsim_command(experiment, 1, pingx.pingx_argv(experiment, "udp", 1)[1:],
                                   pingx.echod_argv(experiment, cooled=False)[1:])
    record = sim.run_netsim(command).sim
    read = {key for table in (pingx.RUN_DROPS, ttcp.DROP_COUNTERS) for keys in table.values() for key in keys}
    read |= set(ttcp.PAIR_COUNTERS.values())
    assert sorted(read - record.keys()) == []


def test_a_drop_counter_missing_from_the_sim_record_is_an_error_not_a_blank_column():
    counters = {key: 1 for keys in pingx.RUN_DROPS.values() for key in keys}
    assert pingx.run_drops(counters)["run_drops_link"] == len(pingx.RUN_DROPS["run_drops_link"])
    del counters["b_udps_fullsock"]
    with pytest.raises(RunError, match="lacks b_udps_fullsock"):
        pingx.run_drops(counters)


def test_linux_retro_takes_the_tahoe_stacks_shortest_retransmission_timeout():
    timer = REPO / "tools" / "tahoe" / "tcp_timer.h"
    assert c_value(timer, "TCPTV_MIN") / c_value(timer, "PR_SLOWHZ") == parse_time(stacks.BSD_RTO_MIN)


def test_the_c_sources_state_sb_max_once():
    """SunOS's sb_max as a number in C code (not in a comment or a test) only in stackopt.h."""
    found = []
    for path in sorted((REPO / "tools").glob("*/*.[ch]")):
        if path.name.startswith("test_"):
            continue
        code = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
        found += [path.relative_to(REPO).as_posix() for line in code.splitlines() if "52428" in line]
    assert found == ["tools/common/stackopt.h"]


def test_the_reader_of_c_defines_evaluates_what_it_is_given(tmp_path):
    header = tmp_path / "x.h"
    header.write_text('#define A 2 /* two */\n#define B (1LL << 40)\n#define C (A * 3 + B)\n#define S "10.0.0.2"\n')
    assert [c_value(header, name) for name in "ABCS"] == [2, 1 << 40, 6 + (1 << 40), "10.0.0.2"]


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_only_paths_says_where_the_tools_are():
    for path in modules():
        if path.name == "paths.py":
            continue
        parts = {node.value for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.Constant) and node.value in ("bin", "tools/bin")}
        assert not parts, f"{path} builds the tools' path; take it from netrepro.paths"


def test_only_jsonlines_reads_json_lines():
    for path in modules():
        if path.name == "jsonlines.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert not ("json.loads" in line and "splitlines" in line), f"{path}:{number}: use netrepro.jsonlines"


HOST_DOC = REPO / "docs" / "host-mechanisms.md"
# The table's host columns (their first word) and the host files they stand for.
HOST_COLUMNS = {"IPC": "sparcstation-ipc", "SS20": "sparcstation-20",
                "Sol": "sparcstation-ipx-solaris23", "4c": "sun-4c-20mb"}


def host_doc_rows() -> list[tuple[list[str], dict[str, str]]]:
    """The rows of host-mechanisms.md's table of values (section 2.0) that name host-model
    keys: the keys, and each host column's cell."""
    lines = HOST_DOC.read_text().splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("| key | IPC | SS20 |"))
    hosts = [cell.strip().split()[0] for cell in lines[head].strip("|").split("|")][1:]
    rows = []
    for line in lines[head + 2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        keys = re.findall(r"`([a-z0-9_]+)`", cells[0])
        if keys:
            rows.append((keys, dict(zip(hosts, cells[1:]))))
    return rows


def stated_values(keys: list[str], cell: str) -> list[float]:
    """The values a cell states for its row's keys: one each where it reads "x / y", else its
    first number for all of them (a row `a` = `b`)."""
    parts = cell.split(" / ") if len(keys) > 1 and " / " in cell else [cell] * len(keys)
    return [float(re.match(r"(\d+(?:\.\d+)?(?:e\d+)?)", part.strip()).group(1)) for part in parts]


def test_the_host_doc_s_table_of_values_is_the_host_files():
    """A value the doc's table gives for a host is the one its host file (with the files it
    extends) sets, and "-" one it does not set: the doc is read beside the files, not instead."""
    values = {column: hostmodel.values(REPO / "configs" / "hosts" / f"{name}.yaml")
              for column, name in HOST_COLUMNS.items()}
    checked = 0
    for keys, cells in host_doc_rows():
        for column, cell in cells.items():
            host = values[column]
            if cell.startswith("-"):
                assert not [key for key in keys if key in host], (keys, column, cell)
            else:
                assert [host.get(key) for key in keys] == stated_values(keys, cell), (keys, column, cell)
            checked += 1
    assert checked >= 60  # the table was found and read (17 rows of 4 hosts today)
