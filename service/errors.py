"""What is wrong with a request, found before any answer: plain Python, no web framework.

Every problem is an :data:`ErrorItem`: a ``detail`` and where it is, either a ``pointer``
(RFC 6901) into the body or the name of a query ``parameter`` (or, for the ``gnau``
command, of its option). The operations (:mod:`service.operations`) raise
:class:`InvalidRequestError` with every problem found; the HTTP layer answers it as a 400
problem details (:mod:`service.http.problems`), the command as one line on stderr.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["UNKNOWN_FIELD", "ErrorItem", "InvalidRequestError", "flatten_messages", "in_body_order", "pointer"]

#: What a request hears of a member its schema does not have.
UNKNOWN_FIELD = "unknown field"

#: One problem: ``{"pointer": "/players/2/hand/0", "detail": ...}`` or
#: ``{"parameter": "profile", "detail": ...}``.
ErrorItem = dict[str, str]


class InvalidRequestError(Exception):
    """A request with problems; ``errors`` lists every one, in the order found.

    :param errors: the problems (at least one).

    >>> InvalidRequestError([{"pointer": "/hand", "detail": "too short"}]).errors
    [{'pointer': '/hand', 'detail': 'too short'}]
    """

    def __init__(self, errors: Iterable[ErrorItem]) -> None:
        self.errors = list(errors)
        super().__init__("; ".join(e["detail"] for e in self.errors))


def pointer(*parts: object) -> str:
    """A JSON pointer (RFC 6901) from path parts.

    >>> pointer("players", 2, "hand", 0), pointer(), pointer("a/b", "~")
    ('/players/2/hand/0', '', '/a~1b/~0')
    """
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def in_body_order(messages: Any, body: Any) -> Any:
    """marshmallow's messages with the unknown fields of each object in the order the body
    gave them (marshmallow finds them through a set, whose order varies with string hashing
    between processes); every other message keeps its place.

    >>> in_body_order({"hand": ["bad"], "b": ["unknown field"], "a": ["unknown field"]}, {"a": 1, "hand": 2, "b": 3})
    {'hand': ['bad'], 'a': ['unknown field'], 'b': ['unknown field']}
    """
    if not isinstance(messages, Mapping):
        return messages
    if isinstance(body, Mapping):
        given = {key: i for i, key in enumerate(body)}
        keys = list(messages)
        slots = [i for i, key in enumerate(keys) if key in given and messages[key] == [UNKNOWN_FIELD]]
        for slot, key in zip(slots, sorted((keys[i] for i in slots), key=given.__getitem__), strict=True):
            keys[slot] = key
    else:
        keys = list(messages)
    out = {}
    for key in keys:
        child: Any = None
        if isinstance(body, Mapping):
            child = body.get(key)
        elif isinstance(body, list) and isinstance(key, int) and 0 <= key < len(body):
            child = body[key]
        out[key] = in_body_order(messages[key], child)
    return out


def flatten_messages(messages: Any, path: tuple[object, ...] = ()) -> list[ErrorItem]:
    """Turn marshmallow's nested error messages into ``{"pointer", "detail"}`` items.

    Keys ``_schema`` (marshmallow's) and ``_self`` (ours) name the container itself.

    >>> flatten_messages({"hand": {0: ["bad card"], "_self": ["too short"]}, "x": ["Unknown field."]})
    [{'pointer': '/hand/0', 'detail': 'bad card'}, {'pointer': '/hand', 'detail': 'too short'}, {'pointer': '/x', 'detail': 'Unknown field.'}]
    """
    out: list[ErrorItem] = []
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            sub = path if key in ("_schema", "_self") else (*path, key)
            out.extend(flatten_messages(value, sub))
    elif isinstance(messages, (list, tuple)):
        for item in messages:
            out.extend(flatten_messages(item, path))
    else:
        out.append({"pointer": pointer(*path), "detail": str(messages)})
    return out
