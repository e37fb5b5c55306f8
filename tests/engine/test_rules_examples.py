"""RULES.md section 8: every worked example, through the engine and through the API."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from service.engine.cards import parse_hand
from service.engine.reference import evaluate_reference
from service.engine.rules import PROFILES, apply_overrides
from service.engine.settle import player_exposure, settle
from service.engine.tables import evaluate
from tests.engine.cases import (
    COMMISSION_ROUNDS,
    NIU_NIU_ROWS,
    OVERRIDE_ROWS,
    SETTLEMENTS,
    SHAPE_ROWS,
    STANDARD_ROWS,
    hand,
)

STANDARD = PROFILES["standard"].rules
NIU_NIU = PROFILES["niu-niu"].rules
PLUS = PROFILES["niu-niu-plus"].rules


@pytest.mark.parametrize(("cards", "label", "nenku", "overrides", "variant_label"), STANDARD_ROWS)
def test_standard_rows_engine(cards: str, label: str, nenku: bool, overrides: dict[str, Any] | None,
                              variant_label: str | None) -> None:
    parsed = parse_hand(hand(cards))
    for evaluator in (evaluate, evaluate_reference):
        result = evaluator(parsed, STANDARD)
        assert result.label == label
        assert result.nenku is nenku
        if overrides is not None:
            assert evaluator(parsed, apply_overrides(STANDARD, overrides)).label == variant_label


@pytest.mark.parametrize(("cards", "label", "nenku", "overrides", "variant_label"), STANDARD_ROWS)
def test_standard_rows_api(client: FlaskClient, cards: str, label: str, nenku: bool,
                           overrides: dict[str, Any] | None, variant_label: str | None) -> None:
    response = client.post("/v1/evaluations", json={"hand": hand(cards)})
    assert response.status_code == 200
    body = response.get_json()
    assert (body["label"], body["nenku"], body["profile"]) == (label, nenku, "standard")
    assert body["hand"] == hand(cards)
    if overrides is not None:
        response = client.post("/v1/evaluations", json={"hand": hand(cards), "rules": overrides})
        assert response.status_code == 200
        assert response.get_json()["label"] == variant_label


@pytest.mark.parametrize(("cards", "niu_label", "standard_label"), NIU_NIU_ROWS)
def test_niu_niu_rows(client: FlaskClient, cards: str, niu_label: str, standard_label: str) -> None:
    parsed = parse_hand(hand(cards), decks=2)  # AS AH AC AD + 2H is one deck; harmless either way
    assert evaluate(parsed, NIU_NIU).label == niu_label
    assert evaluate(parsed, STANDARD).label == standard_label
    for profile, expected in (("niu-niu", niu_label), ("standard", standard_label)):
        body = client.post(f"/v1/evaluations?profile={profile}", json={"hand": hand(cards)}).get_json()
        assert (body["label"], body["profile"]) == (expected, profile)


@pytest.mark.parametrize(("cards", "label", "key", "chinese", "payout", "niu_label", "niu_payout"), SHAPE_ROWS,
                         ids=[row[0] for row in SHAPE_ROWS])
def test_poker_shape_rows(client: FlaskClient, cards: str, label: str, key: str, chinese: str, payout: int,
                          niu_label: str, niu_payout: int) -> None:
    """RULES.md 8's poker-shaped rows under niu-niu-plus and niu-niu: engine, reference, API."""
    parsed = parse_hand(hand(cards))
    for evaluator in (evaluate, evaluate_reference):
        plus = evaluator(parsed, PLUS)
        assert (plus.label, plus.label_key, plus.payout) == (label, key, payout)
        niu = evaluator(parsed, NIU_NIU)
        assert (niu.label, niu.payout) == (niu_label, niu_payout)
    body = client.post("/v1/evaluations?profile=niu-niu-plus", json={"hand": hand(cards)}).get_json()
    assert (body["label"], body["label_key"], body["payout"]) == (label, key, payout)
    response = client.post("/v1/evaluations?profile=niu-niu-plus&lang=zh-Hans", json={"hand": hand(cards)})
    assert (response.get_json()["label"], response.get_json()["label_key"]) == (chinese, key)
    assert response.headers["Content-Language"] == "zh-Hans"
    body = client.post("/v1/evaluations?profile=niu-niu", json={"hand": hand(cards)}).get_json()
    assert (body["label"], body["payout"]) == (niu_label, niu_payout)


@pytest.mark.parametrize(("profile", "overrides", "cards", "label", "key", "chinese", "payout"), OVERRIDE_ROWS,
                         ids=[f"{row[0]}-{row[2]}" for row in OVERRIDE_ROWS])
