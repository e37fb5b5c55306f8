"""Opt-in CORS, so that a web game client on another origin can call the API.

Off by default: no ``Access-Control-*`` header is ever sent, and a browser keeps pages of
other origins from reading any answer. The operator turns it on with
``GNAU_CORS_ORIGINS``, a comma-separated list of exact origins (``scheme://host[:port]``,
e.g. ``https://game.example,http://localhost:3000``) or ``*`` for any origin. The service
has no cookies or other credentials, so credentials are never allowed.

Covered: the API (``/v1/...``), the contract (``/openapi.yaml``) and the receipt keys
(``/.well-known/jwks.json``, so that a page can verify a receipt). Preflights
(``OPTIONS``) answer with the allowed methods (GET, POST) and request headers
(``Content-Type``, ``X-Request-ID``), cached by the browser for ten minutes; answers expose
``X-Request-ID`` to the page.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, request
from flask_cors import CORS

from service.settings import CORS_ENV, parse_origins

__all__ = ["install"]

_RESOURCES = (r"/v1/.*", r"/openapi\.yaml", r"/\.well-known/jwks\.json")


def install(app: Flask, environ: Mapping[str, str] | None = None) -> list[str]:
    """Turn CORS on for the origins in ``app.config["CORS_ORIGINS"]`` or, when that is not
    set, ``GNAU_CORS_ORIGINS``; do nothing when there are none.

    :return: the allowed origins (empty: CORS is off).
    :raises service.settings.CorsConfigError: the setting is not a list of origins.
    """
    configured: Any = app.config.get("CORS_ORIGINS")
    source = (environ if environ is not None else os.environ).get(CORS_ENV) if configured is None else configured
    origins = parse_origins(source)
    if origins:
        CORS(app, resources={path: {} for path in _RESOURCES}, origins=origins, methods=["GET", "POST"],
             allow_headers=["Content-Type", "X-Request-ID"], expose_headers=["X-Request-ID"],
             supports_credentials=False, max_age=600, vary_header=True, send_wildcard=origins == ["*"],
             always_send=False)

        @app.after_request
        def _vary_on_origin(response: Response) -> Response:
            """Every answer on a covered path varies with ``Origin`` (allowed or not), so a
            shared cache never serves one origin's answer to another."""
            if any(re.fullmatch(path, request.path) for path in _RESOURCES):
                response.vary.add("Origin")
            return response
    return origins
