"""Evaluating hands through the one resolver (:func:`service.engine.tables.resolve`),
RULES.md sections 3-4 and 7.

:func:`evaluate` and :func:`evaluate_codes` give ``Evaluation`` objects; :func:`resolved`
gives the resolver's :class:`~service.engine.tables.Resolution` for callers that write or
compare many hands without objects per card. All give exactly what the reference evaluator
(:func:`~service.engine.reference.evaluate_reference`) gives (the tests check every one of
the 2,598,960 one-deck hands); the result types are in :mod:`service.engine.hand`.

Scoring never builds a whole table for rules it has not seen: a hand's class entry is
computed when a hand first needs it (:meth:`~service.engine.tables.Table.entry`), so a
request under one-off rules costs its hands' classes, not all 8,568.

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import PROFILES
>>> evaluate(parse_hand("10S 7H 3D KC 7D".split()), PROFILES["standard"].rules).label
'Single-Ox 0'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy.typing as npt

from service.engine.cards import Card
from service.engine.classes import ByCode
from service.engine.hand import Evaluation
from service.engine.rules import Rules
from service.engine.tables import Resolution, Table, resolve, table_for

__all__ = ["evaluate", "evaluate_codes", "resolved", "scoring_table"]


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
