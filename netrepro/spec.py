"""Paper specs: load, validate and resolve configs/<paper>.yaml into runnable experiments
(netrepro.experiment).

Everything a run needs is resolved here, before anything runs: link kinds and message sets are
looked up by name, units parsed, the profile applied; each tool reads its own settings
(netrepro.tools). Any problem is a SpecError naming the file, the key and the line.
"""
from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

from netrepro.experiment import Experiment, Spec, Variant
from netrepro.limits import check_settings
from netrepro.linkspec import link_from_dict
from netrepro.specread import Source, Where, host_file, link_file, require
from netrepro.sweep import parse_sweep
from netrepro.tools import TOOLS, tool
from netrepro.yamlsrc import Document, SpecError, load_document, load_schema, validate

# The choices a spec and `--config` have, as configs/schema/spec.schema.json states them.
PROFILES = tuple(load_schema("spec.schema.json")["properties"]["profiles"]["properties"])
# The settings a run takes from Snakemake's --config rather than from its spec.
OVERRIDE_KEYS = ("profile", "backend")
BACKENDS = tuple(load_schema("spec.schema.json")["$defs"]["settings"]["properties"]["backend"]["enum"])
# The tool whose settings each tool axis of a sweep sets.
AXIS_TOOLS = {axis: name for name, module in TOOLS.items() for axis in module.SWEEP_AXES}


def _variants(document: Document) -> dict[str, Variant]:
    """Each experiment's variant_of, checked against the spec: the base exists, runs the same
    tool and is no variant itself, the variant describes itself, and the assumption is one of
    the spec's."""
    data = document.data
    if "variant_of" in data.get("defaults", {}):
        raise document.error(("defaults", "variant_of"), "variant_of belongs to one experiment, not to defaults")
    own = {exp_id: settings or {} for exp_id, settings in data["experiments"].items()}
    default_tool = data.get("defaults", {}).get("tool")
    tool_of = {exp_id: settings.get("tool", default_tool) for exp_id, settings in own.items()}
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
        if "tool" in settings and tool_of[base] != tool_of[exp_id]:
            raise document.error((*key, "experiment"), f"'{base}' runs {tool_of[base]} and this experiment "
                                 f"{tool_of[exp_id]}: a variant runs its base's tool")
        if "description" not in settings:
            raise document.error(("experiments", exp_id), "a variant takes its base's settings but not its "
                                 f"description: say what differs from '{base}' in its own")
        assumptions = data.get("assumptions", {})
        if declared["assumption"] not in assumptions:
            raise document.error((*key, "assumption"), f"no assumption named '{declared['assumption']}' "
                                 f"under assumptions; known: {', '.join(sorted(assumptions)) or 'none'}")
        variants[exp_id] = Variant(experiment=base, assumption=declared["assumption"], moved=declared["moved"])
    return variants


def _merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and key not in ("cooling", "sweep"):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _backend(document: Document, where: Where, settings: Mapping[str, Any],
             override: str | None) -> tuple[str, str]:
    """The backend an experiment runs on, and why it is not the one asked for (or "")."""
    asked = override or settings.get("backend", "auto")
    sim_only = tool(settings["tool"]).sim_only(settings)
    if asked != "sim" and sim_only and settings["stack"] == "tahoe":
        return "sim", (f"backend {asked} was asked for, but {settings['tool']}'s {', '.join(sim_only)} exist "
                       "only on netsim's stacks, so this experiment runs in virtual time")
    if asked != "sim" or settings["stack"] == "tahoe":
        return asked, ""
    if override:
        return "auto", (f"backend sim was asked for, but stack {settings['stack']} runs only in "
                        "emulation, so this experiment is emulated")
    raise document.error(where + ("backend",),
                         f"backend sim runs the tahoe stack only, not {settings['stack']}; "
                         "give stack: tahoe or an emulated backend")


def _host_model(document: Document, where: Where, settings: Mapping[str, Any]) -> Path | None:
    if "host" not in settings:
        if settings["stack"] == "tahoe":
            raise document.error(where + ("stack",), "stack tahoe needs `host`, a model in configs/hosts/")
        return None
    return host_file(settings["host"], document, where + ("host",))


def _experiment(document: Document, where: Where, settings: dict[str, Any],
                profile: dict[str, Any], profile_name: str, backend_override: str | None) -> Experiment:
    data = document.data
    exp_id = where.exp_id
    require(document, tuple(where), settings, ("link", "tool", "stack"))
    require(document, ("profiles",), profile, ("trials",))
    name = settings["tool"]
    for other, module in TOOLS.items():
        for key in module.OWN_KEYS:
            if other != name and settings.get(key):
                raise document.error(where + (key,), f"{key} is {other}'s option, and this experiment runs {name}")
    link_doc = link_file(settings["link"], document, where + ("link",))
    check_settings(document, where, settings)
    link = link_from_dict(settings["link"], link_doc.data)
    backend, backend_note = _backend(document, where, settings, backend_override)
    if link.medium == "shared" and backend == "auto":
        backend = "linkemu"  # of the emulators, only linkemu has the shared medium
    if link.medium == "shared" and backend not in ("sim", "linkemu"):
        raise document.error(where + ("link",), f"link {settings['link']} is a shared medium, which "
                             f"netsim and linkemu model and {backend} cannot (tc keeps one line per "
                             "direction): give backend linkemu or sim")
    source = Source(document=document, where=where, settings=settings, profile=profile, profile_name=profile_name,
                    stack=settings["stack"], backend=backend)
    return Experiment(
        paper=data["paper"],
        id=exp_id,
        description=settings.get("description", ""),
        mirrors=tuple(settings.get("mirrors", ())),
        network=settings.get("network", ""),
        tool=name,
        link_name=settings["link"],
        link=link,
        stack=settings["stack"],
        backend=backend,
        backend_note=backend_note,
        host=settings.get("host"),
        host_model=_host_model(document, where, settings),
        seed=int(settings.get("seed", 0)),
        trials=int(profile["trials"]),
        settings=tool(name).parse_settings(source),
        sweep=parse_sweep(document, where + ("sweep",), settings["sweep"], name, AXIS_TOOLS)
        if "sweep" in settings else None,
    )


def check_overrides(overrides: Mapping[str, Any]) -> None:
    """Refuses --config keys and values that would silently do nothing or something unintended:
    a run takes only OVERRIDE_KEYS from the command line, the rest from its spec."""
    unknown = sorted(set(overrides) - set(OVERRIDE_KEYS), key=str)
    if unknown:
        raise SpecError("--config", str(unknown[0]), None,
                        f"not a setting --config takes (only {' and '.join(OVERRIDE_KEYS)}); set it in "
                        "the spec, or give Snakemake's own options as flags (e.g. --cores 2)")
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
    own = {exp_id: settings or {} for exp_id, settings in data["experiments"].items()}
    experiments = {}
    for exp_id in own:
        # A variant takes every setting of its base that it does not set itself.
        base = variants[exp_id].experiment if exp_id in variants else None
        inherited = _merge(defaults, own[base]) if base else defaults
        settings = _merge(inherited, own[exp_id])
        profile = _merge(data["profiles"][profile_name], settings.get("profiles", {}).get(profile_name, {}))
        where = Where(exp_id, own[exp_id], (base, own[base]) if base else None)
        experiment = _experiment(document, where, settings, profile, profile_name, overrides.get("backend"))
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
