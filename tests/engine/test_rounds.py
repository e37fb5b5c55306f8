"""The round forms of RULES.md 6.4-6.6 in the engine: bid for banker, balances and caps,
showdowns without a dealer.

- Section 8's worked examples, row by row (the API and the CLI replay them too:
  tests/api/test_rounds.py).
- Largest-remainder rounding (6.5 step 2) on its own.
- Properties over random tables, rules, multiples and balances (hypothesis): zero-sum with
  the house; nobody beyond its balance; the dealer within its balance and exactly at it
  whenever step 2 scales; showdowns likewise.
- The independent check (issue 25, DECISIONS 29): thousands of random tables settled by the
  engine and by tests/engine/rounds_reference.py, written from RULES.md alone, agree.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine.bets import BET_NAMES
from service.engine.caps import cap_round, scale_to
from service.engine.cards import parse_hand
from service.engine.rules import PROFILES, Rules, apply_overrides
from service.engine.settle import settle, stake_of
from service.engine.showdown import showdown
from service.engine.tables import HandResult, evaluate, resolved
from tests.engine.rounds_reference import Hand, reference_settlement, reference_showdown

NIU_NIU = PROFILES["niu-niu"].rules
STANDARD = PROFILES["standard"].rules


def hands_of(texts: list[str], rules: Rules) -> list[HandResult]:
    return resolved([[c.code for c in parse_hand(t.split())] for t in texts], rules).results()


# ---------------------------------------------------------------------------------------
# RULES.md section 8


BANKER_DEALER = "KH QS 10D 3C 4C"
BANKER_PLAYERS = ["JS 9H AD 5C 5D", "9S 9D KS 2H 4D", "KH QS 10D 3C 4C", "7S 3H JH 8C 10C"]


def _banker_round(rules: Rules, balances: list[int] | None = None, dealer_balance: int | None = None) -> Any:
    dealer, *players = hands_of([BANKER_DEALER, *BANKER_PLAYERS], rules)
    stakes = [stake_of(100, 3, m) for m in (1, 2, 3, 4)]
    return settle(dealer, list(zip(players, stakes, strict=True)), rules, None, balances, dealer_balance)


def test_section_8_bid_for_banker_without_caps() -> None:
    s = _banker_round(NIU_NIU)
    assert [(p.stake, p.outcome, p.gross) for p in s.players] == [
        (300, "win", 900), (600, "lose", -1200), (900, "push", 0), (1200, "win", 2400)]
    assert (s.dealer_gross, s.sweep) == (-2100, None)


def test_section_8_bid_for_banker_with_table_caps() -> None:
    s = _banker_round(apply_overrides(NIU_NIU, {"balance_caps": "table"}), [500, 10_000, 10_000, 10_000], 1000)
    assert [(p.gross, p.cap) for p in s.players] == [
        (294, "dealer_balance"), (-706, "dealer_balance"), (0, None), (1412, "dealer_balance")]
    assert [p.gross_uncapped for p in s.players] == [900, -1200, 0, 2400]
    assert s.dealer_gross == -1000


def test_section_8_bid_for_banker_with_players_caps() -> None:
    s = _banker_round(apply_overrides(NIU_NIU, {"balance_caps": "players"}), [500, 10_000, 10_000, 10_000])
    assert [(p.gross, p.cap) for p in s.players] == [(500, "player_balance"), (-1200, None), (0, None), (2400, None)]
    assert s.dealer_gross == -1700


def test_section_8_dealer_wins_more_than_it_holds() -> None:
    rules = apply_overrides(NIU_NIU, {"balance_caps": "table"})
    dealer, *players = hands_of(["QH 8S 2D 4C 6C", "AS AH 2C 2H 4H", "9S 9D KS 2S 4D", "7S 3H JH 8C 10C",
                                 "5S 6H 7D 8H 9C"], rules)
    assert (dealer.entry.label, players[0].entry.label) == ("Single-Ox 0", "Five Small")
    s = settle(dealer, [(p, stake_of(100, 3, m)) for p, m in zip(players, (1, 2, 3, 4), strict=True)], rules, None,
               [10_000, 10_000, 10_000, 2000], 3001)
    assert [p.gross_uncapped for p in s.players] == [1500, -1800, -2700, -3600]
    assert [p.gross for p in s.players] == [900, -1080, -1621, -1200]
    assert s.dealer_gross == 3001


SHOWDOWN = ["JS 9H AD 5C 5D", "7S 3H JH 8C 10C", "9S 9D KS 2H 4D", "2S 5H 8D 7C QH"]


@pytest.mark.parametrize(("showdown_rule", "stake", "expected"), [
    ("winner_takes_all", "loser", [240, -30, -120, -90]),
    ("winner_takes_all", "loser_x_winner", [480, -60, -240, -180]),
    ("all_pairs", "loser", [240, 110, -170, -180]),
    ("all_pairs", "loser_x_winner", [480, 80, -200, -360]),
])
def test_section_8_showdown(showdown_rule: str, stake: str, expected: list[int]) -> None:
    rules = apply_overrides(NIU_NIU, {"showdown": showdown_rule, "showdown_stake": stake})
    result = showdown(hands_of(SHOWDOWN, rules), [2, 1, 4, 3], 10, rules)
    assert [p.gross for p in result.players] == expected
    assert (result.strongest, result.house) == ((0,), 0)


def test_section_8_showdown_with_caps() -> None:
    rules = apply_overrides(NIU_NIU, {"balance_caps": "players"})
    result = showdown(hands_of(SHOWDOWN, rules), [2, 1, 4, 3], 10, rules, [10_000, 25, 10_000, 10_000])
    assert [(p.gross, p.cap) for p in result.players] == [
        (235, "loser_balance"), (-25, "loser_balance"), (-120, None), (-90, None)]


def test_section_8_standard_showdown_with_two_strongest() -> None:
    hands = hands_of(["10H 9D AC 7D 4S", "10C 9S AH 7C 4D", "10S 9H 8D 4C 4H"], STANDARD)
    result = showdown(hands, [1, 1, 3], 10, STANDARD)
    assert result.strongest == (0, 1)
    assert [p.gross for p in result.players] == [15, 15, -30]
    assert [p.position for p in result.players] == [1, 1, 3]


def test_tie_payout_stake_charges_one_stake_for_a_tie_the_dealer_takes() -> None:
    dealer = evaluate(parse_hand(["10S", "9H", "AD", "7C", "4H"]), STANDARD)   # Single-Ox 1
    tied = evaluate(parse_hand(["10H", "9D", "AC", "7D", "4S"]), STANDARD)     # Single-Ox 1
    five_dukes_dealer = evaluate(parse_hand(["JS", "QH", "KD", "JC", "QD"]), STANDARD)
    flat = apply_overrides(STANDARD, {"tie_payout": "stake"})
    assert settle(dealer, [(tied, 300)], STANDARD).players[0].gross == -300       # payout 1: the same
    assert settle(five_dukes_dealer, [(evaluate(parse_hand(["JH", "QS", "KS", "KH", "QC"]), STANDARD), 300)],
                  flat).players[0].outcome == "push"                                # two Five Dukes still push
    no_ox = evaluate(parse_hand(["10S", "9H", "8D", "4C", "4H"]), STANDARD)
    other_no_ox = evaluate(parse_hand(["10H", "9C", "8S", "4S", "4D"]), STANDARD)
    assert settle(no_ox, [(other_no_ox, 300)], STANDARD).players[0].gross == 0     # No Ox pays 0 by the hand
    assert settle(no_ox, [(other_no_ox, 300)], flat).players[0].gross == -300       # one stake
    assert settle(no_ox, [(other_no_ox, 300)], flat, ["equal"]).players[0].gross == -300


# ---------------------------------------------------------------------------------------
# Largest remainders


def test_scale_to_reaches_the_target_exactly_and_keeps_each_within_its_value() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        values = [rng.randint(0, 10**rng.randint(0, 15)) * rng.choice((1, -1)) for _ in range(rng.randint(1, 12))]
        total = sum(values)
        if not total:
            continue
        target = rng.randint(0, abs(total)) * (1 if total > 0 else -1)
        out = scale_to(values, target)
        assert sum(out) == target
        assert all(abs(x) <= abs(v) and (x == 0 or (x > 0) == (v > 0)) for x, v in zip(out, values, strict=True))


def test_cap_round_leaves_tables_within_every_balance() -> None:
    assert cap_round([100, -100], [50, 50], 0) == [(50, 100, "player_balance"), (-50, -100, "player_balance")]
    assert cap_round([5, 5, 5], [10, 10, 10], 1) == [(1, 5, "dealer_balance"), (0, 5, "dealer_balance"),
                                                     (0, 5, "dealer_balance")]


# ---------------------------------------------------------------------------------------
# Random tables


def _rules(rng: random.Random) -> Rules:
    base = PROFILES[rng.choice(list(PROFILES))].rules
    return apply_overrides(base, {
        "ties": rng.choice(("dealer", "push", "high_card")),
        "tie_payout": rng.choice(("hand", "stake")),
        "commission_bps": rng.choice((0, 0, 1, 500, 10_000)),
        "dealer_commission_bps": rng.choice((0, 0, 250, 10_000)),
        "balance_caps": rng.choice(("none", "players", "table")),
        "showdown": rng.choice(("winner_takes_all", "all_pairs")),
        "showdown_stake": rng.choice(("loser", "loser_x_winner")),
    })


def _deal(rng: random.Random, hands: int, decks: int) -> list[list[int]]:
    shoe = [c for c in range(52) for _ in range(decks)]
    rng.shuffle(shoe)
    return [shoe[5 * i:5 * i + 5] for i in range(hands)]


def _balance(rng: random.Random) -> int:
    return rng.choice((0, 1, rng.randint(0, 500), rng.randint(0, 10**6), 10**15))


def _ref_rules(rules: Rules) -> dict[str, Any]:
    return {"ties": rules.ties, "tie_payout": rules.tie_payout, "five_dukes_push": True,
            "balance_caps": rules.balance_caps, "commission_bps": rules.commission_bps,
            "dealer_commission_bps": rules.dealer_commission_bps, "showdown": rules.showdown,
            "showdown_stake": rules.showdown_stake}


def _ref_hand(r: HandResult) -> Hand:
    return Hand(r.score, getattr(r.category, "value", r.category), r.payout, tuple(r.codes))


def random_table(rng: random.Random) -> dict[str, Any]:
    """A random table against a dealer: rules, hands, stakes (from base and multiples or
    given), bets, balances where the caps take them."""
    rules = _rules(rng)
    decks = rng.choice((1, 1, 2, 3))
    n = rng.randint(1, min(14, 52 * decks // 5 - 1))
    codes = _deal(rng, n + 1, decks)
    if rng.random() < 0.5:
        base, bid = rng.choice((1, 7, 100, 10**6)), rng.randint(1, 100)
        stakes = [stake_of(base, bid, rng.randint(1, 100)) for _ in range(n)]
    else:
        stakes = [rng.choice((1, 19, 250, 10**6, 10**9)) for _ in range(n)]
    capped = rules.balance_caps != "none"
    return {"rules": rules, "codes": codes, "stakes": stakes, "bets": [rng.choice(BET_NAMES) for _ in range(n)],
            "balances": [_balance(rng) for _ in range(n)] if capped else None,
            "dealer_balance": _balance(rng) if rules.balance_caps == "table" else None}


def settle_table(t: dict[str, Any]) -> Any:
    dealer, *players = resolved(t["codes"], t["rules"]).results()
    return settle(dealer, list(zip(players, t["stakes"], strict=True)), t["rules"], t["bets"], t["balances"],
                  t["dealer_balance"])


def random_showdown(rng: random.Random) -> dict[str, Any]:
    rules = _rules(rng)
    if rules.balance_caps != "none" and rules.showdown == "all_pairs":
        rules = replace(rules, showdown="winner_takes_all")
    decks = rng.choice((1, 1, 2))
    n = rng.randint(2, 52 * decks // 5)
    base = rng.choice((1, 10, 1000, 10**6))
    return {"rules": rules, "codes": _deal(rng, n, decks), "base": base,
            "multiples": [rng.randint(1, 100) for _ in range(n)],
            "balances": [_balance(rng) for _ in range(n)] if rules.balance_caps != "none" else None}


def showdown_table(t: dict[str, Any]) -> Any:
    return showdown(resolved(t["codes"], t["rules"]).results(), t["multiples"], t["base"], t["rules"], t["balances"])


def test_independent_check_of_settlements_on_thousands_of_random_tables() -> None:
    """The engine and the reference written from RULES.md alone agree on 3,000 tables
    (caps on about two thirds of them), member for member."""
    rng = random.Random(2025)
    scaled = 0
    for _ in range(3000):
        t = random_table(rng)
        s = settle_table(t)
        dealer, *players = (_ref_hand(r) for r in resolved(t["codes"], t["rules"]).results())
        ref = reference_settlement(dealer, players, _ref_rules(t["rules"]), stakes=t["stakes"], bets=t["bets"],
                                   balances=t["balances"], dealer_balance=t["dealer_balance"])
        assert [(p.stake, p.outcome, p.gross, p.commission, p.amount) for p in s.players] == [
            (p.stake, p.outcome, p.gross, p.commission, p.amount) for p in ref.players], t
        if t["balances"] is not None:
            assert [(p.gross_uncapped, p.cap) for p in s.players] == [(p.gross_uncapped, p.cap) for p in ref.players]
            scaled += any(p.cap == "dealer_balance" for p in ref.players)
        assert (s.dealer_gross, s.dealer_commission, s.dealer_net, s.house, s.sweep) == (
            ref.dealer_gross, ref.dealer_commission, ref.dealer_net, ref.house, ref.sweep)
    assert scaled > 100  # step 2 was exercised


def test_independent_check_of_showdowns_on_thousands_of_random_tables() -> None:
    """Both showdown rules, both stakes, with and without caps: 2,000 tables."""
    rng = random.Random(2026)
    kinds: set[tuple[str, bool]] = set()
    for _ in range(2000):
        t = random_showdown(rng)
        result = showdown_table(t)
        hands = [_ref_hand(r) for r in resolved(t["codes"], t["rules"]).results()]
        ref = reference_showdown(hands, t["multiples"], t["base"], _ref_rules(t["rules"]), t["balances"])
        assert list(result.strongest) == ref.strongest, t
        assert [(p.gross_uncapped, p.gross, p.commission, p.amount) for p in result.players] == list(
            zip(ref.gross_uncapped, ref.gross, ref.commission, ref.amount, strict=True)), t
        if t["balances"] is not None:
            assert [p.cap for p in result.players] == ref.caps, t
        assert result.house == ref.house
        kinds.add((t["rules"].showdown, t["balances"] is not None))
    assert kinds == {("winner_takes_all", False), ("winner_takes_all", True), ("all_pairs", False)}


# ---------------------------------------------------------------------------------------
# Properties (hypothesis)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_settlements_are_zero_sum_and_within_every_balance(seed: int) -> None:
    t = random_table(random.Random(seed))
    s = settle_table(t)
    assert sum(p.amount for p in s.players) + s.dealer_net + s.house == 0
    assert s.dealer_gross == -sum(p.gross for p in s.players)
    if t["balances"] is not None:
        assert all(abs(p.gross) <= b for p, b in zip(s.players, t["balances"], strict=True))
        assert all(abs(p.amount) <= b for p, b in zip(s.players, t["balances"], strict=True))
    if t["dealer_balance"] is not None:
        balance = t["dealer_balance"]
        assert max(abs(s.dealer_gross), abs(s.dealer_net)) <= balance
        step1 = sum(min(abs(p.gross_uncapped), b) * (1 if p.gross_uncapped > 0 else -1)
                    for p, b in zip(s.players, t["balances"], strict=True))
        if abs(step1) > balance:  # step 2 scales: the dealer pays or collects exactly its balance
            assert abs(s.dealer_gross) == balance


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_showdowns_are_zero_sum_and_within_every_balance(seed: int) -> None:
    t = random_showdown(random.Random(seed))
    result = showdown_table(t)
    assert sum(p.amount for p in result.players) + result.house == 0
    assert sum(p.gross for p in result.players) == 0
    if t["balances"] is not None:
        assert all(abs(p.gross) <= b for p, b in zip(result.players, t["balances"], strict=True))
    assert all(result.players[i].position == 1 for i in result.strongest)
    assert all(p.gross >= 0 for i, p in enumerate(result.players) if i in result.strongest)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_without_caps_and_multiples_of_one_a_base_table_settles_as_the_stakes(seed: int) -> None:
    """``balance_caps: none`` and every multiple 1: each stake is the base, so the round is
    exactly today's round at that stake (the API test compares the whole answers)."""
    rng = random.Random(seed)
    t = random_table(rng)
    rules = replace(t["rules"], balance_caps="none")
    base = rng.randint(1, 10**6)
    stake = stake_of(base, 1, 1)
    dealer, *players = resolved(t["codes"], rules).results()
    plain = settle(dealer, [(p, base) for p in players], rules, t["bets"])
    based = settle(dealer, [(p, stake) for p in players], rules, t["bets"])
    assert plain == based
