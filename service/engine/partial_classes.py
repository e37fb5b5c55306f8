"""Partial odds as sums over the 8,568 classes of the opponent's hand (issue 14; RULES.md
sections 4-6).

Completions are grouped by their **pseudo-ranks** (see :mod:`service.engine.odds`): every
completion of a group leaves the same number of cards per pseudo-rank, so the opponent's
hands per class, ``N_c = prod_p C(n[p], l_c[p])``, are one product per group, and against
a completion of score ``s`` the opponent's weaker, equal and stronger hands are three
running sums over the classes sorted by score.

- Rules that use no suits: a group is one completion class (its count is ``prod_p C(n[p], k[p])``).
- Rules that use suits, **one deck** (each card left at most once): each completion is
  taken card by card within its group (its own payout, suited bonus included), and the two
  suit effects are added exactly:

  * ``high_card`` ties: the opponent's hand and the caller's final hand are disjoint, so
    the higher hand is the one holding the **higher top card** (colex order, RULES.md
    section 5). An equal-score opponent hand loses exactly when all its cards are below
    the caller's top card ``t``: one more class product, over the cards left below ``t``
    (:class:`TopCardTies`).
  * the suited bonus: only suited opponent hands pay more than their class says
    (:mod:`service.engine.suited_hands`).

  Several decks, or a suited bonus together with ``high_card`` ties, go to
  :mod:`service.engine.partial_walk`.

>>> from service.engine.rules import PROFILES
>>> labels: dict[str, int] = {}
>>> left = [1] * 52
>>> for c in (3, 50, 36, 13):   # AS KH 10D 4C
...     left[c] = 0
>>> t = by_classes([3, 50, 36, 13], left, PROFILES["niu-niu"].rules, "player", labels, {})
>>> t.completions, t.deals == 48 * 1533939, labels["No Ox"]
(48, True, 22)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement, product
from math import comb, prod

import numpy as np
import numpy.typing as npt

from service.engine.cards import CARDS, HAND_SIZE
from service.engine.classes import CHOOSE, CLASS_COUNTS, PSEUDO_RANKS, class_of_counts, pseudo_rank
from service.engine.deal_tally import Tally, tie_sides
from service.engine.evaluate import evaluate
from service.engine.odds import uses_suits
from service.engine.rules import Rules
from service.engine.suited_hands import SuitedLosses
from service.engine.tables import Table, table_for

__all__ = ["TopCardTies", "by_classes", "class_path_applies"]

_Int64s = npt.NDArray[np.int64]


def class_path_applies(rules: Rules, left: Sequence[int]) -> bool:
    """Whether :func:`by_classes` answers for these rules and cards left (module docstring).

    >>> from service.engine.rules import PROFILES
    >>> class_path_applies(PROFILES["niu-niu"].rules, [1] * 52), class_path_applies(PROFILES["liberal"].rules, [2] * 52)
    (True, False)
    """
    if not uses_suits(rules):
        return True
    return max(left) <= 1 and not (rules.suited_bonus != "none" and rules.ties == "high_card")


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
        self.order = np.argsort(table.scores, kind="stable")
        self.scores = table.scores.astype(np.int64)[self.order]
        self.payouts = table.payouts.astype(np.int64)[self.order]
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
        self.scores = table.scores
        self.payouts = table.payouts.astype(np.int64)
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


@dataclass(frozen=True)
class _Member:
    """One completion (or, without suits, a whole group): how many, its cards (codes, one
    deck; empty for a group), score, payout and label."""

    count: int
    extra: tuple[int, ...]
    score: int
    payout: int
    label: str


def _members(known: Sequence[int], combo: tuple[int, ...], ways: int, rules: Rules, table: Table,
             by_pseudo: list[list[int]], suits: bool) -> Iterator[_Member]:
    """The completions of one pseudo-rank group: one member for the whole group without
    suits, each completion apart (one deck) with them."""
    if not suits:
        counts = [a + b for a, b in zip(_pseudo_counts(known), _pseudo_counts(combo, pseudo=True), strict=True)]
        entry = table.entry(class_of_counts(counts))
        yield _Member(ways, (), entry.score, entry.payout, entry.label)
        return
    extras: Iterator[tuple[int, ...]]
    if len(combo) == 2 and combo[0] == combo[1]:
        extras = combinations(by_pseudo[combo[0]], 2)
    else:
        extras = product(*(by_pseudo[p] for p in combo))
    for extra in extras:
        ev = evaluate([CARDS[x] for x in (*known, *extra)], rules)
        yield _Member(1, extra, ev.score, ev.payout, ev.label)


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
        if ctx.ties is not None:
            below_n, below_p = ctx.ties.below(member.score, max(*ctx.known, *member.extra), member.extra)
            wins, losses, paid = wins + below_n, losses + tie_n - below_n, paid + tie_p - below_p
        elif ctx.tie_me:
            wins += tie_n
        elif ctx.tie_opp:
            losses, paid = losses + tie_n, paid + tie_p
    if ctx.suited is not None:
        paid += ctx.suited.extra(member.score, member.extra)
    return wins, losses, paid


def by_classes(known: Sequence[int], left: list[int], rules: Rules, role: str,
               labels: dict[str, int], by_label: dict[str, list[int]]) -> Tally:
    """Every deal, counted by pseudo-rank groups of completions and classes of the opponent
    (module docstring). Only where :func:`class_path_applies`.

    :param known: the caller's known card codes.
    :param left: cards left per code (52 counts) once the known and dead cards are out.
    :param role: the caller's seat, ``player`` or ``dealer``.
    :param labels: filled: completions per final label.
    :param by_label: filled with one unknown card: the fifth cards (codes) per final label.
    :return: the tally of every deal.
    """
    table = table_for(rules)
    suits = uses_suits(rules)
    missing = HAND_SIZE - len(known)
    fd = table.push_scores
    tie_me, tie_opp = tie_sides(rules, role)
    ctx = _Context(tuple(known), _ScoreOrder(table), fd, tie_me, tie_opp,
                   TopCardTies(table, left) if suits and rules.ties == "high_card" else None,
                   SuitedLosses(rules, table, left, missing, tie_opp, fd)
                   if suits and rules.suited_bonus != "none" else None)
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
