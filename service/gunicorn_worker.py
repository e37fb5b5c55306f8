"""The gunicorn worker class the service runs: gevent's, with two changes.

**Balanced accepting.** All workers accept from one listening socket, and keep-alive keeps
each connection on the worker that accepted it. Left alone, whichever worker the kernel
happens to run when a burst of connections arrives takes most of them (a game server that
opens a pool of 16 connections at once can land all 16 on one worker, which then does all
the work while the others idle). Each worker counts its open connections on a small board
shared by all workers (an anonymous shared mapping made in the master before any fork);
a worker that holds more connections than the least loaded live worker holds off
accepting for 2 ms at a time, so the next connection goes to a worker behind it. It never
holds off for more than 200 ms in a row (the others may be busy computing, or not yet
scheduled on a loaded machine), so a connection is never refused and waits at most that.

**Problem details before the app.** Errors gunicorn raises before the app sees a
request (a malformed request line or header, a request line over 4,094 bytes, too many or
too large headers) are answered as problem details like every other error, instead of
gunicorn's small HTML page.

**Heartbeats on the board.** Each worker also writes on its slot when it has booted
(:func:`mark_booted`, from ``post_worker_init``) and the time of every heartbeat, so the
master's probe listener (:mod:`service.gunicorn_probes`) reads the workers' state from
shared memory (:func:`beats`), never from a request.

gunicorn.conf.py names it (``worker_class = "service.gunicorn_worker.Worker"``) and gives
each worker its slot on the board (:func:`assign_slot`, from its ``pre_fork`` hook).
"""

from __future__ import annotations

import ctypes
import json
import mmap
import socket
import time
from typing import Any

from gevent.server import StreamServer
from gunicorn import util
from gunicorn.workers import ggevent
from gunicorn.workers.ggevent import GeventWorker

from service.engine.text import clip

__all__ = ["MAX_SLOTS", "Worker", "assign_slot", "beats", "mark_booted", "release_slot", "write_problem"]

#: The most workers one master runs with balanced accepting (GNAU_WORKERS is at most 64).
MAX_SLOTS = 64
_HOLD_OFF = 0.002  # seconds a worker ahead of the others waits before it looks again
_MAX_HOLD_OFF = 0.2  # never waits longer than this in a row

# Four rows of MAX_SLOTS int64: open connections per slot; 1 where a live worker sits; 1
# once that worker has booted; the time.monotonic() of its last heartbeat, in microseconds.
_LIVE, _BOOTED, _BEAT = MAX_SLOTS, 2 * MAX_SLOTS, 3 * MAX_SLOTS
_BOARD_MAP = mmap.mmap(-1, ctypes.sizeof(ctypes.c_int64) * 4 * MAX_SLOTS)
_BOARD = (ctypes.c_int64 * (4 * MAX_SLOTS)).from_buffer(_BOARD_MAP)

_TYPES = {
    400: "/problems/bad-request",
    403: "/problems/forbidden",
    414: "/problems/uri-too-long",
    417: "/problems/expectation-failed",
    431: "/problems/header-fields-too-large",
    501: "/problems/not-implemented",
}


def assign_slot(server: Any, worker: Any) -> None:
    """Give ``worker`` the lowest slot no other live worker of ``server`` holds (in the
    master, before the fork); its count starts at 0."""
    taken = {getattr(w, "gnau_slot", None) for w in server.WORKERS.values()}
    slot = next(i for i in range(MAX_SLOTS) if i not in taken)
    worker.gnau_slot = slot
    _BOARD[slot] = _BOARD[_BOOTED + slot] = _BOARD[_BEAT + slot] = 0
    _BOARD[_LIVE + slot] = 1


def release_slot(worker: Any) -> None:
    """Mark a dead worker's slot free (in the master, when the worker has exited)."""
    slot = getattr(worker, "gnau_slot", None)
    if slot is not None:
        _BOARD[_LIVE + slot] = _BOARD[_BOOTED + slot] = 0
        _BOARD[slot] = 0


def _beat(slot: int) -> None:
    _BOARD[_BEAT + slot] = int(time.monotonic() * 1e6)


def mark_booted(worker: Any) -> None:
    """Note on the board that ``worker`` (in its own process) has booted, and beat once."""
    slot = getattr(worker, "gnau_slot", None)
    if slot is not None:
        _beat(slot)
        _BOARD[_BOOTED + slot] = 1


def beats() -> list[tuple[bool, float]]:
    """Every live worker's ``(booted, time.monotonic() of its last heartbeat)`` (the master's
    probe listener reads these)."""
    return [(bool(_BOARD[_BOOTED + i]), _BOARD[_BEAT + i] / 1e6) for i in range(MAX_SLOTS) if _BOARD[_LIVE + i]]


def _ahead(slot: int) -> bool:
    """Whether the worker in ``slot`` holds more connections than the least loaded other
    live worker."""
    others = [_BOARD[i] for i in range(MAX_SLOTS) if i != slot and _BOARD[_LIVE + i]]
    return bool(others) and _BOARD[slot] > min(others)


class _BalancedStreamServer(StreamServer):  # type: ignore[misc]
    """gevent's StreamServer that holds off accepting while its worker is ahead."""

    slot: int | None = None
    _held_since: float | None = None

    def _do_read(self) -> None:
        slot = self.slot
        if slot is not None and _ahead(slot):
            now = time.monotonic()
            since = self._held_since
            if since is None:
                self._held_since = since = now
            if now - since < _MAX_HOLD_OFF:
                self.stop_accepting()
                self._timer = self.loop.timer(_HOLD_OFF)
                self._timer.start(self._start_accepting_if_started)
                return
        self._held_since = None
        super()._do_read()


def write_problem(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error``, answering ``application/problem+json`` (RFC 9457).

    :param sock: the client's socket.
    :param status_int: the HTTP status gunicorn chose (400, 414, 431, ...).
    :param reason: the reason phrase.
    :param mesg: gunicorn's description; quoted request text in it is cut short.
    """
    body = json.dumps({
        "type": _TYPES.get(status_int, f"/problems/http-{status_int}"),
        "title": reason,
        "status": status_int,
        "detail": clip(mesg, 200),
    }, ensure_ascii=True).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
            "Content-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1")
    util.write_nonblock(sock, head + body)


class Worker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker with balanced accepting and problem-details errors."""

    gnau_slot: int | None = None

    def init_process(self) -> Any:
        util.write_error = write_problem  # gunicorn's base worker calls util.write_error
        slot = self.gnau_slot

        class Server(_BalancedStreamServer):
            pass

        Server.slot = slot
        ggevent.StreamServer = Server  # the worker's run() builds its servers from this name
        return super().init_process()

    def notify(self) -> None:
        """gunicorn's heartbeat (its file, which the master's timeout watches), also on the board."""
        super().notify()
        if self.gnau_slot is not None:
            _beat(self.gnau_slot)

    def handle(self, listener: Any, client: Any, addr: Any) -> Any:
        slot = self.gnau_slot
        if slot is None:
            return super().handle(listener, client, addr)
        _BOARD[slot] += 1
        try:
            return super().handle(listener, client, addr)
        finally:
            _BOARD[slot] -= 1
