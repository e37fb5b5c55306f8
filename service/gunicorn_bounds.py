"""What one client may hold of a gunicorn worker: its share of connections, and a request head.

**Connections per address.** A worker serves at most ``gnau_address_connections``
connections from one client address at once (``GNAU_ADDRESS_CONNECTIONS``, 250 of its
``GNAU_WORKER_CONNECTIONS``): :class:`AddressShares` counts them, and the worker
(:mod:`service.gunicorn_worker`) answers a connection beyond with ``503
/problems/too-many-connections`` and closes it, so one address cannot take the whole pool.

**Request heads.** A request head (its header lines) may be at most :data:`MAX_HEAD_BYTES`
long (gunicorn's own limits allow 100 fields of 8,190 bytes, about 800 kB held per
connection, rescanned on every read by its parser): beyond, ``431``; and a head that has
not come whole after :data:`HEAD_FREE_READS` reads is read again only after
:data:`HEAD_READ_PACE`, so a client that trickles it a byte at a time wakes the worker a
hundred times a second, not once per byte (a head split over a few TCP segments, or cut at
the end of a read of pipelined requests, is read at once). :func:`bounded_parser` is
gunicorn's ``http.get_parser`` with these bounds; the worker puts it in gunicorn's place
(``Worker.patch``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import gevent
import gunicorn.http
from gunicorn.http.errors import LimitRequestHeaders
from gunicorn.http.message import Request
from gunicorn.http.parser import RequestParser

__all__ = ["HEAD_FREE_READS", "HEAD_READ_PACE", "MAX_HEAD_BYTES", "AddressShares", "BoundedParser",
           "BoundedRequest", "address_of", "bounded_parser"]

#: The most bytes of header lines a request head may hold (the request line has its own
#: limit, 4,094): an 8,000-byte header and a few ordinary ones fit.
MAX_HEAD_BYTES = 32 * 1024
#: Seconds a worker waits before reading more of a request head that has not ended: a
#: client trickling its head a byte at a time then costs at most 100 reads a second
#: (each read rescans the head so far), not one per byte; a head that arrives whole, as
#: every ordinary client sends it, never waits.
HEAD_READ_PACE = 0.01
#: Reads of one request head made at once, before the pace applies (the first takes what
#: came; an ordinary head split over segments, or cut at the end of a read, needs one or
#: two more).
HEAD_FREE_READS = 3


def address_of(addr: Any) -> str:
    """The client's host as gunicorn gives its address (``("10.0.0.1", 40000)``), ``-``
    when there is none (a Unix socket).

    >>> address_of(("10.0.0.1", 40000)), address_of(""), address_of(None)
    ('10.0.0.1', '-', '-')
    """
    return str(addr[0]) if isinstance(addr, tuple) and addr else "-"


class AddressShares:
    """The connections each client address holds open on one worker, each address at most
    ``limit`` at once.

    >>> shares = AddressShares(2)
    >>> shares.admit("10.0.0.1"), shares.admit("10.0.0.1"), shares.admit("10.0.0.1")
    (True, True, False)
    >>> shares.held("10.0.0.1"), shares.release("10.0.0.1"), shares.admit("10.0.0.1")
    (2, None, True)
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held: Counter[str] = Counter()

    def admit(self, host: str) -> bool:
        """Count one more connection of ``host``, if its share allows (``False``: it holds
        ``limit`` already, and nothing is counted)."""
        held = self._held
        if held[host] >= self.limit:
            return False
        held[host] += 1
        return True

    def release(self, host: str) -> None:
        """Count one connection of ``host`` closed (an address that holds none is forgotten)."""
        held = self._held
        held[host] -= 1
        if held[host] <= 0:
            del held[host]

    def held(self, host: str) -> int:
        """The connections ``host`` holds open."""
        return self._held.get(host, 0)

    def __len__(self) -> int:
        """The addresses holding a connection."""
        return len(self._held)


class BoundedRequest(Request):  # type: ignore[misc]
    """gunicorn's request, whose head may not grow past :data:`MAX_HEAD_BYTES`, read at
    most once per :data:`HEAD_READ_PACE` once :data:`HEAD_FREE_READS` reads have not
    brought it whole; once its body is abandoned, its answer says ``Connection: close``."""

    _reads = 0

    def should_close(self) -> bool:
        """Whether the connection closes after this request's answer: as gunicorn decides,
        and also when its body's reading failed or was given up."""
        # A body whose reading failed or was given up (its input's ``failed``: a broken chunk,
        # the body deadline, a body over the limit left unread,
        # service.http.request_body) leaves where the next request starts unknown: gunicorn
        # closes the connection after the answer, and the answer's head, written after,
        # says so instead of "keep-alive".
        body = getattr(self, "body", None)
        return getattr(body, "failed", False) is True or bool(super().should_close())

    def read_into(self, unreader: Any, buf: bytearray, stop: bool = False) -> None:
        """gunicorn's read of more of the head into ``buf``, bounded and paced.

        :raises LimitRequestHeaders: ``buf`` holds :data:`MAX_HEAD_BYTES` and the head has
            not ended (gunicorn answers 431).
        """
        # Asked for more while MAX_HEAD_BYTES are held and the head has not ended: refuse.
        # (A head that ends within the bound is never refused, whatever follows it.)
        if len(buf) >= MAX_HEAD_BYTES:
            raise LimitRequestHeaders(f"request head over {MAX_HEAD_BYTES} bytes")
        self._reads += 1
        if self._reads > HEAD_FREE_READS:  # the head keeps coming in pieces: let more of it arrive first
            gevent.sleep(HEAD_READ_PACE)
        super().read_into(unreader, buf, stop)


class BoundedParser(RequestParser):  # type: ignore[misc]
    """gunicorn's HTTP/1.x request parser, reading :class:`BoundedRequest`."""

    mesg_class = BoundedRequest


#: gunicorn's own ``http.get_parser`` (taken at import, before the worker replaces it).
_gunicorn_parser = gunicorn.http.get_parser


def bounded_parser(cfg: Any, source: Any, source_addr: Any, http2_connection: bool = False) -> Any:
    """gunicorn's ``http.get_parser``, with HTTP/1.x heads bounded (:class:`BoundedParser`;
    HTTP/2 and uWSGI as gunicorn parses them)."""
    if http2_connection or getattr(cfg, "protocol", "http") != "http":
        return _gunicorn_parser(cfg, source, source_addr, http2_connection)
    return BoundedParser(cfg, source, source_addr)
