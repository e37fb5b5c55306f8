"""The one harness that runs real gunicorn servers, for the tests and the benchmark.

A server is started exactly as ``make run`` and the container start it, ``gunicorn -c
gunicorn.conf.py`` (the configuration names the app, the worker class and the hooks; this
module names no module of the service), on 127.0.0.1 and a free port, in a session of
its own. It is ready once every worker has booted and set up its own signal handlers and
a probe (``GET /readyz`` unless told) answers 200. :func:`running` always stops it after
its block: SIGTERM, then SIGKILL to its whole process group after a bound; a caller of
:func:`launch` stops it with :meth:`Server.terminate` or :meth:`Server.kill`. Every wait
is bounded in time and only loopback is used.

Its environment is the caller's minus every ``GNAU_*`` setting, ``PROFILES_FILE`` and
``PROMETHEUS_MULTIPROC_DIR`` (a server gets only the settings it is given), plus
``GNAU_BIND``, ``GNAU_PROBE_BIND`` (the master's probe listener, on a second free port),
``GNAU_WORKERS`` (:data:`WORKERS` unless given), ``GNAU_LOG_LEVEL=info``
(readiness counts the "Booting worker" lines), ``PYTHONUNBUFFERED=1`` and a
fresh Prometheus multiprocess folder inside the server's folder. The server's folder
holds ``stdout.log`` (gunicorn's JSON access log) and ``stderr.log`` (its JSON error log
and the service's own logs).

It lives in ``bench/`` because both sides can import it from there: the tests already
import ``bench`` (tests/live/test_bench.py), ``python -m bench`` needs no test dependency
(this module imports neither pytest nor the tests), and no arrow points from ``bench``
back into ``tests``.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from prometheus_client.parser import text_string_to_metric_families

from bench.common import ROOT

__all__ = [
    "COMMAND",
    "CONFIG",
    "READY_PROBE",
    "ROOT",
    "START_TIMEOUT",
    "STOP_TIMEOUT",
    "WORKERS",
    "Metrics",
    "Reply",
    "Server",
    "ServerError",
    "caught_signals",
    "children",
    "environment",
    "free_port",
    "launch",
    "launch_ready",
    "pss_mib",
    "read_json_lines",
    "request",
    "running",
    "stop",
]

#: The one gunicorn configuration (``make run``, the container, the tests, the benchmark).
CONFIG = ROOT / "gunicorn.conf.py"
#: How the server is started: this interpreter's gunicorn with the repository's config.
COMMAND = (sys.executable, "-m", "gunicorn", "-c", str(CONFIG))
#: Seconds for a server to answer its probe with every worker booted.
START_TIMEOUT = 60.0
#: Seconds a stop waits beyond the server's own drain and graceful periods before SIGKILL.
STOP_TIMEOUT = 30.0
#: Workers a server gets unless ``GNAU_WORKERS`` is given (gunicorn.conf.py's default, set explicitly).
WORKERS = 2
#: The default readiness probe: ``(method, path, body)`` that must answer 200.
READY_PROBE: tuple[str, str, bytes | None] = ("GET", "/readyz", None)
#: Samples of a ``/metrics`` scrape: ``(name, frozenset of label pairs) -> value``.
Metrics = dict[tuple[str, frozenset[tuple[str, str]]], float]

_BOOTED = re.compile(r"Booting worker with pid: (\d+)")


class ServerError(RuntimeError):
    """A server exited, was not ready in time or answered something unusable; the
    message carries the end of its error log."""


@dataclass(frozen=True)
class Reply:
    """One HTTP response: status, headers (names lower-cased) and the body's bytes."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


