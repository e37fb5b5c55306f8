"""The compute lane (service/http/compute.py), in process: admission per worker and per
address, one request at a time in the order they came, the wait bound, the lane's thread,
and how long the running work has run (the heartbeat's test). The lane's clock is the
test's own; nothing is timed."""

from __future__ import annotations

import threading
import traceback
from types import SimpleNamespace

import gevent
import pytest
from gevent.event import Event

from service.errors import InvalidRequestError
from service.http import compute, gc_pause
from service.http.compute import ComputeLane, ServerBusyError
from service.http.problems import ProblemError


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 500.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def no_collections(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The full collection the lane's thread runs before each work, counted, not run (it
    takes about a second over the test process's objects; gc_pause is tested on its own)."""
    collected: list[int] = []
    monkeypatch.setattr(gc_pause, "collect", lambda: collected.append(1))
    return collected


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The lane's clock (the module's ``time``), moved by the test."""
    fake = Clock()
    monkeypatch.setattr(compute, "time", SimpleNamespace(monotonic=fake.monotonic))
    return fake


def test_heavy_requests_are_admitted_per_worker_and_per_address() -> None:
    lane = ComputeLane(admitted=3, per_client=2, threaded=False)
    first, _ = lane.admit("10.0.0.1"), lane.admit("10.0.0.1")
    with pytest.raises(ServerBusyError, match="2 large requests from your address \\(at most 2 at once\\)") as mine:
        lane.admit("10.0.0.1")
    lane.admit("10.0.0.2")  # another address: the third the worker holds
    with pytest.raises(ServerBusyError, match="already working on 3 large requests \\(at most 3 at once\\)") as all_:
        lane.admit("10.0.0.3")
    for busy in (mine.value, all_.value):
        assert (busy.status, busy.type, busy.headers) == (503, "/problems/server-busy", {"Retry-After": "1"})
    first()
    first()  # ending twice ends once
    assert (lane.total, dict(lane.held)) == (2, {"10.0.0.1": 1, "10.0.0.2": 1})
    lane.admit("10.0.0.3")  # room again


def test_retry_after_follows_what_the_lane_holds_and_its_last_work(clock: Clock) -> None:
    lane = ComputeLane(admitted=3, per_client=3, threaded=False)

    def work() -> str:
        clock.now += 2.5  # a 2.5 s computation
        return "done"

    assert lane.run(work, lambda waited: None) == "done"
    for _ in range(3):
        lane.admit("10.0.0.1")
    with pytest.raises(ServerBusyError) as busy:
        lane.admit("10.0.0.1")
    assert busy.value.retry_after == 8  # three held, 2.5 s each: 7.5 s, rounded up


def test_the_running_work_is_seen_busy_for_as_long_as_it_has_run(clock: Clock) -> None:
    lane = ComputeLane(threaded=False)
    waits: list[float] = []
    seen: list[float] = []

    def work() -> int:
        clock.now += 31.0
        seen.append(lane.busy_for())
        return 42

    assert lane.busy_for() == 0.0
    assert lane.run(work, waits.append) == 42
    assert (waits, seen, lane.busy_for()) == ([0.0], [31.0], 0.0)


def test_requests_take_the_lane_one_at_a_time_first_come_first_served() -> None:
    lane = ComputeLane(threaded=False)
    release = Event()
    ran: list[str] = []

    def work(name: str) -> None:
        ran.append(f"{name} starts")
        if name == "first":
            release.wait()
        ran.append(f"{name} ends")

    greenlets = [gevent.spawn(lane.run, lambda n=name: work(n), lambda waited: None)
                 for name in ("first", "second", "third")]
    gevent.sleep(0)  # every one has asked; the first holds the lane
    assert ran == ["first starts"]
    release.set()
    gevent.joinall(greenlets, timeout=5, raise_error=True)
    assert ran == ["first starts", "first ends", "second starts", "second ends", "third starts", "third ends"]


def test_a_request_that_cannot_have_the_lane_in_time_is_answered_busy() -> None:
    lane = ComputeLane(max_wait=0.0, threaded=False)
    release = Event()
    holder = gevent.spawn(lane.run, release.wait, lambda waited: None)
    gevent.sleep(0)
    waits: list[float] = []
    with pytest.raises(ServerBusyError, match="waited 0 s for the worker's compute lane"):
        lane.run(lambda: pytest.fail("ran without the lane"), waits.append)
    assert len(waits) == 1, "the wait is noted for a refused request too"
    release.set()
    holder.join(timeout=5)
    assert lane.run(lambda: "free again", lambda waited: None) == "free again"


def test_the_work_runs_on_the_lanes_own_thread(no_collections: list[int]) -> None:
    lane = ComputeLane()
    try:
        threads = {lane.run(threading.get_ident, lambda waited: None) for _ in range(3)}
        assert len(threads) == 1, "one thread for the lane"
        assert threads != {threading.get_ident()}
        assert len(no_collections) == 3, "a collection before each work"
    finally:
        lane._pool.kill()


def work_refused() -> None:
    raise ServerBusyError("bad hand", 1)  # a client's error (any ProblemError)


def work_invalid() -> None:
    raise InvalidRequestError([{"pointer": "/hand", "detail": "bad body"}])


def work_failing() -> None:
    raise ZeroDivisionError("a bug")


def test_errors_come_back_from_the_thread_a_clients_without_its_traceback() -> None:
    lane = ComputeLane()
    try:
        with pytest.raises(ProblemError, match="bad hand") as refused:
            lane.run(work_refused, lambda waited: None)
        with pytest.raises(ZeroDivisionError, match="a bug") as failed:
            lane.run(work_failing, lambda waited: None)
        with pytest.raises(InvalidRequestError, match="bad body") as invalid:
            lane.run(work_invalid, lambda waited: None)
    finally:
        lane._pool.kill()
    for client_error, work in ((refused.value, "work_refused"), (invalid.value, "work_invalid")):
        assert work not in [frame.name for frame in traceback.extract_tb(client_error.__traceback__)]
    assert "work_failing" in [frame.name for frame in traceback.extract_tb(failed.value.__traceback__)], (
        "a server error keeps its traceback for the log")
    assert lane.busy_for() == 0.0
