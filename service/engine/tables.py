"""Precomputed evaluation tables: the fast path (RULES.md sections 3-4).

A hand's result depends only on its ranks, on how many of its aces are the ace of spades,
and on suits where a profile uses them (the suited bonus; high-card ties only matter when
comparing). So each :class:`Table` holds one :class:`Entry` per **class**::

    class key = r0 + 13*r1 + 13**2*r2 + 13**3*r3 + 13**4*r4 + 13**5*s
        r0 <= r1 <= ... <= r4   the ranks sorted (0 = ace ... 12 = king)
        s                       how many of the cards are the ace of spades (0..5)

There are 6,188 rank multisets (five of a kind included, for several decks) and 8,568
classes in all. An entry is computed once, with the reference evaluator on a
representative hand, and keeps every equally strong formation as positions into the hand
sorted by card code, so the suited preference is applied per hand at look-up time.

Per hand, :func:`resolve_many` finds the entry from a sum of per-card weights
(:data:`RANK_WEIGHT`, no sorting), picks the formation (:func:`choose_slot`, only when a
suited bonus is on) and maps it back to the positions the cards were given in through a
precomputed :data:`Placement` per sort order: no candidate search, no objects beyond the
result. :func:`evaluate` (``Evaluation`` objects) and the batch serializer
(:func:`service.serialize.evaluation_dicts`, response data) both build on it.
:func:`evaluate_many` scores whole numpy arrays of hands at once.

:func:`evaluate` gives exactly what :func:`~service.engine.evaluate.evaluate_reference`
gives (the tests check every one of the 2,598,960 one-deck hands), much faster.

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import PROFILES
>>> evaluate(parse_hand("10S 7H 3D KC 7D".split()), PROFILES["standard"].rules).label
'Single-Ox 0'
>>> len(table_for(PROFILES["standard"].rules).entries)
8568
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations, combinations_with_replacement, permutations

import numpy as np
import numpy.typing as npt

from service.engine.cache import BoundedCache
from service.engine.cards import CARDS, Card
from service.engine.evaluate import (
    Evaluation,
    Formation,
    best_candidates,
    evaluate_reference,
    label_of,
    score_of,
)
from service.engine.rules import CATEGORIES, Rules

__all__ = [
    "RANK_WEIGHT",
    "Entry",
    "Table",
    "cached_rules",
    "class_key",
    "evaluate",
    "evaluate_many",
    "evaluator",
    "has_table",
    "pin_table",
    "table_for",
]

_SUIT_CYCLE = (0, 1, 2, 3)  # D C H S: representative suits for non-ace ranks
_ACE_OF_SPADES = 3
_KEYS_PER_SPADE_COUNT = 13**5


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
_PLACEMENTS: dict[tuple[int, ...], dict[tuple[int, ...], Placement]] = {
    ox: _placements(ox) for ox in combinations(range(5), 3)
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
    """

    ox: tuple[int, int, int]
    ox_points: tuple[int, int, int]
    power: tuple[int, int]
    power_points: tuple[int, int]
    nenku: bool
    placements: dict[tuple[int, ...], Placement] = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "placements", _PLACEMENTS[self.ox])


