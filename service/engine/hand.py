"""What evaluating one hand gives: the :class:`Evaluation` and its :class:`Formation` of ox
and power cards, and how a result's strength, score and label follow from the category's
declaration (RULES.md sections 2-5, 4.2).

Both evaluators give these: the literal one (:mod:`service.engine.reference`) and the
table-driven one (:mod:`service.engine.tables`, through :func:`service.engine.tables.evaluate`).

>>> from service.engine.rules import Rules
>>> sub = strength_sub(Category.DOUBLE_OX, Rank.EIGHT, Rules())
>>> sub, score_of(Rules(), Category.DOUBLE_OX, sub), strength_token(Category.DOUBLE_OX, Rank.EIGHT)
(8, 308, '8')
"""

from __future__ import annotations

from dataclasses import dataclass

from service.engine.cards import Card, Rank
from service.engine.categories import SPECS, Category, label_key, label_text, ranks_named
from service.engine.rules import Rules

__all__ = ["Evaluation", "Formation", "Strength", "labelled", "score_of", "strength_sub", "strength_token", "strengths"]

#: What a result's strength is read from: a Single-Ox's points (0..9), a rank (a pair, a
#: quad, a run's top card, the three of a full house), or ``None`` (no strength).
Strength = int | Rank | None


@dataclass(frozen=True)
class Formation:
    """Cards of a hand and the ox points each took (RULES.md sections 2-3).

    :param cards: the cards, in the order they appear in the hand.
    :param points: the ox points each card counted for, same order (a 3 or 6 shows the
        value chosen for it).
    :param positions: where each card is in the hand as given (0..4, ascending), so that
        nothing needs to find the cards again by matching them.
    """

    cards: tuple[Card, ...]
    points: tuple[int, ...]
    positions: tuple[int, ...]


@dataclass(frozen=True)
class Evaluation:
    """The strongest result of one hand under one set of rules.

    :param hand: the five cards, in input order.
    :param category: the API name of the category, e.g. ``'double_ox'``.
    :param label: the English display name, e.g. ``'Double-Ox 8'``, ``'Single-Ox 0'``.
    :param score: higher is stronger under these rules, equal means equally strong.
    :param payout: the integer stake multiplier this hand collects when it wins
        (suited bonus included).
    :param ox: the three ox cards, or ``None`` for a category that needs no ox.
    :param power: the two power cards, ``None`` exactly when ``ox`` is.
    :param nenku: the power cards are a Nenku (an ace and a duke, RULES.md section 4).
    :param suited: the suited bonus applies (RULES.md section 7, ``suited_bonus``).
    :param label_key: the stable key of the label (RULES.md 4.2), e.g. ``'double_ox_8'``.
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
    label_key: str = ""

    @property
    def codes(self) -> tuple[int, ...]:
        """The hand's card codes, in input order."""
        return tuple(c.code for c in self.hand)


def _pair_order(rank: Rank, rules: Rules) -> int:
    """Strength of a Double-Ox pair: rank order, the ace on top with ``ace_high``."""
    if rank is Rank.ACE and rules.double_ox_order == "ace_high":
        return 14
    return rank.order


def strength_sub(category: Category, strength: Strength, rules: Rules) -> int:
    """The within-category strength ``sub`` of a score (RULES.md section 5), by the
    category's :data:`~service.engine.categories.StrengthKind`: a Single-Ox's points (10 for
    Single-Ox 0, the strongest), a Double-Ox pair's rank order (A = 1 .. K = 13, A = 14
    under ``ace_high``), a quad's rank order, else 0.

    >>> strength_sub(Category.SINGLE_OX, 0, Rules()), strength_sub(Category.BOMB, Rank.KING, Rules())
    (10, 13)
    """
    kind = SPECS[category].strength
    if kind == "ox_points":
        return int(strength or 10) if not isinstance(strength, Rank) else 0
    if not isinstance(strength, Rank):
        return 0
    if kind == "pair_rank":
        return _pair_order(strength, rules)
    if kind == "run_top":  # A-2-3-4-5 tops at the 5; 10-J-Q-K-A at the ace, above K
        return 14 if strength is Rank.ACE else strength.order
    if kind == "quad_rank" and rules.bomb_order == "high_card":
        return 0  # one score for every Bomb: the high card orders them (RULES.md 7)
    if category is Category.FULL_HOUSE and rules.full_house_order == "high_card":
        return 0  # one score for every Full House: the top card orders them (RULES.md 7)
    return strength.order


def strength_token(category: Category, strength: Strength) -> str | None:
    """The label key's variable part of a strength: a Single-Ox's digit, a rank as cards
    write it, or ``None`` for a category without one.

    >>> strength_token(Category.SINGLE_OX, 0), strength_token(Category.BOMB, Rank.TEN), strength_token(Category.NO_OX, None)
    ('0', '10', None)
    """
    if SPECS[category].strength == "none" or strength is None:
        return None
    return strength.value if isinstance(strength, Rank) else str(strength)


def strengths(category: Category, rules: Rules) -> tuple[Strength, ...]:
    """Every strength a category's hands can have under ``rules``: Single-Ox points 0..9,
    the ranks its labels name (a run's top card: 5 to K, and A with ``straight_ace_high``),
    or ``(None,)`` for a category without one.

    >>> len(strengths(Category.SINGLE_OX, Rules())), len(strengths(Category.DOUBLE_OX, Rules()))
    (10, 13)
    >>> len(strengths(Category.STRAIGHT, Rules())), strengths(Category.NO_OX, Rules())
    (9, (None,))
    """
    kind = SPECS[category].strength
    if kind == "none":
        return (None,)
    if kind == "ox_points":
        return tuple(range(10))
    named = ranks_named(category)
    return named if kind != "run_top" or rules.straight_ace_high else tuple(r for r in named if r is not Rank.ACE)


def score_of(rules: Rules, category: Category, sub: int) -> int:
    """The score of a category and its within-category strength ``sub`` (RULES.md 4.2):
    the category's base (:attr:`~service.engine.rules.Rules.score_bases`, 100 per place in
    the ranking) plus ``sub``.

    >>> score_of(Rules(), Category.SINGLE_OX, 10), score_of(Rules(), Category.FIVE_DUKES, 0)
    (210, 800)
    """
    return rules.score_bases[category] + sub


def labelled(category: Category, strength: Strength) -> tuple[str, str]:
    """The label key and English label of a result.

    >>> labelled(Category.DOUBLE_OX, Rank.TEN)
    ('double_ox_10', 'Double-Ox 10')
    """
    key = label_key(category, strength_token(category, strength))
    return key, label_text(key)

