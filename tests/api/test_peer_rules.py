"""RULES.md 8.2 (the peers' house rules: ``run_ox``, ``full_house_order``,
``showdown_winner_cap``, ``min_commission``): every row through the API and through the
``gnau`` command, which must answer the API's body under ``--json``; the knobs listed in
``rules`` only while set (the earlier answers and digests unchanged); and the analyses
taking ``run_ox`` and ``full_house_order`` while naming ``min_commission`` among the knobs
they ignore."""

from __future__ import annotations

import json

import pytest
from flask.testing import FlaskClient

from service.engine.rules import PROFILES
from tests.api.helpers import gnau_json, gnau_text, post
from tests.engine.cases import (
    FULL_HOUSE_AMOUNTS,
    FULL_HOUSE_PAIR,
    FULL_HOUSE_RULES,
    FULL_HOUSE_TABLE,
    MIN_COMMISSION_RESULTS,
    MIN_COMMISSION_RULES,
    MIN_COMMISSION_TABLE,
    RUN_OX,
    RUN_OX_ROWS,
    WINNER_CAP_RESULTS,
    WINNER_CAP_RULES,
    WINNER_CAP_SEATS,
    hand,
)


@pytest.mark.parametrize(("cards", "label", "without"), RUN_OX_ROWS, ids=[row[0] for row in RUN_OX_ROWS])
def test_run_ox_rows(client: FlaskClient, capsys: pytest.CaptureFixture[str], cards: str, label: str,
                     without: str) -> None:
    body = post(client, "/v1/evaluations", {"hand": hand(cards), "rules": RUN_OX}, "niu-niu")
    assert body["label"] == label
    assert body["rules"]["run_ox"] is True
    assert gnau_json(capsys, "evaluate", *hand(cards), "--profile", "niu-niu", "--rules", json.dumps(RUN_OX)) == body
    plain = post(client, "/v1/evaluations", {"hand": hand(cards)}, "niu-niu")
    assert plain["label"] == without
    assert plain["rules_digest"] == PROFILES["niu-niu"].rules.digest() != body["rules_digest"]
    off = post(client, "/v1/evaluations", {"hand": hand(cards), "rules": {"run_ox": False}}, "niu-niu")
    assert "run_ox" not in off["rules"]  # listed only while set: the earlier answers unchanged
    assert off["rules_digest"] == plain["rules_digest"]


def test_run_ox_formation_names_the_run(client: FlaskClient) -> None:
    """3-4-5 is the ox of ``3S 4H 5D KC 9S``, K and 9 its power cards (RULES.md 3, 8.2)."""
    body = post(client, "/v1/evaluations", {"hand": hand("3S 4H 5D KC 9S"), "rules": RUN_OX}, "niu-niu")
    assert body["ox"]["cards"] == ["3S", "4H", "5D"]
    assert body["power"]["cards"] == ["KC", "9S"]


@pytest.mark.parametrize("order", list(FULL_HOUSE_AMOUNTS))
def test_full_house_order_settlement_row(client: FlaskClient, capsys: pytest.CaptureFixture[str], order: str) -> None:
    dealer, bid, player, bet, base = FULL_HOUSE_TABLE
    rules = FULL_HOUSE_RULES[order]
    request = {"base": base, "rules": rules, "dealer": {"hand": hand(dealer), "bid_multiple": bid},
               "players": [{"hand": hand(player), "bet_multiple": bet}]}
    body = post(client, "/v1/settlements", request, "niu-niu-plus")
    (result,) = body["players"]
    assert body["dealer"]["evaluation"]["category"] == result["evaluation"]["category"] == "full_house"
    assert result["amount"] == FULL_HOUSE_AMOUNTS[order]
    assert ("full_house_order" in body["rules"]) == (order == "high_card")
    args = ["settle", "--profile", "niu-niu-plus", "--base", str(base), "--bid-multiple", str(bid),
            "--dealer", dealer, "--player", f"x{bet}:{player}", "--rules", json.dumps(rules)]
    assert gnau_json(capsys, *args) == body
    assert f"{FULL_HOUSE_AMOUNTS[order]:+d}" in gnau_text(capsys, *args)


