"""Check specs without running anything.

    python -m netrepro.validate configs/liu95cool.yaml [more specs]

Prints each spec's experiments and trial counts, or the first error with file, key and line.
"""
from __future__ import annotations

import sys

from netrepro.spec import PROFILES, load_spec
from netrepro.yamlsrc import SpecError


def main(argv: list[str] | None = None) -> int:
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    status = 0
    for path in paths:
        try:
            specs = {profile: load_spec(path, {"profile": profile}) for profile in PROFILES}
        except SpecError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
            continue
        quick = specs["quick"]
        trials = ", ".join(f"{p} {sum(e.trials for e in s.experiments.values())}" for p, s in specs.items())
        print(f"{path}: {quick.paper}, {len(quick.experiments)} experiments ({', '.join(quick.experiments)}); trials: {trials}")
    return status


if __name__ == "__main__":
    sys.exit(main())
