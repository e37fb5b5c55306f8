"""Precomputed evaluation tables: the fast path (RULES.md sections 3-4, 7).

Each :class:`Table` holds one :class:`Entry` per hand class (:mod:`service.engine.classes`:
sorted ranks and the number of aces of spades). An entry is computed once, with the
reference evaluator (:func:`~service.engine.reference.best_candidates`) on the class's
representative hand, and keeps every equally strong formation as positions into the hand
sorted by card code, so the suited preference is applied per hand at look-up time.

Per hand, :func:`resolve_many` finds the entry from a sum of per-card weights
(:data:`~service.engine.classes.RANK_WEIGHT`, no sorting), picks the formation
(:func:`choose_slot`, only when a suited bonus is on) and maps it back to the positions the
cards were given in through a precomputed :data:`Placement` per sort order: no candidate
search, no objects beyond the result. :func:`service.engine.evaluate.evaluate`
(``Evaluation`` objects) and the batch serializer (:func:`service.serialize.evaluation_dicts`,
response data) both build on it. :func:`evaluate_many` scores whole numpy arrays of hands
at once.

Tables live in the engine's cache (:data:`~service.engine.cache.CACHE`, section
``tables``): the profiles' pinned, the 8 most recently used others kept. When a table is
worth building for custom rules is :func:`service.engine.evaluate.use_table`'s call.

>>> from service.engine.rules import PROFILES
>>> table = table_for(PROFILES["standard"].rules)
>>> len(table.entries), table.lookup([11, 22, 28, 13, 30]).label   # 3S 6H 8D 4C 8H
(8568, 'Double-Ox 8')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations

import numpy as np
import numpy.typing as npt

from service.engine.cache import CACHE, BoundedCache
from service.engine.cards import CARDS
from service.engine.classes import CLASSES, RANK_WEIGHT, class_indexes
from service.engine.hand import label_of, score_of
from service.engine.reference import Candidate, best_candidates
from service.engine.rules import CATEGORIES, Rules

__all__ = [
    "PLACEMENTS",
    "Entry",
    "FormationSlot",
    "Placement",
    "Projection",
    "Resolved",
    "Table",
    "built_table",
    "cached_rules",
    "choose_slot",
    "evaluate_many",
    "has_table",
    "pin_table",
    "resolve_many",
    "table_for",
]


#: A formation projected onto the hand as given: ``(ox positions, ox points, power
#: positions, power points)``, positions into the input hand (0..4) in ascending order,
#: each point beside its card. The points are fresh lists, ready to be response data.
Projection = tuple[tuple[int, ...], list[int], tuple[int, ...], list[int]]

#: Where a formation's cards sit in the hand as given: ``(ox positions, ox point
#: indexes, power positions, power point indexes)``. Positions are input positions in
#: ascending order; ``ox_points[ox point indexes[k]]`` is the points of the k-th.
Placement = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _placements(ox: tuple[int, ...]) -> dict[tuple[int, ...], Placement]:
    """The :data:`Placement` of ox positions ``ox`` (in the sorted hand) for every sort
    order of a hand (``order[k]`` = input position of the k-th card sorted by code)."""
    power = tuple(p for p in range(5) if p not in ox)
    out: dict[tuple[int, ...], Placement] = {}
    for order in permutations(range(5)):
        ox_pairs = sorted((order[p], k) for k, p in enumerate(ox))
        power_pairs = sorted((order[p], k) for k, p in enumerate(power))
        out[order] = (tuple(i for i, _ in ox_pairs), tuple(k for _, k in ox_pairs),
                      tuple(i for i, _ in power_pairs), tuple(k for _, k in power_pairs))
    return out


#: :func:`_placements` of each of the ten choices of three ox positions (1,200 in all).
PLACEMENTS: dict[tuple[int, ...], dict[tuple[int, ...], Placement]] = {
    ox: _placements(ox) for ox in combinations(range(5), 3)
}
#: The same placements (shared objects), by the order's index in ``permutations(range(5))``.
PLACEMENTS_BY_ORDER: dict[tuple[int, ...], tuple[Placement, ...]] = {
    ox: tuple(by_order[order] for order in permutations(range(5))) for ox, by_order in PLACEMENTS.items()
}


@dataclass(frozen=True)
class FormationSlot:
    """One way of splitting a class's sorted hand into ox and power cards.

    :param ox: positions (0..4) of the three ox cards in the hand sorted by code.
    :param ox_points: the points each ox card takes.
    :param power: positions of the two power cards.
    :param power_points: the points each power card takes.
    :param nenku: the power cards are a Nenku.
    :ivar placements: the :data:`Placement` of this slot's cards per sort order.
    :ivar by_order: the same placements as a tuple, by the order's index in
        ``itertools.permutations(range(5))`` (no hashing of the order).
    """

    ox: tuple[int, int, int]
    ox_points: tuple[int, int, int]
    power: tuple[int, int]
    power_points: tuple[int, int]
    nenku: bool
    placements: dict[tuple[int, ...], Placement] = field(init=False, compare=False, hash=False, repr=False)
    by_order: tuple[Placement, ...] = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "placements", PLACEMENTS[self.ox])
        object.__setattr__(self, "by_order", PLACEMENTS_BY_ORDER[self.ox])


@dataclass(frozen=True)
class Entry:
    """The result shared by every hand of one class.

    :param category: API name of the category.
    :param label: display label.
    :param score: the score (see :func:`~service.engine.hand.score_of`).
    :param payout: the stake multiplier before any suited bonus.
    :param slots: the equally strong formations, preferred first; empty for No Ox, Five
        Small and Bomb.
    :ivar first_slot: ``slots[0]``, or ``None`` when there is none (the formation reported
        without a suited bonus).
    """

    category: str
    label: str
    score: int
    payout: int
    slots: tuple[FormationSlot, ...]
    first_slot: FormationSlot | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "first_slot", self.slots[0] if self.slots else None)


class Table:
    """Every class's :class:`Entry` under one set of rules.

    Build with :func:`table_for` (cached per rules). Building evaluates one representative
    hand per class with the reference evaluator (8,568 of them, about 0.5 s).

    :ivar rules: the rules the table was built for.
    :ivar entries: one entry per class, indexed like :data:`~service.engine.classes.CLASSES`.
    :ivar scores: numpy ``int16`` array of the entries' scores.
    :ivar categories: numpy ``int8`` array of the entries' category (index into
        :data:`~service.engine.rules.CATEGORIES`).
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        entries: list[Entry] = []
        seen: dict[FormationSlot, FormationSlot] = {}  # this build's slots, interned once each
        for _, codes in CLASSES:
            cards = [CARDS[c] for c in codes]
            best = best_candidates(cards, rules)
            top = best[0]
            slots = tuple(_interned_slot(c, seen) for c in best if c.ox)
            entries.append(
                Entry(
                    category=top.category,
                    label=label_of(top.category, top.single_ox_points, top.rank),
                    score=score_of(rules, top.category, top.sub),
                    payout=rules.payout(top.category, top.single_ox_points),
                    slots=slots,
                )
            )
        self.entries: tuple[Entry, ...] = tuple(entries)
        #: The :data:`RANK_WEIGHT` sum of a hand's five codes to its entry (no sorting).
        self.by_weight: dict[int, Entry] = {
            sum(RANK_WEIGHT[c] for c in codes): entry for (_, codes), entry in zip(CLASSES, entries, strict=True)
        }
        self.scores = np.array([e.score for e in entries], dtype=np.int16)
        self.categories = np.array([CATEGORIES.index(e.category) for e in entries], dtype=np.int8)
        self.payouts = np.array([e.payout for e in entries], dtype=np.int64)

    def lookup(self, codes: Sequence[int]) -> Entry:
        """The entry of five card codes (any order).

        >>> table_for(Rules()).lookup([51, 3, 47, 43, 39]).label  # K-Q-J-10 of spades and A♠
        'Ngau Tonku'
        """
        a, b, c, d, e = codes
        w = RANK_WEIGHT
        return self.by_weight[w[a] + w[b] + w[c] + w[d] + w[e]]


