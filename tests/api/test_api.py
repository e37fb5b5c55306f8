"""The HTTP layer: responses, and every kind of bad input as problem details."""

from __future__ import annotations

import io
from typing import Any

import pytest
from flask.testing import FlaskClient

PROBLEM = "application/problem+json"
GOOD = ["10S", "7H", "3D", "KC", "7D"]


def problem(client: FlaskClient, path: str, body: Any = None, *, status: int, data: bytes | None = None,
            content_type: str = "application/json", method: str = "POST") -> dict[str, Any]:
    if data is None and body is not None:
        import json
        data = json.dumps(body).encode()
    response = client.open(path, method=method, data=data, content_type=content_type)
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    out: dict[str, Any] = response.get_json(force=True)
    assert out["status"] == status
    assert {"type", "title", "detail", "instance", "request_id"} <= set(out)
    assert "Traceback" not in response.get_data(as_text=True)
    return out


def pointers(body: dict[str, Any]) -> list[str]:
    return [e.get("pointer", "?" + e.get("parameter", "")) for e in body["errors"]]


def test_evaluation_response_shape(client: FlaskClient) -> None:
    response = client.post("/v1/evaluations", json={"hand": ["10s", "7♥", "3D", "kc", "7d"]})
    assert response.status_code == 200
    assert response.headers["X-Request-ID"]
    body = response.get_json()
    assert body == {
        "profile": "standard", "rules_digest": body["rules_digest"],
        "hand": ["10S", "7H", "3D", "KC", "7D"], "category": "single_ox", "label": "Single-Ox 0",
        "label_key": "single_ox_0", "score": 210, "payout": 1,
        "ox": {"cards": ["7H", "3D", "7D"], "points": [7, 6, 7]},
        "power": {"cards": ["10S", "KC"], "points": [10, 10]},
        "nenku": False, "suited": False,
    }
    assert body["rules_digest"].startswith("sha256:")


def test_same_result_whatever_the_order(client: FlaskClient) -> None:
    a = client.post("/v1/evaluations", json={"hand": GOOD}).get_json()
    b = client.post("/v1/evaluations", json={"hand": GOOD[::-1]}).get_json()
    assert (a["label"], a["score"], sorted(a["ox"]["cards"])) == (b["label"], b["score"], sorted(b["ox"]["cards"]))


def test_batch_in_input_order(client: FlaskClient) -> None:
    hands = [GOOD, ["JS", "QH", "KD", "JC", "QD"], ["10S", "9H", "8D", "4C", "4H"]]
    body = client.post("/v1/evaluations/batch", json={"hands": hands}).get_json()
    assert [e["label"] for e in body["evaluations"]] == ["Single-Ox 0", "Five Dukes", "No Ox"]
    assert body["profile"] == "standard"


def test_ranking_competition_positions(client: FlaskClient) -> None:
    hands = [
        {"id": "a", "hand": ["10S", "9H", "8D", "4C", "4H"]},   # No Ox
        {"id": "b", "hand": ["JS", "QH", "KD", "JC", "QD"]},    # Five Dukes
        {"hand": ["10H", "9D", "AD", "7C", "4S"]},              # Single-Ox 1
        {"id": "d", "hand": ["10C", "9C", "AC", "7D", "4D"]},   # Single-Ox 1
    ]
    body = client.post("/v1/rankings", json={"hands": hands}).get_json()
    assert [(r["index"], r["id"], r["position"]) for r in body["ranking"]] == [
        (1, "b", 1), (2, None, 2), (3, "d", 2), (0, "a", 4)]


def test_ranking_high_card_breaks_ties(client: FlaskClient) -> None:
    hands = [{"hand": ["KH", "QS", "10D", "4C", "AC"]}, {"hand": ["KS", "QH", "JD", "2C", "3C"]}]
    body = client.post("/v1/rankings?profile=niu-niu", json={"hands": hands}).get_json()
    assert [(r["index"], r["position"]) for r in body["ranking"]] == [(1, 1), (0, 2)]


