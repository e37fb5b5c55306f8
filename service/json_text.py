"""Strict JSON text, as the API reads a request body and the ``gnau`` command its ``--file``
and ``--rules``: plain Python, no web framework.

A duplicate key, ``NaN`` or ``Infinity``, a number of over 4,300 digits or nesting too deep
for the parser is malformed (nothing is dropped or changed); a lone UTF-16 surrogate escape
such as ``"\\ud800"`` is named by pointer.

The standard library's parser decides what is strict JSON and words every message. orjson
reads most bodies first, about three times faster (a 10,000-hand batch: about 2 ms against
5), and its data is taken only where it is provably what the standard library gives
(:func:`_same_as_strict`); anything else, every malformed body included, is read again by
the standard library.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import orjson

from service.engine.text import echo
from service.errors import pointer

__all__ = ["MAX_BODY_BYTES", "SURROGATE_DETAIL", "MalformedJSONError", "decode_utf8", "read_json_text"]

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


#: Digits to ``0``, every other byte to ``x`` (short texts): a run of 19 ``0`` is a number
#: that may not fit in 64 bits, which orjson reads as a float and the standard library as
#: an int.
_DIGIT_RUNS = bytes(48 if 48 <= i <= 57 else 120 for i in range(256))
_LONG_NUMBER = b"0" * 19
#: Texts of at least this many bytes are checked with numpy.
_LONG_TEXT = 4096
#: Texts with at most this many brackets are nested no deeper.
_FEW_BRACKETS = 512
#: Eight digits as eight bytes of ``1`` (``uint64``), for :func:`_has_long_number`.
_EIGHT_DIGITS = np.uint64(0x0101010101010101)
_COLON, _BRACE, _BRACKET = ord(":"), ord("{"), ord("[")


def _has_long_number(raw: bytes) -> bool:
    """Whether ``raw`` may hold a run of 19 digits: true for every such run, and for some
    shorter ones: a run of 15 or more fills one of the text's aligned 8-byte blocks (so do
    some runs of 8 to 14), and a run of 19 that reaches into the last 7 bytes (no whole
    block) has 12 or more digits just before them, filling the last whole block. numpy:
    about 50 µs for 300 kB.

    >>> _has_long_number(b'[12345678901234567890]'), _has_long_number(b'["10S", 1234567]')
    (True, False)
    """
    if len(raw) < _LONG_TEXT:
        return _LONG_NUMBER in raw.translate(_DIGIT_RUNS)
    data = np.frombuffer(raw, dtype=np.uint8, count=len(raw) // 8 * 8)
    blocks = ((data - 48) < 10).view(np.uint64)  # each byte 1 where a digit is
    return bool((blocks == _EIGHT_DIGITS).any())


def _colons(raw: bytes) -> int:
    """How many ``:`` bytes ``raw`` holds (numpy from :data:`_LONG_TEXT` bytes on: about
    seven times as fast as ``bytes.count`` for one byte)."""
    if len(raw) < _LONG_TEXT:
        return raw.count(b":")
    return int(np.count_nonzero(np.frombuffer(raw, dtype=np.uint8) == _COLON))


def _counts(raw: bytes) -> tuple[int, int, int]:
    """How many ``:``, ``{`` and ``[`` bytes ``raw`` holds."""
    if len(raw) < _LONG_TEXT:
        return raw.count(b":"), raw.count(b"{"), raw.count(b"[")
    data = np.frombuffer(raw, dtype=np.uint8)
    return _colons(raw), int(np.count_nonzero(data == _BRACE)), int(np.count_nonzero(data == _BRACKET))


def _has_float(data: Any) -> bool:
    """Whether ``data`` (parsed JSON) holds a float anywhere.

    >>> _has_float({"a": ["00", 10**18]}), _has_float([{"a": 2.5}])
    (False, True)
    """
    stack = [data]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is float:
            return True
        if kind is dict:
            stack.extend(value.values())
        elif kind is list:
            stack.extend(value)
    return False


def _key_count(data: Any) -> int:
    """How many keys the objects in ``data`` hold, all together."""
    keys = 0
    stack = [data]
    while stack:
        value = stack.pop()
        if type(value) is dict:
            keys += len(value)
            stack.extend(v for v in value.values() if type(v) is dict or type(v) is list)
        else:
            stack.extend(v for v in value if type(v) is dict or type(v) is list)
    return keys


def _same_as_strict(text: str, data: Any) -> bool:
    """Whether orjson's ``data`` for ``text`` is exactly what the standard library's strict
    reading gives. Beyond what orjson refuses itself (``NaN``, lone surrogates, nesting
    over 1,024), the two differ only on duplicate keys (orjson keeps the last), on integers
    outside 64 bits (orjson makes them floats) and on nesting the standard library cannot
    read, so this proves none occurs:

    - every ``:`` of the text separates a key from its value unless it is inside a string,
      so when the text has as many ``:`` as the objects have keys, no key was repeated.
      With one object (the top level) that is its length; with more, and no escapes in
      the text (strings written back unchanged), ``orjson.dumps(data)`` must have as many
      ``:`` as the text; otherwise the keys are counted;
    - no run of 19 digits (:func:`_has_long_number`), or, in a short text, no float in
      ``data`` (:func:`_has_float`; orjson makes an integer beyond 64 bits a float): every
      integer fits in 64 bits (a run inside a string, such as a deal's hex seed, is no number);
    - at most 512 brackets in all, or ``orjson.dumps`` (which stops at 255 levels, in C)
      writes the data back: the standard library reads that deep too, and so do the later
      recursive steps (comparing, echoing).

    >>> _same_as_strict('{"a": 1, "b": {"c": ":"}}', orjson.loads('{"a": 1, "b": {"c": ":"}}'))
    True
    >>> _same_as_strict('{"a": 1, "a": 2}', orjson.loads('{"a": 1, "a": 2}'))
    False
    >>> _same_as_strict('[{"a": 1, "a": ":"}]', orjson.loads('[{"a": 1, "a": ":"}]'))
    False
    >>> _same_as_strict('[123456789012345678901]', orjson.loads('[123456789012345678901]'))
    False
    >>> _same_as_strict('["1234567890123456789012"]', orjson.loads('["1234567890123456789012"]'))
    True
    """
    raw = text.encode("utf-8", "surrogatepass")
    if _has_long_number(raw) and (len(raw) >= _LONG_TEXT or _has_float(data)):
        return False
    colons, objects, brackets = _counts(raw)
    written: bytes | None = None
    if objects + brackets > _FEW_BRACKETS or (objects > 1 and b"\\" not in raw):
        try:
            written = orjson.dumps(data)
        except orjson.JSONEncodeError:  # nested over 255 levels
            return False
    if not colons or not objects:
        return True  # no key at all, or no object: nothing repeated
    if objects == 1 and type(data) is dict:
        return len(data) == colons  # the one object is the top level
    if written is not None and b"\\" not in raw:
        return _colons(written) == colons
    return _key_count(data) == colons


def read_json_text(text: str, what: str = "The body") -> tuple[Any, list[str]]:
    """The data of strict JSON ``text``, and :func:`_surrogate_pointers` of it: what the API
    reads a body with, and the ``gnau`` command its ``--file`` and ``--rules``. Data orjson
    read holds no lone surrogate (orjson refuses them), so only the standard library's is
    searched.

    :param what: what the text is, to begin the message (the API's ``"The body"``).
    :raises MalformedJSONError: e.g. ``"The body is not valid JSON: duplicate key 'a' in an object"``.

    >>> read_json_text('{"a": [1, 2.5]}')
    ({'a': [1, 2.5]}, [])
    >>> read_json_text('{"a": ["\\\\ud800", "AS"]}')
    ({'a': ['\\ud800', 'AS']}, ['/a/0'])
    >>> read_json_text('{"a": 1, "a": 2}')
    Traceback (most recent call last):
        ...
    service.json_text.MalformedJSONError: The body is not valid JSON: duplicate key 'a' in an object
    """
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        pass  # the standard library words the problem
    else:
        if _same_as_strict(text, data):
            return data, []
    try:
        data = json.loads(text, object_pairs_hook=_reject_duplicate_keys, parse_constant=_reject_constant)
    except RecursionError:
        raise MalformedJSONError(f"{what} is not valid JSON: it is nested too deeply.") from None
    except ValueError as exc:
        message = str(exc)
        if "int_max_str_digits" in message or "Exceeds the limit" in message:
            message = "a number has more than 4,300 digits"
        raise MalformedJSONError(f"{what} is not valid JSON: {message}") from None
    return data, _surrogate_pointers(text, data)


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


class _Found(str):
    """A pointer already made (to a key that holds a lone surrogate), kept in its place."""


def _walk(value: Any) -> list[str]:
    """Pointers to the strings and keys of ``value`` that hold a lone surrogate, in
    document order. Iterative: a body the parser read may be nested about 1,000 deep,
    deeper than Python lets a recursive walk go from inside a request.

    >>> _walk({"a": ["x", "\\ud800"], "\\udc00": 1, "b": {"c": "\\udfff"}})
    ['/a/1', '/\\\\udc00', '/b/c']
    """
    found: list[str] = []
    stack: list[tuple[Any, tuple[object, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, _Found):
            found.append(str(item))
        elif isinstance(item, str):
            if _has_surrogate(item):
                found.append(pointer(*path))
        elif isinstance(item, dict):
            stack.extend(reversed([
                (_Found(pointer(*path, key.encode("utf-8", "backslashreplace").decode())), ())
                if _has_surrogate(key) else (child, (*path, key)) for key, child in item.items()]))
        elif isinstance(item, list):
            stack.extend((item[i], (*path, i)) for i in range(len(item) - 1, -1, -1))
    return found


def _surrogate_pointers(text: str, data: Any) -> list[str]:
    """Pointers to the strings (and keys) of ``data``, parsed from ``text``, that hold a lone
    UTF-16 surrogate escape (each is told :data:`SURROGATE_DETAIL`).

    >>> _surrogate_pointers('{"a": ["\\\\ud800"]}', {"a": ["\\ud800"]})
    ['/a/0']
    """
    return _walk(data) if "\\u" in text else []  # escapes are rare: walk only then