#: Ports the servers listen on: below Linux's ephemeral range (32768-60999), so that no
#: client connection's source port (the tests' own, or a parallel test worker's) can take
#: one between the check and gunicorn's bind.
LISTEN_PORTS = range(20_000, 32_000)
#: How many times :func:`launch_ready` starts a server whose port was taken meanwhile.
LAUNCH_TRIES = 3


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now, outside the ephemeral range (:data:`LISTEN_PORTS`).

    :raises OSError: no free port after 100 tries.
    """
    rng = random.SystemRandom()
    for _ in range(100):
        port = rng.choice(LISTEN_PORTS)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError("no free port on 127.0.0.1 in 100 tries")


def request(port: int, method: str, path: str, data: bytes | None = None,
            headers: Mapping[str, str] | None = None, timeout: float = 15.0) -> Reply:
    """One request to ``127.0.0.1:port`` on a fresh connection (``data`` is sent as JSON).

    :raises OSError: the connection failed or timed out.
    """
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        sent = {"Content-Type": "application/json"} if data is not None else {}
        sent.update(headers or {})
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        conn.close()


def read_json_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a log file, each parsed as JSON (a line that is not JSON raises ``ValueError``)."""
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines if line.strip()]


def _is_access_record(record: object) -> TypeGuard[dict[str, Any]]:
    """Whether a parsed log line is gunicorn's access record of one request (it names
    the worker that served it in ``pid``)."""
    return isinstance(record, dict) and record.get("name") == "gunicorn.access"


def children(pid: int) -> list[int]:
    """The pids of a process's children now (a gunicorn master's workers); none once it is gone."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def caught_signals(pid: int) -> str | None:
    """The mask of signals a process has handlers for (``SigCgt`` in /proc), or ``None``
    once it is gone. A worker forked a moment ago still has its master's handlers (and
    its mask): a SIGTERM then would be taken for the master's and the worker would go on
    serving until killed."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return line.split()[1]
    except OSError:
        return None
    return None


def pss_mib(pid: int) -> float:
    """A process's proportional set size in MiB (shared pages split among the sharers).

    :raises ServerError: the kernel reports no Pss for it.
    """
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    raise ServerError(f"no Pss for {pid}")


def stop(proc: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT) -> int:
    """SIGTERM to a process started in a session of its own; SIGKILL to its process group
    if it has not exited within ``timeout`` seconds, and to whatever of the group is left.

    :return: its exit status (negative: the signal that ended it).
    """
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=timeout)
    _kill_group(proc)
    return proc.returncode


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.wait(timeout=STOP_TIMEOUT)


def environment(port: int, folder: Path, probe_port: int | None = None, **settings: str) -> dict[str, str]:
    """The environment of a server on ``port`` (its probes on ``probe_port``, none when not
    given) whose files go to ``folder`` (module docstring).

    >>> env = environment(8123, Path("/srv/x"), 8124, GNAU_WORKERS="1")
    >>> env["GNAU_BIND"], env["GNAU_PROBE_BIND"], env["GNAU_WORKERS"], env["PROMETHEUS_MULTIPROC_DIR"]
    ('127.0.0.1:8123', '127.0.0.1:8124', '1', '/srv/x/metrics')
    """
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GNAU_") and k not in ("PROFILES_FILE", "PROMETHEUS_MULTIPROC_DIR")}
    env.update({
        "GNAU_BIND": f"127.0.0.1:{port}",
        "GNAU_PROBE_BIND": f"127.0.0.1:{probe_port}" if probe_port else "",
        "GNAU_WORKERS": str(WORKERS),
        "GNAU_LOG_LEVEL": "info",
        "PROMETHEUS_MULTIPROC_DIR": str(folder / "metrics"),
        "PYTHONUNBUFFERED": "1",
    })
    env.update(settings)
    return env


