"""Heavy requests: admitted per worker, run one at a time on a thread of their own, off the event loop.

A gevent worker runs one greenlet at a time: a request computing for 30 ms (a 10,000-hand
batch) or 1 s (custom rules without a table) holds every other request of the worker, the
heartbeat too, for that long, and requests that arrive together run back to back. So the
operations of large requests run in a :class:`ComputeLane`, one per worker
(gunicorn.conf.py's ``post_worker_init`` installs it; in-process apps use
:class:`InlineLane`, which runs everything where it is asked):

- **off the loop**: the work runs on the lane's one native thread; the event loop keeps
  serving small requests, health and readiness and the heartbeat meanwhile (the thread
  gives up the interpreter lock every 5 ms when the loop needs it), so a small request
  waits milliseconds, not the length of someone else's batch;
- **one at a time, first come first served**: heavy requests wait for the lane in the
  order they came; :meth:`ComputeLane.run` notes how long each waited (the access log's
  ``wait_ms`` and the ``gnau_http_request_wait_seconds`` metric);
- **admitted within bounds**: at most :data:`ADMITTED` heavy requests per worker are in
  progress at once (waiting, computing or being sent: an answer of 2 MB is held until the
  client has read it), at most :data:`ADMITTED_PER_CLIENT` of them from one address, and
  none waits more than :data:`MAX_WAIT` seconds for the lane. Beyond, the answer is at once
  ``503 /problems/server-busy`` with ``Retry-After``: the server is healthy but full, and
  the same request will be served a moment later.

The views decide what is heavy: a request body of :data:`HEAVY_BODY_BYTES` or more (a
batch or ranking of more than about 500 hands), and every analysis that may compute.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from service.errors import InvalidRequestError
from service.http import gc_pause
from service.problems import SERVER_BUSY, ProblemError

__all__ = ["ADMITTED", "ADMITTED_PER_CLIENT", "HEAVY_BODY_BYTES", "MAX_WAIT", "ComputeLane", "InlineLane", "Lane",
           "ServerBusyError"]

T = TypeVar("T")

#: Heavy requests a worker holds at once (waiting, computing or being sent).
ADMITTED = 32
#: Of which at most this many from one client address.
ADMITTED_PER_CLIENT = 16
#: Seconds a heavy request may wait for the lane before it is answered 503.
MAX_WAIT = 10.0
#: A request body this large or larger is heavy (about 500 hands of a batch).
HEAVY_BODY_BYTES = 16 * 1024


class ServerBusyError(ProblemError):
    """503 ``/problems/server-busy`` with ``Retry-After``: the worker holds as many heavy
    requests as it admits (from this address, or in all), or this one waited too long."""

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(SERVER_BUSY, detail, headers={"Retry-After": str(retry_after)})
        self.retry_after = retry_after


class Lane(Protocol):
    """Where a view runs heavy work (:class:`ComputeLane` under gunicorn, :class:`InlineLane`
    in process)."""

    def admit(self, client: str) -> Callable[[], None]:
        """Count one more heavy request of ``client`` in progress; return what ends it
        (idempotent). :raises ServerBusyError: the worker holds as many as it admits."""

    def run(self, work: Callable[[], T], note_wait: Callable[[float], None]) -> T:
        """``work()``'s result; ``note_wait`` is told the seconds it waited for the lane first.
        :raises ServerBusyError: it waited :data:`MAX_WAIT` seconds."""

    def busy_for(self) -> float:
        """Seconds the work now running has run (0 when the lane is idle)."""


class InlineLane:
    """Runs work where it is asked, at once, admitting everything (in-process apps, tests).

    >>> lane = InlineLane(); release = lane.admit("10.0.0.1")
    >>> lane.run(lambda: 6 * 7, print), lane.busy_for(), release()
    0.0
    (42, 0.0, None)
    """

    def admit(self, client: str) -> Callable[[], None]:
        """Admit: nothing to count."""
        return _nothing

    def run(self, work: Callable[[], T], note_wait: Callable[[float], None]) -> T:
        """``work()``, having waited for nothing."""
        note_wait(0.0)
        return work()

    def busy_for(self) -> float:
        """Nothing is ever seen running."""
        return 0.0


def _nothing() -> None:
    return None


def _run_boxed(box: list[Any]) -> None:
    """Replace the work in ``box`` with its outcome: ``(True, result)`` or ``(False, the
    exception it raised)``.

    Nothing of the request passes through gevent's thread pool (its task and result
    objects are freed by the cyclic collector, which may run seconds later: a 2 MB answer
    or a 324 kB body would wait with them), and no exception leaves the pool's function (the
    pool prints those to stderr: a 400's whole message, 10,000 problems on one line). A
    client's error is carried back without its traceback (whose frames hold the request's
    data in a cycle); any other keeps it, for the log of the 500.
    """
    work = box.pop()
    gc_pause.collect()  # garbage of the requests before (gc_pause's docstring)
    try:
        box.append((True, work()))
    except (ProblemError, InvalidRequestError, LookupError) as exc:
        box.append((False, exc.with_traceback(None)))
    except Exception as exc:
        box.append((False, exc))


class ComputeLane:
    """The lane of one gevent worker: admission counts, a one-slot queue and one native thread.

    :param admitted: heavy requests held at once (:data:`ADMITTED`).
    :param per_client: of which from one address (:data:`ADMITTED_PER_CLIENT`).
    :param max_wait: seconds a request may wait for the lane (:data:`MAX_WAIT`).
    :param threaded: run the work on the lane's thread (``False``: in the calling greenlet).
    """

    def __init__(self, admitted: int = ADMITTED, per_client: int = ADMITTED_PER_CLIENT,
                 max_wait: float = MAX_WAIT, threaded: bool = True) -> None:
        from gevent.lock import Semaphore
        from gevent.threadpool import ThreadPool

        self.admitted = admitted
        self.per_client = per_client
        self.max_wait = max_wait
        self.held: Counter[str] = Counter()
        self.total = 0
        self._slot = Semaphore(1)
        self._pool: Any = ThreadPool(1) if threaded else None
        self._since: float | None = None
        self._recent = 0.03  # seconds the last work took (for Retry-After)

    def admit(self, client: str) -> Callable[[], None]:
        """Count one more heavy request of ``client``; return what ends it (call it once the
        answer is sent or abandoned; calling it again does nothing).

        :raises ServerBusyError: the worker holds :attr:`admitted` heavy requests, or
            ``client`` holds :attr:`per_client`.
        """
        if self.total >= self.admitted or self.held[client] >= self.per_client:
            mine = self.held[client] >= self.per_client
            raise ServerBusyError(
                (f"This worker is already working on {self.held[client]} large requests from your address "
                 f"(at most {self.per_client} at once)" if mine else
                 f"This worker is already working on {self.total} large requests (at most {self.admitted} at once)")
                + "; retry in a moment, or send smaller requests.", self._retry_after())
        self.total += 1
        self.held[client] += 1
        done = False

        def release() -> None:
            nonlocal done
            if not done:
                done = True
                self.total -= 1
                self.held[client] -= 1
                if not self.held[client]:
                    del self.held[client]

        return release

    def run(self, work: Callable[[], T], note_wait: Callable[[float], None]) -> T:
        """Wait for the lane (first come, first served), then run ``work`` on its thread.

        :param note_wait: told the seconds the request waited for the lane, before it runs.
        :return: the work's result (its exception is raised here).
        :raises ServerBusyError: the lane was not free within :attr:`max_wait` seconds.
        """
        asked = time.monotonic()
        if not self._slot.acquire(timeout=self.max_wait):
            note_wait(time.monotonic() - asked)
            raise ServerBusyError(f"This request waited {self.max_wait:g} s for the worker's compute lane; "
                                  "retry in a moment.", self._retry_after())
        started = time.monotonic()
        note_wait(started - asked)
        self._since = started
        try:
            if self._pool is None:
                return work()
            box: list[Any] = [work]
            self._pool.apply(_run_boxed, (box,))
            done, value = box.pop()
            if not done:
                raise value
            result: T = value
            return result
        finally:
            self._since = None
            self._recent = time.monotonic() - started
            self._slot.release()

    def busy_for(self) -> float:
        """Seconds the work now running has run (0 when the lane is idle): the worker stops
        its heartbeat when one request computes longer than ``GNAU_TIMEOUT``."""
        since = self._since
        return 0.0 if since is None else time.monotonic() - since

    def _retry_after(self) -> int:
        """Seconds until the lane has likely worked through what it holds (at least 1)."""
        return max(1, math.ceil(self.total * self._recent))