@pytest.mark.parametrize("order", list(FULL_HOUSE_AMOUNTS))
def test_full_house_order_ranking_row(client: FlaskClient, capsys: pytest.CaptureFixture[str], order: str) -> None:
    """``8S QH 8C 8D QS`` beats ``AH JS JD AD JH`` under ``high_card`` (Q♠ over J♠, aces
    low) and loses under ``trips_rank`` (8s under Js)."""
    rules = FULL_HOUSE_RULES[order]
    request = {"hands": [{"hand": hand(h)} for h in FULL_HOUSE_PAIR], "rules": rules}
    body = post(client, "/v1/rankings", request, "niu-niu-plus")
    first = 0 if order == "high_card" else 1
    assert [(r["index"], r["position"]) for r in body["ranking"]] == [(first, 1), (1 - first, 2)]
    assert gnau_json(capsys, "rank", *FULL_HOUSE_PAIR, "--profile", "niu-niu-plus", "--rules", json.dumps(rules)) \
        == body


@pytest.mark.parametrize("cap", list(WINNER_CAP_RESULTS))
def test_showdown_winner_cap_row(client: FlaskClient, capsys: pytest.CaptureFixture[str], cap: str) -> None:
    rules = {**WINNER_CAP_RULES, "showdown_winner_cap": cap}
    request = {"base": 1000, "rules": rules, "players": [
        {"id": name, "hand": hand(cards), "bet_multiple": m, "balance": b} for name, cards, m, b in WINNER_CAP_SEATS]}
    body = post(client, "/v1/showdowns", request, "niu-niu")
    assert [(p["gross"], p["commission"], p["amount"], p["cap"]) for p in body["players"]] == WINNER_CAP_RESULTS[cap]
    assert [p["gross_uncapped"] for p in body["players"]] == [420_000, -195_000, -225_000]  # 1000 x bet x 5 x 3
    assert body["strongest"] == [{"index": 0, "id": "w"}]
    assert body["house"] == WINNER_CAP_RESULTS[cap][0][1]
    assert ("showdown_winner_cap" in body["rules"]) == (cap == "per_loser")
    args = ["showdown", "--profile", "niu-niu", "--base", "1000", "--rules", json.dumps(rules)]
    args += [a for name, cards, m, _ in WINNER_CAP_SEATS for a in ("--player", f"{name}:x{m}:{cards}")]
    args += [a for *_, b in WINNER_CAP_SEATS for a in ("--balance", str(b))]
    assert gnau_json(capsys, *args) == body
    assert WINNER_CAP_RESULTS[cap][0][3] in gnau_text(capsys, *args)


@pytest.mark.parametrize("least", list(MIN_COMMISSION_RESULTS))
def test_min_commission_row(client: FlaskClient, capsys: pytest.CaptureFixture[str], least: int) -> None:
    dealer, dealer_balance, player, balance, base = MIN_COMMISSION_TABLE
    rules = {**MIN_COMMISSION_RULES, **({"min_commission": least} if least else {})}
    request = {"base": base, "rules": rules, "dealer": {"hand": hand(dealer), "balance": dealer_balance},
               "players": [{"hand": hand(player), "balance": balance}]}
    body = post(client, "/v1/settlements", request, "niu-niu")
    (result,) = body["players"]
    assert (result["gross_uncapped"], result["cap"]) == (500, "dealer_balance")
    assert (result["gross"], result["commission"], result["amount"]) == MIN_COMMISSION_RESULTS[least]
    assert body["house"] == MIN_COMMISSION_RESULTS[least][1]
    args = ["settle", "--profile", "niu-niu", "--base", str(base), "--dealer", dealer, "--dealer-balance",
            str(dealer_balance), "--player", f"x1:{player}", "--balance", str(balance), "--rules", json.dumps(rules)]
    assert gnau_json(capsys, *args) == body
    assert f"house (commission) {MIN_COMMISSION_RESULTS[least][1]}" in gnau_text(capsys, *args)


