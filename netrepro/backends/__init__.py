"""Link emulation backends. Each one makes a middle node forward between its two interfaces
while imposing a LinkParams; see LinkBackend."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from netrepro.linkspec import LinkParams

# The octets of a frame-time trailer (tools/common/frametime.h).
FRAME_TIME_OCTETS = 12


class BackendError(RuntimeError):
    """A backend cannot emulate what was asked, or failed to start or stop."""


class LinkBackend(Protocol):
    """Emulates a link on the middle node between interface if_a (towards host a) and if_b.

    The forward direction (a->b) is imposed on packets leaving if_b, the reverse on if_a.
    `node` is a Mininet node (anything with .cmd() and .popen()).
    """

    name: str
    # Octets a frame-time trailer may add to a frame past the link's MTU: the middle node's
    # interfaces need that much more room (see FRAME_TIME_OCTETS); 0 for a backend without.
    trailer_octets: int

    def start(self, node: Any, if_a: str, if_b: str, link: LinkParams, log_dir: Path) -> None: ...

    def settings(self) -> dict[str, Any]:
        """What was applied (command lines, qdiscs), for provenance."""
        ...

    def stop(self) -> dict[str, Any]:
        """Stops emulating and returns the counters gathered (packets sent, dropped and why)."""
        ...


def netem_available(kernel_release: str | None = None) -> bool:
    """Whether this kernel has sch_netem, built in or as a module."""
    import os

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
    if name == "htb":
        from netrepro.backends.htb import HtbBackend

        return HtbBackend()
    if name == "linkemu":
        from netrepro.backends.linkemu import LinkemuBackend

        return LinkemuBackend(seed=seed, frame_times=frame_times)
    if name == "netem":
        if not netem_available():
            raise BackendError("backend netem needs sch_netem, which this kernel lacks; use linkemu or auto")
        from netrepro.backends.netem import NetemBackend

        return NetemBackend()
    raise BackendError(f"unknown link backend {name!r}; choose auto, linkemu, netem or htb")


def emulation_backend(name: str, stack: str, seed: int) -> LinkBackend:
    """The backend called name for hosts on `stack`, drawing from seed. Tahoe hosts and linkemu
    tell each other their frames' modelled times, so that wake-up delays of the emulating
    processes stay out of the modelled timeline, as virtual time has none; the Linux stack
    cannot."""
    return get_backend(name, frame_times=stack == "tahoe" and resolve_backend_name(name) == "linkemu",
                       seed=seed)

