"""Flask's error handlers, and the same answers outside Flask (the WSGI dispatcher's): every
error raised while answering is problem details (RFC 9457), from the one catalogue
(:mod:`service.problems`, which owns the types, the titles and the bodies). No stack trace
ever leaves the process.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, request
from werkzeug.exceptions import HTTPException
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.wrappers import Response

from service.engine.text import echo, echo_bare
from service.errors import InvalidRequestError
from service.http.observability import request_id
from service.problems import (
    BODY_OVER_LIMIT,
    INTERNAL_ERROR,
    MEDIA_TYPE,
    UNKNOWN_PROFILE,
    ProblemError,
    for_status,
    validation_problem,
)
from service.profiles import UnknownProfileError

__all__ = [
    "ProblemError",
    "as_problem",
    "problem_answer",
    "problem_response",
    "register_error_handlers",
    "sorted_methods",
    "validation_problem",
]

_log = logging.getLogger("service.errors")

#: What a failure that is not a problem (a bug) is answered with; the failure is logged.
_LOGGED = "The server failed to handle the request; it has been logged."


def problem_response(exc: ProblemError, base: Response | None = None) -> Response:
    """The answer to ``exc`` in the current request: its body (:meth:`ProblemError.body`),
    its headers (e.g. ``Retry-After``).

    :param base: a response whose headers (e.g. ``Allow``) are kept.
    """
    response = base if base is not None else Response()
    response.status_code = exc.status
    response.set_data(exc.body(request.path, request_id(request.environ)))
    response.mimetype = MEDIA_TYPE
    response.headers.update(exc.headers)
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
        return ProblemError(UNKNOWN_PROFILE, f"There is no profile {echo(exc.name)}; see {exc.listing}.")
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
        problem = ProblemError(INTERNAL_ERROR, _LOGGED)
    status, headers, text = problem.answer(path, request_id(environ))
    return f"{status} {HTTP_STATUS_CODES.get(status, 'UNKNOWN').upper()}", headers, text


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
        return problem_response(problem)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        status = exc.code or 500
        base = exc.get_response()  # keeps headers such as Allow on a 405
        if status == 404:
            detail = f"There is no resource at {echo_bare(request.path)}."
        elif status == 405:
            allowed = sorted_methods(base.headers.get("Allow", ""))
            detail = f"{echo_bare(request.method)} is not allowed on {echo_bare(request.path)}; allowed: {allowed}."
        elif status == 413:
            detail = BODY_OVER_LIMIT
        else:
            detail = exc.description or exc.name
        kind = INTERNAL_ERROR if status == 500 else for_status(status)
        return problem_response(ProblemError(kind, detail), base)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        _log.exception("unhandled error on %s %s", request.method, request.path)
        return problem_response(ProblemError(INTERNAL_ERROR, _LOGGED))
