"""A request's JSON body and query parameters as the operations take them, and a JSON answer.

The body is checked for media type, encodings, size, deadline and framing (through
:mod:`service.http.request_body`), UTF-8 and strict JSON, each refused with its own problem.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from flask import Response, current_app, request

from service.engine.text import echo
from service.errors import pointer
from service.http.problems import ProblemError, validation_problem
from service.http.request_body import BodyFramingError, BodyTimeoutError, BodyTooLargeError, read_body

__all__ = ["json_response", "query", "read_json"]


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {echo(key)} in an object")
        out[key] = value
    return out


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def _malformed(detail: str) -> ProblemError:
    return ProblemError(400, "/problems/malformed-json", "Malformed JSON", detail, [{"pointer": "", "detail": detail}])


def _surrogate_pointers(value: Any, path: tuple[object, ...] = ()) -> list[str]:
    """Pointers to strings (and keys) holding a lone UTF-16 surrogate escape."""
    found: list[str] = []
    if isinstance(value, str):
        if any("\ud800" <= ch <= "\udfff" for ch in value):
            found.append(pointer(*path))
    elif isinstance(value, dict):
        for key, item in value.items():
            if any("\ud800" <= ch <= "\udfff" for ch in key):
                found.append(pointer(*path, key.encode("utf-8", "backslashreplace").decode()))
            else:
                found.extend(_surrogate_pointers(item, (*path, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(_surrogate_pointers(item, (*path, i)))
    return found


def read_json() -> Any:
    """The request body as JSON data.

    :raises ProblemError: 415 when the body is not ``application/json`` in UTF-8 (another
        ``charset`` or a ``Content-Encoding`` is refused, never reinterpreted); 413 when it
        is over 1 MiB however it is framed (``Content-Length`` or chunked); 408 when it does
        not arrive within ``BODY_TIMEOUT`` seconds; 400 when its framing is broken (a bad
        chunk size, a short body) or when it is
        not well-formed JSON (a duplicate key, ``NaN``, a number of over 4,300 digits, or
        nesting too deep for the parser count as malformed: nothing is dropped) or holds
        a lone UTF-16 surrogate escape such as ``"\\ud800"`` (named by pointer).
    """
    if request.mimetype != "application/json":
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                           f"The body must be application/json, got {request.mimetype or 'none'}.")
    charset = request.mimetype_params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                           f"The body must be encoded as UTF-8, got charset={charset}.")
    codings = [c.strip().lower() for c in request.headers.get("Transfer-Encoding", "").split(",") if c.strip()]
    if any(c != "chunked" for c in codings):
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                           f"Transfer-Encoding {echo(', '.join(codings))} is not accepted; send the body "
                           "uncompressed (chunked framing alone is fine).")
    encoding = request.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                           f"Content-Encoding {encoding} is not accepted; send the body uncompressed.")
    try:
        raw = read_body(request.environ, current_app.config["MAX_CONTENT_LENGTH"],
                        current_app.config["BODY_TIMEOUT"])
    except BodyTooLargeError:
        raise ProblemError(413, "/problems/payload-too-large", "Payload too large",
                           "The request body is over the 1 MiB limit.") from None
    except BodyTimeoutError:
        raise ProblemError(408, "/problems/request-timeout", "Request timeout",
                           f"The request body did not arrive within {current_app.config['BODY_TIMEOUT']:g} s; "
                           "the connection is closed.") from None
    except BodyFramingError as exc:
        raise ProblemError(400, "/problems/malformed-body", "Malformed body",
                           f"The request body cannot be read: {exc}.") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _malformed(f"The body is not valid UTF-8: byte {exc.start} cannot be decoded.") from None
    try:
        body = json.loads(text, object_pairs_hook=_reject_duplicate_keys, parse_constant=_reject_constant)
    except RecursionError:
        raise _malformed("The body is not valid JSON: it is nested too deeply.") from None
    except ValueError as exc:
        message = str(exc)
        if "int_max_str_digits" in message or "Exceeds the limit" in message:
            message = "a number has more than 4,300 digits"
        raise _malformed(f"The body is not valid JSON: {message}") from None
    bad = _surrogate_pointers(body) if "\\u" in text else []  # escapes are rare: walk only then
    if bad:
        raise validation_problem({"pointer": p, "detail": "holds a lone UTF-16 surrogate escape (\\ud800-\\udfff)"}
                                 for p in bad)
    return body


def query() -> dict[str, list[str]]:
    """The request's query parameters, every value of each (:data:`service.operations.Query`)."""
    return request.args.to_dict(flat=False)


def json_response(data: Any, status: int = 200) -> Response:
    """A JSON response written with orjson."""
    return Response(orjson.dumps(data), status=status, mimetype="application/json")