def test_override_and_bull_bull_rows(client: FlaskClient, profile: str, overrides: dict[str, Any], cards: str,
                                     label: str, key: str, chinese: str | None, payout: int | None) -> None:
    rules = apply_overrides(PROFILES[profile].rules, overrides)
    for evaluator in (evaluate, evaluate_reference):
        result = evaluator(parse_hand(hand(cards)), rules)
        assert (result.label, result.label_key) == (label, key)
        if payout is not None:
            assert result.payout == payout
    lang = "zh-Hans" if chinese else "en"
    response = client.post(f"/v1/evaluations?profile={profile}&lang={lang}",
                           json={"hand": hand(cards), "rules": overrides})
    body = response.get_json()
    assert (body["label"], body["label_key"]) == (chinese or label, key)
    if payout is not None:
        assert body["payout"] == payout


def test_bull_bull_has_one_special_hand(client: FlaskClient) -> None:
    """RULES.md 7: bull-bull pays Five Dukes 5x and has no other special category."""
    body = client.get("/v1/profiles/bull-bull").get_json()
    rules = body["rules"]
    specials = [c for c in ("five_dukes", "five_small", "bomb", "four_dukes", "straight_flush", "dragon", "full_house",
                            "flush", "straight", "ngau_tonku", "double_ox") if rules[c]]
    assert specials == ["five_dukes"]
    assert (rules["payouts"]["five_dukes"], rules["commission_bps"], body["max_payout"]) == (5, 500, 5)


def test_tens_are_dukes_profile_makes_five_dukes(client: FlaskClient) -> None:
    body = client.post("/v1/evaluations?profile=tens-are-dukes", json={"hand": hand("10S JH QD KC JD")}).get_json()
    assert body["label"] == "Five Dukes"
    assert body["payout"] == 10


def test_liberal_profile_three_six_pair(client: FlaskClient) -> None:
    body = client.post("/v1/evaluations?profile=liberal", json={"hand": hand("7S AH 2D 3C 6H")}).get_json()
    assert body["label"] == "Double-Ox 6"
    assert body["power"] == {"cards": ["3C", "6H"], "points": [6, 6]}


@pytest.mark.parametrize(("profile", "decks", "dealer", "players", "amounts", "outcomes"), SETTLEMENTS)
def test_settlement_examples(client: FlaskClient, profile: str, decks: int, dealer: str,
                             players: list[tuple[str, int]], amounts: list[int], outcomes: list[str]) -> None:
    rules = PROFILES[profile].rules
    d = evaluate(parse_hand(hand(dealer), decks), rules)
    result = settle(d, [(evaluate(parse_hand(hand(p), decks), rules), stake) for p, stake in players], rules)
    assert [r.amount for r in result.players] == amounts
    assert [r.outcome for r in result.players] == outcomes
    assert result.dealer_net == -sum(amounts)
    body = {"dealer": {"hand": hand(dealer)}, "decks": decks,
            "players": [{"id": f"p{i}", "hand": hand(p), "stake": s} for i, (p, s) in enumerate(players)]}
    response = client.post(f"/v1/settlements?profile={profile}", json=body)
    assert response.status_code == 200, response.get_json()
    out = response.get_json()
    assert [p["amount"] for p in out["players"]] == amounts
    assert [p["outcome"] for p in out["players"]] == outcomes
    assert [p["id"] for p in out["players"]] == [f"p{i}" for i in range(len(players))]
    assert out["dealer"]["net"] == -sum(amounts)
    # No commission: gross is the amount, nothing goes to the house (the answers as before).
    assert [p["gross"] for p in out["players"]] == amounts
    assert [(p["bet"], p["commission"]) for p in out["players"]] == [("double", 0)] * len(players)
    assert (out["dealer"]["gross"], out["dealer"]["commission"], out["house"]) == (-sum(amounts), 0, 0)


Round = list[tuple[str, int, str, str, int, int, int]]


@pytest.mark.parametrize(("profile", "overrides", "dealer", "players", "dealer_result", "house", "exposures"),
                         COMMISSION_ROUNDS, ids=[row[0] for row in COMMISSION_ROUNDS])
def test_commission_examples_engine(profile: str, overrides: dict[str, Any], dealer: str, players: Round,
                                    dealer_result: tuple[int, int, int], house: int,
                                    exposures: dict[int, tuple[int, int]]) -> None:
    rules = apply_overrides(PROFILES[profile].rules, overrides)
    d = evaluate(parse_hand(hand(dealer)), rules)
    seats = [(evaluate(parse_hand(hand(p[0])), rules), p[1]) for p in players]
    result = settle(d, seats, rules, [p[2] for p in players])
    assert [(r.outcome, r.gross, r.commission, r.amount) for r in result.players] == [p[3:] for p in players]
    assert (result.dealer_gross, result.dealer_commission, result.dealer_net) == dealer_result
    assert result.house == house
    assert sum(r.amount for r in result.players) + result.dealer_net + result.house == 0
    for i, (max_loss, max_win) in exposures.items():
        e = player_exposure(players[i][1], players[i][2], rules)
        assert (e.max_loss, e.max_win) == (max_loss, max_win)


@pytest.mark.parametrize(("profile", "overrides", "dealer", "players", "dealer_result", "house", "exposures"),
                         COMMISSION_ROUNDS, ids=[row[0] for row in COMMISSION_ROUNDS])
