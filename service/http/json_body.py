"""A request's JSON body and query parameters as the operations take them, and a JSON answer.

The body is checked for media type, encodings, size, deadline and framing (through
:mod:`service.http.request_body`), UTF-8 and strict JSON, each refused with its own problem.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from flask import Response
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header, parse_options_header
from werkzeug.wrappers import Request

from service.engine.text import echo
from service.http.request_body import BodyFramingError, BodyTimeoutError, BodyTooLargeError, read_body
from service.json_text import (
    SURROGATE_DETAIL,
    MalformedJSONError,
    decode_utf8,
    read_json_text,
)
from service.languages import negotiate
from service.problems import (
    BODY_OVER_LIMIT,
    MALFORMED_BODY,
    MALFORMED_JSON,
    PAYLOAD_TOO_LARGE,
    REQUEST_TIMEOUT,
    UNSUPPORTED_MEDIA_TYPE,
    ProblemError,
    validation_problem,
)

__all__ = ["answer_headers", "body_bytes", "json_response", "json_text_response", "language_of", "parse_json",
           "query_of"]


def _malformed(detail: str) -> ProblemError:
    return ProblemError(MALFORMED_JSON, detail, [{"pointer": "", "detail": detail}])


def body_bytes(environ: Mapping[str, Any], config: Mapping[str, Any]) -> bytes:
    """The body's bytes of the request of ``environ`` (its WSGI environment), checked for
    media type, encodings, size, deadline and framing under ``config`` (the app's:
    ``MAX_CONTENT_LENGTH``, ``BODY_TIMEOUT``), not yet parsed (:func:`parse_json`): the I/O
    part, which waits for the client. No request context needed.

    :raises ProblemError: 415 when the body is not ``application/json`` in UTF-8 (another
        ``charset`` or a ``Content-Encoding`` is refused, never reinterpreted); 413 when it
        is over 1 MiB however it is framed (``Content-Length`` or chunked); 408 when it does
        not arrive within ``BODY_TIMEOUT`` seconds; 400 when its framing is broken (a bad
        chunk size, a short body).
    """
    unsupported = _unsupported_media(environ)
    if unsupported is not None:
        raise ProblemError(UNSUPPORTED_MEDIA_TYPE, unsupported)
    try:
        raw = read_body(environ, config["MAX_CONTENT_LENGTH"], config["BODY_TIMEOUT"])
    except BodyTooLargeError:
        raise ProblemError(PAYLOAD_TOO_LARGE, BODY_OVER_LIMIT) from None
    except BodyTimeoutError:
        raise ProblemError(REQUEST_TIMEOUT, f"The request body did not arrive within {config['BODY_TIMEOUT']:g} s; "
                           "the connection is closed.") from None
    except BodyFramingError as exc:
        raise ProblemError(MALFORMED_BODY, f"The request body cannot be read: {exc}.") from None
    return raw


def _unsupported_media(environ: Mapping[str, Any]) -> str | None:
    """Why the body of the request of ``environ`` is not one this service reads (the detail
    of its 415), or ``None``: not ``application/json``, not UTF-8, or encoded."""
    content_type = environ.get("CONTENT_TYPE", "")
    if content_type == "application/json":  # the common case, parsed as below would give
        mimetype, charset = content_type, "utf-8"
    else:
        mimetype, params = parse_options_header(content_type)
        mimetype, charset = mimetype.lower(), params.get("charset", "utf-8").lower()
    if mimetype != "application/json":
        return f"The body must be application/json, got {mimetype or 'none'}."
    if charset not in ("utf-8", "utf8"):
        return f"The body must be encoded as UTF-8, got charset={charset}."
    transfer = environ.get("HTTP_TRANSFER_ENCODING", "")
    if transfer and transfer.strip().lower() != "chunked":
        codings = [c.strip().lower() for c in transfer.split(",") if c.strip()]
        if any(c != "chunked" for c in codings):
            return (f"Transfer-Encoding {echo(', '.join(codings))} is not accepted; send the body "
                    "uncompressed (chunked framing alone is fine).")
    encoding = environ.get("HTTP_CONTENT_ENCODING", "identity").strip().lower()
    if encoding not in ("", "identity"):
        return f"Content-Encoding {encoding} is not accepted; send the body uncompressed."
    return None


def parse_json(raw: bytes) -> Any:
    """A body's bytes as JSON data (no request context needed: it may run off the event loop).

    :raises ProblemError: 400 when not well-formed JSON (a duplicate key, ``NaN``, a number
        of over 4,300 digits, or nesting too deep for the parser count as malformed: nothing
        is dropped) or when it holds a lone UTF-16 surrogate escape such as ``"\\ud800"``
        (named by pointer).
    """
    try:
        body, bad = read_json_text(decode_utf8(raw))
    except MalformedJSONError as exc:
        raise _malformed(str(exc)) from None
    if bad:
        raise validation_problem({"pointer": p, "detail": SURROGATE_DETAIL} for p in bad)
    return body


def query_of(environ: dict[str, Any]) -> dict[str, list[str]]:
    """The query parameters of the request of ``environ``, every value of each
    (:data:`service.operations.Query`): Werkzeug's reading of it (Flask's ``request.args``),
    with no request context; the request object Flask made for
    ``environ`` (Werkzeug keeps it there) is asked when there is one, so its reading is
    made once."""
    if not environ.get("QUERY_STRING"):
        return {}  # most requests: no need to parse
    made = environ.get("werkzeug.request")
    found = made if isinstance(made, Request) else Request(environ, populate_request=False, shallow=True)
    return found.args.to_dict(flat=False)


def json_response(data: Any, status: int = 200, lang: str | None = None) -> Response:
    """A JSON response written with orjson; with ``lang``, naming the language of its labels
    (:func:`json_text_response`)."""
    return json_text_response(orjson.dumps(data), status, lang)


def json_text_response(text: bytes, status: int = 200, lang: str | None = None) -> Response:
    """A response of JSON ``text`` with :func:`answer_headers`."""
    return Response(text, status, answer_headers(text, lang))


def answer_headers(text: bytes, lang: str | None = None) -> list[tuple[str, str]]:
    """The headers of a JSON answer ``text`` (before those every answer carries,
    :mod:`service.http.middleware`); with ``lang`` (an answer with labels, RULES.md 4.2)
    they name its language (``Content-Language``) and say it varies with ``Accept-Language``
    (an answer of this service has no other ``Vary``).

    >>> answer_headers(b"{}")
    [('Content-Type', 'application/json'), ('Content-Length', '2')]
    >>> answer_headers(b"{}", "zh-Hans")[2:]
    [('Content-Language', 'zh-Hans'), ('Vary', 'Accept-Language')]
    """
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(text)))]
    if lang is not None:
        headers += (("Content-Language", lang), ("Vary", "Accept-Language"))
    return headers


def language_of(environ: Mapping[str, Any]) -> str | None:
    """The offered language the ``Accept-Language`` of the request of ``environ`` best
    matches (:func:`service.languages.negotiate`), or ``None`` without the header or a match;
    no request context needed."""
    header = environ.get("HTTP_ACCEPT_LANGUAGE")
    return negotiate(parse_accept_header(header, LanguageAccept)) if header else None
