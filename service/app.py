"""The Flask application factory."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response

from service import cors, observability
from service.analysis_views import analyses
from service.docs_views import docs
from service.engine.cost import prepare as prepare_analyses
from service.engine.tables import pin_table
from service.problems import register_error_handlers
from service.profiles import ProfileRegistry, load_profiles_file
from service.settings import from_environ
from service.views import api, ops, reject_query_on_reads

__all__ = ["MAX_BODY_BYTES", "ServerState", "create_app"]

#: Request bodies over this size are answered 413.
MAX_BODY_BYTES = 1024 * 1024


@dataclass
class ServerState:
    """What readiness reports: tables built (``ready``), shutting down (``draining``)."""

    ready: bool = False
    draining: bool = False


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the application.

    :param test_config: settings overriding the defaults, e.g. ``{"PROFILES_FILE": path}``.
        Without it ``PROFILES_FILE`` comes from the environment.
    :return: the app, with every profile's evaluation table and analyses already built.
    :raises service.profiles.ProfilesFileError: the operator's profiles file is invalid.
    :raises service.settings.SettingsError: a ``GNAU_*`` variable is invalid.
    :raises service.cors.CorsConfigError: ``GNAU_CORS_ORIGINS`` (or ``CORS_ORIGINS``) is
        not a list of origins.
    """
    app = Flask(__name__)
    app.url_map.merge_slashes = False  # "/v1//evaluations" is a 404, not a redirect
    settings = from_environ()
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        BODY_TIMEOUT=settings.body_timeout,
        ANALYSIS_BUDGET_SECONDS=settings.analysis_budget_seconds,
        ANALYSIS_POOL_SECONDS=settings.analysis_pool_seconds,
        PROFILES_FILE=settings.profiles_file,
    )
    if test_config is not None:
        app.config.update(test_config)
    state = ServerState()
    app.extensions["gnau.state"] = state
    path = app.config["PROFILES_FILE"]
    registry = ProfileRegistry(load_profiles_file(path) if path else [])
    app.extensions["gnau.profiles"] = registry
    observability.install(app)
    cors.install(app)
    app.before_request(reject_query_on_reads)
    app.after_request(_no_sniffing)
    register_error_handlers(app)
    app.register_blueprint(api)
    app.register_blueprint(ops)
    app.register_blueprint(analyses)
    app.register_blueprint(docs)
    for profile in registry.values():
        pin_table(profile.rules)
        prepare_analyses(profile.rules)  # never refused, shared by the workers after fork
    state.ready = True
    return app


def _no_sniffing(response: Response) -> Response:
    """Every response is what its Content-Type says: browsers must not guess (a problem
    body that echoes ``<script>`` stays JSON)."""
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
