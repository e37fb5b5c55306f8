"""Opt-in CORS, so that a web game client on another origin can call the API.

Off by default: no ``Access-Control-*`` header is ever sent, and a browser keeps pages of
other origins from reading any answer. The operator turns it on with
``GNAU_CORS_ORIGINS``, a comma-separated list of exact origins (``scheme://host[:port]``,
e.g. ``https://game.example,http://localhost:3000``) or ``*`` for any origin. The service
has no cookies or other credentials, so credentials are never allowed.

Covered: the API (``/v1/...``) and the contract (``/openapi.yaml``). Preflights
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

from service.engine.text import echo

__all__ = ["CORS_ENV", "CorsConfigError", "install", "parse_origins"]

#: The environment variable naming the allowed origins.
CORS_ENV = "GNAU_CORS_ORIGINS"

_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^https?://\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$")
_RESOURCES = (r"/v1/.*", r"/openapi\.yaml")


class CorsConfigError(ValueError):
    """``GNAU_CORS_ORIGINS`` is not a list of origins; the message names the bad entry."""


def parse_origins(value: str | None) -> list[str]:
    """The allowed origins of a ``GNAU_CORS_ORIGINS`` value; empty means CORS is off.

    :param value: comma-separated origins, ``*``, or empty/``None``.
    :return: the origins, in order, without duplicates; ``['*']`` for any origin.
    :raises CorsConfigError: an entry is not ``scheme://host[:port]`` (http or https, no
        path, no trailing slash), or ``*`` is combined with origins.

    >>> parse_origins(None), parse_origins("  ")
    ([], [])
    >>> parse_origins("https://game.example, http://localhost:3000")
    ['https://game.example', 'http://localhost:3000']
    >>> parse_origins("*")
    ['*']
    >>> parse_origins("https://game.example/")
    Traceback (most recent call last):
    ...
    service.cors.CorsConfigError: GNAU_CORS_ORIGINS: 'https://game.example/' is not an origin; write scheme://host[:port] (http or https, no path), e.g. https://game.example
    """
    entries = [e.strip() for e in (value or "").split(",") if e.strip()]
    if entries == ["*"]:
        return entries
    out: list[str] = []
    for entry in entries:
        if entry == "*":
            raise CorsConfigError(f"{CORS_ENV}: '*' (any origin) cannot be combined with a list of origins")
        if not _ORIGIN.match(entry):
            raise CorsConfigError(f"{CORS_ENV}: {echo(entry)} is not an origin; write scheme://host[:port] "
                                  "(http or https, no path), e.g. https://game.example")
        if entry not in out:
            out.append(entry)
    return out


def install(app: Flask, environ: Mapping[str, str] | None = None) -> list[str]:
    """Turn CORS on for the origins in ``app.config["CORS_ORIGINS"]`` or, when that is not
    set, ``GNAU_CORS_ORIGINS``; do nothing when there are none.

    :return: the allowed origins (empty: CORS is off).
    :raises CorsConfigError: the setting is not a list of origins.
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
    app.extensions["gnau.cors_origins"] = origins
    return origins
