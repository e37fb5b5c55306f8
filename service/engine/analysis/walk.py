"""The card-multiset walk: every multiset of five card codes, for analyses under rules that
use suits (RULES.md sections 5 and 7).

Suits matter to a settlement in two places only: the suited bonus (a suited hand's payout
is multiplied) and the ``high_card`` tie rule. When the rules use either, the odds and the
suited-bonus counts of the house edge visit every card multiset (3,819,816 of them, shared
by all rules and built once per process, :func:`walk`), in colex order so that a
multiset's index *is* its high-card order (:func:`colex_rank`, RULES.md section 5). Each
row carries its class (:mod:`service.engine.classes`), which cards it holds, which of its
triples share a suit and whether it is a flush (:class:`Features`); :func:`walk_chunks`
yields the rows that can be drawn from the cards left, with their weights.

>>> colex_rank([0, 0, 0, 0, 0]), colex_rank([0, 0, 0, 0, 1]), colex_rank([0, 1, 2, 3, 4])
(0, 1, 76)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np
import numpy.typing as npt

from service.engine.cache import CACHE, BoundedCache
from service.engine.cards import HAND_SIZE
from service.engine.classes import N_CLASSES, IntArray, class_indexes
from service.engine.rules import Rules
from service.engine.tables import Table

__all__ = [
    "CHUNK",
    "Chunk",
    "Features",
    "class_tally",
    "colex_rank",
    "multiset_weights",
    "slot_masks",
    "suited_flags",
    "walk",
    "walk_chunks",
    "walk_ready",
]

#: The ten ways to pick three of five positions, in :func:`itertools.combinations` order:
#: bit ``t`` of a "monochrome" mask is triple ``_TRIPLES[t]``.
_TRIPLES: tuple[tuple[int, ...], ...] = tuple(combinations(range(HAND_SIZE), 3))
_TRIPLE_BIT = {t: 1 << i for i, t in enumerate(_TRIPLES)}
#: Rows of the walk visited at a time (keeps temporaries small).
CHUNK = 1 << 19


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
class Features:
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


def _features(codes: npt.NDArray[np.uint8]) -> Features:
    """Class, card bits, monochrome triples and flush of sorted hands (see :class:`Features`)."""
    bits = np.zeros(len(codes), dtype=np.uint64)
    one = np.uint64(1)
    for i in range(HAND_SIZE):
        bits |= np.left_shift(one, codes[:, i].astype(np.uint64))
        if i:
            bits |= np.left_shift((codes[:, i] == codes[:, i - 1]).astype(np.uint64), np.uint64(63))
    klass = class_indexes(codes, presorted=True)
    suits = codes & 3
    mono = np.zeros(len(codes), dtype=np.uint16)
    for bit, (a, b, c) in enumerate(_TRIPLES):
        same = (suits[:, a] == suits[:, b]) & (suits[:, b] == suits[:, c])
        mono |= same.astype(np.uint16) << bit
    flush = (mono & 1 == 1) & (suits[:, 3] == suits[:, 0]) & (suits[:, 4] == suits[:, 0])
    return Features(codes, bits, klass, mono, flush)


def _build_walk() -> Features:
    codes = _colex_subsets(52 + HAND_SIZE - 1, HAND_SIZE)
    codes -= np.arange(HAND_SIZE, dtype=np.uint8)
    n = len(codes)
    walk = Features(codes, np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.int16),
                    np.empty(n, dtype=np.uint16), np.empty(n, dtype=np.bool_))
    for start in range(0, n, CHUNK):
        part = _features(codes[start:start + CHUNK])
        walk.bits[start:start + CHUNK] = part.bits
        walk.klass[start:start + CHUNK] = part.klass
        walk.mono[start:start + CHUNK] = part.mono
        walk.flush[start:start + CHUNK] = part.flush
    return walk


_WALK = CACHE.constant("card-multiset walk", _build_walk)


def walk() -> Features:
    """Every multiset of 5 card codes (3,819,816), in colex order.

    Built once per process on first use (about 0.5 s; 69 MB: codes 19, card bits 31,
    class 8, monochrome masks 8, flush flags 4), in chunks so that temporaries stay small.
    """
    return _WALK()


def walk_ready() -> bool:
    """Whether the multiset walk is already built (callers budgeting time ask)."""
    return _WALK.ready


def suited_flags(table: Table, klass: npt.NDArray[np.intp], mono: npt.NDArray[np.uint16],
                 flush: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Whether the suited bonus applies to each hand (RULES.md section 7, ``suited_bonus``;
    never to the poker shapes, 4.1), for hands of the table's entries ``klass``
    (:func:`walk_chunks` with the table gives them).

    With ``ox``: some equally strong ox of the hand is monochrome (:func:`slot_masks`); with
    ``hand``: a flush.
    """
    bonus = table.rules.suited_bonus
    if bonus == "hand":
        return flush & _bonus_entries(table)[klass]
    if bonus == "ox":
        suited: npt.NDArray[np.bool_] = (mono & slot_masks(table)[klass]) != 0
        return suited
    return np.zeros(len(klass), dtype=np.bool_)


