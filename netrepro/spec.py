"""Paper specs: load, validate and resolve configs/<paper>.yaml into runnable experiments.

Everything a run needs is resolved here, before anything runs: link kinds and message sets are
looked up by name, units parsed, the profile applied. Any problem is a SpecError naming the file,
the key and the line.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from netrepro import hostmodel, limits
from netrepro.limits import check_host, check_link, check_settings
from netrepro.linkspec import LinkParams, link_from_dict
from netrepro.ipc_plan import IpcPlan
from netrepro.ipc_plan import parse_plan as parse_ipc_plan
from netrepro.mftp_plan import MftpPlan, parse_plan
from netrepro.sweep import Sweep, parse_sweep
from netrepro.units import UnitError, parse_size, parse_time
from netrepro.yamlsrc import Document, SpecError, load_document, validate

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
PROFILES = ("quick", "paper", "smoke")
BACKENDS = ("auto", "htb", "linkemu", "netem", "sim")
# Backends that emulate the link in real time on Mininet; `sim` runs in virtual time instead.
EMULATED_BACKENDS = ("auto", "htb", "linkemu", "netem")
# Keys that `snakemake --config key=value` may set on top of a spec file.
OVERRIDE_KEYS = ("profile", "backend")
# The message set of an experiment that lists its messages in the spec itself.
INLINE_MESSAGES = "inline"


@dataclass(frozen=True)
class Message:
    name: str
    size: int


@dataclass(frozen=True)
class TtcpPlan:
    """ttcp's buffer matrix and transfer settings; the profile gives repeats and sizes."""

    send_buffers: tuple[int, ...]
    receive_buffers: tuple[int, ...]
    write_size: int
    pause_s: float
    # Each pause adds a draw uniform in [0, pause_spread_s) from the pair's seed.
    pause_spread_s: float
    nodelay: bool
    timeout_s: float
    protocols: tuple[str, ...] = ("tcp",)
    # UDP's cooling levels: busy-loop iterations after each datagram.
    cool_iterations: tuple[int, ...] = (0,)


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
    # Why the backend differs from the one asked for (e.g. sim asked, Linux stack emulated).
    backend_note: str
    host: str | None
    host_model: Path | None
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
    ttcp: TtcpPlan | None
    transfers: int
    transfer_bytes: int
    trace: bool
    mftp: MftpPlan | None = None
    ipcbench: IpcPlan | None = None
    # The settings swept (netrepro.sweep), and the point a run measures: ((axis, value), ...).
    sweep: Sweep | None = None
    point: tuple[tuple[str, Any], ...] = ()
    # pingx --print-each: a printed line per returned datagram or message (liu95db Fig 1).
    print_each: bool = False
    # pingx --pacing: "grid" or "alarm" (liu95db's alarm(1) set again in its handler).
    pacing: str = "grid"
    # The experiment whose random draws this one shares (a variant's base; "" for its own), so
    # that a variant differs from its base only by the assumption it moves.
    draws_as: str = ""

    @property
    def draws_id(self) -> str:
        """The id the experiment's seeds are derived from."""
        return self.draws_as or self.id


def settings_hash(experiment: Experiment) -> str:
    """What an experiment measures, whichever backend runs it: runs with the same hash used the
    same settings, so their results may stand side by side. Unlike the spec file's hash it stays
    put when another experiment or a comment in the file changes, and when the experiment's own
    words (description, mirrors) or its number of trials do: no trial measures them, so a
    reworded experiment reruns nothing, and one more trial runs only that trial."""
    neutral = replace(experiment, backend="", backend_note="", description="", mirrors=(), trials=0)
    return hashlib.sha256(repr(_settings_view(neutral)).encode()).hexdigest()