def test_commission_examples_api(client: FlaskClient, profile: str, overrides: dict[str, Any], dealer: str,
                                 players: Round, dealer_result: tuple[int, int, int], house: int,
                                 exposures: dict[int, tuple[int, int]]) -> None:
    body: dict[str, Any] = {"dealer": {"hand": hand(dealer)},
                            "players": [{"id": f"p{i + 1}", "hand": hand(p[0]), "stake": p[1], "bet": p[2]}
                                        for i, p in enumerate(players)]}
    if overrides:
        body["rules"] = overrides
    response = client.post(f"/v1/settlements?profile={profile}", json=body)
    assert response.status_code == 200, response.get_json()
    out = response.get_json()
    assert [(p["bet"], p["outcome"], p["gross"], p["commission"], p["amount"]) for p in out["players"]] == [
        p[2:] for p in players]
    assert (out["dealer"]["gross"], out["dealer"]["commission"], out["dealer"]["net"]) == dealer_result
    assert out["house"] == house
    for i, (max_loss, max_win) in exposures.items():
        assert out["players"][i]["exposure"] == {"max_loss": max_loss, "max_win": max_win}
    seats: dict[str, Any] = {"players": [{"stake": p[1], "bet": p[2]} for p in players]}
    if overrides:
        seats["rules"] = overrides
    before = client.post(f"/v1/exposures?profile={profile}", json=seats).get_json()
    assert [p["exposure"] for p in before["players"]] == [p["exposure"] for p in out["players"]]
    assert before["dealer"]["exposure"] == out["dealer"]["exposure"]


def test_bull_bull_exposure_example_before_the_deal(client: FlaskClient) -> None:
    # RULES.md 8: p1 (double, 1000) can lose 5000 and win at most 4750; p2 (equal) 1000 and 950.
    out = client.post("/v1/exposures?profile=bull-bull", json={"players": [
        {"id": "p1", "stake": 1000, "bet": "double"}, {"id": "p2", "stake": 1000, "bet": "equal"}]}).get_json()
    assert out["max_payout"] == 5
    assert [(p["id"], p["bet"], p["exposure"]) for p in out["players"]] == [
        ("p1", "double", {"max_loss": 5000, "max_win": 4750}), ("p2", "equal", {"max_loss": 1000, "max_win": 950})]
    # The dealer pays winners their gross (the commission goes from it to the house).
    assert out["dealer"]["exposure"] == {"max_loss": 6000, "max_win": 6000}
    out = client.post("/v1/exposures?profile=bull-bull", json={
        "players": [{"stake": 1000}], "rules": {"dealer_commission_bps": 250, "suited_bonus": "hand"}}).get_json()
    assert (out["max_payout"], out["rules"]["suited_multiplier"]) == (10, 2)
    assert out["players"][0]["exposure"] == {"max_loss": 10000, "max_win": 9500}
    assert out["dealer"]["exposure"] == {"max_loss": 10000, "max_win": 9750}


def test_five_of_a_rank_is_a_bomb() -> None:
    # RULES.md section 4: five of a rank (several decks) is a Bomb too, ranked by that rank.
    five = evaluate(parse_hand(hand("KS KH KD KC KS"), decks=2), NIU_NIU)
    four = evaluate(parse_hand(hand("QS QH QD QC 2S"), decks=2), NIU_NIU)
    assert (five.category, five.label, four.label) == ("bomb", "Bomb K", "Bomb Q")
    assert five.score > four.score


def test_no_ox_dealer_collects_nothing_from_no_ox_player() -> None:
    dealer = evaluate(parse_hand(hand("10S 9H 8D 4C 4H")), STANDARD)
    player = evaluate(parse_hand(hand("10H 9S 8S 4D 4S")), STANDARD)
    result = settle(dealer, [(player, 100)], STANDARD)
    assert (result.players[0].outcome, result.players[0].amount) == ("lose", 0)


def test_tie_rules() -> None:
    dealer = evaluate(parse_hand(hand("10S 9H AD 7C 4H")), STANDARD)
    player = evaluate(parse_hand(hand("10H 9D AC 7D 4S")), STANDARD)
    # Both Single-Ox 1; under high_card the dealer's 10S beats the player's 10H.
    for ties, outcome, amount in (("dealer", "lose", -3), ("push", "push", 0), ("high_card", "lose", -3)):
        rules = apply_overrides(STANDARD, {"ties": ties})
        r = settle(dealer, [(player, 3)], rules).players[0]
        assert (r.outcome, r.amount) == (outcome, amount), ties
    # Identical cards (two decks) stay equal under high_card: a push.
    rules = apply_overrides(STANDARD, {"ties": "high_card"})
    twin = evaluate(parse_hand(hand("10S 9H AD 7C 4H")), rules)
    r = settle(evaluate(dealer.hand, rules), [(twin, 3)], rules).players[0]
    assert (r.outcome, r.amount) == ("push", 0)
