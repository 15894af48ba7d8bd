"""Where netrepro's own files are: the checkout, its specs and schemas, and the built tools."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CONFIG_DIR = REPO / "configs"
SCHEMA_DIR = CONFIG_DIR / "schema"
# Where `make build` (tools/Makefile) installs the C programs.
TOOLS_BIN = REPO / "tools" / "bin"


def tool_binary(name: str) -> Path:
    """The built program `name` (pingx, netsim, linkemu, ...)."""
    return TOOLS_BIN / name
