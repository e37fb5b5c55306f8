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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

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
    "Entry",
    "Table",
    "class_key",
    "evaluate",
    "evaluate_many",
    "evaluator",
    "table_for",
]

_SUIT_CYCLE = (0, 1, 2, 3)  # D C H S: representative suits for non-ace ranks
_ACE_OF_SPADES = 3
_KEYS_PER_SPADE_COUNT = 13**5


@dataclass(frozen=True)
class FormationSlot:
    """One way of splitting a class's sorted hand into ox and power cards.

    :param ox: positions (0..4) of the three ox cards in the hand sorted by code.
    :param ox_points: the points each ox card takes.
    :param power: positions of the two power cards.
    :param power_points: the points each power card takes.
    :param nenku: the power cards are a Nenku.
    """

    ox: tuple[int, int, int]
    ox_points: tuple[int, int, int]
    power: tuple[int, int]
    power_points: tuple[int, int]
    nenku: bool


@dataclass(frozen=True)
class Entry:
    """The result shared by every hand of one class.

    :param category: API name of the category.
    :param label: display label.
    :param score: the score (see :func:`~service.engine.evaluate.score_of`).
    :param payout: the stake multiplier before any suited bonus.
    :param slots: the equally strong formations, preferred first; empty for No Ox, Five
        Small and Bomb.
    """

    category: str
    label: str
    score: int
    payout: int
    slots: tuple[FormationSlot, ...]


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
                FormationSlot(c.ox, c.ox_points, c.power, c.power_points, c.nenku)  # type: ignore[arg-type]
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
        self.scores = np.array([e.score for e in entries], dtype=np.int16)
        self.categories = np.array([CATEGORIES.index(e.category) for e in entries], dtype=np.int8)
        self.payouts = np.array([e.payout for e in entries], dtype=np.int64)

    def lookup(self, codes: Sequence[int]) -> Entry:
        """The entry of five card codes (any order)."""
        return self.entries[INDEX[class_key(codes)]]


_TABLES: dict[Rules, Table] = {}
_MAX_TABLES = 64
#: Below this many hands, rules without a table are evaluated with the reference
#: evaluator (about 50 µs a hand) rather than by building a table (about 0.4 s).
BUILD_THRESHOLD = 5_000


def table_for(rules: Rules) -> Table:
    """The table for ``rules``, built on first use and kept (the 64 newest rule sets)."""
    table = _TABLES.get(rules)
    if table is None:
        table = Table(rules)
        while len(_TABLES) >= _MAX_TABLES:
            _TABLES.pop(next(iter(_TABLES)))
        _TABLES[rules] = table
    return table


def evaluator(rules: Rules, hands: int = 1) -> Callable[[Sequence[Card]], Evaluation]:
    """The fastest way to evaluate ``hands`` hands under ``rules``.

    The table when it exists or ``hands`` is large enough to pay for building it, else
    the reference evaluator; both give identical results.

    :param rules: the rules.
    :param hands: how many hands are about to be evaluated.
    :return: a function from five cards to their :class:`Evaluation`.

    >>> from service.engine.rules import PROFILES, apply_overrides
    >>> evaluator(PROFILES["standard"].rules).func.__name__
    'evaluate'
    >>> evaluator(apply_overrides(Rules(), {"ties": "push", "bomb": True})).func.__name__
    'evaluate_reference'
    """
    if rules in _TABLES or hands >= BUILD_THRESHOLD:
        table_for(rules)
        return partial(evaluate, rules=rules)
    return partial(evaluate_reference, rules=rules)


def choose_slot(entry: Entry, sorted_codes: Sequence[int], rules: Rules) -> tuple[FormationSlot | None, bool]:
    """Pick the reported formation of a hand and whether the suited bonus applies.

    :param entry: the hand's entry.
    :param sorted_codes: the hand's five codes sorted ascending.
    :param rules: the rules (only ``suited_bonus`` is read).
    :return: ``(slot or None, suited)``.
    """
    slot = entry.slots[0] if entry.slots else None
    bonus = rules.suited_bonus
    if bonus == "none":
        return slot, False
    if bonus == "hand":
        suit = sorted_codes[0] & 3
        return slot, all(c & 3 == suit for c in sorted_codes)
    for candidate in entry.slots:
        a, b, c = candidate.ox
        if sorted_codes[a] & 3 == sorted_codes[b] & 3 == sorted_codes[c] & 3:
            return candidate, True
    return slot, False


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
    codes = [c.code for c in hand]
    order = sorted(range(5), key=codes.__getitem__)
    sorted_codes = [codes[i] for i in order]
    entry = table_for(rules).lookup(sorted_codes)
    slot, suited = choose_slot(entry, sorted_codes, rules)
    ox = power = None
    if slot is not None:
        ox = _formation(hand, order, slot.ox, slot.ox_points)
        power = _formation(hand, order, slot.power, slot.power_points)
    return Evaluation(
        hand=tuple(hand),
        category=entry.category,
        label=entry.label,
        score=entry.score,
        payout=entry.payout * rules.suited_multiplier if suited else entry.payout,
        ox=ox,
        power=power,
        nenku=slot.nenku if slot is not None else False,
        suited=suited,
    )


def _formation(
    hand: Sequence[Card], order: Sequence[int], positions: Sequence[int], points: Sequence[int]
) -> Formation:
    pairs = sorted((order[p], pt) for p, pt in zip(positions, points, strict=True))
    return Formation(tuple(hand[i] for i, _ in pairs), tuple(pt for _, pt in pairs))


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
    >>> CATEGORIES[cats[0]]
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
