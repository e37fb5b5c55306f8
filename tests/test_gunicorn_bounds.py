"""What one client may hold of a worker (service/gunicorn_bounds.py), in process: request
heads read by gunicorn's own parser from a socket pair or a list of pieces, bounded and
paced (the pace's sleeps are counted, not timed), and the per-address share."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import gevent
import pytest
from gunicorn.config import Config
from gunicorn.http.errors import LimitRequestHeaders

from service import gunicorn_bounds
from service.gunicorn_bounds import (
    HEAD_FREE_READS,
    HEAD_READ_PACE,
    MAX_HEAD_BYTES,
    AddressShares,
    BoundedParser,
    BoundedRequest,
    address_of,
    bounded_parser,
)

ADDRESS = ("127.0.0.1", 40000)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The seconds of each pause the bounded head asks gevent for (none is taken)."""
    asked: list[float] = []
    monkeypatch.setattr(gevent, "sleep", asked.append)
    return asked


def head_with(fields: int, size: int = 8000) -> bytes:
    """A request head with ``fields`` header lines of ``size`` bytes each, ended."""
    lines = b"".join(b"X-F%d: %s\r\n" % (i, b"a" * (size - 8)) for i in range(fields))
    return b"GET /v1/x HTTP/1.1\r\nHost: h\r\n" + lines + b"\r\n"


def read_over_socket(data: bytes) -> Any:
    """The first request gunicorn's bounded parser reads from a socket that received ``data``
    (in gunicorn's reads of at most 8 KiB, as from a client)."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(data)
        theirs.shutdown(socket.SHUT_WR)
        return next(BoundedParser(Config(), ours, ADDRESS))


def test_a_head_within_the_bound_is_read_whole(sleeps: list[float]) -> None:
    data = head_with(3)  # 24 kB of fields: three of the largest ordinary ones
    assert len(data) < MAX_HEAD_BYTES
    request = read_over_socket(data)
    assert isinstance(request, BoundedRequest)
    assert (request.method, request.path) == ("GET", "/v1/x")
    assert [name for name, _ in request.headers] == ["HOST", "X-F0", "X-F1", "X-F2"]
    assert sleeps == [], "a head that came whole waited"


def test_a_head_over_the_bound_is_refused_with_431(sleeps: list[float]) -> None:
    # 48 kB: each field within gunicorn's own limit, the head over ours. The bound is looked at
    # before each read of 8 KiB: a head still unended when MAX_HEAD_BYTES are held is refused.
    data = head_with(6)
    with pytest.raises(LimitRequestHeaders, match=f"request head over {MAX_HEAD_BYTES} bytes"):
        read_over_socket(data)


def test_a_trickled_head_is_paced_after_the_free_reads(sleeps: list[float]) -> None:
    data = b"GET / HTTP/1.1\r\nHost: h\r\n\r\n"
    parser = BoundedParser(Config(), iter([bytes([b]) for b in data]), ADDRESS)  # a byte at a time
    request = next(parser)
    assert request.headers == [("HOST", "h")]
    assert request._reads > HEAD_FREE_READS
    assert sleeps == [HEAD_READ_PACE] * (request._reads - HEAD_FREE_READS)


def test_a_head_in_a_few_pieces_is_not_paced(sleeps: list[float]) -> None:
    pieces: Iterator[bytes] = iter([b"GET / HTTP/1.1\r\nHo", b"st: h\r\n", b"\r\n"])
    request = next(BoundedParser(Config(), pieces, ADDRESS))
    assert request.headers == [("HOST", "h")]
    assert sleeps == []


def test_an_abandoned_body_closes_the_connection() -> None:
    request = read_over_socket(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
    assert not request.should_close()  # HTTP/1.1: keep-alive
    request.body = SimpleNamespace(failed=True)  # its reading failed or was given up
    assert request.should_close()


def test_http_1_gets_the_bounded_parser_and_the_rest_gunicorns(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[Any, ...]] = []

    def gunicorns(*args: Any) -> str:
        asked.append(args)
        return "gunicorn's"

    monkeypatch.setattr(gunicorn_bounds, "_gunicorn_parser", gunicorns)
    cfg = Config()
    assert isinstance(bounded_parser(cfg, iter([]), ADDRESS), BoundedParser)
    assert bounded_parser(cfg, "src", ADDRESS, http2_connection=True) == "gunicorn's"
    uwsgi = SimpleNamespace(protocol="uwsgi")
    assert bounded_parser(uwsgi, "src", ADDRESS) == "gunicorn's"
    assert asked == [(cfg, "src", ADDRESS, True), (uwsgi, "src", ADDRESS, False)]


def test_each_address_holds_at_most_its_share() -> None:
    shares = AddressShares(2)
    assert [shares.admit("10.0.0.1") for _ in range(3)] == [True, True, False]
    assert shares.admit("10.0.0.2"), "another address has its own share"
    assert (shares.held("10.0.0.1"), shares.held("10.0.0.2"), len(shares)) == (2, 1, 2)
    shares.release("10.0.0.1")
    assert shares.admit("10.0.0.1")
    shares.release("10.0.0.2")
    assert (shares.held("10.0.0.2"), len(shares)) == (0, 1), "an address holding none is forgotten"


def test_the_address_of_a_connection() -> None:
    assert address_of(("::1", 40000, 0, 0)) == "::1"
    assert address_of(("10.0.0.1", 1)) == "10.0.0.1"
    assert address_of("/run/gnau.sock") == "-"