@dataclass(frozen=True)
class Entry:
    """The result shared by every hand of one class.

    :param category: API name of the category.
    :param label: display label.
    :param score: the score (see :func:`~service.engine.evaluate.score_of`).
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


def class_key(codes: Sequence[int]) -> int:
    """The class key of five card codes (any order); see the module docstring.

    >>> class_key([3, 51, 0, 4, 8]) == 0 + 13 * 0 + 13**2 * 1 + 13**3 * 2 + 13**4 * 12 + 13**5
    True
    """
    r = sorted(c >> 2 for c in codes)
    spades = sum(1 for c in codes if c == _ACE_OF_SPADES)
    return r[0] + 13 * r[1] + 169 * r[2] + 2197 * r[3] + 28561 * r[4] + _KEYS_PER_SPADE_COUNT * spades


def _classes() -> list[tuple[int, list[int]]]:
    """Every class key with a representative hand of codes, sorted by code."""
    out: list[tuple[int, list[int]]] = []
    for ranks in combinations_with_replacement(range(13), 5):
        aces = ranks.count(0)
        for spades in range(aces + 1):
            codes: list[int] = []
            for i, rank in enumerate(ranks):
                # aces: the non-spade ones first (D, C, H), then the aces of spades
                ace_suit = _ACE_OF_SPADES if i >= aces - spades else i % 3
                suit = ace_suit if rank == 0 else _SUIT_CYCLE[i % 4]
                codes.append(rank * 4 + suit)
            codes.sort()
            out.append((class_key(codes), codes))
    return out


#: Every (class key, representative codes) pair, in a fixed order shared by all tables.
CLASSES: list[tuple[int, list[int]]] = _classes()
#: Class key to entry index; the same for every table.
INDEX: dict[int, int] = {key: i for i, (key, _) in enumerate(CLASSES)}


def _dense_index() -> npt.NDArray[np.int16]:
    dense = np.full(_KEYS_PER_SPADE_COUNT * 6, -1, dtype=np.int16)
    for key, i in INDEX.items():
        dense[key] = i
    return dense


_DENSE: npt.NDArray[np.int16] | None = None

#: Per card code, a weight whose sum over a hand identifies its class without sorting:
#: 3 bits per rank counting its cards (at most 5), then the count of aces of spades.
RANK_WEIGHT: tuple[int, ...] = tuple((1 << 3 * (c >> 2)) + ((1 << 39) if c == _ACE_OF_SPADES else 0)
                                     for c in range(52))


class Table:
    """Every class's :class:`Entry` under one set of rules.

    Build with :func:`table_for` (cached per rules). Building evaluates one representative
    hand per class with the reference evaluator (about 8,600 of them).

    :ivar rules: the rules the table was built for.
    :ivar entries: one entry per class, indexed like :data:`CLASSES`.
    :ivar scores: numpy ``int16`` array of the entries' scores.
    :ivar categories: numpy ``int8`` array of the entries' category (index into
        :data:`~service.engine.rules.CATEGORIES`).
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        entries: list[Entry] = []
        for _, codes in CLASSES:
            cards = [CARDS[c] for c in codes]
            best = best_candidates(cards, rules)
            top = best[0]
            slots = tuple(
                _intern(FormationSlot(c.ox, c.ox_points, c.power, c.power_points, c.nenku))  # type: ignore[arg-type]
                for c in best
                if c.ox
            )
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


#: Interned formation slots: equal slots of every table are one object. There are a few
#: thousand possible slots in all, so this stays small whatever rules come and go.
_SLOTS: dict[FormationSlot, FormationSlot] = {}


def _intern(slot: FormationSlot) -> FormationSlot:
    return _SLOTS.setdefault(slot, slot)


#: Profiles' tables are pinned; tables for custom rules (about 2.7 MB each) are built on
#: first use and the 8 most recently used are kept.
_TABLES: BoundedCache[Rules, Table] = BoundedCache(8)
#: How many hands have been asked for under rules that have no table yet (1,024 rules kept).
_HANDS_SEEN: BoundedCache[Rules, int] = BoundedCache(1024)
#: Rules without a table are evaluated with the reference evaluator (about 50 µs a hand)
#: until this many of their hands have been asked for in all; then their table (built in
#: about 0.5 s) pays for itself. Rules that keep changing never build one.
BUILD_THRESHOLD = 20_000


def pin_table(rules: Rules) -> Table:
    """Build the table for ``rules`` and keep it for the life of the process (profiles)."""
    rules = rules.without_commission  # commission never changes an evaluation
    return _TABLES.pin(rules, _TABLES.pop(rules) or _TABLES.get(rules) or Table(rules))


def has_table(rules: Rules) -> bool:
    """Whether the table for ``rules`` is built (pinned or cached)."""
    return rules.without_commission in _TABLES


def cached_rules() -> list[Rules]:
    """The rules that have a table now: the pinned profiles', then the cached ones."""
    return _TABLES.keys()


