"""Properties over random hands (hypothesis): order independence, comparison laws,
zero-sum settlement (with bets and commission, counting the house), exposure bounds,
rankings that agree with scores, and the tables against the literal evaluator under random
rule sets drawn from the declared knobs."""

from __future__ import annotations

from dataclasses import replace
from itertools import permutations
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.engine.bets import BET_NAMES as BETS
from service.engine.cards import CARDS, DECK_SIZE, Card
from service.engine.compare import compare, rank_hands, ranking_order, strength_key
from service.engine.knobs import Knob
from service.engine.reference import evaluate_reference
from service.engine.rules import PROFILES, RULE_KNOBS, RulesError, apply_overrides
from service.engine.settle import MAX_STAKE, settle, table_exposure
from service.engine.tables import evaluate, resolved
from service.serialize import evaluation_data, evaluation_dict

PROFILE_NAMES = list(PROFILES)
#: The 52 suited cards (rank-only ones, RULES.md 1.1, have their own property: tests/api/test_suitless.py).
SUITED = CARDS[:DECK_SIZE]
hands = st.lists(st.sampled_from(SUITED), min_size=5, max_size=5, unique=True).map(tuple)
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
@given(deal=st.lists(st.sampled_from(SUITED), min_size=10, max_size=50, unique=True),
       stakes=st.lists(st.integers(1, MAX_STAKE), min_size=9, max_size=9), profile=profiles)
def test_settlement_is_zero_sum(deal: list[Card], stakes: list[int], profile: str) -> None:
    rules = PROFILES[profile].rules
    table = [tuple(deal[i:i + 5]) for i in range(0, len(deal) - len(deal) % 5, 5)]
    dealer, players = evaluate(table[0], rules), [evaluate(h, rules) for h in table[1:]]
    result = settle(dealer, list(zip(players, stakes, strict=False)), rules)
    assert result.dealer_net + sum(p.amount for p in result.players) + result.house == 0
    if rules.commission_bps == rules.dealer_commission_bps == 0:
        assert result.house == 0
    for p in result.players:
        assert p.outcome in ("win", "lose", "push")
        assert (p.amount > 0) <= (p.outcome == "win")
        if p.outcome == "push":
            assert p.amount == 0
        assert abs(p.gross) in (p.stake * p.evaluation.payout, p.stake * dealer.payout)


#: Stakes from 1 unit (where a 5 % commission rounds to 0) to the largest.
stakes_strategy = st.one_of(st.integers(1, 40), st.integers(1, MAX_STAKE))
bps = st.one_of(st.just(0), st.integers(0, 10_000), st.sampled_from([1, 500, 9_999, 10_000]))


@settings(max_examples=300, deadline=None)
@given(deal=st.lists(st.sampled_from(SUITED), min_size=10, max_size=50, unique=True),
       seats=st.lists(st.tuples(stakes_strategy, st.sampled_from(BETS)), min_size=9, max_size=9),
       profile=profiles, commission_bps=bps, dealer_commission_bps=bps)
