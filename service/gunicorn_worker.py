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

**Bounds on what one client holds.** A worker serves at most ``gnau_address_connections``
connections from one client address at once (``GNAU_ADDRESS_CONNECTIONS``, 250 of its
``GNAU_WORKER_CONNECTIONS``): a connection beyond is answered ``503
/problems/too-many-connections`` and closed, so one address cannot take the whole pool. A
request head (its header lines) may be at most :data:`MAX_HEAD_BYTES` long (gunicorn's own
limits allow 100 fields of 8,190 bytes, about 800 kB held per connection, rescanned on
every read by its parser): beyond, ``431``; and a head that has not come whole after
:data:`HEAD_FREE_READS` reads is read again only after :data:`HEAD_READ_PACE`, so a client
that trickles it a byte at a time wakes the worker a hundred times a second, not once per
byte (a head split over a few TCP segments, or cut at the end of a read of pipelined
requests, is read at once). An answer the client does not take within
``GNAU_SEND_TIMEOUT`` seconds closes its connection (:mod:`service.http.middleware` sets the
deadline; this worker logs it and closes quietly).

**Turns between the requests of a connection.** gunicorn's keep-alive loop reads a
pipelined request from its buffer without waiting, so a client that sends requests back to
back would keep the worker's event loop to itself (no heartbeat: the master kills the
worker). Before each request the worker looks at the loop's poll count (libev's
``iteration``): when the loop has not polled for :data:`TURN` seconds, the request first
waits for the loop's next poll (a timer of :data:`_NEXT_POLL`), so new connections,
probes, the heartbeat and other connections' requests are served in between. The same
holds between the requests of different connections: under many connections of long
small-body requests the loop polls about once per request, not once per round of them. A
``gevent.sleep(0)`` would not do: it resumes from the callbacks the loop runs before it
polls, and gevent looks at the clock only every 50 callbacks, so a round of 16 such
requests ran before each poll (16 connections of 8 ms requests: a connection arriving with
them waited 1.8-2.4 s to be accepted; 0.3-0.4 s with the timer, same throughput). It does not wait before every request: that made ordinary
keep-alive traffic cost ~25-40 µs more CPU a request (measured with wrk), and most requests
follow a wait for the client anyway, which polls.

**A heartbeat that means progress.** A request that has computed on the worker's compute
lane (:mod:`service.http.compute`) for longer than ``GNAU_TIMEOUT`` stops the heartbeat, so
the master replaces a worker stuck in one computation as it did before the lane existed.

**Metrics files by slot, not by pid.** prometheus_client's multiprocess mode writes each
process's samples to files named by its pid, and keeps a dead process's files so that its
counts stay in the totals: every worker ever killed left two files until the container
restarted. Workers name their files by slot instead (:func:`metrics_identity`, which
gunicorn.conf.py gives prometheus_client): a worker that replaces a dead one takes its slot,
opens its files and counts on from its totals, so there are never more files than slots.

**Heartbeats on the board.** Each worker also writes on its slot when it has booted
(:func:`mark_booted`, from ``post_worker_init``) and the time of every heartbeat, so the
master's probe listener (:mod:`service.gunicorn_probes`) reads the workers' state from
shared memory (:func:`beats`), never from a request.

gunicorn.conf.py names it (``worker_class = "service.gunicorn_worker.Worker"``) and gives
each worker its slot on the board (:func:`assign_slot`, from its ``pre_fork`` hook).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import socket
import time
from collections import Counter
from typing import Any

import gevent
import gunicorn.http
from gevent.server import StreamServer
from gunicorn import util
from gunicorn.http.errors import LimitRequestHeaders
from gunicorn.http.message import Request
from gunicorn.http.parser import RequestParser
from gunicorn.workers import ggevent
from gunicorn.workers.ggevent import GeventWorker

from service.gunicorn_logging import without_request_text
from service.problems import TOO_MANY_CONNECTIONS, early_answer, for_status

__all__ = ["HEAD_FREE_READS", "HEAD_READ_PACE", "MAX_HEAD_BYTES", "MAX_SLOTS", "TURN", "Worker", "assign_slot",
           "beats", "mark_booted", "metrics_identity", "release_slot", "write_problem"]

