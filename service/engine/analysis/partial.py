"""Exact odds before the last cards come: 3, 4 or 5 known cards, as player or as dealer
(RULES.md sections 4-6; issue 14).

The caller knows ``k`` of the five cards of its hand (3, 4 or 5). The other ``5 - k`` are
drawn uniformly from the cards left (``52 * decks`` less the known and the dead cards,
copies of a card counted apart), then one opponent hand of five from what is left after
that: every **deal** (completion, opponent hand) is equally likely and each one is
accounted for. The opponent is the dealer when ``role == "player"`` and a player when
``role == "dealer"``; each deal is settled as :func:`~service.engine.settle.settle_one`
does, and the answer is from the caller's side (its wins, its net).

**As dealer against several players.** The round's net is the sum of the nets against
each player; every player's hand, taken alone, is a uniformly random five of the cards left
after the dealer's completion (whatever the others hold), so by linearity of expectation
the round's expected net is exactly ``opponents`` times the expectation against one
unknown hand. tests/engine/test_partial.py checks this against the literal enumeration of every
seating of 3 opponents on a reduced deck.

**Method.** Two groupings, both reusing the class machinery of :mod:`service.engine.analysis.odds`:

- by classes (:func:`by_classes`, below): completions are grouped by their
  pseudo-ranks and each group is a sum over the 8,568 classes of the opponent's hand. Rules
  that use no suits need nothing else; with suits and one deck each completion is settled
  apart, ``high_card`` ties by the top card (disjoint hands), the suited bonus from the
  list of suited hands (:class:`SuitedHands`, below) and a category that depends on
  suits (a flush) by correcting the opponent's live one-suit hands (:class:`FlushHands`);
- otherwise (several decks with suits, or a suited bonus with ``high_card`` ties) one walk
  of the card multisets of the opponent (:mod:`service.engine.analysis.partial_walk`).

Both add into one :class:`~service.engine.analysis.odds.Tally` (wins, losses, and the payouts the
wins collect and the losses pay), from which every bet type's expectation follows
(:meth:`~service.engine.bets.Bet.expected_gross`). ``method`` says, as for five known cards, whether the rules use suits
(``card_multisets``) or not (``rank_classes``), whichever grouping counted.

>>> from math import comb
>>> from service.engine.cards import parse_card
>>> from service.engine.rules import PROFILES
>>> p = partial_odds([parse_card(t) for t in "AS KH 10D 4C".split()], PROFILES["standard"].rules)
>>> p.completions, p.deals == 48 * comb(47, 5), p.labels["ngau_tonku"]
(48, True, 8)

The suited opponent hands of partial odds with one deck (RULES.md section 7,
``suited_bonus``; issue 14).

A suited hand collects ``suited_multiplier`` times its payout, so against a completion of
the caller's hand the opponent's winning hands pay their class's payout (counted by class in
:func:`by_classes`) plus ``(multiplier - 1)`` times it for each suited
one. Suited hands are few (150,874 of the 2,598,960 hands of one deck under ``ox``), so they
are listed once per rules (:func:`suited_hands`) and, per request, the extra is summed by
inclusion-exclusion over the completion's cards: the suited hands of the cards left, less
those holding one of the completion's cards, plus those holding both (two unknown cards).

>>> from service.engine.rules import PROFILES
>>> h = suited_hands(PROFILES["liberal"].rules)
>>> len(h.klass)
150874
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import combinations, combinations_with_replacement, product
from math import comb, prod
from typing import Literal

import numpy as np
import numpy.typing as npt

from service.engine.analysis.distribution import labels_of
from service.engine.analysis.odds import (
    Chances,
    OddsError,
    Tally,
    dealer_pool,
    flat_ties,
    odds,
    tie_sides,
    uses_suits,
)
from service.engine.analysis.partial_walk import by_walk
from service.engine.analysis.walk import CHUNK, suited_flags, walk
from service.engine.cache import CACHE, BoundedCache
from service.engine.cards import CARDS, HAND_SIZE, Card, count_excess
from service.engine.classes import CHOOSE, CLASS_COUNTS, N_CLASSES, PSEUDO_RANKS, class_of_counts, pseudo_rank
from service.engine.rules import Rules
from service.engine.tables import Table, evaluate, table_for

__all__ = ["ROLES", "Completion", "FlushHands", "PartialOdds", "SuitedHands", "SuitedLosses", "TopCardTies",
           "by_classes", "class_path_applies", "partial_odds", "pin_suited_hands", "suited_hands",
           "suited_hands_ready"]

ROLES = ("player", "dealer")


@dataclass(frozen=True)
class Completion:
    """One final hand the known cards can become.

    :param label_key: the final hand's label key.
    :param category: its category.
    :param score: its score (higher is stronger).
    :param completions: how many completions (physical cards apart) give it.
    :param cards: with 4 known cards, the fifth cards (codes, ascending) that give it; empty otherwise.
    """

    label_key: str
    category: str
    score: int
    completions: int
    cards: tuple[int, ...] = ()


@dataclass(frozen=True)
class PartialOdds(Chances):
    """The caller's exact results over every deal (completion, one opponent hand).

    :param known: known cards, 3..5.
    :param role: ``player`` (against the dealer) or ``dealer`` (against one player).
    :param completions: how many completions (``C(cards left, 5 - known)``).
    :param deals: how many deals: ``completions * C(cards left - (5 - known), 5)``.
    :param wins: deals the caller wins; ``losses``, ``pushes`` likewise.
    :param net: the caller's total net over all deals, per unit stake.
    :param outcomes: every label (key) a completion can give, strongest first (nonzero only).
    :param method: ``rank_classes`` or ``card_multisets`` (as :class:`~service.engine.analysis.odds.Odds`).
    :param labels: completions per label key.
    :param paid_in: the total the caller's wins collect over all deals, per unit stake
        (``double`` bet): what a commission is taken from.
    :param commission: the commission on the caller's wins, in basis points: the rules'
        ``commission_bps`` as ``player``; 0 as ``dealer`` (a player's commission is the
        house's share of the player's win, never the dealer's).
    """

    known: int
    role: str
    completions: int
    deals: int
    wins: int
    losses: int
    pushes: int
    net: int
    outcomes: tuple[Completion, ...]
    method: str
    labels: dict[str, int] = field(default_factory=dict)
    paid_in: int = 0
    commission: int = 0

    @property
    def counted(self) -> int:
        """Every deal counted (the denominator of :class:`~service.engine.analysis.odds.Chances`)."""
        return self.deals

    @property
    def payout_totals(self) -> tuple[int, int]:
        """What the wins collect (``paid_in``) and the losses pay (``paid_in - net``)."""
        return self.paid_in, self.paid_in - self.net

    @property
    def commission_bps(self) -> int:
        """The commission on the caller's wins (see ``commission``)."""
        return self.commission

    def round_net(self, opponents: int) -> Fraction:
        """The dealer's expected net for a round against ``opponents`` players (linearity).

        >>> from service.engine.rules import PROFILES
        >>> from service.engine.cards import parse_card
        >>> p = partial_odds([parse_card(t) for t in "KS QS JS".split()], PROFILES["standard"].rules, role="dealer")
        >>> p.round_net(3) == 3 * p.expected_net
        True
        """
        return opponents * self.expected_net


# --------------------------------------------------------------------------------------
# By classes: completions grouped by pseudo-ranks, the opponent summed over the 8,568 classes
#
# Completions are grouped by their **pseudo-ranks** (see :mod:`service.engine.analysis.odds`): every
# completion of a group leaves the same number of cards per pseudo-rank, so the opponent's
# hands per class, ``N_c = prod_p C(n[p], l_c[p])``, are one product per group, and against
# a completion of score ``s`` the opponent's weaker, equal and stronger hands are three
# running sums over the classes sorted by score.
#
# - Rules that use no suits: a group is one completion class (its count is ``prod_p C(n[p], k[p])``).
# - Rules that use suits, **one deck** (each card left at most once): each completion is
#   taken card by card within its group (its own payout, suited bonus included), and the two
#   suit effects are added exactly:
#
#   * ``high_card`` ties: the opponent's hand and the caller's final hand are disjoint, so
#     the higher hand is the one holding the **higher top card** (colex order, RULES.md
#     section 5). An equal-score opponent hand loses exactly when all its cards are below
#     the caller's top card ``t``: one more class product, over the cards left below ``t``
#     (:class:`TopCardTies`).
#   * the suited bonus: only suited opponent hands pay more than their class says
#     (:class:`SuitedHands`, below).
#   * a category that depends on suits (a flush, RULES.md 4.1): the class sums count every
#     opponent hand as its class's hands that are not one suit; the few one-suit hands
#     (at most 4 x C(13, 5) = 5,148) are then settled again as what they are
#     (:class:`FlushHands`): their result as flushes less their result as counted.
#
#   Several decks, a suited bonus together with ``high_card`` ties, or a suited bonus
#   together with a flush, go to :mod:`service.engine.analysis.partial_walk`.
#

_Int64s = npt.NDArray[np.int64]


def class_path_applies(rules: Rules, left: Sequence[int]) -> bool:
    """Whether :func:`by_classes` answers for these rules and cards left (module docstring).

    >>> from service.engine.rules import PROFILES
    >>> class_path_applies(PROFILES["niu-niu"].rules, [1] * 52), class_path_applies(PROFILES["liberal"].rules, [2] * 52)
    (True, False)
    """
    if not uses_suits(rules):
        return True
    if rules.suit_categories and "payouts" in rules.suit_effects:
        return False
    return max(left) <= 1 and not {"payouts", "comparisons"} <= rules.suit_effects


def _pseudo_counts(items: Sequence[int], pseudo: bool = False) -> list[int]:
    """14 counts per pseudo-rank of card codes (or, with ``pseudo``, of pseudo-ranks)."""
    out = [0] * PSEUDO_RANKS
    for x in items:
        out[x if pseudo else pseudo_rank(x)] += 1
    return out


@dataclass(frozen=True)
class _Group:
    """The opponent's hands for one completion group, classes sorted by score: running
    counts ``cum_n`` and payouts ``cum_p`` (leading 0)."""

    cum_n: _Int64s
    cum_p: _Int64s


class _ScoreOrder:
    """The table's classes sorted by score, for the running sums of :class:`_Group`."""

    def __init__(self, table: Table) -> None:
        scores = table.scores[:N_CLASSES]  # a flush table's one-suit entries: see FlushHands
        self.order = np.argsort(scores, kind="stable")
        self.scores = scores.astype(np.int64)[self.order]
        self.payouts = table.payouts[:N_CLASSES].astype(np.int64)[self.order]
        self.counts = CLASS_COUNTS[self.order]

    def group(self, available: Sequence[int]) -> _Group:
        """The running sums for ``available`` cards per pseudo-rank (14 counts)."""
        n = np.asarray(available, dtype=np.int64)
        weights = np.prod(CHOOSE[n[None, :], self.counts], axis=1)
        zero = np.zeros(1, dtype=np.int64)
        return _Group(np.concatenate([zero, np.cumsum(weights)]),
                      np.concatenate([zero, np.cumsum(weights * self.payouts)]))

    def bounds(self, score: int) -> tuple[int, int]:
        """Where classes of ``score`` start and end in the order."""
        return int(np.searchsorted(self.scores, score, "left")), int(np.searchsorted(self.scores, score, "right"))


class TopCardTies:
    """Under ``high_card`` ties with one deck: the opponent hands of the caller's score that
    lie wholly below the caller's top card (those the caller beats; module docstring).

    :param table: the rules' table.
    :param left: cards left per code (each 0 or 1), before the completion is taken out.
    """

    def __init__(self, table: Table, left: Sequence[int]) -> None:
        self.scores = table.scores[:N_CLASSES]
        self.payouts = table.payouts[:N_CLASSES].astype(np.int64)
        prefix = np.zeros((53, PSEUDO_RANKS), dtype=np.int64)
        for code in range(52):
            prefix[code + 1] = prefix[code]
            prefix[code + 1, pseudo_rank(code)] += left[code]
        self.prefix = prefix
        self.classes: dict[int, npt.NDArray[np.intp]] = {}
        self.found: dict[tuple[int, tuple[int, ...]], tuple[int, int]] = {}

    def below(self, score: int, top: int, extra: Sequence[int]) -> tuple[int, int]:
        """Opponent hands of ``score`` with every card below code ``top``, and their total payout.

        :param extra: the completion's cards (out of the cards left).
        """
        available = self.prefix[top].copy()
        for c in extra:
            if c < top:
                available[pseudo_rank(c)] -= 1
        key = (score, tuple(available.tolist()))
        found = self.found.get(key)
        if found is None:
            group = self.classes.get(score)
            if group is None:
                group = self.classes[score] = np.flatnonzero(self.scores == score)
            weights = np.prod(CHOOSE[available[None, :], CLASS_COUNTS[group]], axis=1)
            found = self.found[key] = (int(weights.sum()), int(np.dot(weights, self.payouts[group])))
        return found


def _every_flush() -> tuple[_Int64s, npt.NDArray[np.uint64], _Int64s]:
    """Every one-suit hand of one deck (5,148): codes ``(n, 5)``, card bit masks, class indexes."""
    hands = np.array([[r * 4 + suit for r in ranks] for suit in range(4) for ranks in combinations(range(13), 5)],
                     dtype=np.int64)
    masks = np.bitwise_or.reduce(np.left_shift(np.uint64(1), hands.astype(np.uint64)), axis=1)
    classes = np.array([class_of_counts(_pseudo_counts(h)) for h in hands.tolist()], dtype=np.int64)
    return hands, masks, classes


_EVERY_FLUSH = CACHE.constant("one-suit hands of one deck", _every_flush)


def _mask(codes: Sequence[int]) -> np.uint64:
    out = 0
    for c in codes:
        out |= 1 << c
    return np.uint64(out)


class FlushHands:
    """Under rules with a category that depends on suits, one deck: the opponent's one-suit
    hands among the cards left, each with its result as the class sums count it (its class's
    entry for hands that are not one suit) and as what it is (its one-suit entry).

    :param table: the rules' table (it tells one-suit hands apart).
    :param left: cards left per code (each 0 or 1), before the completion is taken out.

    >>> from service.engine.rules import PROFILES
    >>> len(FlushHands(table_for(PROFILES["niu-niu-plus"].rules), [1] * 52).masks)
    5148
    """

    def __init__(self, table: Table, left: Sequence[int]) -> None:
        hands, masks, classes = _EVERY_FLUSH()
        live = np.asarray(left, dtype=np.int64)[hands].all(axis=1)
        self.masks = masks[live]
        self.top = hands[live].max(axis=1)
        k = classes[live]
        scores, payouts = table.scores.astype(np.int64), table.payouts.astype(np.int64)
        self.counted = (scores[k], payouts[k])
        self.actual = (scores[k + N_CLASSES], payouts[k + N_CLASSES])

    def correction(self, member: _Member, ctx: _Context) -> tuple[int, int, int]:
        """What the member's wins, losses and paid-out change by when the live one-suit
        hands are settled as what they are rather than as counted."""
        live = (self.masks & _mask(member.extra)) == 0
        top = max(*ctx.known, *member.extra)
        (w1, l1, p1), (w0, l0, p0) = (self._result(member, top, live, *pair, ctx)
                                      for pair in (self.actual, self.counted))
        return w1 - w0, l1 - l0, p1 - p0

    def _result(self, member: _Member, top: int, live: npt.NDArray[np.bool_], scores: _Int64s, payouts: _Int64s,
                ctx: _Context) -> tuple[int, int, int]:
        win, lose, tie = scores < member.score, scores > member.score, scores == member.score
        if member.score not in ctx.push_scores:
            if ctx.ties is not None and member.category in ctx.high_card:  # disjoint hands: the higher top card
                win |= tie & (self.top < top)
                lose |= tie & (self.top > top)
            elif ctx.tie_me:
                win |= tie
            elif ctx.tie_opp:
                lose |= tie
        win &= live
        lose &= live
        return int(win.sum()), int(lose.sum()), int(payouts[lose].sum())


@dataclass(frozen=True)
class _Member:
    """One completion (or, without suits, a whole group): how many, its cards (codes, one
    deck; empty for a group), score, payout and label."""

    count: int
    extra: tuple[int, ...]
    score: int
    payout: int
    label: str
    category: str


def _members(known: Sequence[int], combo: tuple[int, ...], ways: int, rules: Rules, table: Table,
             by_pseudo: list[list[int]], suits: bool) -> Iterator[_Member]:
    """The completions of one pseudo-rank group: one member for the whole group without
    suits, each completion apart (one deck) with them."""
    if not suits:
        counts = [a + b for a, b in zip(_pseudo_counts(known), _pseudo_counts(combo, pseudo=True), strict=True)]
        entry = table.entry(class_of_counts(counts))
        yield _Member(ways, (), entry.score, entry.payout, entry.label_key, entry.category.value)
        return
    extras: Iterator[tuple[int, ...]]
    if len(combo) == 2 and combo[0] == combo[1]:
        extras = combinations(by_pseudo[combo[0]], 2)
    else:
        extras = product(*(by_pseudo[p] for p in combo))
    for extra in extras:
        ev = evaluate([CARDS[x] for x in (*known, *extra)], rules)
        yield _Member(1, extra, ev.score, ev.payout, ev.label_key, ev.category)


@dataclass(frozen=True)
class _Context:
    """What settles a member against a group (see :func:`_settle`)."""

    known: tuple[int, ...]
    order: _ScoreOrder
    push_scores: frozenset[int]
    tie_me: bool
    tie_opp: bool
    ties: TopCardTies | None
    suited: SuitedLosses | None
    high_card: frozenset[str]
    flushes: FlushHands | None = None


def _settle(member: _Member, group: _Group, ctx: _Context) -> tuple[int, int, int]:
    """Against every opponent hand of the group: the member's wins, losses and what its
    losses pay (per completion)."""
    lo, hi = ctx.order.bounds(member.score)
    n, p = group.cum_n, group.cum_p
    wins = int(n[lo])
    losses = int(n[-1] - n[hi])
    paid = int(p[-1] - p[hi])
    tie_n, tie_p = int(n[hi] - n[lo]), int(p[hi] - p[lo])
    if member.score not in ctx.push_scores:  # both Five Dukes push
        if ctx.ties is not None and member.category in ctx.high_card:
            below_n, below_p = ctx.ties.below(member.score, max(*ctx.known, *member.extra), member.extra)
            wins, losses, paid = wins + below_n, losses + tie_n - below_n, paid + tie_p - below_p
        elif ctx.tie_me:
            wins += tie_n
        elif ctx.tie_opp:
            losses, paid = losses + tie_n, paid + tie_p
    if ctx.suited is not None:
        paid += ctx.suited.extra(member.score, member.extra)
    if ctx.flushes is not None:
        dw, dl, dp = ctx.flushes.correction(member, ctx)
        wins, losses, paid = wins + dw, losses + dl, paid + dp
    return wins, losses, paid


def by_classes(known: Sequence[int], left: list[int], rules: Rules, role: str,
               labels: dict[str, int], by_label: dict[str, list[int]]) -> Tally:
    """Every deal, counted by pseudo-rank groups of completions and classes of the opponent
    (the comment above this section). Only where :func:`class_path_applies`.

    :param known: the caller's known card codes.
    :param left: cards left per code (52 counts) once the known and dead cards are out.
    :param role: the caller's seat, ``player`` or ``dealer``.
    :param labels: filled: completions per final label key.
    :param by_label: filled with one unknown card: the fifth cards (codes) per final label key.
    :return: the tally of every deal.

    >>> from service.engine.rules import PROFILES
    >>> labels: dict[str, int] = {}
    >>> left = [1] * 52
    >>> for c in (3, 50, 36, 13):   # AS KH 10D 4C
    ...     left[c] = 0
    >>> t = by_classes([3, 50, 36, 13], left, PROFILES["niu-niu"].rules, "player", labels, {})
    >>> t.completions, t.deals == 48 * 1533939, labels["no_ox"]
    (48, True, 22)
    """
    table = table_for(rules)
    suits = uses_suits(rules)
    missing = HAND_SIZE - len(known)
    fd = table.push_scores
    tie_me, tie_opp = tie_sides(rules, role)
    ctx = _Context(tuple(known), _ScoreOrder(table), fd, tie_me, tie_opp,
                   TopCardTies(table, left) if "comparisons" in rules.suit_effects else None,
                   SuitedLosses(rules, table, left, missing, tie_opp, fd)
                   if "payouts" in rules.suit_effects else None, rules.high_card_categories,
                   FlushHands(table, left) if table.suited else None)
    avail = [0] * PSEUDO_RANKS
    by_pseudo: list[list[int]] = [[] for _ in range(PSEUDO_RANKS)]
    for code, copies in enumerate(left):
        avail[pseudo_rank(code)] += copies
        if copies:
            by_pseudo[pseudo_rank(code)].append(code)
    tally = Tally()
    for combo in combinations_with_replacement(range(PSEUDO_RANKS), missing):
        take = _pseudo_counts(combo, pseudo=True)
        ways = prod(comb(avail[p], take[p]) for p in range(PSEUDO_RANKS) if take[p])
        if not ways:
            continue
        group = ctx.order.group([a - t for a, t in zip(avail, take, strict=True)])
        for member in _members(known, combo, ways, rules, table, by_pseudo, suits):
            wins, losses, paid = _settle(member, group, ctx)
            tally.completions += member.count
            tally.wins += member.count * wins
            tally.losses += member.count * losses
            tally.paid_in += member.count * wins * member.payout
            tally.paid_out += member.count * paid
            labels[member.label] = labels.get(member.label, 0) + member.count
            if missing == 1:
                by_label.setdefault(member.label, []).extend(member.extra or by_pseudo[combo[0]])
    tally.deals = tally.completions * comb(sum(left) - missing, HAND_SIZE)
    return tally


# --------------------------------------------------------------------------------------
# The answer


def _deck_left(deck: Sequence[int], used: Sequence[int], decks: int) -> list[int]:
    """Cards left per code from a given deck once ``used`` are out.

    >>> sum(_deck_left([0, 1, 2, 2], [2], 2))
    3
    """
    if count_excess([deck], decks):
        raise OddsError(f"a deck for {decks} deck(s) holds each card at most {decks} times")
    left = [0] * 52
    for c in deck:
        left[c] += 1
    for c in used:
        left[c] -= 1
        if left[c] < 0:
            raise OddsError(f"{CARDS[c]} is used more often than the deck holds it")
    return left


def _count(codes: Sequence[int], left: list[int], rules: Rules, role: str, labels: dict[str, int],
           by_label: dict[str, list[int]]) -> Tally:
    """Every deal counted (:func:`by_classes` where it applies, else the walk); under
    ``tie_payout: stake`` with ``ties: dealer`` the tied deals move one stake (RULES.md 6.4),
    from a second count under ``push`` ties (:func:`~service.engine.analysis.odds.flat_ties`)."""
    count = by_classes if class_path_applies(rules, left) else by_walk
    tally = count(codes, left, rules, role, labels, by_label)
    if rules.ties == "dealer" and not rules.tie_cost.by_hand:
        tally = flat_ties(tally, count(codes, left, replace(rules, ties="push"), role, {}, {}))
    return tally


def partial_odds(known: Sequence[Card], rules: Rules, dead: Sequence[Card] = (), decks: int = 1,
                 role: str = "player", deck: Sequence[int] | None = None) -> PartialOdds:
    """The caller's exact odds over every completion of ``known`` and every opponent hand.

    :param known: 3, 4 or 5 of the caller's cards.
    :param rules: the rules.
    :param dead: cards out of play.
    :param decks: decks in play, 1..8.
    :param role: ``player`` (the opponent is the dealer) or ``dealer`` (the opponent is one
        player; see :meth:`PartialOdds.round_net` for several).
    :param deck: the cards (codes, each at most ``decks`` times) to deal from; ``52 * decks``
        cards by default. A smaller deck is for tests against brute force.
    :return: the odds; with ``role="player"`` and five known cards the counts are those of
        :func:`~service.engine.analysis.odds.odds`.
    :raises OddsError: not 3..5 known cards, an unknown role, a card used more than
        ``decks`` times, too few cards left for the completion and one opponent, or the
        ``dealer`` role under a dealer commission (RULES.md section 6.2: it is taken from the
        dealer's result for the whole round, so a round's expectation is not a sum of the
        players').

    >>> from service.engine.cards import parse_card
    >>> from service.engine.rules import PROFILES
    >>> from math import comb
    >>> p = partial_odds([parse_card(t) for t in "JS QH KD".split()], PROFILES["standard"].rules)
    >>> p.completions == comb(49, 2), p.wins + p.losses + p.pushes == p.deals
    (True, True)
    >>> partial_odds([parse_card(t) for t in "JS QH".split()], PROFILES["standard"].rules)
    Traceback (most recent call last):
        ...
    service.engine.analysis.odds.OddsError: 3 to 5 known cards are needed, got 2
    """
    if not 3 <= len(known) <= HAND_SIZE:
        raise OddsError(f"3 to 5 known cards are needed, got {len(known)}")
    if role not in ROLES:
        raise OddsError(f"role must be one of {', '.join(ROLES)}")
    if role == "dealer" and rules.dealer_commission_bps:
        raise OddsError("dealer odds are not computed under a dealer commission")
    codes = [c.code for c in known]
    dead_codes = [c.code for c in dead]
    missing = HAND_SIZE - len(codes)
    left = dealer_pool(codes, dead_codes, decks) if deck is None else _deck_left(deck, [*codes, *dead_codes], decks)
    if sum(left) < missing + HAND_SIZE:
        raise OddsError(f"only {sum(left)} cards are left for {missing} more card(s) and an opponent's five")
    labels: dict[str, int] = {}
    by_label: dict[str, list[int]] = {}
    if missing == 0 and role == "player" and deck is None:
        ev = evaluate(known, rules)
        o = odds(known, rules, dead, decks, ev)
        return PartialOdds(HAND_SIZE, role, 1, o.dealer_hands, o.wins, o.losses, o.pushes, o.net,
                           (Completion(ev.label_key, ev.category, ev.score, 1),), o.method, {ev.label_key: 1},
                           o.payout_totals[0], o.commission)
    tally = _count(codes, left, rules, role, labels, by_label)
    method = "card_multisets" if uses_suits(rules) else "rank_classes"
    outcomes = tuple(Completion(label, category, score, labels[label], tuple(sorted(by_label.get(label, ()))))
                     for label, category, score in labels_of(rules) if labels.get(label))
    return PartialOdds(len(codes), role, tally.completions, tally.deals, tally.wins, tally.losses,
                       tally.deals - tally.wins - tally.losses, tally.paid_in - tally.paid_out, outcomes, method,
                       {o.label_key: o.completions for o in outcomes}, tally.paid_in,
                       rules.commission_bps if role == "player" else 0)


@dataclass(frozen=True)
class SuitedHands:
    """Every one-deck hand that earns the suited bonus under some rules.

    :param codes: ``(n, 5)`` uint8 card codes, ascending per row.
    :param klass: ``(n,)`` each hand's entry in the rules' table (its class, or its class
        plus ``N_CLASSES`` for a one-suit hand where the table tells them apart).
    :param bits: ``(n,)`` uint64, bit ``c`` set for each code ``c`` of the row.
    """

    codes: npt.NDArray[np.uint8]
    klass: npt.NDArray[np.intp]
    bits: npt.NDArray[np.uint64]


_HANDS: BoundedCache[Rules, SuitedHands] = CACHE.section("suited hands", 8)


def _build(rules: Rules) -> SuitedHands:
    features = walk()
    table = table_for(rules)
    repeat = np.uint64(1 << 63)
    zero = np.uint64(0)
    parts: list[npt.NDArray[np.intp]] = []
    for start in range(0, len(features.klass), CHUNK):
        part = slice(start, start + CHUNK)
        klass = features.klass[part].astype(np.intp)
        if table.suited:
            klass += N_CLASSES * features.flush[part]
        suited = suited_flags(table, klass, features.mono[part], features.flush[part])
        parts.append(np.flatnonzero(suited & ((features.bits[part] & repeat) == zero)) + start)
    rows = np.concatenate(parts)
    klass = features.klass[rows].astype(np.intp)
    if table.suited:
        klass += N_CLASSES * features.flush[rows]
    return SuitedHands(features.codes[rows], klass, features.bits[rows])


def suited_hands(rules: Rules) -> SuitedHands:
    """The one-deck suited hands under ``rules`` (built from the multiset walk on first
    use, about 0.4 s and 2.3 MB under ``liberal``; kept in a bounded cache).

    >>> from service.engine.rules import PROFILES
    >>> len(suited_hands(PROFILES["standard"].rules).klass)   # no suited bonus
    0
    """
    return _HANDS.get_or_build(rules, lambda: _build(rules))


def suited_hands_ready(rules: Rules) -> bool:
    """Whether :func:`suited_hands` has them at hand (callers budgeting time ask): always
    for rules without a suited bonus.

    >>> from service.engine.rules import PROFILES
    >>> suited_hands_ready(PROFILES["niu-niu"].rules)
    True
    """
    return rules.suited_bonus == "none" or rules in _HANDS


def pin_suited_hands(rules: Rules) -> None:
    """Build the suited hands of ``rules`` now and keep them for the life of the process (a
    profile's, before the workers fork, so that they are shared)."""
    if rules.suited_bonus != "none" and rules not in _HANDS:
        _HANDS.pin(rules, _build(rules))


def _suffix(values: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Sums from each index of the last axis to its end, with a trailing 0 (exact integers)."""
    a = np.asarray(values, dtype=np.float64)
    out = np.zeros((*a.shape[:-1], a.shape[-1] + 1), dtype=np.int64)
    out[..., :-1] = np.rint(np.cumsum(a[..., ::-1], axis=-1)[..., ::-1]).astype(np.int64)
    return out


class SuitedLosses:
    """Per completion, what the caller pays suited opponent hands beyond their class payout,
    over the opponent hands that beat it (module docstring). One deck; ties ``dealer`` or
    ``push`` (strength is the score alone).

    :param rules: the rules (a suited bonus).
    :param table: their table.
    :param left: cards left per code (0 or 1), before the completion is taken out.
    :param missing: the completion's size, 0..2.
    :param tie_opp: equal scores (not both Five Dukes) go to the opponent.
    :param push_scores: the scores two hands of which push (Five Dukes).
    """

    def __init__(self, rules: Rules, table: Table, left: Sequence[int], missing: int, tie_opp: bool,
                 push_scores: frozenset[int]) -> None:
        hands = suited_hands(rules)
        gone = np.uint64(sum(1 << c for c in range(52) if not left[c]))
        live = (hands.bits & gone) == np.uint64(0)
        codes = hands.codes[live].astype(np.int64)
        klass = hands.klass[live]
        self.scores = np.unique(table.scores).astype(np.int64)
        self.tie_opp = tie_opp
        self.push_scores = push_scores
        k = len(self.scores)
        rank = np.searchsorted(self.scores, table.scores[klass])
        extra = ((rules.suited_multiplier - 1) * table.payouts[klass]).astype(np.float64)
        self.every = _suffix(np.bincount(rank, weights=extra, minlength=k))
        ones = np.concatenate([codes[:, i] * k + rank for i in range(HAND_SIZE)])
        self.holding = _suffix(np.bincount(ones, weights=np.tile(extra, HAND_SIZE), minlength=52 * k).reshape(52, k))
        self.both: npt.NDArray[np.int64] | None = None
        if missing == 2:
            pairs = np.concatenate([(codes[:, i] * 52 + codes[:, j]) * k + rank
                                    for i, j in combinations(range(HAND_SIZE), 2)])
            weights = np.tile(extra, 10)
            self.both = _suffix(np.bincount(pairs, weights=weights, minlength=52 * 52 * k).reshape(52 * 52, k))

    def extra(self, score: int, cards: Sequence[int]) -> int:
        """The extra paid over the opponent hands (from the cards left less ``cards``, the
        completion) that beat a final hand of ``score``."""
        side: Literal["left", "right"] = "left" if self.tie_opp and score not in self.push_scores else "right"
        first = int(np.searchsorted(self.scores, score, side))
        total = int(self.every[first]) - sum(int(self.holding[c, first]) for c in cards)
        if len(cards) == 2 and self.both is not None:
            a, b = sorted(cards)
            total += int(self.both[a * 52 + b, first])
        return total
