"""Health and readiness served by the gunicorn master, on a port of their own (``GNAU_PROBE_BIND``).

The kubelet's probes must not queue behind requests: a worker busy with a client's work,
a full connection pool, a listen queue or a request head still arriving would all make a
probe on the API port wait, and a probe that waits past its timeout restarts a pod that is
fine. So the chart probes this listener instead: one thread in the master, which serves no
request of any client, answers from what the master knows, in microseconds:

- **while warming** (the master builds every profile's tables and analyses before it forks,
  seconds per profile): liveness 200 as long as each profile is done within
  :data:`WARM_SILENCE` seconds of the one before, readiness 503. A start-up with many
  profiles, or on a slow node, is therefore never taken for a hung one (the startup probe
  passes at once), while a warming that stalls still fails liveness;
- **liveness** (``GET /healthz``): 200 while the master's loop runs (it wakes at least once
  a second) and some booted worker has sent its heartbeat within ``GNAU_TIMEOUT`` seconds.
  A stuck worker is the master's to replace (it kills a worker silent for ``GNAU_TIMEOUT``);
  liveness fails only when the master cannot do that: its loop stopped for
  :data:`MASTER_SILENCE` seconds, or no worker beat for ``GNAU_TIMEOUT`` seconds however many
  it started. A stopped or frozen master answers nothing, which the kubelet counts as a
  failure too;
- **readiness** (``GET /readyz``): 200 when live, not draining (the master got SIGTERM,
  SIGINT or SIGQUIT), and some booted worker beat within :data:`READY_SILENCE` seconds; the
  thread starts only once every profile is warmed, so a ready master has warm workers.

The workers' heartbeats and boot flags come from the board they share with the master
(:mod:`service.gunicorn_worker`), never from a request. ``GET /healthz`` and ``GET /readyz``
stay on the API port too (they are in the contract), answered by a worker.

**Fork safety.** The master forks workers while this thread runs. The thread takes no lock
and writes no log line (a lock held at the fork, such as a log handler's, would stay held
in the child forever); it only reads plain attributes and the board, and uses its own
sockets, which the child closes at once (``os.register_at_fork``).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from service.problems import (
    MEDIA_TYPE,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    NOT_READY,
    UNHEALTHY,
    ProblemType,
    body,
)

__all__ = ["MASTER_SILENCE", "READY_SILENCE", "WARM_SILENCE", "Beat", "ProbeServer", "Supervision", "parse_bind",
           "respond", "watch_arbiter"]

#: Seconds the master's loop may go without running before liveness fails (it runs every second).
MASTER_SILENCE = 10.0
#: Seconds since a worker's last heartbeat (one a second) within which it counts for readiness.
READY_SILENCE = 10.0
#: Seconds warming may spend on one profile before liveness fails (the slowest takes about
#: 4 s on an idle core of the reference machine: a commission's house edges).
WARM_SILENCE = 60.0
_MAX_CONNECTIONS = 64  # probe connections held at once; the oldest is dropped beyond
_DEADLINE = 2.0  # seconds a probe connection may take to send its request line
_MAX_HEAD = 8192


@dataclass(frozen=True)
class Beat:
    """One worker as the board shows it: booted (past its own set-up), and the
    ``time.monotonic()`` of its last heartbeat."""

    booted: bool
    last: float


@dataclass
class Supervision:
    """What the master knows about itself and its workers, and what the probes answer.

    :param timeout: ``GNAU_TIMEOUT``: the longest a worker may go without a heartbeat.
    :param workers: the workers' beats now (the board).
    :param clock: ``time.monotonic`` (tests pass their own).
    :ivar warming: ``(profiles warmed, profiles in all)`` while the master warms, else ``None``.

    >>> now = [100.0]
    >>> s = Supervision(30, lambda: [Beat(True, 99.0)], clock=lambda: now[0])
    >>> s.master_ran(); s.health(), s.readiness()
    (None, None)
    >>> now[0] += 12; s.health()       # the master's loop has not run for 12 s
    'the master has not run its loop for 12 s'
    >>> s.master_ran(); s.readiness()  # workers silent for 13 s: live, but not ready
    'no worker has sent a heartbeat for 13 s'
    >>> s.draining = True; s.health(), s.readiness()
    (None, 'the server is draining after a shutdown signal')
    """

    timeout: float
    workers: Callable[[], list[Beat]]
    clock: Callable[[], float] = time.monotonic
    draining: bool = False
    warming: tuple[int, int] | None = None
    master_beat: float = field(default=0.0)
    worker_beat: float = field(default=0.0)
    warm_beat: float = field(default=0.0)

    def __post_init__(self) -> None:
        now = self.clock()
        self.master_beat = self.worker_beat = self.warm_beat = now

    def warmed(self, done: int, total: int) -> None:
        """Note that ``done`` of ``total`` profiles are warm (``done == total``: warming is
        over, and the master's loop and the workers are watched from now on)."""
        self.warm_beat = self.master_beat = self.worker_beat = self.clock()
        self.warming = None if done >= total else (done, total)

    def master_ran(self) -> None:
        """Note one run of the master's loop (and the newest heartbeat of a booted worker)."""
        self.master_beat = self.clock()
        self._note_workers()

    def _note_workers(self) -> float | None:
        beats = [b.last for b in self.workers() if b.booted]
        if beats:
            self.worker_beat = max(self.worker_beat, *beats)
            return max(beats)
        return None

    def health(self) -> str | None:
        """``None`` when live, else why not (liveness)."""
        if self.draining:
            return None
        now = self.clock()
        if self.warming is not None:
            stalled = now - self.warm_beat
            return f"warming has made no progress for {stalled:.0f} s" if stalled > WARM_SILENCE else None
        if now - self.master_beat > MASTER_SILENCE:
            return f"the master has not run its loop for {now - self.master_beat:.0f} s"
        self._note_workers()
        if now - self.worker_beat > self.timeout:
            return f"no worker has sent a heartbeat for {now - self.worker_beat:.0f} s"
        return None

    def readiness(self) -> str | None:
        """``None`` when ready, else why not (readiness)."""
        if self.draining:
            return "the server is draining after a shutdown signal"
        problem = self.health()
        if problem is not None:
            return problem
        if self.warming is not None:
            return f"warming the profiles' tables and analyses ({self.warming[0]} of {self.warming[1]} done)"
        newest = self._note_workers()
        now = self.clock()
        if newest is None:
            return "no worker has booted yet"
        if now - newest > READY_SILENCE:
            return f"no worker has sent a heartbeat for {now - newest:.0f} s"
        return None


def parse_bind(bind: str) -> tuple[str, int]:
    """``HOST:PORT`` as a socket address (``[::1]:8001`` for IPv6).

    >>> parse_bind("0.0.0.0:8001"), parse_bind("[::1]:9000")
    (('0.0.0.0', 8001), ('::1', 9000))
    """
    host, port = bind.rsplit(":", 1)
    return host.strip("[]"), int(port)


def _answer(status: int, data: bytes, media_type: str, head_only: bool) -> bytes:
    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Type: {media_type}\r\n"
            f"Content-Length: {len(data)}\r\n"
            "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n")
    return head.encode() + (b"" if head_only else data)


