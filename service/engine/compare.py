"""Comparing and ranking hands (RULES.md section 5).

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import PROFILES
>>> from service.engine.tables import evaluate
>>> nn = PROFILES["niu-niu"].rules
>>> dealer = evaluate(parse_hand("KH QS 10D 4C AC".split()), nn)
>>> player = evaluate(parse_hand("KS QH JD 2C 3C".split()), nn)
>>> dealer.label == player.label == "Single-Ox 5", compare(player, dealer, nn)
(True, 1)
>>> std = PROFILES["standard"].rules
>>> evaluate(player.hand, std).label                   # the 3 counts as 6 in standard
'Single-Ox 8'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from service.engine.classes import sort_hands
from service.engine.rules import Rules

__all__ = ["RankedHand", "Scored", "compare", "high_card_key", "rank_hands", "ranking_order", "strength_key"]


class Scored(Protocol):
    """What comparing and settling read of an evaluated hand: an
    :class:`~service.engine.hand.Evaluation` or a resolver's
    :class:`~service.engine.tables.HandResult`."""

    @property
    def score(self) -> int:
        """Higher is stronger under the rules the hand was evaluated under."""

    @property
    def category(self) -> str:
        """The category's API name."""

    @property
    def payout(self) -> int:
        """What the hand collects when it wins, per unit stake (suited bonus included)."""

    @property
    def codes(self) -> Sequence[int]:
        """The hand's card codes (for the ``high_card`` comparison)."""


def high_card_key(codes: Sequence[int]) -> tuple[int, ...]:
    """The hand's card codes from highest to lowest for the ``high_card`` tie rule.

    Card codes order by rank (K high, A low) and then suit (S > H > C > D), so comparing
    these tuples compares the hands card by card; identical cards compare equal.

    >>> from service.engine.cards import parse_hand
    >>> high_card_key([c.code for c in parse_hand("AS 2D KH KS 3C".split())])
    (51, 50, 9, 4, 3)
    """
    return tuple(sorted(codes, reverse=True))


def strength_key(hand: Scored, rules: Rules) -> tuple[int, tuple[int, ...]]:
    """A sort key: greater is stronger, equal is equal under ``rules`` (section 5): the score,
    then the high card where it orders equally strong hands (``ties: high_card``, and Bombs
    under ``bomb_order: high_card``)."""
    if hand.category in rules.high_card_categories:
        return (hand.score, _card_key(hand, rules))
    return (hand.score, ())


def _card_key(hand: Scored, rules: Rules) -> tuple[int, ...]:
    """:func:`high_card_key`, or its first card alone for a category compared by the top card
    (:attr:`~service.engine.rules.Rules.top_card_categories`: Full Houses under
    ``full_house_order: high_card``, identical top cards falling to ``ties``)."""
    key = high_card_key(hand.codes)
    return key[:1] if hand.category in rules.top_card_categories else key


def compare(a: Scored, b: Scored, rules: Rules) -> int:
    """Compare two evaluated hands under ``rules`` (RULES.md section 5).

    Hands compare by score (category, then the strength within it); equal scores compare by
    :func:`high_card_key` where the high card orders them (``ties: high_card``, Bombs under
    ``bomb_order: high_card``).

    :return: ``1`` if ``a`` is stronger, ``-1`` if ``b`` is, ``0`` if they are equal:
        the order of :func:`strength_key`, without building the keys when the scores differ.
    """
    sa, sb = a.score, b.score
    if sa != sb or a.category not in rules.high_card_categories:
        return (sa > sb) - (sa < sb)
    ka, kb = _card_key(a, rules), _card_key(b, rules)
    return (ka > kb) - (ka < kb)


@dataclass(frozen=True)
class RankedHand:
    """One hand's place in a ranking.

    :param index: the hand's position in the input list (0-based).
    :param position: competition ranking, 1 for the strongest (1, 2, 2, 4).
    :param evaluation: the hand's evaluation (any :class:`Scored`).
    """

    index: int
    position: int
    evaluation: Scored


