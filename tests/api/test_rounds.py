"""The round forms through the API and the ``gnau`` command (issue 25; RULES.md 6.4-6.6):
every settlement and showdown example of RULES.md section 8, the presence of the new members
(DECISIONS 2), every 400 naming its field, exposures with the dealer object (DECISIONS 21-22),
receipts on ``settleShowdown``, the analyses under the new knobs (DECISIONS 30), and two
properties over random tables: a base with multiples of 1 answers as the stakes do, and a
showdown's strongest hand is position 1 of ``POST /v1/rankings`` (DECISIONS 3)."""

from __future__ import annotations

import json
import random
from copy import deepcopy
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st

from service.cli import main
from service.http.app import create_app
from tests import ROOT
from tests.api.helpers import gnau_json, gnau_text, post

CARDS = [r + s for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") for s in "SHDC"]


@pytest.fixture(scope="module")
def app() -> Flask:
    return create_app({"TESTING": True, "PROFILES_FILE": None,
                       "RECEIPT_KEY_FILE": str(ROOT / "tests" / "keys" / "receipt-test-key.pem")})


# ---------------------------------------------------------------------------------------
# RULES.md section 8: bid for banker


DEALER = "KH QS 10D 3C 4C"
PLAYERS = [("p1", "JS 9H AD 5C 5D"), ("p2", "9S 9D KS 2H 4D"), ("p3", "KH QS 10D 3C 4C"), ("p4", "7S 3H JH 8C 10C")]
BALANCES = [500, 10_000, 10_000, 10_000]


def banker_body(caps: str | None = None, dealer_balance: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"decks": 2, "base": 100, "dealer": {"hand": DEALER.split(), "bid_multiple": 3},
                            "players": [{"id": name, "hand": hand.split(), "bet_multiple": i + 1}
                                        for i, (name, hand) in enumerate(PLAYERS)]}
    if caps is not None:
        body["rules"] = {"balance_caps": caps}
        for player, balance in zip(body["players"], BALANCES, strict=True):
            player["balance"] = balance
    if dealer_balance is not None:
        body["dealer"]["balance"] = dealer_balance
    return body


def banker_args(caps: str | None = None, dealer_balance: int | None = None) -> list[str]:
    args = ["settle", "--profile", "niu-niu", "--decks", "2", "--dealer", DEALER, "--base", "100",
            "--bid-multiple", "3"]
    args += [a for i, (name, hand) in enumerate(PLAYERS) for a in ("--player", f"{name}:x{i + 1}:{hand}")]
    if caps is not None:
        args += ["--rules", json.dumps({"balance_caps": caps})]
        args += [a for b in BALANCES for a in ("--balance", str(b))]
    if dealer_balance is not None:
        args += ["--dealer-balance", str(dealer_balance)]
    return args


@pytest.mark.parametrize(("caps", "dealer_balance", "gross", "cap", "dealer_gross"), [
    (None, None, [900, -1200, 0, 2400], None, -2100),
    ("table", 1000, [294, -706, 0, 1412], ["dealer_balance", "dealer_balance", None, "dealer_balance"], -1000),
    ("players", None, [500, -1200, 0, 2400], ["player_balance", None, None, None], -1700),
])
def test_section_8_bid_for_banker_through_the_api_and_the_cli(
        client: FlaskClient, capsys: pytest.CaptureFixture[str], caps: str | None, dealer_balance: int | None,
        gross: list[int], cap: list[str | None] | None, dealer_gross: int) -> None:
    body = post(client, "/v1/settlements", banker_body(caps, dealer_balance), "niu-niu")
    players = body["players"]
    assert [p["stake"] for p in players] == [300, 600, 900, 1200]
    assert [p["factors"] for p in players] == [{"base": 100, "bid_multiple": 3, "bet_multiple": m} for m in (1, 2, 3, 4)]
    assert [p["outcome"] for p in players] == ["win", "lose", "push", "win"]
    assert [p["gross"] for p in players] == gross
    assert (body["dealer"]["gross"], body["dealer"]["sweep"]) == (dealer_gross, None)
    if cap is None:
        assert all("cap" not in p and "gross_uncapped" not in p for p in players)
    else:
        assert [p["cap"] for p in players] == cap
        assert [p["gross_uncapped"] for p in players] == [900, -1200, 0, 2400]
    assert gnau_json(capsys, *banker_args(caps, dealer_balance)) == body
    text = gnau_text(capsys, *banker_args(caps, dealer_balance))
    assert all(part in text for part in ("100x3x4", f"{gross[3]:+d}", "dealer sweep -"))


def test_section_8_dealer_wins_more_than_it_holds(client: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    seats = [("p1", "AS AH 2C 2H 4H", 10_000), ("p2", "9S 9D KS 2S 4D", 10_000), ("p3", "7S 3H JH 8C 10C", 10_000),
             ("p4", "5S 6H 7D 8H 9C", 2000)]
    body = {"base": 100, "rules": {"balance_caps": "table"},
            "dealer": {"hand": ["QH", "8S", "2D", "4C", "6C"], "bid_multiple": 3, "balance": 3001},
            "players": [{"id": name, "hand": hand.split(), "bet_multiple": i + 1, "balance": balance}
                        for i, (name, hand, balance) in enumerate(seats)]}
    answer = post(client, "/v1/settlements", body, "niu-niu")
    assert [p["gross_uncapped"] for p in answer["players"]] == [1500, -1800, -2700, -3600]
    assert [p["gross"] for p in answer["players"]] == [900, -1080, -1621, -1200]
    assert answer["dealer"]["gross"] == answer["dealer"]["net"] == 3001
    args = ["settle", "--profile", "niu-niu", "--dealer", "QH 8S 2D 4C 6C", "--base", "100", "--bid-multiple", "3",
            "--rules", '{"balance_caps": "table"}', "--dealer-balance", "3001"]
    for i, (name, hand, balance) in enumerate(seats):
        args += ["--player", f"{name}:x{i + 1}:{hand}", "--balance", str(balance)]
    assert gnau_json(capsys, *args) == answer


def test_sweep_from_the_outcomes(client: FlaskClient) -> None:
    win = post(client, "/v1/settlements", {"base": 5, "dealer": {"hand": ["JS", "QH", "KD", "JC", "QD"]},
                                        "players": [{"hand": ["10S", "9H", "8D", "4C", "4H"]}]})
    lose = post(client, "/v1/settlements", {"base": 5, "dealer": {"hand": ["10S", "9H", "8D", "4C", "4H"]},
                                         "players": [{"hand": ["JS", "QH", "KD", "JC", "QD"]}]})
    assert (win["dealer"]["sweep"], lose["dealer"]["sweep"]) == ("all_win", "all_lose")


# ---------------------------------------------------------------------------------------
# RULES.md section 8: showdowns


SHOWDOWN = [("s1", "JS 9H AD 5C 5D", 2), ("s2", "7S 3H JH 8C 10C", 1), ("s3", "9S 9D KS 2H 4D", 4),
            ("s4", "2S 5H 8D 7C QH", 3)]


def showdown_body(rules: dict[str, Any] | None = None, balances: list[int] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"base": 10, "players": [{"id": name, "hand": hand.split(), "bet_multiple": m}
                                                    for name, hand, m in SHOWDOWN]}
    if rules:
        body["rules"] = rules
    for player, balance in zip(body["players"], balances or [], strict=False):
        player["balance"] = balance
    return body


def showdown_args(rules: dict[str, Any] | None = None, balances: list[int] | None = None) -> list[str]:
    args = ["showdown", "--profile", "niu-niu", "--base", "10"]
    args += [a for name, hand, m in SHOWDOWN for a in ("--player", f"{name}:x{m}:{hand}")]
    if rules:
        args += ["--rules", json.dumps(rules)]
    return args + [a for b in balances or [] for a in ("--balance", str(b))]


@pytest.mark.parametrize(("rules", "gross"), [
    ({"showdown": "winner_takes_all", "showdown_stake": "loser"}, [240, -30, -120, -90]),
    ({"showdown": "winner_takes_all", "showdown_stake": "loser_x_winner"}, [480, -60, -240, -180]),
    ({"showdown": "all_pairs", "showdown_stake": "loser"}, [240, 110, -170, -180]),
    ({"showdown": "all_pairs", "showdown_stake": "loser_x_winner"}, [480, 80, -200, -360]),
])
def test_section_8_showdowns_through_the_api_and_the_cli(client: FlaskClient, capsys: pytest.CaptureFixture[str],
                                                         rules: dict[str, Any], gross: list[int]) -> None:
    body = post(client, "/v1/showdowns", showdown_body(rules), "niu-niu")
    assert [p["gross"] for p in body["players"]] == [p["amount"] for p in body["players"]] == gross
    assert body["strongest"] == [{"index": 0, "id": "s1"}]
    assert [(e["id"], e["position"]) for e in body["ranking"]] == [("s1", 1), ("s2", 2), ("s3", 3), ("s4", 4)]
    assert body["house"] == 0
    assert all("cap" not in p for p in body["players"])
    assert gnau_json(capsys, *showdown_args(rules)) == body
    text = gnau_text(capsys, *showdown_args(rules))
    assert all(part in text for part in ("strongest s1", f"{gross[3]:+d}"))


def test_section_8_showdown_with_caps(client: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    rules, balances = {"balance_caps": "players"}, [10_000, 25, 10_000, 10_000]
    body = post(client, "/v1/showdowns", showdown_body(rules, balances), "niu-niu")
    assert [(p["gross_uncapped"], p["gross"], p["cap"]) for p in body["players"]] == [
        (240, 235, "loser_balance"), (-30, -25, "loser_balance"), (-120, -120, None), (-90, -90, None)]
    assert gnau_json(capsys, *showdown_args(rules, balances)) == body
    assert "loser_balance" in gnau_text(capsys, *showdown_args(rules, balances))


def test_section_8_standard_showdown_with_two_strongest(client: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    body = post(client, "/v1/showdowns", {"base": 10, "players": [
        {"id": "s1", "hand": ["10H", "9D", "AC", "7D", "4S"]}, {"id": "s2", "hand": ["10C", "9S", "AH", "7C", "4D"]},
        {"id": "s3", "hand": ["10S", "9H", "8D", "4C", "4H"], "bet_multiple": 3}]})
    assert [p["gross"] for p in body["players"]] == [15, 15, -30]
    assert body["strongest"] == [{"index": 0, "id": "s1"}, {"index": 1, "id": "s2"}]
    cli = gnau_json(capsys, "showdown", "--base", "10", "--player", "s1:10H 9D AC 7D 4S", "--player",
                    "s2:10C 9S AH 7C 4D", "--player", "s3:x3:10S 9H 8D 4C 4H")
    assert cli == body


# ---------------------------------------------------------------------------------------
# Presence of the new members (DECISIONS 2) and errors


def test_members_appear_only_when_used(client: FlaskClient) -> None:
    hands = [["10S", "9H", "8D", "4C", "4H"], ["10H", "9D", "AD", "7C", "4S"]]
    plain = post(client, "/v1/settlements", {"dealer": {"hand": hands[0]}, "players": [{"hand": hands[1], "stake": 7}]})
    assert "sweep" not in plain["dealer"]
    assert set(plain["players"][0]) == {
        "id", "evaluation", "stake", "bet", "outcome", "gross", "commission", "amount", "exposure"}
    based = post(client, "/v1/settlements", {"base": 7, "dealer": {"hand": hands[0]}, "players": [{"hand": hands[1]}]})
    assert "sweep" in based["dealer"]
    assert {"factors"} == set(based["players"][0]) - set(plain["players"][0])
    capped = post(client, "/v1/settlements", {"dealer": {"hand": hands[0]}, "players": [
        {"hand": hands[1], "stake": 7, "balance": 3}], "rules": {"balance_caps": "players"}})
    assert "sweep" not in capped["dealer"]
    assert {"gross_uncapped", "cap"} == set(capped["players"][0]) - set(
        plain["players"][0])
    assert (capped["players"][0]["gross"], capped["players"][0]["cap"]) == (3, "player_balance")


def _errors(client: FlaskClient, path: str, body: Any, profile: str = "standard") -> list[str]:
    return [e["pointer"] for e in post(client, path, body, profile, status=400)["errors"]]


@pytest.mark.parametrize(("path", "body", "pointers"), [
    ("/v1/settlements", {"base": 1, "dealer": {"hand": ["AS", "2S", "3S", "4S", "6S"]},
                         "players": [{"hand": ["AH", "2H", "3H", "4H", "6H"], "stake": 5}]}, ["/players/0/stake"]),
    ("/v1/settlements", {"dealer": {"hand": ["AS", "2S", "3S", "4S", "6S"], "bid_multiple": 2},
                         "players": [{"hand": ["AH", "2H", "3H", "4H", "6H"], "stake": 5, "bet_multiple": 2}]},
     ["/dealer/bid_multiple", "/players/0/bet_multiple"]),
    ("/v1/settlements", {"base": 10**11, "dealer": {"hand": ["AS", "2S", "3S", "4S", "6S"], "bid_multiple": 11},
                         "players": [{"hand": ["AH", "2H", "3H", "4H", "6H"]}]}, ["/players/0/bet_multiple"]),
    ("/v1/settlements", {"base": 0, "dealer": {"hand": ["AS", "2S", "3S", "4S", "6S"]},
                         "players": [{"hand": ["AH", "2H", "3H", "4H", "6H"]}]}, ["/base"]),
    ("/v1/settlements", {"dealer": {"hand": ["AS", "2S", "3S", "4S", "6S"], "balance": 5},
                         "players": [{"hand": ["AH", "2H", "3H", "4H", "6H"], "stake": 5, "balance": 5}]},
     ["/players/0/balance", "/dealer/balance"]),
    ("/v1/settlements", {"rules": {"balance_caps": "table"}, "dealer": {"hand": ["AS", "2S", "3S", "4S", "6S"]},
                         "players": [{"hand": ["AH", "2H", "3H", "4H", "6H"], "stake": 5}]},
     ["/players/0/balance", "/dealer/balance"]),
    ("/v1/settlements", {"rules": {"balance_caps": "players"}, "dealer": {"hand": ["AS", "2S", "3S", "4S", "6S"],
                                                                        "balance": 9},
                         "players": [{"hand": ["AH", "2H", "3H", "4H", "6H"], "stake": 5, "balance": 1}]},
     ["/dealer/balance"]),
    ("/v1/showdowns", {"base": 10, "players": [{"hand": ["AH", "2H", "3H", "4H", "6H"]}]}, ["/players"]),
    ("/v1/showdowns", {"base": 10, "rules": {"balance_caps": "players", "showdown": "all_pairs"}, "players": [
        {"hand": ["AH", "2H", "3H", "4H", "6H"], "balance": 1}, {"hand": ["AS", "2S", "3S", "4S", "6S"], "balance": 1}]},
     ["/rules/balance_caps"]),
    ("/v1/showdowns", {"base": 10**12, "players": [{"hand": ["AH", "2H", "3H", "4H", "6H"], "bet_multiple": 2},
                                                   {"hand": ["AS", "2S", "3S", "4S", "6S"]}]},
     ["/players/0/bet_multiple"]),
    ("/v1/showdowns", {"base": 10**9, "rules": {"payouts": {"five_dukes": 1000}, "showdown_stake": "loser_x_winner"},
                       "players": [{"hand": h, "bet_multiple": 100} for h in (
                           ["AH", "2H", "3H", "4H", "6H"], ["AS", "2S", "3S", "4S", "6S"])]}, ["/players"]),
    ("/v1/exposures", {"players": [{"stake": 5, "balance": 5}]}, ["/base"]),
])
def test_bad_round_forms_are_400s_naming_the_field(client: FlaskClient, path: str, body: dict[str, Any],
                                                   pointers: list[str]) -> None:
    assert _errors(client, path, body) == pointers


def test_caps_with_all_pairs_from_a_profile_name_the_profile(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text("profiles:\n  capped-pairs:\n    extends: niu-niu\n    description: x\n"
                        "    rules: {balance_caps: players, showdown: all_pairs}\n")
    app = create_app({"TESTING": True, "PROFILES_FILE": str(profiles)})
    body = showdown_body(None, [1, 1, 1, 1])
    errors = app.test_client().post("/v1/showdowns?profile=capped-pairs", json=body).get_json()["errors"]
    assert [e.get("parameter") for e in errors] == ["profile"]


# ---------------------------------------------------------------------------------------
# Exposures, receipts, analyses


def test_exposures_with_the_dealer_object(client: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    body = {"base": 100, "dealer": {"bid_multiple": 3, "balance": 10_000}, "players": [
        {"id": "p1", "bet_multiple": 1, "balance": 500}, {"id": "p2", "bet_multiple": 2, "balance": 10_000},
        {"id": "p3", "bet_multiple": 3, "bet": "equal", "balance": 10_000}, {"id": "p4", "bet_multiple": 4}]}
    answer = post(client, "/v1/exposures", body, "niu-niu")
    # worst loss 100 x 3 x m x 5 (double) or 100 x 3 x m (equal) within the balance
    assert [p.get("max_bet_multiple") for p in answer["players"]] == [0, 6, 33, None]
    # the players' worst wins at bid b: (500 + 1000 + 300 + 2000) x b <= 10,000
    assert answer["dealer"]["max_bid_multiple"] == 2
    assert answer["dealer"]["exposure"] == {"max_loss": 11_400, "max_win": 11_400}
    capped = post(client, "/v1/exposures", body | {"rules": {"balance_caps": "table"}}, "niu-niu")
    assert capped["players"][0]["exposure"] == {"max_loss": 500, "max_win": 500}
    assert capped["dealer"]["exposure"]["max_loss"] == 10_000
    args = ["exposures", "--profile", "niu-niu", "--base", "100", "--bid-multiple", "3", "--dealer-balance", "10000",
            "--seat", "p1:x1", "--seat", "p2:x2", "--seat", "p3:x3", "--seat", "p4:x4", "--bet", "double", "--bet",
            "double", "--bet", "equal", "--bet", "double"]
    cli = gnau_json(capsys, *args, "--balance", "500", "--balance", "10000", "--balance", "10000", "--balance", "0")
    assert (cli["dealer"], cli["players"][:3]) == (answer["dealer"], answer["players"][:3])


def test_showdown_receipts(client: FlaskClient) -> None:
    answer = client.post("/v1/showdowns?profile=niu-niu&receipt=true", json=showdown_body()).get_json()
    _header, payload, _ = answer["receipt"].split(".")
    import base64

    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["operation"] == "settleShowdown"
    bad = client.post("/v1/showdowns?receipt=maybe", json=showdown_body())
    assert (bad.status_code, bad.get_json()["errors"][0]["parameter"]) == (400, "receipt")


def test_analyses_name_the_knobs_they_ignore(client: FlaskClient) -> None:
    hand = ["10S", "7H", "3D", "KC", "7D"]
    plain = post(client, "/v1/odds", {"hand": hand})
    capped = post(client, "/v1/odds", {"hand": hand, "rules": {"balance_caps": "table", "showdown": "all_pairs"}})
    assert "ignored_knobs" not in plain
    assert capped["ignored_knobs"] == ["balance_caps", "showdown"]
    assert (capped["expected_net"], capped["bets"]) == (plain["expected_net"], plain["bets"])
    no_ox = ["10S", "9H", "8D", "4C", "4H"]  # a tie with another No Ox costs 0 by the hand, one stake flat
    flat = post(client, "/v1/odds", {"hand": no_ox, "rules": {"tie_payout": "stake"}})
    by_hand = post(client, "/v1/odds", {"hand": no_ox})
    assert "ignored_knobs" not in flat
    assert flat["lose"] == by_hand["lose"]
    assert flat["bets"]["double"]["expected_net"]["value"] < by_hand["bets"]["double"]["expected_net"]["value"]
    assert flat["bets"]["equal"] == by_hand["bets"]["equal"]
    edge = post(client, "/v1/analyses/house-edge", {"rules": {"showdown_stake": "loser_x_winner"}})
    assert edge["ignored_knobs"] == ["showdown_stake"]
    assert edge["house_edge"] == client.get("/v1/profiles/standard/house-edge").get_json()["house_edge"]
    assert post(client, "/v1/analyses/distribution", {"rules": {"balance_caps": "players"}})["ignored_knobs"] == [
        "balance_caps"]


# ---------------------------------------------------------------------------------------
# Properties over random tables


def _random_table(rng: random.Random, players: int, decks: int) -> list[list[str]]:
    shoe = [c for c in CARDS for _ in range(decks)]
    rng.shuffle(shoe)
    return [shoe[5 * i:5 * i + 5] for i in range(players + 1)]


def _without(body: dict[str, Any], player_keys: set[str], dealer_keys: set[str]) -> dict[str, Any]:
    out = deepcopy(body)
    out["players"] = [{k: v for k, v in p.items() if k not in player_keys} for p in out["players"]]
    out["dealer"] = {k: v for k, v in out["dealer"].items() if k not in dealer_keys}
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), profile=st.sampled_from(["standard", "niu-niu", "bull-bull", "liberal"]))
def test_a_base_with_multiples_of_one_answers_as_the_stakes(app: Flask, seed: int, profile: str) -> None:
    """``balance_caps: none`` and every multiple 1: the answer is today's answer for stakes
    equal to the base, apart from ``factors`` and ``sweep`` (DECISIONS 28)."""
    rng = random.Random(seed)
    decks = rng.choice((1, 2))
    hands = _random_table(rng, rng.randint(1, 9 * decks), decks)
    base = rng.choice((1, 19, 100, 10**9))
    seats = [{"id": f"p{i}", "hand": h} | ({"bet": rng.choice(("double", "equal"))} if rng.random() < 0.5 else {})
             for i, h in enumerate(hands[1:])]
    client = app.test_client()
    today = post(client, "/v1/settlements", {"decks": decks, "dealer": {"hand": hands[0]},
                                             "players": [s | {"stake": base} for s in seats]}, profile)
    based = post(client, "/v1/settlements", {"decks": decks, "base": base, "dealer": {"hand": hands[0], "bid_multiple": 1},
                                             "players": [s | {"bet_multiple": 1} for s in seats]}, profile)
    assert _without(based, {"factors"}, {"sweep"}) == today


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), profile=st.sampled_from(["standard", "niu-niu", "liberal", "tens-are-dukes"]))
def test_the_strongest_of_a_showdown_is_position_1_of_the_ranking(app: Flask, seed: int, profile: str) -> None:
    """DECISIONS 3: except where Five Dukes tie for strongest (they push in a showdown; the
    ranking orders them by high card under ``high_card``)."""
    rng = random.Random(seed)
    decks = rng.choice((1, 2, 8))
    players = rng.randint(2, min(20, 52 * decks // 5))
    hands = _random_table(rng, players - 1, decks)
    if rng.random() < 0.3:  # Five Dukes often enough to see them tie (two more decks hold their cards)
        hands[0], hands[-1] = ["JS", "QH", "KD", "JC", "QD"], ["JH", "QS", "KS", "KH", "QC"]
        decks = min(decks + 2, 8)
    client = app.test_client()
    body = post(client, "/v1/showdowns", {"decks": decks, "base": 1, "players": [{"hand": h} for h in hands]}, profile)
    ranking = post(client, "/v1/rankings", {"decks": decks, "hands": [{"hand": h} for h in hands]}, profile)["ranking"]
    first = sorted(r["index"] for r in ranking if r["position"] == 1)
    strongest = [s["index"] for s in body["strongest"]]
    dukes_tie = len(strongest) > 1 and all(body["players"][i]["evaluation"]["category"] == "five_dukes"
                                           for i in strongest)
    if dukes_tie:
        assert set(first) <= set(strongest)
    else:
        assert strongest == first


@pytest.mark.parametrize(("args", "message"), [
    (["showdown", "--player", "AS 2S 3S 4S 6S"], "gnau: give --base N and two or more --player CARDS (or --file)"),
    (["showdown", "--base", "10", "--player", "AS 2S 3S 4S 6S"], "gnau: /players: must be an array of 2 to 83"),
    (["showdown", "--base", "10", "--player", "a:b:AS 2S 3S 4S 6S"], "gnau: --player 'a:b:AS 2S 3S 4S 6S': write"),
    (["showdown", "--base", "10", "--player", "a:xq:AS 2S 3S 4S 6S", "--player", "2H 3H 4H 5H 7H"],
     "gnau: --player 'a:xq:AS 2S 3S 4S 6S': the bet multiple 'xq' must be x and the digits 0-9"),
    (["settle", "--dealer", "AS 2S 3S 4S 6S", "--player", "x2:2H 3H 4H 5H 7H"],
     "gnau: /players/0/stake: is required; /players/0/bet_multiple: needs the table's base"),
    (["settle", "--dealer", "AS 2S 3S 4S 6S", "--base", "5", "--player", "x2:2H 3H 4H 5H 7H", "--balance", "1",
      "--balance", "2"], "gnau: give --balance once (for every player) or once per player in order"),
    (["settle", "--dealer", "AS 2S 3S 4S 6S", "--base", "5", "--player", "x2:2H 3H 4H 5H 7H", "--balance", "1"],
     "gnau: /players/0/balance: balances are taken only under balance_caps players or table"),
    (["exposures", "--seat", "p1:100", "--balance", "5"], "gnau: /base: is required with a balance"),
])
def test_bad_round_options_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], args: list[str],
                                                   message: str) -> None:
    capsys.readouterr()
    status = main(args)
    out, err = capsys.readouterr()
    assert (status, out, err.count("\n")) == (2, "", 1), err
    assert err.startswith(message) or message in err, err


# ---------------------------------------------------------------------------------------
# RULES.md 6.5's dealer_shortfall and section 8.1's shortfall tables


@pytest.mark.parametrize(("shortfall", "gross", "cap"), [
    ("scale_all", [294, -706, 0, 1412], ["dealer_balance", "dealer_balance", None, "dealer_balance"]),
    ("winners_share", [379, -1200, 0, 1821], ["dealer_balance", None, None, "dealer_balance"]),
])
def test_section_8_1_shortfall_first_table(client: FlaskClient, capsys: pytest.CaptureFixture[str], shortfall: str,
                                           gross: list[int], cap: list[str | None]) -> None:
    """Dealer balance 1,000, S = 1,700: under winners_share p2 pays its 1,200 in full and the pool
    1,000 + 1,200 is shared by p1 and p4 (379.31 and 1,820.69, the missing unit to p4)."""
    body = banker_body("table", 1000)
    body["rules"]["dealer_shortfall"] = shortfall
    answer = post(client, "/v1/settlements", body, "niu-niu")
    players = answer["players"]
    assert [p["gross"] for p in players] == gross
    assert [p["cap"] for p in players] == cap
    assert [p["gross_uncapped"] for p in players] == [900, -1200, 0, 2400]
    assert answer["dealer"]["gross"] == -1000
    assert answer["rules"].get("dealer_shortfall") == (None if shortfall == "scale_all" else shortfall)
    args = banker_args("table", 1000)
    args[args.index("--rules") + 1] = json.dumps({"balance_caps": "table", "dealer_shortfall": shortfall})
    assert gnau_json(capsys, *args) == answer


@pytest.mark.parametrize(("shortfall", "gross", "cap"), [
    ("scale_all", [900, -1080, -1621, -1200], ["dealer_balance"] * 4),
    ("winners_share", [1500, -1246, -1870, -1385], [None, "dealer_balance", "dealer_balance", "dealer_balance"]),
])
def test_section_8_1_shortfall_second_table(client: FlaskClient, capsys: pytest.CaptureFixture[str], shortfall: str,
                                            gross: list[int], cap: list[str | None]) -> None:
    """Dealer balance 3,001, step 1 results [+1,500, -1,800, -2,700, -2,000] (p4's balance 2,000),
    S = -5,000: under winners_share p1 is paid its 1,500 in full and the pool 3,001 + 1,500 is
    collected from p2, p3, p4 (floors -1,247, -1,870, -1,385; the missing unit to p2)."""
    seats = [("p1", "AS AH 2C 2H 4H", 10_000), ("p2", "9S 9D KS 2S 4D", 10_000), ("p3", "7S 3H JH 8C 10C", 10_000),
             ("p4", "5S 6H 7D 8H 9C", 2000)]
    rules = {"balance_caps": "table", "dealer_shortfall": shortfall}
    body = {"base": 100, "rules": rules,
            "dealer": {"hand": ["QH", "8S", "2D", "4C", "6C"], "bid_multiple": 3, "balance": 3001},
            "players": [{"id": name, "hand": hand.split(), "bet_multiple": i + 1, "balance": balance}
                        for i, (name, hand, balance) in enumerate(seats)]}
    answer = post(client, "/v1/settlements", body, "niu-niu")
    assert [p["gross_uncapped"] for p in answer["players"]] == [1500, -1800, -2700, -3600]
    assert [p["gross"] for p in answer["players"]] == gross
    assert [p["cap"] for p in answer["players"]] == cap
    assert answer["dealer"]["gross"] == 3001
    assert sum(p["amount"] for p in answer["players"]) + answer["dealer"]["net"] + answer["house"] == 0
    args = ["settle", "--profile", "niu-niu", "--dealer", "QH 8S 2D 4C 6C", "--base", "100", "--bid-multiple", "3",
            "--rules", json.dumps(rules), "--dealer-balance", "3001"]
    for i, (name, hand, balance) in enumerate(seats):
        args += ["--player", f"{name}:x{i + 1}:{hand}", "--balance", str(balance)]
    assert gnau_json(capsys, *args) == answer


def test_dealer_shortfall_is_listed_only_when_set_and_refused_when_unknown(client: FlaskClient) -> None:
    """The knob appears in an answer's ``rules`` only while set (every earlier answer unchanged);
    an unknown value is a 400 naming ``/rules/dealer_shortfall``."""
    assert "dealer_shortfall" not in post(client, "/v1/settlements", banker_body("table", 1000), "niu-niu")["rules"]
    body = banker_body("table", 1000)
    body["rules"]["dealer_shortfall"] = "winners"
    problem = post(client, "/v1/settlements", body, "niu-niu", status=400)
    assert [e["pointer"] for e in problem["errors"]] == ["/rules/dealer_shortfall"]
