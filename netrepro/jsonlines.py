"""JSON Lines, as every tool prints its records and every run folder keeps them: one reader."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from netrepro.errors import RunError


def parse(text: str, where: str) -> list[dict[str, Any]]:
    """The records of text, one JSON object a line (blank lines skipped); a line that is not
    JSON is a RunError naming where it came from and the line."""
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise RunError(f"{where} printed a line that is not JSON (line {number}: {line[:120]!r})") from exc
    return records


def read(path: Path) -> list[dict[str, Any]]:
    """The records of the file at path."""
    return parse(path.read_text(encoding="utf-8"), str(path))


def dumps(records: list[dict[str, Any]]) -> str:
    """records as JSON Lines text."""
    return "".join(json.dumps(record) + "\n" for record in records)
