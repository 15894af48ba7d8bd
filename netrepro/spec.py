"""Paper specs: load, validate and resolve configs/<paper>.yaml into runnable experiments.

Everything a run needs is resolved here, before anything runs: link kinds and message sets are
looked up by name, units parsed, the profile applied. Any problem is a SpecError naming the file,
the key and the line.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from netrepro.linkspec import LinkParams, link_from_dict
from netrepro.units import UnitError, parse_size, parse_time
from netrepro.yamlsrc import Document, SpecError, load_document, validate

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
PROFILES = ("quick", "paper", "smoke")
BACKENDS = ("auto", "htb", "linkemu", "netem")
# Keys that `snakemake --config key=value` may set on top of a spec file.
OVERRIDE_KEYS = ("profile", "backend")
# pingx frames each message inside its own octets; smaller messages cannot carry the frame.
MIN_MESSAGE = 16
MAX_MESSAGE = 4 << 20


@dataclass(frozen=True)
class Message:
    name: str
    size: int


@dataclass(frozen=True)
class Experiment:
    paper: str
    id: str
    description: str
    mirrors: tuple[str, ...]
    network: str
    tool: str
    link_name: str
    link: LinkParams
    stack: str
    backend: str
    modes: tuple[str, ...]
    message_set: str
    messages: tuple[Message, ...]
    datagram: int
    cooling_gap_s: float | None
    cooling_iterations: int | None
    send_buffer: int | None
    receive_buffer: int | None
    timeout_s: float
    seed: int
    trials: int
    echoes: int
    interval_s: float


@dataclass(frozen=True)
class Spec:
    path: Path
    paper: str
    title: str
    profile: str
    sha256: str
    experiments: dict[str, Experiment]
    assumptions: dict[str, str] = field(default_factory=dict)


def _load_named(kind: str, name: str, schema: str, referrer: Document, key_path: tuple) -> Document:
    path = CONFIG_DIR / kind / f"{name}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in (CONFIG_DIR / kind).glob("*.yaml"))
        raise referrer.error(key_path, f"no {kind[:-1]} named '{name}' in configs/{kind}/; known: {', '.join(known)}")
    document = load_document(path)
    validate(document, schema)
    return document


def _messages(document: Document) -> tuple[Message, ...]:
    messages = []
    for index, item in enumerate(document.data["messages"]):
        text = item if isinstance(item, str) else item["size"]
        size = parse_size(text)
        if not MIN_MESSAGE <= size <= MAX_MESSAGE:
            raise document.error(("messages", index),
                                 f"{text} is outside the sizes pingx sends ({MIN_MESSAGE}B to 4M)")
        messages.append(Message(name=item["name"] if isinstance(item, dict) else "", size=size))
    return tuple(messages)


def _merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and key != "cooling":
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _require(document: Document, key_path: tuple, settings: Mapping[str, Any], keys: tuple[str, ...]) -> None:
    missing = [key for key in keys if key not in settings]
    if missing:
        raise document.error(key_path, f"missing {', '.join(missing)} (give it here or under defaults)")


def _parse(document: Document, key_path: tuple, parser: Any, text: Any) -> Any:
    try:
        return parser(text)
    except UnitError as exc:
        raise document.error(key_path, str(exc)) from exc


def _experiment(document: Document, exp_id: str, settings: dict[str, Any], profile: dict[str, Any],
                backend_override: str | None) -> Experiment:
    data = document.data
    where = ("experiments", exp_id)
    _require(document, where, settings, ("mirrors", "link", "modes", "messages", "tool", "stack"))
    _require(document, ("profiles",), profile, ("trials", "echoes", "interval"))
    link_doc = _load_named("links", settings["link"], "link.schema.json", document, where + ("link",))
    link = link_from_dict(settings["link"], link_doc.data)
    msg_doc = _load_named("msgsets", settings["messages"], "msgset.schema.json", document, where + ("messages",))
    datagram = _parse(document, where + ("datagram",), parse_size, settings.get("datagram", "8K"))
    if not 64 <= datagram <= 65507 - 64:
        raise document.error(where + ("datagram",), "a UDP datagram payload must be 64B to 65443B")
    cooling = settings.get("cooling", {})
    if "udp-cooled" in settings["modes"] and not cooling:
        raise document.error(where + ("modes",), "mode udp-cooled needs `cooling` (a gap or iterations)")
    buffers = settings.get("socket_buffers", {})
    return Experiment(
        paper=data["paper"],
        id=exp_id,
        description=settings.get("description", ""),
        mirrors=tuple(settings["mirrors"]),
        network=settings.get("network", ""),
        tool=settings["tool"],
        link_name=settings["link"],
        link=link,
        stack=settings["stack"],
        backend=backend_override or settings.get("backend", "auto"),
        modes=tuple(settings["modes"]),
        message_set=settings["messages"],
        messages=_messages(msg_doc),
        datagram=datagram,
        cooling_gap_s=_parse(document, where + ("cooling",), parse_time, cooling["gap"]) if "gap" in cooling else None,
        cooling_iterations=cooling.get("iterations"),
        send_buffer=_parse(document, where, parse_size, buffers["send"]) if "send" in buffers else None,
        receive_buffer=_parse(document, where, parse_size, buffers["receive"]) if "receive" in buffers else None,
        timeout_s=_parse(document, where + ("timeout",), parse_time, settings.get("timeout", "5s")),
        seed=int(settings.get("seed", 0)),
        trials=int(profile["trials"]),
        echoes=int(profile["echoes"]),
        interval_s=_parse(document, ("profiles",), parse_time, profile["interval"]),
    )


def check_overrides(overrides: Mapping[str, Any]) -> None:
    """Refuses --config values that would silently do nothing or something unintended."""
    profile = overrides.get("profile")
    if profile is not None and profile not in PROFILES:
        raise SpecError("--config", "profile", None, f"{profile!r} is not one of: {', '.join(PROFILES)}")
    backend = overrides.get("backend")
    if backend is not None and backend not in BACKENDS:
        raise SpecError("--config", "backend", None, f"{backend!r} is not one of: {', '.join(BACKENDS)}")


def load_spec(path: Path | str, overrides: Mapping[str, Any] | None = None) -> Spec:
    """Loads and resolves a spec. overrides holds --config values (profile, backend)."""
    overrides = dict(overrides or {})
    check_overrides(overrides)
    path = Path(path)
    document = load_document(path)
    validate(document, "spec.schema.json")
    data = document.data
    profile_name = overrides.get("profile", "quick")
    defaults = data.get("defaults", {})
    experiments = {}
    for exp_id, own in data["experiments"].items():
        settings = _merge(defaults, own or {})
        profile = _merge(data["profiles"][profile_name], settings.get("profiles", {}).get(profile_name, {}))
        experiments[exp_id] = _experiment(document, exp_id, settings, profile, overrides.get("backend"))
    return Spec(
        path=path,
        paper=data["paper"],
        title=data["title"],
        profile=profile_name,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        experiments=experiments,
        assumptions=dict(data.get("assumptions", {})),
    )