def test_min_commission_bounds_the_exposure(client: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    """Exposures' ``max_win`` take the minimum commission (an ``equal`` stake of 10 at 5 % would
    pay 0 by the rate, pays 1: wins at most 9), and nothing where no rate applies."""
    request = {"rules": {"min_commission": 1}, "players": [{"id": "a", "stake": 10, "bet": "equal"},
                                                          {"id": "b", "stake": 1000}]}
    body = post(client, "/v1/exposures", request, "bull-bull")
    assert [p["exposure"] for p in body["players"]] == [{"max_loss": 10, "max_win": 9},
                                                         {"max_loss": 5000, "max_win": 4750}]
    args = ["exposures", "--profile", "bull-bull", "--rules", json.dumps(request["rules"]), "--seat", "a:10",
            "--bet", "equal", "--seat", "b:1000", "--bet", "double"]
    assert gnau_json(capsys, *args) == body
    no_rate = post(client, "/v1/exposures", request | {"rules": {"min_commission": 1, "commission_bps": 0}}, "bull-bull")
    assert no_rate["players"][0]["exposure"] == {"max_loss": 10, "max_win": 10}


def test_analyses_take_run_ox_and_ignore_min_commission(client: FlaskClient) -> None:
    """Odds under ``run_ox`` count the runs (the hand is an ox only with it); the house edge
    names ``min_commission`` among the knobs it does not take (it is computed from the rate)."""
    cards = hand("3S 4H 5D KC 9S")
    plain = post(client, "/v1/odds", {"hand": cards}, "niu-niu")
    runs = post(client, "/v1/odds", {"hand": cards, "rules": RUN_OX}, "niu-niu")
    assert plain["evaluation"]["label"] == "No Ox"
    assert runs["evaluation"]["label"] == "Single-Ox 9"
    assert runs["win"]["fraction"] != plain["win"]["fraction"]
    edge = post(client, "/v1/analyses/house-edge", {"rules": {"min_commission": 5}}, "bull-bull")
    assert edge["ignored_knobs"] == ["min_commission"]
    plain = post(client, "/v1/analyses/house-edge", {"rules": {"commission_bps": 500}}, "bull-bull")
    assert {k: v for k, v in edge.items() if k not in ("ignored_knobs", "rules", "rules_digest")} == {
        k: v for k, v in plain.items() if k not in ("rules", "rules_digest")}


def test_rankings_compare_full_houses_by_the_top_card_alone(client: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    """POST /v1/rankings (its numpy order) with two decks: Full Houses topped by the same K♥
    share a position under ``full_house_order: high_card`` (dealer ties), K♠ above them; under
    ``ties: high_card`` the rest of the hands orders them too."""
    hands = ["2S 2H 2D KH KC", "KC KH KD 3S 3H", "KS KH KD 2S 2H"]
    rules = {"full_house": True, "full_house_order": "high_card"}
    request = {"decks": 2, "rules": rules, "hands": [{"hand": hand(h)} for h in hands]}
    body = post(client, "/v1/rankings", request, "standard")
    assert [(r["index"], r["position"]) for r in body["ranking"]] == [(2, 1), (0, 2), (1, 2)]
    assert gnau_json(capsys, "rank", *hands, "--decks", "2", "--rules", json.dumps(rules)) == body
    whole = post(client, "/v1/rankings", request | {"rules": rules | {"ties": "high_card"}}, "standard")
    assert [(r["index"], r["position"]) for r in whole["ranking"]] == [(2, 1), (1, 2), (0, 3)]
