"""Properties over random hands (hypothesis): order independence, comparison laws,
zero-sum settlement, and rankings that agree with scores."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine.cards import CARDS, Card
from service.engine.compare import compare, rank_hands, strength_key
from service.engine.evaluate import evaluate_reference
from service.engine.rules import PROFILES
from service.engine.settle import MAX_STAKE, settle
from service.engine.tables import evaluate

PROFILE_NAMES = list(PROFILES)
hands = st.lists(st.sampled_from(CARDS), min_size=5, max_size=5, unique=True).map(tuple)
profiles = st.sampled_from(PROFILE_NAMES)


def _shape(hand: tuple[Card, ...], profile: str) -> tuple[object, ...]:
    e = evaluate(hand, PROFILES[profile].rules)
    ox = sorted(zip(e.ox.cards, e.ox.points, strict=True), key=lambda t: t[0].code) if e.ox else None
    power = sorted(zip(e.power.cards, e.power.points, strict=True), key=lambda t: t[0].code) if e.power else None
    return (e.category, e.label, e.score, e.payout, e.nenku, e.suited, ox, power)


@settings(max_examples=40, deadline=None)
@given(hand=hands, profile=profiles)
def test_all_120_orderings_score_the_same(hand: tuple[Card, ...], profile: str) -> None:
    expected = _shape(hand, profile)
    for order in permutations(hand):
        assert _shape(order, profile) == expected


@settings(max_examples=300, deadline=None)
@given(hand=hands, profile=profiles)
def test_tables_agree_with_the_reference_evaluator(hand: tuple[Card, ...], profile: str) -> None:
    rules = PROFILES[profile].rules
    assert evaluate(hand, rules) == evaluate_reference(hand, rules)


@settings(max_examples=200, deadline=None)
@given(a=hands, b=hands, c=hands, profile=profiles)
def test_comparison_is_antisymmetric_and_transitive(a: tuple[Card, ...], b: tuple[Card, ...],
                                                    c: tuple[Card, ...], profile: str) -> None:
    rules = PROFILES[profile].rules
    ea, eb, ec = (evaluate(h, rules) for h in (a, b, c))
    assert compare(ea, eb, rules) == -compare(eb, ea, rules)
    assert compare(ea, ea, rules) == 0
    if compare(ea, eb, rules) >= 0 and compare(eb, ec, rules) >= 0:
        assert compare(ea, ec, rules) >= 0
    if compare(ea, eb, rules) == 0 and rules.ties != "high_card":
        assert ea.score == eb.score


@settings(max_examples=200, deadline=None)
@given(deal=st.lists(st.sampled_from(CARDS), min_size=10, max_size=50, unique=True),
       stakes=st.lists(st.integers(1, MAX_STAKE), min_size=9, max_size=9), profile=profiles)
def test_settlement_is_zero_sum(deal: list[Card], stakes: list[int], profile: str) -> None:
    rules = PROFILES[profile].rules
    table = [tuple(deal[i:i + 5]) for i in range(0, len(deal) - len(deal) % 5, 5)]
    dealer, players = evaluate(table[0], rules), [evaluate(h, rules) for h in table[1:]]
    result = settle(dealer, list(zip(players, stakes, strict=False)), rules)
    assert result.dealer_net + sum(p.amount for p in result.players) == 0
    for p in result.players:
        assert p.outcome in ("win", "lose", "push")
        assert (p.amount > 0) <= (p.outcome == "win")
        if p.outcome == "push":
            assert p.amount == 0
        assert abs(p.amount) in (p.stake * p.evaluation.payout, p.stake * dealer.payout)


@settings(max_examples=100, deadline=None)
@given(many=st.lists(hands, min_size=2, max_size=30), profile=profiles)
def test_ranking_agrees_with_score(many: list[tuple[Card, ...]], profile: str) -> None:
    rules = PROFILES[profile].rules
    evaluations = [evaluate(h, rules) for h in many]
    ranked = rank_hands(evaluations, rules)
    assert sorted(r.index for r in ranked) == list(range(len(many)))
    keys = [strength_key(r.evaluation, rules) for r in ranked]
    assert keys == sorted(keys, reverse=True)
    assert [r.evaluation.score for r in ranked] == sorted((e.score for e in evaluations), reverse=True)
    for n, r in enumerate(ranked):
        first_equal = next(i for i, k in enumerate(keys) if k == keys[n])
        assert r.position == first_equal + 1
