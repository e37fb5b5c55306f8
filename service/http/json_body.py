"""A request's JSON body and query parameters as the operations take them, and a JSON answer.

The body is checked for media type, encodings, size, deadline and framing (through
:mod:`service.http.request_body`), UTF-8 and strict JSON, each refused with its own problem.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response, current_app, request
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header, parse_options_header

from service.engine.text import echo
from service.http.problems import ProblemError, validation_problem
from service.http.request_body import BodyFramingError, BodyTimeoutError, BodyTooLargeError, read_body
from service.json_text import (
    SURROGATE_DETAIL,
    MalformedJSONError,
    decode_utf8,
    read_json_text,
)
from service.languages import negotiate

__all__ = ["accepted_language", "json_response", "json_text_response", "parse_json", "query", "read_json",
           "read_json_bytes"]


def _malformed(detail: str) -> ProblemError:
    return ProblemError(400, "/problems/malformed-json", "Malformed JSON", detail, [{"pointer": "", "detail": detail}])


def read_json() -> Any:
    """The request body as JSON data: :func:`parse_json` of :func:`read_json_bytes`.

    :raises ProblemError: 415 when the body is not ``application/json`` in UTF-8 (another
        ``charset`` or a ``Content-Encoding`` is refused, never reinterpreted); 413 when it
        is over 1 MiB however it is framed (``Content-Length`` or chunked); 408 when it does
        not arrive within ``BODY_TIMEOUT`` seconds; 400 when its framing is broken (a bad
        chunk size, a short body) or when it is
        not well-formed JSON (a duplicate key, ``NaN``, a number of over 4,300 digits, or
        nesting too deep for the parser count as malformed: nothing is dropped) or holds
        a lone UTF-16 surrogate escape such as ``"\\ud800"`` (named by pointer).
    """
    return parse_json(read_json_bytes())


def read_json_bytes() -> bytes:
    """The request body's bytes, checked for media type, encodings, size, deadline and
    framing (:func:`read_json`'s 415, 413, 408 and framing 400), not yet parsed: the I/O
    part, which waits for the client (a view may parse elsewhere: :func:`parse_json`).

    :raises ProblemError: as :func:`read_json`, but for malformed JSON.
    """
    environ = request.environ  # the headers straight from it: one context lookup
    content_type = environ.get("CONTENT_TYPE", "")
    if content_type == "application/json":  # the common case, parsed as below would give
        mimetype, charset = content_type, "utf-8"
    else:
        mimetype, params = parse_options_header(content_type)
        mimetype, charset = mimetype.lower(), params.get("charset", "utf-8").lower()
    if mimetype != "application/json":
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                           f"The body must be application/json, got {mimetype or 'none'}.")
    if charset not in ("utf-8", "utf8"):
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                           f"The body must be encoded as UTF-8, got charset={charset}.")
    transfer = environ.get("HTTP_TRANSFER_ENCODING", "")
    if transfer and transfer.strip().lower() != "chunked":
        codings = [c.strip().lower() for c in transfer.split(",") if c.strip()]
        if any(c != "chunked" for c in codings):
            raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                               f"Transfer-Encoding {echo(', '.join(codings))} is not accepted; send the body "
                               "uncompressed (chunked framing alone is fine).")
    encoding = environ.get("HTTP_CONTENT_ENCODING", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                           f"Content-Encoding {encoding} is not accepted; send the body uncompressed.")
    config = current_app.config
    try:
        raw = read_body(environ, config["MAX_CONTENT_LENGTH"], config["BODY_TIMEOUT"])
    except BodyTooLargeError:
        raise ProblemError(413, "/problems/payload-too-large", "Payload too large",
                           "The request body is over the 1 MiB limit.") from None
    except BodyTimeoutError:
        raise ProblemError(408, "/problems/request-timeout", "Request timeout",
                           f"The request body did not arrive within {config['BODY_TIMEOUT']:g} s; "
                           "the connection is closed.") from None
    except BodyFramingError as exc:
        raise ProblemError(400, "/problems/malformed-body", "Malformed body",
                           f"The request body cannot be read: {exc}.") from None
    return raw


def parse_json(raw: bytes) -> Any:
    """A body's bytes as JSON data (no request context needed: it may run off the event loop).

    :raises ProblemError: 400 when not well-formed (:func:`read_json`).
    """
    try:
        body, bad = read_json_text(decode_utf8(raw))
    except MalformedJSONError as exc:
        raise _malformed(str(exc)) from None
    if bad:
        raise validation_problem({"pointer": p, "detail": SURROGATE_DETAIL} for p in bad)
    return body


def query() -> dict[str, list[str]]:
    """The request's query parameters, every value of each (:data:`service.operations.Query`)."""
    if not request.environ.get("QUERY_STRING"):
        return {}  # most requests: no need to parse
    return request.args.to_dict(flat=False)


def json_response(data: Any, status: int = 200, lang: str | None = None) -> Response:
    """A JSON response written with orjson; with ``lang``, naming the language of its labels
    (:func:`json_text_response`)."""
    return json_text_response(orjson.dumps(data), status, lang)


def json_text_response(text: bytes, status: int = 200, lang: str | None = None) -> Response:
    """A response of JSON ``text``; with ``lang`` (an answer with labels, RULES.md 4.2) it
    names their language (``Content-Language``) and says it varies with ``Accept-Language``
    (added as plain headers: an answer of this service has no ``Vary`` before it)."""
    response = Response(text, status, mimetype="application/json")
    if lang is not None:
        headers = response.headers
        headers.add("Content-Language", lang)
        headers.add("Vary", "Accept-Language")
    return response


def accepted_language() -> str | None:
    """The offered language the request's ``Accept-Language`` best matches
    (:func:`service.languages.negotiate`), or ``None`` without the header or a match."""
    header = request.environ.get("HTTP_ACCEPT_LANGUAGE")
    return negotiate(parse_accept_header(header, LanguageAccept)) if header else None
