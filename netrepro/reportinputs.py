"""The files a report reads besides results, found in its own source: each report names its
published numbers ("reference/<name>.csv") and the specs it reads (file.path("..", "configs",
"<name>.yaml")) once, and the workflow declares what it finds there as the render rule's inputs."""
from __future__ import annotations

import re
from pathlib import Path

REFERENCE = re.compile(r'"(reference/[A-Za-z0-9_.-]+\.csv)"')
SPEC = re.compile(r'file\.path\("\.\.", "configs", "([A-Za-z0-9_.-]+\.yaml)"\)')


def report_reads(repo: Path, source: Path) -> list[Path]:
    """The reference tables and specs that the report at source (an .Rmd) reads, as paths under
    repo; a name the source gives that is not there is kept, so the workflow says it is missing."""
    text = source.read_text(encoding="utf-8")
    found = {repo / "reports" / name for name in REFERENCE.findall(text)}
    found |= {repo / "configs" / name for name in SPEC.findall(text)}
    return sorted(found)
