"""MFTP stays an FTP: clients and servers written by others talk to mftpd and mftp on loopback.

Python's ftplib fetches a file from mftpd byte for byte; mftp with one connection (--plain,
stream mode) fetches one from pyftpdlib; mftp asking a plain server for 4 connections is
refused with a clear message instead of hanging.
"""
from __future__ import annotations

import ftplib
import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler
from pyftpdlib.servers import FTPServer

BIN = Path(__file__).resolve().parent.parent / "tools" / "bin"
LOOPBACK = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen | None = None, within_s: float = 10.0) -> None:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"server exited with {process.returncode}: {process.stderr.read()}")
        try:
            socket.create_connection((LOOPBACK, port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port} after {within_s} s")


@pytest.fixture
def payload(tmp_path: Path) -> Path:
    path = tmp_path / "served" / "data.bin"
    path.parent.mkdir()
    path.write_bytes(os.urandom(300_000) + b"\r\n\n\r" * 1000)  # line ends must survive binary mode
    return path


@pytest.fixture
def plain_server(payload: Path):
    """pyftpdlib serving payload's folder to anonymous, in a thread."""
    authorizer = DummyAuthorizer()
    authorizer.add_anonymous(str(payload.parent))
    handler = type("Handler", (FTPHandler,), {"authorizer": authorizer, "banner": "pyftpdlib ready"})
    server = FTPServer((LOOPBACK, 0), handler)
    stop = threading.Event()

    def serve() -> None:
        # The serving thread closes the server itself: closed from the test's thread, its
        # sockets went away under a poll() still running (EBADF in the thread).
        while not stop.is_set():
            server.serve_forever(timeout=0.1, blocking=False, handle_exit=False)
        server.close_all()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.address[1]
    stop.set()
    thread.join(timeout=5)
    assert not thread.is_alive(), "pyftpdlib's thread did not stop within 5 s"


def test_ftplib_retrieves_a_file_from_mftpd_byte_for_byte(payload, tmp_path):
    port = free_port()
    server = subprocess.Popen([str(BIN / "mftpd"), "--bind", LOOPBACK, "-p", str(port), "--root",
                               str(payload.parent), "--sessions", "1", "--idle-exit", "20s"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_listening(port, server)
        got = bytearray()
        with ftplib.FTP() as ftp:
            ftp.connect(LOOPBACK, port, timeout=10)
            ftp.login()
            ftp.retrbinary("RETR data.bin", got.extend)
        assert bytes(got) == payload.read_bytes()
        server.wait(timeout=10)
    finally:
        if server.poll() is None:
            server.kill()
        server.communicate()


def test_mftp_with_one_connection_retrieves_a_file_from_pyftpdlib(plain_server, payload, tmp_path):
    dest = tmp_path / "got.bin"
    done = subprocess.run([str(BIN / "mftp"), "--plain", "-p", str(plain_server), "--get", "data.bin",
                           "--dest", str(dest), "--timeout", "10s", LOOPBACK],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert dest.read_bytes() == payload.read_bytes()
    record = json.loads(done.stdout.splitlines()[-1])
    assert record["connections"] == 1 and record["mode"] == "stream"
    assert record["bytes"] == payload.stat().st_size


def test_mftp_asking_a_plain_server_for_four_connections_is_refused_clearly(plain_server, tmp_path):
    started = time.monotonic()
    done = subprocess.run([str(BIN / "mftp"), "-n", "4", "-p", str(plain_server), "--get", "data.bin",
                           "--dest", str(tmp_path / "never.bin"), "--timeout", "10s", LOOPBACK],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert "refused MCON" in done.stdout + done.stderr
    assert "--plain" in done.stdout + done.stderr
    assert time.monotonic() - started < 10, "the refusal must come from the reply, not a timeout"
    assert not (tmp_path / "never.bin").exists() or (tmp_path / "never.bin").stat().st_size == 0
