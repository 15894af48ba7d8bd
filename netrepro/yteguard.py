"""Specs are data. Snakemake loads a --configfile through yte, which evaluates Python written in a
file that sets `__use_yte__: true`, before the workflow's own validation can refuse it; emulated
runs are root. envs/setup.sh installs this module into the venv as a .pth hook: when anything
imports yte, its process_yaml is replaced by one that refuses such a file and loads every other
file as before. yte is wrapped only when imported, so other programs pay nothing at start-up.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Any, Callable, Sequence

USE_YTE = "__use_yte__"


def _asks_for_templating(text: str) -> bool:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return False  # the caller's own parse reports the syntax error with its line
    return isinstance(data, dict) and USE_YTE in data


def guarded(process_yaml: Callable[..., Any]) -> Callable[..., Any]:
    def process_yaml_without_code(file_or_str: Any, *args: Any, **kwargs: Any) -> Any:
        text = file_or_str.read() if hasattr(file_or_str, "read") else file_or_str
        if _asks_for_templating(text):
            # Snakemake reports its own error type as one line, without a traceback.
            from snakemake_interface_common.exceptions import WorkflowError

            name = getattr(file_or_str, "name", "the YAML text")
            raise WorkflowError(
                f"{name}: '{USE_YTE}' asks for yte templating, which runs Python written in the "
                "file; netrepro specs are data only, so it is refused. Remove the key and write "
                "plain values.")
        return process_yaml(text, *args, **kwargs)

    return process_yaml_without_code


class _GuardingLoader(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        module.process_yaml = guarded(module.process_yaml)


class YteGuard(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if name != "yte":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _GuardingLoader(spec.loader)
        return spec


def install() -> None:
    if "yte" in sys.modules:
        module = sys.modules["yte"]
        module.process_yaml = guarded(module.process_yaml)
    elif not any(isinstance(finder, YteGuard) for finder in sys.meta_path):
        sys.meta_path.insert(0, YteGuard())


install()
