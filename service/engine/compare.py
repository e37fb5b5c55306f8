"""Comparing and ranking hands (RULES.md section 5).

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import PROFILES
>>> from service.engine.evaluate import evaluate
>>> nn = PROFILES["niu-niu"].rules
>>> dealer = evaluate(parse_hand("KH QS 10D 4C AC".split()), nn)
>>> player = evaluate(parse_hand("KS QH JD 2C 3C".split()), nn)
>>> dealer.label == player.label == "Single-Ox 5", compare(player, dealer, nn)
(True, 1)
>>> std = PROFILES["standard"].rules
>>> evaluate(player.hand, std).label                   # the 3 counts as 6 in standard
'Single-Ox 8'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.engine.cards import Card
from service.engine.hand import Evaluation
from service.engine.rules import Rules

__all__ = ["RankedHand", "compare", "high_card_key", "rank_hands", "strength_key"]


def high_card_key(hand: Sequence[Card]) -> tuple[int, ...]:
    """The hand's cards from highest to lowest for the ``high_card`` tie rule.

    Card codes order by rank (K high, A low) and then suit (S > H > C > D), so comparing
    these tuples compares the hands card by card; identical cards compare equal.

    >>> from service.engine.cards import parse_hand
    >>> high_card_key(parse_hand("AS 2D KH KS 3C".split()))
    (51, 50, 9, 4, 3)
    """
    return tuple(sorted((c.code for c in hand), reverse=True))


def strength_key(evaluation: Evaluation, rules: Rules) -> tuple[int, tuple[int, ...]]:
    """A sort key: greater is stronger, equal is equal under ``rules`` (section 5)."""
    if rules.ties == "high_card":
        return (evaluation.score, high_card_key(evaluation.hand))
    return (evaluation.score, ())


def compare(a: Evaluation, b: Evaluation, rules: Rules) -> int:
    """Compare two evaluated hands under ``rules`` (RULES.md section 5).

    Hands compare by score (category, then the pair's or quad's rank or the Single-Ox
    strength); with the ``high_card`` tie rule equal scores compare by
    :func:`high_card_key`.

    :return: ``1`` if ``a`` is stronger, ``-1`` if ``b`` is, ``0`` if they are equal.
    """
    ka, kb = strength_key(a, rules), strength_key(b, rules)
    return (ka > kb) - (ka < kb)


@dataclass(frozen=True)
class RankedHand:
    """One hand's place in a ranking.

    :param index: the hand's position in the input list (0-based).
    :param position: competition ranking, 1 for the strongest (1, 2, 2, 4).
    :param evaluation: the hand's evaluation.
    """

    index: int
    position: int
    evaluation: Evaluation


def rank_hands(evaluations: Sequence[Evaluation], rules: Rules) -> list[RankedHand]:
    """Order hands strongest first with competition positions (RULES.md section 5).

    Equal hands share a position and keep their input order; with the ``high_card`` tie
    rule equal scores are ordered by the high card.

    >>> from service.engine.cards import parse_hand
    >>> from service.engine.rules import PROFILES
    >>> from service.engine.evaluate import evaluate
    >>> std = PROFILES["standard"].rules
    >>> hands = ["10S 9H 8D 4C 4H", "JS QH KD JC QD", "10H 9D AD 7C 4S", "10C 9C AC 7D 4D"]
    >>> ranked = rank_hands([evaluate(parse_hand(h.split()), std) for h in hands], std)
    >>> [(r.index, r.position) for r in ranked]
    [(1, 1), (2, 2), (3, 2), (0, 4)]
    """
    keyed = sorted(
        ((strength_key(e, rules), i, e) for i, e in enumerate(evaluations)),
        key=lambda t: (t[0], -t[1]),
        reverse=True,
    )
    out: list[RankedHand] = []
    previous: tuple[int, tuple[int, ...]] | None = None
    position = 0
    for n, (key, i, e) in enumerate(keyed, start=1):
        if key != previous:
            position, previous = n, key
        out.append(RankedHand(i, position, e))
    return out
