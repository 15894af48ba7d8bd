"""Host model files (configs/hosts/): a model and the models it `extends`, read as one, as the
Tahoe stack's reader (tools/tahoe/tahoe_host.c) reads them."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from netrepro.yamlsrc import Document, load_document, validate

# A model may extend one that extends another, as the C reader allows.
EXTENDS_DEPTH_MAX = 8


def chain(path: Path) -> list[Document]:
    """The model at path and each model it extends, in that order, each validated."""
    documents: list[Document] = []
    document = load_document(path)
    while True:
        validate(document, "host.schema.json")
        documents.append(document)
        base = document.data.get("extends")
        if base is None:
            return documents
        if len(documents) > EXTENDS_DEPTH_MAX:
            raise document.error(("extends",), f"more than {EXTENDS_DEPTH_MAX} models extend one another (a loop?)")
        base_path = document.path.parent / f"{base}.yaml"
        if not base_path.is_file():
            raise document.error(("extends",), f"no host model named '{base}' beside this one ({base_path})")
        document = load_document(base_path)


def values(path: Path) -> dict[str, Any]:
    """The model's keys, those of the models it extends filled in under its own. `fitted` is
    the model's own: a variant that extends a fitted model was not fitted by that."""
    documents = chain(path)
    merged: dict[str, Any] = {}
    for document in reversed(documents):
        merged.update({key: value for key, value in document.data.items() if key != "fitted"})
    merged.pop("extends", None)
    if "fitted" in documents[0].data:
        merged["fitted"] = documents[0].data["fitted"]
    return merged


def text(path: Path) -> str:
    """The model's file and those it extends, in that order, as the runs' provenance keeps them."""
    return "".join(document.path.read_text(encoding="utf-8") for document in chain(path))


def digest(path: Path) -> str:
    """One digest of the model and every model it extends: a changed base reruns its variants."""
    return hashlib.sha256(text(path).encode()).hexdigest()
