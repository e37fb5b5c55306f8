"""Direct routes (service/http/direct.py): the busiest POST routes answered without Flask's
request machinery, exactly as Flask answers them.

Every golden-corpus request to a direct route is sent to its app and to a twin whose direct
routes are taken out (everything through Flask), and the two answers must be the same
bytes: status, every header in order, body. Then: which routes are direct, that a valid
request never reaches Flask, that what a handler raises is answered by Flask's error
handlers without the work being done again, and that CORS turns direct routes off.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from flask import Flask

from service.http import scoring
from service.http.app import create_app
from service.http.direct import DirectRoutes, Handler
from service.http.middleware import EveryAnswer
from tests.api.golden.record import app_config, app_named, load, send

#: The direct routes: every POST route of a scoring or deal operation (openapi.yaml).
DIRECT = {"/v1/evaluations", "/v1/evaluations/batch", "/v1/rankings", "/v1/settlements", "/v1/showdowns",
          "/v1/deals", "/v1/deals/verify"}
HAND = ["10S", "7H", "3D", "KC", "7D"]

ENTRIES = [e for e in load() if e["method"] == "POST" and e["path"].split("?")[0] in DIRECT]


def _direct_routes(app: Flask) -> DirectRoutes:
    every = app.wsgi_app
    assert isinstance(every, EveryAnswer)
    assert isinstance(every.wsgi_app, DirectRoutes)
    return every.wsgi_app


@cache
def _flask_only(name: str) -> Flask:
    """The corpus app ``name`` with every request through Flask."""
    app = create_app(app_config(name))
    every = app.wsgi_app
    assert isinstance(every, EveryAnswer)
    every.wsgi_app = _direct_routes(app).wsgi_app
    return app


def _raw(response: Any) -> tuple[str, list[tuple[str, str]], bytes]:
    """Status, headers and body, the request id (generated when the one sent is not valid)
    as ``<id>`` wherever it is."""
    found = response.headers["X-Request-ID"]
    headers = [(k, "<id>" if k == "X-Request-ID" else v) for k, v in response.headers.items()]
    return response.status, headers, response.get_data().replace(found.encode(), b"<id>")


def test_the_corpus_reaches_every_direct_route_answered_and_refused() -> None:
    statuses: dict[str, set[int]] = {}
    for entry in ENTRIES:
        statuses.setdefault(entry["path"].split("?")[0], set()).add(entry["response"]["status"])
    assert set(statuses) == DIRECT
    assert all(200 in s and any(code >= 400 for code in s) for s in statuses.values()), statuses
    assert len(ENTRIES) >= 150


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_a_direct_route_answers_the_bytes_flask_answers(entry: dict[str, Any]) -> None:
    sent = entry | {"headers": {"X-Request-ID": "direct-test"} | entry.get("headers", {})}
    name = entry.get("app", "default")
    direct, flask = send(sent, app_named(name)), send(sent, _flask_only(name))
    assert _raw(direct) == _raw(flask)
    assert direct.status_code == entry["response"]["status"]


def test_the_direct_routes_are_the_marked_post_routes_of_the_url_map() -> None:
    app = create_app({"TESTING": True, "CORS_ORIGINS": ""})
    assert set(_direct_routes(app).routes) == DIRECT


def test_a_valid_request_never_reaches_flask_and_a_refused_one_does() -> None:
    app = create_app({"TESTING": True, "CORS_ORIGINS": ""})
    routes = _direct_routes(app)
    reached: list[str] = []
    flask_app = routes.wsgi_app

    def through_flask(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        reached.append(environ["PATH_INFO"])
        return flask_app(environ, start_response)

    routes.wsgi_app = through_flask
    client = app.test_client()
    ok = client.post("/v1/evaluations", json={"hand": HAND}, headers={"Accept-Language": "zh-Hant"})
    assert ok.status_code == 200
    assert ok.get_json()["label"] == "牛牛"
    assert ok.headers["Content-Language"] == "zh-Hant"
    assert ok.headers["Vary"] == "Accept-Language"
    assert ok.headers["X-Content-Type-Options"] == "nosniff"
    assert ok.headers["X-Request-ID"]
    dealt = client.post("/v1/deals", json={"server_seed": "ab" * 32, "client_seed": "c", "nonce": 1, "hands": 2})
    assert dealt.status_code == 200
    assert len(dealt.get_json()["hands"]) == 2
    assert reached == []
    refused = client.post("/v1/evaluations", json={"hand": ["AS", "AS"]})
    assert refused.status_code == 400
    assert refused.mimetype == "application/problem+json"
    assert refused.get_json()["instance"] == "/v1/evaluations"
    assert client.get("/v1/evaluations").status_code == 405
    assert reached == ["/v1/evaluations", "/v1/evaluations"]


def _counting(handler: Handler, calls: Counter[str], name: str) -> Handler:
    def counted(*args: Any) -> tuple[bytes, str | None]:
        calls[name] += 1
        return handler(*args)

    return counted


def test_what_a_handler_raised_is_answered_by_flask_without_doing_the_work_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app({"TESTING": True, "CORS_ORIGINS": ""})
    routes = _direct_routes(app).routes
    calls: Counter[str] = Counter()
    routes["/v1/evaluations"] = _counting(routes["/v1/evaluations"], calls, "direct")
    monkeypatch.setattr(scoring, "_EVALUATE", _counting(scoring._EVALUATE, calls, "view"))
    client = app.test_client()
    bad = client.post("/v1/evaluations?profile=nope", json={"hand": HAND})
    assert bad.status_code == 400
    assert bad.get_json()["errors"][0]["parameter"] == "profile"
    assert calls == {"direct": 1}
    malformed = client.post("/v1/evaluations", data=b'{"hand": [', content_type="application/json")
    assert malformed.status_code == 400
    assert malformed.get_json()["type"] == "/problems/malformed-json"
    assert calls == {"direct": 2}


def test_a_bug_in_a_direct_handler_is_a_logged_500_without_a_trace(caplog: pytest.LogCaptureFixture) -> None:
    app = create_app({"TESTING": True, "CORS_ORIGINS": ""})

    def broken(*args: Any) -> tuple[bytes, str | None]:
        raise RuntimeError("a bug, with a secret in its message")

    _direct_routes(app).routes["/v1/settlements"] = broken
    with caplog.at_level(logging.ERROR, logger="service.errors"):
        reply = app.test_client().post("/v1/settlements", json={})
    assert reply.status_code == 500
    assert reply.mimetype == "application/problem+json"
    assert b"secret" not in reply.get_data()
    assert b"Traceback" not in reply.get_data()
    [record] = [r for r in caplog.records if r.name == "service.errors"]
    assert record.exc_info is not None
    assert isinstance(record.exc_info[1], RuntimeError)


def test_with_cors_on_nothing_is_direct_and_answers_vary_on_origin() -> None:
    app = create_app({"TESTING": True, "CORS_ORIGINS": "https://table.example"})
    assert _direct_routes(app).routes == {}
    reply = app.test_client().post("/v1/evaluations", json={"hand": HAND})
    assert reply.status_code == 200
    assert "Origin" in reply.headers["Vary"]