#: Interned formation slots (each pinned to itself): equal slots of every table are one
#: object. There are a few thousand possible slots in all, so this stays small whatever
#: rules come and go.
_SLOTS: BoundedCache[FormationSlot, FormationSlot] = CACHE.section("formation slots", 1)
#: Profiles' tables are pinned; tables for custom rules (about 2.7 MB each) are built on
#: first use and the 8 most recently used are kept.
_TABLES: BoundedCache[Rules, Table] = CACHE.section("tables", 8)


def _interned_slot(candidate: Candidate, seen: dict[FormationSlot, FormationSlot]) -> FormationSlot:
    """The formation slot of a candidate with an ox, one object for equal slots of every
    table (``seen``: the slots of the table being built, so each takes the lock once)."""
    c = candidate
    slot = FormationSlot(c.ox, c.ox_points, c.power, c.power_points, c.nenku)  # type: ignore[arg-type]
    found = seen.get(slot)
    if found is None:
        found = seen[slot] = _SLOTS.pin(slot, slot)
    return found


def pin_table(rules: Rules) -> Table:
    """Build the table for ``rules`` and keep it for the life of the process (profiles)."""
    rules = rules.without_commission  # commission never changes an evaluation
    return _TABLES.pin(rules, _TABLES.pop(rules) or _TABLES.get(rules) or Table(rules))


def has_table(rules: Rules) -> bool:
    """Whether the table for ``rules`` is built (pinned or cached)."""
    return rules.without_commission in _TABLES


def built_table(rules: Rules) -> Table | None:
    """The table for ``rules`` if it is built (pinned or cached), else ``None``; never builds."""
    return _TABLES.get(rules.without_commission)


