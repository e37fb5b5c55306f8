"""The interactive API reference: Swagger UI over openapi.yaml, served from packaged assets.

``GET /docs`` is a small HTML page that loads Swagger UI from ``/docs/{asset}`` and points
it at ``/openapi.yaml``; ``GET /`` redirects there. The Swagger UI files come from the
``flask-swagger-ui`` wheel (its ``dist`` folder), so the page works without internet; only
the few files the page needs are served, by name, and anything else under ``/docs/`` is a
404 problem like every unknown path.

The spec's first server is relative (``/``), so "Try it out" sends requests to whichever
host and port served the page.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable

from flask import Blueprint, Response, redirect
from werkzeug.wrappers import Response as BaseResponse

from service.engine.text import echo
from service.problems import NOT_FOUND, ProblemError

__all__ = ["ASSETS", "CONTENT_SECURITY_POLICY", "SWAGGER_UI_VERSION", "docs"]

docs = Blueprint("docs", __name__)

_DIST: Traversable = files("flask_swagger_ui").joinpath("dist")

#: The Swagger UI files the page loads, by name, with their media types (openapi: ``docsAsset``).
ASSETS: dict[str, str] = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "index.css": "text/css",
}

#: The packaged Swagger UI release, e.g. ``'v5.34.0'``.
SWAGGER_UI_VERSION = _DIST.joinpath("VERSION").read_text(encoding="utf-8").strip()

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Gnau scoring service: API reference</title>
  <meta name="generator" content="Swagger UI {version}">
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/docs/index.css">
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script>
    window.onload = function () {{
      window.ui = SwaggerUIBundle({{
        url: "/openapi.yaml",
        dom_id: "#swagger-ui",
        deepLinking: true,
        displayOperationId: true,
        displayRequestDuration: true,
        defaultModelsExpandDepth: 0,
        docExpansion: "list",
        presets: [SwaggerUIBundle.presets.apis],
        layout: "BaseLayout"
      }});
    }};
  </script>
</body>
</html>
"""


def _inline_script_hash(page: str) -> str:
    """The CSP source for the page's one inline script: ``'sha256-<base64>'``."""
    script = page.split("<script>", 1)[1].split("</script>", 1)[0]
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"


#: The page's Content-Security-Policy: scripts only from /docs and the one inline starter
#: (by hash), styles from /docs plus Swagger UI's inline styles, requests only to this
#: origin, and never inside a frame (clickjacking).
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; "
    f"script-src 'self' {_inline_script_hash(_PAGE.format(version=SWAGGER_UI_VERSION))}; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@docs.after_request
def _page_protection(response: BaseResponse) -> BaseResponse:
    """The page and its assets: CSP and no framing (``X-Frame-Options`` for old browsers)."""
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Frame-Options"] = "DENY"
    return response


@cache
def _read(asset: str) -> bytes:
    """An asset's bytes, read once per process."""
    return _DIST.joinpath(asset).read_bytes()


@docs.get("/")
def home() -> BaseResponse:
    """The root: a redirect to the API reference (openapi: ``home``)."""
    return redirect("/docs", code=302)


@docs.get("/docs")
def reference() -> Response:
    """The interactive API reference (openapi: ``docsPage``)."""
    page = _PAGE.format(version=SWAGGER_UI_VERSION)
    return Response(page, mimetype="text/html")


@docs.get("/docs/<asset>")
def asset(asset: str) -> Response:
    """One packaged Swagger UI file (openapi: ``docsAsset``); 404 for any other name."""
    mimetype = ASSETS.get(asset)
    if mimetype is None:
        raise ProblemError(NOT_FOUND, f"There is no documentation asset {echo(asset)}; the assets are "
                           f"{', '.join(ASSETS)}.")
    response = Response(_read(asset), mimetype=mimetype)
    response.cache_control.public = True
    response.cache_control.max_age = 3600
    return response
