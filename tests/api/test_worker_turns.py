"""The gunicorn worker's turns between requests (service/gunicorn_worker.py), in process:
a request that finds the worker's event loop has not polled for ``TURN`` seconds runs only
after the loop has polled, so a connection waiting to be accepted (a probe, a new client)
is served between long requests, not once per round of them (issue 22)."""

from __future__ import annotations

import time
from typing import Any

import gevent
import pytest
from gunicorn.workers.ggevent import GeventWorker

from service.gunicorn_worker import TURN, Worker


def test_a_request_after_a_long_one_waits_for_the_loops_next_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    loop = gevent.get_hub().loop
    polls: list[int] = []  # the loop's poll count when each request ran

    def serve(self: Any, *args: Any) -> None:
        polls.append(loop.iteration)

    monkeypatch.setattr(GeventWorker, "handle_request", serve)
    worker = Worker.__new__(Worker)  # only the turn-taking state; no process, no sockets
    worker._polls, worker._polled = -1, 0.0
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
