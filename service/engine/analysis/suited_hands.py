"""The suited opponent hands of partial odds with one deck (RULES.md section 7,
``suited_bonus``; issue 14).

A suited hand collects ``suited_multiplier`` times its payout, so against a completion of
the caller's hand the opponent's winning hands pay their class's payout (counted by class in
:func:`service.engine.analysis.partial.by_classes`) plus ``(multiplier - 1)`` times it for each suited
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

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
import numpy.typing as npt

from service.engine.analysis.walk import CHUNK, suited_flags, walk
from service.engine.cache import CACHE, BoundedCache
from service.engine.cards import HAND_SIZE
from service.engine.classes import N_CLASSES
from service.engine.rules import Rules
from service.engine.tables import Table, table_for

__all__ = ["SuitedHands", "SuitedLosses", "pin_suited_hands", "suited_hands", "suited_hands_ready"]


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
