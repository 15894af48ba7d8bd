"""Specs are data. Snakemake loads a --configfile (and its profiles) first as JSON, then through
yte, whose loader builds Python objects from tags and evaluates Python written in a file that
sets `__use_yte__: true`, before the workflow's own validation can refuse anything; emulated runs
are root. envs/setup.sh installs this module into the venv as a .pth hook: when anything imports
yte or Snakemake's config file loader, they are wrapped so that a file is read (a regular file,
at most netrepro.yamlsrc.MAX_FILE_BYTES) and judged by netrepro's own plain-YAML loader first:
a tag, an anchor, a syntax error, nesting too deep, a number too long or `__use_yte__` refuses it
with its file and line, and only plain YAML reaches the third-party loaders. The modules are
wrapped only when imported, so other programs pay nothing at start-up.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import io
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Sequence

USE_YTE = "__use_yte__"
CONFIGFILE_MODULE = "snakemake.common.configfile"


def _refuse(message: str) -> BaseException:
    # SystemExit: Python prints the message alone and exits 1; Snakemake would print its own
    # errors with the frames they passed through.
    return SystemExit(f"netrepro: {message}")


def plain_text(text: str | bytes, name: str) -> str:
    """text, once netrepro's loader has found it plain YAML without `__use_yte__`; else the
    refusal, naming the file and the line."""
    from netrepro.yamlsrc import SpecError, decode, load_text

    try:
        if isinstance(text, bytes):
            text = decode(name, text)
        data = load_text(Path(name), text).data
    except SpecError as exc:
        raise _refuse(f"{exc}; a spec is plain YAML data, checked before Snakemake reads it") from None
    if isinstance(data, dict) and USE_YTE in data:
        raise _refuse(f"{name}: '{USE_YTE}' asks for yte templating, which runs Python written in the "
                      "file; netrepro specs are data only, so it is refused. Remove the key and write "
                      "plain values.")
    return text


def _read(file_or_str: Any) -> tuple[Any, str]:
    """The text of a file object or a string, read no further than a spec may go."""
    from netrepro.yamlsrc import MAX_FILE_BYTES

    name = str(getattr(file_or_str, "name", "the YAML text"))
    if not hasattr(file_or_str, "read"):
        return file_or_str, name
    text = file_or_str.read(MAX_FILE_BYTES + 1)
    if len(text) > MAX_FILE_BYTES:
        raise _refuse(f"{name}: more than {MAX_FILE_BYTES} octets, the most a spec may have")
    return text, name


def guarded(process_yaml: Callable[..., Any]) -> Callable[..., Any]:
    def process_yaml_without_code(file_or_str: Any, *args: Any, **kwargs: Any) -> Any:
        text, name = _read(file_or_str)
        return process_yaml(plain_text(text, name), *args, **kwargs)

    return process_yaml_without_code


def guarded_configfile(load: Callable[..., Any]) -> Callable[..., Any]:
    """Snakemake's _load_configfile, given a path: the file is read bounded (a regular file,
    never /dev/zero or a FIFO) and judged before its JSON parser or yte sees it."""

    def load_plain_configfile(configpath_or_obj: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(configpath_or_obj, (str, Path)):
            return load(configpath_or_obj, *args, **kwargs)
        from netrepro.yamlsrc import SpecError, read_bounded

        name = str(configpath_or_obj)
        try:
            raw = read_bounded(configpath_or_obj)
        except SpecError as exc:
            raise _refuse(str(exc)) from None
        text = plain_text(raw, name)
        stream = io.StringIO(text)
        stream.name = name
        return load(stream, *args, **kwargs)

    return load_plain_configfile


# Each module guarded, with what wraps it.
WRAPS: dict[str, Callable[[ModuleType], None]] = {
    "yte": lambda module: setattr(module, "process_yaml", guarded(module.process_yaml)),
    CONFIGFILE_MODULE: lambda module: setattr(module, "_load_configfile", guarded_configfile(module._load_configfile)),
}


class _GuardingLoader(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader, name: str) -> None:
        self.loader = loader
        self.name = name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        WRAPS[self.name](module)


class YteGuard(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if name not in WRAPS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _GuardingLoader(spec.loader, name)
        return spec


def install() -> None:
    for name, wrap in WRAPS.items():
        if name in sys.modules:
            wrap(sys.modules[name])
    if not any(isinstance(finder, YteGuard) for finder in sys.meta_path):
        sys.meta_path.insert(0, YteGuard())


install()
