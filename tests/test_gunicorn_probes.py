"""The supervision the probe listener answers from (service/gunicorn_probes.py), in process,
on a clock of the test's own: warming, the master's loop, the workers' heartbeats, draining;
the answers to probe request lines; and the two Arbiter names wrapped by
``watch_arbiter``, checked against the pinned gunicorn's Arbiter."""

from __future__ import annotations

import inspect
import json

from gunicorn.arbiter import Arbiter

from service.gunicorn_probes import (
    MASTER_SILENCE,
    READY_SILENCE,
    WARM_SILENCE,
    Beat,
    Supervision,
    respond,
    watch_arbiter,
)

TIMEOUT = 30.0


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def supervised(workers: list[Beat]) -> tuple[Supervision, Clock]:
    clock = Clock()
    return Supervision(TIMEOUT, lambda: workers, clock=clock), clock


def test_warming_is_live_while_it_progresses_and_never_ready() -> None:
    workers: list[Beat] = []
    s, clock = supervised(workers)
    s.warmed(0, 3)
    clock.now += WARM_SILENCE  # a profile may take this long
    assert s.health() is None
    assert s.readiness() == "warming the profiles' tables and analyses (0 of 3 done)"
    s.warmed(1, 3)  # progress: the silence starts again
    clock.now += WARM_SILENCE + 1
    assert s.health() == f"warming has made no progress for {WARM_SILENCE + 1:.0f} s"
    assert s.readiness() == s.health()


def test_after_warming_the_master_and_a_booted_worker_must_beat() -> None:
    workers = [Beat(booted=False, last=0.0)]
    s, clock = supervised(workers)
    s.warmed(2, 2)
    assert s.warming is None
    assert s.health() is None  # warming just ended: everyone is given a fresh start
    assert s.readiness() == "no worker has booted yet"
    workers[0] = Beat(booted=True, last=clock.now)
    assert s.readiness() is None
    clock.now += READY_SILENCE + 1  # the worker has not beaten since; the master's loop has run
    s.master_ran()
    assert s.health() is None, "a worker silent for less than the timeout is live"
    assert s.readiness() == f"no worker has sent a heartbeat for {READY_SILENCE + 1:.0f} s"
    clock.now += TIMEOUT
    s.master_ran()
    assert s.health() == f"no worker has sent a heartbeat for {TIMEOUT + READY_SILENCE + 1:.0f} s"
    workers.append(Beat(booted=True, last=clock.now))  # a replacement worker beats
    assert (s.health(), s.readiness()) == (None, None)


def test_a_worker_that_has_not_booted_does_not_count() -> None:
    s, clock = supervised([Beat(booted=False, last=1000.0 + 2 * TIMEOUT)])
    s.warmed(1, 1)
    clock.now += TIMEOUT + 1
    s.master_ran()
    assert s.health() == f"no worker has sent a heartbeat for {TIMEOUT + 1:.0f} s"


def test_a_stopped_master_loop_fails_liveness() -> None:
    s, clock = supervised([Beat(booted=True, last=1000.0)])
    s.warmed(1, 1)
    clock.now += MASTER_SILENCE + 2
    assert s.health() == f"the master has not run its loop for {MASTER_SILENCE + 2:.0f} s"


def test_draining_is_live_and_not_ready() -> None:
    s, clock = supervised([])
    s.warmed(1, 1)
    clock.now += 10 * TIMEOUT  # nothing beats any more while the master stops
    s.draining = True
    assert s.health() is None
    assert s.readiness() == "the server is draining after a shutdown signal"


def status(answer: bytes) -> bytes:
    return answer.split(b"\r\n", 1)[0]


def test_the_probe_answers() -> None:
    s, _ = supervised([Beat(booted=True, last=1000.0)])
    s.warmed(1, 1)
    assert status(respond(s, b"GET /healthz HTTP/1.1")) == b"HTTP/1.1 200 OK"
    assert json.loads(respond(s, b"GET /readyz HTTP/1.1").partition(b"\r\n\r\n")[2]) == {"status": "ready"}
    head = respond(s, b"HEAD /readyz HTTP/1.1")
    assert head.endswith(b"\r\n\r\n"), "HEAD answers the head only"
    assert b"Content-Length: 18\r\n" in head
    assert status(respond(s, b"GET /metrics HTTP/1.1")) == b"HTTP/1.1 404 Not Found"
    assert status(respond(s, b"DELETE /readyz HTTP/1.1")) == b"HTTP/1.1 405 Method Not Allowed"
    s.draining = True
    answer = respond(s, b"GET /readyz HTTP/1.1")
    assert status(answer) == b"HTTP/1.1 503 Service Unavailable"
    assert b"Content-Type: application/problem+json" in answer
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["type"] == "/problems/not-ready"


class FakeArbiter:
    """The two methods of gunicorn's Arbiter that ``watch_arbiter`` wraps, recording calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def murder_workers(self) -> None:
        self.calls.append("murder_workers")

    def stop(self, graceful: bool = True) -> None:
        self.calls.append(f"stop({graceful})")


def test_watching_the_arbiter_notes_its_loop_and_its_shutdown() -> None:
    s, clock = supervised([Beat(booted=True, last=1000.0)])
    s.warmed(1, 1)
    arbiter = FakeArbiter()
    watch_arbiter(arbiter, s)
    watch_arbiter(arbiter, s)  # again (a reload): nothing more is wrapped
    clock.now += MASTER_SILENCE + 5
    arbiter.murder_workers()  # a run of the master's loop
    assert s.master_beat == clock.now
    assert arbiter.calls == ["murder_workers"], "gunicorn's own method still runs, once"
    arbiter.stop(False)
    assert s.draining
    assert arbiter.calls == ["murder_workers", "stop(False)"]
    arbiter.stop()
    assert arbiter.calls[-1] == "stop(True)"


def test_the_pinned_gunicorns_arbiter_calls_the_wrapped_names() -> None:
    # Its loop calls murder_workers on every run, and stop on SIGINT and SIGQUIT, and on
    # halt (SIGTERM raises StopIteration, which halts): watch_arbiter relies on both names.
    assert "self.murder_workers()" in inspect.getsource(Arbiter.run)
    assert "self.stop()" in inspect.getsource(Arbiter.halt)
    for handler in (Arbiter.handle_int, Arbiter.handle_quit):
        assert "self.stop(False)" in inspect.getsource(handler)
    assert "raise StopIteration" in inspect.getsource(Arbiter.handle_term)
    assert list(inspect.signature(Arbiter.stop).parameters) == ["self", "graceful"]