def table_for(rules: Rules) -> Table:
    """The table for ``rules``: pinned, or built on first use and kept among the 8 most
    recently used."""
    rules = rules.without_commission
    return _TABLES.get_or_build(rules, lambda: Table(rules))


def use_table(rules: Rules, hands: int = 1) -> Table | None:
    """The table to evaluate ``hands`` hands with, or ``None`` for the reference evaluator.

    The table when it exists, or once :data:`BUILD_THRESHOLD` hands under these rules
    have been asked for; both ways give identical results.

    >>> from service.engine.rules import apply_overrides
    >>> pin_table(Rules()) is use_table(Rules())
    True
    >>> use_table(apply_overrides(Rules(), {"ties": "push", "bomb": True})) is None
    True
    """
    rules = rules.without_commission
    table = _TABLES.get(rules)
    if table is not None:
        return table
    seen = (_HANDS_SEEN.pop(rules) or 0) + hands
    if seen >= BUILD_THRESHOLD:
        return table_for(rules)
    _HANDS_SEEN.put(rules, seen)
    return None


def evaluator(rules: Rules, hands: int = 1) -> Callable[[Sequence[Card]], Evaluation]:
    """The fastest way to evaluate ``hands`` hands under ``rules`` (see :func:`use_table`).

    :param rules: the rules.
    :param hands: how many hands are about to be evaluated.
    :return: a function from five cards to their :class:`Evaluation`.

    >>> from service.engine.rules import PROFILES, apply_overrides
    >>> evaluator(PROFILES["standard"].rules).func.__name__
    'evaluate'
    >>> evaluator(apply_overrides(Rules(), {"ties": "push", "bomb": True})).func.__name__
    'evaluate_reference'
    """
    if use_table(rules, hands) is not None:
        return partial(evaluate, rules=rules)
    return partial(evaluate_reference, rules=rules)


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

    Both :func:`evaluate` and the batch serializer build on it.

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


def evaluate(hand: Sequence[Card], rules: Rules) -> Evaluation:
    """Evaluate five cards from the precomputed table (RULES.md sections 3-4, 7).

    Same contract and same result as
    :func:`~service.engine.evaluate.evaluate_reference`, in a few microseconds.

    :param hand: five cards, in input order.
    :param rules: the rules to evaluate under.
    :return: the evaluation.

    >>> from service.engine.cards import parse_hand
    >>> from service.engine.rules import PROFILES
    >>> e = evaluate(parse_hand("3S 6H 8D 4C 8H".split()), PROFILES["standard"].rules)
    >>> e.label, [str(c) for c in e.power.cards], e.payout
    ('Double-Ox 8', ['8D', '8H'], 2)
    """
    [(entry, slot, projection, suited, payout)] = resolve_many([[c.code for c in hand]], table_for(rules))
    ox = power = None
    if slot is not None and projection is not None:
        ox_at, ox_points, power_at, power_points = projection
        ox = Formation(tuple(hand[i] for i in ox_at), tuple(ox_points))
        power = Formation(tuple(hand[i] for i in power_at), tuple(power_points))
    return Evaluation(
        hand=tuple(hand),
        category=entry.category,
        label=entry.label,
        score=entry.score,
        payout=payout,
        ox=ox,
        power=power,
        nenku=slot is not None and slot.nenku,
        suited=suited,
    )


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
    global _DENSE
    if _DENSE is None:
        _DENSE = _dense_index()
    table = table_for(rules)
    arr = np.asarray(codes)
    ranks = np.sort(arr >> 2, axis=1).astype(np.int64)
    spades = (arr == _ACE_OF_SPADES).sum(axis=1)
    keys = ranks[:, 0] + 13 * ranks[:, 1] + 169 * ranks[:, 2] + 2197 * ranks[:, 3] + 28561 * ranks[:, 4]
    keys += _KEYS_PER_SPADE_COUNT * spades
    idx = _DENSE[keys]
    return table.scores[idx], table.categories[idx]
