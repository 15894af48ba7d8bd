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


# A spec is a few kilobytes; these bounds keep a crafted file from exhausting the validator.
MAX_FILE_BYTES = 1 << 20
MAX_DEPTH = 32


class _SpecLoader(yaml.SafeLoader):
    """Plain data only: no anchors or aliases (which let a small file expand without bound or
    refer to itself), nesting at most MAX_DEPTH deep, and every mapping key read as the text it
    is written as, so that an experiment named `on` or `1995` keeps its name."""

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise yaml.MarkedYAMLError(problem="anchors and aliases (& and *) are not allowed in a spec; "
                                       "write the values out, or put shared settings under defaults",
                                       problem_mark=event.start_mark)
        self.depth = getattr(self, "depth", 0) + 1
        if self.depth > MAX_DEPTH:
            raise yaml.MarkedYAMLError(problem=f"nested more than {MAX_DEPTH} levels deep",
                                       problem_mark=event.start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.MarkedYAMLError(problem="a key must be plain text", problem_mark=key_node.start_mark)
            if any(ord(char) < 32 or ord(char) == 127 for char in key_node.value):
                raise yaml.MarkedYAMLError(problem=f"the key {key_node.value!r} holds a control character",
                                           problem_mark=key_node.start_mark)
            mapping[key_node.value] = self.construct_object(value_node, deep=deep)
        return mapping


_SpecLoader.add_constructor("tag:yaml.org,2002:map", _SpecLoader.construct_mapping)


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError(path, "", None, f"cannot read the file: {exc.strerror}") from exc
    if len(raw) > MAX_FILE_BYTES:
        raise SpecError(path, "", None, f"the file has {len(raw)} octets; a spec has at most {MAX_FILE_BYTES}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise SpecError(path, "", line, "not UTF-8 text: save the file as UTF-8") from exc


def load_document(path: Path) -> Document:
    """Parses a YAML file; syntax errors, duplicate keys and constructs a spec does not allow
    become SpecErrors with their line."""
    text = _read_text(path)
    loader = None
    try:
        loader = _SpecLoader(text)
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else None
        raise SpecError(path, "", line, f"not valid YAML: {exc.problem}") from exc
    except yaml.YAMLError as exc:  # e.g. a control character, found by the reader
        line = text[:getattr(exc, "position", 0)].count("\n") + 1
        raise SpecError(path, "", line, f"not valid YAML: {exc}".splitlines()[0]) from exc
    finally:
        if loader is not None:
            loader.dispose()
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
