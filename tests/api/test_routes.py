"""The route table (service/http/routes.py): both dispatchers built from it, one way to answer.

Every golden-corpus request to a route the WSGI dispatcher answers is sent to its app and to
a twin without the dispatcher (everything through Flask's URL map and the table's one Flask
adapter), and the two answers must be the same bytes: status, every header in order, body.
Then: which routes each dispatcher has, that a request to a dispatched route (answered or
refused) never reaches Flask, that a bug is a logged 500 without a trace, that CORS and
counting apply to every route, once, and that the app has no Flask hook a dispatched route
would skip.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from flask import Flask
from prometheus_client import REGISTRY

from service.http.app import create_app
from service.http.middleware import EveryAnswer
from service.http.ops import reject_query_on_reads
from service.http.routes import ROUTES, Dispatcher, Route
from service.operations import Answer
from service.receipts import RECEIPT_OPERATIONS
from tests.api.golden.record import app_config, app_named, load, send

#: The routes answered at the WSGI layer: every POST operation of openapi.yaml.
DISPATCHED = {"/v1/evaluations", "/v1/evaluations/batch", "/v1/rankings", "/v1/settlements", "/v1/showdowns",
              "/v1/exposures", "/v1/deals", "/v1/deals/verify", "/v1/odds", "/v1/analyses/distribution",
              "/v1/analyses/house-edge"}
HAND = ["10S", "7H", "3D", "KC", "7D"]
GAME = "https://table.example"

ENTRIES = [e for e in load() if e["method"] == "POST" and e["path"].split("?")[0] in DISPATCHED]


def _dispatcher(app: Flask) -> Dispatcher:
    every = app.wsgi_app
    assert isinstance(every, EveryAnswer)
    assert isinstance(every.wsgi_app, Dispatcher)
    return every.wsgi_app


@cache
def _flask_only(name: str) -> Flask:
    """The corpus app ``name`` with every request through Flask."""
    app = create_app(app_config(name))
    every = app.wsgi_app
    assert isinstance(every, EveryAnswer)
    every.wsgi_app = _dispatcher(app).flask_app
    return app


def _raw(response: Any) -> tuple[str, list[tuple[str, str]], bytes]:
    """Status, headers and body, the request id (generated when the one sent is not valid)
    as ``<id>`` wherever it is."""
    found = response.headers["X-Request-ID"]
    headers = [(k, "<id>" if k == "X-Request-ID" else v) for k, v in response.headers.items()]
    return response.status, headers, response.get_data().replace(found.encode(), b"<id>")


def test_the_corpus_reaches_every_dispatched_route_answered_and_refused() -> None:
    statuses: dict[str, set[int]] = {}
    for entry in ENTRIES:
        statuses.setdefault(entry["path"].split("?")[0], set()).add(entry["response"]["status"])
    assert set(statuses) == DISPATCHED
    assert all(200 in s and any(code >= 400 for code in s) for s in statuses.values()), statuses
    assert len(ENTRIES) >= 200


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_a_dispatched_route_answers_the_bytes_the_flask_adapter_answers(entry: dict[str, Any]) -> None:
    sent = entry | {"headers": {"X-Request-ID": "route-test"} | entry.get("headers", {})}
    name = entry.get("app", "default")
    direct, flask = send(sent, app_named(name)), send(sent, _flask_only(name))
    assert _raw(direct) == _raw(flask)
    assert direct.status_code == entry["response"]["status"]


def test_both_dispatchers_are_built_from_the_table() -> None:
    app = create_app({"TESTING": True, "CORS_ORIGINS": ""})
    assert set(_dispatcher(app).routes) == DISPATCHED
    rules = {(rule.rule, rule.endpoint): (rule.methods or set()) - {"HEAD", "OPTIONS"} for rule in app.url_map.iter_rules()
             if rule.endpoint in {r.operation_id for r in ROUTES}}
    assert rules == {(r.path, r.operation_id): {r.method} for r in ROUTES}
    assert {r.operation_id for r in ROUTES if r.signs} == RECEIPT_OPERATIONS
    heavy = {r.operation_id: r.heavy_bytes for r in ROUTES if r.heavy_bytes is not None}
    assert heavy["oddsAgainstDealer"] == heavy["analyseDistribution"] == heavy["analyseHouseEdge"] == 0
    assert heavy["evaluateHands"] == heavy["settleRound"] > 0
    assert {r.operation_id for r in ROUTES if r.gc_pause} == {"evaluateHands", "rankHands"}


def _watching_flask(app: Flask) -> list[str]:
    """The paths of the requests that reach Flask from now on."""
    dispatcher = _dispatcher(app)
    reached: list[str] = []
    flask_app = dispatcher.flask_app

    def through_flask(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        reached.append(environ["PATH_INFO"])
        return flask_app(environ, start_response)

    dispatcher.flask_app = through_flask
    return reached


def test_a_dispatched_request_never_reaches_flask_answered_or_refused() -> None:
    app = create_app({"TESTING": True, "CORS_ORIGINS": ""})
    reached = _watching_flask(app)
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
    refused = client.post("/v1/evaluations?profile=nope", json={"hand": ["AS", "AS"]},
                          headers={"X-Request-ID": "refused-1"})
    assert refused.status == "400 BAD REQUEST"
    assert refused.mimetype == "application/problem+json"
    problem = refused.get_json()
    assert (problem["instance"], problem["request_id"]) == ("/v1/evaluations", "refused-1")
    assert {e.get("parameter") for e in problem["errors"]} >= {"profile"}
    malformed = client.post("/v1/exposures", data=b'{"players": [', content_type="application/json")
    assert malformed.get_json()["type"] == "/problems/malformed-json"
    unsupported = client.post("/v1/odds", data=b"{}", content_type="text/plain")
    assert unsupported.status_code == 415
    assert reached == []
    assert client.get("/v1/evaluations").status_code == 405  # other methods: Flask's URL map
    assert client.get("/v1/profiles/standard").status_code == 200  # path variables: the adapter
    assert reached == ["/v1/evaluations", "/v1/profiles/standard"]


def test_a_bug_on_a_dispatched_route_is_a_logged_500_without_a_trace(caplog: pytest.LogCaptureFixture) -> None:
    app = create_app({"TESTING": True, "CORS_ORIGINS": ""})

    def broken(call: Any) -> Any:
        raise RuntimeError("a bug, with a secret in its message")

    routes = _dispatcher(app).routes
    routes["/v1/settlements"] = routes["/v1/settlements"]._replace(operation=broken)
    with caplog.at_level(logging.ERROR, logger="service.errors"):
        reply = app.test_client().post("/v1/settlements", json={})
    assert reply.status_code == 500
    assert reply.mimetype == "application/problem+json"
    assert reply.get_json()["type"] == "/problems/internal-error"
    assert b"secret" not in reply.get_data()
    assert b"Traceback" not in reply.get_data()
    [record] = [r for r in caplog.records if r.name == "service.errors"]
    assert record.exc_info is not None
    assert isinstance(record.exc_info[1], RuntimeError)


def test_with_cors_on_the_dispatched_routes_stay_direct_and_carry_cors() -> None:
    app = create_app({"TESTING": True, "CORS_ORIGINS": GAME})
    assert set(_dispatcher(app).routes) == DISPATCHED
    reached = _watching_flask(app)
    client = app.test_client()
    reply = client.post("/v1/evaluations", json={"hand": HAND}, headers={"Origin": GAME})
    assert reply.status_code == 200
    assert reply.headers["Vary"] == "Accept-Language, Origin"
    assert reply.headers["Access-Control-Allow-Origin"] == GAME
    assert reply.headers["Access-Control-Expose-Headers"] == "X-Request-ID"
    refused = client.post("/v1/settlements", json={}, headers={"Origin": GAME})
    assert refused.status_code == 400
    assert refused.headers["Access-Control-Allow-Origin"] == GAME
    other = client.post("/v1/evaluations", json={"hand": HAND}, headers={"Origin": "https://other.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    assert reached == []
    preflight = client.options("/v1/evaluations", headers={"Origin": GAME, "Access-Control-Request-Method": "POST"})
    assert preflight.headers["Access-Control-Allow-Methods"] == "GET, POST"
    assert reached == ["/v1/evaluations"]


def _count(route: str, method: str, status: int) -> float:
    value = REGISTRY.get_sample_value("gnau_http_requests_total",
                                      {"route": route, "method": method, "status": str(status)})
    return value or 0.0


@pytest.mark.parametrize(("method", "path", "body", "route", "status"), [
    ("POST", "/v1/evaluations", {"hand": HAND}, "/v1/evaluations", 200),
    ("POST", "/v1/evaluations", {"hand": ["AS"]}, "/v1/evaluations", 400),
    ("GET", "/v1/profiles/standard", None, "/v1/profiles/<name>", 200),
    ("GET", "/v1/profiles/none", None, "/v1/profiles/<name>", 404),
    ("GET", "/v1/nowhere", None, "unmatched", 404),
])
def test_every_answer_is_counted_once(method: str, path: str, body: Any, route: str, status: int) -> None:
    app = create_app({"TESTING": True, "CORS_ORIGINS": ""})
    before = _count(route, method, status)
    reply = app.test_client().open(path, method=method, json=body)
    assert reply.status_code == status
    assert _count(route, method, status) == before + 1


def test_no_flask_hook_is_skipped_by_a_dispatched_route(app: Flask) -> None:
    """What every answer needs is added at the WSGI layer; Flask's hooks are only the ones a
    dispatched route has no use for: refusing a query on reads (``GET``), and the docs page's
    protection (``/docs``)."""
    assert app.before_request_funcs == {None: [reject_query_on_reads]}
    assert set(app.after_request_funcs) == {"docs"}
    assert not app.teardown_request_funcs


def test_a_route_row_is_all_a_new_endpoint_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row added to the table is served by both dispatchers."""
    from service.http import app as app_module

    row = Route("/v1/echo", "POST", "echoBody", lambda c: Answer({"echo": c.body, "profiles": len(c.profiles)}))
    monkeypatch.setattr(app_module, "ROUTES", (*ROUTES, row))
    app = create_app({"TESTING": True, "CORS_ORIGINS": ""})
    reply = app.test_client().post("/v1/echo", json=[1])
    assert reply.status_code == 200
    assert reply.get_json()["echo"] == [1]
    assert "/v1/echo" in _dispatcher(app).routes
    assert app.test_client().get("/v1/echo").status_code == 405
