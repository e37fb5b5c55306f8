"""A second settlement of the round forms, written from RULES.md 6-6.6 alone (issue 25's
independent check; DECISIONS 29).

It takes the engine's hand evaluations (score, category, payout, card codes) as input and
re-derives everything else from the text, sharing none of the engine's settlement code:
section 5's comparison, section 6's outcomes and amounts, 6.1's bets, 6.2's commission,
6.4's stakes, ``tie_payout`` and ``sweep``, 6.5's caps and 6.6's showdowns. Where the engine
works in integers, this works in exact fractions and sorts, and it settles a showdown pair
by pair, as the text reads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["Hand", "RefPlayer", "RefRound", "RefShowdown", "reference_settlement", "reference_showdown"]

FIVE_DUKES = "five_dukes"


@dataclass(frozen=True)
class Hand:
    """What this reference takes from the engine: one evaluated hand."""

    score: int
    category: str
    payout: int
    codes: tuple[int, ...]


def _versus(a: Hand, b: Hand, ties: str, dukes_push: bool, showdown: bool = False) -> int:
    """Section 5: ``1`` when ``a`` is stronger, ``-1`` when ``b`` is, ``0`` when equal (under
    ``high_card``, cards compared from the highest down; a card's code orders rank, then suit)."""
    if showdown and dukes_push and a.category == b.category == FIVE_DUKES:
        return 0
    if a.score != b.score:
        return 1 if a.score > b.score else -1
    if ties != "high_card":
        return 0
    ka, kb = sorted(a.codes, reverse=True), sorted(b.codes, reverse=True)
    return (ka > kb) - (ka < kb)


def _commission(gross: int, bps: int) -> int:
    """6.2: the rate of a positive gross, rounded down (Fraction, then floor)."""
    return math.floor(Fraction(gross * bps, 10_000)) if gross > 0 else 0


def _largest_remainders(xs: Sequence[Fraction], target: int, first_of_equal: Sequence[int]) -> list[int]:
    """6.5 step 2: round each exact value down, then hand the missing units one each to the
    largest fractional parts (equal parts: the one listed first)."""
    floors = [math.floor(x) for x in xs]
    missing = target - sum(floors)
    assert 0 <= missing <= len(xs), (xs, target)
    ranked = sorted(range(len(xs)), key=lambda i: (-(xs[i] - floors[i]), first_of_equal[i]))
    for i in ranked[:missing]:
        floors[i] += 1
    return floors


@dataclass
class RefPlayer:
    stake: int
    outcome: str
    gross_uncapped: int
    gross: int
    cap: str | None
    commission: int
    amount: int


@dataclass
class RefRound:
    players: list[RefPlayer]
    dealer_gross: int
    dealer_commission: int
    dealer_net: int
    house: int
    sweep: str | None


def _gross(player: Hand, dealer: Hand, stake: int, bet: str, rules: dict[str, Any]) -> tuple[str, int]:
    """Sections 6, 6.1, 6.4: the outcome and gross of one player, from the player's side."""
    if rules["five_dukes_push"] and player.category == dealer.category == FIVE_DUKES:
        return "push", 0
    order = _versus(player, dealer, rules["ties"], rules["five_dukes_push"])
    if order > 0:
        return "win", stake * (player.payout if bet == "double" else 1)
    if order == 0 and rules["ties"] != "dealer":
        return "push", 0
    if order == 0 and rules["tie_payout"] == "stake":
        return "lose", -stake
    return "lose", -stake * (dealer.payout if bet == "double" else 1)


def reference_settlement(dealer: Hand, players: Sequence[Hand], rules: dict[str, Any], *, stakes: Sequence[int],
                         bets: Sequence[str], balances: Sequence[int] | None = None,
                         dealer_balance: int | None = None) -> RefRound:
    """A round against the dealer, as RULES.md 6-6.5 say it settles.

    :param rules: ``ties``, ``tie_payout``, ``five_dukes_push``, ``balance_caps``,
        ``commission_bps``, ``dealer_commission_bps``.
    """
    outcomes, uncapped = [], []
    for hand, stake, bet in zip(players, stakes, bets, strict=True):
        outcome, g = _gross(hand, dealer, stake, bet, rules)
        outcomes.append(outcome)
        uncapped.append(g)
    capped = list(uncapped)
    caps: list[str | None] = [None] * len(players)
    if rules["balance_caps"] != "none":
        assert balances is not None
        step1 = [min(abs(g), b) * (1 if g > 0 else -1) for g, b in zip(uncapped, balances, strict=True)]
        capped = list(step1)
        total = sum(step1)
        if rules["balance_caps"] == "table":
            assert dealer_balance is not None
        if rules["balance_caps"] == "table" and abs(total) > (dealer_balance or 0):
            assert dealer_balance is not None
            xs = [Fraction(c * dealer_balance, abs(total)) for c in step1]
            target = dealer_balance if total > 0 else -dealer_balance
            capped = _largest_remainders(xs, target, list(range(len(xs))))
        for i, (g, c1, c) in enumerate(zip(uncapped, step1, capped, strict=True)):
            caps[i] = None if c == g else "dealer_balance" if c != c1 else "player_balance"
    out = []
    for stake, outcome, g, c, cap in zip(stakes, outcomes, uncapped, capped, caps, strict=True):
        commission = _commission(c, rules["commission_bps"])
        out.append(RefPlayer(stake, outcome, g, c, cap, commission, c - commission))
    dealer_gross = -sum(p.gross for p in out)
    dealer_commission = _commission(dealer_gross, rules["dealer_commission_bps"])
    sweep = ("all_win" if all(o == "lose" for o in outcomes) else
             "all_lose" if all(o == "win" for o in outcomes) else None)
    return RefRound(out, dealer_gross, dealer_commission, dealer_gross - dealer_commission,
                    sum(p.commission for p in out) + dealer_commission, sweep)


@dataclass
class RefShowdown:
    strongest: list[int]
    gross_uncapped: list[int]
    gross: list[int]
    caps: list[str | None]
    commission: list[int]
    amount: list[int]
    house: int


def reference_showdown(hands: Sequence[Hand], multiples: Sequence[int], base: int, rules: dict[str, Any],
                       balances: Sequence[int] | None = None) -> RefShowdown:
    """A showdown without a dealer, as RULES.md 6.6 says it settles: the strongest are the
    hands no other hand beats; then every payment, one by one.

    :param rules: ``ties``, ``five_dukes_push``, ``showdown``, ``showdown_stake``,
        ``balance_caps``, ``commission_bps``.
    """
    n = len(hands)

    def vs(i: int, j: int) -> int:
        return _versus(hands[i], hands[j], rules["ties"], rules["five_dukes_push"], showdown=True)

    def owed(loser: int, winner: int) -> int:
        amount = base * multiples[loser] * hands[winner].payout
        return amount * (multiples[winner] if rules["showdown_stake"] == "loser_x_winner" else 1)

    strongest = [i for i in range(n) if all(vs(j, i) <= 0 for j in range(n))]
    pay: dict[tuple[int, int], int] = {}
    if rules["showdown"] == "all_pairs":
        for i in range(n):
            for j in range(n):
                if vs(i, j) > 0:
                    pay[j, i] = owed(j, i)
    else:
        w = len(strongest)
        for loser in range(n):
            if loser not in strongest:
                for winner in strongest:
                    pay[loser, winner] = math.floor(Fraction(owed(loser, winner), w))
    uncapped = [sum(v for (a, b), v in pay.items() if b == i) - sum(v for (a, b), v in pay.items() if a == i)
                for i in range(n)]
    capped_pay = dict(pay)
    by_loser: set[int] = set()
    by_winner: set[int] = set()
    if rules["balance_caps"] != "none":
        assert balances is not None
        assert rules["showdown"] == "winner_takes_all"
        w = len(strongest)
        for (loser, winner), v in pay.items():
            limit = math.floor(Fraction(balances[loser], w))
            if v > limit:
                capped_pay[loser, winner] = limit
                by_loser |= {loser, winner}
        for winner in strongest:
            pairs = sorted(p for p in capped_pay if p[1] == winner)
            total = sum(capped_pay[p] for p in pairs)
            if total > balances[winner]:
                xs = [Fraction(capped_pay[p] * balances[winner], total) for p in pairs]
                for p, v in zip(pairs, _largest_remainders(xs, balances[winner], [p[0] for p in pairs]), strict=True):
                    if v != capped_pay[p]:
                        by_winner |= set(p)
                    capped_pay[p] = v
    gross = [sum(v for (a, b), v in capped_pay.items() if b == i) - sum(v for (a, b), v in capped_pay.items() if a == i)
             for i in range(n)]
    caps: list[str | None] = [None if g == u else "winner_balance" if i in by_winner else "loser_balance"
                              for i, (g, u) in enumerate(zip(gross, uncapped, strict=True))]
    commission = [_commission(g, rules["commission_bps"]) for g in gross]
    return RefShowdown(strongest, uncapped, gross, caps, commission, [g - c for g, c in zip(gross, commission,
                                                                                                 strict=True)],
                       sum(commission))
