"""Evaluation tables and the one resolver of a hand's result (RULES.md sections 3-5, 7).

**Tables.** A :class:`Table` holds one :class:`Entry` per hand class
(:mod:`service.engine.classes`: sorted ranks and the number of aces of spades). An entry is
computed with the reference evaluator (:func:`~service.engine.reference.best_candidates`)
on the class's representative hand, and keeps every equally strong formation as positions
into the hand sorted by card code, so the suited preference is applied per hand. Entries are
filled on first use, class by class (about 60 µs each), so a few hands under never-seen
rules cost only their classes; :meth:`Table.complete` fills the rest (about 0.5 s) for the
analyses and large batches, and adds the numpy arrays they read.

**The resolver.** :func:`resolve` turns hands of card codes into a :class:`Resolution`:
each hand's class (from a sum of per-card weights, or with numpy for a whole batch), its
sort order, the formation reported (:func:`choose_slot`, only under a suited bonus) and the
payout. Every operation resolves hands here and nowhere else: the JSON writer
(:mod:`service.serialize`) walks :meth:`Resolution.rows`, rankings and settlements compare
:meth:`Resolution.results`, and :func:`evaluate` builds an
``Evaluation`` from a result.

Tables live in the engine's cache (:data:`~service.engine.cache.CACHE`, section
``tables``): the profiles' pinned, the 8 most recently used others kept.

>>> from service.engine.rules import PROFILES
>>> table = table_for(PROFILES["standard"].rules)
>>> resolve([[11, 22, 28, 13, 30]], table).results()[0].entry.label   # 3S 6H 8D 4C 8H
'Double-Ox 8'

**Evaluating** hands goes through the one resolver too (RULES.md sections 3-4 and 7).

:func:`evaluate` and :func:`evaluate_codes` give ``Evaluation`` objects; :func:`resolved`
gives the resolver's :class:`Resolution` for callers that write or
compare many hands without objects per card. All give exactly what the reference evaluator
(:func:`~service.engine.reference.evaluate_reference`) gives (the tests check every one of
the 2,598,960 one-deck hands); the result types are in :mod:`service.engine.hand`.

Scoring never builds a whole table for rules it has not seen: a hand's class entry is
computed when a hand first needs it (:meth:`Table.entry`), so a
request under one-off rules costs its hands' classes, not all 8,568.

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import PROFILES
>>> evaluate(parse_hand("10S 7H 3D KC 7D".split()), PROFILES["standard"].rules).label
'Single-Ox 0'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations, permutations
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from service.engine.cache import CACHE, BoundedCache
from service.engine.cards import CARDS, HAND_SIZE, SORT_KEY, STAND_IN, SUITLESS_BASE, Card
from service.engine.categories import CATEGORIES, LABELS, LANGUAGES, SPECS, Category
from service.engine.classes import (
    CLASS_OF_WEIGHT,
    CLASSES,
    FLUSH_CLASSES,
    N_CLASSES,
    RANK_WEIGHT,
    ByCode,
    class_indexes,
    one_suit,
    sort_hands,
)
from service.engine.hand import Evaluation, Formation, labelled, score_of, strength_sub, strength_token
from service.engine.reference import SHAPES, Candidate, best_candidates
from service.engine.rules import Rules

__all__ = [
    "ORDERS",
    "PLACEMENTS",
    "Entry",
    "FormationSlot",
    "HandResult",
    "Placement",
    "Resolution",
    "Table",
    "built_table",
    "choose_slot",
    "evaluate",
    "evaluate_codes",
    "evaluate_many",
    "has_table",
    "pin_table",
    "resolve",
    "resolved",
    "scoring_table",
    "table_for",
]

#: Where a formation's cards sit in the hand as given: ``(ox positions, ox point
#: indexes, power positions, power point indexes)``. Positions are input positions in
#: ascending order; ``ox_points[ox point indexes[k]]`` is the points of the k-th.
Placement = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]

#: The 120 orders of a hand's positions: ``order[k]`` is the input position of the k-th card
#: sorted by code. A hand's order is named by its index here.
ORDERS: tuple[tuple[int, ...], ...] = tuple(permutations(range(HAND_SIZE)))
_ORDER_INDEX: dict[tuple[int, ...], int] = {order: i for i, order in enumerate(ORDERS)}
_POSITIONS = range(HAND_SIZE)


def _placements(ox: tuple[int, ...]) -> tuple[Placement, ...]:
    """The :data:`Placement` of ox positions ``ox`` (in the sorted hand) for every order of
    :data:`ORDERS`."""
    power = tuple(p for p in range(HAND_SIZE) if p not in ox)
    out: list[Placement] = []
    for order in ORDERS:
        ox_pairs = sorted((order[p], k) for k, p in enumerate(ox))
        power_pairs = sorted((order[p], k) for k, p in enumerate(power))
        out.append((tuple(i for i, _ in ox_pairs), tuple(k for _, k in ox_pairs),
                    tuple(i for i, _ in power_pairs), tuple(k for _, k in power_pairs)))
    return tuple(out)


#: :func:`_placements` of each of the ten choices of three ox positions (1,200 in all).
PLACEMENTS: dict[tuple[int, ...], tuple[Placement, ...]] = {ox: _placements(ox) for ox in combinations(range(5), 3)}


@dataclass(frozen=True)
class FormationSlot:
    """One way of splitting a class's sorted hand into ox and power cards.

    :param ox: positions (0..4) of the three ox cards in the hand sorted by code.
    :param ox_points: the points each ox card takes.
    :param power: positions of the two power cards.
    :param power_points: the points each power card takes.
    :param nenku: the power cards are a Nenku.
    :ivar by_order: the :data:`Placement` of this slot's cards per order index of :data:`ORDERS`.
    """

    ox: tuple[int, int, int]
    ox_points: tuple[int, int, int]
    power: tuple[int, int]
    power_points: tuple[int, int]
    nenku: bool
    by_order: tuple[Placement, ...] = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_order", PLACEMENTS[self.ox])


@dataclass(frozen=True)
class Entry:
    """The result shared by every hand of one class.

    :param category: the category.
    :param label_key: the label's stable key (RULES.md 4.2).
    :param label: the English label.
    :param score: the score (see :func:`~service.engine.hand.score_of`).
    :param payout: the stake multiplier before any suited bonus.
    :param slots: the equally strong formations, preferred first; empty for a category
        that needs no ox.
    :ivar first_slot: ``slots[0]``, or ``None`` when there is none (the formation reported
        without a suited bonus).
    :ivar bonus: the suited bonus may apply to the category (never to the poker shapes).
    :ivar labels: the label in every language, in the order of
        :data:`~service.engine.categories.LANGUAGES` (``labels[0]`` is ``label``).
    """

    category: Category
    label_key: str
    label: str
    score: int
    payout: int
    slots: tuple[FormationSlot, ...]
    first_slot: FormationSlot | None = field(init=False, compare=False, repr=False)
    bonus: bool = field(init=False, compare=False, repr=False)
    labels: tuple[str, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "first_slot", self.slots[0] if self.slots else None)
        object.__setattr__(self, "bonus", SPECS[self.category].bonus)
        object.__setattr__(self, "labels", tuple(LABELS[self.label_key][lang] for lang in LANGUAGES))


#: Interned formation slots (each pinned to itself): equal slots of every table are one
#: object. There are a few thousand possible slots in all, so this stays small whatever
#: rules come and go.
_SLOTS: BoundedCache[FormationSlot, FormationSlot] = CACHE.section("formation slots", 1)


def _entry(rules: Rules, codes: Sequence[int]) -> Entry:
    """The entry of a class from its representative hand (the reference evaluator's best)."""
    best = best_candidates([CARDS[c] for c in codes], rules)
    top = best[0]
    key, label = labelled(top.category, top.strength)
    return Entry(top.category, key, label, score_of(rules, top.category, top.sub),
                 rules.payout(top.category, strength_token(top.category, top.strength)),
                 tuple(_interned_slot(c) for c in best if c.ox))


def _one_suit_entry(rules: Rules, plain: Entry, codes: Sequence[int]) -> Entry:
    """The entry of a class's one-suit hands (representative ``codes``): its other hands'
    entry ``plain``, unless a category that depends on suits (RULES.md 4.1: a flush) makes
    them stronger. Whatever else the hand can be does not depend on suits (the
    representatives keep the ace of spades where the class has one), and two categories
    never score alike, so this is the reference evaluator's best for ``codes``."""
    cards = [CARDS[c] for c in codes]
    best = plain
    for category, spec in SPECS.items():
        if spec.suits and rules.enabled(category):
            for strength in SHAPES[category](cards, rules):
                score = score_of(rules, category, strength_sub(category, strength, rules))
                if score > best.score:
                    key, label = labelled(category, strength)
                    best = Entry(category, key, label, score, rules.payout(category, strength_token(category, strength)),
                                 ())
    return best


def _interned_slot(candidate: Candidate) -> FormationSlot:
    c = candidate
    slot = FormationSlot(c.ox, c.ox_points, c.power, c.power_points, c.nenku)  # type: ignore[arg-type]
    return _SLOTS.pin(slot, slot)


class Table:
    """Every class's :class:`Entry` under one set of rules, filled on first use.

    Build with :func:`table_for` (cached per rules). Each entry evaluates one representative
    hand with the reference evaluator (about 60 µs); :meth:`complete` fills all 8,568 of
    them (about 0.5 s) and the numpy arrays. Under rules with a category that depends on
    suits (``suited``) the table holds twice as many: entry ``k + N_CLASSES`` is for the
    hands of class ``k`` whose five cards share one suit
    (:data:`~service.engine.classes.FLUSH_CLASSES`).

    :ivar rules: the rules the table is for.
    :ivar suited: whether one-suit hands have entries of their own.
    :ivar entries: one entry per class, indexed like :data:`~service.engine.classes.CLASSES`
        (then the one-suit ones; ``None`` where not filled yet; use :meth:`entry`).
    :ivar scores: after :meth:`complete`, numpy ``int16`` scores per class; likewise
        ``categories`` (``int8`` indexes into :data:`~service.engine.categories.CATEGORIES`)
        and ``payouts`` (``int64``).
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.suited = rules.suit_categories
        self.entries: list[Entry | None] = [None] * (N_CLASSES * (2 if self.suited else 1))
        self.filled = 0
        self.scores: npt.NDArray[np.int16] = np.zeros(0, dtype=np.int16)
        self.categories: npt.NDArray[np.int8] = np.zeros(0, dtype=np.int8)
        self.payouts: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)

    @property
    def is_complete(self) -> bool:
        """Whether every entry is filled (and the numpy arrays built)."""
        return len(self.scores) == len(self.entries)

    def entry(self, k: int) -> Entry:
        """The entry of class ``k`` (``k + N_CLASSES``: its one-suit hands), computed now when
        missing."""
        found = self.entries[k]
        if found is None:
            if k < N_CLASSES:
                found = _entry(self.rules, CLASSES[k][1])
            else:
                codes, plain = FLUSH_CLASSES[k - N_CLASSES], self.entry(k - N_CLASSES)
                found = plain if codes is None else _one_suit_entry(self.rules, plain, codes)
            self.entries[k] = found
            self.filled += 1
        return found

    def fill(self, classes: Iterable[int]) -> int:
        """Compute the missing entries among ``classes``; returns how many were missing."""
        entries = self.entries
        missing = {k for k in classes if entries[k] is None}
        for k in missing:
            self.entry(k)
        return len(missing)

    def missing(self, classes: Iterable[int]) -> int:
        """How many of ``classes`` (with repeats) have no entry yet: what filling them costs."""
        entries = self.entries
        return len({k for k in classes if entries[k] is None})

    def complete(self) -> Table:
        """Fill every entry and build the numpy arrays; returns the table."""
        if not self.is_complete:
            self.fill(range(len(self.entries)))
            done = [self.entry(k) for k in range(len(self.entries))]
            self.payouts = np.array([e.payout for e in done], dtype=np.int64)
            self.categories = np.array([CATEGORIES.index(e.category) for e in done], dtype=np.int8)
            self.scores = np.array([e.score for e in done], dtype=np.int16)
        return self

    @cached_property
    def push_scores(self) -> frozenset[int]:
        """The scores of the categories two hands of which push whatever the tie rule
        (RULES.md section 6: Five Dukes); empty when none is on."""
        return frozenset(e.score for e in self.every if e.category in self.rules.pushing)

    @cached_property
    def pushes(self) -> npt.NDArray[np.bool_]:
        """Per class, whether two hands of it (and of its score) push: numpy ``bool``."""
        return np.array([e.category in self.rules.pushing for e in self.every], dtype=np.bool_)

    @property
    def every(self) -> list[Entry]:
        """Every entry, the table completed first (the analyses read them all)."""
        self.complete()
        return self.entries  # type: ignore[return-value]  # complete: no None left



#: Profiles' tables are pinned; tables for custom rules (up to about 2.7 MB each when
#: complete) are made on first use and the 8 most recently used are kept.
_TABLES: BoundedCache[Rules, Table] = CACHE.section("tables", 8)


def pin_table(rules: Rules) -> Table:
    """The complete table for ``rules``, kept for the life of the process (profiles)."""
    rules = rules.without_commission  # commission never changes an evaluation
    return _TABLES.pin(rules, _TABLES.pop(rules) or _TABLES.get(rules) or Table(rules)).complete()


def has_table(rules: Rules) -> bool:
    """Whether a complete table for ``rules`` is at hand (pinned or cached)."""
    found = _TABLES.get(rules.without_commission)
    return found is not None and found.is_complete


def built_table(rules: Rules) -> Table | None:
    """The table for ``rules`` if it is kept (pinned or cached, complete or not), else ``None``."""
    return _TABLES.get(rules.without_commission)


def table_for(rules: Rules, complete: bool = True) -> Table:
    """The table for ``rules``: pinned, or made on first use and kept among the 8 most
    recently used; complete (every entry and the numpy arrays) unless ``complete`` is
    false, when its entries are filled as hands need them."""
    rules = rules.without_commission
    table = _TABLES.get_or_build(rules, lambda: Table(rules))
    return table.complete() if complete else table


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
    slot = entry.first_slot
    bonus = rules.suited_bonus
    if bonus == "none" or not entry.bonus:
        return slot, False
    if bonus == "hand":
        suit = codes[0] & 3
        return slot, all(c & 3 == suit for c in codes)
    for candidate in entry.slots:
        a, b, c = candidate.ox
        if codes[order[a]] & 3 == codes[order[b]] & 3 == codes[order[c]] & 3:
            return candidate, True
    return slot, False


class HandResult(NamedTuple):
    """One hand's result, as :func:`resolve` gives it.

    :param codes: the five card codes in input order.
    :param entry: its class's entry.
    :param slot: the formation reported (``None`` for a category that needs no ox).
    :param order: the index in :data:`ORDERS` of the hand's sort order.
    :param suited: the suited bonus applies.
    :param payout: the stake multiplier it collects when it wins, suited bonus included.
    """

    codes: Sequence[int]
    entry: Entry
    slot: FormationSlot | None
    order: int
    suited: bool
    payout: int

    @property
    def score(self) -> int:
        """The hand's score."""
        return self.entry.score

    @property
    def category(self) -> str:
        """The hand's category."""
        return self.entry.category

    def evaluation(self) -> Evaluation:
        """The hand's :class:`~service.engine.hand.Evaluation` (objects for every card and
        formation: for callers that show a hand card by card)."""
        hand = tuple(CARDS[c] for c in self.codes)
        slot, entry = self.slot, self.entry
        ox = power = None
        if slot is not None:
            ox_at, ox_k, power_at, power_k = slot.by_order[self.order]
            ox = Formation(tuple(hand[i] for i in ox_at), tuple(slot.ox_points[k] for k in ox_k), ox_at)
            power = Formation(tuple(hand[i] for i in power_at), tuple(slot.power_points[k] for k in power_k),
                              power_at)
        return Evaluation(hand, entry.category.value, entry.label, entry.score, self.payout, ox, power,
                          slot is not None and slot.nenku, self.suited, entry.label_key)


#: From this many hands on, :func:`resolve` finds classes and orders with numpy.
_VECTOR_FROM = 48
_ORDER_DIGITS = np.array([HAND_SIZE**k for k in range(HAND_SIZE)])


def _order_lookup() -> npt.NDArray[np.intp]:
    """The index in :data:`ORDERS` of an order written as a base-5 number."""
    index = np.zeros(HAND_SIZE**HAND_SIZE, dtype=np.intp)
    for i, order in enumerate(ORDERS):
        index[int(np.dot(order, _ORDER_DIGITS))] = i
    return index


_ORDER_BY_DIGITS = _order_lookup()
#: :data:`~service.engine.cards.STAND_IN` as an array: each code's suited stand-in.
_STAND_IN = np.array(STAND_IN, dtype=np.uint8)
#: :data:`~service.engine.cards.SORT_KEY` as an array.
_SORT_KEY = np.array(SORT_KEY, dtype=np.uint8)


@dataclass(frozen=True)
class Resolution:
    """Hands resolved against a table: parallel per hand, in input order.

    :param table: the table (its rules decide the suited bonus).
    :param hands: the hands' card codes.
    :param classes: each hand's class index.
    :param orders: each hand's index in :data:`ORDERS`.
    :param class_array: the same class indexes as a numpy array, when they were found with
        numpy (else made when asked for).
    """

    table: Table
    hands: Sequence[Sequence[int]]
    classes: Sequence[int]
    orders: Sequence[int]
    class_array: npt.NDArray[np.intp] | None = None

    def _classes(self) -> npt.NDArray[np.intp]:
        return np.asarray(self.classes, dtype=np.intp) if self.class_array is None else self.class_array

    def __len__(self) -> int:
        return len(self.classes)

    def rows(self) -> Iterator[tuple[Sequence[int], Entry, FormationSlot | None, int, bool, int]]:
        """Per hand: ``(codes, entry, slot, order, suited, payout)`` (:class:`HandResult`'s
        fields, without making one)."""
        entries = self.table.entries
        rules = self.table.rules
        if rules.suited_bonus == "none":
            for codes, k, o in zip(self.hands, self.classes, self.orders, strict=True):
                entry = entries[k] or self.table.entry(k)
                yield codes, entry, entry.first_slot, o, False, entry.payout
            return
        multiplier = rules.suited_multiplier
        for codes, k, o in zip(self.hands, self.classes, self.orders, strict=True):
            entry = entries[k] or self.table.entry(k)
            slot, suited = choose_slot(entry, codes, ORDERS[o], rules)
            yield codes, entry, slot, o, suited, entry.payout * multiplier if suited else entry.payout

    def scores(self) -> npt.NDArray[np.int64]:
        """Every hand's score, ``(n,)``."""
        table = self.table
        if table.is_complete:
            out: npt.NDArray[np.int64] = table.scores[self._classes()].astype(np.int64)
            return out
        return np.array([table.entry(k).score for k in self.classes], dtype=np.int64)

    def by_high_card(self) -> npt.NDArray[np.bool_] | None:
        """Per hand, whether its category is ordered by the high card among equally strong
        hands (:attr:`~service.engine.rules.Rules.high_card_categories`); ``None`` when none is."""
        high = self.table.rules.high_card_categories
        if not high:
            return None
        entry = self.table.entry
        return np.array([entry(k).category in high for k in self.classes], dtype=np.bool_)

    def by_top_card(self) -> npt.NDArray[np.bool_] | None:
        """Per hand, whether its category is ordered by its highest card alone
        (:attr:`~service.engine.rules.Rules.top_card_categories`); ``None`` when none is."""
        top = self.table.rules.top_card_categories
        if not top:
            return None
        entry = self.table.entry
        return np.array([entry(k).category in top for k in self.classes], dtype=np.bool_)

    def results(self) -> list[HandResult]:
        """Every hand's :class:`HandResult`."""
        return [HandResult(*row) for row in self.rows()]

    def categories(self) -> dict[str, int]:
        """How many hands fall in each category (only categories with hands)."""
        table = self.table
        if table.is_complete:
            counts = np.bincount(table.categories[self._classes()], minlength=len(CATEGORIES)).tolist()
            return {c.value: n for c, n in zip(CATEGORIES, counts, strict=True) if n}
        found: dict[str, int] = {}
        for k in self.classes:
            name = table.entry(k).category.value
            found[name] = found.get(name, 0) + 1
        return found


def resolve(hands: Sequence[Sequence[int]], table: Table, *, by_code: ByCode | None = None,
            array: npt.NDArray[Any] | None = None) -> Resolution:
    """Resolve hands of card codes against a table: the one place a hand's result is found
    (RULES.md sections 3-5, 7). Missing entries of the table are filled on the way.

    :param hands: hands of five valid card codes each, in input order; a rank-only card
        (RULES.md 1.1) is evaluated as its suited stand-in
        (:data:`~service.engine.cards.STAND_IN`: the rules accepted it, so none reads
        suits) and stays itself in the resolution, which answers echo.
    :param table: the table of the rules to evaluate under.
    :param by_code: the hands' codes sorted per row and their input positions
        (:func:`~service.engine.classes.sort_hands`), when the caller has them (a batch
        read in one pass): classes and orders are then found with numpy.
    :param array: the hands' codes as an ``(n, 5)`` array in input order, likewise.
    :return: the resolution.
    :raises KeyError: or ``IndexError``, ``ValueError``: a hand is not five card codes
        (callers validate first).

    >>> from service.engine.rules import Rules
    >>> [r] = resolve([[11, 22, 28, 13, 30]], table_for(Rules())).results()   # 3S 6H 8D 4C 8H
    >>> r.entry.label, r.slot.by_order[r.order], r.suited, r.payout
    ('Double-Ox 8', ((0, 1, 3), (0, 2, 1), (2, 4), (0, 1)), False, 2)
    """
    n = len(hands)
    if n >= _VECTOR_FROM or by_code is not None:
        codes = np.asarray(hands if array is None else array, dtype=np.uint8).reshape(n, HAND_SIZE)
        if n and int(codes.max()) >= SUITLESS_BASE:  # rank-only cards: their stand-ins evaluate
            keys, ordered = sort_hands(_SORT_KEY[codes])
            codes, by_code = _STAND_IN[codes], ((keys >> 1).astype(np.uint8), ordered)
        rows, ordered = sort_hands(codes) if by_code is None else by_code
        found = class_indexes(rows, presorted=True).astype(np.intp)
        if table.suited:
            found += N_CLASSES * one_suit(codes)
        return Resolution(table, hands, found.tolist(), _ORDER_BY_DIGITS[ordered @ _ORDER_DIGITS].tolist(), found)
    weight, of_weight, order_of, positions = RANK_WEIGHT, CLASS_OF_WEIGHT, _ORDER_INDEX, _POSITIONS
    suited = table.suited
    classes: list[int] = []
    orders: list[int] = []
    for h in hands:
        key = h.__getitem__
        if max(h) >= SUITLESS_BASE:  # rank-only cards (RULES.md 1.1): their stand-ins evaluate
            key = [SORT_KEY[x] for x in h].__getitem__
            h = [STAND_IN[x] for x in h]
        a, b, c, d, e = h
        k = of_weight[weight[a] + weight[b] + weight[c] + weight[d] + weight[e]]
        if suited and a & 3 == b & 3 == c & 3 == d & 3 == e & 3:
            k += N_CLASSES
        classes.append(k)
        orders.append(order_of[tuple(sorted(positions, key=key))])
    return Resolution(table, hands, classes, orders)


def evaluate_many(codes: npt.NDArray[np.integer[Any]], rules: Rules) -> tuple[npt.NDArray[np.int16],
                                                                              npt.NDArray[np.int8]]:
    """Scores and categories of many hands at once, vectorised with numpy.

    For analysis and benchmarks: no formations, no suited bonus (which never changes a
    score); a one-suit hand takes its own entry where the rules have one. Cards must
    already be valid codes.

    :param codes: integer array of shape ``(n, 5)``, card codes 0..51.
    :param rules: the rules.
    :return: ``(scores, categories)``: ``int16`` scores and ``int8`` indexes into
        :data:`~service.engine.categories.CATEGORIES`, each of shape ``(n,)``.

    >>> import numpy as np
    >>> from service.engine.rules import PROFILES
    >>> scores, cats = evaluate_many(np.array([[0, 4, 8, 12, 13]]), PROFILES["standard"].rules)
    >>> str(CATEGORIES[cats[0]])
    'five_small'
    """
    table = table_for(rules)
    idx = class_indexes(codes).astype(np.intp)
    if table.suited:
        idx += N_CLASSES * one_suit(codes)
    return table.scores[idx], table.categories[idx]


def scoring_table(rules: Rules) -> Table:
    """The table scoring uses for ``rules``: complete for a profile (built before the
    workers fork), else filled class by class as hands need it."""
    return table_for(rules, complete=False)


def resolved(hands: Sequence[Sequence[int]], rules: Rules, *, by_code: ByCode | None = None,
             array: npt.NDArray[Any] | None = None) -> Resolution:
    """The resolver's answer for hands of card codes under ``rules`` (RULES.md 3-5, 7).

    :param hands: hands of five valid card codes each (0..51), in input order.
    :param rules: the rules to evaluate under.
    :param by_code: the hands sorted per row and their input positions
        (:func:`~service.engine.classes.sort_hands`), if at hand.
    :param array: the hands as an ``(n, 5)`` array in input order, if at hand.
    :return: the :class:`~service.engine.tables.Resolution`.

    >>> from service.engine.rules import PROFILES
    >>> [r.entry.label for r in resolved([[39, 26, 8, 49, 24]], PROFILES["standard"].rules).results()]
    ['Single-Ox 0']
    """
    return resolve(hands, scoring_table(rules), by_code=by_code, array=array)


def evaluate(hand: Sequence[Card], rules: Rules) -> Evaluation:
    """Evaluate five cards (RULES.md sections 3-4, 7).

    Same contract and same result as
    :func:`~service.engine.reference.evaluate_reference`, in a few microseconds.

    :param hand: five cards, in input order.
    :param rules: the rules to evaluate under.
    :return: the evaluation.

    >>> from service.engine.cards import parse_hand
    >>> from service.engine.rules import PROFILES
    >>> e = evaluate(parse_hand("3S 6H 8D 4C 8H".split()), PROFILES["standard"].rules)
    >>> e.label, [str(c) for c in e.power.cards], e.payout, e.label_key
    ('Double-Ox 8', ['8D', '8H'], 2, 'double_ox_8')
    """
    [result] = resolved([[c.code for c in hand]], rules).results()
    return result.evaluation()


def evaluate_codes(hands: Sequence[Sequence[int]], rules: Rules) -> list[Evaluation]:
    """Evaluate hands given as card codes (what the card reader gives), RULES.md sections
    3-4, 7.

    :param hands: hands of five valid card codes each (0..51), in input order.
    :param rules: the rules to evaluate under.
    :return: one evaluation per hand, in input order; the cards are the notation table's
        :data:`~service.engine.cards.CARDS`, so nothing is parsed again.

    >>> from service.engine.rules import PROFILES
    >>> [e.label for e in evaluate_codes([[39, 26, 8, 49, 24], [43, 46, 48, 41, 44]], PROFILES["standard"].rules)]
    ['Single-Ox 0', 'Five Dukes']
    """
    return [r.evaluation() for r in resolved(hands, rules).results()]
