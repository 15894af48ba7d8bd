"""A command's --help description, written once in its module's docstring."""
from __future__ import annotations


def description(doc: str | None) -> str:
    """The docstring's first paragraph as one line, which argparse shows whole; its first line
    alone is often cut mid-sentence."""
    return " ".join((doc or "").split("\n\n")[0].split())
