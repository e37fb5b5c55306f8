"""Problem details answered outside Flask, pinned byte for byte: the worker's early answers
(what gunicorn refuses before the app sees a request, and the 503 past an address's share of
connections) and the probe listener's answers.

Each expected answer is written out here from the HTTP it must be (status line, the headers
that matter, the body), not read back from the code, so moving how they are made (the one
problem catalogue) is proven to change nothing a client sees.
"""

from __future__ import annotations

import ast
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from gunicorn import util
from gunicorn.http import errors
from gunicorn.workers.ggevent import GeventWorker

from service import problems
from service.gunicorn_bounds import AddressShares
from service.gunicorn_probes import Beat, Supervision, respond
from service.gunicorn_worker import Worker, write_problem
from tests import ROOT

# ------------------------------------------------------------------ the worker's early answers

WORKER_HEAD = ("HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
               "X-Content-Type-Options: nosniff\r\nContent-Length: {length}\r\n\r\n")


def worker_answer(status: int, reason: str, body: str) -> bytes:
    """What the worker writes: its head (the length of ``body`` in bytes) and ``body``."""
    data = body.encode()
    return WORKER_HEAD.format(status=status, reason=reason, length=len(data)).encode() + data


class _Log:
    """gunicorn's logger, as much of it as ``handle_error`` calls without a request."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def warning(self, msg: str, *args: Any) -> None:
        self.lines.append(msg % args if args else msg)

    exception = debug = warning


class _Stub:
    log = _Log()


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    server, client = socket.socketpair()
    client.settimeout(5)
    yield server, client
    server.close()
    client.close()


def _received(client: socket.socket) -> bytes:
    data = b""
    while chunk := client.recv(65536):
        data += chunk
    return data


def _gunicorn_refuses(exc: BaseException, pair: tuple[socket.socket, socket.socket],
                      monkeypatch: pytest.MonkeyPatch) -> bytes:
    """What a client hears when gunicorn's worker fails to read its request with ``exc``,
    the worker's ``write_error`` in place as ``Worker.init_process`` puts it."""
    server, client = pair
    monkeypatch.setattr(util, "write_error", write_problem)
    GeventWorker.handle_error(_Stub(), None, server, ("127.0.0.1", 40000), exc)
    server.close()
    return _received(client)


GUNICORN_REFUSALS = [
    pytest.param(errors.InvalidRequestMethod("deadbeef"), worker_answer(
        400, "Bad Request",
        '{"type": "/problems/bad-request", "title": "Bad Request", "status": 400, "detail": "Invalid Method"}'),
        id="400-method"),
    pytest.param(errors.InvalidHeader("Bad Header"), worker_answer(
        400, "Bad Request",
        '{"type": "/problems/bad-request", "title": "Bad Request", "status": 400, '
        '"detail": "Invalid HTTP Header"}'),
        id="400-header"),
    pytest.param(errors.LimitRequestLine(5000, 4094), worker_answer(
        414, "URI Too Long",
        '{"type": "/problems/uri-too-long", "title": "URI Too Long", "status": 414, '
        '"detail": "Request Line is too large (5000 > 4094)"}'),
        id="414"),
    pytest.param(errors.LimitRequestHeaders("request head over 32768 bytes"), worker_answer(
        431, "Request Header Fields Too Large",
        '{"type": "/problems/header-fields-too-large", "title": "Request Header Fields Too Large", '
        '"status": 431, "detail": "Error parsing headers"}'),
        id="431"),
    pytest.param(errors.ExpectationFailed("100-continue-please"), worker_answer(
        417, "Expectation Failed",
        '{"type": "/problems/expectation-failed", "title": "Expectation Failed", "status": 417, '
        '"detail": "Unable to comply with expectation"}'),
        id="417"),
    pytest.param(errors.ForbiddenProxyRequest("10.0.0.1"), worker_answer(
        403, "Forbidden",
        '{"type": "/problems/forbidden", "title": "Forbidden", "status": 403, "detail": "Request forbidden"}'),
        id="403"),
    # gunicorn keeps the reason "Bad Request" for its 501 and its 500 of a configuration problem.
    pytest.param(errors.UnsupportedTransferCoding("gzip"), worker_answer(
        501, "Bad Request",
        '{"type": "/problems/not-implemented", "title": "Bad Request", "status": 501, '
        '"detail": "Unsupported transfer coding"}'),
        id="501"),
    pytest.param(errors.ConfigurationProblem("no forwarded IPs"), worker_answer(
        500, "Bad Request",
        '{"type": "/problems/http-500", "title": "Bad Request", "status": 500, '
        '"detail": "Configuration problem: no forwarded IPs"}'),
        id="500-configuration"),
    pytest.param(ValueError("a bug"), worker_answer(
        500, "Internal Server Error",
        '{"type": "/problems/http-500", "title": "Internal Server Error", "status": 500, '
        '"detail": "The request could not be read."}'),
        id="500-bug"),
    # Cut to 200 characters (25 of words, the é, 174 x) and an ellipsis, non-ASCII escaped.
    pytest.param(errors.InvalidChunkExtension("é" + "x" * 300), worker_answer(
        400, "Bad Request",
        '{"type": "/problems/bad-request", "title": "Bad Request", "status": 400, '
        '"detail": "Invalid chunk extension: \\u00e9' + "x" * 174 + '\\u2026"}'),
        id="400-clipped"),
]


