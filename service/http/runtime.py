"""The one object the HTTP layer shares between the app factory, the views, the hooks and
gunicorn.conf.py: a :class:`Runtime` under ``app.extensions["gnau"]`` (:data:`RUNTIME_KEY`).

It holds the profiles, the server's state (ready, draining), the analysis budget, the
metrics hook, the CORS origins, the served contract and the receipt keys, built once per app, so nothing is
carried in string-keyed entries that no import shows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import Flask

from service.http.budget import AnalysisBudget
from service.http.compute import InlineLane, Lane
from service.http.observability import observe_categories
from service.logs import WAIT_KEY
from service.operations.warming import Warmed, warm
from service.profiles import ProfileRegistry
from service.receipts import ReceiptKeys
from service.settings import Settings

__all__ = ["RELEASE_KEY", "RUNTIME_KEY", "Runtime", "ServerState"]

#: The ``app.extensions`` key of the app's :class:`Runtime`.
RUNTIME_KEY = "gnau"
#: Where a heavy request keeps, in the WSGI environment, what ends its admission
#: (:meth:`Runtime.compute`); the WSGI layer calls it once the answer is sent.
RELEASE_KEY = "gnau.release"

T = TypeVar("T")


@dataclass
class ServerState:
    """What readiness reports: every profile warmed (``ready``, set by :meth:`Runtime.warm`),
    shutting down (``draining``)."""

    ready: bool = False
    draining: bool = False


def _default_budget() -> AnalysisBudget:
    return AnalysisBudget(Settings.analysis_budget_seconds, Settings.analysis_pool_seconds)


@dataclass
class Runtime:
    """Everything an app's requests share (one per app, so one per worker after the fork).

    :param profiles: the built-in and the operator's profiles.
    :param state: readiness and draining (gunicorn.conf.py's SIGTERM hook sets ``draining``).
    :param budget: the compute budget of uncached analyses (per worker).
    :param observe: counts evaluated hands: ``observe(profile name, {category: hands})``.
    :param cors_origins: the origins allowed by CORS (empty: CORS is off).
    :param openapi: the contract as served (with the operator's profiles), built on first use.
    :param lane: where heavy work runs (:mod:`service.http.compute`): the worker's compute
        lane under gunicorn (gunicorn.conf.py installs it after the fork), else inline.
    :param receipts: the receipt keys (:mod:`service.receipts`), loaded before the fork.
    """

    profiles: ProfileRegistry = field(default_factory=ProfileRegistry)
    state: ServerState = field(default_factory=ServerState)
    budget: AnalysisBudget = field(default_factory=_default_budget)
    observe: Callable[[str, Mapping[str, int]], None] = observe_categories
    cors_origins: list[str] = field(default_factory=list)
    openapi: bytes | None = None
    lane: Lane = field(default_factory=InlineLane)

    def compute(self, work: Callable[[], T], *, heavy: bool, environ: dict[str, Any]) -> T:
        """``work()`` for the request of ``environ`` (its WSGI environment): at once when it is light, else admitted to the worker's compute lane
        and run there (its wait noted for the access log and the metrics; its admission ends
        when the answer is sent, :data:`RELEASE_KEY`).

        :raises service.http.compute.ServerBusyError: not admitted, or it waited too long.
        """
        if not heavy:
            return work()
        environ[RELEASE_KEY] = self.lane.admit(environ.get("REMOTE_ADDR") or "-")

        def note(waited: float) -> None:
            environ[WAIT_KEY] = waited

        return self.lane.run(work, note)

    def warm(self, progress: Callable[[int, int], None] | None = None) -> Warmed:
        """Build every profile's table and analyses (:func:`service.operations.warming.warm`),
        then let readiness answer 200: the gunicorn master calls this once before it forks
        (so the workers share what it built, and each is ready from its first request);
        tests that need warm tables call it. Nothing else sets ``state.ready``.

        :param progress: told ``(profiles done, profiles in all)`` as it goes (the master's
            liveness watches it).
        """
        warmed = warm(self.profiles, progress)
        self.state.ready = True
        return warmed
    receipts: ReceiptKeys = field(default_factory=ReceiptKeys)

    def install(self, app: Flask) -> Runtime:
        """Make this the runtime of ``app``; return it."""
        app.extensions[RUNTIME_KEY] = self
        return self

    @staticmethod
    def of(app: Flask) -> Runtime:
        """The runtime of ``app`` (views: ``Runtime.of(current_app)``).

        :raises KeyError: ``app`` has none.
        """
        found: Runtime = app.extensions[RUNTIME_KEY]
        return found

