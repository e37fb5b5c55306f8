"""Evaluations as JSON-ready data (the ``Evaluation`` schema of openapi.yaml).

One function, :func:`_evaluation`, writes the shape; everything else feeds it:
:func:`evaluation_dict` from an :class:`~service.engine.evaluate.Evaluation` (single
answers, rankings, settlements, via the response schemas' fields), and
:func:`evaluation_dicts` straight from card codes for the batch path, which skips the
:class:`~service.engine.evaluate.Evaluation` objects (about 10 µs a hand) and resolves
hands with :func:`service.engine.tables.resolve_many` (about 1 µs a hand). Both give
equal data for the same hand.

>>> from service.engine.cards import parse_hand
>>> from service.engine.evaluate import evaluate_reference
>>> from service.engine.rules import Rules
>>> hand = parse_hand("3S 6H 8D 4C 8H".split())
>>> evaluation_dicts([[c.code for c in hand]], Rules()) == [evaluation_dict(evaluate_reference(hand, Rules()))]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.engine.cards import CARDS
from service.engine.evaluate import Evaluation, evaluate_reference
from service.engine.rules import Rules
from service.engine.tables import resolve_many, use_table

__all__ = ["evaluation_dict", "evaluation_dicts"]

#: Canonical text of each card code.
_TEXT: tuple[str, ...] = tuple(c.text for c in CARDS)


def _evaluation(hand: list[str], category: str, label: str, score: int, payout: int,
                ox: list[str] | None, ox_points: list[int], power: list[str] | None,
                power_points: list[int], nenku: bool, suited: bool) -> dict[str, Any]:
    """The ``Evaluation`` object: the one place its members are named and ordered. The
    lists become part of the result (callers pass fresh ones)."""
    return {
        "hand": hand,
        "category": category,
        "label": label,
        "score": score,
        "payout": payout,
        "ox": None if ox is None else {"cards": ox, "points": ox_points},
        "power": None if power is None else {"cards": power, "points": power_points},
        "nenku": nenku,
        "suited": suited,
    }


def evaluation_dict(e: Evaluation) -> dict[str, Any]:
    """The ``Evaluation`` schema of openapi.yaml, canonical cards in input order.

    >>> from service.engine.cards import parse_hand
    >>> from service.engine.rules import Rules
    >>> d = evaluation_dict(evaluate_reference(parse_hand("KS QH 2D 5C 9H".split()), Rules()))
    >>> d["hand"], d["label"], d["ox"], d["power"]
    (['KS', 'QH', '2D', '5C', '9H'], 'No Ox', None, None)
    """
    ox, power = e.ox, e.power
    return _evaluation(
        [c.text for c in e.hand], e.category, e.label, e.score, e.payout,
        None if ox is None else [c.text for c in ox.cards], [] if ox is None else list(ox.points),
        None if power is None else [c.text for c in power.cards], [] if power is None else list(power.points),
        e.nenku, e.suited,
    )


def evaluation_dicts(hands: Sequence[Sequence[int]], rules: Rules) -> list[dict[str, Any]]:
    """:func:`evaluation_dict` of every hand, straight from card codes (the batch path).

    Uses the rules' table when :func:`~service.engine.tables.use_table` says so, else the
    reference evaluator; the data is the same either way.

    :param hands: hands of five valid card codes (0..51) each, in input order.
    :param rules: the rules to evaluate under.
    :return: one ``Evaluation`` schema object (a dict) per hand, same order.
    """
    table = use_table(rules, len(hands))
    if table is None:
        return [evaluation_dict(evaluate_reference([CARDS[c] for c in codes], rules)) for codes in hands]
    text = _TEXT
    make = _evaluation
    out: list[dict[str, Any]] = []
    append = out.append
    for (a, b, c, d, e), (entry, slot, projection, suited, payout) in zip(hands, resolve_many(hands, table),
                                                                          strict=True):
        hand = [text[a], text[b], text[c], text[d], text[e]]
        if slot is None or projection is None:
            append(make(hand, entry.category, entry.label, entry.score, payout, None, [], None, [], False, suited))
        else:
            (i, j, k), ox_points, (m, n), power_points = projection
            append(make(hand, entry.category, entry.label, entry.score, payout,
                        [hand[i], hand[j], hand[k]], ox_points, [hand[m], hand[n]], power_points,
                        slot.nenku, suited))
    return out
