"""Every integer the service returns lies within ±(2^53 − 1) (I-JSON, RFC 7493): a
settlement table whose worst case could leave that range is refused with a 400 naming the
bound, and one exactly inside it settles exactly."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from service.engine.rules import PROFILES, Rules, apply_overrides
from service.engine.settle import MAX_SAFE_INTEGER, MAX_STAKE, worst_case_amount

# Every payout 1,000 and the suited bonus on the whole hand at 10x: any hand pays 10,000x.
RICH = {"payouts": {k: 1000 for k in ("five_dukes", "five_small", "ngau_tonku", "double_ox", "single_ox",
                                      "no_ox")},
        "suited_bonus": "hand", "suited_multiplier": 10}
# The largest stake one player may have under RICH: 900,719,925,474 x 10,000 <= 2^53 - 1.
LIMIT = MAX_SAFE_INTEGER // 10_000


def _table(stakes: list[int], rules: dict[str, Any] | None = None, decks: int = 1) -> dict[str, Any]:
    deck = [r + s for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"] for s in "SHDC"]
    cards = deck * decks
    body: dict[str, Any] = {"decks": decks, "dealer": {"hand": ["10S", "9H", "8D", "4C", "4H"]},  # No Ox
                            "players": []}
    free = list(cards)
    for card in body["dealer"]["hand"]:
        free.remove(card)  # one copy
    for i, stake in enumerate(stakes):
        body["players"].append({"id": f"p{i}", "hand": free[5 * i:5 * i + 5], "stake": stake})
    if rules is not None:
        body["rules"] = rules
    return body


def test_max_safe_integer_is_javascripts() -> None:
    assert MAX_SAFE_INTEGER == 9_007_199_254_740_991
    assert float(MAX_SAFE_INTEGER) == MAX_SAFE_INTEGER
    assert float(MAX_SAFE_INTEGER + 2) == float(MAX_SAFE_INTEGER + 1)  # beyond it, doubles skip integers


def largest_payout(rules: Rules) -> int:
    return rules.max_payout


@pytest.mark.parametrize(("profile", "payout"), [("standard", 10), ("casino", 7), ("liberal", 20), ("niu-niu", 5),
                                                 ("bull-bull", 5)])
def test_largest_payout_per_builtin_profile(profile: str, payout: int) -> None:
    assert largest_payout(PROFILES[profile].rules) == payout


def test_largest_payout_counts_only_enabled_categories_and_single_ox_strengths() -> None:
    std = PROFILES["standard"].rules
    assert largest_payout(apply_overrides(std, {"payouts": {"bomb": 1000}})) == 10  # bombs are off
    assert largest_payout(apply_overrides(std, {"bomb": True, "payouts": {"bomb": 1000}})) == 1000
    assert largest_payout(apply_overrides(std, {"payouts": {"single_ox_9": 77}})) == 77
    assert largest_payout(apply_overrides(std, RICH)) == 10_000


def test_worst_case_is_the_stakes_sum_times_the_largest_payout() -> None:
    rich = apply_overrides(PROFILES["standard"].rules, RICH)
    assert worst_case_amount([(LIMIT, "double")], rich) == 9_007_199_254_740_000
    assert worst_case_amount([(LIMIT + 1, "double")], rich) == 9_007_199_254_750_000
    assert worst_case_amount([(MAX_STAKE, "double")] * 82, rich) == 820_000_000_000_000_000
    assert worst_case_amount([(MAX_STAKE, "equal")] * 82, rich) == 82 * MAX_STAKE  # equal bets pay 1:1
    # Built-in profiles never reach the bound, whatever the (valid) stakes and bets.
    for profile in PROFILES.values():
        assert worst_case_amount([(MAX_STAKE, "double")] * 82, profile.rules) <= MAX_SAFE_INTEGER


def test_the_issues_table_is_refused_naming_the_bound(app: Flask) -> None:
    """82 players at 999,999,999,999 with payouts 1,000 and multiplier 10: Node's JSON.parse
    would read the dealer's net -689999999999310000 as -689999999999309952."""
    response = app.test_client().post("/v1/settlements", json=_table([999_999_999_999] * 82, RICH, decks=8))
    assert response.status_code == 400
    problem = response.json
    assert problem is not None
    assert problem["type"] == "/problems/validation-error"
    [error] = problem["errors"]
    assert error["pointer"] == "/players"
    assert "819999999999180000" in error["detail"]
    assert "9007199254740991 (2^53 − 1" in error["detail"]


def test_a_table_at_the_bound_settles_exactly(app: Flask) -> None:
    body = _table([LIMIT], RICH)
    body["players"][0]["hand"] = ["AH", "2H", "7H", "3H", "5H"]  # all hearts: the bonus applies
    response = app.test_client().post("/v1/settlements", json=body)
    assert response.status_code == 200, response.json
    data = response.json
    assert data is not None
    [player] = data["players"]
    assert (player["outcome"], player["evaluation"]["payout"]) == ("win", 10_000)
    assert player["amount"] == 9_007_199_254_740_000 <= MAX_SAFE_INTEGER
    assert data["dealer"]["net"] == -9_007_199_254_740_000
    assert b"9007199254740000" in response.data  # written exactly


def test_one_unit_over_the_bound_is_refused(app: Flask) -> None:
    response = app.test_client().post("/v1/settlements", json=_table([LIMIT + 1], RICH))
    assert response.status_code == 400
    assert response.json is not None
    assert [e["pointer"] for e in response.json["errors"]] == ["/players"]


def test_other_problems_are_reported_first(app: Flask) -> None:
    """The bound needs valid stakes and rules: with a bad card it is not checked (no guess)."""
    body = _table([MAX_STAKE] * 9, RICH)
    body["dealer"]["hand"][0] = "1S"
    response = app.test_client().post("/v1/settlements", json=body)
    assert response.status_code == 400
    assert response.json is not None
    assert [e["pointer"] for e in response.json["errors"]] == ["/dealer/hand/0"]
