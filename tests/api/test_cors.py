"""Browser callers: opt-in CORS (``GNAU_CORS_ORIGINS``) and query strings on probes and
preflights. The real-browser check is tests/live/test_cors_browser.py."""

from __future__ import annotations

import pytest
from flask import Flask

from service.http.app import create_app
from service.http.runtime import Runtime
from service.settings import CorsConfigError, parse_origins

GAME = "https://game.example"
PREFLIGHT = {"Origin": GAME, "Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "content-type,x-request-id"}
HAND = {"hand": ["10S", "7H", "3D", "KC", "7D"]}


def _app(origins: str | None) -> Flask:
    return create_app({"TESTING": True, "PROFILES_FILE": None, "CORS_ORIGINS": origins})


@pytest.fixture(scope="module")
def cors_app() -> Flask:
    return _app(f"{GAME}, http://localhost:3000")


def test_cors_is_off_by_default(app: Flask) -> None:
    client = app.test_client()
    preflight = client.options("/v1/evaluations?profile=standard", headers=PREFLIGHT)
    assert preflight.status_code == 200
    assert not [h for h in preflight.headers if h[0].lower().startswith("access-control-")]
    answer = client.post("/v1/evaluations", json=HAND, headers={"Origin": GAME})
    assert answer.status_code == 200
    assert "Access-Control-Allow-Origin" not in answer.headers


def test_cors_is_off_when_the_environment_names_no_origin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GNAU_CORS_ORIGINS", " ")
    app = create_app({"TESTING": True, "PROFILES_FILE": None})
    assert Runtime.of(app).cors_origins == []


def test_cors_origins_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GNAU_CORS_ORIGINS", GAME)
    app = create_app({"TESTING": True, "PROFILES_FILE": None})
    assert Runtime.of(app).cors_origins == [GAME]
    answer = app.test_client().post("/v1/evaluations", json=HAND, headers={"Origin": GAME})
    assert answer.headers["Access-Control-Allow-Origin"] == GAME


def test_preflight_with_a_query_string_is_allowed(cors_app: Flask) -> None:
    preflight = cors_app.test_client().options("/v1/evaluations?profile=standard", headers=PREFLIGHT)
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == GAME
    assert set(preflight.headers["Access-Control-Allow-Methods"].split(", ")) == {"GET", "POST"}
    assert set(preflight.headers["Access-Control-Allow-Headers"].split(", ")) == {"content-type", "x-request-id"}
    assert preflight.headers["Access-Control-Max-Age"] == "600"
    assert "Access-Control-Allow-Credentials" not in preflight.headers


def test_answers_and_problems_carry_the_allowed_origin(cors_app: Flask) -> None:
    client = cors_app.test_client()
    ok = client.post("/v1/evaluations?profile=niu-niu", json=HAND, headers={"Origin": GAME})
    assert ok.status_code == 200
    assert ok.headers["Access-Control-Allow-Origin"] == GAME
    assert ok.headers["Access-Control-Expose-Headers"] == "X-Request-ID"
    bad = client.post("/v1/evaluations", json={"hand": ["1S"]}, headers={"Origin": GAME})
    assert bad.status_code == 400
    assert bad.headers["Access-Control-Allow-Origin"] == GAME  # the page can read the problem
    doc = client.get("/openapi.yaml", headers={"Origin": "http://localhost:3000"})
    assert doc.headers["Access-Control-Allow-Origin"] == "http://localhost:3000"
    keys = client.get("/.well-known/jwks.json", headers={"Origin": GAME})  # a page verifies receipts
    assert keys.headers["Access-Control-Allow-Origin"] == GAME


def test_other_origins_and_paths_get_no_cors_header(cors_app: Flask) -> None:
    client = cors_app.test_client()
    other = client.options("/v1/evaluations?profile=standard", headers=PREFLIGHT | {"Origin": "https://evil.example"})
    assert other.status_code == 200
    assert "Access-Control-Allow-Origin" not in other.headers
    answer = client.post("/v1/evaluations", json=HAND, headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in answer.headers
    health = client.get("/healthz", headers={"Origin": GAME})
    assert "Access-Control-Allow-Origin" not in health.headers  # probes are not for browsers


def test_any_origin_when_asked() -> None:
    answer = _app("*").test_client().post("/v1/evaluations", json=HAND, headers={"Origin": "https://any.example"})
    assert answer.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize(("value", "message"), [
    ("https://game.example/", "'https://game.example/' is not an origin"),
    ("game.example", "'game.example' is not an origin"),
    ("ftp://game.example", "'ftp://game.example' is not an origin"),
    ("*, https://game.example", "'*' (any origin) cannot be combined"),
])
def test_bad_origin_lists_are_refused_at_start(value: str, message: str) -> None:
    with pytest.raises(CorsConfigError, match=message.replace("*", r"\*").replace("(", r"\(").replace(")", r"\)")):
        _app(value)
    assert parse_origins("http://[::1]:8080, http://127.0.0.1:3000") == ["http://[::1]:8080", "http://127.0.0.1:3000"]


@pytest.mark.parametrize("path", ["/healthz?x=1", "/readyz?cachebust=171&x=2", "/metrics?x=1"])
def test_probes_and_scrapers_ignore_query_strings(app: Flask, path: str) -> None:
    response = app.test_client().get(path)
    assert response.status_code == 200
    if not path.startswith("/metrics"):
        assert response.json in ({"status": "ok"}, {"status": "ready"})


@pytest.mark.parametrize("path", ["/v1/profiles?x=1", "/v1/profiles/standard?x=1", "/openapi.yaml?x=1", "/docs?x=1"])
def test_api_reads_still_refuse_unknown_query_parameters(app: Flask, path: str) -> None:
    response = app.test_client().get(path)
    assert response.status_code == 400
    assert response.json is not None
    assert response.json["errors"] == [{"parameter": "x", "detail": "unknown query parameter; this operation takes none"}]


def test_post_with_an_unknown_query_parameter_is_a_400(app: Flask) -> None:
    response = app.test_client().post("/v1/evaluations?profile=standard&x=1", json=HAND)
    assert response.status_code == 400
    assert response.json is not None
    assert response.json["errors"] == [{"parameter": "x", "detail": "unknown query parameter; this operation takes fields, lang and profile"}]


def test_a_charset_other_than_utf8_is_a_415(app: Flask) -> None:
    response = app.test_client().post("/v1/evaluations", data=b'{"hand": []}',
                                      headers={"Content-Type": "application/json; charset=latin-1"})
    assert response.status_code == 415
    assert response.json is not None
    assert response.json["detail"] == "The body must be encoded as UTF-8, got charset=latin-1."


def test_every_covered_answer_varies_on_origin_and_none_without_one() -> None:
    app = create_app({"TESTING": True, "PROFILES_FILE": None, "CORS_ORIGINS": f"{GAME},http://localhost:3000"})
    client = app.test_client()
    for headers in ({}, {"Origin": "https://evil.example"}, {"Origin": GAME}):
        response = client.get("/v1/profiles", headers=headers)
        assert response.status_code == 200
        assert "Origin" in response.headers.get("Vary", ""), headers
        expected = GAME if headers.get("Origin") == GAME else None
        assert response.headers.get("Access-Control-Allow-Origin") == expected, headers


def test_vary_is_sent_once_when_several_origins_are_allowed(cors_app: Flask) -> None:
    client = cors_app.test_client()
    for method, headers in (("OPTIONS", PREFLIGHT), ("POST", {"Origin": GAME})):
        response = client.open("/v1/evaluations", method=method, headers=headers, json=HAND)
        assert response.status_code == 200
        assert response.headers.getlist("Vary") == (["Origin"] if method == "OPTIONS" else ["Accept-Language, Origin"])
        assert response.headers["Access-Control-Allow-Origin"] == GAME


def test_a_transfer_coding_other_than_chunked_is_a_415(app: Flask) -> None:
    response = app.test_client().post("/v1/evaluations", data=b'{"hand": ["AS", "KH", "QD", "JC", "10S"]}',
                                      headers={"Content-Type": "application/json",
                                               "Transfer-Encoding": "gzip, chunked"})
    assert response.status_code == 415
    assert "Transfer-Encoding 'gzip, chunked'" in response.get_json()["detail"]
