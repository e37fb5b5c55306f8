"""What evaluating one hand gives: the :class:`Evaluation` and its :class:`Formation` of ox
and power cards, with the score and label of a result (RULES.md sections 2-5).

Both evaluators give these: the literal one (:mod:`service.engine.reference`) and the
table-driven one (:mod:`service.engine.tables`, through :func:`service.engine.evaluate.evaluate`).

>>> from service.engine.rules import Rules
>>> score_of(Rules(), "double_ox", 8), label_of("double_ox", None, Rank.EIGHT)
(308, 'Double-Ox 8')
"""

from __future__ import annotations

from dataclasses import dataclass

from service.engine.cards import Card, Rank
from service.engine.rules import Rules

__all__ = ["Evaluation", "Formation", "label_of", "score_of"]

_LABEL_BASE = {
    "no_ox": "No Ox",
    "ngau_tonku": "Ngau Tonku",
    "five_small": "Five Small",
    "five_dukes": "Five Dukes",
    "four_dukes": "Four Dukes",
}


@dataclass(frozen=True)
class Formation:
    """Cards of a hand and the ox points each took (RULES.md sections 2-3).

    :param cards: the cards, in the order they appear in the hand.
    :param points: the ox points each card counted for, same order (a 3 or 6 shows the
        value chosen for it).
    """

    cards: tuple[Card, ...]
    points: tuple[int, ...]


@dataclass(frozen=True)
class Evaluation:
    """The strongest result of one hand under one set of rules.

    :param hand: the five cards, in input order.
    :param category: the API name of the category, e.g. ``'double_ox'``.
    :param label: the display name, e.g. ``'Double-Ox 8'``, ``'Single-Ox 0'``, ``'Bomb J'``.
    :param score: higher is stronger under these rules, equal means equally strong.
    :param payout: the integer stake multiplier this hand collects when it wins
        (suited bonus included).
    :param ox: the three ox cards, or ``None`` for No Ox, Five Small and Bomb.
    :param power: the two power cards, ``None`` exactly when ``ox`` is.
    :param nenku: the power cards are a Nenku (an ace and a duke, RULES.md section 4).
    :param suited: the suited bonus applies (RULES.md section 7, ``suited_bonus``).
    """

    hand: tuple[Card, ...]
    category: str
    label: str
    score: int
    payout: int
    ox: Formation | None
    power: Formation | None
    nenku: bool
    suited: bool


def score_of(rules: Rules, category: str, sub: int) -> int:
    """The score of a category and its within-category strength ``sub``.

    ``score = (8 - position in ranking) * 100 + sub``, where ``sub`` is the Single-Ox
    strength (1..9, 10 for Single-Ox 0), the pair's rank order for Double-Ox (A=1 .. K=13,
    A=14 with ``ace_high``), the quad's rank order for Bomb (A=1 .. K=13), else 0.

    >>> score_of(Rules(), "single_ox", 10), score_of(Rules(), "five_dukes", 0)
    (210, 800)
    """
    return (len(rules.ranking) - rules.rank_of(category)) * 100 + sub


def label_of(category: str, single_ox_points: int | None, rank: Rank | None) -> str:
    """The display label of a result (the ``label`` field of the API).

    >>> label_of("single_ox", 0, None), label_of("double_ox", None, Rank.TEN)
    ('Single-Ox 0', 'Double-Ox 10')
    """
    if category == "single_ox":
        return f"Single-Ox {single_ox_points}"
    if category == "double_ox":
        return f"Double-Ox {rank.value if rank else '?'}"
    if category == "bomb":
        return f"Bomb {rank.value if rank else '?'}"
    return _LABEL_BASE[category]
