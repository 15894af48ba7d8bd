"""The measurement tools, one module each with one shape, so that a fifth tool is one more
module here and its entries in configs/schema/ (its spec settings, its result columns):

- NAME, the tool's name in a spec's `tool:`;
- Settings, a frozen dataclass of what the tool does, and parse_settings(source), which reads it
  from a spec (netrepro.specread.Source) or raises the spec's error naming file, line and key;
- OWN_KEYS, spec keys only this tool reads (another tool's experiment may not set them);
  SWEEP_AXES, the sweep axes that set its settings; sim_only(raw settings), the keys set that
  exist only on netsim's stacks (with any, the experiment runs in virtual time);
- binaries(backend), the programs a trial runs; parts(settings), the jobs a trial splits into
  (None: one job); traced(settings), whether it captures packets for trace.csv;
  fixed_columns(settings), the result columns the same on every row;
- prepares(experiment): whether its trials share a result that is the same for every trial,
  made once before them by prepare(experiment) (a JSON-able dict; only a tool that ever
  prepares defines prepare);
- run(spec, experiment, trial, out, part, prepared): one trial (or part), in virtual time or
  emulated, writing out/records.jsonl, the rows of configs/schema/results-columns.json, and then
  out/provenance.json (netrepro.trial.write_run), which holds the run's actual order of
  measurements by the tool's ORDER_FIELDS (netrepro.trial.run_order); `prepared` is prepare's
  result, or None for a trial that makes its own.
"""
from __future__ import annotations

from types import ModuleType

from netrepro.experiment import Experiment

from netrepro.tools import ipcbench, mftp, pingx, ttcp

TOOLS: dict[str, ModuleType] = {module.NAME: module for module in (pingx, ttcp, mftp, ipcbench)}


def tool(name: str) -> ModuleType:
    """The module of the tool called name."""
    return TOOLS[name]


def prepared_once(experiment: Experiment) -> bool:
    """Whether the experiment's trials read what its tool prepared once for all of them: never
    for a sweep, whose points differ, so each of its trials makes its own."""
    return experiment.sweep is None and tool(experiment.tool).prepares(experiment)