def test_settlement_with_bets_and_commission_is_zero_sum_counting_the_house(
        deal: list[Card], seats: list[tuple[int, str]], profile: str, commission_bps: int,
        dealer_commission_bps: int) -> None:
    base = PROFILES[profile].rules  # evaluations do not depend on the commission knobs
    rules = replace(base, commission_bps=commission_bps, dealer_commission_bps=dealer_commission_bps)
    table = [tuple(deal[i:i + 5]) for i in range(0, len(deal) - len(deal) % 5, 5)]
    dealer, players = evaluate(table[0], base), [evaluate(h, base) for h in table[1:]]
    seats = seats[:len(players)]
    bets = [bet for _, bet in seats]
    result = settle(dealer, [(e, stake) for e, (stake, _) in zip(players, seats, strict=True)], rules,
                    bets)
    assert sum(p.amount for p in result.players) + result.dealer_net + result.house == 0
    assert result.dealer_gross == -sum(p.gross for p in result.players)
    exposure = table_exposure(seats, rules)
    for p, bet, limit in zip(result.players, bets, exposure.players, strict=True):
        assert p.bet == bet
        assert p.commission == (p.gross * commission_bps // 10_000 if p.gross > 0 else 0)
        assert 0 <= p.commission <= max(p.gross, 0)
        assert p.amount == p.gross - p.commission
        if p.outcome == "push":
            assert p.gross == 0
        elif bet == "equal":
            assert p.gross == (p.stake if p.outcome == "win" else -p.stake)
        else:
            assert p.gross == (p.stake * p.evaluation.payout if p.outcome == "win" else -p.stake * dealer.payout)
        assert -limit.max_loss <= p.amount <= limit.max_win
    positive = max(result.dealer_gross, 0)
    assert result.dealer_commission == positive * dealer_commission_bps // 10_000
    assert result.house == sum(p.commission for p in result.players) + result.dealer_commission >= 0
    assert -exposure.dealer.max_loss <= result.dealer_net <= exposure.dealer.max_win
    # Commission 0 and double bets answer exactly as before the knobs existed.
    no_commission = replace(base, commission_bps=0, dealer_commission_bps=0)
    plain = settle(dealer, [(e, p.stake) for e, p in zip(players, result.players, strict=True)], no_commission)
    assert all(p.amount == p.gross for p in plain.players)
    assert (plain.house, plain.dealer_net) == (0, -sum(p.amount for p in plain.players))


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


@settings(max_examples=200, deadline=None)
@given(scores=st.one_of(st.lists(st.integers(0, 1_600), min_size=1, max_size=60),  # 16-bit keys: radix sort
                        st.lists(st.integers(-2**40, 2**40), min_size=1, max_size=60)))
def test_ranking_order_is_a_stable_competition_ranking(scores: list[int]) -> None:
    """The numpy ranking without high cards: strongest first, equal scores in input order,
    each position one more than the number of hands strictly stronger (RULES.md section 5)."""
    order, positions = ranking_order(scores, [[0, 1, 2, 3, 4]] * len(scores))
    assert order == sorted(range(len(scores)), key=lambda i: -scores[i])  # sorted() is stable
    assert positions == [1 + sum(s > scores[i] for s in scores) for i in order]


# ---------------------------------------------------------------------------------------
# Random rule sets drawn from the declared knobs (issue 23): the tables (filled class by
# class, and the formatter over them) against the literal evaluator on random hands. A
# knob that is off in every built-in profile is exercised here as much as any other.


def _knob_values(knob: Knob) -> st.SearchStrategy[Any]:
    """Every value a knob's declaration allows (and, for ``ranking``, the orders it accepts)."""
    if knob.kind == "bool":
        return st.booleans()
    if knob.kind == "int":
        values = st.integers(knob.low, knob.high)
        return st.one_of(st.none(), values) if knob.nullable else values
    if knob.kind == "choice":
        return st.sampled_from(knob.choices)
    if knob.kind == "ranking":
        *others, last = knob.choices
        return st.permutations(others).map(lambda order: [*order, last])
    return st.dictionaries(st.sampled_from(knob.choices), st.integers(knob.low, min(knob.high, 50)), max_size=6)


#: Knob overrides on top of a built-in profile: any subset of the knobs, each any value.
RULE_OVERRIDES = st.fixed_dictionaries({}, optional={name: _knob_values(knob) for name, knob in RULE_KNOBS.items()})
#: Hands from up to eight decks: a card may repeat.
ANY_HANDS = st.lists(st.lists(st.integers(0, 51), min_size=5, max_size=5), min_size=5, max_size=40)


@settings(max_examples=300, deadline=None)
@given(profile=profiles, overrides=RULE_OVERRIDES, codes=ANY_HANDS)
def test_tables_agree_with_the_reference_under_random_rules(profile: str, overrides: dict[str, Any],
                                                           codes: list[list[int]]) -> None:
    try:
        rules = apply_overrides(PROFILES[profile].rules, overrides)
    except RulesError:
        assume(False)
        raise
    resolution = resolved(codes, rules)
    for row, hand in zip(resolution.rows(), codes, strict=True):
        reference = evaluate_reference(tuple(CARDS[c] for c in hand), rules)
        assert evaluation_data(row) == evaluation_dict(reference), (profile, overrides, hand)
        assert row[1].label_key == reference.label_key


@settings(max_examples=200, deadline=None)
@given(profile=profiles, overrides=RULE_OVERRIDES, codes=ANY_HANDS)
def test_ranking_order_agrees_with_rank_hands_under_random_rules(profile: str, overrides: dict[str, Any],
                                                                 codes: list[list[int]]) -> None:
    """The numpy ranking of POST /v1/rankings (high-card and top-card columns) orders hands
    from several decks as :func:`rank_hands` does, under any knobs (``full_house_order``,
    ``bomb_order`` and ``ties`` included)."""
    try:
        rules = apply_overrides(PROFILES[profile].rules, overrides)
    except RulesError:
        assume(False)
        raise
    resolution = resolved(codes, rules)
    order, positions = ranking_order(resolution.scores(), codes, resolution.by_high_card(), resolution.by_top_card())
    ranked = rank_hands([evaluate(tuple(CARDS[c] for c in hand), rules) for hand in codes], rules)
    assert order == [r.index for r in ranked]
    assert positions == [r.position for r in ranked]
