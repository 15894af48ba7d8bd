"""Link emulation backends. Each one makes a middle node forward between its two interfaces
while imposing a LinkParams; see LinkBackend."""
from __future__ import annotations

import os
from pathlib import Path

from netrepro.backends.base import FRAME_TIME_OCTETS, BackendError, LinkBackend
from netrepro.backends.htb import HtbBackend
from netrepro.backends.linkemu import LinkemuBackend
from netrepro.backends.netem import NetemBackend

__all__ = ["EMULATORS", "FRAME_TIME_OCTETS", "BackendError", "LinkBackend", "emulation_backend", "get_backend",
           "netem_available", "resolve_backend_name"]

# The link emulators by name; a spec's backend is one of these, `auto` or `sim` (virtual time,
# netrepro.sim), as configs/schema/spec.schema.json lists them (tests/test_facts.py).
EMULATORS: dict[str, type] = {"htb": HtbBackend, "linkemu": LinkemuBackend, "netem": NetemBackend}


def netem_available(kernel_release: str | None = None) -> bool:
    """Whether this kernel has sch_netem, built in or as a module."""
    release = kernel_release or os.uname().release
    if Path("/sys/module/sch_netem").exists():
        return True
    modules = Path("/lib/modules") / release
    builtin = modules / "modules.builtin"
    if builtin.is_file() and "sch_netem.ko" in builtin.read_text(encoding="utf-8", errors="replace"):
        return True
    return any(modules.glob("kernel/net/sched/sch_netem.ko*"))


def resolve_backend_name(name: str) -> str:
    """name, with 'auto' made netem where the kernel has it, else linkemu."""
    if name == "auto":
        return "netem" if netem_available() else "linkemu"
    return name


def get_backend(name: str, *, frame_times: bool = False, seed: int = 1) -> LinkBackend:
    """The backend called name; 'auto' is netem where the kernel has it, else linkemu.
    frame_times: frames from hosts with --frame-times are timed by their trailers, which only
    linkemu reads. seed: of linkemu's loss and jitter draws (netem draws from the kernel's)."""
    name = resolve_backend_name(name)
    if frame_times and name != "linkemu":
        raise BackendError(f"backend {name} cannot read frame-time trailers; only linkemu can")
    if name not in EMULATORS:
        raise BackendError(f"unknown link backend {name!r}; choose auto, {', '.join(EMULATORS)}")
    if name == "linkemu":
        return LinkemuBackend(seed=seed, frame_times=frame_times)
    if name == "netem" and not netem_available():
        raise BackendError("backend netem needs sch_netem, which this kernel lacks; use linkemu or auto")
    return EMULATORS[name]()


def emulation_backend(name: str, stack: str, seed: int) -> LinkBackend:
    """The backend called name for hosts on `stack`, drawing from seed. Tahoe hosts and linkemu
    tell each other their frames' modelled times, so that wake-up delays of the emulating
    processes stay out of the modelled timeline, as virtual time has none; the Linux stack
    cannot."""
    return get_backend(name, frame_times=stack == "tahoe" and resolve_backend_name(name) == "linkemu",
                       seed=seed)

