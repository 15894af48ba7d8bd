"""Reading one experiment's settings out of a spec, for the spec's loader (netrepro.spec) and
each tool's own settings (netrepro.tools): key paths that point at the line holding a value,
values parsed with their units, and files named in configs/."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from netrepro import hostmodel, limits, linkfile
from netrepro.paths import CONFIG_DIR
from netrepro.yamlsrc import Document, load_document, validate


class Where:
    """Key paths of one experiment's settings: under the experiment where it sets the key
    itself, else under its base where it is a variant and the base sets it, else under
    defaults, so that an error points at the line holding the value."""

    def __init__(self, exp_id: str, own: Mapping[str, Any],
                 base: tuple[str, Mapping[str, Any]] | None = None) -> None:
        self.exp_id = exp_id
        self.layers = ((exp_id, own),) + ((base,) if base else ())

    def __iter__(self) -> Any:
        return iter(("experiments", self.exp_id))

    def __add__(self, keys: tuple) -> tuple:
        for exp_id, settings in self.layers:
            if _holds(settings, keys):
                return ("experiments", exp_id, *keys)
        return ("defaults", *keys)

    def profile_key(self, profile_name: str, key: str) -> tuple:
        """A profile's key: under the experiment's (or its base's) own profile where that sets
        it, else the spec's."""
        for exp_id, settings in self.layers:
            if _holds(settings, ("profiles", profile_name, key)):
                return ("experiments", exp_id, "profiles", profile_name, key)
        return ("profiles", profile_name, key)


def _holds(node: Any, keys: tuple) -> bool:
    for key in keys:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return False
    return True


def _named_path(kind: str, name: str, referrer: Document, key_path: tuple) -> Path:
    """configs/<kind>/<name>.yaml (a link, host or message set); an unknown name is referrer's
    error at key_path, listing the known ones."""
    path = CONFIG_DIR / kind / f"{name}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in (CONFIG_DIR / kind).glob("*.yaml"))
        raise referrer.error(key_path, f"no {kind[:-1]} named '{name}' in configs/{kind}/; known: {', '.join(known)}")
    return path


def load_named(kind: str, name: str, schema: str, referrer: Document, key_path: tuple) -> Document:
    """configs/<kind>/<name>.yaml (a host or message set; a link is link_file's), validated."""
    document = load_document(_named_path(kind, name, referrer, key_path))
    validate(document, schema)
    if kind == "hosts":
        limits.check_host(document)
    return document


def link_file(name: str, referrer: Document, key_path: tuple) -> linkfile.Link:
    """The link kind named name with every link it extends, validated and checked as one."""
    return linkfile.load(_named_path("links", name, referrer, key_path))


def host_file(name: str, referrer: Document, key_path: tuple) -> Path:
    """The host model named name, checked with every model it extends; a part is referrer's
    error, as no run can take one."""
    if hostmodel.is_part(_named_path("hosts", name, referrer, key_path)):
        raise referrer.error(key_path, f"'{name}' is a part of host models (part: true), not a host: "
                                       "name a model that extends it")
    return load_named("hosts", name, "host.schema.json", referrer, key_path).path


def require(document: Document, key_path: tuple, settings: Mapping[str, Any], keys: tuple[str, ...]) -> None:
    missing = [key for key in keys if key not in settings]
    if missing:
        raise document.error(key_path, f"missing {', '.join(missing)} (give it here or under defaults)")


@dataclass(frozen=True)
class Source:
    """One experiment's settings as its tool reads them: merged with the spec's defaults, its
    profile merged with the experiment's own, and where each value was written."""

    document: Document
    where: Where
    settings: Mapping[str, Any]
    profile: Mapping[str, Any]
    profile_name: str
    stack: str
    backend: str

    def key(self, *keys: Any) -> tuple:
        """The key path of a setting (under the experiment, else under defaults)."""
        return self.where + keys

    def profile_key(self, key: str) -> tuple:
        """A profile's key: where the experiment, its base or the spec's profile sets it."""
        return self.where.profile_key(self.profile_name, key)

    def parse(self, key_path: tuple, parser: Callable[[Any], Any], text: Any) -> Any:
        """text parsed, or the spec's error at key_path."""
        return limits.value(self.document, key_path, parser, text)

    def require(self, *keys: str) -> None:
        require(self.document, tuple(self.where), self.settings, keys)

    def require_profile(self, *keys: str) -> None:
        require(self.document, ("profiles",), self.profile, keys)

    def host_model(self, name: str, key_path: tuple) -> Path:
        """The file of the host model called name, which the spec names at key_path."""
        return host_file(name, self.document, key_path)
