"""YAML documents that remember where each key came from, and schema validation whose errors
name the file, the key and the line."""
from __future__ import annotations

import copy
import json
import math
import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator

import jsonschema
import yaml
from referencing import Registry, Resource

from netrepro.paths import SCHEMA_DIR


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

    def nearest(self, *key_paths: KeyPath) -> KeyPath:
        """Of keys that clash, the one an error names: in one file, the first given."""
        return key_paths[0]


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
# The longest number a spec may write. The tools take 64-bit integers (19 digits); 40 characters
# leave room for a value past a limit to be reported as out of range rather than as unreadable,
# and keep Python's int() (4300 digits at most) and float() (inf past 309) out of reach.
MAX_NUMBER_CHARS = 40
# Numbers as a person writes them, in decimal. YAML 1.1 also reads 0x10, 0o17, 010 (octal),
# 1_000 and 1:30 (base 60) as numbers, which a reader of the spec would take for other values.
_DECIMAL_INT = re.compile(r"[-+]?(0|[1-9][0-9]*)")
_DECIMAL_FLOAT = re.compile(r"[-+]?(0|[1-9][0-9]*)?(\.[0-9]*)?([eE][-+]?[0-9]+)?")


class _SpecLoader(yaml.SafeLoader):
    """Plain data only: no tags (which ask a loader to build objects), no anchors or aliases
    (which let a small file expand without bound or refer to itself), nesting at most MAX_DEPTH
    deep, numbers in decimal, finite and at most MAX_NUMBER_CHARS long, and every mapping key
    read as the text it is written as, so that an experiment named `on` or `1995` keeps its
    name."""

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise yaml.MarkedYAMLError(problem="anchors and aliases (& and *) are not allowed in a spec; "
                                       "write the values out, or put shared settings under defaults",
                                       problem_mark=event.start_mark)
        if getattr(event, "tag", None) is not None:
            raise yaml.MarkedYAMLError(problem=f"tags ({event.tag}) are not allowed in a spec: it holds "
                                       "plain values only", problem_mark=event.start_mark)
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

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as exc:  # e.g. a date that does not exist: 2001-02-30
            raise yaml.MarkedYAMLError(problem=f"{exc}; quote it if it is text",
                                       problem_mark=node.start_mark) from exc

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        _check_number(node, _DECIMAL_INT)
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        value = super().construct_yaml_float(node)
        if not math.isfinite(value):
            raise yaml.MarkedYAMLError(problem=f"{node.value} is not a finite number", problem_mark=node.start_mark)
        _check_number(node, _DECIMAL_FLOAT)
        return value


def _check_number(node: yaml.ScalarNode, pattern: re.Pattern[str]) -> None:
    if len(node.value) > MAX_NUMBER_CHARS:
        raise yaml.MarkedYAMLError(problem=f"a number of {len(node.value)} characters; no value a tool "
                                   f"takes needs more than {MAX_NUMBER_CHARS}", problem_mark=node.start_mark)
    if not pattern.fullmatch(node.value):
        raise yaml.MarkedYAMLError(problem=f"{node.value} is not a decimal number: write numbers in "
                                   "decimal (no 0x, 0o, leading zeros, _ or :), or quote the text",
                                   problem_mark=node.start_mark)


_SpecLoader.add_constructor("tag:yaml.org,2002:map", _SpecLoader.construct_mapping)
_SpecLoader.add_constructor("tag:yaml.org,2002:int", _SpecLoader.construct_yaml_int)
_SpecLoader.add_constructor("tag:yaml.org,2002:float", _SpecLoader.construct_yaml_float)


def read_bounded(path: Path | str) -> bytes:
    """A regular file's octets, at most MAX_FILE_BYTES of them; a FIFO, a device (/dev/zero) or
    a larger file is refused without reading it all."""
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        raise SpecError(path, "", None, f"cannot read the file: {exc.strerror}") from exc
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SpecError(path, "", None, "not a regular file: a spec is a file of YAML text")
        try:
            raw = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise SpecError(path, "", None, f"cannot read the file: {exc.strerror}") from exc
    if len(raw) > MAX_FILE_BYTES:
        raise SpecError(path, "", None, f"the file has more than {MAX_FILE_BYTES} octets, the most a spec may have")
    return raw


def decode(path: Path | str, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise SpecError(path, "", line, "not UTF-8 text: save the file as UTF-8") from exc


def load_document(path: Path) -> Document:
    """Parses a YAML file; syntax errors, duplicate keys and constructs a spec does not allow
    become SpecErrors with their line."""
    return load_text(path, decode(path, read_bounded(path)))


def load_text(path: Path, text: str) -> Document:
    """load_document for text already read from path (which only names it in errors)."""
    return copy.deepcopy(_parse(path, text))


# A spec names its host models once an experiment, and a run's job loads the whole spec: the
# same few files were parsed a hundred times, most of a netsim job's Python time. Each caller
# still gets a document of its own.
@lru_cache(maxsize=128)
def _parse(path: Path, text: str) -> Document:
    if len(text) > MAX_FILE_BYTES:
        raise SpecError(path, "", None, f"the text has more than {MAX_FILE_BYTES} characters, the most a spec may have")
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


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[jsonschema.ValidationError]:
    """JSON Schema's pattern as ECMA-262 reads it, where a final `$` is the end of the text; in
    Python's re it also matches before a last newline, which let `paper: "x\\n"` through."""
    if not validator.is_type(instance, "string"):
        return
    ecma = pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith(r"\$") else pattern
    if not re.search(ecma, instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


_Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _pattern})


@lru_cache(maxsize=None)
def load_schema(schema_name: str) -> Any:
    """configs/schema/<schema_name>, parsed: the one statement of what a spec may say, which
    netrepro reads its choices (backends, profiles) from."""
    return json.loads((SCHEMA_DIR / schema_name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _validator(schema_name: str) -> Any:
    resources = []
    for schema_file in sorted(SCHEMA_DIR.glob("*.schema.json")):
        schema = load_schema(schema_file.name)
        resources.append((schema["$id"], Resource.from_contents(schema)))
    registry = Registry().with_resources(resources)
    return _Validator(load_schema(schema_name), registry=registry)


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
