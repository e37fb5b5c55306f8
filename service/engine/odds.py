"""Exact odds, distributions and the house edge (RULES.md sections 4-6).

Every figure here is exact: counts are integers and probabilities :class:`~fractions.Fraction`
values, found by enumeration grouped so that no more is visited than the rules need.

**Pseudo-ranks.** A hand's category depends only on its ranks and on whether it holds the
ace of spades (RULES.md section 4, Ngau Tonku), which is why the evaluation tables
(:mod:`service.engine.tables`) have one entry per **class** (sorted ranks + number of aces
of spades). Here a class is written as its counts over 14 **pseudo-ranks**::

    pseudo-rank 0       the aces other than the ace of spades   (3 per deck)
    pseudo-rank 1..12   the ranks 2 .. K                        (4 per deck)
    pseudo-rank 13      the ace of spades                       (1 per deck)

so the number of ways to draw a class from cards left with ``n[p]`` cards of pseudo-rank
``p`` is ``prod_p C(n[p], l[p])``, where ``l[p]`` is the class's count.

**Suits** matter to a settlement in two places only: the suited bonus (a suited hand's
payout is multiplied) and the ``high_card`` tie rule. When the rules use neither, an
answer is a sum over the 8,568 classes. When they use one, :func:`odds` walks every card
multiset instead (3,819,816 of them, shared by all rules and built once per process), in
colex order so that a multiset's index *is* its high-card order (RULES.md section 5).

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import PROFILES
>>> std = PROFILES["standard"].rules
>>> d = distribution(std)
>>> d.total, d.counts["Five Dukes"], d.counts["No Ox"]
(2598960, 792, 568928)
>>> o = odds(parse_hand("JS QH KD JC QD".split()), std)     # Five Dukes
>>> o.dealer_hands, o.lose, o.push * o.dealer_hands
(1533939, Fraction(0, 1), Fraction(21, 1))
>>> house_edge(PROFILES["niu-niu"].rules).player_expected_net   # high-card ties: symmetric
Fraction(0, 1)
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb

import numpy as np
import numpy.typing as npt

from service.engine.cache import BoundedCache
from service.engine.cards import CARDS, Card, Rank
from service.engine.evaluate import label_of, pair_order, score_of
from service.engine.rules import MAX_BPS, PROFILES, Rules
from service.engine.tables import CLASSES, INDEX, Table, evaluate, table_for

__all__ = [
    "Chances",
    "Distribution",
    "HouseEdge",
    "Odds",
    "OddsError",
    "dealer_pool",
    "distribution",
    "house_edge",
    "labels_of",
    "main",
    "odds",
    "pinned_house_edge",
    "prepare",
]

HAND = 5
PSEUDO_RANKS = 14
_ACE_OF_SPADES = 3
_AS_PR = 13
#: The ten ways to pick three of five positions, in :func:`itertools.combinations` order:
#: bit ``t`` of a "monochrome" mask is triple ``_TRIPLES[t]``.
_TRIPLES: tuple[tuple[int, ...], ...] = tuple(combinations(range(HAND), 3))
_TRIPLE_BIT = {t: 1 << i for i, t in enumerate(_TRIPLES)}
_MAX_AVAILABLE = 32  # 8 decks x 4 suits

IntArray = npt.NDArray[np.int64]


class OddsError(ValueError):
    """A hand, dead cards or deck count that cannot be dealt from (the message says why)."""


def _pseudo_rank(code: int) -> int:
    """The pseudo-rank of a card code (see the module docstring).

    >>> _pseudo_rank(3), _pseudo_rank(0), _pseudo_rank(51)
    (13, 0, 12)
    """
    return _AS_PR if code == _ACE_OF_SPADES else code >> 2


def _class_counts() -> IntArray:
    """Per class (in :data:`~service.engine.tables.CLASSES` order) its 14 pseudo-rank counts."""
    out = np.zeros((len(CLASSES), PSEUDO_RANKS), dtype=np.int64)
    for i, (_, codes) in enumerate(CLASSES):
        for c in codes:
            out[i, _pseudo_rank(c)] += 1
    return out


#: ``(8568, 14)``: each class's pseudo-rank counts.
CLASS_COUNTS: IntArray = _class_counts()
#: ``CHOOSE[n, k] = C(n, k)`` for ``n`` up to 32 cards left of a pseudo-rank, ``k`` up to 5.
CHOOSE: IntArray = np.array([[comb(n, k) for k in range(HAND + 1)] for n in range(_MAX_AVAILABLE + 1)],
                            dtype=np.int64)


def _class_weights(available: Sequence[int]) -> IntArray:
    """How many hands of each class can be drawn from cards left.

    :param available: 14 counts, cards left per pseudo-rank (each 0..32).
    :return: ``(8568,)`` int64 counts.

    >>> int(_class_weights([3] + [4] * 12 + [1]).sum())
    2598960
    """
    n = np.asarray(available, dtype=np.int64)
    out: IntArray = np.prod(CHOOSE[n[None, :], CLASS_COUNTS], axis=1)
    return out


def _pseudo_available(counts: Sequence[int]) -> list[int]:
    """Cards left per pseudo-rank from cards left per code (52 counts)."""
    out = [0] * PSEUDO_RANKS
    for code, n in enumerate(counts):
        out[_pseudo_rank(code)] += n
    return out


# --------------------------------------------------------------------------------------
# Labels and the distribution


def labels_of(rules: Rules) -> list[tuple[str, str, int]]:
    """Every label the rules' enabled categories can give, strongest first.

    :param rules: the rules.
    :return: ``(label, category, score)`` triples, by score descending. Some may be
        impossible under the rules (``Double-Ox 3`` with ``three_six_pair``); they are
        listed all the same, so two profiles' lists line up.

    >>> [lab for lab, _, _ in labels_of(PROFILES["standard"].rules)][:4]
    ['Five Dukes', 'Five Small', 'Ngau Tonku', 'Double-Ox K']
    >>> len(labels_of(PROFILES["standard"].rules)), len(labels_of(PROFILES["niu-niu"].rules))
    (27, 27)
    """
    out: list[tuple[str, str, int]] = []
    for category in rules.ranking:
        if not rules.enabled(category):
            continue
        if category == "double_ox":
            out.extend((label_of(category, None, r), category, score_of(rules, category, pair_order(r, rules)))
                       for r in Rank)
        elif category == "bomb":
            out.extend((label_of(category, None, r), category, score_of(rules, category, r.order)) for r in Rank)
        elif category == "single_ox":
            out.extend((label_of(category, n, None), category, score_of(rules, category, n or 10))
                       for n in range(10))
        else:
            out.append((label_of(category, None, None), category, score_of(rules, category, 0)))
    out.sort(key=lambda t: -t[2])
    return out


@dataclass(frozen=True)
class Distribution:
    """How many hands of one deck fall in each label.

    :param total: how many hands were counted (2,598,960 for one full deck).
    :param counts: label to count, every label of :func:`labels_of` (zero counts
        included), strongest first.
    :param categories: category to count, the enabled categories strongest first.
    """

    total: int
    counts: dict[str, int]
    categories: dict[str, int]

    def probability(self, label: str) -> Fraction:
        """The exact probability of ``label``.

        >>> distribution(PROFILES["standard"].rules).probability("Five Dukes")
        Fraction(33, 108290)
        """
        return Fraction(self.counts[label], self.total)


_DIST_CACHE: BoundedCache[tuple[Rules, tuple[int, ...]], Distribution] = BoundedCache(32)
_FULL_DECK: tuple[int, ...] = tuple(range(52))


def _deck_available(deck: Sequence[int]) -> list[int]:
    counts = [0] * 52
    for c in deck:
        counts[c] += 1
    if max(counts) > 1:
        raise OddsError("a deck holds each card at most once")
    return _pseudo_available(counts)


def distribution(rules: Rules, deck: Sequence[int] | None = None) -> Distribution:
    """The exact number of hands per label over all 5-card hands of one deck (RULES.md s. 4).

    Each class's count is ``prod_p C(n[p], l[p])`` (module docstring); the suited bonus
    never changes a label, so suits play no part. Cached per rules.

    :param rules: the rules.
    :param deck: the cards (codes, each at most once) to deal from; the full 52 by default.
        A smaller deck is for tests against brute force.
    :return: the distribution; ``total == C(len(deck), 5)``.
    :raises OddsError: a card repeated in ``deck``.

    >>> d = distribution(PROFILES["standard"].rules)
    >>> d.counts["Five Small"], d.counts["Ngau Tonku"], d.categories["no_ox"]
    (4368, 26539, 568928)
    >>> distribution(PROFILES["standard"].rules, deck=range(12)).total  # the 12 cards A-3
    792
    """
    key = (rules, tuple(_FULL_DECK if deck is None else sorted(deck)))
    found = _DIST_CACHE.get(key)
    if found is not None:
        return found
    weights = _class_weights(_deck_available(key[1]))
    table = table_for(rules)
    labels = labels_of(rules)
    counts = {label: 0 for label, _, _ in labels}
    categories = {category: 0 for _, category, _ in labels}
    for entry, w in zip(table.entries, weights.tolist(), strict=True):
        if w:
            counts[entry.label] = counts.get(entry.label, 0) + w
            categories[entry.category] = categories.get(entry.category, 0) + w
    result = Distribution(total=comb(len(key[1]), HAND), counts=counts, categories=categories)
    return _DIST_CACHE.put(key, result)


# --------------------------------------------------------------------------------------
# Card multisets: the walk for rules that use suits


def _colex_subsets(n: int, k: int) -> npt.NDArray[np.uint8]:
    """Every ``k``-subset of ``range(n)`` as sorted rows, in colex order.

    Colex order compares the largest elements first, so row ``i`` is the subset whose
    colex rank is ``i``.

    >>> _colex_subsets(4, 2).tolist()
    [[0, 1], [0, 2], [1, 2], [0, 3], [1, 3], [2, 3]]
    """
    rows = np.zeros((1, 0), dtype=np.uint8)
    for j in range(k):  # rows: every (j)-subset of range(n - k + j) ... built up one column at a time
        parts = [np.hstack([rows[: comb(top, j)], np.full((comb(top, j), 1), top, dtype=np.uint8)])
                 for top in range(j, n - k + j + 1)]
        rows = np.vstack(parts)
    return rows


def colex_rank(codes: Iterable[int]) -> int:
    """The index of a card multiset in the multiset walk: its high-card order.

    A multiset ``c0 <= ... <= c4`` is the set ``d_i = c_i + i`` of ``range(56)``; its
    colex rank orders hands exactly as the ``high_card`` rule does (RULES.md section 5:
    the highest card first; identical multisets are equal).

    >>> colex_rank([0, 0, 0, 0, 0]), colex_rank([51, 51, 51, 51, 51]) == comb(56, 5) - 1
    (0, True)
    >>> colex_rank([0, 1, 2, 3, 51]) > colex_rank([47, 48, 49, 50, 50])
    True
    """
    return sum(comb(c + i, i + 1) for i, c in enumerate(sorted(codes)))


@dataclass(frozen=True)
class _Features:
    """Suit-aware facts about many sorted hands (rows of codes).

    :param codes: ``(n, 5)`` uint8, sorted ascending per row.
    :param bits: ``(n,)`` uint64, bit ``c`` set for each code ``c`` in the row, and bit 63
        when a code repeats (so one-deck liveness is one mask test).
    :param klass: ``(n,)`` int16 class index.
    :param mono: ``(n,)`` uint16, bit ``t`` set when the three cards at positions
        ``_TRIPLES[t]`` share a suit.
    :param flush: ``(n,)`` bool, all five cards share a suit.
    """

    codes: npt.NDArray[np.uint8]
    bits: npt.NDArray[np.uint64]
    klass: npt.NDArray[np.int16]
    mono: npt.NDArray[np.uint16]
    flush: npt.NDArray[np.bool_]


@cache
def _dense_index() -> npt.NDArray[np.int16]:
    dense = np.full(13**5 * 6, -1, dtype=np.int16)
    dense[np.fromiter(INDEX.keys(), dtype=np.int64)] = np.fromiter(INDEX.values(), dtype=np.int16)
    return dense


def _features(codes: npt.NDArray[np.uint8]) -> _Features:
    """Class, card bits, monochrome triples and flush of sorted hands (see :class:`_Features`)."""
    key = np.zeros(len(codes), dtype=np.int32)
    bits = np.zeros(len(codes), dtype=np.uint64)
    one = np.uint64(1)
    for i in range(HAND):
        key += (codes[:, i] >> 2).astype(np.int32) * 13**i
        bits |= np.left_shift(one, codes[:, i].astype(np.uint64))
        if i:
            bits |= np.left_shift((codes[:, i] == codes[:, i - 1]).astype(np.uint64), np.uint64(63))
    key += 13**5 * (codes == _ACE_OF_SPADES).sum(axis=1, dtype=np.int32)
    klass = _dense_index()[key]
    del key
    suits = codes & 3
    mono = np.zeros(len(codes), dtype=np.uint16)
    for bit, (a, b, c) in enumerate(_TRIPLES):
        same = (suits[:, a] == suits[:, b]) & (suits[:, b] == suits[:, c])
        mono |= same.astype(np.uint16) << bit
    flush = (mono & 1 == 1) & (suits[:, 3] == suits[:, 0]) & (suits[:, 4] == suits[:, 0])
    return _Features(codes, bits, klass, mono, flush)


_CHUNK = 1 << 19
_WALK_LOCK = threading.Lock()
_WALK: _Features | None = None


def _walk() -> _Features:
    """Every multiset of 5 card codes (3,819,816), in colex order.

    Built once per process on first use (about 0.5 s; 69 MB: codes 19, card bits 31,
    class 8, monochrome masks 8, flush flags 4), in chunks so that temporaries stay small.
    """
    global _WALK
    with _WALK_LOCK:
        if _WALK is None:
            codes = _colex_subsets(52 + HAND - 1, HAND)
            codes -= np.arange(HAND, dtype=np.uint8)
            n = len(codes)
            walk = _Features(codes, np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.int16),
                             np.empty(n, dtype=np.uint16), np.empty(n, dtype=np.bool_))
            for start in range(0, n, _CHUNK):
                part = _features(codes[start:start + _CHUNK])
                walk.bits[start:start + _CHUNK] = part.bits
                walk.klass[start:start + _CHUNK] = part.klass
                walk.mono[start:start + _CHUNK] = part.mono
                walk.flush[start:start + _CHUNK] = part.flush
            _WALK = walk
        return _WALK


def walk_ready() -> bool:
    """Whether the multiset walk is already built (callers budgeting time ask)."""
    return _WALK is not None



def _suited(rules: Rules, masks: npt.NDArray[np.uint16], klass: npt.NDArray[np.int16], mono: npt.NDArray[np.uint16],
            flush: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Whether the suited bonus applies to each hand (RULES.md section 7, ``suited_bonus``).

    With ``ox``: some equally strong ox of the hand is monochrome (``masks`` from
    :func:`_slot_masks`); with ``hand``: a flush.
    """
    if rules.suited_bonus == "hand":
        return flush
    if rules.suited_bonus == "ox":
        suited: npt.NDArray[np.bool_] = (mono & masks[klass]) != 0
        return suited
    return np.zeros(len(klass), dtype=np.bool_)