def test_profiles(client: FlaskClient) -> None:
    body = client.get("/v1/profiles").get_json()
    assert [p["name"] for p in body["profiles"]] == ["standard", "casino", "tens-are-dukes", "liberal", "niu-niu",
                                                     "bull-bull", "niu-niu-plus"]
    assert [p["max_payout"] for p in body["profiles"]] == [10, 7, 10, 20, 5, 5, 8]
    casino = client.get("/v1/profiles/casino").get_json()
    assert casino["rules"]["payouts"]["double_ox"] == 3
    assert casino["builtin"] is True
    nn = client.get("/v1/profiles/niu-niu").get_json()["rules"]
    assert (nn["ties"], nn["bomb"], nn["three_six_swap"], nn["five_small_max_points"]) == ("high_card", True, False, 10)
    assert nn["ranking"][:4] == ["five_small", "bomb", "five_dukes", "four_dukes"]
    bb = client.get("/v1/profiles/bull-bull").get_json()
    assert (bb["rules"]["commission_bps"], bb["rules"]["dealer_commission_bps"], bb["max_payout"]) == (500, 0, 5)
    # RULES.md 7's corrected bull-bull: niu-niu with one special hand (Five Dukes) and commission
    differs = {"commission_bps", "five_small", "bomb", "four_dukes", "ranking"}
    assert {k: v for k, v in bb["rules"].items() if k not in differs} == {k: v for k, v in nn.items() if k not in differs}
    assert (bb["rules"]["five_small"], bb["rules"]["bomb"], bb["rules"]["four_dukes"]) == (False, False, False)
    assert bb["rules"]["ranking"][0] == "five_dukes"
    assert nn["commission_bps"] == 0
    plus = client.get("/v1/profiles/niu-niu-plus").get_json()["rules"]
    assert [k for k in ("straight", "flush", "full_house", "straight_flush", "dragon", "four_dukes") if plus[k]] == [
        "straight", "flush", "full_house"]
    assert plus["ranking"] == ["straight_flush", "dragon", "five_small", "bomb", "full_house", "flush", "five_dukes",
                               "straight", "four_dukes", "ngau_tonku", "double_ox", "single_ox", "no_ox"]
    missing = problem(client, "/v1/profiles/vegas", method="GET", status=404)
    assert "vegas" in missing["detail"]


def test_health_readiness_and_contract(client: FlaskClient) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {"status": "ready"}
    spec = client.get("/openapi.yaml")
    assert spec.status_code == 200
    assert b"openapi: 3.0.3" in spec.data


@pytest.mark.parametrize(("body", "expected"), [
    ({"hand": ["10S", "1H", "3D", "KC", "7D"]}, ["/hand/1"]),
    ({"hand": ["10S", "7H", "3D", "KC"]}, ["/hand"]),
    ({"hand": ["10S", "7H", "3D", "KC", "10s"]}, ["/hand/4"]),
    ({"hand": "10S 7H 3D KC 7D"}, ["/hand"]),
    ({"hand": [10, "7H", None, "KC", ["7D"]]}, ["/hand/0", "/hand/2", "/hand/4"]),
    ({"hand": GOOD, "decks": 0}, ["/decks"]),
    ({"hand": GOOD, "decks": "2"}, ["/decks"]),
    ({"hand": GOOD, "decks": 2.0}, ["/decks"]),
    ({"hand": GOOD, "extra": 1}, ["/extra"]),
    ({}, ["/hand"]),
    ({"hand": GOOD, "rules": {"ties": "coin", "jokers": True, "payouts": {"single_ox": -1}}},
     ["/rules/ties", "/rules/jokers", "/rules/payouts/single_ox"]),
    ({"hand": GOOD, "rules": {"ranking": ["no_ox", "five_dukes", "five_small", "bomb", "four_dukes",
                                          "ngau_tonku", "double_ox", "single_ox"]}}, ["/rules/ranking"]),
    ({"hand": GOOD, "rules": None}, ["/rules"]),
    ([GOOD], [""]),
])
def test_bad_evaluation_requests(client: FlaskClient, body: Any, expected: list[str]) -> None:
    out = problem(client, "/v1/evaluations", body, status=400)
    assert out["type"] == "/problems/validation-error"
    assert sorted(pointers(out)) == sorted(expected)