def cached_rules() -> list[Rules]:
    """The rules that have a table now: the pinned profiles', then the cached ones."""
    return _TABLES.keys()


def table_for(rules: Rules) -> Table:
    """The table for ``rules``: pinned, or built on first use and kept among the 8 most
    recently used."""
    rules = rules.without_commission
    return _TABLES.get_or_build(rules, lambda: Table(rules))


def choose_slot(entry: Entry, codes: Sequence[int], order: Sequence[int],
                rules: Rules) -> tuple[FormationSlot | None, bool]:
    """Pick the reported formation of a hand and whether the suited bonus applies.

    The first of the entry's equally strong slots, or with ``suited_bonus: ox`` the first
    whose ox cards share a suit (RULES.md section 7).

    :param entry: the hand's entry.
    :param codes: the hand's five codes in input order.
    :param order: input positions sorted by code (``codes[order[k]]`` ascending).
    :param rules: the rules (only ``suited_bonus`` is read).
    :return: ``(slot or None, suited)``.
    """
    slots = entry.slots
    slot = entry.first_slot
    bonus = rules.suited_bonus
    if bonus == "none":
        return slot, False
    if bonus == "hand":
        suit = codes[0] & 3
        return slot, all(c & 3 == suit for c in codes)
    for candidate in slots:
        a, b, c = candidate.ox
        if codes[order[a]] & 3 == codes[order[b]] & 3 == codes[order[c]] & 3:
            return candidate, True
    return slot, False


#: What :func:`resolve_many` gives per hand: ``(entry, slot, projection, suited,
#: payout)``: the chosen formation (``None`` for No Ox, Five Small and Bomb) and its
#: :data:`Projection` onto the input hand, whether the suited bonus applies, and the
#: payout with that bonus.
Resolved = tuple[Entry, FormationSlot | None, Projection | None, bool, int]

_POSITIONS = range(5)


def resolve_many(hands: Iterable[Sequence[int]], table: Table) -> list[Resolved]:
    """Resolve hands of card codes against a table: the one place a table result is
    turned into a hand's result (RULES.md sections 3-4, 7).

    Both :func:`service.engine.evaluate.evaluate` and the batch serializer build on it.

    :param hands: hands of five valid card codes each, in input order.
    :param table: the table of the rules to evaluate under.
    :return: one :data:`Resolved` per hand.
    :raises KeyError: or ``IndexError``, ``ValueError``: a hand is not five card codes
        (callers validate first).

    >>> # 3S 6H 8D 4C 8H
    >>> [(entry, slot, projection, suited, payout)] = resolve_many([[11, 22, 28, 13, 30]], table_for(Rules()))
    >>> entry.label, projection, suited, payout
    ('Double-Ox 8', ((0, 1, 3), [3, 3, 4], (2, 4), [8, 8]), False, 2)
    """
    rules = table.rules
    by_weight = table.by_weight
    weight = RANK_WEIGHT
    multiplier = rules.suited_multiplier
    no_bonus = rules.suited_bonus == "none"
    positions = _POSITIONS
    out: list[Resolved] = []
    append = out.append
    for codes in hands:
        a, b, c, d, e = codes
        entry = by_weight[weight[a] + weight[b] + weight[c] + weight[d] + weight[e]]
        order = tuple(sorted(positions, key=codes.__getitem__))
        if no_bonus:  # what choose_slot answers, without the call
            slot, suited = entry.first_slot, False
        else:
            slot, suited = choose_slot(entry, codes, order, rules)
        if slot is None:
            projection = None
        else:
            ox_at, (f, g, h), power_at, (m, n) = slot.placements[order]
            points = slot.ox_points
            power_points = slot.power_points
            projection = (ox_at, [points[f], points[g], points[h]], power_at, [power_points[m], power_points[n]])
        append((entry, slot, projection, suited, entry.payout * multiplier if suited else entry.payout))
    return out


def evaluate_many(codes: npt.NDArray[np.integer], rules: Rules) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int8]]:
    """Scores and categories of many hands at once, vectorised with numpy.

    For analysis and benchmarks: no formations, no suited bonus (which never changes a
    score). Cards must already be valid codes.

    :param codes: integer array of shape ``(n, 5)``, card codes 0..51.
    :param rules: the rules.
    :return: ``(scores, categories)``: ``int16`` scores and ``int8`` indexes into
        :data:`~service.engine.rules.CATEGORIES`, each of shape ``(n,)``.

    >>> import numpy as np
    >>> from service.engine.rules import PROFILES
    >>> scores, cats = evaluate_many(np.array([[0, 4, 8, 12, 13]]), PROFILES["standard"].rules)
    >>> str(CATEGORIES[cats[0]])
    'five_small'
    """
    table = table_for(rules)
    idx = class_indexes(codes)
    return table.scores[idx], table.categories[idx]