def rank_hands(evaluations: Sequence[Scored], rules: Rules) -> list[RankedHand]:
    """Order hands strongest first with competition positions (RULES.md section 5).

    Equal hands share a position and keep their input order; equal scores are ordered by
    the high card where it orders them (:func:`strength_key`).

    >>> from service.engine.cards import parse_hand
    >>> from service.engine.rules import PROFILES
    >>> from service.engine.tables import evaluate
    >>> std = PROFILES["standard"].rules
    >>> hands = ["10S 9H 8D 4C 4H", "JS QH KD JC QD", "10H 9D AD 7C 4S", "10C 9C AC 7D 4D"]
    >>> ranked = rank_hands([evaluate(parse_hand(h.split()), std) for h in hands], std)
    >>> [(r.index, r.position) for r in ranked]
    [(1, 1), (2, 2), (3, 2), (0, 4)]
    """
    keyed = sorted(
        ((strength_key(e, rules), i, e) for i, e in enumerate(evaluations)),
        key=lambda t: (t[0], -t[1]),
        reverse=True,
    )
    out: list[RankedHand] = []
    previous: tuple[int, tuple[int, ...]] | None = None
    position = 0
    for n, (key, i, e) in enumerate(keyed, start=1):
        if key != previous:
            position, previous = n, key
        out.append(RankedHand(i, position, e))
    return out


#: The range of 16-bit keys (stable sorts of them are radix sorts).
_INT16 = np.iinfo(np.int16)


def ranking_order(scores: npt.ArrayLike, codes: npt.ArrayLike, by_high_card: npt.ArrayLike | None = None,
                  by_top_card: npt.ArrayLike | None = None) -> tuple[list[int], list[int]]:
    """:func:`rank_hands` for many hands at once, with numpy: the hands' indexes strongest
    first and their competition positions (RULES.md section 5; equal hands keep their input
    order; equal scores are ordered by the high card where ``by_high_card`` says so).

    :param scores: ``(n,)`` the hands' scores.
    :param codes: ``(n, 5)`` the hands' card codes.
    :param by_high_card: ``(n,)`` whether each hand's category is ordered by the high card
        (:attr:`~service.engine.rules.Rules.high_card_categories`); ``None``: none is.
    :param by_top_card: ``(n,)`` whether each of those is ordered by its highest card alone
        (:attr:`~service.engine.rules.Rules.top_card_categories`); ``None``: none is.
    :return: ``(indexes, positions)``, two lists of ``n``.

    >>> ranking_order([201, 800, 201, 100], [[0, 1, 2, 3, 4]] * 4)
    ([1, 0, 2, 3], [1, 2, 2, 4])
    """
    score = np.asarray(scores, dtype=np.int64)
    n = len(score)
    starts = np.ones(n, dtype=np.bool_)
    if by_high_card is not None and np.any(by_high_card):
        high = sort_hands(np.asarray(codes).reshape(n, 5))[0].astype(np.int64)  # ascending: [:, 4] highest
        high *= np.asarray(by_high_card, dtype=np.int64)[:, None]  # 0 where the high card does not order
        if by_top_card is not None:  # the top card alone: the other columns 0
            high[np.asarray(by_top_card, dtype=np.bool_), :4] = 0
        columns = [-score, *(-high[:, j] for j in range(4, -1, -1))]
        order = np.lexsort((np.arange(n), *reversed(columns)))
        keys = np.stack(columns, axis=1)[order]
        starts[1:] = (keys[1:] != keys[:-1]).any(axis=1)
    else:  # one key: a stable sort keeps equal hands in input order (radix on 16 bits, timsort beyond)
        key = -score
        if n and _INT16.min <= int(key.min()) and int(key.max()) <= _INT16.max:
            key = key.astype(np.int16)
        order = np.argsort(key, kind="stable")
        ordered = key[order]
        starts[1:] = ordered[1:] != ordered[:-1]
    positions: Any = np.maximum.accumulate(np.where(starts, np.arange(1, n + 1), 0))
    return order.tolist(), positions.tolist()
