"""netrepro's modules import each other in one direction only: the graph of their imports, built
from the source with ast, has no cycle, and every import of a netrepro module is at the top of
its module (none placed inside a function to hold a cycle apart)."""
import ast
from pathlib import Path

from netrepro.tools import TOOLS
from netrepro.yamlsrc import load_schema

PACKAGE = Path(__file__).resolve().parent.parent / "netrepro"
# The venv's .pth hook, imported by every Python that starts there: it loads netrepro.yamlsrc
# (and with it jsonschema and PyYAML) only when Snakemake or yte is imported.
DEFERRED = {"netrepro.yteguard": {"netrepro.yamlsrc"}}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(node: ast.AST, modules: set[str]) -> set[str]:
    """The netrepro modules an import statement imports (a name imported from a package is its
    submodule when there is one)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        found = {f"{node.module}.{alias.name}" for alias in node.names} & modules
        return found | ({node.module} if node.module in modules else set())
    return set()


def graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Each module's imports of netrepro modules: all of them, and those not at its top."""
    paths = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
    modules = set(paths)
    edges: dict[str, set[str]] = {}
    nested: dict[str, set[str]] = {}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(), str(path))
        top = {id(node) for node in tree.body}
        edges[name] = set()
        nested[name] = set()
        for node in ast.walk(tree):
            targets = imported(node, modules) - {name}
            edges[name] |= targets
            if id(node) not in top:
                nested[name] |= targets
    return edges, nested


def cycle(edges: dict[str, set[str]]) -> list[str]:
    """One cycle of the graph as a path that comes back to its start, or []."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = "open"
        path.append(node)
        for target in sorted(edges[node]):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        state[node] = "done"
        path.pop()
        return []

    for start in sorted(edges):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return []


def test_the_finder_finds_a_cycle():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) == []


def test_netrepro_has_no_import_cycle():
    edges, _ = graph()
    assert "netrepro.measure" in edges and edges["netrepro.measure"], "the graph found no imports"
    found = cycle(edges)
    assert not found, "import cycle: " + " -> ".join(found)


def test_netrepro_imports_its_modules_at_the_top():
    _, nested = graph()
    placed = {name: targets - DEFERRED.get(name, set()) for name, targets in nested.items()}
    assert {name: targets for name, targets in placed.items() if targets} == {}


def test_every_tool_of_the_schema_has_its_module():
    assert tuple(TOOLS) == tuple(load_schema("spec.schema.json")["$defs"]["settings"]["properties"]["tool"]["enum"])
    for module in TOOLS.values():
        for name in ("Settings", "parse_settings", "OWN_KEYS", "SWEEP_AXES", "ORDER_FIELDS", "sim_only", "binaries",
                     "parts", "traced", "fixed_columns", "prepares", "run"):
            assert hasattr(module, name), f"{module.__name__} lacks {name}"


def test_every_tool_orders_its_runs_by_columns_of_its_rows():
    """A run's order names each measurement by values its rows carry (netrepro.trial.run_order)."""
    columns = load_schema("results-columns.json")["tools"]
    for name, module in TOOLS.items():
        known = {column["name"] for column in columns[name]["columns"]}
        assert module.ORDER_FIELDS and set(module.ORDER_FIELDS) <= known, (name, module.ORDER_FIELDS)
