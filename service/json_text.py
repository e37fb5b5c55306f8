"""Strict JSON text, as the API reads a request body and the ``gnau`` command its ``--file``
and ``--rules``: plain Python, no web framework.

A duplicate key, ``NaN`` or ``Infinity``, a number of over 4,300 digits or nesting too deep
for the parser is malformed (nothing is dropped or changed); a lone UTF-16 surrogate escape
such as ``"\\ud800"`` is named by pointer.
"""

from __future__ import annotations

import json
from typing import Any

from service.engine.text import echo
from service.errors import pointer

__all__ = ["MAX_BODY_BYTES", "SURROGATE_DETAIL", "MalformedJSONError", "decode_utf8", "parse_json_text",
           "surrogate_pointers"]

#: The largest request body, in bytes (1 MiB): the API's limit and ``gnau --file``'s.
MAX_BODY_BYTES = 1024 * 1024

#: What a string holding a lone UTF-16 surrogate escape hears.
SURROGATE_DETAIL = "holds a lone UTF-16 surrogate escape (\\ud800-\\udfff)"


class MalformedJSONError(ValueError):
    """Text that is not strict JSON (or bytes not UTF-8); the message is the API's detail."""


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {echo(key)} in an object")
        out[key] = value
    return out


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def decode_utf8(raw: bytes, what: str = "The body") -> str:
    """``raw`` as UTF-8 text (a leading byte order mark dropped).

    :raises MalformedJSONError: ``"The body is not valid UTF-8: byte N cannot be decoded."``

    >>> decode_utf8(b"\\xef\\xbb\\xbf{}")
    '{}'
    """
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MalformedJSONError(f"{what} is not valid UTF-8: byte {exc.start} cannot be decoded.") from None


def parse_json_text(text: str, what: str = "The body") -> Any:
    """The data of strict JSON ``text``.

    :param what: what the text is, to begin the message (the API's ``"The body"``).
    :raises MalformedJSONError: e.g. ``"The body is not valid JSON: duplicate key 'a' in an object"``.

    >>> parse_json_text('{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    """
    try:
        return json.loads(text, object_pairs_hook=_reject_duplicate_keys, parse_constant=_reject_constant)
    except RecursionError:
        raise MalformedJSONError(f"{what} is not valid JSON: it is nested too deeply.") from None
    except ValueError as exc:
        message = str(exc)
        if "int_max_str_digits" in message or "Exceeds the limit" in message:
            message = "a number has more than 4,300 digits"
        raise MalformedJSONError(f"{what} is not valid JSON: {message}") from None


def _walk(value: Any, path: tuple[object, ...]) -> list[str]:
    found: list[str] = []
    if isinstance(value, str):
        if any("\ud800" <= ch <= "\udfff" for ch in value):
            found.append(pointer(*path))
    elif isinstance(value, dict):
        for key, item in value.items():
            if any("\ud800" <= ch <= "\udfff" for ch in key):
                found.append(pointer(*path, key.encode("utf-8", "backslashreplace").decode()))
            else:
                found.extend(_walk(item, (*path, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(_walk(item, (*path, i)))
    return found


def surrogate_pointers(text: str, data: Any) -> list[str]:
    """Pointers to the strings (and keys) of ``data``, parsed from ``text``, that hold a lone
    UTF-16 surrogate escape (each is told :data:`SURROGATE_DETAIL`).

    >>> surrogate_pointers('{"a": ["\\\\ud800"]}', {"a": ["\\ud800"]})
    ['/a/0']
    """
    return _walk(data, ()) if "\\u" in text else []  # escapes are rare: walk only then
