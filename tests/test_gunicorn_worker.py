"""The gunicorn worker (service/gunicorn_worker.py), in process: no gunicorn master, no
sockets but a socket pair, no timing asserted.

- **gunicorn's names it replaces** (``Worker.patch``): each is still defined, with the
  shape the replacement has, and still looked up where the worker expects, in the
  gunicorn that constraints.txt pins; an upgrade that renames or stops looking up one fails here.
- **Turns**: a request that finds the worker's event loop has not polled for ``TURN``
  seconds runs only after the loop has polled, so a connection waiting to be accepted (a
  probe, a new client) is served between long requests, not once per round of them.
- **The heartbeat** is withheld while one request computes past ``GNAU_TIMEOUT``.
- **Connections** are counted on the board and per address; one beyond the address's share
  is answered 503 and closed.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import re
import socket
import time
from types import SimpleNamespace
from typing import Any

import gevent
import gevent.server
import gunicorn.http
import gunicorn.util
import pytest
from gunicorn.workers import base, base_async, ggevent
from gunicorn.workers.ggevent import GeventWorker

from service import gunicorn_worker
from service.gunicorn_board import Board
from service.gunicorn_bounds import AddressShares, bounded_parser
from service.gunicorn_worker import (
    TURN,
    Worker,
    assign_slot,
    balanced_server,
    beats,
    mark_booted,
    metrics_identity,
    release_slot,
    write_problem,
)
from tests import ROOT

#: Where gunicorn looks up each name the worker replaces: ``(module, name)`` -> (the function
#: that looks it up, the text of the lookup in its source, the module whose global it reads).
LOOKUPS: dict[tuple[Any, str], tuple[Any, str, Any]] = {
    (gunicorn.util, "write_error"): (base.Worker.handle_error, "util.write_error(", base),
    (gunicorn.http, "get_parser"): (base_async.AsyncWorker.handle, "http.get_parser(", base_async),
    (ggevent, "StreamServer"): (GeventWorker.run, "StreamServer(", ggevent),
}


def a_worker(slot: int | None = 3) -> Worker:
    """A Worker with its own state only: no process, no sockets, no configuration."""
    worker = Worker.__new__(Worker)
    worker.gnau_slot = slot
    worker._polls, worker._polled = -1, 0.0
    worker._shares = AddressShares(2)
    return worker


@pytest.fixture
def board(monkeypatch: pytest.MonkeyPatch) -> Board:
    """A board of the test's own in the worker module's place (the module's is left alone)."""
    fresh = Board(clock=lambda: 42.0)
    monkeypatch.setattr(gunicorn_worker, "BOARD", fresh)
    return fresh


def test_the_pinned_gunicorn_is_installed() -> None:
    pinned = re.search(r"^gunicorn==(\S+)$", (ROOT / "constraints.txt").read_text(encoding="utf-8"), re.M)
    assert pinned is not None, "constraints.txt pins gunicorn"
    assert importlib.metadata.version("gunicorn") == pinned[1]


def test_each_rebound_gunicorn_name_exists_and_is_looked_up_where_the_worker_expects() -> None:
    rebinds = a_worker().rebinds()
    assert {(module, name) for module, name, _ in rebinds} == set(LOOKUPS), "a rebind without its lookup below"
    for module, name, replacement in rebinds:
        assert hasattr(module, name), f"gunicorn no longer has {module.__name__}.{name}"
        original = getattr(module, name)
        if isinstance(original, type):
            assert isinstance(replacement, type)
            assert issubclass(replacement, original)
        else:
            assert callable(replacement)
            assert inspect.signature(replacement).parameters.keys() == inspect.signature(original).parameters.keys()
        user, lookup, home = LOOKUPS[module, name]
        assert lookup in inspect.getsource(user), f"{user.__qualname__} no longer calls {lookup}...)"
        if home is not module:  # looked up as an attribute of the module, not imported by value
            assert getattr(home, lookup.split(".")[0]) is module


def test_patch_puts_the_workers_names_in_gunicorns_place(monkeypatch: pytest.MonkeyPatch) -> None:
    patched: list[str] = []
    monkeypatch.setattr(GeventWorker, "patch", lambda self: patched.append("gevent"))  # no monkey.patch_all here
    for module, name in LOOKUPS:
        monkeypatch.setattr(module, name, getattr(module, name))  # put back after the test
    a_worker(slot=5).patch()
    assert patched == ["gevent"]
    assert gunicorn.util.write_error is write_problem
    assert gunicorn.http.get_parser is bounded_parser
    assert issubclass(ggevent.StreamServer, gevent.server.StreamServer)
    assert ggevent.StreamServer.slot == 5


def test_each_worker_gets_a_server_class_of_its_own_slot() -> None:
    first, second = balanced_server(0), balanced_server(1)
    assert first is not second
    assert (first.slot, second.slot) == (0, 1)


def test_slots_are_assigned_lowest_free_first_and_freed(board: Board) -> None:
    server = SimpleNamespace(WORKERS={})
    workers = [SimpleNamespace() for _ in range(3)]
    for pid, worker in enumerate(workers):
        assign_slot(server, worker)
        server.WORKERS[pid] = worker
    assert [w.gnau_slot for w in workers] == [0, 1, 2]
    del server.WORKERS[1]
    release_slot(workers[1])
    replacement = SimpleNamespace()
    assign_slot(server, replacement)
    assert replacement.gnau_slot == 1  # the dead worker's slot (and its metrics files)
    mark_booted(workers[0])
    assert beats() == [(True, 42.0), (False, 0.0), (False, 0.0)]
    release_slot(SimpleNamespace())  # a worker that never got a slot: nothing to free
    assert len(beats()) == 3


def test_metrics_files_are_named_by_slot_in_a_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gunicorn_worker, "_own_slot", None)
    assert metrics_identity().isdigit()  # the master (or a test): its pid
    monkeypatch.setattr(gunicorn_worker, "_own_slot", 7)
    assert metrics_identity() == "slot7"


