"""The gunicorn worker class the service runs: gevent's, with two changes.

**Balanced accepting.** All workers accept from one listening socket, and keep-alive keeps
each connection on the worker that accepted it. Left alone, whichever worker the kernel
happens to run when a burst of connections arrives takes most of them (a game server that
opens a pool of 16 connections at once can land all 16 on one worker, which then does all
the work while the others idle). Each worker counts its open connections on a small board
shared by all workers (:mod:`service.gunicorn_board`, made in the master before any fork);
a worker that holds more connections than the least loaded live worker holds off
accepting for 2 ms at a time, so the next connection goes to a worker behind it. It never
holds off for more than 200 ms in a row (the others may be busy computing, or not yet
scheduled on a loaded machine), so a connection is never refused and waits at most that.

**Problem details before the app.** Errors gunicorn raises before the app sees a
request (a malformed request line or header, a request line over 4,094 bytes, too many or
too large headers) are answered as problem details like every other error, instead of
gunicorn's small HTML page.

**Bounds on what one client holds.** A worker serves at most ``gnau_address_connections``
connections from one client address at once (a connection beyond is answered ``503
/problems/too-many-connections`` and closed), and a request head is bounded in size and
paced when it trickles (:mod:`service.gunicorn_bounds`). An answer the client does not
take within ``GNAU_SEND_TIMEOUT`` seconds closes its connection
(:mod:`service.http.middleware` sets the deadline; this worker logs it and closes quietly).

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

**Heartbeats on the board.** Each worker also writes on its slot of the board
(:mod:`service.gunicorn_board`) when it has booted (:func:`mark_booted`, from
``post_worker_init``) and the time of every heartbeat, so the master's probe listener
(:mod:`service.gunicorn_probes`) reads the workers' state from shared memory
(:func:`beats`), never from a request.

**gunicorn's names it replaces.** gunicorn looks up three names as it runs, and the worker
puts its own in their place in :meth:`Worker.patch` (gunicorn's hook for a worker's
patches, run in the worker process before it serves; :meth:`Worker.rebinds` lists them),
and a test checks that each is still there, and still looked up, in the pinned gunicorn.

gunicorn.conf.py names it (``worker_class = "service.gunicorn_worker.Worker"``) and gives
each worker its slot on the board (:func:`assign_slot`, from its ``pre_fork`` hook).
"""

from __future__ import annotations

import os
import socket
import time
from types import ModuleType
from typing import Any

import gevent
import gunicorn.http
from gevent.server import StreamServer
from gunicorn import util
from gunicorn.workers import ggevent
from gunicorn.workers.ggevent import GeventWorker

from service.gunicorn_board import BOARD
from service.gunicorn_bounds import AddressShares, address_of, bounded_parser
from service.gunicorn_logging import without_request_text
from service.problems import TOO_MANY_CONNECTIONS, early_answer, for_status

__all__ = ["TURN", "Worker", "assign_slot", "balanced_server", "beats", "mark_booted",
           "metrics_identity", "release_slot", "write_problem"]

#: Seconds the loop may go without polling before a request waits for its next poll (a
#: probe or another connection then waits about this long plus one request per poll).
TURN = 0.005
#: How a request waits for the loop's next poll: a timer this short (timers fire only after
#: the loop has polled; see the module docstring for why not ``gevent.sleep(0)``).
_NEXT_POLL = 1e-6

_HOLD_OFF = 0.002  # seconds a worker ahead of the others waits before it looks again
_MAX_HOLD_OFF = 0.2  # never waits longer than this in a row



def assign_slot(server: Any, worker: Any) -> None:
    """Give ``worker`` the lowest slot no other live worker of ``server`` holds (in the
    master, before the fork); its count starts at 0."""
    worker.gnau_slot = BOARD.take(getattr(w, "gnau_slot", None) for w in server.WORKERS.values())


def release_slot(worker: Any) -> None:
    """Mark a dead worker's slot free (in the master, when the worker has exited)."""
    slot = getattr(worker, "gnau_slot", None)
    if slot is not None:
        BOARD.free(slot)


#: This process's slot, once it is a worker (set as it starts: :meth:`Worker.init_process`).
_own_slot: int | None = None


def metrics_identity() -> str:
    """The name of this process's metrics files: ``slot3`` in the worker of slot 3, else
    the pid (prometheus_client's ``process_identifier``: live processes never share one,
    as no two live workers share a slot)."""
    slot = _own_slot
    return str(os.getpid()) if slot is None else f"slot{slot}"