#: The most bytes of header lines a request head may hold (the request line has its own
#: limit, 4,094): an 8,000-byte header and a few ordinary ones fit.
MAX_HEAD_BYTES = 32 * 1024
#: Seconds a worker waits before reading more of a request head that has not ended: a
#: client trickling its head a byte at a time then costs at most 100 reads a second
#: (each read rescans the head so far), not one per byte; a head that arrives whole, as
#: every ordinary client sends it, never waits.
HEAD_READ_PACE = 0.01
#: Reads of one request head made at once, before the pace applies (the first takes what
#: came; an ordinary head split over segments, or cut at the end of a read, needs one or
#: two more).
HEAD_FREE_READS = 3
#: Seconds the loop may go without polling before a request waits for its next poll (a
#: probe or another connection then waits about this long plus one request per poll).
TURN = 0.005
#: How a request waits for the loop's next poll: a timer this short (timers fire only after
#: the loop has polled; see the module docstring for why not ``gevent.sleep(0)``).
_NEXT_POLL = 1e-6

#: The most workers one master runs with balanced accepting (GNAU_WORKERS is at most 64).
MAX_SLOTS = 64
_HOLD_OFF = 0.002  # seconds a worker ahead of the others waits before it looks again
_MAX_HOLD_OFF = 0.2  # never waits longer than this in a row

# Four rows of MAX_SLOTS int64: open connections per slot; 1 where a live worker sits; 1
# once that worker has booted; the time.monotonic() of its last heartbeat, in microseconds.
_LIVE, _BOOTED, _BEAT = MAX_SLOTS, 2 * MAX_SLOTS, 3 * MAX_SLOTS
_BOARD_MAP = mmap.mmap(-1, ctypes.sizeof(ctypes.c_int64) * 4 * MAX_SLOTS)
_BOARD = (ctypes.c_int64 * (4 * MAX_SLOTS)).from_buffer(_BOARD_MAP)


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


#: This process's slot, once it is a worker (set as it starts: :meth:`Worker.init_process`).
_own_slot: int | None = None


def metrics_identity() -> str:
    """The name of this process's metrics files: ``slot3`` in the worker of slot 3, else
    the pid (prometheus_client's ``process_identifier``: live processes never share one,
    as no two live workers share a slot)."""
    slot = _own_slot
    return str(os.getpid()) if slot is None else f"slot{slot}"


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
    """gunicorn's ``util.write_error``, answering problem details
    (:func:`service.problems.early_answer`, of the type of ``status_int``:
    :func:`~service.problems.for_status`).

    :param sock: the client's socket.
    :param status_int: the HTTP status gunicorn chose (400, 414, 431, ...).
    :param reason: the reason phrase (also the answer's title).
    :param mesg: gunicorn's description, kept without the request text it quotes
        (:func:`~service.gunicorn_logging.without_request_text`: the bytes of a request it
        could not read may be the rest of a body, a deal's seed included).
    """
    detail = without_request_text(mesg) or "The request could not be read."
    util.write_nonblock(sock, early_answer(for_status(status_int), detail, reason))


class _BoundedRequest(Request):  # type: ignore[misc]
    """gunicorn's request, whose head may not grow past :data:`MAX_HEAD_BYTES`, read at
    most once per :data:`HEAD_READ_PACE` once :data:`HEAD_FREE_READS` reads have not
    brought it whole; once its body is abandoned, its answer says ``Connection: close``."""

    _reads = 0

    def should_close(self) -> bool:
        # A body whose reading failed or was given up (its input's ``failed``: a broken chunk,
        # the body deadline, a body over the limit left unread,
        # service.http.request_body) leaves where the next request starts unknown: gunicorn
        # closes the connection after the answer, and the answer's head, written after,
        # says so instead of "keep-alive".
        body = getattr(self, "body", None)
        return getattr(body, "failed", False) is True or bool(super().should_close())

    def read_into(self, unreader: Any, buf: bytearray, stop: bool = False) -> None:
        # Asked for more while MAX_HEAD_BYTES are held and the head has not ended: refuse.
        # (A head that ends within the bound is never refused, whatever follows it.)
        if len(buf) >= MAX_HEAD_BYTES:
            raise LimitRequestHeaders(f"request head over {MAX_HEAD_BYTES} bytes")
        self._reads += 1
        if self._reads > HEAD_FREE_READS:  # the head keeps coming in pieces: let more of it arrive first
            gevent.sleep(HEAD_READ_PACE)
        super().read_into(unreader, buf, stop)


