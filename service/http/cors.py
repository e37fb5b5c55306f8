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

Every answer gets them in one place, at the WSGI layer (:class:`Cors`, called by
:class:`service.http.middleware.EveryAnswer`), whoever made it: the route table's dispatcher
or Flask. Which headers is flask-cors's own logic (:mod:`flask_cors.core`), with the
options its extension would be given.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from flask import Flask
from flask_cors.core import ACL_ORIGIN, get_cors_headers, get_cors_options, parse_resources, try_match_pattern
from werkzeug.datastructures import EnvironHeaders
from werkzeug.http import parse_set_header

from service.settings import CORS_ENV, parse_origins

__all__ = ["Cors", "install"]

_RESOURCES = (r"/v1/.*", r"/openapi\.yaml", r"/\.well-known/jwks\.json")


class Cors:
    """The CORS headers of the answers of an app (see the module) for ``origins``.

    :param app: the Flask app (flask-cors reads its ``CORS_*`` config, as its extension does).
    :param origins: the allowed origins (``["*"]``: any).
    """

    def __init__(self, app: Flask, origins: list[str]) -> None:
        options: dict[str, Any] = {
            "origins": origins, "methods": ["GET", "POST"], "allow_headers": ["Content-Type", "X-Request-ID"],
            "expose_headers": ["X-Request-ID"], "supports_credentials": False, "max_age": 600,
            # ``Vary: Origin`` is added by :meth:`add` on every covered path, once:
            "vary_header": False,
            "send_wildcard": origins == ["*"], "always_send": False,
        }
        self.origins = origins
        self.resources = [(pattern, get_cors_options(app, options, own))
                          for pattern, own in parse_resources({path: {} for path in _RESOURCES})]
        self.covered = [re.compile(path) for path in _RESOURCES]

    def add(self, environ: dict[str, Any], headers: list[tuple[str, str]]) -> None:
        """Add to ``headers`` (an answer's, in WSGI form) what CORS adds to the answer to the
        request of ``environ``: on a covered path, ``Vary: Origin`` (allowed or not, so a
        shared cache never serves one origin's answer to another); then flask-cors's headers
        for the first resource that matches (none when the origin is not allowed)."""
        path = _path(environ)
        if any(p.fullmatch(path) for p in self.covered):
            _vary_on_origin(headers)
        if any(name == ACL_ORIGIN for name, _ in headers):
            return
        normalized = unquote(path)
        for pattern, options in self.resources:
            if try_match_pattern(normalized, pattern, caseSensitive=True):
                found = get_cors_headers(options, EnvironHeaders(environ), environ.get("REQUEST_METHOD", ""))
                headers.extend((name, str(value)) for name, value in found.items())
                return


def _path(environ: Mapping[str, Any]) -> str:
    """The request's path as Werkzeug reads it (``request.path``)."""
    raw: str = environ.get("PATH_INFO") or ""
    with contextlib.suppress(UnicodeEncodeError):  # already text (never from a WSGI server)
        raw = raw.encode("latin-1").decode("utf-8", "replace")
    return "/" + raw.lstrip("/")


def _vary_on_origin(headers: list[tuple[str, str]]) -> None:
    """``Origin`` added to the answer's ``Vary`` (once), as Werkzeug's ``response.vary.add``."""
    for i, (name, value) in enumerate(headers):
        if name.lower() == "vary":
            found = parse_set_header(value)
            if "Origin" not in found:
                found.add("Origin")
                headers[i] = (name, found.to_header())
            return
    headers.append(("Vary", "Origin"))


def install(app: Flask, environ: Mapping[str, str] | None = None) -> Cors | None:
    """CORS for the origins in ``app.config["CORS_ORIGINS"]`` or, when that is not set,
    ``GNAU_CORS_ORIGINS``; ``None`` when there are none (CORS off).

    :raises service.settings.CorsConfigError: the setting is not a list of origins.
    """
    configured: Any = app.config.get("CORS_ORIGINS")
    source = (environ if environ is not None else os.environ).get(CORS_ENV) if configured is None else configured
    origins = parse_origins(source)
    return Cors(app, origins) if origins else None
