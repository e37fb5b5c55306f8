"""RULES.md 6.5's step 2 under both ``dealer_shortfall`` readings, against a reading of the
section written here with exact fractions, on random tables."""

from __future__ import annotations

from fractions import Fraction
from math import floor

from hypothesis import given
from hypothesis import strategies as st

from service.engine.caps import SHORTFALLS, Shortfall, cover_shortfall


def largest_remainders(exact: list[Fraction], target: int) -> list[int]:
    """Round down, then one unit each to the largest fractional parts (the first listed first)."""
    out = [floor(x) for x in exact]
    order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - floor(exact[i])), i))
    for i in order[:target - sum(out)]:
        out[i] += 1
    return out


def reference(c: list[int], balance: int, shortfall: str) -> list[int]:
    """Section 6.5 step 2 and its `dealer_shortfall` subsection, read literally."""
    s = sum(c)
    if abs(s) <= balance:
        return c
    if shortfall == "scale_all":
        target = balance if s > 0 else -balance
        return largest_remainders([Fraction(x * target, s) for x in c], target)
    if s > balance:  # the dealer is short to the winners: losers pay in full
        losers = [x for x in c if x < 0]
        pool = balance + sum(-x for x in losers)
        winners_total = sum(x for x in c if x > 0)
        winners = [i for i, x in enumerate(c) if x > 0]
        shares = largest_remainders([Fraction(c[i] * pool, winners_total) for i in winners], pool)
    else:  # the dealer would win more than its balance: winners are paid in full
        pool = balance + sum(x for x in c if x > 0)
        losers_total = sum(-x for x in c if x < 0)
        winners = [i for i, x in enumerate(c) if x < 0]
        shares = largest_remainders([Fraction(c[i] * pool, losers_total) for i in winners], -pool)
    out = list(c)
    for i, x in zip(winners, shares, strict=True):
        out[i] = x
    return out


@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=12), st.integers(0, 3 * 10**6),
       st.sampled_from(SHORTFALLS))
def test_cover_shortfall_is_the_rules_reading(c: list[int], balance: int, shortfall: Shortfall) -> None:
    got = cover_shortfall(c, balance, shortfall)
    assert got == reference(c, balance, shortfall)
    assert abs(sum(got)) <= balance
    assert all(0 <= x <= y or y <= x <= 0 for x, y in zip(got, c, strict=True))  # |x_i| <= |c_i|, same sign


def test_section_8_1_step_1_cases() -> None:
    """Section 8.1's cases given as step 1 results."""
    assert cover_shortfall([500, 1000], 1000, "winners_share") == [333, 667]
    assert cover_shortfall([900, -1000, 100], 0, "winners_share") == [900, -1000, 100]
    assert cover_shortfall([900, -600, 300], 0, "winners_share") == [450, -600, 150]
    assert cover_shortfall([900, -600, 300], 0, "scale_all") == [0, 0, 0]