_MASKS: BoundedCache[Rules, npt.NDArray[np.uint16]] = BoundedCache(32)


def _slot_masks(table: Table) -> npt.NDArray[np.uint16]:
    """Per class, the monochrome-mask bits of its equally strong ox triples (cached)."""
    found = _MASKS.get(table.rules)
    if found is None:
        found = np.array([sum({_TRIPLE_BIT[s.ox] for s in e.slots}) for e in table.entries], dtype=np.uint16)
        found = _MASKS.put(table.rules, found)
    return found


def _multiset_weights(codes: npt.NDArray[np.uint8], left: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """How many physical hands each multiset row is, given cards left per code.

    ``prod_i (left[c_i] - r_i) / prod_i (r_i + 1)`` where ``r_i`` counts the equal codes
    before position ``i``: ``C(left[c], m)`` per distinct code ``c`` taken ``m`` times
    (at most ``32**5``: int32 is enough).

    >>> _multiset_weights(np.array([[0, 0, 1, 2, 3], [0, 1, 2, 3, 4]], dtype=np.uint8),
    ...                   np.array([2] * 52, dtype=np.int32)).tolist()
    [8, 32]
    """
    weight = left[codes[:, 0]]
    run = np.zeros(len(codes), dtype=np.int32)
    denominator = np.ones(len(codes), dtype=np.int32)
    for i in range(1, HAND):
        same = codes[:, i] == codes[:, i - 1]
        run = np.where(same, run + 1, 0)
        weight = weight * np.maximum(left[codes[:, i]] - run, 0)
        denominator *= run + 1
    return weight // denominator


@dataclass(frozen=True)
class _Chunk:
    """Live rows of one chunk of the walk: their indexes (= high-card order), weights
    (``None``: one each), classes, monochrome masks and flush flags."""

    rows: npt.NDArray[np.intp]
    weights: npt.NDArray[np.int32] | None
    klass: npt.NDArray[np.int16]
    mono: npt.NDArray[np.uint16]
    flush: npt.NDArray[np.bool_]


def _walk_chunks(left: Sequence[int]) -> Iterable[_Chunk]:
    """The multiset walk in chunks, keeping only rows that can be drawn from ``left``.

    :param left: cards left per code (52 counts).
    """
    walk = _walk()
    available = np.asarray(left, dtype=np.int32)
    one_deck = max(left) <= 1
    mask = np.uint64(sum(1 << c for c in range(52) if not left[c]) | (1 << 63))
    zero = np.uint64(0)
    for start in range(0, len(walk.klass), _CHUNK):
        end = start + _CHUNK
        weights: npt.NDArray[np.int32] | None = None
        if one_deck:  # live: no card gone, none repeated
            live = np.flatnonzero((walk.bits[start:end] & mask) == zero)
        else:
            weights = _multiset_weights(walk.codes[start:end], available)
            live = np.flatnonzero(weights)
            weights = weights[live]
        yield _Chunk(live + start, weights, walk.klass[start:end][live], walk.mono[start:end][live],
                     walk.flush[start:end][live])


# --------------------------------------------------------------------------------------
# Odds against the dealer


class Chances:
    """Win, lose and push as exact fractions of everything counted: shared by the odds of
    five known cards (:class:`Odds`) and of fewer (:class:`~service.engine.partial.PartialOdds`),
    which say what they counted through :attr:`counted`."""

    wins: int
    losses: int
    pushes: int

    @property
    def counted(self) -> int:
        """How many (equally likely) deals were counted."""
        raise NotImplementedError

    @property
    def win(self) -> Fraction:
        """P(the caller wins)."""
        return Fraction(self.wins, self.counted)

    @property
    def lose(self) -> Fraction:
        """P(the caller loses)."""
        return Fraction(self.losses, self.counted)

    @property
    def push(self) -> Fraction:
        """P(push)."""
        return Fraction(self.pushes, self.counted)


@dataclass(frozen=True)
class Odds(Chances):
    """A player's exact chances against a dealer hand drawn from the cards left.

    :param dealer_hands: how many dealer hands there are (``C(cards left, 5)``, copies of a
        card counted apart); every one of them is accounted for.
    :param wins: how many of them the player beats; ``losses`` and ``pushes`` likewise.
    :param net: the player's total gross result (``double`` bet, before commission) over
        all dealer hands, per unit stake.
    :param method: ``rank_classes`` (the rules use no suits) or ``card_multisets``.
    :param payout: what the player's hand collects per unit stake when a ``double`` bet wins.
    :param commission_bps: the rules' commission on players' wins (RULES.md section 6.2).
    """

    dealer_hands: int
    wins: int
    losses: int
    pushes: int
    net: int
    method: str
    payout: int = 0
    commission_bps: int = 0

    @property
    def counted(self) -> int:
        """Every dealer hand counted (the denominator of :class:`Chances`)."""
        return self.dealer_hands

    @property
    def expected_net(self) -> Fraction:
        """The player's expected net per unit stake with a ``double`` bet, after commission
        (RULES.md section 6)."""
        return self.expected("double")[2]

    def expected(self, bet: str = "double") -> tuple[Fraction, Fraction, Fraction]:
        """The player's expected gross, commission and net per unit stake for ``bet``.

        The commission is taken exactly at the rate, as if stakes were large (RULES.md
        section 6.2): ``commission_bps / 10,000`` of the expected winnings, which are
        ``wins * payout`` (``double``) or ``wins`` (``equal``) over ``dealer_hands``.

        :raises OddsError: an unknown bet.

        >>> o = Odds(10, 4, 5, 1, 4 * 3 - 5 * 2, "rank_classes", payout=3, commission_bps=500)
        >>> o.expected("double"), o.expected("equal")[2]
        ((Fraction(1, 5), Fraction(3, 50), Fraction(7, 50)), Fraction(-3, 25))
        """
        if bet == "double":
            gross, winnings = Fraction(self.net, self.dealer_hands), self.wins * self.payout
        elif bet == "equal":
            gross, winnings = Fraction(self.wins - self.losses, self.dealer_hands), self.wins
        else:
            raise OddsError("bet must be 'double' or 'equal'")
        commission = Fraction(winnings * self.commission_bps, MAX_BPS * self.dealer_hands)
        return gross, commission, gross - commission


def dealer_pool(hand: Sequence[int], dead: Sequence[int] = (), decks: int = 1) -> list[int]:
    """Cards left per code once the player's hand and the dead cards are out.

    :param hand: the player's five card codes.
    :param dead: card codes seen elsewhere (other hands, burnt cards).
    :param decks: decks in play, 1..8.
    :return: 52 counts.
    :raises OddsError: a card used more than ``decks`` times, or fewer than five cards left.

    >>> sum(dealer_pool([0, 1, 2, 3, 4], [5, 6]))
    45
    >>> dealer_pool([0, 1, 2, 3, 4], [4])
    Traceback (most recent call last):
        ...
    service.engine.odds.OddsError: 2D is used more than once (1 deck in play)
    """
    if not 1 <= decks <= 8:
        raise OddsError("decks must be from 1 to 8")
    left = [decks] * 52
    for code in [*hand, *dead]:
        left[code] -= 1
        if left[code] < 0:
            times = "once" if decks == 1 else f"{decks} times"
            raise OddsError(f"{CARDS[code]} is used more than {times} ({decks} deck{'s' * (decks > 1)} in play)")
    if sum(left) < HAND:
        raise OddsError(f"only {sum(left)} cards are left for the dealer")
    return left


def uses_suits(rules: Rules) -> bool:
    """Whether settling depends on suits: a suited bonus or ``high_card`` ties.

    >>> uses_suits(PROFILES["standard"].rules), uses_suits(PROFILES["liberal"].rules)
    (False, True)
    """
    return rules.suited_bonus != "none" or rules.ties == "high_card"


def odds(hand: Sequence[Card], rules: Rules, dead: Sequence[Card] = (), decks: int = 1) -> Odds:
    """The player's exact odds against every dealer hand that can be drawn (RULES.md s. 5-6).

    The dealer's hand is drawn uniformly from the ``52 * decks`` cards less the player's
    hand and the dead cards; each is settled as :func:`~service.engine.settle.settle_one`
    does (both Five Dukes push; equal hands by ``rules.ties``; the suited bonus counted in
    whichever hand collects).

    Rules without a suited bonus or high-card ties are summed over the 8,568 classes
    (:func:`uses_suits`); otherwise every card multiset is visited, vectorised.

    :param hand: the player's five cards.
    :param rules: the rules.
    :param dead: cards out of play (seen in other hands).
    :param decks: decks in play, 1..8.
    :return: the odds.
    :raises OddsError: a card used more than ``decks`` times, or fewer than 5 cards left.

    >>> from service.engine.cards import parse_hand
    >>> o = odds(parse_hand("10S 9H 8D 4C 4H".split()), PROFILES["standard"].rules)  # No Ox
    >>> o.win, o.method
    (Fraction(0, 1), 'rank_classes')
    >>> o = odds(parse_hand("KS 9H 7D AS 4C".split()), PROFILES["liberal"].rules)   # Ngau Tonku
    >>> o.method, o.wins + o.losses + o.pushes == o.dealer_hands == 1533939
    ('card_multisets', True)
    """
    codes = [c.code for c in hand]
    left = dealer_pool(codes, [c.code for c in dead], decks)
    player = evaluate(hand, rules)
    table = table_for(rules)
    n = len(table.entries)
    scores = table.scores.astype(np.int64)
    total = comb(sum(left), HAND)
    if not uses_suits(rules):
        weights = _class_weights(_pseudo_available(left))
        lose = scores > player.score
        if rules.ties == "dealer" and player.category != "five_dukes":
            lose |= scores == player.score
        wins = np.where(scores < player.score, weights, 0)
        return _odds(rules, table, wins, np.where(lose, weights, 0), np.zeros(n, dtype=np.int64),
                     player.payout, total, "rank_classes")
    masks = _slot_masks(table)
    me = colex_rank(codes)
    wins = np.zeros(n, dtype=np.int64)
    lose_plain = np.zeros(n, dtype=np.int64)
    lose_suited = np.zeros(n, dtype=np.int64)
    for chunk in _walk_chunks(left):
        s = scores[chunk.klass]
        lower = s < player.score
        if player.category == "five_dukes" or rules.ties == "push":
            lose = s > player.score
        elif rules.ties == "dealer":
            lose = s >= player.score
        else:  # high_card: the walk's row index is the high-card order
            tie = s == player.score
            lose = (s > player.score) | (tie & (chunk.rows > me))
            lower |= tie & (chunk.rows < me)
        wins += _bincount(chunk, lower, n)
        if rules.suited_bonus == "none":
            lose_plain += _bincount(chunk, lose, n)
        else:
            suited = _suited(rules, masks, chunk.klass, chunk.mono, chunk.flush)
            lose_plain += _bincount(chunk, lose & ~suited, n)
            lose_suited += _bincount(chunk, lose & suited, n)
    return _odds(rules, table, wins, lose_plain, lose_suited, player.payout, total, "card_multisets")


def _bincount(chunk: _Chunk, where: npt.NDArray[np.bool_], n: int) -> IntArray:
    """Hands per class among the chunk's rows where ``where`` holds (exact: sums < 2**53)."""
    if chunk.weights is None:
        return np.bincount(chunk.klass[where], minlength=n)
    return np.bincount(chunk.klass[where], weights=chunk.weights[where], minlength=n).astype(np.int64)


def _odds(rules: Rules, table: Table, wins: IntArray, lose_plain: IntArray, lose_suited: IntArray,
          player_payout: int, total: int, method: str) -> Odds:
    """Per-class counts to :class:`Odds`, in exact Python integers."""
    multiplier = rules.suited_multiplier
    paid = sum(p * (a + multiplier * b)
               for p, a, b in zip(table.payouts.tolist(), lose_plain.tolist(), lose_suited.tolist(), strict=True)
               if a or b)
    win_count = int(wins.sum())
    losses = int(lose_plain.sum()) + int(lose_suited.sum())
    return Odds(total, win_count, losses, total - win_count - losses, win_count * player_payout - paid, method,
                player_payout, rules.commission_bps)


# --------------------------------------------------------------------------------------
# House edge


@dataclass(frozen=True)
class HouseEdge:
    """The player's exact expected net when a random hand meets a random dealer hand.

    :param pairs: ordered (player, dealer) pairs of disjoint hands: ``C(n, 5) C(n - 5, 5)``.
    :param net: the player's total gross result (before commission) over all pairs, per
        unit stake.
    :param tie_pairs: under ``ties: dealer``, the pairs of equally strong hands (not both
        Five Dukes): the only pairs that do not cancel out (see :func:`house_edge`); 0
        under the other tie rules, where every pair cancels.
    :param bet: ``'double'`` or ``'equal'`` (RULES.md section 6.1).
    :param commission: the house's total commission from the player over all pairs, per
        unit stake, exactly ``commission_bps / 10,000`` of every winning gross (RULES.md
        section 6.2: from the rate, not rounded).
    """

    pairs: int
    net: int
    tie_pairs: int
    bet: str = "double"
    commission: Fraction = Fraction(0)

    @property
    def player_expected_gross(self) -> Fraction:
        """The player's expected result before commission, per unit stake."""
        return Fraction(self.net, self.pairs)

    @property
    def player_expected_commission(self) -> Fraction:
        """The player's expected commission to the house, per unit stake."""
        return self.commission / self.pairs

    @property
    def player_expected_net(self) -> Fraction:
        """The player's expected net per unit stake, after commission (negative: the house wins)."""
        return (self.net - self.commission) / self.pairs

    @property
    def edge(self) -> Fraction:
        """The house edge: the house's expected gain per unit stake, ``-player_expected_net``."""
        return -self.player_expected_net


HOUSE_EDGE_METHOD = (
    "Exact. Player and dealer hands are exchangeable (a uniformly random pair of disjoint "
    "hands is as likely as the same pair swapped), and whenever one hand is stronger the "
    "stronger one collects its own payout, so over all pairs those amounts cancel exactly; "
    "so do pushes. What is left is the tie rule: with `ties: dealer` the dealer collects its "
    "payout from every equally strong player (both Five Dukes excepted), so the player's "
    "expected net is minus the sum, over tied pairs, of the dealer's payout, divided by "
    "C(52,5) C(47,5). That sum is computed by grouping hands into classes (sorted ranks with "
    "the ace of spades apart): the number of player hands of an equally strong class "
    "disjoint from a dealer class is a product of binomials per rank; suits enter only "
    "through the count of each class's hands that earn the suited bonus, found by visiting "
    "the one-deck hands once. With `push` or `high_card` ties the game is symmetric and the "
    "expected net is exactly 0."
)

#: Added to :data:`HOUSE_EDGE_METHOD` for an ``equal`` bet (RULES.md section 6.1).
EQUAL_BET_METHOD = (
    " Equal bet: every win and every loss is one stake whatever the hands, so the expected "
    "result is (wins - losses) / pairs: strictly stronger pairs cancel with their swaps, and "
    "what is left is again the tie rule (with `ties: dealer` every tied pair, both Five Dukes "
    "excepted, is a loss)."
)

#: Added to :data:`HOUSE_EDGE_METHOD` when the rules take a commission (RULES.md section 6.2).
COMMISSION_METHOD = (
    " Commission: computed exactly from the rate, as if stakes were large (only settlements "
    "round): the player's expected net is the expected result less commission_bps / 10,000 "
    "times the expected winnings. The winnings do not cancel by symmetry, so they are summed "
    "exactly: for the double bet, over player classes, the class's total payout (suited bonus "
    "counted hand by hand) times the number of disjoint dealer hands of a lower score (a "
    "product of binomials per rank, summed over dealer classes), plus, under `high_card` "
    "ties, half the tied pairs at their common payout (disjoint tied hands always differ in "
    "high card, and a pair and its swap split the win); for the equal bet, the number of "
    "pairs the player wins: half the pairs of unequal strength, plus half the tied pairs "
    "(both Five Dukes excepted) under `high_card`."
)


def house_edge_method(rules: Rules, bet: str = "double") -> str:
    """The ``method`` text of a house-edge answer for ``rules`` and ``bet``.

    >>> house_edge_method(PROFILES["standard"].rules) == HOUSE_EDGE_METHOD
    True
    >>> "exactly from the rate" in house_edge_method(PROFILES["bull-bull"].rules, "equal")
    True
    """
    text = HOUSE_EDGE_METHOD
    if bet == "equal":
        text += EQUAL_BET_METHOD
    if rules.commission_bps:
        text += COMMISSION_METHOD
    return text

_EDGE_CACHE: BoundedCache[tuple[Rules, tuple[int, ...], str], HouseEdge] = BoundedCache(32)


def house_edge(rules: Rules, deck: Sequence[int] | None = None, bet: str = "double") -> HouseEdge:
    """The player's exact expected net per unit stake, random hand against random dealer.

    Both hands are dealt from one deck (disjoint), every ordered pair equally likely, and
    settled as :func:`~service.engine.settle.settle_one` does (RULES.md section 6).

    **Method.** Swapping the two hands of a pair is a bijection of the pairs. When one
    hand is stronger it collects its own payout from the other, so the pair and its swap
    net to zero; pushes are zero. Only ties remain: under ``ties: dealer`` an equally
    strong pair (not both Five Dukes) costs the player the dealer's payout, so::

        net = - sum over dealer classes D (not Five Dukes) of
                  paid(D) * sum over classes P with score(P) == score(D) of
                      prod_p C(n[p] - l_D[p], l_P[p])

    where ``paid(D)`` is the total payout of the hands of class D in the deck (the base
    payout times the hand count, plus ``(multiplier - 1)`` times the base payout for each
    hand that earns the suited bonus: suits are used only here, and only when
    ``suited_bonus`` is on, by visiting each hand of the deck once). Under ``push`` and
    ``high_card`` every pair cancels with its swap and the net is exactly 0. The brute
    force over all pairs of a reduced deck (tests/test_odds.py) agrees for every profile.
    Cached per rules and bet.

    **Bets and commission** (RULES.md sections 6.1, 6.2). An ``equal`` bet wins or loses
    one stake: its net is ``-tie_pairs`` under ``ties: dealer`` and 0 otherwise. A
    commission of ``r = commission_bps / 10,000`` costs the player ``r`` times the total
    winnings, computed exactly (:data:`COMMISSION_METHOD`; :func:`_winnings`).

    :param rules: the rules.
    :param deck: the cards (codes, each at most once); the full 52 by default. Tests use
        small decks, where brute force over all pairs is cheap.
    :param bet: ``'double'`` (default) or ``'equal'``.
    :return: the house edge.
    :raises OddsError: a card repeated, fewer than 10 cards in ``deck``, an unknown bet,
        or a commission on a ``double`` bet under rules with both a suited bonus and
        ``high_card`` ties (the winnings of tied pairs then depend on how suits and high
        cards go together, which this method does not count).

    >>> he = house_edge(PROFILES["standard"].rules)
    >>> he.pairs == comb(52, 5) * comb(47, 5), float(he.edge) > 0
    (True, True)
    >>> house_edge(PROFILES["standard"].rules, deck=range(12)).pairs   # A-3 only: C(12,5) C(7,5)
    16632
    >>> bb = house_edge(PROFILES["bull-bull"].rules, bet="equal")
    >>> bb.player_expected_gross, bb.player_expected_net < 0
    (Fraction(0, 1), True)
    """
    if bet not in ("double", "equal"):
        raise OddsError("bet must be 'double' or 'equal'")
    key = (rules, tuple(_FULL_DECK if deck is None else sorted(deck)), bet)
    found = _EDGE_CACHE.get(key)
    if found is not None:
        return found
    cards = key[1]
    if len(cards) < 2 * HAND:
        raise OddsError("a deck for two hands needs at least 10 cards")
    if (bet == "double" and rules.commission_bps and rules.suited_bonus != "none"
            and rules.ties == "high_card"):
        raise OddsError("the house edge of a double bet with a commission is not computed for rules with both "
                        "a suited bonus and high_card ties")
    if bet == "equal" and not rules.commission_bps and rules.ties != "dealer":
        result = HouseEdge(pairs=comb(len(cards), HAND) * comb(len(cards) - HAND, HAND), net=0, tie_pairs=0,
                           bet=bet)  # symmetric: wins and losses cancel exactly
        return _EDGE_CACHE.put(key, result)
    if bet == "equal" or rules.commission_bps:
        result = _house_edge_with_bets(rules, cards, bet)
        return _EDGE_CACHE.put(key, result)
    available = np.array(_deck_available(cards), dtype=np.int64)
    pairs = comb(len(cards), HAND) * comb(len(cards) - HAND, HAND)
    counts = _class_weights(available.tolist())
    net = 0
    tie_pairs = 0
    if rules.ties == "dealer":
        table = table_for(rules)
        payouts = table.payouts.tolist()
        suited = _suited_counts(rules, table, cards)
        scores = table.scores
        five_dukes = np.array([e.category == "five_dukes" for e in table.entries])
        for score in np.unique(scores[counts > 0]).tolist():
            group = np.flatnonzero((scores == score) & (counts > 0))
            dealers = group[~five_dukes[group]]
            if len(dealers) == 0:
                continue
            left = available[None, :] - CLASS_COUNTS[dealers]           # (|D|, 14)
            players = CLASS_COUNTS[group]                               # (|P|, 14)
            ways = np.ones((len(dealers), len(group)), dtype=np.int64)
            for p in range(PSEUDO_RANKS):
                ways *= CHOOSE[left[:, p][:, None], players[:, p][None, :]]
            tied = ways.sum(axis=1).tolist()
            for d, t in zip(dealers.tolist(), tied, strict=True):
                n_d = int(counts[d])
                tie_pairs += n_d * t
                net -= payouts[d] * (n_d + (rules.suited_multiplier - 1) * suited[d]) * t
    result = HouseEdge(pairs=pairs, net=net, tie_pairs=tie_pairs)
    return _EDGE_CACHE.put(key, result)


def _tied_per_class(table: Table, available: IntArray, counts: IntArray) -> IntArray:
    """Per dealer class (with hands in the deck): the disjoint player hands of equal score.

    ``sum over classes P with score(P) == score(D) of prod_p C(n[p] - l_D[p], l_P[p])``
    (0 for classes without hands).
    """
    scores = table.scores
    out = np.zeros(len(counts), dtype=np.int64)
    for score in np.unique(scores[counts > 0]).tolist():
        group = np.flatnonzero((scores == score) & (counts > 0))
        left = available[None, :] - CLASS_COUNTS[group]                 # (|D|, 14)
        players = CLASS_COUNTS[group]                                   # (|P|, 14)
        ways = np.ones((len(group), len(group)), dtype=np.int64)
        for p in range(PSEUDO_RANKS):
            ways *= CHOOSE[left[:, p][:, None], players[:, p][None, :]]
        out[group] = ways.sum(axis=1)
    return out


_WEAKER_CHUNK = 128


def _weaker_per_class(table: Table, available: IntArray, counts: IntArray) -> IntArray:
    """Per player class (with hands in the deck): the disjoint dealer hands of a strictly
    lower score, ``sum over D with score(D) < score(P) of prod_p C(n[p] - l_P[p], l_D[p])``.

    Classes are sorted by score, so a player class's weaker dealer classes are a prefix;
    each dealer class is written as at most five (pseudo-rank, count) slots, so a product
    has five factors, not fourteen. About 8,568 x 4,300 products for one deck (a second or
    two).
    """
    live = np.flatnonzero(counts > 0)
    order = live[np.argsort(table.scores[live], kind="stable")]
    scores = table.scores[order].astype(np.int64)
    rows = CLASS_COUNTS[order]
    slot = np.argsort(rows == 0, axis=1, kind="stable")[:, :HAND]        # non-zero columns first
    slot_count = np.take_along_axis(rows, slot, axis=1)                 # 0 pads a short row
    lower = np.searchsorted(scores, scores, side="left")                 # dealer classes below each
    out = np.zeros(len(counts), dtype=np.int64)
    for start in range(0, len(order), _WEAKER_CHUNK):
        stop = min(start + _WEAKER_CHUNK, len(order))
        limit = int(lower[stop - 1])
        if limit == 0:
            continue
        left = available[None, :] - rows[start:stop]                    # (c, 14) cards left
        ways = np.ones((stop - start, limit), dtype=np.int64)
        for j in range(HAND):
            ways *= CHOOSE[left[:, slot[:limit, j]], slot_count[:limit, j][None, :]]
        below = np.arange(limit)[None, :] < lower[start:stop, None]
        out[order[start:stop]] = np.where(below, ways, 0).sum(axis=1)
    return out


def _house_edge_with_bets(rules: Rules, cards: Sequence[int], bet: str) -> HouseEdge:
    """:func:`house_edge` for an ``equal`` bet or a commission (see :data:`COMMISSION_METHOD`)."""
    available = np.array(_deck_available(cards), dtype=np.int64)
    pairs = comb(len(cards), HAND) * comb(len(cards) - HAND, HAND)
    counts = _class_weights(available.tolist())
    table = table_for(rules)
    tied = _tied_per_class(table, available, counts)
    five_dukes = np.array([e.category == "five_dukes" for e in table.entries])
    n = counts.tolist()
    tied_pairs = [a * b for a, b in zip(n, tied.tolist(), strict=True)]   # per dealer class
    equal_pairs = sum(tied_pairs)
    both_five_dukes = sum(t for t, fd in zip(tied_pairs, five_dukes.tolist(), strict=True) if fd)
    decided_ties = equal_pairs - both_five_dukes  # tied pairs the tie rule decides
    unequal = pairs - equal_pairs
    wins = unequal // 2 + (decided_ties // 2 if rules.ties == "high_card" else 0)
    tie_pairs = decided_ties if rules.ties == "dealer" else 0
    if bet == "equal":
        losses = unequal // 2 + (decided_ties // 2 if rules.ties == "high_card" else tie_pairs)
        net = wins - losses
        winnings = Fraction(wins)
    else:
        payouts = table.payouts.tolist()
        suited = _suited_counts(rules, table, cards)
        paid = [p * (k + (rules.suited_multiplier - 1) * s) for p, k, s in zip(payouts, n, suited, strict=True)]
        net = -sum(paid[d] * t for d, t in enumerate(tied.tolist()) if t and not five_dukes[d]) if tie_pairs else 0
        winnings = Fraction(0)
        if rules.commission_bps:
            weaker = _weaker_per_class(table, available, counts).tolist()
            total = sum(a * b for a, b in zip(paid, weaker, strict=True))
            if rules.ties == "high_card":  # no suited bonus here: tied hands share one payout
                total_ties = sum(payouts[d] * tp for d, tp in enumerate(tied_pairs) if tp and not five_dukes[d])
                winnings = Fraction(total) + Fraction(total_ties, 2)
            else:
                winnings = Fraction(total)
    commission = winnings * Fraction(rules.commission_bps, MAX_BPS)
    return HouseEdge(pairs=pairs, net=net, tie_pairs=tie_pairs, bet=bet, commission=commission)


def _suited_counts(rules: Rules, table: Table, deck: Sequence[int]) -> list[int]:
    """Per class, how many hands of ``deck`` earn the suited bonus (all zero without one)."""
    n = len(table.entries)
    if rules.suited_bonus == "none":
        return [0] * n
    left = [0] * 52
    for c in deck:
        left[c] = 1
    masks = _slot_masks(table)
    out = np.zeros(n, dtype=np.int64)
    for chunk in _walk_chunks(left):
        out += _bincount(chunk, _suited(rules, masks, chunk.klass, chunk.mono, chunk.flush), n)
    return [int(x) for x in out.tolist()]


def prepare(rules: Rules) -> None:
    """Compute a profile's one-deck analyses that every request may need now, and keep them
    for the life of the process (the app does this for every profile before the workers
    fork, so that they are shared and never refused): the distribution, the house edge of
    the ``double`` bet when the rules take no commission, and the card-multiset walk when
    the rules use suits. The house edges that need a commission's winnings (seconds each)
    are computed on first request by :func:`pinned_house_edge`.

    >>> prepare(PROFILES["standard"].rules); analysis_cost(PROFILES["standard"].rules, "house_edge")
    0.0
    """
    _DIST_CACHE.pin((rules, _FULL_DECK), distribution(rules))
    if not rules.commission_bps:
        pinned_house_edge(rules, "double")
    if uses_suits(rules):
        _walk()


def pinned_house_edge(rules: Rules, bet: str = "double") -> HouseEdge:
    """:func:`house_edge` of a profile's rules over one deck, kept for good once computed
    (profiles are few, so this is bounded; custom rules go through the bounded cache).

    :raises OddsError: as :func:`house_edge`.
    """
    key = (rules, _FULL_DECK, bet)
    found = _EDGE_CACHE.get(key)
    if found is None:
        found = house_edge(rules, bet=bet)
    return _EDGE_CACHE.pin(key, found)


def analysis_cost(rules: Rules, kind: str, decks: int = 1, known: int = HAND, bet: str = "double") -> float:
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
    from service.engine import tables

    if kind == "house_edge" and ((rules.ties != "dealer" and not rules.commission_bps)
                                 or (rules, _FULL_DECK, bet) in _EDGE_CACHE):
        return 0.0  # exactly 0 by symmetry (no table needed), or cached
    if kind == "distribution" and (rules, _FULL_DECK) in _DIST_CACHE:
        return 0.0
    cost = 0.0 if tables.has_table(rules) else 0.8
    needs_walk = (kind == "odds" and uses_suits(rules)) or (
        kind == "house_edge" and rules.ties == "dealer" and rules.suited_bonus != "none")
    if needs_walk and not walk_ready():
        cost += 3.0
    if kind == "odds" and uses_suits(rules):
        cost += ODDS_SECONDS_PER_DECK * decks
    if kind == "house_edge" and rules.commission_bps:
        cost += 3.0  # the winnings: every (player class, weaker dealer class) product
    if kind == "odds" and known < HAND:
        from service.engine.partial_classes import class_path_applies  # partial odds import this module
        from service.engine.suited_hands import suited_hands_ready

        way = "rank_classes" if not uses_suits(rules) else "classes" if class_path_applies(rules, [decks] * 52) else "walk"
        cost += PARTIAL_SECONDS[known, way] * (min(decks, 2.5) if way == "walk" else 1)  # the walk: flat from 2-3 decks
        if way == "classes" and not suited_hands_ready(rules):
            cost += 0.5  # listing the suited hands the first time
    return cost


#: Odds under rules that use suits visit the card multisets once per request: about this
#: many seconds per deck in play on the reference machine (0.22 s measured with 8 decks).
ODDS_SECONDS_PER_DECK = 0.0275

#: Odds from fewer known cards (:mod:`service.engine.partial`), by (known cards, how they are
#: counted): seconds on one core beside the five-card cost, as bench/odds.py measures them:
#: ``rank_classes`` (rules without suits), ``classes`` (suits, one deck) and ``walk`` (suits
#: with several decks, or a suited bonus with ``high_card`` ties; per deck). 4 known cards
#: are under ``CHEAP_SECONDS`` but on the walk.
PARTIAL_SECONDS: dict[tuple[int, str], float] = {(4, "rank_classes"): 0.012, (3, "rank_classes"): 0.07,
                                                 (4, "classes"): 0.02, (3, "classes"): 0.12,
                                                 (4, "walk"): 0.25, (3, "walk"): 1.2}


# --------------------------------------------------------------------------------------
# The README table


def edge_table(names: Iterable[str] | None = None) -> str:
    """The markdown table of the house edge of the built-in profiles (``--table``): the
    ``double`` bet of each, and the ``equal`` bet too where the profile takes a commission
    (without one, an equal bet's edge is the tie rule's alone).

    >>> print(edge_table(["standard"]).splitlines()[2])  # doctest: +ELLIPSIS
    | `standard` | double | ... | ...% | ... | 0 |
    """
    lines = [
        "| profile | bet | player's expected net per unit stake (exact) | house edge | ties | commission (bps) |",
        "|---|---|---|---|---|---|",
    ]
    for name in names or PROFILES:
        rules = PROFILES[name].rules
        for bet in ("double", "equal") if rules.commission_bps else ("double",):
            he = house_edge(rules, bet=bet)
            value = he.player_expected_net
            lines.append(f"| `{name}` | {bet} | {value.numerator}/{value.denominator} | {float(he.edge) * 100:.4f}% | "
                         f"{rules.ties} | {rules.commission_bps} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m service.engine.odds --table``: print the README's house-edge table."""
    parser = argparse.ArgumentParser(prog="python -m service.engine.odds", description=main.__doc__)
    parser.add_argument("--table", action="store_true", help="print the house-edge table of every built-in profile")
    args = parser.parse_args(argv)
    if not args.table:
        parser.print_help()
        return 2
    sys.stdout.write(edge_table() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
