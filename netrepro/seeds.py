"""Seeds drawn from an experiment's seed: each run, mode, buffer pair or emulated link gets its
own, so they are independent of each other, yet every rerun draws the same."""
from __future__ import annotations

import hashlib
from typing import Any


def derive_seed(seed: int, *parts: Any) -> int:
    """A seed in 1..2^31-1 for the experiment seed and the parts that name one draw."""
    text = ":".join(str(part) for part in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") % (1 << 31) or 1


def link_seed(seed: int, *parts: Any) -> int:
    """The seed of an emulated link's loss and jitter draws in one run (parts name the run), so
    that two trials of a lossy link drop different packets."""
    return derive_seed(seed, *parts, "link")
