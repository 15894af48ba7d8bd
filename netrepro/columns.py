"""The columns of results/<paper>/<experiment>/results.csv, read from configs/schema/results-columns.json:
per tool every column in order, its type as the reports read it and a line with its unit. The
aggregator, the R readers (reports/R/columns.R) and docs/results.md all take them from there.

    python -m netrepro.columns --markdown docs/results.md   # rewrite the doc's column tables
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from netrepro.atomic import write_text
from netrepro.helptext import description
from netrepro.paths import SCHEMA_DIR
from netrepro.yamlsrc import load_schema

SCHEMA_PATH = SCHEMA_DIR / "results-columns.json"
TYPES = ("character", "integer", "double", "logical")
# The tools, as the spec schema lists them (configs/schema/spec.schema.json).
TOOLS = tuple(load_schema("spec.schema.json")["$defs"]["settings"]["properties"]["tool"]["enum"])
BEGIN = "<!-- results-columns: written by `python -m netrepro.columns --markdown docs/results.md` from " \
        "configs/schema/results-columns.json; edit the schema, not this table -->"
END = "<!-- end of results-columns -->"


class SchemaError(ValueError):
    """The columns file breaks its own rules; the message names the tool and the column."""


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    description: str
    axis: str = ""


@dataclass(frozen=True)
class Schema:
    tools: dict[str, tuple[Column, ...]]
    rows: dict[str, str]
    sweep: tuple[Column, ...]
    sweep_rows: str


def _columns(where: str, raw: list[dict[str, str]], sweep: bool) -> tuple[Column, ...]:
    columns = []
    for entry in raw:
        column = Column(entry["name"], entry["type"], entry["description"], entry.get("axis", ""))
        if column.type not in TYPES:
            raise SchemaError(f"{where}: column {column.name}: type {column.type!r} is not one of {', '.join(TYPES)}")
        if not column.description.strip():
            raise SchemaError(f"{where}: column {column.name} has no description")
        if sweep and not column.axis:
            raise SchemaError(f"{where}: column {column.name} names no axis")
        columns.append(column)
    names = [c.name for c in columns]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SchemaError(f"{where}: column(s) {', '.join(twice)} listed twice")
    return tuple(columns)


def parse(document: dict) -> Schema:
    """The schema of a loaded columns file; a SchemaError when it breaks its rules."""
    if sorted(document["tools"]) != sorted(TOOLS):
        raise SchemaError(f"tools are {', '.join(sorted(document['tools']))}, expected {', '.join(sorted(TOOLS))}")
    tools = {tool: _columns(tool, document["tools"][tool]["columns"], sweep=False) for tool in TOOLS}
    sweep = _columns("sweep", document["sweep"]["columns"], sweep=True)
    for tool, columns in tools.items():
        # A sweep's columns go in before run_id (netrepro.aggregate.table).
        if columns[-1].name != "run_id":
            raise SchemaError(f"{tool}: the last column is {columns[-1].name}, not run_id")
        types = {c.name: c.type for c in columns}
        for column in sweep:
            if types.get(column.name, column.type) != column.type:
                raise SchemaError(f"{tool}: column {column.name} is {types[column.name]}, the sweep's is {column.type}")
    return Schema(tools=tools, rows={tool: document["tools"][tool]["rows"] for tool in TOOLS},
                  sweep=sweep, sweep_rows=document["sweep"]["rows"])


@functools.cache
def schema() -> Schema:
    return parse(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def tool_columns(tool: str) -> tuple[str, ...]:
    """A tool's columns in the order results.csv has them, without a sweep's."""
    return tuple(c.name for c in schema().tools[tool])


def sweep_columns() -> dict[str, str]:
    """The result column of each sweep axis."""
    return {c.axis: c.name for c in schema().sweep}


def _table(columns: tuple[Column, ...]) -> list[str]:
    return ["| column | type | what, unit |", "|---|---|---|",
            *(f"| `{c.name}` | {c.type} | {c.description.replace('|', '/')} |" for c in columns)]


def markdown(current: Schema | None = None) -> str:
    """The doc's column tables, between the markers."""
    current = current or schema()
    lines = [BEGIN]
    for tool in TOOLS:
        lines += ["", f"**{tool}**: {current.rows[tool]}.", "", *_table(current.tools[tool])]
    lines += ["", f"**Sweeps**: {current.sweep_rows}.", "", *_table(current.sweep), "", END]
    return "\n".join(lines)


def with_markdown(text: str, section: str) -> str:
    """text with the part from BEGIN to END replaced by section."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SchemaError(f"the doc lacks the markers {BEGIN!r} ... {END!r}")
    return text[:start] + section + text[end + len(END):]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--markdown", required=True, type=Path, metavar="DOC",
                        help="a Markdown file whose marked section gets the column tables")
    args = parser.parse_args(argv)
    try:
        text = args.markdown.read_text(encoding="utf-8")
        write_text(args.markdown, with_markdown(text, markdown()))
    except (OSError, SchemaError) as exc:
        print(f"netrepro: {args.markdown}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
