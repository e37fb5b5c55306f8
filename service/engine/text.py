"""How the service echoes what a caller sent: short, whatever was sent.

Every value quoted back in an error message goes through :func:`echo`, so a response (or
a log line) never grows with the input: at most :data:`ECHO_LIMIT` characters of the
value are quoted, then ``…``.
"""

from __future__ import annotations

__all__ = ["ECHO_LIMIT", "clip", "echo", "echo_bare"]

#: The most characters of a caller's value quoted in a message.
ECHO_LIMIT = 40


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, with ``…`` when anything was cut.

    >>> clip("x" * 50), clip("short")
    ('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…', 'short')
    """
    return text if len(text) <= limit else text[:limit] + "…"


def echo(value: object, limit: int = ECHO_LIMIT) -> str:
    """A caller's value quoted for a message: ``repr`` of at most ``limit`` characters of
    it (a string is cut before quoting, so escapes cannot grow it past 4 × the limit).

    >>> echo("AS"), echo(7), len(echo("\\x7f" * 10**6))
    ("'AS'", '7', 163)
    """
    if isinstance(value, str):
        return repr(value[:limit]) + ("…" if len(value) > limit else "")
    return clip(repr(value), limit)


def echo_bare(text: str, limit: int = ECHO_LIMIT) -> str:
    """A caller's text shown in a message without quotes (a request's path): at most
    ``limit`` characters of it, then ``…``; a character that does not print (a control or
    format character such as a bidirectional override) is written as its escape.

    >>> echo_bare("/v2"), echo_bare("/v1/" + "z" * 50), echo_bare("/v1/\u202e/x")
    ('/v2', '/v1/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz…', '/v1/\\\\u202e/x')
    """
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in clip(text, limit))
