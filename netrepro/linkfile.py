"""Link kind files (configs/links/): a link and the links it `extends`, read as one. A variant
names only what it changes; the link it makes is validated (configs/schema/link.schema.json) and
checked against the tools' ranges (netrepro.limits) as a whole, and an error about a key names
the file and the line that set it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from netrepro.hostmodel import EXTENDS_DEPTH_MAX
from netrepro.limits import check_link
from netrepro.linkspec import LinkParams, link_from_dict
from netrepro.paths import CONFIG_DIR
from netrepro.yamlsrc import Document, SpecError, load_document, validate

LINKS_DIR = CONFIG_DIR / "links"
# Mappings a variant replaces whole: a queue is limited in packets or in octets, never both, so
# a variant's `queue: {bytes: 64K}` is a new limit, not a second one beside its base's packets.
REPLACED_WHOLE = frozenset({"queue"})


@dataclass(frozen=True)
class Link(Document):
    """A link kind's keys with those of the links it extends filled in under them (_merged).
    `files` are its own file, then its base's, and so on; `lines` are its own file's, and
    line_of and error look a key up in the file that sets it."""

    files: tuple[Document, ...]

    def line_of(self, key_path: Iterable[Any]) -> int | None:
        parts = tuple(key_path)
        return self._setter(parts).line_of(parts)

    def error(self, key_path: Iterable[Any], message: str) -> SpecError:
        parts = tuple(key_path)
        return self._setter(parts).error(parts, message)

    def nearest(self, *key_paths: tuple[Any, ...]) -> tuple[Any, ...]:
        """Of keys that clash, the one set nearest the link's own file (the first given of
        those set in one file): a variant that changes one of them is where the clash began."""
        def rank(key_path: tuple[Any, ...]) -> int:
            return next((n for n, document in enumerate(self.files) if key_path in document.lines), len(self.files))
        return min(key_paths, key=rank)

    def _setter(self, key_path: tuple[Any, ...]) -> Document:
        """The file that sets key_path, else the one that sets most of it, the link's own file
        before its bases (max keeps the first of equals)."""
        def depth(document: Document) -> int:
            return next((n for n in range(len(key_path), 0, -1) if key_path[:n] in document.lines), 0)
        return max(self.files, key=depth)


def load(path: Path) -> Link:
    """The link kind at path with the links it extends, validated and checked as one link."""
    return _load(path, ())


def link_params(name: str) -> LinkParams:
    """The link kind configs/links/<name>.yaml, with the links it extends."""
    return link_from_dict(name, load(LINKS_DIR / f"{name}.yaml").data)


def _load(path: Path, extending: tuple[Path, ...]) -> Link:
    """extending: the links that extend this one, outermost first."""
    own = load_document(path)
    base = _base(own, extending)
    data = _merged(base.data, own.data) if base else own.data
    link = Link(path=own.path, data=data, lines=own.lines, files=(own, *base.files) if base else (own,))
    # Each base was checked as a link of its own; checked again merged, a variant is checked
    # with the keys it takes from them, and the schema's required keys are the merged link's.
    validate(link, "link.schema.json")
    check_link(link)
    return link


def _base(document: Document, extending: tuple[Path, ...]) -> Link | None:
    """The link document extends, read with the links it extends in turn; None if it extends
    none."""
    if not isinstance(document.data, dict) or "extends" not in document.data:
        return None
    name = document.data["extends"]
    if not isinstance(name, str):
        raise document.error(("extends",), f"extends names a link kind beside this file, not {name!r}")
    folder = document.path.parent
    base_path = folder / f"{name}.yaml"
    # A name is a file beside this one: one that reaches elsewhere (../) is as unknown as a typo.
    if base_path.parent != folder or not base_path.is_file():
        known = ", ".join(sorted(path.stem for path in folder.glob("*.yaml")))
        raise document.error(("extends",), f"no link named '{name}' beside this one ({base_path} is not a file); "
                             f"known: {known}")
    chain = (*extending, document.path)
    if base_path.resolve() in {path.resolve() for path in chain}:
        links = " extends ".join(path.stem for path in (*chain, base_path))
        raise document.error(("extends",), f"a loop: {links}")
    if len(chain) > EXTENDS_DEPTH_MAX:
        raise document.error(("extends",), f"more than {EXTENDS_DEPTH_MAX} links extend one another")
    return _load(base_path, chain)


def _merged(base: Mapping[str, Any], own: Mapping[str, Any]) -> dict[str, Any]:
    """own's keys over base's; a mapping both give is merged key by key (but REPLACED_WHOLE),
    so that a variant can say just `check: {rtt_tolerance: 2ms}` or `queue: {packets: 25}`."""
    merged = dict(base)
    for key, value in own.items():
        both = key not in REPLACED_WHOLE and isinstance(value, dict) and isinstance(merged.get(key), dict)
        merged[key] = _merged(merged[key], value) if both else value
    return merged
