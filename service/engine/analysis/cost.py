"""What an analysis costs now, and :func:`prepare`, which makes a profile's cost nothing.

The HTTP layer budgets analysis work per client (:func:`analysis_cost`: seconds on one
core of the reference machine, from what is already computed and what the request asks);
the app calls :func:`prepare` for every profile before the workers fork, so that the
profiles' distributions, house edges and the card-multiset walk are shared and never
refused.

>>> from service.engine.rules import PROFILES
>>> prepare(PROFILES["standard"].rules); analysis_cost(PROFILES["standard"].rules, "distribution")
0.0
"""

from __future__ import annotations

from service.engine.analysis.distribution import distribution_ready, pinned_distribution
from service.engine.analysis.house_edge import house_edge_ready, pinned_house_edge
from service.engine.analysis.odds import uses_suits
from service.engine.analysis.partial import class_path_applies, pin_suited_hands, suited_hands_ready
from service.engine.analysis.walk import walk, walk_ready
from service.engine.bets import DEFAULT_BET
from service.engine.cards import HAND_SIZE
from service.engine.rules import Rules
from service.engine.tables import has_table

__all__ = ["ODDS_SECONDS_PER_DECK", "PARTIAL_SECONDS", "REFERENCE_SECONDS_PER_HAND", "analysis_cost", "prepare",
           "scoring_cost"]


def prepare(rules: Rules) -> None:
    """Compute a profile's one-deck analyses that every request may need now, and keep them
    for the life of the process (the app does this for every profile before the workers
    fork, so that they are shared and never refused): the distribution, the house edge of
    the ``double`` bet when the rules take no commission, the card-multiset walk when
    the rules use suits, and the one-deck suited hands when they pay a suited bonus. The house edges that need a commission's winnings (seconds each)
    are computed on first request by
    :func:`~service.engine.analysis.house_edge.pinned_house_edge`.

    >>> from service.engine.rules import PROFILES
    >>> prepare(PROFILES["standard"].rules); analysis_cost(PROFILES["standard"].rules, "house_edge")
    0.0
    """
    pinned_distribution(rules)
    if not rules.commission_bps:
        pinned_house_edge(rules, DEFAULT_BET)
    if uses_suits(rules):
        walk()
        pin_suited_hands(rules)


def analysis_cost(rules: Rules, kind: str, decks: int = 1, known: int = HAND_SIZE, bet: str = DEFAULT_BET) -> float:
    """A rough estimate, in seconds, of computing ``kind`` for ``rules`` now.

    :param kind: ``distribution``, ``house_edge`` or ``odds``.
    :param decks: for ``odds``, the decks in play.
    :param known: for ``odds``, the caller's known cards (3..5; fewer cost more, see
        :data:`PARTIAL_SECONDS`).
    :param bet: for ``house_edge``, the bet type.
    :return: seconds on one core of the reference machine: 0 for a result already
        computed; about 0.8 s to build a missing evaluation table, 3 s to build the
        multiset walk the first time, 3 s for the winnings of a house edge with a
        commission, and for odds under rules that use suits about 0.03 s per deck
        (0.2 s with 8 decks).

    >>> from service.engine.rules import PROFILES
    >>> analysis_cost(PROFILES["niu-niu"].rules, "odds", decks=8) >= 0.2
    True
    >>> prepare(PROFILES["niu-niu"].rules)
    >>> analysis_cost(PROFILES["niu-niu"].rules, "odds", known=3, decks=2) > 1.0   # 3 known cards, suits, 2 decks
    True
    >>> analysis_cost(PROFILES["niu-niu"].rules, "odds", known=4) < 0.1      # 4 known cards, suits, one deck
    True
    >>> analysis_cost(PROFILES["standard"].rules, "odds", known=4) < 0.1      # no suits: cheap
    True
    """
    if kind == "house_edge" and ((rules.ties != "dealer" and not rules.commission_bps)
                                 or house_edge_ready(rules, bet)):
        return 0.0  # exactly 0 by symmetry (no table needed), or cached
    if kind == "distribution" and distribution_ready(rules):
        return 0.0
    cost = 0.0 if has_table(rules) else 0.8
    needs_walk = (kind == "odds" and uses_suits(rules)) or (
        kind == "house_edge" and rules.ties == "dealer" and "payouts" in rules.suit_effects)
    if needs_walk and not walk_ready():
        cost += 3.0
    if kind == "odds" and uses_suits(rules):
        cost += ODDS_SECONDS_PER_DECK * decks
    if kind == "house_edge" and rules.commission_bps:
        cost += 3.0  # the winnings: every (player class, weaker dealer class) product
    if kind == "odds" and known < HAND_SIZE:
        way = "rank_classes" if not uses_suits(rules) else "classes" if class_path_applies(rules, [decks] * 52) else "walk"
        cost += PARTIAL_SECONDS[known, way] * (min(decks, 2.5) if way == "walk" else 1)  # the walk: flat from 2-3 decks
        if way == "classes" and not suited_hands_ready(rules):
            cost += 0.5  # listing the suited hands the first time
        if rules.ties == "dealer" and not rules.tie_cost.by_hand:
            cost *= 2  # tie_payout: stake counts the deals again under push ties (odds.flat_ties)
    return cost


#: Odds under rules that use suits visit the card multisets once per request: about this
#: many seconds per deck in play on the reference machine (0.22 s measured with 8 decks).
ODDS_SECONDS_PER_DECK = 0.0275

#: Odds from fewer known cards (:mod:`service.engine.analysis.partial`), by (known cards, how they are
#: counted): seconds on one core beside the five-card cost, as bench/odds.py measures them:
#: ``rank_classes`` (rules without suits), ``classes`` (suits, one deck) and ``walk`` (suits
#: with several decks, or a suited bonus with ``high_card`` ties; per deck). 4 known cards
#: are under ``CHEAP_SECONDS`` but on the walk.
PARTIAL_SECONDS: dict[tuple[int, str], float] = {(4, "rank_classes"): 0.012, (3, "rank_classes"): 0.07,
                                                 (4, "classes"): 0.02, (3, "classes"): 0.12,
                                                 (4, "walk"): 0.25, (3, "walk"): 1.2}


#: Evaluating a hand under rules that have no table: the reference evaluator tries every
#: ox choice, about 50 µs a hand on one core of the reference machine (a 10,000-hand batch
#: under never-seen rules takes 0.4-1 s, against 0.06-0.13 s from a table).
REFERENCE_SECONDS_PER_HAND = 60e-6


def scoring_cost(rules: Rules, hands: int) -> float:
    """A rough estimate, in seconds, of evaluating ``hands`` hands under ``rules`` now: 0
    when their table is built (every profile's is), else the reference evaluator's time
    (or building the table, which :func:`~service.engine.tables.use_table` does once
    enough hands under the same rules were asked for: about as long).

    >>> from service.engine.rules import PROFILES, apply_overrides
    >>> prepare(PROFILES["standard"].rules); scoring_cost(PROFILES["standard"].rules, 10_000)
    0.0
    >>> round(scoring_cost(apply_overrides(PROFILES["standard"].rules, {"payouts": {"single_ox": 9}}), 10_000), 2)
    0.6
    """
    return 0.0 if has_table(rules) else hands * REFERENCE_SECONDS_PER_HAND