def test_every_problem_is_reported_together(client: FlaskClient) -> None:
    out = problem(client, "/v1/evaluations?profile=vegas&verbose=1",
                  {"hand": ["10S", "XX", "3D", "KC", "10S"], "decks": 9, "x": 1}, status=400)
    assert sorted(pointers(out)) == ["/decks", "/hand/1", "/x", "?profile", "?verbose"]
    assert out["detail"] == "The request has 5 problems; see errors."


def test_malformed_json_and_media_types(client: FlaskClient) -> None:
    out = problem(client, "/v1/evaluations", data=b'{"hand": [', status=400)
    assert out["type"] == "/problems/malformed-json"
    assert pointers(out) == [""]
    dup = problem(client, "/v1/evaluations", data=b'{"hand": ["AS"], "hand": ["KS"]}', status=400)
    assert "duplicate key" in dup["detail"]
    nan = problem(client, "/v1/evaluations", data=b'{"hand": NaN}', status=400)
    assert nan["type"] == "/problems/malformed-json"
    problem(client, "/v1/evaluations", data=b"hand=AS", content_type="application/x-www-form-urlencoded", status=415)
    problem(client, "/v1/evaluations", data=b"{}", content_type="text/plain", status=415)


def test_too_large_unknown_path_and_method(client: FlaskClient) -> None:
    big = b'{"hands": [' + b",".join([b'["AS","KS","QS","JS","10S"]'] * 40000) + b"]}"
    assert len(big) > 1024 * 1024
    problem(client, "/v1/evaluations/batch", data=big, status=413)
    problem(client, "/v1/nothing", method="GET", status=404)
    response = client.get("/v1/evaluations")
    assert response.status_code == 405
    assert response.mimetype == PROBLEM
    assert "POST" in response.headers["Allow"]
    assert "allowed: " in response.get_json()["detail"]


def test_batch_limits_and_pointers(client: FlaskClient) -> None:
    problem(client, "/v1/evaluations/batch", {"hands": []}, status=400)
    out = problem(client, "/v1/evaluations/batch", {"hands": [GOOD] * 10_001}, status=400)
    assert pointers(out) == ["/hands"]
    hands = [GOOD, ["AS", "AS", "2H", "3H", "4H"], GOOD, ["ZZ", "2H", "3H", "4H"], "AS"]
    out = problem(client, "/v1/evaluations/batch", {"hands": hands}, status=400)
    assert sorted(pointers(out)) == ["/hands/1/1", "/hands/3", "/hands/3/0", "/hands/4"]
    ok = client.post("/v1/evaluations/batch", json={"hands": [["AS", "AS", "2H", "3H", "4H"]], "decks": 2})
    assert ok.status_code == 200


def test_ranking_limits(client: FlaskClient) -> None:
    out = problem(client, "/v1/rankings", {"hands": [{"hand": GOOD}]}, status=400)
    assert pointers(out) == ["/hands"]
    out = problem(client, "/v1/rankings", {"hands": [{"hand": GOOD, "id": 7}, {"hand": GOOD, "seat": 2}]},
                  status=400)
    assert sorted(pointers(out)) == ["/hands/0/id", "/hands/1/seat"]


def _player(i: int, hand: list[str], stake: Any = 100) -> dict[str, Any]:
    return {"id": f"p{i}", "hand": hand, "stake": stake}