class _Lane:
    def __init__(self, busy: float) -> None:
        self.busy = busy

    def busy_for(self) -> float:
        return self.busy


def test_the_heartbeat_stops_while_one_request_computes_past_the_timeout(
        board: Board, monkeypatch: pytest.MonkeyPatch) -> None:
    notified: list[int] = []
    monkeypatch.setattr(GeventWorker, "notify", lambda self: notified.append(1))
    slot = board.take([])
    worker = a_worker(slot)
    worker.cfg = SimpleNamespace(timeout=30)
    worker.gnau_lane = _Lane(busy=31.0)  # one request has computed for 31 s: no heartbeat
    worker.notify()
    assert (notified, board.beats()) == ([], [(False, 0.0)])
    worker.gnau_lane = _Lane(busy=29.0)  # within the timeout: gunicorn's heartbeat and the board's
    worker.notify()
    assert (notified, board.beats()) == ([1], [(False, 42.0)])
    worker.gnau_lane = None  # no lane (another app): always beats
    worker.notify()
    assert notified == [1, 1]


def test_connections_are_counted_on_the_board_and_per_address(board: Board, monkeypatch: pytest.MonkeyPatch) -> None:
    slot = board.take([])
    worker = a_worker(slot)
    seen: list[tuple[int, int]] = []
    monkeypatch.setattr(GeventWorker, "handle",
                        lambda self, listener, client, addr: seen.append(
                            (board.connections(slot), self._shares.held(addr[0]))))
    worker.handle(None, None, ("10.0.0.1", 40000))
    assert seen == [(1, 1)]
    assert (board.connections(slot), worker._shares.held("10.0.0.1")) == (0, 0)


def test_a_connection_beyond_the_addresss_share_is_answered_503_and_closed(
        board: Board, monkeypatch: pytest.MonkeyPatch) -> None:
    worker = a_worker(board.take([]))
    monkeypatch.setattr(GeventWorker, "handle", lambda *args: pytest.fail("served beyond the share"))
    assert worker._shares.admit("10.0.0.1")
    assert worker._shares.admit("10.0.0.1")
    ours, theirs = socket.socketpair()
    with theirs:
        worker.handle(None, ours, ("10.0.0.1", 40000))
        assert ours.fileno() == -1, "the connection was not closed"
        answer = theirs.recv(65536)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503 ")
    assert b"Content-Type: application/problem+json" in head
    problem = json.loads(body)
    assert (problem["type"], problem["status"]) == ("/problems/too-many-connections", 503)
    assert "2 connections from your address" in problem["detail"]
    assert worker._shares.held("10.0.0.1") == 2  # the refused one was never counted


def test_a_request_after_a_long_one_waits_for_the_loops_next_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    loop = gevent.get_hub().loop
    polls: list[int] = []  # the loop's poll count when each request ran

    def serve(self: Any, *args: Any) -> None:
        polls.append(loop.iteration)

    monkeypatch.setattr(GeventWorker, "handle_request", serve)
    worker = a_worker()  # only the turn-taking state; no process, no sockets
    address = ("127.0.0.2", 40000)

    def requests() -> None:
        worker.handle_request("api", None, None, address)  # the first since a poll: runs at once
        time.sleep(2 * TURN)  # a long request: the thread is busy, the loop cannot poll
        worker.handle_request("api", None, None, address)  # its turn: only after the loop polled
        worker.handle_request("api", None, None, address)  # just after a poll: runs at once

    gevent.spawn(requests).join(timeout=5)
    assert len(polls) == 3
    assert polls[1] > polls[0], "the request after a long one ran before the loop polled"
    assert polls[2] == polls[1]
