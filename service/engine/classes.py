"""Hand classes: what a hand's category, label, score and payout depend on (RULES.md
sections 3-4), shared by the evaluation tables and the analyses.

A hand's result depends only on its ranks, on how many of its aces are the ace of spades
(Ngau Tonku), and on suits where a profile uses them (the suited bonus, high-card ties:
those are applied per hand by their users). So hands fall into **classes**, each named by
its **class key**::

    class key = r0 + 13*r1 + 13**2*r2 + 13**3*r3 + 13**4*r4 + 13**5*s
        r0 <= r1 <= ... <= r4   the ranks sorted (0 = ace ... 12 = king)
        s                       how many of the cards are the ace of spades (0..5)

There are 6,188 rank multisets (five of a kind included, for several decks) and 8,568
classes in all, listed once in :data:`CLASSES` (a representative hand each) in the order
every table and analysis indexes them. :func:`class_keys` is the one place the key is
computed; :func:`class_indexes` turns hands into class indexes through a dense index, and
:data:`RANK_WEIGHT` identifies a hand's class without sorting (the per-hand fast path).

**Pseudo-ranks** (for counting hands): a class written as its counts over 14 pseudo-ranks::

    pseudo-rank 0       the aces other than the ace of spades   (3 per deck)
    pseudo-rank 1..12   the ranks 2 .. K                        (4 per deck)
    pseudo-rank 13      the ace of spades                       (1 per deck)

so the number of ways to draw a class from cards left with ``n[p]`` cards of pseudo-rank
``p`` is ``prod_p C(n[p], l[p])`` (:func:`class_weights`), where ``l[p]`` is the class's
count (:data:`CLASS_COUNTS`).

>>> len(CLASSES), class_key([0, 4, 8, 12, 16]), int(class_weights([3] + [4] * 12 + [1]).sum())
(8568, 121186, 2598960)
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from service.engine.cache import CACHE
from service.engine.cards import HAND_SIZE

__all__ = [
    "ACE_OF_SPADES",
    "CHOOSE",
    "CLASSES",
    "CLASS_COUNTS",
    "CLASS_OF_WEIGHT",
    "FLUSH_CLASSES",
    "INDEX",
    "N_CLASSES",
    "PSEUDO_RANKS",
    "RANK_WEIGHT",
    "ByCode",
    "IntArray",
    "class_indexes",
    "class_key",
    "class_keys",
    "class_of_counts",
    "class_weights",
    "one_suit",
    "one_suit_weights",
    "pseudo_available",
    "pseudo_rank",
    "sort_hands",
    "table_weights",
]

IntArray = npt.NDArray[np.int64]

#: The code of the ace of spades (rank 0, suit 3).
ACE_OF_SPADES = 3
_KEYS_PER_SPADE_COUNT = 13**5
_SUIT_CYCLE = (0, 1, 2, 3)  # D C H S: representative suits for non-ace ranks
PSEUDO_RANKS = 14
_MAX_AVAILABLE = 32  # 8 decks x 4 suits


#: Hands sorted by code, ``(sorted codes, input positions)`` (:func:`sort_hands`).
ByCode = tuple[npt.NDArray[np.uint8], npt.NDArray[np.intp]]
#: A sorting network for five items (nine compare-exchanges, the fewest there are): the
#: pairs of columns to order, in turn.
_NETWORK = ((0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2))
_POSITION_BITS = 3
_POSITION_MASK = (1 << _POSITION_BITS) - 1


def sort_hands(codes: npt.NDArray[np.integer[Any]]) -> ByCode:
    """Each hand's codes sorted ascending, and the input position of each sorted card
    (equal codes keep input order, as a stable sort): the one sort of a batch, for the
    repeat check, the class lookup and the formations' placement.

    Each card is keyed ``code << 3 | position`` and the five columns go through a sorting
    network (:data:`_NETWORK`) with numpy's element-wise minimum and maximum: about ten
    times faster than numpy's stable ``argsort`` along rows of five.

    :param codes: ``(n, 5)`` card codes (0..51; any integer type).
    :return: ``(sorted codes, positions)``: ``(n, 5)`` ``uint8`` and ``(n, 5)`` ``intp``,
        with ``sorted[i, k] == codes[i, positions[i, k]]``.

    >>> ordered, positions = sort_hands(np.array([[51, 3, 47, 3, 39]]))
    >>> ordered.tolist(), positions.tolist()
    ([[3, 3, 39, 47, 51]], [[1, 3, 4, 2, 0]])
    """
    arr = np.asarray(codes)
    columns = [(arr[:, k].astype(np.uint16) << _POSITION_BITS) | k for k in range(HAND_SIZE)]
    for i, j in _NETWORK:
        low = np.minimum(columns[i], columns[j])
        columns[j] = np.maximum(columns[i], columns[j])
        columns[i] = low
    keys = np.stack(columns, axis=1)
    return (keys >> _POSITION_BITS).astype(np.uint8), (keys & _POSITION_MASK).astype(np.intp)


def class_keys(codes: npt.ArrayLike, presorted: bool = False) -> npt.NDArray[np.int32]:
    """The class keys of many hands (see the module docstring): the one place the key is
    computed.

    :param codes: integer array of shape ``(n, 5)``, card codes 0..51.
    :param presorted: the rows are already sorted ascending (skips a sort).
    :return: ``(n,)`` int32 keys.

    >>> class_keys([[3, 51, 0, 4, 8]]).tolist() == [0 + 13 * 0 + 169 * 1 + 2197 * 2 + 28561 * 12 + 13**5]
    True
    """
    arr = np.asarray(codes)
    ranks = arr >> 2
    if not presorted:
        ranks = np.sort(ranks, axis=1)
    ranks = ranks.astype(np.int32)
    keys: npt.NDArray[np.int32] = (ranks[:, 0] + 13 * ranks[:, 1] + 169 * ranks[:, 2] + 2197 * ranks[:, 3]
                                   + 28561 * ranks[:, 4])
    keys += _KEYS_PER_SPADE_COUNT * (arr == ACE_OF_SPADES).sum(axis=1, dtype=np.int32)
    return keys


def class_key(codes: Sequence[int]) -> int:
    """The class key of five card codes (any order).

    >>> class_key([3, 51, 0, 4, 8]) == class_key([0, 3, 4, 8, 51])
    True
    """
    return int(class_keys([codes])[0])


def _classes() -> list[tuple[int, list[int]]]:
    """Every class key with a representative hand of codes, sorted by code."""
    hands: list[list[int]] = []
    for ranks in combinations_with_replacement(range(13), HAND_SIZE):
        aces = ranks.count(0)
        for spades in range(aces + 1):
            codes: list[int] = []
            for i, rank in enumerate(ranks):
                # aces: the non-spade ones first (D, C, H), then the aces of spades
                ace_suit = ACE_OF_SPADES if i >= aces - spades else i % 3
                suit = ace_suit if rank == 0 else _SUIT_CYCLE[i % 4]
                codes.append(rank * 4 + suit)
            hands.append(sorted(codes))
    keys = class_keys(hands, presorted=True).tolist()
    return list(zip(keys, hands, strict=True))


#: Every (class key, representative codes) pair, in a fixed order shared by all tables.
CLASSES: list[tuple[int, list[int]]] = _classes()
#: Class key to class index (the position in :data:`CLASSES`).
INDEX: dict[int, int] = {key: i for i, (key, _) in enumerate(CLASSES)}
#: How many classes there are (8,568). Tables for rules with a category that depends on suits
#: (a flush) hold twice as many entries: entry ``k + N_CLASSES`` is class ``k``'s hands whose
#: five cards share one suit (:data:`FLUSH_CLASSES`), entry ``k`` its other hands.
N_CLASSES = len(CLASSES)


def _flush_representative(codes: list[int]) -> list[int] | None:
    """A hand of the class of ``codes`` whose five cards share one suit: spades when the class
    holds aces of spades (then every ace is one), else diamonds; ``None`` when no hand of the
    class can be one suit (some of its aces are spades and some are not)."""
    aces = sum(c >> 2 == 0 for c in codes)
    spades = sum(c == ACE_OF_SPADES for c in codes)
    if spades not in (0, aces):
        return None
    suit = 3 if spades else 0
    return [(c >> 2) * 4 + suit for c in codes]


#: Per class index, a representative hand of its one-suit hands, or ``None`` when it has none.
FLUSH_CLASSES: list[list[int] | None] = [_flush_representative(codes) for _, codes in CLASSES]


def _dense_index() -> npt.NDArray[np.int16]:
    dense = np.full(_KEYS_PER_SPADE_COUNT * (HAND_SIZE + 1), -1, dtype=np.int16)
    dense[np.fromiter(INDEX.keys(), dtype=np.int64)] = np.fromiter(INDEX.values(), dtype=np.int16)
    return dense


#: Class key to class index as an array (-1 where no class), built on first use (4.5 MB).
_DENSE = CACHE.constant("dense class index", _dense_index)


def class_indexes(codes: npt.ArrayLike, presorted: bool = False) -> npt.NDArray[np.int16]:
    """The class index of many hands (positions in :data:`CLASSES`).

    :param codes: integer array of shape ``(n, 5)``, card codes 0..51.
    :param presorted: the rows are already sorted ascending.
    :return: ``(n,)`` int16 indexes.

    >>> hands = [[51, 47, 43, 39, 3], [0, 4, 8, 12, 16]]   # K-Q-J-10 of spades and A♠; A-2-3-4-5
    >>> [CLASSES[i][0] for i in class_indexes(hands).tolist()] == [class_key(h) for h in hands]
    True
    """
    out: npt.NDArray[np.int16] = _DENSE()[class_keys(codes, presorted)]
    return out


#: Per card code, a weight whose sum over a hand identifies its class without sorting:
#: 3 bits per rank counting its cards (at most 5), then the count of aces of spades.
RANK_WEIGHT: tuple[int, ...] = tuple((1 << 3 * (c >> 2)) + ((1 << 39) if c == ACE_OF_SPADES else 0)
                                     for c in range(52))
#: The :data:`RANK_WEIGHT` sum of a hand's five codes to its class index (no sorting).
CLASS_OF_WEIGHT: dict[int, int] = {sum(RANK_WEIGHT[c] for c in codes): k for k, (_, codes) in enumerate(CLASSES)}


def pseudo_rank(code: int) -> int:
    """The pseudo-rank of a card code (see the module docstring).

    >>> pseudo_rank(3), pseudo_rank(0), pseudo_rank(51)
    (13, 0, 12)
    """
    return PSEUDO_RANKS - 1 if code == ACE_OF_SPADES else code >> 2


def _class_counts() -> IntArray:
    """Per class (in :data:`CLASSES` order) its 14 pseudo-rank counts."""
    out = np.zeros((len(CLASSES), PSEUDO_RANKS), dtype=np.int64)
    for i, (_, codes) in enumerate(CLASSES):
        for c in codes:
            out[i, pseudo_rank(c)] += 1
    return out


#: ``(8568, 14)``: each class's pseudo-rank counts.
CLASS_COUNTS: IntArray = _class_counts()
#: ``CHOOSE[n, k] = C(n, k)`` for ``n`` up to 32 cards left of a pseudo-rank, ``k`` up to 5.
CHOOSE: IntArray = np.array([[comb(n, k) for k in range(HAND_SIZE + 1)] for n in range(_MAX_AVAILABLE + 1)],
                            dtype=np.int64)


def class_weights(available: Sequence[int]) -> IntArray:
    """How many hands of each class can be drawn from cards left.

    :param available: 14 counts, cards left per pseudo-rank (each 0..32).
    :return: ``(8568,)`` int64 counts.

    >>> int(class_weights([3] + [4] * 12 + [1]).sum())
    2598960
    """
    n = np.asarray(available, dtype=np.int64)
    out: IntArray = np.prod(CHOOSE[n[None, :], CLASS_COUNTS], axis=1)
    return out


def pseudo_available(counts: Sequence[int]) -> list[int]:
    """Cards left per pseudo-rank from cards left per code (52 counts).

    >>> pseudo_available([1] * 52)
    [3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1]
    """
    out = [0] * PSEUDO_RANKS
    for code, n in enumerate(counts):
        out[pseudo_rank(code)] += n
    return out


_BY_COUNTS = CACHE.constant("class by pseudo-rank counts",
                            lambda: {tuple(row): i for i, row in enumerate(CLASS_COUNTS.tolist())})


def class_of_counts(counts: Sequence[int]) -> int:
    """The class index of five cards given as their 14 pseudo-rank counts.

    :raises KeyError: the counts are not five cards.

    >>> class_of_counts([0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 0, 1]) == INDEX[class_key([3, 36, 37, 40, 44])]
    True
    """
    return _BY_COUNTS()[tuple(counts)]


def one_suit(codes: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.bool_]:
    """Whether each hand's five cards share one suit: ``(n, 5)`` codes to ``(n,)`` flags.

    >>> one_suit(np.array([[3, 7, 11, 15, 19], [3, 7, 11, 15, 18]])).tolist()
    [True, False]
    """
    suits = np.asarray(codes) & 3
    flags: npt.NDArray[np.bool_] = (suits == suits[:, :1]).all(axis=1)
    return flags


def _rank_counts() -> IntArray:
    """Per class, how many of its cards have each rank (13 counts; the ace of spades is an ace)."""
    out = np.zeros((len(CLASSES), 13), dtype=np.int64)
    for i, (_, codes) in enumerate(CLASSES):
        for c in codes:
            out[i, c >> 2] += 1
    return out


_RANK_COUNTS = CACHE.constant("class rank counts", _rank_counts)


def one_suit_weights(left: Sequence[int]) -> IntArray:
    """How many one-suit hands of each class can be drawn from the cards left (the hands a
    table that tells flushes apart files under ``class + N_CLASSES``).

    Five cards of suit ``σ`` and a class's ranks number ``prod_r C(left[r, σ], m_r)``; spade
    ones belong to the class whose aces are all aces of spades, the others to the class
    without an ace of spades.

    :param left: cards left per code (52 counts).
    :return: ``(8568,)`` int64 counts.

    >>> int(one_suit_weights([1] * 52).sum())   # one deck: 4 x C(13, 5)
    5148
    """
    counts = _RANK_COUNTS()
    n = np.asarray(left, dtype=np.int64).reshape(13, 4)  # [rank, suit]
    per_suit = [np.prod(CHOOSE[n[None, :, s], counts], axis=1) for s in range(4)]  # suits D C H S
    aces = counts[:, 0]
    spades = CLASS_COUNTS[:, PSEUDO_RANKS - 1]
    out: IntArray = np.where(spades == 0, per_suit[0] + per_suit[1] + per_suit[2], 0)
    out += np.where(spades == aces, per_suit[3], 0)
    return out


def table_weights(left: Sequence[int], suited: bool) -> IntArray:
    """How many hands of each table entry can be drawn from the cards left: per class
    (:func:`class_weights`), or, for a table that tells one-suit hands apart, per class its
    other hands then per class its one-suit hands (:func:`one_suit_weights`).

    :param left: cards left per code (52 counts).
    :param suited: the table tells one-suit hands apart.

    >>> int(table_weights([1] * 52, True)[N_CLASSES:].sum()), int(table_weights([1] * 52, True).sum())
    (5148, 2598960)
    """
    every = class_weights(pseudo_available(left))
    if not suited:
        return every
    flushes = one_suit_weights(left)
    return np.concatenate([every - flushes, flushes])