def _ok(status: str, head_only: bool) -> bytes:
    data = json.dumps({"status": status}, separators=(",", ":")).encode()
    return _answer(200, data, "application/json", head_only)


def _problem(kind: ProblemType, detail: str, head_only: bool = False) -> bytes:
    return _answer(kind.status, body(kind, detail), MEDIA_TYPE, head_only)


def respond(supervision: Supervision, request_line: bytes) -> bytes:
    """The answer to one request line: ``GET /healthz`` or ``GET /readyz`` (a query string is
    ignored; ``HEAD`` answers the head only), 404 for any other path, 405 for other methods.

    >>> s = Supervision(30, lambda: [Beat(True, 0.0)], clock=lambda: 0.0)
    >>> respond(s, b"GET /readyz?x=1 HTTP/1.1").split(b"\\r\\n")[0]
    b'HTTP/1.1 200 OK'
    >>> respond(s, b"POST /healthz HTTP/1.1").split(b"\\r\\n")[0]
    b'HTTP/1.1 405 Method Not Allowed'
    """
    parts = request_line.split(b" ")
    method = parts[0] if parts else b""
    path = parts[1].split(b"?", 1)[0] if len(parts) > 1 else b""
    if path not in (b"/healthz", b"/readyz"):
        return _problem(NOT_FOUND, "This port serves GET /healthz and GET /readyz only.")
    if method not in (b"GET", b"HEAD"):
        return _problem(METHOD_NOT_ALLOWED, "Use GET.")
    head_only = method == b"HEAD"
    if path == b"/healthz":
        problem = supervision.health()
        if problem is None:
            return _ok("ok", head_only)
        return _problem(UNHEALTHY, f"Not live: {problem}.", head_only)
    problem = supervision.readiness()
    if problem is None:
        return _ok("ready", head_only)
    return _problem(NOT_READY, f"Not ready: {problem}.", head_only)


