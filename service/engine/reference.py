"""The reference evaluator: one hand, the literal way (RULES.md sections 2-4, 7).

:func:`evaluate_reference` tries every choice of three cards as the ox and every 3/6 value
assignment, and keeps the strongest result. It is the reference the precomputed tables
(:mod:`service.engine.tables`) are built from (:func:`best_candidates`, once per class)
and tested against; :func:`service.engine.tables.evaluate` picks between the two.

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import Rules
>>> e = evaluate_reference(parse_hand("3S 6H 8D 4C 8H".split()), Rules())
>>> e.label, [str(c) for c in e.ox.cards], e.ox.points, [str(c) for c in e.power.cards]
('Double-Ox 8', ['3S', '6H', '4C'], (3, 3, 4), ['8D', '8H'])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from service.engine.cards import SORT_KEY, Card, Rank, Suit
from service.engine.categories import SPECS, Category
from service.engine.hand import (
    Evaluation,
    Formation,
    Strength,
    labelled,
    score_of,
    strength_sub,
    strength_token,
)
from service.engine.rules import Rules

__all__ = [
    "SHAPES",
    "WHOLE_HAND",
    "Candidate",
    "best_candidates",
    "evaluate_reference",
    "is_duke",
    "point_choices",
]

_THREE_SIX = (Rank.THREE, Rank.SIX)
_BY_ORDER = {r.order: r for r in Rank}
_FACES = (Rank.JACK, Rank.QUEEN, Rank.KING)
_ACE_OF_SPADES = Card(Rank.ACE, Suit.SPADES)


def is_duke(card: Card, rules: Rules) -> bool:
    """J, Q, K; and 10 with ``tens_are_dukes`` (RULES.md section 2)."""
    return card.rank in _FACES or (rules.tens_are_dukes and card.rank is Rank.TEN)


def point_choices(card: Card, rules: Rules) -> tuple[int, ...]:
    """The ox points a card may take: 3 or 6 for a 3/6 with ``three_six_swap``."""
    if rules.three_six_swap and card.rank in _THREE_SIX:
        return (3, 6)
    return (card.rank.base_points,)


@dataclass(frozen=True)
class Candidate:
    """One way to read a hand: a category, its strength (:data:`~service.engine.hand.Strength`)
    and within-category strength ``sub`` (see :func:`~service.engine.hand.strength_sub`) and,
    for a category that reports a formation, the positions (in the hand sorted by code) and
    points of the ox and power cards.
    """

    category: Category
    sub: int
    ox: tuple[int, ...] = ()
    ox_points: tuple[int, ...] = ()
    power: tuple[int, ...] = ()
    power_points: tuple[int, ...] = ()
    nenku: bool = False
    strength: Strength = None


def _five_dukes(cards: Sequence[Card], rules: Rules) -> bool:
    """All five cards are dukes (RULES.md section 4; they always form an ox)."""
    return all(is_duke(c, rules) for c in cards)


def _four_dukes(cards: Sequence[Card], rules: Rules) -> bool:
    """Four J/Q/K and one 10 (Niu Niu's four flowers, RULES.md section 4)."""
    ranks = [c.rank for c in cards]
    return sum(r in _FACES for r in ranks) == 4 and Rank.TEN in ranks


def _five_small(cards: Sequence[Card], rules: Rules) -> list[Strength]:
    """All five cards at most ``five_small_max_rank`` (A-4, A-5, or any), their points at their
    lowest within ``five_small_max_points`` when set (RULES.md 4, 7)."""
    top = rules.five_small_max_rank
    if top is not None and any(c.rank.order > top for c in cards):
        return []
    limit = rules.five_small_max_points
    return [None] if limit is None or sum(min(point_choices(c, rules)) for c in cards) <= limit else []


def _bomb(cards: Sequence[Card], rules: Rules) -> list[Strength]:
    """Four (or five) cards of one rank: a Bomb of that rank (RULES.md section 4)."""
    ranks = [c.rank for c in cards]
    return [rank for rank in set(ranks) if ranks.count(rank) >= 4]


def _run_top(cards: Sequence[Card], rules: Rules) -> Rank | None:
    """The top card of five consecutive ranks (A-2-3-4-5: the 5; 10-J-Q-K-A with
    ``straight_ace_high``: the ace), or ``None`` (RULES.md 4.1)."""
    orders = sorted({c.rank.order for c in cards})
    if len(orders) != 5:
        return None
    if orders[4] - orders[0] == 4:
        return _BY_ORDER[orders[4]]
    return Rank.ACE if rules.straight_ace_high and orders == [1, 10, 11, 12, 13] else None


def _one_suit(cards: Sequence[Card]) -> bool:
    return len({c.suit for c in cards}) == 1


def _straight(cards: Sequence[Card], rules: Rules) -> list[Strength]:
    """Five consecutive ranks, by the run's top card (RULES.md 4.1)."""
    top = _run_top(cards, rules)
    return [] if top is None else [top]


def _flush(cards: Sequence[Card], rules: Rules) -> list[Strength]:
    """Five cards of one suit (RULES.md 4.1)."""
    return [None] if _one_suit(cards) else []


def _full_house(cards: Sequence[Card], rules: Rules) -> list[Strength]:
    """Three of one rank and two of another, by the three's rank (RULES.md 4.1)."""
    counts = Counter(c.rank for c in cards)
    return [r for r, n in counts.items() if n == 3] if sorted(counts.values()) == [2, 3] else []


def _straight_flush(cards: Sequence[Card], rules: Rules) -> list[Strength]:
    """A straight of one suit (RULES.md 4.1)."""
    return _straight(cards, rules) if _one_suit(cards) else []


def _dragon(cards: Sequence[Card], rules: Rules) -> list[Strength]:
    """Exactly A, 2, 3, 4 and 5 (RULES.md 4.1)."""
    return [None] if sorted(c.rank.order for c in cards) == [1, 2, 3, 4, 5] else []


def _no_ox(cards: Sequence[Card], rules: Rules) -> list[Strength]:
    """Every hand can be read as No Ox."""
    return [None]


#: The categories whose hands need no ox: each detector gives the strengths the hand has
#: in it (empty: not of it). No Ox is every hand's fallback.
SHAPES: dict[Category, Callable[[Sequence[Card], Rules], list[Strength]]] = {
    Category.FIVE_SMALL: _five_small,
    Category.BOMB: _bomb,
    Category.STRAIGHT_FLUSH: _straight_flush,
    Category.DRAGON: _dragon,
    Category.FULL_HOUSE: _full_house,
    Category.FLUSH: _flush,
    Category.STRAIGHT: _straight,
    Category.NO_OX: _no_ox,
}
#: The categories that are conditions on the whole hand but come with an ox formation
#: (their cards always form one): the condition, checked once per hand.
WHOLE_HAND: dict[Category, Callable[[Sequence[Card], Rules], bool]] = {
    Category.FIVE_DUKES: _five_dukes,
    Category.FOUR_DUKES: _four_dukes,
}


def _power_candidates(
    cards: Sequence[Card], ox: tuple[int, ...], ox_points: tuple[int, ...],
    power: tuple[int, int], rules: Rules,
) -> list[Candidate]:
    a, b = cards[power[0]], cards[power[1]]
    found: list[Candidate] = []
    for x, y in ((a, b), (b, a)):
        if x.rank is Rank.ACE and is_duke(y, rules):
            if x == _ACE_OF_SPADES and rules.ngau_tonku:
                pts = (1, 10) if x is a else (10, 1)
                found.append(Candidate(Category.NGAU_TONKU, 0, ox, ox_points, power, pts))
            break
    nenku = any(
        x.rank is Rank.ACE and is_duke(y, rules) and not (x == _ACE_OF_SPADES and rules.ngau_tonku)
        for x, y in ((a, b), (b, a))
    )
    if rules.double_ox:
        if rules.three_six_pair and a.rank in _THREE_SIX and b.rank in _THREE_SIX:
            found.append(Candidate(Category.DOUBLE_OX, strength_sub(Category.DOUBLE_OX, Rank.SIX, rules), ox,
                                   ox_points, power, (6, 6), strength=Rank.SIX))
        elif a.rank is b.rank:
            pts = (a.rank.base_points, b.rank.base_points)
            found.append(Candidate(Category.DOUBLE_OX, strength_sub(Category.DOUBLE_OX, a.rank, rules), ox,
                                   ox_points, power, pts, strength=a.rank))
    for pts in product(point_choices(a, rules), point_choices(b, rules)):
        points = sum(pts) % 10
        found.append(Candidate(Category.SINGLE_OX, points or 10, ox, ox_points, power, pts,
                               nenku=nenku, strength=points))
    return found


def _ox_points(cards: Sequence[Card], ox: tuple[int, ...], rules: Rules) -> tuple[int, ...] | None:
    """The points of three cards that form an ox (RULES.md section 3: ten's multiple, a triple
    with ``triple_ox``, a run of three ranks with ``run_ox``), or ``None``."""
    for pts in product(*(point_choices(cards[i], rules) for i in ox)):
        if sum(pts) % 10 == 0:
            return pts
    if rules.triple_ox and len({cards[i].rank for i in ox}) == 1:
        return tuple(cards[i].rank.base_points for i in ox)
    if rules.run_ox and _is_run([cards[i].rank.order for i in ox]):
        return tuple(cards[i].rank.base_points for i in ox)
    return None


def _is_run(orders: Sequence[int]) -> bool:
    """Three consecutive ranks as printed (``run_ox``, RULES.md 7): A-2-3 up to J-Q-K, and
    Q-K-A; no other wrap (K-A-2 is not a run), and the 3/6 swap never makes one.

    >>> _is_run([3, 5, 4]), _is_run([12, 13, 1]), _is_run([13, 1, 2]), _is_run([4, 4, 5])
    (True, True, False, False)
    """
    low, mid, high = sorted(orders)
    return (mid == low + 1 and high == mid + 1) or (low, mid, high) == (1, 12, 13)


def _candidates(cards: Sequence[Card], rules: Rules) -> list[Candidate]:
    found: list[Candidate] = []
    whole = [category for category, holds in WHOLE_HAND.items() if rules.enabled(category) and holds(cards, rules)]
    for ox in combinations(range(5), 3):
        ox_points = _ox_points(cards, ox, rules)
        if ox_points is None:
            continue
        p, q = (i for i in range(5) if i not in ox)
        power = (p, q)
        for category in whole:
            pts = (cards[p].rank.base_points, cards[q].rank.base_points)
            found.append(Candidate(category, 0, ox, ox_points, power, pts))
        found.extend(_power_candidates(cards, ox, ox_points, power, rules))
    for category, detect in SHAPES.items():
        if rules.enabled(category):
            found.extend(Candidate(category, strength_sub(category, s, rules), strength=s) for s in detect(cards, rules))
    return found


def _is_suited(cards: Sequence[Card], candidate: Candidate, rules: Rules) -> bool:
    if not SPECS[candidate.category].bonus:  # never the poker shapes (RULES.md 4.1)
        return False
    if rules.suited_bonus == "hand":
        return len({c.suit for c in cards}) == 1
    if rules.suited_bonus == "ox" and candidate.ox:
        return len({cards[i].suit for i in candidate.ox}) == 1
    return False


def best_candidates(cards: Sequence[Card], rules: Rules) -> list[Candidate]:
    """Every strongest result of five cards sorted by code, best-preferred first.

    All returned candidates are equally strong; they are ordered Nenku first, then by the
    fixed enumeration order of the sorted cards. Suits play no part here beyond the ace of
    spades and whether all five share one (the categories that depend on suits): the suited
    preference is applied by the caller.
    """
    best: list[Candidate] = []
    best_key: tuple[int, int] | None = None
    for cand in _candidates(cards, rules):
        if not rules.enabled(cand.category):
            continue
        key = (rules.score_bases[cand.category], cand.sub)
        if best_key is None or key > best_key:
            best, best_key = [cand], key
        elif key == best_key:
            best.append(cand)
    best.sort(key=lambda c: not c.nenku)  # stable: keeps enumeration order otherwise
    return best


def evaluate_reference(hand: Sequence[Card], rules: Rules) -> Evaluation:
    """Evaluate five cards the literal way (RULES.md sections 3-4, 7).

    Every choice of three ox cards and every 3/6 value assignment is tried; the strongest
    result under ``rules.ranking`` wins. Among equally strong formations the service
    prefers, in turn: the suited one (when a suited bonus is on), a Nenku, and the first in
    a fixed order of the cards sorted by rank and suit, so the result never depends on the
    order the cards were given in.

    :param hand: five cards (validated by :func:`service.engine.cards.parse_hand`).
    :param rules: the rules to evaluate under.
    :return: the evaluation; its ox and power list cards in input order.

    >>> from service.engine.cards import parse_hand
    >>> r = Rules()
    >>> evaluate_reference(parse_hand("10S 7H 3D KC 7D".split()), r).label
    'Single-Ox 0'
    >>> evaluate_reference(parse_hand("10S 4H 6D AH KH".split()), r).nenku
    True
    >>> evaluate_reference(parse_hand("AS AH 2D 2C 4H".split()), r).ox is None
    True
    """
    order = sorted(range(len(hand)), key=lambda i: SORT_KEY[hand[i].code])  # by code; rank-only cards by rank
    cards = [hand[i] for i in order]
    best = best_candidates(cards, rules)
    chosen = next((c for c in best if _is_suited(cards, c, rules)), best[0])
    suited = _is_suited(cards, chosen, rules)
    key, label = labelled(chosen.category, chosen.strength)
    payout = rules.payout(chosen.category, strength_token(chosen.category, chosen.strength))
    if suited:
        payout *= rules.suited_multiplier
    return Evaluation(
        hand=tuple(hand),
        category=chosen.category.value,
        label=label,
        score=score_of(rules, chosen.category, chosen.sub),
        payout=payout,
        ox=_formation(hand, order, chosen.ox, chosen.ox_points),
        power=_formation(hand, order, chosen.power, chosen.power_points),
        nenku=chosen.nenku,
        suited=suited,
        label_key=key,
    )


def _formation(
    hand: Sequence[Card], order: Sequence[int], positions: tuple[int, ...], points: tuple[int, ...]
) -> Formation | None:
    """Map sorted positions back to input order."""
    if not positions:
        return None
    pairs = sorted((order[p], pt) for p, pt in zip(positions, points, strict=True))
    return Formation(tuple(hand[i] for i, _ in pairs), tuple(pt for _, pt in pairs), tuple(i for i, _ in pairs))
