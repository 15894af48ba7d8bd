"""What every link emulation backend is: the LinkBackend protocol and its error."""
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
