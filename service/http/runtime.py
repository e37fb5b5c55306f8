"""The one object the HTTP layer shares between the app factory, the views, the hooks and
gunicorn.conf.py: a :class:`Runtime` under ``app.extensions["gnau"]`` (:data:`RUNTIME_KEY`).

It holds the profiles, the server's state (ready, draining), the analysis budget, the
metrics hook, the CORS origins, the served contract and the receipt keys, built once per app, so nothing is
carried in string-keyed entries that no import shows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from flask import Flask, current_app

from service.http.budget import AnalysisBudget
from service.http.observability import observe_categories
from service.profiles import ProfileRegistry
from service.receipts import ReceiptKeys
from service.settings import Settings

__all__ = ["RUNTIME_KEY", "Runtime", "ServerState", "runtime"]

#: The ``app.extensions`` key of the app's :class:`Runtime`.
RUNTIME_KEY = "gnau"


@dataclass
class ServerState:
    """What readiness reports: tables built (``ready``), shutting down (``draining``)."""

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
    :param receipts: the receipt keys (:mod:`service.receipts`), loaded before the fork.
    :param receipt_operations: the operationId of each route that signs on request, by
        ``(route template, method)`` (:mod:`service.http.receipts`).
    """

    profiles: ProfileRegistry = field(default_factory=ProfileRegistry)
    state: ServerState = field(default_factory=ServerState)
    budget: AnalysisBudget = field(default_factory=_default_budget)
    observe: Callable[[str, Mapping[str, int]], None] = observe_categories
    cors_origins: list[str] = field(default_factory=list)
    openapi: bytes | None = None
    receipts: ReceiptKeys = field(default_factory=ReceiptKeys)
    receipt_operations: Mapping[tuple[str, str], str] = field(default_factory=dict)

    def install(self, app: Flask) -> Runtime:
        """Make this the runtime of ``app``; return it."""
        app.extensions[RUNTIME_KEY] = self
        return self

    @staticmethod
    def of(app: Flask) -> Runtime:
        """The runtime of ``app`` (gunicorn.conf.py's hooks have the app, not a request).

        :raises KeyError: ``app`` has none.
        """
        found: Runtime = app.extensions[RUNTIME_KEY]
        return found


def runtime() -> Runtime:
    """The runtime of the app handling the current request."""
    found: Runtime = current_app.extensions[RUNTIME_KEY]
    return found
