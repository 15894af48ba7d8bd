"""Each fact is stated once and read from there; where two languages must each state it (a C
constant and its Python twin, a README's list for a reader), this checks they agree."""
import ast
import re
from pathlib import Path

from netrepro import limits
from netrepro.backends import EMULATORS
from netrepro.paths import REPO
from netrepro.spec import BACKENDS, PROFILES
from netrepro.yamlsrc import load_schema

PACKAGE = REPO / "netrepro"


def c_define(path: Path, name: str) -> int:
    match = re.search(rf"^#define {name} \(?([0-9]+)(LL)?( \* 1000000000LL\))?", path.read_text(), re.M)
    assert match, f"{path} defines no {name}"
    return int(match[1]) * (10**9 if match[3] else 1)


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


def test_c_constants_agree_with_limits():
    stackopt = REPO / "tools" / "common" / "stackopt.h"
    assert c_define(stackopt, "NR_SB_MAX") == limits.TAHOE_SB_MAX
    assert (c_define(stackopt, "NR_MTU_MIN"), c_define(stackopt, "NR_MTU_MAX")) == (limits.MTU.low, limits.MTU.high)
    assert c_define(REPO / "tools" / "common" / "nrargs.h", "NR_ARG_MAX_WAIT_NS") == limits.MAX_WAIT_NS


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
