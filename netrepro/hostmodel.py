"""Host model files (configs/hosts/): a model and the models it `extends`, read as one, as the
Tahoe stack's reader (tools/tahoe/tahoe_host.c) reads them. A model extends one model or a
list, each listed model's keys over those before it (a host, then a part on top). A `part` is a
file only other models extend (a mechanism several hosts share), never a host itself."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from netrepro.yamlsrc import Document, load_document, validate

# A model may extend one that extends another, as the C reader allows, reading at most
# EXTENDS_FILES_MAX files in all (bases that share bases cannot multiply the reads).
EXTENDS_DEPTH_MAX = 8
EXTENDS_FILES_MAX = 32

# The costs every host gives, itself or through the models it extends (tahoe_hostcost_read).
REQUIRED_COSTS = ("per_packet_ns", "per_byte_ps", "per_call_ns")

# The keys that are not the model's values to inherit: its name, its bases, what it is.
_OWN_KEYS = ("name", "extends", "fitted", "part")


def bases(document: Document) -> list[str]:
    """The names the document extends, in the order it gives them."""
    named = document.data.get("extends")
    if named is None:
        return []
    return [named] if isinstance(named, str) else list(named)


def _base_key(document: Document, index: int) -> tuple:
    return ("extends",) if isinstance(document.data.get("extends"), str) else ("extends", index)


def _tree(path: Path, depth: int = 0, files: list[Path] | None = None) -> tuple[Document, list]:
    """The model at path, validated, with the trees of the models it extends; files collects
    every file read."""
    files = [] if files is None else files
    files.append(path)
    document = load_document(path)
    validate(document, "host.schema.json")
    parents = []
    for index, name in enumerate(bases(document)):
        if depth >= EXTENDS_DEPTH_MAX:
            raise document.error(_base_key(document, index),
                                 f"more than {EXTENDS_DEPTH_MAX} models extend one another (a loop?)")
        if len(files) >= EXTENDS_FILES_MAX:
            raise document.error(_base_key(document, index), f"a model's extends reach more than {EXTENDS_FILES_MAX} files")
        base_path = document.path.parent / f"{name}.yaml"
        if not base_path.is_file():
            raise document.error(_base_key(document, index), f"no host model named '{name}' beside this one ({base_path})")
        parents.append(_tree(base_path, depth + 1, files))
    return document, parents


def _flatten(tree: tuple[Document, list]) -> list[Document]:
    """The tree's documents, each before the models it extends, the last-listed base first:
    the first of them that sets a key gives its value."""
    document, parents = tree
    return [document] + [each for parent in reversed(parents) for each in _flatten(parent)]


def _merged(tree: tuple[Document, list]) -> dict[str, Any]:
    """The tree's values: its bases' in the order it lists them, each over the one before,
    and its own over all."""
    document, parents = tree
    merged: dict[str, Any] = {}
    for parent in parents:
        merged.update(_merged(parent))
    merged.update({key: value for key, value in document.data.items() if key not in _OWN_KEYS})
    return merged


@dataclass(frozen=True)
class Model:
    """A model read once: its documents in chain's order and the values it takes."""
    chain: list[Document]
    values: dict[str, Any]


def read(path: Path) -> Model:
    """The model at path and every model it extends, each validated. `name` and `fitted` in its
    values are the model's own: a variant that extends a fitted model was not fitted by that."""
    tree = _tree(path)
    merged = _merged(tree)
    own = tree[0].data
    merged["name"] = own["name"]
    if "fitted" in own:
        merged["fitted"] = own["fitted"]
    return Model(_flatten(tree), merged)


def chain(path: Path) -> list[Document]:
    """The model at path and every model it extends (_flatten's order), each validated."""
    return read(path).chain


def values(path: Path) -> dict[str, Any]:
    """The model's keys, those of the models it extends filled in under its own."""
    return read(path).values


def is_part(path: Path) -> bool:
    """Whether the file is a part only other models extend, not a host."""
    return bool(load_document(path).data.get("part"))


def text(path: Path) -> str:
    """The model's file and those it extends, in chain's order, as the runs' provenance keeps
    them: the first line that sets a key gives the value the model takes."""
    return "".join(document.path.read_text(encoding="utf-8") for document in chain(path))


def digest(path: Path) -> str:
    """One digest of the values the model takes, its own over those of the models it extends:
    a changed value, here or in a base, reruns what used the model; a reworded comment does
    not. `fitted` (the figures a fit used) is no value the stack reads."""
    taken = {key: value for key, value in values(path).items() if key != "fitted"}
    return hashlib.sha256(json.dumps(taken, sort_keys=True).encode()).hexdigest()