def mark_booted(worker: Any) -> None:
    """Note on the board that ``worker`` (in its own process) has booted, and beat once."""
    slot = getattr(worker, "gnau_slot", None)
    if slot is not None:
        BOARD.mark_booted(slot)


def beats() -> list[tuple[bool, float]]:
    """Every live worker's ``(booted, time.monotonic() of its last heartbeat)`` (the master's
    probe listener reads these)."""
    return BOARD.beats()


class _BalancedStreamServer(StreamServer):  # type: ignore[misc]
    """gevent's StreamServer that holds off accepting while its worker is ahead."""

    slot: int | None = None
    _held_since: float | None = None

    def _do_read(self) -> None:
        slot = self.slot
        if slot is not None and BOARD.ahead(slot):
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


def balanced_server(slot: int | None) -> type[StreamServer]:
    """gevent's ``StreamServer`` class for the worker of ``slot``: while that worker holds
    more connections than the least loaded other live worker, it holds off accepting for
    2 ms at a time, never more than 200 ms in a row (``None``: no slot, never holds off)."""

    class BalancedStreamServer(_BalancedStreamServer):
        pass

    BalancedStreamServer.slot = slot
    return BalancedStreamServer


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


class Worker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker with balanced accepting, problem-details errors and the
    bounds of the module docstring."""

    gnau_slot: int | None = None
    #: Connections one client address may hold on this worker (set in the master, pre_fork).
    gnau_address_connections: int = 250
    #: The worker's compute lane (gunicorn.conf.py's post_worker_init sets it).
    gnau_lane: Any = None
    _shares: AddressShares
    _polls: int  # the loop's poll count when a request last saw it change ...
    _polled: float  # ... and when (time.monotonic())
    _loop: Any = None  # the worker's event loop (its hub's, made as it runs)

    def init_process(self) -> Any:
        """Set up the worker's own state, then gunicorn's (which calls :meth:`patch`, then
        serves until the worker exits)."""
        global _own_slot
        _own_slot = self.gnau_slot
        self._shares = AddressShares(self.gnau_address_connections)
        self._polls, self._polled = -1, 0.0
        return super().init_process()

    def patch(self) -> None:
        """gevent's patches (gunicorn's), then the worker's own in gunicorn's names
        (:meth:`rebinds`): problem details for errors before the app, bounded request heads,
        balanced accepting."""
        super().patch()
        for module, name, value in self.rebinds():
            setattr(module, name, value)

    def rebinds(self) -> list[tuple[ModuleType, str, object]]:
        """The gunicorn names :meth:`patch` replaces, as ``(module, name, replacement)``:
        gunicorn's base worker answers a request it could not read with
        ``util.write_error`` (:func:`write_problem`), its async worker gets each
        connection's parser from ``http.get_parser`` (:func:`~service.gunicorn_bounds.bounded_parser`),
        and its gevent worker builds its servers from ``ggevent.StreamServer``
        (:func:`balanced_server` of this worker's slot)."""
        return [(util, "write_error", write_problem), (gunicorn.http, "get_parser", bounded_parser),
                (ggevent, "StreamServer", balanced_server(self.gnau_slot))]

    def notify(self) -> None:
        """gunicorn's heartbeat (its file, which the master's timeout watches), also on the
        board; none while one request has computed for longer than ``GNAU_TIMEOUT``."""
        lane = self.gnau_lane
        if lane is not None and lane.busy_for() > self.cfg.timeout:
            return
        super().notify()
        if self.gnau_slot is not None:
            BOARD.beat(self.gnau_slot)

    def handle(self, listener: Any, client: Any, addr: Any) -> Any:
        """Serve one connection: counted on the board and per client address (refused
        with a 503 beyond the address's share)."""
        host = address_of(addr)
        shares = self._shares
        if not shares.admit(host):
            try:
                client.setblocking(False)
                util.write_nonblock(client, early_answer(
                    TOO_MANY_CONNECTIONS, f"This worker already holds {shares.held(host)} connections from your "
                    "address, as many as one address may hold; reuse them (keep-alive), or retry later."))
            except OSError:
                pass
            util.close(client)
            return None
        slot = self.gnau_slot
        if slot is not None:
            BOARD.connected(slot)
        try:
            return super().handle(listener, client, addr)
        finally:
            if slot is not None:
                BOARD.disconnected(slot)
            shares.release(host)

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
                          address_of(addr))
            raise StopIteration from None
