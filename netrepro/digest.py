"""Run digests: one SHA-256 per experiment over what its virtual-time runs measured, so a rerun
of the same spec can be checked against a published report, record for record.

    python -m netrepro.digest results/comer94                          # each experiment's digest
    python -m netrepro.digest results/comer94 --against /tmp/rerun/results/comer94
    python -m netrepro.digest results/comer94 --report reports/html/comer94.html

netrepro.aggregate writes results/<paper>/<experiment>/digest.json (write_digest) beside
results.csv. A digest covers a run's measurement files only: records.jsonl and segments.jsonl,
each record in a canonical form (canonical()), and capture.pcap byte for byte. Two runs of
comer94, liu95db, ishikura, milliner and liu95cool-tahoe in virtual time, each into its own
results tree, wrote those files byte-identical; everything that differed (started_at and
finished_at: the host's clock) is in provenance.json and the transfer cells' caches, which the
digest leaves out with the rest of the provenance (paths, host, commit, tool builds). Emulated
runs are timed by the host's clock and differ from run to run: they are listed, not digested.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterator

from netrepro.atomic import write_text
from netrepro.backends import EMULATORS
from netrepro.errors import RunError
from netrepro.helptext import description
from netrepro.spec import BACKENDS

# Names the canonical form below; a change to it that changes digests gets a new name, so that
# digests of two forms are never compared as if they should agree.
FORM = "netrepro-records/1"
DIGEST_FILE = "digest.json"
# A run's measurement files of JSON records (one per line), in the order they are digested.
RECORD_FILES = ("records.jsonl", "segments.jsonl")
CAPTURE_FILE = "capture.pcap"
# The backends a run records that keep virtual time: neither an emulator nor `auto`, which a run
# resolves to one.
VIRTUAL_TIME = tuple(backend for backend in BACKENDS if backend not in EMULATORS and backend != "auto")


def canonical(value: Any) -> str:
    """value as compact JSON with keys sorted, floats as C's %.17g (exactly the double, however
    its writer spelled it; nan and inf bare, as no string is), integers in decimal and strings
    ASCII-escaped."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format(value, ".17g")
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=True)
    if isinstance(value, list):
        return "[" + ",".join(canonical(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(key, ensure_ascii=True)}:{canonical(value[key])}"
                              for key in sorted(value)) + "}"
    raise TypeError(f"no canonical form for {type(value).__name__}")


def canonical_records(path: Path) -> Iterator[str]:
    """Each record of a JSON Lines file in canonical form, in the file's order (the run's)."""
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line.decode("utf-8"))
            except ValueError as exc:  # not UTF-8, or not JSON
                raise RunError(f"{path}:{number}: not a JSON record ({getattr(exc, 'msg', exc)}); the run "
                               "is damaged: delete its folder and run again") from None
            yield canonical(record)


def run_digest(run: Path) -> dict[str, Any]:
    """The digest of one run folder and what it covers: for each record file present, its name
    on a line and then each record on a line; for a capture, its name and the SHA-256 of its
    bytes."""
    sha = hashlib.sha256()
    counts: dict[str, Any] = {}
    for name in RECORD_FILES:
        path = run / name
        if not path.is_file():
            continue
        sha.update(f"{name}\n".encode())
        count = 0
        for record in canonical_records(path):
            sha.update(f"{record}\n".encode())
            count += 1
        counts[name.split(".")[0]] = count
    capture = run / CAPTURE_FILE
    if capture.is_file():
        sha.update(f"{CAPTURE_FILE}\n{hashlib.sha256(capture.read_bytes()).hexdigest()}\n".encode())
    if "records" not in counts:
        raise RunError(f"{run / RECORD_FILES[0]} is missing: the run did not finish; run the workflow again")
    return {**counts, "capture": capture.is_file(), "digest": "sha256:" + sha.hexdigest()}


def combine(run_digests: list[str]) -> str:
    """The experiment's digest: the SHA-256 of its runs' digests, one a line, in run order."""
    return "sha256:" + hashlib.sha256("".join(f"{d}\n" for d in run_digests).encode()).hexdigest()


def run_backend(run: Path) -> str | None:
    provenance = run / "provenance.json"
    try:
        return json.loads(provenance.read_text(encoding="utf-8")).get("backend")
    except (OSError, json.JSONDecodeError) as exc:
        raise RunError(f"{provenance}: cannot read the run's backend ({exc}); run the workflow again") from None