@dataclass
class Server:
    """One gunicorn master (and its workers) started by :func:`launch`."""

    proc: subprocess.Popen[bytes]
    port: int
    folder: Path  # the server's own folder: its logs and metrics
    env: dict[str, str]  # the environment it was started with
    _offset: int = field(default=0, repr=False)  # how far served_by has read the access log

    @property
    def name(self) -> str:
        """The server's name in messages: its folder's name."""
        return self.folder.name

    @property
    def workers(self) -> int:
        """The workers it was started with (``GNAU_WORKERS``)."""
        return int(self.env["GNAU_WORKERS"])

    @property
    def drain(self) -> float:
        """Its drain period after SIGTERM, seconds (``GNAU_DRAIN_SECONDS``, 3 by default)."""
        return float(self.env.get("GNAU_DRAIN_SECONDS", "3"))

    @property
    def graceful(self) -> float:
        """Its graceful period after the drain, seconds (``GNAU_GRACEFUL_TIMEOUT``, 20 by default)."""
        return float(self.env.get("GNAU_GRACEFUL_TIMEOUT", "20"))

    @property
    def access_log(self) -> Path:
        """gunicorn's stdout: the JSON access log."""
        return self.folder / "stdout.log"

    @property
    def error_log(self) -> Path:
        """gunicorn's stderr: the JSON error log and the service's own logs."""
        return self.folder / "stderr.log"

    @property
    def probe_port(self) -> int | None:
        """The port of the master's probe listener (``GNAU_PROBE_BIND``), if it has one."""
        bind = self.env.get("GNAU_PROBE_BIND", "")
        return int(bind.rsplit(":", 1)[1]) if bind else None

    def probe(self, path: str, timeout: float) -> Reply:
        """``GET path`` (``/healthz`` or ``/readyz``) on the probe listener, as the kubelet
        sends it: a fresh connection, ``timeout`` seconds for the whole answer.

        :raises OSError: no answer in time, or the connection failed.
        """
        if self.probe_port is None:
            raise ServerError(f"{self.name} has no probe listener")
        return request(self.probe_port, "GET", path, timeout=timeout)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:port``."""
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        """``http://127.0.0.1:port/path``."""
        return self.base_url + path

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
             timeout: float = 15.0) -> Reply:
        """One request on a fresh connection; ``body`` (if not ``None``) is sent as JSON.

        :raises OSError: the connection failed or timed out.
        """
        data = None if body is None else json.dumps(body).encode()
        return request(self.port, method, path, data, headers, timeout)

    def post(self, path: str, data: bytes, timeout: float = 30.0) -> Reply:
        """One POST of a JSON body given as bytes, on a fresh connection."""
        return request(self.port, "POST", path, data, timeout=timeout)

    def access(self) -> list[dict[str, Any]]:
        """The access log's records so far (every line must be JSON)."""
        return [r for r in read_json_lines(self.access_log) if _is_access_record(r)]

    def errors(self) -> list[dict[str, Any]]:
        """The error log's records so far (every line must be JSON)."""
        return read_json_lines(self.error_log)

    def booted_workers(self) -> list[int]:
        """The pid of every worker the master booted, in order (complete log lines only)."""
        text = self.error_log.read_text(errors="replace") if self.error_log.exists() else ""
        return [int(pid) for pid in _BOOTED.findall(text[:text.rfind("\n") + 1])]

    def worker_pids(self) -> list[int]:
        """The pids of the master's worker processes now."""
        return children(self.proc.pid)

    def quiet(self, seconds: float = 0.2, timeout: float = 3.0) -> None:
        """Wait (at most ``timeout`` seconds) until the access log has not grown for
        ``seconds``: requests of a load run that ended (a client that left with a request in
        flight) are done, and their connections closed, before the next run starts."""
        deadline = time.monotonic() + timeout
        size = -1
        while time.monotonic() < deadline:
            now = self.access_log.stat().st_size if self.access_log.exists() else 0
            if now == size:
                return
            size = now
            time.sleep(seconds)

    def served_by(self) -> list[int]:
        """Requests served per worker since the last call (from the access log), ascending."""
        with open(self.access_log, "rb") as f:
            f.seek(self._offset)
            data = f.read()
        complete = data[:data.rfind(b"\n") + 1]
        self._offset += len(complete)
        counts: Counter[int] = Counter()
        for line in complete.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if _is_access_record(record):
                counts[record["pid"]] += 1
        return sorted(counts.values())

    def metrics(self) -> Metrics:
        """Every sample of ``GET /metrics``.

        :raises ServerError: the answer is not a 200 in Prometheus's text format.
        """
        reply = self.call("GET", "/metrics")
        if reply.status != 200 or not reply.headers.get("content-type", "").startswith("text/plain; version="):
            raise ServerError(f"/metrics answered {reply.status} {reply.headers.get('content-type')}")
        out: Metrics = {}
        for family in text_string_to_metric_families(reply.body.decode()):
            for sample in family.samples:
                out[sample.name, frozenset(sample.labels.items())] = sample.value
        return out

    def ready(self, probe: tuple[str, str, bytes | None] = READY_PROBE) -> bool:
        """Every worker booted, alive and past setting up its own signal handlers (so a
        SIGTERM from now on drains it), and the probe answered 200 (and the master's
        readiness too, when it has a probe listener)."""
        workers = self.worker_pids()
        if len(self.booted_workers()) < self.workers or len(workers) < self.workers:
            return False
        master = caught_signals(self.proc.pid)
        if master is None or any(caught_signals(pid) in (master, None) for pid in workers):
            return False
        try:
            if self.probe_port is not None and self.probe("/readyz", timeout=5).status != 200:
                return False
            return request(self.port, *probe, timeout=5).status == 200
        except OSError:
            return False

    def wait_ready(self, timeout: float = START_TIMEOUT, probe: tuple[str, str, bytes | None] = READY_PROBE) -> None:
        """Wait until :meth:`ready`, polling every 0.1 s.

        :raises ServerError: the master exited, or it was not ready within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while not self.ready(probe):
            if self.proc.poll() is not None:
                raise ServerError(f"gunicorn exited with {self.proc.returncode}:\n{self._log_tail()}")
            if time.monotonic() > deadline:
                raise ServerError(f"gunicorn not ready after {timeout:g} s:\n{self._log_tail()}")
            time.sleep(0.1)

    def terminate(self) -> int:
        """SIGTERM to the master; its exit status (SIGKILL to the group past drain +
        graceful + :data:`STOP_TIMEOUT` seconds, and to whatever of it is left)."""
        return stop(self.proc, self.drain + self.graceful + STOP_TIMEOUT)

    def kill(self) -> None:
        """SIGKILL to the server's process group, if any of it is left."""
        _kill_group(self.proc)

    def _log_tail(self, chars: int = 4000) -> str:
        return self.error_log.read_text(errors="replace")[-chars:] if self.error_log.exists() else ""