@pytest.mark.parametrize(("exc", "expected"), GUNICORN_REFUSALS)
def test_what_gunicorn_refuses_is_answered_as_problem_details(
        exc: BaseException, expected: bytes, pair: tuple[socket.socket, socket.socket],
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert _gunicorn_refuses(exc, pair, monkeypatch) == expected


def test_a_connection_past_the_address_share_is_a_503_and_closed(
        pair: tuple[socket.socket, socket.socket]) -> None:
    server, client = pair
    worker = Worker.__new__(Worker)  # no gunicorn set-up: handle() needs only the counts
    worker._shares = AddressShares(2)
    assert worker._shares.admit("10.0.0.2")
    assert worker._shares.admit("10.0.0.2")
    assert worker.handle(None, server, ("10.0.0.2", 40000)) is None
    assert server.fileno() == -1  # closed
    assert _received(client) == worker_answer(
        503, "Service Unavailable",
        '{"type": "/problems/too-many-connections", "title": "Service Unavailable", "status": 503, '
        '"detail": "This worker already holds 2 connections from your address, as many as one address '
        'may hold; reuse them (keep-alive), or retry later."}')
    assert worker._shares.held("10.0.0.2") == 2  # the refused one was never counted


# ------------------------------------------------------------------ the probe listener's answers


def probe_answer(status: str, body: str, *, kind: str = "application/problem+json", head_only: bool = False) -> bytes:
    """What the probe listener writes: ``status`` (``"200 OK"``), its headers and ``body``."""
    head = (f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
            "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n")
    return (head + ("" if head_only else body)).encode()


NOT_FOUND = probe_answer("404 Not Found", '{"type":"/problems/not-found","title":"Not found","status":404,'
                         '"detail":"This port serves GET /healthz and GET /readyz only."}')
NOT_ALLOWED = probe_answer("405 Method Not Allowed", '{"type":"/problems/method-not-allowed",'
                           '"title":"Method not allowed","status":405,"detail":"Use GET."}')


def _supervision(**changes: Any) -> tuple[Supervision, list[float]]:
    now = [100.0]
    s = Supervision(30, lambda: [Beat(True, now[0] - 1)], clock=lambda: now[0])
    s.master_ran()
    for name, value in changes.items():
        setattr(s, name, value)
    return s, now


@pytest.mark.parametrize(("line", "expected"), [
    (b"GET /healthz HTTP/1.1", probe_answer("200 OK", '{"status":"ok"}', kind="application/json")),
    (b"GET /readyz?probe=1 HTTP/1.1", probe_answer("200 OK", '{"status":"ready"}', kind="application/json")),
    (b"HEAD /healthz HTTP/1.1", probe_answer("200 OK", '{"status":"ok"}', kind="application/json", head_only=True)),
    (b"GET /metrics HTTP/1.1", NOT_FOUND),
    (b"HEAD /nope HTTP/1.1", NOT_FOUND),  # a 404 has its body even to HEAD
    (b"", NOT_FOUND),
    (b"POST /healthz HTTP/1.1", NOT_ALLOWED),
    (b"DELETE /readyz HTTP/1.1", NOT_ALLOWED),
])
def test_the_probe_listener_answers(line: bytes, expected: bytes) -> None:
    assert respond(_supervision()[0], line) == expected


def test_the_probe_listener_answers_unhealthy_and_not_ready() -> None:
    s, now = _supervision()
    now[0] += 12  # the master's loop has not run for 12 s
    unhealthy = '{"type":"/problems/unhealthy","title":"Unhealthy","status":503,' \
                '"detail":"Not live: the master has not run its loop for 12 s."}'
    assert respond(s, b"GET /healthz HTTP/1.1") == probe_answer("503 Service Unavailable", unhealthy)
    assert respond(s, b"HEAD /healthz HTTP/1.1") == probe_answer("503 Service Unavailable", unhealthy,
                                                                 head_only=True)
    assert respond(s, b"GET /readyz HTTP/1.1") == probe_answer(
        "503 Service Unavailable", '{"type":"/problems/not-ready","title":"Not ready","status":503,'
        '"detail":"Not ready: the master has not run its loop for 12 s."}')
    draining, _ = _supervision(draining=True)
    assert respond(draining, b"GET /healthz HTTP/1.1") == probe_answer(
        "200 OK", '{"status":"ok"}', kind="application/json")
    assert respond(draining, b"GET /readyz HTTP/1.1") == probe_answer(
        "503 Service Unavailable", '{"type":"/problems/not-ready","title":"Not ready","status":503,'
        '"detail":"Not ready: the server is draining after a shutdown signal."}')


# ------------------------------------------------------------------ one catalogue

PROBLEM_TEXT = ("/problems/", "problem+json")


def _literals_outside_docstrings(path: Path) -> Iterator[tuple[int, str]]:
    """Every string constant of the module at ``path`` but its docstrings, with its line."""
    module = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(module):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    for node in ast.walk(module):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_problem_types_are_written_in_the_catalogue_only() -> None:
    """No module but service/problems.py writes a problem type or the problem media type:
    code names a type of the catalogue (``ProblemError(NOT_FOUND, ...)``)."""
    service = ROOT / "service"
    found = [f"{path.relative_to(ROOT)}:{line}: {text[:60]!r}"
             for path in sorted(service.rglob("*.py")) if path != service / "problems.py"
             for line, text in _literals_outside_docstrings(path) if any(t in text for t in PROBLEM_TEXT)]
    assert found == [], "write these through service.problems' catalogue:\n" + "\n".join(found)


def test_the_catalogue_holds_every_type_it_declares_once() -> None:
    declared = [value for value in vars(problems).values() if isinstance(value, problems.ProblemType)]
    assert len(declared) == len(set(declared)) == len(problems.CATALOGUE)
    assert sorted(declared, key=lambda k: k.uri) == sorted(problems.CATALOGUE.values(), key=lambda k: k.uri)
    assert all(problems.CATALOGUE[kind.uri] is kind for kind in declared)
    assert all(kind.uri.startswith("/problems/") and 400 <= kind.status < 600 for kind in declared)


def test_every_type_the_contract_names_is_in_the_catalogue() -> None:
    named = set(re.findall(r"/problems/[a-z0-9-]+", (ROOT / "openapi.yaml").read_text(encoding="utf-8")))
    assert len(named) >= 8
    assert sorted(named - set(problems.CATALOGUE)) == []


def test_a_status_alone_names_the_type_frameworks_mean() -> None:
    # Werkzeug's and gunicorn's statuses, each the one type of its status in the catalogue.
    assert {s: problems.for_status(s).uri for s in (400, 404, 405, 413, 414, 415, 431)} == {
        400: "/problems/bad-request", 404: "/problems/not-found", 405: "/problems/method-not-allowed",
        413: "/problems/payload-too-large", 414: "/problems/uri-too-long",
        415: "/problems/unsupported-media-type", 431: "/problems/header-fields-too-large"}
    # 500 and 503 have several types here: a bare one is generic, never a guess among them.
    assert problems.for_status(503) == problems.ProblemType("/problems/http-503", "Error", 503)
    assert problems.for_status(418).uri == "/problems/http-418"


def test_bodies_bound_what_they_echo() -> None:
    data = problems.body(problems.VALIDATION_ERROR, "d" * 5000, instance="/v1/" + "x" * 500, request_id="r",
                         errors=[{"pointer": "/" + "k" * 500, "detail": "\ud800"}])
    members = json.loads(data)
    assert len(members["detail"]) == 1001
    assert members["detail"].endswith("…")
    assert len(members["instance"]) == 241
    assert len(members["errors"][0]["pointer"]) == 241
    assert b"\\ud800" in data  # a lone surrogate escaped, not a failure


def test_an_answer_without_flask_is_the_answer_flask_gives(client: FlaskClient) -> None:
    """:meth:`ProblemError.answer` (for the WSGI path) writes what Flask's handlers write."""
    reply = client.post("/v1/evaluations", data=b"{}", content_type="text/plain", headers={"X-Request-ID": "p-1"})
    status, headers, data = problems.ProblemError(
        problems.UNSUPPORTED_MEDIA_TYPE, "The body must be application/json, got text/plain.",
    ).answer("/v1/evaluations", "p-1")
    assert (reply.status_code, reply.data) == (status, data) == (415, (
        b'{"type":"/problems/unsupported-media-type","title":"Unsupported media type","status":415,'
        b'"detail":"The body must be application/json, got text/plain.","instance":"/v1/evaluations",'
        b'"request_id":"p-1"}'))
    assert [(k, reply.headers[k]) for k in ("Content-Type", "Content-Length")] == headers
