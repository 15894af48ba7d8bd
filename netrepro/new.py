"""Write a commented starting spec for a study of one's own.

    python -m netrepro.new my-study [--tool pingx|ttcp|mftp|ipcbench] [--link atm-oc3-155] [--dir configs]

Writes configs/my-study.yaml (never over an existing file), checks that it loads, and prints the
commands that run it. Its report is the generic study report, reports/html/my-study.html.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import NamedTuple

from netrepro.helptext import description
from netrepro.paths import CONFIG_DIR
from netrepro.spec import SpecError, load_spec

NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]*")

PINGX_EXPERIMENT = """\
  echo-sizes:
    description: RTT and UDP loss of a few message sizes, on a 1990s host in virtual time.
    tool: pingx
    # Modes: tcp-per-message, tcp, tcp-nodelay, udp, udp-cooled (which needs `cooling`).
    modes: [tcp, tcp-nodelay, udp]
    # Sizes written here, or the name of a set in configs/msgsets/ (e.g. nasa-images).
    messages: [1K, 8K, 36K, 40K+1]
"""

TTCP_EXPERIMENT = """\
  buffers:
    description: Bulk TCP throughput for a small matrix of socket buffers.
    tool: ttcp
    ttcp:
      send_buffers: [16K, 24K, 32K]
      receive_buffers: [16K, 24K, 32K]
      # SunOS filled its send buffer in 4K blocks; ttcp writes this much per call.
      write_size: 4K
"""

MFTP_EXPERIMENT = """\
  connections:
    description: MFTP throughput against parallel TCP connections and added round-trip delay.
    tool: mftp
    mftp:
      # Each connection's TCP window; the file goes in blocks to whichever connection has room.
      window: 24K
      block: 32K
      mode: block
      pause: 1s
      timeout: 300s
    # Every combination is a point of the sweep; its values are columns of results.csv.
    sweep:
      added_rtt: [0ms, 100ms, 200ms]
      connections: [1, 2, 4, 8]
"""

IPCBENCH_EXPERIMENT = """\
  udp-unack:
    description: Time to send messages over UDP with k segments sent before an acknowledgement.
    tool: ipcbench
    ipcbench:
      # udp (segments of `segments` octets, `unack` of them before each acknowledgement), tcp
      # (socket buffers of `buffers` octets) or rpc.
      mode: udp
      segments: [1K, 8K]
      unack: [1, 6]
      sizes: 1M..4M step 1M
"""

TEMPLATE = """\
# {name}: a study of one's own. Change a value, then:
#   .venv/bin/python -m netrepro.validate configs/{name}.yaml            # check it, runs nothing
#   .venv/bin/snakemake -n --configfile configs/{name}.yaml              # list what would run
#   .venv/bin/snakemake --cores 2 --configfile configs/{name}.yaml       # run it, write the report
# The report is reports/html/{name}.html. Every key is described in configs/schema/spec.schema.json.
paper: {name}
title: "{name}: a study of one's own"

defaults:
  # A link kind in configs/links/: ethernet-10, wan-1995, atm-taxi-100, atm-oc3-155, ...
  link: {link}
  # tahoe: the project's 4.3BSD-Tahoe stack, which runs in virtual time (backend sim) with a
  # host model from configs/hosts/; linux: today's kernel, emulated on Mininet (needs root).
  stack: tahoe
  host: sparcstation-ipc
  backend: sim
  seed: 1

profiles:
  # The only profile a study needs; `paper` and `smoke` fall back to it when absent.
  quick:
    trials: 1
{profile}
experiments:
{experiment}"""

class Starter(NamedTuple):
    """A tool's starting study: what it measures (for --help), its quick profile's lines and
    its experiment."""

    measures: str
    profile: str
    experiment: str


STARTERS = {
    "pingx": Starter("RTT and loss per message size (default)", "    echoes: 10\n    interval: 1s\n",
                     PINGX_EXPERIMENT),
    "ttcp": Starter("throughput per buffer pair", "    transfers: 2\n    transfer: 1M\n", TTCP_EXPERIMENT),
    "mftp": Starter("throughput against connections and delay", "    transfers: 2\n    transfer: 2M\n",
                    MFTP_EXPERIMENT),
    "ipcbench": Starter("message time by size over UDP", "    transfers: 2\n", IPCBENCH_EXPERIMENT),
}


def starting_spec(name: str, tool: str, link: str) -> str:
    starter = STARTERS[tool]
    return TEMPLATE.format(name=name, link=link, profile=starter.profile, experiment=starter.experiment)


def write_study(name: str, tool: str, link: str, directory: Path) -> Path:
    """Writes directory/<name>.yaml and returns its path; refuses bad names and existing files."""
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"'{name}' is not a study name: use lower-case letters, digits and hyphens, "
                         "starting with a letter or digit")
    if not (CONFIG_DIR / "links" / f"{link}.yaml").is_file():
        known = sorted(p.stem for p in (CONFIG_DIR / "links").glob("*.yaml"))
        raise ValueError(f"no link kind '{link}' in configs/links/; known: {', '.join(known)}")
    path = directory / f"{name}.yaml"
    if path.exists():
        raise ValueError(f"{path} exists already; choose another name or edit that file")
    directory.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as out:
        out.write(starting_spec(name, tool, link))
    load_spec(path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("name", help="the study's name: lower case, digits, hyphens (e.g. my-study)")
    parser.add_argument("--tool", choices=sorted(STARTERS), default="pingx",
                        help="; ".join(f"{tool}: {starter.measures}" for tool, starter in STARTERS.items()))
    parser.add_argument("--link", default="atm-oc3-155", help="a link kind in configs/links/ (default atm-oc3-155)")
    parser.add_argument("--dir", type=Path, default=CONFIG_DIR, help="where the spec goes (default configs/)")
    args = parser.parse_args(argv)
    try:
        path = write_study(args.name, args.tool, args.link, args.dir)
    except (ValueError, SpecError) as exc:
        print(f"netrepro new: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}\nrun it: .venv/bin/snakemake --cores 2 --configfile {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
