"""The reference evaluator: one hand, the literal way (RULES.md sections 2-4, 7).

:func:`evaluate_reference` tries every choice of three cards as the ox and every 3/6 value
assignment, and keeps the strongest result. It is the reference the precomputed tables
(:mod:`service.engine.tables`) are built from (:func:`best_candidates`, once per class)
and tested against; :func:`service.engine.evaluate.evaluate` picks between the two.

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import Rules
>>> e = evaluate_reference(parse_hand("3S 6H 8D 4C 8H".split()), Rules())
>>> e.label, [str(c) for c in e.ox.cards], e.ox.points, [str(c) for c in e.power.cards]
('Double-Ox 8', ['3S', '6H', '4C'], (3, 3, 4), ['8D', '8H'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, product

from service.engine.cards import Card, Rank, Suit
from service.engine.hand import Evaluation, Formation, label_of, score_of
from service.engine.rules import Rules

__all__ = [
    "Candidate",
    "best_candidates",
    "evaluate_reference",
    "is_duke",
    "pair_order",
    "point_choices",
]

_THREE_SIX = (Rank.THREE, Rank.SIX)
_SMALL = (Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR)
_FACES = (Rank.JACK, Rank.QUEEN, Rank.KING)


def is_duke(card: Card, rules: Rules) -> bool:
    """J, Q, K; and 10 with ``tens_are_dukes`` (RULES.md section 2)."""
    return card.rank in _FACES or (rules.tens_are_dukes and card.rank is Rank.TEN)


def point_choices(card: Card, rules: Rules) -> tuple[int, ...]:
    """The ox points a card may take: 3 or 6 for a 3/6 with ``three_six_swap``."""
    if rules.three_six_swap and card.rank in _THREE_SIX:
        return (3, 6)
    return (card.rank.base_points,)


def pair_order(rank: Rank, rules: Rules) -> int:
    """Strength of a Double-Ox pair: rank order, the ace on top with ``ace_high``."""
    if rank is Rank.ACE and rules.double_ox_order == "ace_high":
        return 14
    return rank.order


@dataclass(frozen=True)
class Candidate:
    """One way to read a hand: a category, its within-category strength ``sub`` (see
    :func:`~service.engine.hand.score_of`) and, unless No Ox, Five Small or Bomb, the
    positions (in the hand sorted by code) and points of the ox and power cards.
    """

    category: str
    sub: int
    ox: tuple[int, ...] = ()
    ox_points: tuple[int, ...] = ()
    power: tuple[int, ...] = ()
    power_points: tuple[int, ...] = ()
    nenku: bool = False
    single_ox_points: int | None = None
    rank: Rank | None = None


def _power_candidates(
    cards: Sequence[Card], ox: tuple[int, ...], ox_points: tuple[int, ...],
    power: tuple[int, int], rules: Rules,
) -> list[Candidate]:
    a, b = cards[power[0]], cards[power[1]]
    found: list[Candidate] = []
    ace_spades = Card(Rank.ACE, Suit.SPADES)
    for x, y in ((a, b), (b, a)):
        if x.rank is Rank.ACE and is_duke(y, rules):
            if x == ace_spades and rules.ngau_tonku:
                pts = (1, 10) if x is a else (10, 1)
                found.append(Candidate("ngau_tonku", 0, ox, ox_points, power, pts))
            break
    nenku = any(
        x.rank is Rank.ACE and is_duke(y, rules) and not (x == ace_spades and rules.ngau_tonku)
        for x, y in ((a, b), (b, a))
    )
    if rules.double_ox:
        if rules.three_six_pair and a.rank in _THREE_SIX and b.rank in _THREE_SIX:
            found.append(Candidate("double_ox", pair_order(Rank.SIX, rules), ox, ox_points,
                                    power, (6, 6), rank=Rank.SIX))
        elif a.rank is b.rank:
            pts = (a.rank.base_points, b.rank.base_points)
            found.append(Candidate("double_ox", pair_order(a.rank, rules), ox, ox_points,
                                    power, pts, rank=a.rank))
    for pts in product(point_choices(a, rules), point_choices(b, rules)):
        points = sum(pts) % 10
        found.append(Candidate("single_ox", points or 10, ox, ox_points, power, pts,
                                nenku=nenku, single_ox_points=points))
    return found


def _candidates(cards: Sequence[Card], rules: Rules) -> list[Candidate]:
    found: list[Candidate] = []
    ranks = [c.rank for c in cards]
    all_dukes = all(is_duke(c, rules) for c in cards)
    four_flowers = sum(r in _FACES for r in ranks) == 4 and Rank.TEN in ranks
    for ox in combinations(range(5), 3):
        ox_points: tuple[int, ...] | None = None
        for pts in product(*(point_choices(cards[i], rules) for i in ox)):
            if sum(pts) % 10 == 0:
                ox_points = pts
                break
        if ox_points is None and rules.triple_ox and len({ranks[i] for i in ox}) == 1:
            ox_points = tuple(cards[i].rank.base_points for i in ox)
        if ox_points is None:
            continue
        p, q = (i for i in range(5) if i not in ox)
        power = (p, q)
        if rules.five_dukes and all_dukes:
            pts = (cards[p].rank.base_points, cards[q].rank.base_points)
            found.append(Candidate("five_dukes", 0, ox, ox_points, power, pts))
        if rules.four_dukes and four_flowers:
            pts = (cards[p].rank.base_points, cards[q].rank.base_points)
            found.append(Candidate("four_dukes", 0, ox, ox_points, power, pts))
        found.extend(_power_candidates(cards, ox, ox_points, power, rules))
    if rules.five_small and all(r in _SMALL for r in ranks):
        limit = rules.five_small_max_points
        if limit is None or sum(r.base_points for r in ranks) <= limit:
            found.append(Candidate("five_small", 0))
    if rules.bomb:
        for rank in set(ranks):
            if ranks.count(rank) >= 4:
                found.append(Candidate("bomb", rank.order, rank=rank))
    found.append(Candidate("no_ox", 0))
    return found


def _is_suited(cards: Sequence[Card], candidate: Candidate, rules: Rules) -> bool:
    if rules.suited_bonus == "hand":
        return len({c.suit for c in cards}) == 1
    if rules.suited_bonus == "ox" and candidate.ox:
        return len({cards[i].suit for i in candidate.ox}) == 1
    return False


def best_candidates(cards: Sequence[Card], rules: Rules) -> list[Candidate]:
    """Every strongest result of five cards sorted by code, best-preferred first.

    All returned candidates are equally strong; they are ordered Nenku first, then by the
    fixed enumeration order of the sorted cards. Suits play no part here beyond the ace of
    spades: the suited preference is applied by the caller.
    """
    best: list[Candidate] = []
    best_key: tuple[int, int] | None = None
    for cand in _candidates(cards, rules):
        if not rules.enabled(cand.category):
            continue
        key = (-rules.rank_of(cand.category), cand.sub)
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
    order = sorted(range(len(hand)), key=lambda i: hand[i].code)
    cards = [hand[i] for i in order]
    best = best_candidates(cards, rules)
    chosen = next((c for c in best if _is_suited(cards, c, rules)), best[0])
    suited = _is_suited(cards, chosen, rules)
    payout = rules.payout(chosen.category, chosen.single_ox_points)
    if suited:
        payout *= rules.suited_multiplier
    return Evaluation(
        hand=tuple(hand),
        category=chosen.category,
        label=label_of(chosen.category, chosen.single_ox_points, chosen.rank),
        score=score_of(rules, chosen.category, chosen.sub),
        payout=payout,
        ox=_formation(hand, order, chosen.ox, chosen.ox_points),
        power=_formation(hand, order, chosen.power, chosen.power_points),
        nenku=chosen.nenku,
        suited=suited,
    )


def _formation(
    hand: Sequence[Card], order: Sequence[int], positions: tuple[int, ...], points: tuple[int, ...]
) -> Formation | None:
    """Map sorted positions back to input order."""
    if not positions:
        return None
    pairs = sorted((order[p], pt) for p, pt in zip(positions, points, strict=True))
    return Formation(tuple(hand[i] for i, _ in pairs), tuple(pt for _, pt in pairs))