class _BoundedParser(RequestParser):  # type: ignore[misc]
    mesg_class = _BoundedRequest


def _parser(cfg: Any, source: Any, source_addr: Any, http2_connection: bool = False) -> Any:
    """gunicorn's ``http.get_parser`` for HTTP/1.x, with heads bounded."""
    if http2_connection or getattr(cfg, "protocol", "http") != "http":
        return _get_parser(cfg, source, source_addr, http2_connection)
    return _BoundedParser(cfg, source, source_addr)


_get_parser = gunicorn.http.get_parser


class Worker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker with balanced accepting, problem-details errors and the
    bounds of the module docstring."""

    gnau_slot: int | None = None
    #: Connections one client address may hold on this worker (set in the master, pre_fork).
    gnau_address_connections: int = 250
    #: The worker's compute lane (gunicorn.conf.py's post_worker_init sets it).
    gnau_lane: Any = None
    _by_address: Counter[str]
    _polls: int  # the loop's poll count when a request last saw it change ...
    _polled: float  # ... and when (time.monotonic())
    _loop: Any = None  # the worker's event loop (its hub's, made as it runs)

    def init_process(self) -> Any:
        global _own_slot
        _own_slot = self.gnau_slot
        util.write_error = write_problem  # gunicorn's base worker calls util.write_error
        gunicorn.http.get_parser = _parser  # the async worker gets its parser by this name
        self._by_address = Counter()
        self._polls, self._polled = -1, 0.0
        slot = self.gnau_slot

        class Server(_BalancedStreamServer):
            pass

        Server.slot = slot
        ggevent.StreamServer = Server  # the worker's run() builds its servers from this name
        return super().init_process()

    def notify(self) -> None:
        """gunicorn's heartbeat (its file, which the master's timeout watches), also on the
        board; none while one request has computed for longer than ``GNAU_TIMEOUT``."""
        lane = self.gnau_lane
        if lane is not None and lane.busy_for() > self.cfg.timeout:
            return
        super().notify()
        if self.gnau_slot is not None:
            _beat(self.gnau_slot)

    def handle(self, listener: Any, client: Any, addr: Any) -> Any:
        """Serve one connection: counted on the board and per client address (refused
        with a 503 beyond the address's share)."""
        host = str(addr[0]) if isinstance(addr, tuple) and addr else "-"
        by_address = self._by_address
        if by_address[host] >= self.gnau_address_connections:
            try:
                client.setblocking(False)
                util.write_nonblock(client, early_answer(
                    TOO_MANY_CONNECTIONS, f"This worker already holds {by_address[host]} connections from your "
                    "address, as many as one address may hold; reuse them (keep-alive), or retry later."))
            except OSError:
                pass
            util.close(client)
            return None
        by_address[host] += 1
        slot = self.gnau_slot
        if slot is not None:
            _BOARD[slot] += 1
        try:
            return super().handle(listener, client, addr)
        finally:
            if slot is not None:
                _BOARD[slot] -= 1
            by_address[host] -= 1
            if not by_address[host]:
                del by_address[host]

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        """Wait for the event loop's next poll first when it has not polled for :data:`TURN`
        seconds (requests take turns with everything else), then serve the request; an
        answer not taken within the send deadline closes the connection, with one line in
        the log."""
        loop = self._loop
        if loop is None:
            self._loop = loop = gevent.get_hub().loop
        polls = loop.iteration
        if polls != self._polls:
            self._polls, self._polled = polls, time.monotonic()
        elif time.monotonic() - self._polled >= TURN:
            gevent.sleep(_NEXT_POLL)
        try:
            return super().handle_request(listener_name, req, sock, addr)
        except TimeoutError:
            self.log.info("closed a connection from %s: its answer was not read within the send deadline",
                          addr[0] if isinstance(addr, tuple) and addr else "-")
            raise StopIteration from None