def launch(folder: Path, **settings: str) -> Server:
    """Start ``gunicorn -c gunicorn.conf.py`` on a free port without waiting for it.

    :param folder: the server's folder (made if missing) for its logs and metrics.
    :param settings: more environment variables (``GNAU_*`` settings, ``PROFILES_FILE``...).
    """
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    probe_port = free_port()
    while probe_port == port:
        probe_port = free_port()
    env = environment(port, folder, probe_port, **settings)
    with (folder / "stdout.log").open("wb") as out, (folder / "stderr.log").open("wb") as err:
        proc = subprocess.Popen(COMMAND, cwd=ROOT, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    return Server(proc, port, folder, env)


@contextlib.contextmanager
def running(folder: Path, *, probe: tuple[str, str, bytes | None] = READY_PROBE,
            **settings: str) -> Iterator[Server]:
    """A ready server for the ``with`` block (:func:`launch`, then :meth:`Server.wait_ready`),
    always stopped after it (:meth:`Server.terminate`).

    :raises ServerError: it did not become ready.
    """
    server = launch_ready(folder, settings, probe)
    try:
        yield server
    finally:
        server.terminate()


def launch_ready(folder: Path, settings: Mapping[str, str],
                 probe: tuple[str, str, bytes | None] = READY_PROBE) -> Server:
    """:func:`launch` with ``settings``, then :meth:`Server.wait_ready`; a server whose port
    was taken in the moment between :func:`free_port` and its bind (another test's server)
    is started again on another port, up to :data:`LAUNCH_TRIES` times in all.

    :raises ServerError: it did not become ready (the last try's log).
    """
    tries = LAUNCH_TRIES
    for attempt in range(tries):
        server = launch(folder, **settings)
        try:
            server.wait_ready(probe=probe)
            return server
        except ServerError as exc:
            server.kill()
            if "Address already in use" not in str(exc) or attempt == tries - 1:
                raise
    raise AssertionError("unreachable")