class ProbeServer:
    """The probe listener: a listening socket and the daemon thread that serves it
    (:meth:`start`). Every connection gets one answer and is closed; a connection that has
    not sent its request head (at most 8 KiB) within 2 s is closed unanswered, and at most
    64 are held.

    :param address: ``(host, port)`` to listen on.
    :param supervision: what the answers are made from.
    """

    def __init__(self, address: tuple[str, int], supervision: Supervision) -> None:
        self.supervision = supervision
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(address)
        self.sock.listen(128)
        self.sock.setblocking(False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.sock, selectors.EVENT_READ)
        self.pending: dict[socket.socket, tuple[float, bytearray]] = {}
        self.thread = threading.Thread(target=self._serve, name="gnau-probes", daemon=True)
        os.register_at_fork(after_in_child=self.close)

    @property
    def port(self) -> int:
        """The port it listens on."""
        port: int = self.sock.getsockname()[1]
        return port

    def start(self) -> None:
        """Serve from a daemon thread (it ends with the process)."""
        self.thread.start()

    def close(self) -> None:
        """Close every socket of the listener (a forked worker does this at once)."""
        for conn in list(self.pending):
            conn.close()
        self.pending.clear()
        self.selector.close()
        self.sock.close()

    def _serve(self) -> None:
        while True:
            try:
                events = self.selector.select(0.25)
            except (OSError, ValueError):  # closed
                return
            for key, _ in events:
                if key.fileobj is self.sock:
                    self._accept()
                else:
                    self._read(key.fileobj)  # type: ignore[arg-type]
            self._expire()

    def _accept(self) -> None:
        for _ in range(16):
            try:
                conn, _ = self.sock.accept()
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.ECONNABORTED):
                    time.sleep(0.05)  # out of descriptors or the like: do not spin
                return
            conn.setblocking(False)
            if len(self.pending) >= _MAX_CONNECTIONS:
                self._drop(min(self.pending, key=lambda c: self.pending[c][0]))
            self.pending[conn] = (time.monotonic() + _DEADLINE, bytearray())
            self.selector.register(conn, selectors.EVENT_READ)

    def _read(self, conn: socket.socket) -> None:
        buf = self.pending[conn][1]
        try:
            data = conn.recv(_MAX_HEAD)
        except BlockingIOError:
            return
        except OSError:
            self._drop(conn)
            return
        buf += data
        if b"\r\n\r\n" in buf:  # the whole head read: closing leaves nothing unread (no reset)
            with contextlib.suppress(OSError):
                conn.send(respond(self.supervision, bytes(buf[:buf.find(b"\r\n")])))
            self._drop(conn)
        elif not data or len(buf) >= _MAX_HEAD:
            self._drop(conn)

    def _expire(self) -> None:
        now = time.monotonic()
        for conn in [c for c, (deadline, _) in self.pending.items() if deadline < now]:
            self._drop(conn)

    def _drop(self, conn: socket.socket) -> None:
        self.pending.pop(conn, None)
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(conn)
        conn.close()


def watch_arbiter(arbiter: Any, supervision: Supervision) -> None:
    """Let ``supervision`` watch gunicorn's master, once warming is over: each run of its
    loop is noted (:meth:`Supervision.master_ran`: liveness), and a shutdown turns readiness
    503 at once (:attr:`Supervision.draining`).

    gunicorn's ``Arbiter`` calls two of its methods by name, and this wraps them on
    ``arbiter`` (the instance): ``murder_workers``, which its loop calls on every run (at
    least once a second), and ``stop``, which SIGTERM, SIGINT and SIGQUIT call. A second
    call does nothing (gunicorn.conf.py's ``when_ready`` runs again after a SIGHUP reload).
    """
    if getattr(arbiter, "gnau_watched", False):
        return
    murder, stop = arbiter.murder_workers, arbiter.stop

    def loop_ran() -> None:
        supervision.master_ran()
        murder()

    def stopping(graceful: bool = True) -> None:
        supervision.draining = True
        stop(graceful)

    arbiter.murder_workers, arbiter.stop = loop_ran, stopping
    arbiter.gnau_watched = True
