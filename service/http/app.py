"""The application factory: the Flask app, its URL map built from the route table
(:mod:`service.http.routes`), and around it, at the WSGI layer, the table's dispatcher and
what every answer carries (:class:`~service.http.middleware.EveryAnswer`).

No Flask hook applies to the route table's ``POST`` routes (the dispatcher answers them
before Flask): what every answer needs is added at the WSGI layer, and a test keeps the
app's hooks to the ones listed there."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask

from service.http import cors, observability
from service.http.budget import AnalysisBudget
from service.http.docs import docs
from service.http.middleware import EveryAnswer
from service.http.ops import ops, reject_query_on_reads
from service.http.problems import register_error_handlers
from service.http.receipts import install_receipts, receipts
from service.http.routes import ROUTES, Dispatcher, add_routes
from service.http.runtime import Runtime, ServerState
from service.json_text import MAX_BODY_BYTES
from service.profiles import load_registry
from service.settings import from_environ

__all__ = ["ServiceFlask", "create_app"]


class ServiceFlask(Flask):
    """Flask, without the bridge to ``async`` views: every view and hook here is a plain
    function (a test checks), so Flask need not inspect each one on every request (about
    2 µs a hook, and a request passes five)."""

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """``func`` itself: nothing registered here is a coroutine function."""
        return func


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the application.

    :param test_config: settings overriding the defaults, e.g. ``{"PROFILES_FILE": path}`` or
        ``{"RECEIPT_KEY_FILE": path}``. Without it ``PROFILES_FILE``, ``RECEIPT_KEY_FILE`` and
        ``RECEIPT_PUBLIC_KEYS`` come from the environment (``GNAU_RECEIPT_*``).
    :return: the app; its :class:`~service.http.runtime.Runtime` is ``Runtime.of(app)``.
        Nothing is computed here (a few hundred milliseconds): the profiles' tables and
        analyses are built by :meth:`Runtime.warm <service.http.runtime.Runtime.warm>`,
        which the gunicorn master calls before it forks; until then ``/readyz`` answers 503.
    :raises service.profiles.ProfilesFileError: the operator's profiles file is invalid.
    :raises service.settings.SettingsError: a ``GNAU_*`` variable is invalid.
    :raises service.receipts.ReceiptKeyError: a receipt key file given in ``test_config`` cannot be used.
    :raises service.settings.CorsConfigError: ``GNAU_CORS_ORIGINS`` (or ``CORS_ORIGINS``) is
        not a list of origins.
    """
    app = ServiceFlask(__name__)
    app.url_map.merge_slashes = False  # "/v1//evaluations" is a 404, not a redirect
    settings = from_environ()
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,  # larger bodies are answered 413
        BODY_TIMEOUT=settings.body_timeout,
        ANALYSIS_BUDGET_SECONDS=settings.analysis_budget_seconds,
        ANALYSIS_POOL_SECONDS=settings.analysis_pool_seconds,
        PROFILES_FILE=settings.profiles_file,
        RECEIPT_KEY_FILE=settings.receipt_key_file,
        RECEIPT_PUBLIC_KEYS=settings.receipt_public_keys,
    )
    if test_config is not None:
        app.config.update(test_config)
    rt = Runtime(
        profiles=load_registry(app.config["PROFILES_FILE"] or ""),
        state=ServerState(),
        budget=AnalysisBudget(float(app.config["ANALYSIS_BUDGET_SECONDS"]),
                              float(app.config["ANALYSIS_POOL_SECONDS"])),
    ).install(app)
    install_receipts(rt, app.config["RECEIPT_KEY_FILE"], app.config["RECEIPT_PUBLIC_KEYS"])
    observability.install(app)
    policy = cors.install(app)
    rt.cors_origins = policy.origins if policy is not None else []
    app.before_request(reject_query_on_reads)
    register_error_handlers(app)
    add_routes(app, rt, ROUTES)
    for blueprint in (ops, receipts, docs):
        app.register_blueprint(blueprint)
    dispatcher = Dispatcher(ROUTES, app.wsgi_app, rt, app.config)
    app.wsgi_app = EveryAnswer(dispatcher, settings.send_timeout, policy)  # type: ignore[method-assign]
    return app

