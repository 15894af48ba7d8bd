"""YAML documents that remember where each key came from, and schema validation whose errors
name the file, the key and the line."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import jsonschema
import yaml
from referencing import Registry, Resource

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "configs" / "schema"

KeyPath = tuple[Any, ...]


class SpecError(ValueError):
    """A spec, link kind or message set that cannot be used, located in its file."""

    def __init__(self, path: Path | str, key: str, line: int | None, message: str):
        self.path = str(path)
        self.key = key
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {key or '(top level)'}: {message}")


@dataclass(frozen=True)
class Document:
    """A parsed YAML file with the line of every key and list item."""

    path: Path
    data: Any
    lines: dict[KeyPath, int]

    def line_of(self, key_path: Iterable[Any]) -> int | None:
        """The line of key_path, or of its nearest ancestor that has one."""
        parts = tuple(key_path)
        while parts:
            if parts in self.lines:
                return self.lines[parts]
            parts = parts[:-1]
        return self.lines.get((), 1)

    def error(self, key_path: Iterable[Any], message: str) -> SpecError:
        parts = tuple(key_path)
        return SpecError(self.path, format_key(parts), self.line_of(parts), message)


def format_key(key_path: Iterable[Any]) -> str:
    text = ""
    for part in key_path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _record_lines(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int]) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            child = path + (key_node.value,)
            _record_lines(value_node, child, lines)
            lines[child] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _record_lines(item, path + (index,), lines)


def load_document(path: Path) -> Document:
    """Parses a YAML file; syntax errors and duplicate keys become SpecErrors with their line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(path, "", None, f"cannot read the file: {exc.strerror}") from exc
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else None
        raise SpecError(path, "", line, f"not valid YAML: {exc.problem}") from exc
    lines: dict[KeyPath, int] = {}
    if node is not None:
        _check_duplicate_keys(path, node)
        _record_lines(node, (), lines)
    return Document(path=path, data=data, lines=lines)


def _check_duplicate_keys(path: Path, node: yaml.Node, key_path: KeyPath = ()) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if key_node.value in seen:
                raise SpecError(path, format_key(key_path + (key_node.value,)),
                                key_node.start_mark.line + 1, "this key is given twice")
            seen.add(key_node.value)
            _check_duplicate_keys(path, value_node, key_path + (key_node.value,))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _check_duplicate_keys(path, item, key_path + (index,))


@lru_cache(maxsize=None)
def _validator(schema_name: str) -> jsonschema.Draft202012Validator:
    resources = []
    for schema_file in sorted(SCHEMA_DIR.glob("*.schema.json")):
        schema = json.loads(schema_file.read_text(encoding="utf-8"))
        resources.append((schema["$id"], Resource.from_contents(schema)))
    registry = Registry().with_resources(resources)
    schema = json.loads((SCHEMA_DIR / schema_name).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema, registry=registry)


def _explain(error: jsonschema.ValidationError) -> tuple[KeyPath, str]:
    """The key an error is about and a message a person can act on."""
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(key for key in error.instance if key not in allowed)
        if extra:
            hint = f"; allowed here: {', '.join(sorted(allowed))}" if allowed else ""
            return path + (extra[0],), f"unknown key '{extra[0]}'{hint}"
    if error.validator == "required":
        return path, error.message.replace("is a required property", "is required here")
    if error.validator == "enum":
        choices = ", ".join(map(str, error.validator_value))
        return path, f"{error.instance!r} is not one of: {choices}"
    if error.validator == "pattern":
        described = error.schema.get("description", "")
        return path, f"{error.instance!r} is not valid here. {described}".strip()
    if error.validator == "oneOf" and error.context:
        best = min(error.context, key=lambda sub: len(list(sub.absolute_path)))
        return _explain(best)
    return path, error.message


def validate(document: Document, schema_name: str) -> None:
    """Raises a SpecError for the first schema violation, in file order."""
    errors = list(_validator(schema_name).iter_errors(document.data))
    if not errors:
        return
    explained = [_explain(error) for error in errors]
    explained.sort(key=lambda item: document.line_of(item[0]) or 0)
    key_path, message = explained[0]
    raise document.error(key_path, message)
