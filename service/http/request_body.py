"""Reading a request body with a size limit and a deadline, whatever its framing.

The body is read straight from the WSGI input that gunicorn frames (``Content-Length``
or chunked), in pieces, until its end, one byte past the limit, or the deadline:

- over ``limit`` bytes (however framed): :class:`BodyTooLargeError` (413), the rest left
  unread and the connection closed after the answer;
- not all there within ``seconds`` (a client that stops sending, or trickles): the read
  is abandoned and :class:`BodyTimeoutError` is raised (408), so a stalled request holds its
  greenlet for a bounded time. The deadline is a ``gevent.Timeout``, which interrupts the
  read wherever it waits; gunicorn.conf.py serves with gevent workers;
- broken framing (a bad chunk size, a missing chunk terminator, the connection closed
  before ``Content-Length`` bytes came): :class:`BodyFramingError` (400).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gevent
from gunicorn.http.errors import NoMoreData, ParseException

__all__ = ["BodyFramingError", "BodyTimeoutError", "BodyTooLargeError", "read_body"]

_CHUNK = 64 * 1024


class BodyTooLargeError(Exception):
    """The body goes on past the limit."""


class BodyTimeoutError(Exception):
    """The body did not arrive within the deadline."""


class BodyFramingError(Exception):
    """The body's framing is broken (chunked encoding, or a short ``Content-Length`` body)."""


def read_body(environ: Mapping[str, Any], limit: int, seconds: float) -> bytes:
    """The whole request body.

    :param environ: the WSGI environment (``wsgi.input``, ``CONTENT_LENGTH``).
    :param limit: the most bytes accepted; a body of exactly ``limit`` bytes is read.
    :param seconds: the deadline for the whole body, from the first read.
    :return: the body's bytes (``b""`` when there is none).
    :raises BodyTooLargeError: the body is over ``limit`` bytes (a declared ``Content-Length``
        over it is refused before anything is read).
    :raises BodyTimeoutError: the body was not complete within ``seconds``.
    :raises BodyFramingError: the framing is broken; the message says how.

    >>> import io
    >>> read_body({"wsgi.input": io.BytesIO(b"x" * 10), "CONTENT_LENGTH": "10"}, 10, 1.0)
    b'xxxxxxxxxx'
    >>> read_body({"wsgi.input": io.BytesIO(b"x" * 11)}, 10, 1.0)
    Traceback (most recent call last):
        ...
    service.http.request_body.BodyTooLargeError
    """
    declared = str(environ.get("CONTENT_LENGTH") or "").strip()
    want = int(declared) if declared.isdigit() else None  # None: chunked, or no body
    stream = environ.get("wsgi.input")
    if want is not None and want > limit:
        _abandon(stream)
        raise BodyTooLargeError
    if stream is None:
        return b""
    pieces: list[bytes] = []
    size = 0
    try:
        with gevent.Timeout(seconds, BodyTimeoutError):
            while size <= limit if want is None else size < want:
                # With Content-Length, asked for all that is missing (gunicorn's input gives
                # it in one call, or less at the body's early end); else up to the limit's
                # next byte, a chunk at a time, until the end.
                piece = stream.read(min(_CHUNK, limit + 1 - size) if want is None else want - size)
                if not piece:
                    break
                pieces.append(piece)
                size += len(piece)
    except (ParseException, NoMoreData) as exc:
        raise BodyFramingError(_framing_detail(exc)) from None
    except OSError as exc:  # the peer reset the connection mid-body
        raise BodyFramingError(f"the connection failed while the body was read ({exc.strerror or exc})") from None
    if size > limit:
        _abandon(stream)
        raise BodyTooLargeError
    if want is not None and size < want:
        raise BodyFramingError(f"the body ended after {size} of the {want} bytes Content-Length announced")
    return b"".join(pieces)


def _abandon(stream: Any) -> None:
    """Mark the rest of a body as never to be read: gunicorn's input then counts as failed
    (its flag for a body whose reading raised), so the worker closes the connection after the
    answer and the answer says ``Connection: close`` (:mod:`service.gunicorn_worker`)."""
    if hasattr(stream, "failed"):
        stream.failed = True


def _framing_detail(exc: Exception) -> str:
    name = type(exc).__name__
    if name == "InvalidChunkSize":
        return "a chunk size of the chunked body is not a hexadecimal number"
    if name == "ChunkMissingTerminator":
        return "a chunk of the chunked body does not end with CRLF"
    if name == "InvalidChunkExtension":
        return "a chunk extension of the chunked body is malformed"
    if isinstance(exc, NoMoreData):
        return "the connection closed before the body was complete"
    return "the body's framing is malformed"
