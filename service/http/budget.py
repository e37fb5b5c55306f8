"""The compute budget of analyses that need uncached work (issue 5).

Every profile's analyses are computed before the workers fork
(:func:`service.http.app.create_app`) and are never refused. Work that is not cached (a
table for custom rules, odds with several decks under rules that use suits) is estimated
by the operations (:func:`~service.engine.analysis.cost.analysis_cost`) and run inside
:meth:`AnalysisBudget.guard`: under :data:`CHEAP_SECONDS` it just runs, above it is paid
from an :class:`AnalysisBudget`: seconds per minute for each client address
(``ANALYSIS_BUDGET_SECONDS``, from ``GNAU_ANALYSIS_BUDGET_SECONDS``, default 10) and for
all clients of the worker (``ANALYSIS_POOL_SECONDS``, default 30). When either is spent
the request is refused at once: ``429 /problems/too-expensive`` with ``Retry-After``; 429
rather than 503: the server is healthy and the same request will be served once the
budget refills (a 5xx would count as a server fault). A budget of 0 turns such work off:
``403 /problems/analysis-disabled``, with no promise of a retry.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

from gevent.monkey import get_original

from service.problems import ANALYSIS_DISABLED, TOO_EXPENSIVE, ProblemError

#: A native lock, whether or not gevent patched ``threading``: budgets are charged on a
#: worker's compute thread (:mod:`service.http.compute`) as well as in its event loop.
_Lock = get_original("threading", "Lock")

__all__ = ["CHEAP_SECONDS", "AnalysisBudget", "AnalysisDisabledError", "ComputeBudget", "TooExpensiveError"]

#: Work estimated under this many seconds runs without being counted (a one-deck odds
#: query under rules that use suits costs about 0.03 s).
CHEAP_SECONDS = 0.1


class ComputeBudget:
    """A token bucket of seconds of uncached analysis work, per process.

    It holds at most ``capacity`` seconds and refills at ``capacity`` per minute. A request
    whose uncached work is estimated at ``cost`` seconds runs when the bucket holds
    ``min(cost, capacity)`` (a full bucket always admits one request); the time it really
    took is then taken out, so the bucket may go negative. Capacity 0 admits nothing.

    >>> b = ComputeBudget(10.0, clock=lambda: 0.0)
    >>> b.admit(0.8), b.admit(30.0)
    (None, None)
    >>> b.charge(12.0); b.admit(0.8)    # 2.8 s short at 10 s a minute
    17
    """

    WINDOW = 60.0

    def __init__(self, capacity: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = capacity
        self.tokens = capacity
        self.clock = clock
        self.stamp = clock()
        self.lock = _Lock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.capacity / self.WINDOW)
        self.stamp = now

    def admit(self, cost: float) -> int | None:
        """``None`` when a request of ``cost`` seconds may run now, else seconds to wait."""
        with self.lock:
            if self.capacity <= 0:
                return int(self.WINDOW)
            self._refill()
            need = min(cost, self.capacity)
            if self.tokens >= need:
                return None
            return max(1, math.ceil((need - self.tokens) * self.WINDOW / self.capacity))

    def charge(self, seconds: float) -> None:
        """Take ``seconds`` of work done out of the bucket."""
        with self.lock:
            self._refill()
            self.tokens -= seconds


class AnalysisBudget:
    """Who may spend how much uncached analysis work, per worker process.

    Every client address has its own :class:`ComputeBudget` of ``per_client`` seconds a
    minute (the 4,096 most recently seen addresses are remembered), and all clients
    together draw on a pool of ``pool`` seconds a minute: a request runs only when both
    its client's bucket and the pool admit it, and its time is charged to both. One
    client can therefore spend at most its own share and never the whole pool when the
    pool is larger than a share (defaults 10 and 30). ``per_client`` 0 turns such work
    off (:class:`AnalysisDisabledError`).

    >>> budget = AnalysisBudget(10.0, 15.0, clock=lambda: 0.0)
    >>> budget.admit("10.0.0.1", 3.0), budget.charge("10.0.0.1", 10.0), budget.admit("10.0.0.1", 3.0)
    (None, None, 18)
    >>> budget.admit("10.0.0.2", 3.0), budget.charge("10.0.0.2", 4.0), budget.admit("10.0.0.3", 3.0)
    (None, None, 8)
    """

    MAX_CLIENTS = 4096

    def __init__(self, per_client: float, pool: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_client = per_client
        self.pool = ComputeBudget(pool, clock)
        self.clock = clock
        self.clients: OrderedDict[str, ComputeBudget] = OrderedDict()
        self.lock = _Lock()

    def _client(self, client: str) -> ComputeBudget:
        with self.lock:
            bucket = self.clients.get(client)
            if bucket is None:
                bucket = self.clients[client] = ComputeBudget(self.per_client, self.clock)
                while len(self.clients) > self.MAX_CLIENTS:
                    self.clients.popitem(last=False)
            self.clients.move_to_end(client)
            return bucket

    def admit(self, client: str, cost: float) -> int | None:
        """``None`` when ``client`` may run ``cost`` seconds of work now, else seconds to wait.

        :raises AnalysisDisabledError: the budget is 0.
        """
        if self.per_client <= 0 or self.pool.capacity <= 0:
            raise AnalysisDisabledError
        waits = [w for w in (self._client(client).admit(cost), self.pool.admit(cost)) if w is not None]
        return max(waits) if waits else None

    def charge(self, client: str, seconds: float) -> None:
        """Take ``seconds`` of work done out of ``client``'s bucket and the pool."""
        self._client(client).charge(seconds)
        self.pool.charge(seconds)

    def guard(self, client: str, cost: float) -> AbstractContextManager[None]:
        """Run cheap work (under :data:`CHEAP_SECONDS`) at once, other work only as
        ``client``'s budget and the pool allow, charging the time it took.

        :raises TooExpensiveError: the budget is spent (on entering).
        :raises AnalysisDisabledError: the budget is 0 (on entering).
        """
        return _CHEAP if cost < CHEAP_SECONDS else self._paid(client, cost)

    @contextmanager
    def _paid(self, client: str, cost: float) -> Iterator[None]:
        wait = self.admit(client, cost)
        if wait is not None:
            raise TooExpensiveError(
                f"This request needs about {cost:.1f} s of uncached work and the budget for such work "
                f"({self.per_client:g} s per minute for each client, {self.pool.capacity:g} s for all) is spent; "
                f"retry in {wait} s, or use a profile's rules (its table and analyses are built).",
                wait)
        started = time.monotonic()
        try:
            yield
        finally:
            self.charge(client, time.monotonic() - started)


#: What cheap work runs in: nothing to admit or charge (one shared, reusable context).
_CHEAP: AbstractContextManager[None] = nullcontext()


class TooExpensiveError(ProblemError):
    """429 ``/problems/too-expensive`` with a ``Retry-After`` header."""

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(TOO_EXPENSIVE, detail, headers={"Retry-After": str(retry_after)})
        self.retry_after = retry_after


class AnalysisDisabledError(ProblemError):
    """403 ``/problems/analysis-disabled``: the operator turned uncached analyses off."""

    def __init__(self) -> None:
        super().__init__(ANALYSIS_DISABLED,
                         "Analyses that need uncached work (custom rules, odds with several decks or from 3 or 4 "
                         "known cards under rules that use suits) are turned off on this server (GNAU_ANALYSIS_BUDGET_SECONDS=0); "
                         "the profiles' cached analyses are served.")