def _settings_view(value: Any) -> Any:
    """value with each file it names (a host model) replaced by the file's name and the digest
    of its contents and of the models it extends: an edited host model reruns what used it, a
    moved checkout reruns nothing."""
    if isinstance(value, Path):
        if not value.is_file():
            return value.name
        contents = hostmodel.digest(value) if value.parent.name == "hosts" else hashlib.sha256(value.read_bytes()).hexdigest()
        return f"{value.name}:{contents}"
    if is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, tuple((f.name, _settings_view(getattr(value, f.name))) for f in fields(value)))
    if isinstance(value, (tuple, list)):
        return tuple(_settings_view(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((str(key), _settings_view(item)) for key, item in value.items()))
    return value


@dataclass(frozen=True)
class Variant:
    """An experiment that is another one (its base) with one assumption moved. Kept out of
    Experiment, so that declaring a variant changes no experiment's settings hash."""

    experiment: str
    assumption: str
    moved: str


@dataclass(frozen=True)
class Spec:
    path: Path
    paper: str
    title: str
    profile: str
    sha256: str
    experiments: dict[str, Experiment]
    assumptions: dict[str, str] = field(default_factory=dict)
    # Variants by experiment id (see Variant).
    variants: dict[str, Variant] = field(default_factory=dict)


def _variants(document: Document) -> dict[str, Variant]:
    """Each experiment's variant_of, checked against the spec: the base exists, runs the same
    tool and is no variant itself, and the assumption is one of the spec's."""
    data = document.data
    if "variant_of" in data.get("defaults", {}):
        raise document.error(("defaults", "variant_of"), "variant_of belongs to one experiment, not to defaults")
    own = {exp_id: settings or {} for exp_id, settings in data["experiments"].items()}
    tool_of = {exp_id: settings.get("tool", data.get("defaults", {}).get("tool")) for exp_id, settings in own.items()}
    variants = {}
    for exp_id, settings in own.items():
        if "variant_of" not in settings:
            continue
        declared = settings["variant_of"]
        key = ("experiments", exp_id, "variant_of")
        base = declared["experiment"]
        if base == exp_id or base not in own:
            raise document.error((*key, "experiment"), f"no other experiment named '{base}' in this spec; "
                                 f"known: {', '.join(sorted(set(own) - {exp_id}))}")
        if "variant_of" in own[base]:
            raise document.error((*key, "experiment"), f"'{base}' is itself a variant; name its base, "
                                 f"'{own[base]['variant_of']['experiment']}'")
        if tool_of[base] != tool_of[exp_id]:
            raise document.error((*key, "experiment"), f"'{base}' runs {tool_of[base]} and this experiment "
                                 f"{tool_of[exp_id]}: a variant runs its base's tool")
        assumptions = data.get("assumptions", {})
        if declared["assumption"] not in assumptions:
            raise document.error((*key, "assumption"), f"no assumption named '{declared['assumption']}' "
                                 f"under assumptions; known: {', '.join(sorted(assumptions)) or 'none'}")
        variants[exp_id] = Variant(experiment=base, assumption=declared["assumption"], moved=declared["moved"])
    return variants


def _load_named(kind: str, name: str, schema: str, referrer: Document, key_path: tuple) -> Document:
    path = CONFIG_DIR / kind / f"{name}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in (CONFIG_DIR / kind).glob("*.yaml"))
        raise referrer.error(key_path, f"no {kind[:-1]} named '{name}' in configs/{kind}/; known: {', '.join(known)}")
    document = load_document(path)
    validate(document, schema)
    if kind == "hosts":
        check_host(document)
    return document


def _messages(document: Document, key_path: tuple, items: list[Any]) -> tuple[Message, ...]:
    """Messages listed at key_path of document: a message set's file, or inline in a spec."""
    messages = []
    for index, item in enumerate(items):
        text = item if isinstance(item, str) else item["size"]
        size = _parse(document, (*key_path, index), parse_size, text)
        limits.MESSAGE.check(document, (*key_path, index), size)
        messages.append(Message(name=item["name"] if isinstance(item, dict) else "", size=size))
    limits.MESSAGE_SIZES.check(document, key_path, len({message.size for message in messages}))
    return tuple(messages)


def _merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and key not in ("cooling", "sweep"):
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


class _Where:
    """Key paths of one experiment's settings: under the experiment where it sets the key
    itself, else under defaults, so that an error points at the line holding the value."""

    def __init__(self, exp_id: str, own: Mapping[str, Any]) -> None:
        self.exp_id = exp_id
        self.own = own

    def __iter__(self) -> Any:
        return iter(("experiments", self.exp_id))

    def __add__(self, keys: tuple) -> tuple:
        node: Any = self.own
        for key in keys:
            if isinstance(node, dict) and key in node:
                node = node[key]
            elif isinstance(node, list) and isinstance(key, int) and key < len(node):
                node = node[key]
            else:
                return ("defaults", *keys)
        return ("experiments", self.exp_id, *keys)


def _backend(document: Document, where: _Where, settings: Mapping[str, Any],
             override: str | None) -> tuple[str, str]:
    """The backend an experiment runs on, and why it is not the one asked for (or "")."""
    asked = override or settings.get("backend", "auto")
    # netsim's stack flags and traces, which the emulated tools lack (netrepro/mftp_plan.py).
    mftp = settings.get("mftp", {}) if settings.get("tool") == "mftp" else {}
    sim_only = [key for key in ("window_scale", "sb_max", "cwnd_trace") if mftp.get(key)]
    if asked != "sim" and sim_only and settings["stack"] == "tahoe":
        return "sim", (f"backend {asked} was asked for, but mftp's {', '.join(sim_only)} exist only on "
                       "netsim's stacks, so this experiment runs in virtual time")
    if asked != "sim" or settings["stack"] == "tahoe":
        return asked, ""
    if override:
        return "auto", (f"backend sim was asked for, but stack {settings['stack']} runs only in "
                        "emulation, so this experiment is emulated")
    raise document.error(where + ("backend",),
                         f"backend sim runs the tahoe stack only, not {settings['stack']}; "
                         "give stack: tahoe or an emulated backend")


def _host_model(document: Document, where: _Where, settings: Mapping[str, Any]) -> Path | None:
    if "host" not in settings:
        if settings["stack"] == "tahoe":
            raise document.error(where + ("stack",), "stack tahoe needs `host`, a model in configs/hosts/")
        return None
    return _host_file(settings["host"], document, where + ("host",))


def _host_file(name: str, referrer: Document, key_path: tuple) -> Path:
    """The host model named name, checked with every model it extends."""
    path = _load_named("hosts", name, "host.schema.json", referrer, key_path).path
    hostmodel.chain(path)
    return path


def _sizes(document: Document, where: _Where, keys: tuple, texts: list[str], stack: str) -> tuple[int, ...]:
    sizes = []
    for index, text in enumerate(texts):
        size = _parse(document, where + (*keys, index), parse_size, text)
        limits.socket_buffer(stack).check(document, where + (*keys, index), size)
        sizes.append(size)
    return tuple(sizes)


def _ttcp_plan(document: Document, where: _Where, settings: Mapping[str, Any]) -> TtcpPlan:
    plan = settings["ttcp"]
    _require(document, where + ("ttcp",), plan, ("send_buffers", "receive_buffers"))
    write_size = _parse(document, where + ("ttcp", "write_size"), parse_size, plan.get("write_size", "8K"))
    protocols = tuple(plan.get("protocols", ["tcp"]))
    (limits.UDP_WRITE if "udp" in protocols else limits.WRITE).check(document, where + ("ttcp", "write_size"),
                                                                      write_size)
    if "cool_iterations" in plan and "udp" not in protocols:
        raise document.error(where + ("ttcp", "cool_iterations"), "cooling applies to UDP: add udp to protocols")
    for index, spins in enumerate(plan.get("cool_iterations", [])):
        limits.COOL_SPIN.check(document, where + ("ttcp", "cool_iterations", index), spins)
    waits = {}
    for key, limit, default in (("pause", limits.PAUSE_NS, "1s"), ("pause_spread", limits.PAUSE_SPREAD_NS, "0s"),
                                ("timeout", limits.TRANSFER_TIMEOUT_NS, "30s")):
        waits[key] = _parse(document, where + ("ttcp", key), limits.ns, plan.get(key, default))
        limit.check(document, where + ("ttcp", key), waits[key])
    if waits["timeout"] <= waits["pause"] + waits["pause_spread"]:
        raise document.error(where + ("ttcp", "timeout"), "must be longer than pause plus pause_spread, "
                             "or the pause between transfers ends the run (ttcp --timeout)")
    return TtcpPlan(
        send_buffers=_sizes(document, where, ("ttcp", "send_buffers"), plan["send_buffers"], settings["stack"]),
        receive_buffers=_sizes(document, where, ("ttcp", "receive_buffers"), plan["receive_buffers"],
                               settings["stack"]),
        write_size=write_size,
        pause_s=_parse(document, where + ("ttcp", "pause"), parse_time, plan.get("pause", "1s")),
        pause_spread_s=_parse(document, where + ("ttcp", "pause_spread"), parse_time,
                              plan.get("pause_spread", "0s")),
        nodelay=bool(plan.get("nodelay", False)),
        timeout_s=_parse(document, where + ("ttcp", "timeout"), parse_time, plan.get("timeout", "30s")),
        protocols=protocols,
        cool_iterations=tuple(plan.get("cool_iterations", [0])),
    )


def _experiment(document: Document, exp_id: str, own: dict[str, Any], settings: dict[str, Any],
                profile: dict[str, Any], profile_name: str, backend_override: str | None) -> Experiment:
    data = document.data
    where = _Where(exp_id, own)

    def profile_key(key: str) -> tuple:
        """A profile's key: under the experiment's own profile where it sets it, else the spec's."""
        if key in own.get("profiles", {}).get(profile_name, {}):
            return ("experiments", exp_id, "profiles", profile_name, key)
        return ("profiles", profile_name, key)

    _require(document, where, settings, ("link", "tool", "stack"))
    tool = settings["tool"]
    if tool == "pingx":
        _require(document, where, settings, ("modes", "messages"))
        _require(document, ("profiles",), profile, ("trials", "echoes", "interval"))
    elif tool == "ttcp":
        _require(document, where, settings, ("ttcp",))
        _require(document, ("profiles",), profile, ("trials", "transfers", "transfer"))
    elif tool == "ipcbench":
        _require(document, where, settings, ("ipcbench",))
        _require(document, ("profiles",), profile, ("trials", "transfers"))
    else:
        _require(document, ("profiles",), profile, ("trials", "transfers", "transfer"))
    link_doc = _load_named("links", settings["link"], "link.schema.json", document, where + ("link",))
    check_link(link_doc)
    check_settings(document, where, settings)
    link = link_from_dict(settings["link"], link_doc.data)
    messages: tuple[Message, ...] = ()
    if tool == "pingx":
        if isinstance(settings["messages"], list):
            messages = _messages(document, where + ("messages",), settings["messages"])
        else:
            msg_doc = _load_named("msgsets", settings["messages"], "msgset.schema.json", document,
                                  where + ("messages",))
            messages = _messages(msg_doc, ("messages",), msg_doc.data["messages"])
    datagram = _parse(document, where + ("datagram",), parse_size, settings.get("datagram", "8K"))
    limits.DATAGRAM.check(document, where + ("datagram",), datagram)
    modes = tuple(settings.get("modes", ()))
    if any(mode.startswith("udp") for mode in modes) and messages:
        largest = max(message.size for message in messages)
        count = -(-largest // datagram)
        if not limits.DATAGRAMS.contains(count):
            raise document.error(where + ("datagram",), f"a {largest}B message in {datagram}B datagrams is "
                                 f"{count} datagrams: {limits.DATAGRAMS.describe()}; give a larger datagram")
    cooling = settings.get("cooling", {})
    if "udp-cooled" in modes and not cooling:
        raise document.error(where + ("modes",), "mode udp-cooled needs `cooling` (a gap or iterations)")
    if settings.get("print_each") and tool != "pingx":
        raise document.error(where + ("print_each",), f"print_each is pingx's option, and this experiment runs {tool}")
    if "pacing" in settings and tool != "pingx":
        raise document.error(where + ("pacing",), f"pacing is pingx's option, and this experiment runs {tool}")
    buffers = settings.get("socket_buffers", {})
    backend, backend_note = _backend(document, where, settings, backend_override)
    if link.medium == "shared" and backend == "auto":
        backend = "linkemu"  # of the emulators, only linkemu has the shared medium
    if link.medium == "shared" and backend not in ("sim", "linkemu"):
        raise document.error(where + ("link",), f"link {settings['link']} is a shared medium, which "
                             f"netsim and linkemu model and {backend} cannot (tc keeps one line per "
                             "direction): give backend linkemu or sim")
    if tool == "ttcp" and "udp" in settings["ttcp"].get("protocols", ()) and backend != "sim":
        raise document.error(where + ("ttcp", "protocols"), "ttcp over UDP runs in virtual time only "
                             "(the emulated runner times TCP): give stack tahoe and backend sim")
    if "udp-cooled" in modes and settings["stack"] == "tahoe" and backend != "sim":
        raise document.error(where + ("modes",), "emulated, mode udp-cooled needs a second echod on "
                             "host h2, and a second Tahoe stack on the same interface would answer the "
                             "first one's packets; run it with backend sim, or on a Linux stack")
    transfer = profile.get("transfer")
    transfer_bytes = _parse(document, profile_key("transfer"), parse_size, transfer) if transfer else 0
    if transfer:
        limits.TRANSFER.check(document, profile_key("transfer"), transfer_bytes)
    interval_ns = _parse(document, profile_key("interval"), limits.ns, profile.get("interval", "1s"))
    limits.INTERVAL_NS.check(document, profile_key("interval"), interval_ns)
    if settings.get("trace") and (tool != "ttcp" or len(settings["ttcp"]["send_buffers"]) != 1
                                  or len(settings["ttcp"]["receive_buffers"]) != 1):
        raise document.error(where + ("trace",), "a trace captures one ttcp buffer pair: "
                             "give tool ttcp with one send and one receive buffer")
    return Experiment(
        paper=data["paper"],
        id=exp_id,
        description=settings.get("description", ""),
        mirrors=tuple(settings.get("mirrors", ())),
        network=settings.get("network", ""),
        tool=tool,
        link_name=settings["link"],
        link=link,
        stack=settings["stack"],
        backend=backend,
        backend_note=backend_note,
        host=settings.get("host"),
        host_model=_host_model(document, where, settings),
        modes=modes,
        message_set=INLINE_MESSAGES if isinstance(settings.get("messages"), list) else settings.get("messages", ""),
        messages=messages,
        datagram=datagram,
        cooling_gap_s=_parse(document, where + ("cooling",), parse_time, cooling["gap"]) if "gap" in cooling else None,
        cooling_iterations=cooling.get("iterations"),
        send_buffer=_parse(document, where, parse_size, buffers["send"]) if "send" in buffers else None,
        receive_buffer=_parse(document, where, parse_size, buffers["receive"]) if "receive" in buffers else None,
        timeout_s=_parse(document, where + ("timeout",), parse_time, settings.get("timeout", "5s")),
        seed=int(settings.get("seed", 0)),
        trials=int(profile["trials"]),
        echoes=int(profile.get("echoes", 1)),
        interval_s=interval_ns / limits.NS,
        ttcp=_ttcp_plan(document, where, settings) if tool == "ttcp" else None,
        transfers=int(profile.get("transfers", 1)),
        transfer_bytes=transfer_bytes,
        trace=bool(settings.get("trace", False)),
        print_each=bool(settings.get("print_each", False)),
        pacing=str(settings.get("pacing", "grid")),
        mftp=parse_plan(document, where, settings) if tool == "mftp" else None,
        ipcbench=parse_ipc_plan(document, where, settings,
                                lambda name, key: _host_file(name, document, key),
                                profile.get("sizes"))
        if tool == "ipcbench" else None,
        sweep=parse_sweep(document, where + ("sweep",), settings["sweep"], tool) if "sweep" in settings else None,
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
    variants = _variants(document)
    # A spec need not define every profile: one it lacks is its quick profile.
    profile_name = overrides.get("profile", "quick")
    if profile_name not in data["profiles"]:
        profile_name = "quick"
    defaults = data.get("defaults", {})
    experiments = {}
    for exp_id, own in data["experiments"].items():
        settings = _merge(defaults, own or {})
        profile = _merge(data["profiles"][profile_name], settings.get("profiles", {}).get(profile_name, {}))
        experiment = _experiment(document, exp_id, own or {}, settings, profile, profile_name,
                                 overrides.get("backend"))
        if exp_id in variants:
            experiment = replace(experiment, draws_as=variants[exp_id].experiment)
        experiments[exp_id] = experiment
    return Spec(
        path=path,
        paper=data["paper"],
        title=data["title"],
        profile=profile_name,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        experiments=experiments,
        assumptions=dict(data.get("assumptions", {})),
        variants=variants,
    )