def experiment_digest(folder: Path, runs: list[Path]) -> dict[str, Any]:
    """The digest record of an experiment folder from its run folders. Runs are named by their
    paths from the folder (runs/<profile>/<backend>/trial-N/... in the workflow) and taken in
    the order of those names, which two results trees share, whatever order the workflow ran
    them in."""
    named = {Path(os.path.relpath(run.absolute(), folder.absolute())).as_posix(): run for run in runs}
    digested, skipped = [], []
    for name in sorted(named):
        backend = run_backend(named[name])
        if backend in VIRTUAL_TIME:
            digested.append({"run": name, **run_digest(named[name])})
        else:
            skipped.append({"run": name, "backend": backend})
    return {
        "form": FORM,
        "digest": combine([run["digest"] for run in digested]) if digested else None,
        "runs": digested,
        "not_digested": skipped,
    }


def write_digest(folder: Path, runs: list[Path]) -> None:
    """Writes folder/digest.json for the experiment's runs. It holds nothing but what the runs'
    measurement files give, so writing it again from the same runs leaves it byte-identical."""
    write_text(folder / DIGEST_FILE, json.dumps(experiment_digest(folder, runs), indent=1) + "\n")


def read_digest(folder: Path) -> dict[str, Any]:
    path = folder / DIGEST_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RunError(f"{path}: cannot read it ({exc}); aggregate the experiment again "
                       "(the workflow does when it is missing)") from None


def recomputed(folder: Path) -> dict[str, Any]:
    """folder's digest record computed again from the runs its digest.json lists; a RunError
    when it differs from the one stored in the same form (a run changed after aggregating)."""
    stored = read_digest(folder)
    names = [run["run"] for run in stored.get("runs", []) + stored.get("not_digested", [])]
    again = experiment_digest(folder, [folder / name for name in names])
    if stored.get("form") == FORM and again != stored:
        raise RunError(f"{folder / DIGEST_FILE} says {stored.get('digest')}, but its runs now give "
                       f"{again['digest']}: a run changed after it was aggregated; run the workflow again")
    return again


def experiment_folders(folder: Path) -> list[Path]:
    """folder itself when it holds a digest, else its experiment folders that do (results/<paper>)."""
    if (folder / DIGEST_FILE).is_file():
        return [folder]
    found = sorted(path.parent for path in folder.glob(f"*/{DIGEST_FILE}"))
    if not found:
        raise RunError(f"{folder}: no {DIGEST_FILE} in it or in its subfolders; give results/<paper> "
                       "or an experiment's folder, aggregated by the workflow")
    return found


def label(folder: Path) -> str:
    """paper/experiment, as the reports name an experiment's digest."""
    return f"{folder.absolute().parent.name}/{folder.absolute().name}"


def shown(record: dict[str, Any]) -> str:
    return record["digest"] or "none (no run in virtual time)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("results", type=Path, help="results/<paper>, or one experiment's folder")
    against = parser.add_mutually_exclusive_group()
    against.add_argument("--against", type=Path, help="another results/<paper> (a rerun) to compare with")
    against.add_argument("--report", type=Path, help="a report's HTML (say, the published one) to find each digest in")
    args = parser.parse_args(argv)
    try:
        mine = {label(folder): recomputed(folder) for folder in experiment_folders(args.results)}
        theirs = ({label(folder): recomputed(folder) for folder in experiment_folders(args.against)}
                  if args.against else {})
        report = args.report.read_text(encoding="utf-8") if args.report else None
    except (RunError, OSError) as exc:
        print(f"netrepro: {exc}", file=sys.stderr)
        return 2
    agree = True
    for name in sorted(set(mine) | set(theirs)):
        if args.against:
            if name not in mine or name not in theirs:
                verdict, ok = f"only in {args.results if name in mine else args.against}", False
            elif mine[name]["digest"] is None and theirs[name]["digest"] is None:
                verdict, ok = "nothing to compare", True
            else:
                ok = mine[name]["digest"] == theirs[name]["digest"]
                verdict = "same" if ok else f"DIFFERS from {shown(theirs[name])}"
            print(f"{name} {shown(mine.get(name) or theirs[name])} {verdict}")
        elif report is not None:
            ok = mine[name]["digest"] is None or mine[name]["digest"] in report
            print(f"{name} {shown(mine[name])} {'in the report' if ok else 'NOT IN THE REPORT'}")
        else:
            ok = True
            print(f"{name} {shown(mine[name])}")
        agree = agree and ok
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