_MASKS: BoundedCache[Rules, npt.NDArray[np.uint16]] = CACHE.section("suited-bonus ox masks", 32)


def slot_masks(table: Table) -> npt.NDArray[np.uint16]:
    """Per table entry, the monochrome-mask bits of its equally strong ox triples (cached;
    none where the suited bonus cannot apply)."""
    return _MASKS.get_or_build(table.rules, lambda: np.array(
        [sum({_TRIPLE_BIT[s.ox] for s in e.slots}) if e.bonus else 0 for e in table.every], dtype=np.uint16))


def _bonus_entries(table: Table) -> npt.NDArray[np.bool_]:
    """Per table entry, whether the suited bonus may apply to its category."""
    return np.array([e.bonus for e in table.every], dtype=np.bool_)


def multiset_weights(codes: npt.NDArray[np.uint8], left: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """How many physical hands each multiset row is, given cards left per code.

    ``prod_i (left[c_i] - r_i) / prod_i (r_i + 1)`` where ``r_i`` counts the equal codes
    before position ``i``: ``C(left[c], m)`` per distinct code ``c`` taken ``m`` times
    (at most ``32**5``: int32 is enough).

    >>> multiset_weights(np.array([[0, 0, 1, 2, 3], [0, 1, 2, 3, 4]], dtype=np.uint8),
    ...                  np.array([2] * 52, dtype=np.int32)).tolist()
    [8, 32]
    """
    weight = left[codes[:, 0]]
    run = np.zeros(len(codes), dtype=np.int32)
    denominator = np.ones(len(codes), dtype=np.int32)
    for i in range(1, HAND_SIZE):
        same = codes[:, i] == codes[:, i - 1]
        run = np.where(same, run + 1, 0)
        weight = weight * np.maximum(left[codes[:, i]] - run, 0)
        denominator *= run + 1
    return weight // denominator


@dataclass(frozen=True)
class Chunk:
    """Live rows of one chunk of the walk: their indexes (= high-card order), weights
    (``None``: one each), classes, monochrome masks, flush flags and card codes."""

    rows: npt.NDArray[np.intp]
    weights: npt.NDArray[np.int32] | None
    klass: npt.NDArray[np.intp]
    mono: npt.NDArray[np.uint16]
    flush: npt.NDArray[np.bool_]
    codes: npt.NDArray[np.uint8]


def walk_chunks(left: Sequence[int], table: Table | None = None) -> Iterator[Chunk]:
    """The multiset walk in chunks, keeping only rows that can be drawn from ``left``.

    :param left: cards left per code (52 counts).
    :param table: when given, each row's ``klass`` is its entry in the table: its class, or
        under rules that tell one-suit hands apart, ``class + N_CLASSES`` for a flush.
    """
    rows = walk()
    available = np.asarray(left, dtype=np.int32)
    one_deck = max(left) <= 1
    mask = np.uint64(sum(1 << c for c in range(52) if not left[c]) | (1 << 63))
    zero = np.uint64(0)
    for start in range(0, len(rows.klass), CHUNK):
        end = start + CHUNK
        weights: npt.NDArray[np.int32] | None = None
        if one_deck:  # live: no card gone, none repeated
            live = np.flatnonzero((rows.bits[start:end] & mask) == zero)
        else:
            weights = multiset_weights(rows.codes[start:end], available)
            live = np.flatnonzero(weights)
            weights = weights[live]
        klass = rows.klass[start:end][live].astype(np.intp)
        flush = rows.flush[start:end][live]
        if table is not None and table.suited:
            klass += N_CLASSES * flush
        yield Chunk(live + start, weights, klass, rows.mono[start:end][live], flush, rows.codes[start:end][live])


def class_tally(chunk: Chunk, where: npt.NDArray[np.bool_], n: int) -> IntArray:
    """Hands per class among the chunk's rows where ``where`` holds (exact: sums < 2**53).

    :param n: how many classes (the length of the answer).
    """
    if chunk.weights is None:
        return np.bincount(chunk.klass[where], minlength=n)
    return np.bincount(chunk.klass[where], weights=chunk.weights[where], minlength=n).astype(np.int64)