def test_settlement_errors(client: FlaskClient) -> None:
    dealer = {"hand": ["10S", "9H", "8D", "4C", "4H"]}
    body = {"dealer": dealer, "players": [
        _player(0, ["10H", "9D", "AD", "7C", "4S"], 0),
        _player(1, ["10S", "2D", "AC", "7D", "5S"], 10**12 + 1),     # 10S is the dealer's
        _player(2, ["QS", "2C", "3C", "6D", "5H"], "100"),
        _player(3, ["KS", "2S", "3S", "6S", "5D"], True),
    ]}
    out = problem(client, "/v1/settlements", body, status=400)
    assert sorted(pointers(out)) == ["/players/0/stake", "/players/1/hand/0", "/players/1/stake",
                                     "/players/2/stake", "/players/3/stake"]
    deck = [r + s for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"] for s in "SHDC"]
    ten = [_player(i, deck[5 * (i + 1): 5 * (i + 2)]) for i in range(9)] + [_player(9, ["AS", "AH", "AD", "AC", "2S"])]
    out = problem(client, "/v1/settlements", {"dealer": {"hand": deck[:5]}, "players": ten}, status=400)
    assert "/players" in pointers(out)
    assert "at most 9 players" in out["errors"][0]["detail"]
    nine = ten[:9]
    ok = client.post("/v1/settlements", json={"dealer": {"hand": deck[:5]}, "players": nine})
    assert ok.status_code == 200
    net = ok.get_json()
    assert net["dealer"]["net"] == -sum(p["amount"] for p in net["players"])


def test_settlement_multi_deck_counts_across_table(client: FlaskClient) -> None:
    dealer = {"hand": ["AS", "KS", "QS", "JS", "10S"]}
    players = [_player(0, ["AS", "KS", "QS", "JS", "10S"]), _player(1, ["AS", "2S", "3S", "4S", "5S"])]
    out = problem(client, "/v1/settlements", {"dealer": dealer, "players": players, "decks": 2}, status=400)
    assert pointers(out) == ["/players/1/hand/0"]
    assert "more than twice" in out["errors"][0]["detail"]
    ok = client.post("/v1/settlements", json={"dealer": dealer, "players": players, "decks": 3})
    assert ok.status_code == 200


def test_request_id_is_echoed(client: FlaskClient) -> None:
    response = client.post("/v1/evaluations", json={"hand": ["XX"]}, headers={"X-Request-ID": "req-42.a:b_c"})
    assert response.headers["X-Request-ID"] == "req-42.a:b_c"
    assert response.get_json()["request_id"] == "req-42.a:b_c"
    bad = client.get("/healthz", headers={"X-Request-ID": "has space"})
    assert bad.headers["X-Request-ID"] != "has space"
    assert len(bad.headers["X-Request-ID"]) == 32


def test_chunked_body_over_the_limit_is_413_not_truncated(client: FlaskClient) -> None:
    body = b'{"hand": ["AS", "2S", "3S", "4S", "5S"]}' + b" " * (1024 * 1024) + b"GARBAGE"

    # What gunicorn hands over for a chunked body: a terminated stream with no length.
    response = client.post("/v1/evaluations", input_stream=io.BytesIO(body), content_type="application/json",
                           headers={"Transfer-Encoding": "chunked"},
                           environ_overrides={"wsgi.input_terminated": True})
    assert response.status_code == 413
    assert response.get_json()["type"] == "/problems/payload-too-large"


def test_lone_surrogates_are_a_400_naming_the_field(client: FlaskClient) -> None:
    raw = b'{"hands": [{"id": "\\ud800", "hand": ["AS","2S","3S","4S","5S"]}, {"hand": ["AS","2S","3S","4S","5S"]}]}'
    out = problem(client, "/v1/rankings", data=raw, status=400)
    assert pointers(out) == ["/hands/0/id"]
    out = problem(client, "/v1/evaluations", data=b'{"\\udfff": 1, "hand": ["AS","2S","3S","4S","5S"]}', status=400)
    assert pointers(out) == ["/\\udfff"]
    ok = client.post("/v1/rankings", data='{"hands": [{"id": "\\ud83d\\ude00", "hand": ["AS","2S","3S","4S","5S"]},'
                     ' {"hand": ["AS","2S","3S","4S","5S"]}]}', content_type="application/json")
    assert ok.status_code == 200
    assert ok.get_json()["ranking"][0]["id"] == "😀"


def test_charsets_and_encodings_other_than_utf8_are_415(client: FlaskClient) -> None:
    for content_type in ("application/json; charset=iso-8859-1", "application/json; charset=utf-16"):
        problem(client, "/v1/evaluations", data=b'{"hand": []}', content_type=content_type, status=415)
    response = client.post("/v1/evaluations", data=b'{"hand": []}', content_type="application/json",
                           headers={"Content-Encoding": "gzip"})
    assert response.status_code == 415
    out = problem(client, "/v1/evaluations", data=b'{"hand": ["caf\xe9"]}', status=400)
    assert out["type"] == "/problems/malformed-json"
    ok = client.post("/v1/evaluations", data=b'{"hand": ["AS","2S","3S","4S","5S"]}',
                     content_type="application/json; charset=UTF-8")
    assert ok.status_code == 200


def test_huge_inputs_give_one_error_not_thousands(client: FlaskClient) -> None:
    out = problem(client, "/v1/settlements", {"dealer": {"hand": GOOD}, "players": [{}] * 50_000}, status=400)
    assert out["errors"] == [{"pointer": "/players", "detail": "must be an array of 1 to 82 players, got 50,000"}]
    out = problem(client, "/v1/evaluations", {"hand": [1] * 100_000}, status=400)
    assert out["errors"] == [{"pointer": "/hand", "detail": "a hand is exactly 5 cards, got 100000"}]
    out = problem(client, "/v1/evaluations/batch", {"hands": [["XX"] * 5] * 300}, status=400)
    assert len(out["errors"]) == 100
    assert out["detail"] == "The request has 1500 problems; the first 100 are listed in errors."


def test_amounts_stay_within_the_safe_integers(client: FlaskClient) -> None:
    """Overrides are bounded (int64 per player), and a table that could settle beyond
    2^53 - 1 is refused (tests/api/test_safe_integers.py has the exact bound)."""
    out = problem(client, "/v1/evaluations", {"hand": GOOD, "rules": {"payouts": {"five_dukes": 1001},
                                                                       "suited_multiplier": 11}}, status=400)
    assert sorted(pointers(out)) == ["/rules/payouts/five_dukes", "/rules/suited_multiplier"]
    body = {"dealer": {"hand": ["3S", "6H", "8D", "4C", "8H"]}, "decks": 8,
            "players": [{"hand": ["JH", "JH", "QH", "QH", "KH"], "stake": 10**12}] * 3,
            "rules": {"payouts": {"five_dukes": 1000}, "suited_bonus": "hand", "suited_multiplier": 10}}
    out = problem(client, "/v1/settlements", body, status=400)
    assert pointers(out) == ["/players"]  # 3 x 10^12 x 10,000 = 3 x 10^16 > 2^53 - 1
    body["players"] = [{"hand": ["JH", "JH", "QH", "QH", "KH"], "stake": 300_000_000_000}] * 3
    out = client.post("/v1/settlements", json=body).get_json()
    assert [p["amount"] for p in out["players"]] == [3 * 10**15] * 3  # suited Five Dukes: 10,000x
    assert out["dealer"]["net"] == -9 * 10**15


def test_reads_take_no_query_and_double_slashes_are_not_redirected(client: FlaskClient) -> None:
    out = problem(client, "/v1/profiles?x=1", method="GET", status=400)
    assert out["errors"] == [{"parameter": "x", "detail": "unknown query parameter; this operation takes none"}]
    problem(client, "/v1//evaluations", {"hand": GOOD}, status=404)
    response = client.open("/v1/evaluations?x=1", method="PUT")
    assert response.status_code == 405


def test_a_long_or_unprintable_path_is_shown_short_and_escaped_in_a_404_or_405(client: FlaskClient) -> None:
    long = "/v1/" + "z" * 4000
    missing = client.get(long).get_json()
    assert missing["detail"] == "There is no resource at /v1/" + "z" * 36 + "…."
    refused = client.put("/v1/profiles/" + "z" * 4000).get_json()
    assert refused["detail"] == "PUT is not allowed on /v1/profiles/" + "z" * 27 + "…; allowed: GET, HEAD, OPTIONS."
    bidi = client.get("/v1/\u202e/x").get_json()
    assert bidi["detail"] == "There is no resource at /v1/\\u202e/x."
