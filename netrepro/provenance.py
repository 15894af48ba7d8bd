"""What a run records about where its numbers came from."""
from __future__ import annotations

import hashlib
import os
import platform
import socket
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from netrepro.paths import REPO

SYSCTLS = (
    "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_sack", "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.core.rmem_default",
    "net.core.rmem_max", "net.core.wmem_default", "net.core.wmem_max", "net.ipv4.tcp_no_metrics_save",
    "net.ipv4.ipfrag_high_thresh", "net.ipv4.ipfrag_time", "net.ipv4.tcp_autocorking",
)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def git_rev(rev: str = "HEAD") -> str:
    """The commit rev names in this repository; 'unknown' outside git or for no such rev."""
    try:
        return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def git_commit() -> str:
    """HEAD's commit, with '-dirty' when tracked files differ from it; 'unknown' outside git."""
    head = git_rev()
    if head == "unknown":
        return head
    try:
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}-dirty" if dirty else head


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def read_sysctls(host: Any) -> dict[str, str]:
    """The TCP/IP sysctls as the host's network namespace sees them."""
    values = {}
    for name in SYSCTLS:
        path = "/proc/sys/" + name.replace(".", "/")
        process = host.popen(["cat", path], stdout=-1, stderr=-2, text=True)
        output, _ = process.communicate()
        values[name] = " ".join(output.split()) if process.returncode == 0 else "unavailable"
    return values


def tool_version(argv: list[str]) -> str:
    """The first line a tool prints for its version flag, or why there is none."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unavailable ({exc})"
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if lines else "unknown"


def machine() -> dict[str, Any]:
    return {
        "kernel": platform.release(),
        "hostname": socket.gethostname(),
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "git_commit": git_commit(),
    }


def executor() -> dict[str, Any]:
    """Where the workflow ran this part: in a Slurm job (its id and node, from the variables
    slurmd sets) or directly on this machine."""
    job_id = os.environ.get("SLURM_JOB_ID")
    return {
        "executor": "slurm" if job_id else "local",
        "slurm_job_id": job_id,
        "slurm_node": os.environ.get("SLURMD_NODENAME") if job_id else None,
    }


def binary_digest(path: Path) -> str:
    """A tool without a version flag is named by its build: the SHA-256 of its binary."""
    try:
        return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        return f"unavailable ({exc})"


def binary_digests(paths: list[Path]) -> dict[str, str]:
    """The build of each binary, by its name."""
    return {path.name: binary_digest(path) for path in paths}
