"""RULES.md section 8: every worked example, through the engine and through the API."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from service.engine.cards import parse_hand
from service.engine.evaluate import evaluate_reference
from service.engine.rules import PROFILES, apply_overrides
from service.engine.settle import settle
from service.engine.tables import evaluate
from tests.cases import NIU_NIU_ROWS, SETTLEMENTS, STANDARD_ROWS, hand

STANDARD = PROFILES["standard"].rules
NIU_NIU = PROFILES["niu-niu"].rules


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
