"""The strict JSON reader (service/json_text.py) gives exactly what the standard library's
strict reading gives, data or message, although orjson reads most texts first."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.json_text import MalformedJSONError, read_json_text


def _strict_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError("duplicate")
        out[key] = value
    return out


def _constant(name: str) -> None:
    raise ValueError(name)


def standard(text: str) -> tuple[str, Any]:
    """The oracle: ``("data", value)`` from the standard library's strict reading, or
    ``("error", None)``."""
    try:
        return "data", json.loads(text, object_pairs_hook=_strict_pairs, parse_constant=_constant)
    except (ValueError, RecursionError):
        return "error", None


def ours(text: str) -> tuple[str, Any]:
    try:
        return "data", read_json_text(text)[0]
    except MalformedJSONError:
        return "error", None


def same(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    """Equal outcome, value and types (``1`` is not ``1.0``; ``-0.0`` is not ``0.0``)."""
    return a[0] == b[0] and repr(a[1]) == repr(b[1])


TRICKY = [
    '{"a": 1, "a": 2}',
    '{"a": 1, "\\u0061": 2}',                      # the same key, spelled two ways
    '{"a": {"b": 1, "b": 1}}',
    '[{"a": 1}, {"a": 1, "a": 1}]',
    '{"a": ":", "b": 1}',                          # a colon inside a string
    '{"a:b": 1}',
    '{"{": 1, "a": {"c": 1}}',                     # a brace inside a string
    '["{", {"a": 1, "a": 2}]',
    '{}', '[]', '[{}]', '{"a": {}}', '""', '0', '-0', '-0.0', 'true', 'null',
    '9223372036854775807', '9223372036854775808', '-9223372036854775809', '18446744073709551616',
    '123456789012345678901234567890', '[1e400]', '[-1e400]', '[1e-400]', '1.5e308', '2.5E-3',
    '[NaN]', '[Infinity]', '[-Infinity]', '{"a": NaN}',
    '"\\ud800"', '"\\udc00\\ud800"', '"\\ud83d\\ude00"', '{"\\ud800": 1}',
    '\ufeff{}', ' \t\n{"a" : [ 1 , 2 ] }\r\n', '{"a": 1,}', '[1,]', "{'a': 1}", '', ' ',
    '"\x01"', '"\\u0000"', '{"a": "\\"", "b": "\\\\"}',
    '1' * 4300, '1' * 4301,
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_texts_read_as_the_standard_library_reads_them(text: str) -> None:
    assert same(ours(text), standard(text)), text


@pytest.mark.parametrize("depth", [10, 254, 255, 256, 300, 511, 512, 513, 900, 1023, 1024, 1025, 5000])
@pytest.mark.parametrize("spread", [False, True])
def test_deep_nesting_reads_as_the_standard_library_reads_it(depth: int, spread: bool) -> None:
    """orjson reads 1,024 levels, the standard library as many as the interpreter's
    recursion limit leaves (under 1,000); data orjson read deeper than 255 levels in a
    text of many brackets is read again by the standard library."""
    inner = ", [1], [2], [3]" if spread else ""  # many brackets, little depth
    text = "[" * depth + "0" + "]" * depth + inner * 200
    text = f"[{text}]" if spread else text
    assert same(ours(text), standard(text))


def test_messages_are_the_standard_librarys() -> None:
    with pytest.raises(MalformedJSONError, match=r"^The body is not valid JSON: duplicate key 'a' in an object"):
        read_json_text('{"b": {"a": 1, "a": 2}}')
    with pytest.raises(MalformedJSONError, match=r"^The body is not valid JSON: NaN is not valid JSON"):
        read_json_text('{"b": NaN}')
    with pytest.raises(MalformedJSONError, match=r"^The body is not valid JSON: a number has more than 4,300 digits"):
        read_json_text("1" * 4301)
    with pytest.raises(MalformedJSONError, match=r"^The body is not valid JSON: it is nested too deeply\.$"):
        read_json_text("[" * 5000 + "]" * 5000)


_keys = st.sampled_from(["a", "b", "hand", ":", "{", "\\u0061", "x:y"])
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6), st.sampled_from(["{", ":", "}{:"]),
)
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.lists(st.tuples(_keys, inner), max_size=4),  # pairs: an object, keys may repeat
), max_leaves=20)


def _text(value: Any) -> str:
    """JSON text of a generated value; a list of pairs is an object (repeats kept)."""
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
        return "{" + ", ".join(f"{json.dumps(k)}: {_text(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, tuple):
        return _text(list(value))
    return json.dumps(value)


@settings(max_examples=400, deadline=None)
@given(_values)
def test_any_text_reads_as_the_standard_library_reads_it(value: Any) -> None:
    text = _text(value).replace('"\\\\u0061"', '"\\u0061"')  # an escaped spelling of "a"
    assert same(ours(text), standard(text)), text


@pytest.mark.parametrize("padding", range(0, 40))
@pytest.mark.parametrize("digits", [8, 14, 15, 18, 19, 20, 25])
def test_long_numbers_anywhere_in_a_long_text_are_read_exactly(padding: int, digits: int) -> None:
    """A number of 19 or more digits is an int however it falls on the 8-byte blocks that
    long texts are checked in, at the end of the text too."""
    number = "9" * digits
    head = '{"a": "' + "x" * (5000 + padding) + '", "n": '
    for text in (head + number + "}", head + "[" + number + ", 1]}"):
        kind, data = ours(text)
        assert kind == "data"
        assert data["n"] in (int(number), [int(number), 1])
        assert same((kind, data), standard(text))


@pytest.mark.parametrize("text", [
    '{"server_seed": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "nonce": 7}',
    '["1234567890123456789012", 2.5]',
    '{"n": 123456789012345678901, "x": 1.5}',
    '[18446744073709551615, 18446744073709551616, -9223372036854775809]',
    '{"a": [1.0000000000000000000001, "99999999999999999999"]}',
])
def test_long_digit_runs_in_short_texts_read_as_the_standard_library_reads_them(text: str) -> None:
    """A run of 19 digits in a short text is read with orjson unless a float is about (where
    an integer past 64 bits would have gone): a hex seed's digits are no number."""
    assert ours(text)[0] == "data"
    assert same(ours(text), standard(text)), text  # repr: 10**20 is no float
