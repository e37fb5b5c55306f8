"""Problem details (RFC 9457) for every error the service returns.

Every 4xx and 5xx answer is ``application/problem+json`` with ``type`` (a relative URI),
``title``, ``status``, ``detail``, ``instance`` (the path) and ``request_id``; a 400 also
lists every problem in ``errors``, each with a ``pointer`` into the body or the name of a
query ``parameter``. No stack trace ever leaves the process.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

import orjson
from flask import Flask, request
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response

from service.engine.text import clip, echo
from service.errors import ErrorItem, InvalidRequestError
from service.http.observability import request_id
from service.profiles import UnknownProfileError

__all__ = [
    "ProblemError",
    "problem_response",
    "register_error_handlers",
    "sorted_methods",
    "validation_problem",
]

PROBLEM_MEDIA_TYPE = "application/problem+json"

_log = logging.getLogger("service.errors")

_TYPES: dict[int, tuple[str, str]] = {
    400: ("/problems/bad-request", "Bad request"),
    404: ("/problems/not-found", "Not found"),
    405: ("/problems/method-not-allowed", "Method not allowed"),
    406: ("/problems/not-acceptable", "Not acceptable"),
    413: ("/problems/payload-too-large", "Payload too large"),
    415: ("/problems/unsupported-media-type", "Unsupported media type"),
    500: ("/problems/internal-error", "Internal server error"),
    503: ("/problems/not-ready", "Service unavailable"),
}


class ProblemError(Exception):
    """An error to answer as problem details.

    :param status: the HTTP status.
    :param type_: the problem type URI, e.g. ``/problems/validation-error``.
    :param title: a short summary of the problem type.
    :param detail: this occurrence, in a sentence.
    :param errors: for a 400, every problem with its ``pointer`` or ``parameter``.
    :param headers: headers of the answer, e.g. ``Retry-After``.
    """

    def __init__(self, status: int, type_: str, title: str, detail: str,
                 errors: list[ErrorItem] | None = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.type = type_
        self.title = title
        self.detail = detail
        self.errors = errors
        self.headers = headers or {}


#: A 400 lists at most this many problems (the ``detail`` gives the total).
MAX_LISTED_ERRORS = 100
#: The most characters of an error item's pointer, parameter or detail, and of a detail:
#: messages quote the caller's values through :func:`service.engine.text.echo` already;
#: this bounds everything else, so a problem body is at most about 60 kB.
_ITEM_LIMIT = 240
_DETAIL_LIMIT = 1000


def validation_problem(errors: Iterable[ErrorItem]) -> ProblemError:
    """A 400 listing every problem, or the first :data:`MAX_LISTED_ERRORS` of them."""
    items = list(errors)
    n = len(items)
    if n == 1:
        detail = items[0]["detail"]
    elif n > MAX_LISTED_ERRORS:
        detail = f"The request has {n} problems; the first {MAX_LISTED_ERRORS} are listed in errors."
        items = items[:MAX_LISTED_ERRORS]
    else:
        detail = f"The request has {n} problems; see errors."
    return ProblemError(400, "/problems/validation-error", "Invalid request", detail, items)


def problem_response(status: int, detail: str, *, type_: str | None = None,
                     title: str | None = None, errors: list[ErrorItem] | None = None,
                     base: Response | None = None) -> Response:
    """Build a problem-details response.

    :param base: a response whose headers (e.g. ``Allow``) are kept.
    """
    default_type, default_title = _TYPES.get(status, (f"/problems/http-{status}", "Error"))
    body: dict[str, Any] = {
        "type": type_ or default_type,
        "title": title or default_title,
        "status": status,
        "detail": clip(detail, _DETAIL_LIMIT),
        "instance": clip(request.path, _ITEM_LIMIT),
        "request_id": request_id(),
    }
    if errors is not None:
        # The last bound on echoes: a pointer may hold a key the caller made up.
        body["errors"] = [{k: clip(v, _ITEM_LIMIT) for k, v in item.items()} for item in errors]
    response = base if base is not None else Response()
    response.status_code = status
    try:
        data = orjson.dumps(body)
    except TypeError:  # e.g. a lone surrogate echoed from the request: escape, never fail
        data = json.dumps(body, ensure_ascii=True).encode()
    response.set_data(data)
    response.mimetype = PROBLEM_MEDIA_TYPE
    return response


def sorted_methods(allow: str) -> str:
    """An ``Allow`` value with its methods sorted: Werkzeug lists them from a set, whose
    order varies with string hashing between processes, and every worker must answer alike.

    >>> sorted_methods("POST, OPTIONS")
    'OPTIONS, POST'
    """
    return ", ".join(sorted(m.strip() for m in allow.split(",") if m.strip()))


def register_error_handlers(app: Flask) -> None:
    """Answer every error raised in ``app`` as problem details."""

    @app.errorhandler(ProblemError)
    def _api_problem(exc: ProblemError) -> Response:
        response = problem_response(exc.status, exc.detail, type_=exc.type, title=exc.title, errors=exc.errors)
        response.headers.update(exc.headers)
        return response

    @app.errorhandler(InvalidRequestError)
    def _invalid(exc: InvalidRequestError) -> Response:
        return _api_problem(validation_problem(exc.errors))

    @app.errorhandler(UnknownProfileError)
    def _unknown_profile(exc: UnknownProfileError) -> Response:
        return _api_problem(ProblemError(404, "/problems/unknown-profile", "Unknown profile",
                                         f"There is no profile {echo(exc.name)}; see {exc.listing}."))

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        status = exc.code or 500
        base = exc.get_response()  # keeps headers such as Allow on a 405
        if status == 404:
            detail = f"There is no resource at {request.path}."
        elif status == 405:
            allowed = sorted_methods(base.headers.get("Allow", ""))
            detail = f"{request.method} is not allowed on {request.path}; allowed: {allowed}."
        elif status == 413:
            detail = "The request body is over the 1 MiB limit."
        else:
            detail = exc.description or exc.name
        return problem_response(status, detail, base=base)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        _log.exception("unhandled error on %s %s", request.method, request.path)
        return problem_response(500, "The server failed to handle the request; it has been logged.")
