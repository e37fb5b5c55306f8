"""Problem details (RFC 9457) for every error the service returns.

Every 4xx and 5xx answer is ``application/problem+json`` with ``type`` (a relative URI),
``title``, ``status``, ``detail``, ``instance`` (the path) and ``request_id``; a 400 also
lists every problem in ``errors``, each with a ``pointer`` into the body or the name of a
query ``parameter``. No stack trace ever leaves the process.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from flask import Flask, request
from werkzeug.exceptions import HTTPException
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.wrappers import Response

from service.engine.text import clip, echo
from service.errors import ErrorItem, InvalidRequestError
from service.http.observability import request_id
from service.profiles import UnknownProfileError

__all__ = [
    "ProblemError",
    "as_problem",
    "problem_answer",
    "problem_response",
    "problem_text",
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


def problem_text(status: int, detail: str, instance: str, request_id: str, *, type_: str | None = None,
                 title: str | None = None, errors: list[ErrorItem] | None = None) -> bytes:
    """A problem-details body (JSON text) with no request context: ``instance`` is the
    request's path, ``request_id`` its id.

    >>> problem_text(404, "There is no resource at /x.", "/x", "abc")
    b'{"type":"/problems/not-found","title":"Not found","status":404,"detail":"There is no resource at /x.","instance":"/x","request_id":"abc"}'
    """
    default_type, default_title = _TYPES.get(status, (f"/problems/http-{status}", "Error"))
    body: dict[str, Any] = {
        "type": type_ or default_type,
        "title": title or default_title,
        "status": status,
        "detail": clip(detail, _DETAIL_LIMIT),
        "instance": clip(instance, _ITEM_LIMIT),
        "request_id": request_id,
    }
    if errors is not None:
        # The last bound on echoes: a pointer may hold a key the caller made up.
        body["errors"] = [{k: clip(v, _ITEM_LIMIT) for k, v in item.items()} for item in errors]
    try:
        return orjson.dumps(body)
    except TypeError:  # e.g. a lone surrogate echoed from the request: escape, never fail
        return json.dumps(body, ensure_ascii=True).encode()


def problem_response(status: int, detail: str, *, type_: str | None = None,
                     title: str | None = None, errors: list[ErrorItem] | None = None,
                     base: Response | None = None) -> Response:
    """Build a problem-details response for the current request (:func:`problem_text`).

    :param base: a response whose headers (e.g. ``Allow``) are kept.
    """
    response = base if base is not None else Response()
    response.status_code = status
    response.set_data(problem_text(status, detail, request.path, request_id(request.environ), type_=type_, title=title,
                                   errors=errors))
    response.mimetype = PROBLEM_MEDIA_TYPE
    return response


def as_problem(exc: Exception) -> ProblemError | None:
    """The problem an exception raised while answering stands for: a :class:`ProblemError`
    itself, a refused request (400), an unknown profile (404); ``None`` for anything else
    (a bug: a 500)."""
    if isinstance(exc, ProblemError):
        return exc
    if isinstance(exc, InvalidRequestError):
        return validation_problem(exc.errors)
    if isinstance(exc, UnknownProfileError):
        return ProblemError(404, "/problems/unknown-profile", "Unknown profile",
                            f"There is no profile {echo(exc.name)}; see {exc.listing}.")
    return None


def problem_answer(exc: Exception, environ: Mapping[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
    """What ``exc``, raised while answering the request of ``environ`` (its WSGI
    environment), is answered with outside Flask: the status line, the headers and the body,
    the same as Flask's error handlers (:func:`register_error_handlers`) answer. Anything
    but a problem is logged with its traceback and answered 500, without it."""
    problem = as_problem(exc)
    path = environ.get("PATH_INFO", "")
    if problem is None:
        _log.error("unhandled error on %s %s", environ.get("REQUEST_METHOD"), path, exc_info=exc)
        problem = ProblemError(500, *_TYPES[500], "The server failed to handle the request; it has been logged.")
    text = problem_text(problem.status, problem.detail, path, request_id(environ), type_=problem.type,
                        title=problem.title, errors=problem.errors)
    headers = [("Content-Type", PROBLEM_MEDIA_TYPE), ("Content-Length", str(len(text))), *problem.headers.items()]
    return f"{problem.status} {HTTP_STATUS_CODES.get(problem.status, 'UNKNOWN').upper()}", headers, text


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
    @app.errorhandler(InvalidRequestError)
    @app.errorhandler(UnknownProfileError)
    def _api_problem(exc: Exception) -> Response:
        problem = as_problem(exc)
        assert problem is not None  # registered for these three only
        response = problem_response(problem.status, problem.detail, type_=problem.type, title=problem.title,
                                    errors=problem.errors)
        response.headers.update(problem.headers)
        return response

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
