"""Problem details (RFC 9457): the one catalogue of the service's problem types, and the
one writer of their ``application/problem+json`` bodies. No web framework: Flask's error
handlers (:mod:`service.http.problems`), the gunicorn worker's early answers
(:mod:`service.gunicorn_worker`) and the master's probe listener
(:mod:`service.gunicorn_probes`) all answer from here.

Every error answer of the service is ``application/problem+json`` with ``type`` (a relative
URI, such as ``/problems/not-found``), ``title`` (the type's, the same on every occurrence),
``status`` and ``detail`` (this occurrence, in a sentence); an answer of the app adds
``instance`` (the path) and ``request_id``, and a 400 lists every problem in ``errors``,
each with a ``pointer`` into the body or the name of a query ``parameter``.

The worker's early answers (:func:`early_answer`) take their title from their status
line's reason phrase, as gunicorn gives it: the types only they answer have those phrases
as titles (``URI Too Long``), and gunicorn's 400 says ``Bad Request`` where Werkzeug's
says ``Bad request``.

A new problem type is one :class:`ProblemType` below (and, for a type the contract names,
its line in ``openapi.yaml``); code raises it as ``ProblemError(KIND, detail)``, never with
a literal type.

>>> sorted(CATALOGUE)[:3]
['/problems/analysis-disabled', '/problems/bad-request', '/problems/expectation-failed']
>>> CATALOGUE["/problems/not-found"]
ProblemType(uri='/problems/not-found', title='Not found', status=404)
>>> body(NOT_FOUND, "There is no resource at /v2.", instance="/v2", request_id="r1")
b'{"type":"/problems/not-found","title":"Not found","status":404,"detail":"There is no resource at /v2.","instance":"/v2","request_id":"r1"}'
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from service.engine.text import clip
from service.errors import ErrorItem

__all__ = [
    "ANALYSIS_DISABLED",
    "BAD_REQUEST",
    "BODY_OVER_LIMIT",
    "CATALOGUE",
    "EXPECTATION_FAILED",
    "FORBIDDEN",
    "HEADER_FIELDS_TOO_LARGE",
    "INTERNAL_ERROR",
    "MALFORMED_BODY",
    "MALFORMED_JSON",
    "MAX_LISTED_ERRORS",
    "MEDIA_TYPE",
    "METHOD_NOT_ALLOWED",
    "NOT_ACCEPTABLE",
    "NOT_FOUND",
    "NOT_IMPLEMENTED",
    "NOT_READY",
    "PAYLOAD_TOO_LARGE",
    "RECEIPTS_NOT_CONFIGURED",
    "REQUEST_TIMEOUT",
    "SERVER_BUSY",
    "TOO_EXPENSIVE",
    "TOO_MANY_CONNECTIONS",
    "UNHEALTHY",
    "UNKNOWN_PROFILE",
    "UNSUPPORTED_MEDIA_TYPE",
    "URI_TOO_LONG",
    "VALIDATION_ERROR",
    "ProblemError",
    "ProblemType",
    "body",
    "early_answer",
    "for_status",
    "validation_problem",
]

#: The media type of every problem body.
MEDIA_TYPE = "application/problem+json"


@dataclass(frozen=True)
class ProblemType:
    """One problem type: its ``uri`` (the body's ``type``, relative: ``/problems/...``),
    ``title`` (a short summary, the same on every occurrence) and HTTP ``status``."""

    uri: str
    title: str
    status: int


# -- the catalogue, by answer status -------------------------------------------------------
#: 400: a request whose members break the contract (``errors`` lists each, by pointer).
VALIDATION_ERROR = ProblemType("/problems/validation-error", "Invalid request", 400)
#: 400: a body that is not well-formed JSON.
MALFORMED_JSON = ProblemType("/problems/malformed-json", "Malformed JSON", 400)
#: 400: a body whose framing is broken (a bad chunk size, a short body).
MALFORMED_BODY = ProblemType("/problems/malformed-body", "Malformed body", 400)
#: 400: a request the server cannot read (gunicorn's refusals of a head, Werkzeug's 400).
BAD_REQUEST = ProblemType("/problems/bad-request", "Bad request", 400)
#: 403: a proxy request from an address not allowed to send one (gunicorn).
FORBIDDEN = ProblemType("/problems/forbidden", "Forbidden", 403)
#: 403: uncached analyses turned off by the operator.
ANALYSIS_DISABLED = ProblemType("/problems/analysis-disabled", "Analysis disabled", 403)
#: 404: no resource at the path.
NOT_FOUND = ProblemType("/problems/not-found", "Not found", 404)
#: 404: no profile of the name asked for.
UNKNOWN_PROFILE = ProblemType("/problems/unknown-profile", "Unknown profile", 404)
#: 405: a method the path does not serve (with ``Allow``).
METHOD_NOT_ALLOWED = ProblemType("/problems/method-not-allowed", "Method not allowed", 405)
#: 406: no answer in a media type the request accepts.
NOT_ACCEPTABLE = ProblemType("/problems/not-acceptable", "Not acceptable", 406)
#: 408: a body that did not arrive within the body deadline.
REQUEST_TIMEOUT = ProblemType("/problems/request-timeout", "Request timeout", 408)
#: 413: a body over the limit.
PAYLOAD_TOO_LARGE = ProblemType("/problems/payload-too-large", "Payload too large", 413)
#: 414: a request line over gunicorn's limit.
URI_TOO_LONG = ProblemType("/problems/uri-too-long", "URI Too Long", 414)
#: 415: a body not ``application/json`` in UTF-8, or encoded (``Content-Encoding``, a
#: ``Transfer-Encoding`` other than chunked).
UNSUPPORTED_MEDIA_TYPE = ProblemType("/problems/unsupported-media-type", "Unsupported media type", 415)
#: 417: an ``Expect`` gunicorn cannot meet.
EXPECTATION_FAILED = ProblemType("/problems/expectation-failed", "Expectation Failed", 417)
#: 429: the client's share of the analysis budget is spent (with ``Retry-After``).
TOO_EXPENSIVE = ProblemType("/problems/too-expensive", "Analysis budget spent", 429)
#: 431: a request head over its bounds.
HEADER_FIELDS_TOO_LARGE = ProblemType("/problems/header-fields-too-large", "Request Header Fields Too Large",
                                      431)
#: 500: a failure of the server's (logged; no stack trace leaves the process).
INTERNAL_ERROR = ProblemType("/problems/internal-error", "Internal server error", 500)
#: 501: a transfer coding gunicorn does not implement.
NOT_IMPLEMENTED = ProblemType("/problems/not-implemented", "Not Implemented", 501)
#: 503: the worker holds as many heavy requests as it admits (with ``Retry-After``).
SERVER_BUSY = ProblemType("/problems/server-busy", "Server busy", 503)
#: 503: not ready (starting, warming or draining).
NOT_READY = ProblemType("/problems/not-ready", "Not ready", 503)
#: 503: not live (the master's probe listener).
UNHEALTHY = ProblemType("/problems/unhealthy", "Unhealthy", 503)
#: 503: receipts asked of a server without a signing key.
RECEIPTS_NOT_CONFIGURED = ProblemType("/problems/receipts-not-configured", "Receipts not configured", 503)
#: 503: a connection past its address's share of a worker's connections (the worker).
TOO_MANY_CONNECTIONS = ProblemType("/problems/too-many-connections", "Service Unavailable", 503)

#: Every problem type, by its URI.
CATALOGUE: dict[str, ProblemType] = {
    kind.uri: kind for kind in (
        VALIDATION_ERROR, MALFORMED_JSON, MALFORMED_BODY, BAD_REQUEST, FORBIDDEN, ANALYSIS_DISABLED,
        NOT_FOUND, UNKNOWN_PROFILE, METHOD_NOT_ALLOWED, NOT_ACCEPTABLE, REQUEST_TIMEOUT, PAYLOAD_TOO_LARGE, URI_TOO_LONG,
        UNSUPPORTED_MEDIA_TYPE, EXPECTATION_FAILED, TOO_EXPENSIVE, HEADER_FIELDS_TOO_LARGE, INTERNAL_ERROR,
        NOT_IMPLEMENTED, SERVER_BUSY, NOT_READY, UNHEALTHY, RECEIPTS_NOT_CONFIGURED, TOO_MANY_CONNECTIONS)
}

#: The type of an error a framework raises with a status alone (Werkzeug's HTTP errors,
#: gunicorn's refusals of a request it cannot read); 500 and 503, which have several types
#: here, are not among them.
_BY_STATUS: dict[int, ProblemType] = {kind.status: kind for kind in (
    BAD_REQUEST, FORBIDDEN, NOT_FOUND, METHOD_NOT_ALLOWED, NOT_ACCEPTABLE, PAYLOAD_TOO_LARGE, URI_TOO_LONG,
    UNSUPPORTED_MEDIA_TYPE, EXPECTATION_FAILED, HEADER_FIELDS_TOO_LARGE, NOT_IMPLEMENTED)}

#: The detail of a body over the limit (Werkzeug's 413 and the body reader's say the same).
BODY_OVER_LIMIT = "The request body is over the 1 MiB limit."
#: A 400 lists at most this many problems (the ``detail`` gives the total).
MAX_LISTED_ERRORS = 100
#: The most characters of an error item's pointer or parameter (a pointer may hold a key the
#: caller made up), and of an ``instance``; and of a detail, the problem's or an item's:
#: messages are the service's own sentences and quote the caller's values through
#: :func:`service.engine.text.echo` already, so this only bounds them, and a problem body
#: is at most about 130 kB.
_ITEM_LIMIT = 240
_DETAIL_LIMIT = 1000
#: The most characters of an early answer's detail (gunicorn's words).
_EARLY_DETAIL_LIMIT = 200


def for_status(status: int) -> ProblemType:
    """The problem type of an error a framework gives with a status alone; for a status
    with no type of its own, ``/problems/http-<status>``.

    >>> for_status(404).uri, for_status(431).title
    ('/problems/not-found', 'Request Header Fields Too Large')
    >>> for_status(500)
    ProblemType(uri='/problems/http-500', title='Error', status=500)
    """
    found = _BY_STATUS.get(status)
    return found if found is not None else ProblemType(f"/problems/http-{status}", "Error", status)


class ProblemError(Exception):
    """An error to answer as problem details: raise ``ProblemError(NOT_FOUND, detail)``.

    :param kind: its type, from the catalogue.
    :param detail: this occurrence, in a sentence.
    :param errors: for a 400, every problem with its ``pointer`` or ``parameter``.
    :param headers: headers of the answer, e.g. ``Retry-After``.

    >>> e = ProblemError(SERVER_BUSY, "Full.", headers={"Retry-After": "1"})
    >>> e.status, e.type, e.title, e.detail, e.headers
    (503, '/problems/server-busy', 'Server busy', 'Full.', {'Retry-After': '1'})
    """

    def __init__(self, kind: ProblemType, detail: str, errors: list[ErrorItem] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.errors = errors
        self.headers = headers or {}

    @property
    def status(self) -> int:
        """The HTTP status."""
        return self.kind.status

    @property
    def type(self) -> str:
        """The problem type URI."""
        return self.kind.uri

    @property
    def title(self) -> str:
        """The problem type's title."""
        return self.kind.title

    def body(self, instance: str, request_id: str) -> bytes:
        """The answer's body (:func:`body`) for the request of path ``instance``."""
        return body(self.kind, self.detail, instance=instance, request_id=request_id, errors=self.errors)

    def answer(self, instance: str, request_id: str) -> tuple[int, list[tuple[str, str]], bytes]:
        """The whole answer for the request of path ``instance``, with no web framework (a
        WSGI answer): its status, its headers (``Content-Type``, ``Content-Length``, then
        :attr:`headers`) and its body (:meth:`body`), as Flask's handlers answer it.

        >>> ProblemError(SERVER_BUSY, "Full.", headers={"Retry-After": "2"}).answer("/v1/rankings", "r1")[:2]
        (503, [('Content-Type', 'application/problem+json'), ('Content-Length', '128'), ('Retry-After', '2')])
        """
        data = self.body(instance, request_id)
        return self.status, [("Content-Type", MEDIA_TYPE), ("Content-Length", str(len(data))),
                             *self.headers.items()], data


def validation_problem(errors: Iterable[ErrorItem]) -> ProblemError:
    """A 400 listing every problem, or the first :data:`MAX_LISTED_ERRORS` of them.

    >>> validation_problem([{"pointer": "/hand", "detail": "too short"}]).detail
    'too short'
    >>> validation_problem([{"pointer": f"/{i}", "detail": "bad"} for i in range(101)]).detail
    'The request has 101 problems; the first 100 are listed in errors.'
    """
    items = list(errors)
    n = len(items)
    if n == 1:
        detail = items[0]["detail"]
    elif n > MAX_LISTED_ERRORS:
        detail = f"The request has {n} problems; the first {MAX_LISTED_ERRORS} are listed in errors."
        items = items[:MAX_LISTED_ERRORS]
    else:
        detail = f"The request has {n} problems; see errors."
    return ProblemError(VALIDATION_ERROR, detail, items)


def _members(kind: ProblemType, detail: str, title: str | None = None) -> dict[str, Any]:
    return {"type": kind.uri, "title": title or kind.title, "status": kind.status,
            "detail": clip(detail, _DETAIL_LIMIT)}


def body(kind: ProblemType, detail: str, *, instance: str | None = None, request_id: str | None = None,
         errors: list[ErrorItem] | None = None) -> bytes:
    """A problem body of ``kind``, compact JSON in UTF-8: ``type``, ``title``, ``status``,
    ``detail`` (at most 1,000 characters); with ``instance`` (the request's path, at most
    240), ``instance`` and ``request_id``; with ``errors``, each item's ``pointer`` or
    ``parameter`` at most 240 characters (a pointer may hold a key the caller made up) and
    its ``detail`` at most 1,000 (a sentence of the service's, never cut in practice). A lone surrogate echoed from
    a request is escaped, never a failure.

    >>> body(NOT_READY, "Not ready: starting.")
    b'{"type":"/problems/not-ready","title":"Not ready","status":503,"detail":"Not ready: starting."}'
    """
    members = _members(kind, detail)
    if instance is not None:
        members["instance"] = clip(instance, _ITEM_LIMIT)
        members["request_id"] = request_id
    if errors is not None:
        members["errors"] = [{k: clip(v, _DETAIL_LIMIT if k == "detail" else _ITEM_LIMIT) for k, v in item.items()}
                             for item in errors]
    try:
        return orjson.dumps(members)
    except TypeError:  # e.g. a lone surrogate echoed from the request: escape, never fail
        return json.dumps(members, ensure_ascii=True).encode()


def early_answer(kind: ProblemType, detail: str, reason: str | None = None) -> bytes:
    """A whole HTTP/1.1 answer of ``kind`` written on a socket before any app sees the
    request (the gunicorn worker's), closing the connection: ``reason`` is its status line's
    reason phrase and its ``title`` (gunicorn's own for a request it refuses; by default the
    type's title); ``detail`` is cut to 200 characters. Its head is Latin-1, so its body is
    ASCII (other characters escaped), written with JSON's default spacing.

    >>> head, data = early_answer(URI_TOO_LONG, "Request Line is too large (5000 > 4094).").split(b"\\r\\n\\r\\n")
    >>> head.decode().splitlines()  # doctest: +NORMALIZE_WHITESPACE
    ['HTTP/1.1 414 URI Too Long', 'Connection: close', 'Content-Type: application/problem+json',
     'X-Content-Type-Options: nosniff', 'Content-Length: 128']
    >>> data
    b'{"type": "/problems/uri-too-long", "title": "URI Too Long", "status": 414, "detail": "Request Line is too large (5000 > 4094)."}'
    """
    title = reason or kind.title
    data = json.dumps(_members(kind, clip(detail, _EARLY_DETAIL_LIMIT), title), ensure_ascii=True).encode()
    head = (f"HTTP/1.1 {kind.status} {title}\r\nConnection: close\r\nContent-Type: {MEDIA_TYPE}\r\n"
            f"X-Content-Type-Options: nosniff\r\nContent-Length: {len(data)}\r\n\r\n")
    return head.encode("latin-1") + data
