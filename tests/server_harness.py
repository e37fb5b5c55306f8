"""Real gunicorn servers for tests, started exactly as the container does
(``gunicorn -c gunicorn.conf.py``) on 127.0.0.1 and a free port, with a fresh Prometheus
multiprocess folder, and always stopped (SIGTERM, then SIGKILL of the process group).

Test modules use the :func:`serve` fixture (import it) and :class:`Server`'s helpers.
Every loop is bounded in count and time, and only loopback is used.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

__all__ = [
    "CONFIG",
    "DECK",
    "ROOT",
    "START_TIMEOUT",
    "STOP_TIMEOUT",
    "TONKU",
    "WORKERS",
    "Reply",
    "Server",
    "free_port",
    "launch",
    "metric",
    "random_hands",
    "read_json_lines",
    "serve",
    "wait_until",
]

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "gunicorn.conf.py"
START_TIMEOUT = 60.0  # seconds for a server to answer /readyz with every worker booted
STOP_TIMEOUT = 30.0
WORKERS = 2

TONKU = ["AS", "KH", "QD", "JC", "10S"]
DECK = [rank + suit for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
        for suit in "SHDC"]


# ----------------------------------------------------------------------- plumbing


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def read_json_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a log file, each parsed as JSON (a line that is not JSON fails)."""
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines if line.strip()]


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


@dataclass
class Server:
    """One gunicorn master (and its workers) started by a test."""

    proc: subprocess.Popen[bytes]
    port: int
    access_log: Path  # gunicorn's stdout: the JSON access log
    error_log: Path  # gunicorn's stderr: the JSON error log and the service's own logs
    drain: float = 0.0
    graceful: float = 0.0
    workers: int = WORKERS
    env: dict[str, str] = field(default_factory=dict)

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
             timeout: float = 15.0) -> Reply:
        """One request on a fresh connection."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            data = None if body is None else json.dumps(body).encode()
            sent = {"Content-Type": "application/json"} if data is not None else {}
            sent.update(headers or {})
            conn.request(method, path, body=data, headers=sent)
            response = conn.getresponse()
            return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            conn.close()

    def access(self) -> list[dict[str, Any]]:
        return [r for r in read_json_lines(self.access_log) if r.get("name") == "gunicorn.access"]

    def errors(self) -> list[dict[str, Any]]:
        return read_json_lines(self.error_log)

    def booted_workers(self) -> list[int]:
        """The pid of every worker the master booted, in order."""
        prefix = "Booting worker with pid: "
        return [int(r["message"][len(prefix):]) for r in self.errors()
                if str(r.get("message", "")).startswith(prefix)]

    def metrics(self) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
        reply = self.call("GET", "/metrics")
        assert reply.status == 200
        assert reply.headers["content-type"].startswith("text/plain; version=")
        out: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
        for family in text_string_to_metric_families(reply.body.decode()):
            for sample in family.samples:
                out[sample.name, frozenset(sample.labels.items())] = sample.value
        return out

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                pytest.fail(f"gunicorn exited with {self.proc.returncode}:\n{self.error_log.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"gunicorn not ready after {START_TIMEOUT} s:\n{self.error_log.read_text()}")
            try:
                ready = self.call("GET", "/readyz", timeout=2).status == 200
            except OSError:
                ready = False
            if ready and len(self.booted_workers()) >= self.workers:
                return
            time.sleep(0.1)

    def terminate(self) -> int:
        """SIGTERM to the master; its exit status (SIGKILL to the group past the bound)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=self.drain + self.graceful + STOP_TIMEOUT)
        finally:
            self.kill()

    def kill(self) -> None:
        """SIGKILL to the process group this test started, if any of it is left."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.wait(timeout=STOP_TIMEOUT)


def base_env(tmp_path: Path, port: int, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNAU_") and k != "PROFILES_FILE"}
    env.update({
        "GNAU_BIND": f"127.0.0.1:{port}",
        "GNAU_WORKERS": str(WORKERS),
        "GNAU_LOG_LEVEL": "info",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "PYTHONUNBUFFERED": "1",
    })
    env.update(extra)
    return env


def launch(tmp_path: Path, name: str, **extra: str) -> Server:
    """Start gunicorn exactly as the container does: ``gunicorn -c gunicorn.conf.py``."""
    port = free_port()
    folder = tmp_path / name
    folder.mkdir()
    access_log, error_log = folder / "stdout.log", folder / "stderr.log"
    env = base_env(folder, port, **extra)
    with access_log.open("wb") as out, error_log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(CONFIG)],
            cwd=ROOT, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True,
        )
    return Server(proc, port, access_log, error_log,
                  drain=float(env.get("GNAU_DRAIN_SECONDS", "3")),
                  graceful=float(env.get("GNAU_GRACEFUL_TIMEOUT", "20")),
                  workers=int(env["GNAU_WORKERS"]), env=env)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """``serve(**env)`` starts a server and waits until it is ready; all are stopped after."""
    started: list[Server] = []

    def start(name: str = "server", **extra: str) -> Server:
        server = launch(tmp_path, name, **extra)
        started.append(server)
        server.wait_ready()
        return server

    yield start
    for server in started:
        server.kill()


def metric(values: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return values.get((name, frozenset(labels.items())), 0.0)


def random_hands(n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [rng.sample(DECK, 5) for _ in range(n)]
