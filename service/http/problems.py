"""Flask's error handlers: every error raised in the app answered as problem details
(RFC 9457), from the one catalogue (:mod:`service.problems`, which owns the types, the
titles and the bodies). No stack trace ever leaves the process.
"""

from __future__ import annotations

import logging

from flask import Flask, request
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response

from service.engine.text import echo
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
    "problem_response",
    "register_error_handlers",
    "sorted_methods",
    "validation_problem",
]

_log = logging.getLogger("service.errors")


def problem_response(exc: ProblemError, base: Response | None = None) -> Response:
    """The answer to ``exc`` in the current request: its body (:meth:`ProblemError.body`),
    its headers (e.g. ``Retry-After``).

    :param base: a response whose headers (e.g. ``Allow``) are kept.
    """
    response = base if base is not None else Response()
    response.status_code = exc.status
    response.set_data(exc.body(request.path, request_id()))
    response.mimetype = MEDIA_TYPE
    response.headers.update(exc.headers)
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
        return problem_response(exc)

    @app.errorhandler(InvalidRequestError)
    def _invalid(exc: InvalidRequestError) -> Response:
        return problem_response(validation_problem(exc.errors))

    @app.errorhandler(UnknownProfileError)
    def _unknown_profile(exc: UnknownProfileError) -> Response:
        return problem_response(ProblemError(UNKNOWN_PROFILE,
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
            detail = BODY_OVER_LIMIT
        else:
            detail = exc.description or exc.name
        kind = INTERNAL_ERROR if status == 500 else for_status(status)
        return problem_response(ProblemError(kind, detail), base)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        _log.exception("unhandled error on %s %s", request.method, request.path)
        return problem_response(ProblemError(INTERNAL_ERROR,
                                             "The server failed to handle the request; it has been logged."))
