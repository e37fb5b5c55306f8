"""Evaluating hands: :func:`evaluate` (the table-driven fast path), and :func:`evaluator`
and :func:`use_table` (the fastest way for rules that may have no table yet: when a table
is worth building), RULES.md sections 3-4 and 7.

Both give exactly what the reference evaluator
(:func:`~service.engine.reference.evaluate_reference`) gives (the tests check every one of
the 2,598,960 one-deck hands); the result types are in :mod:`service.engine.hand`.

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import PROFILES
>>> evaluate(parse_hand("10S 7H 3D KC 7D".split()), PROFILES["standard"].rules).label
'Single-Ox 0'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from service.engine.cache import CACHE, BoundedCache
from service.engine.cards import Card
from service.engine.hand import Evaluation, Formation
from service.engine.reference import evaluate_reference
from service.engine.rules import Rules
from service.engine.tables import Table, built_table, resolve_many, table_for

__all__ = ["BUILD_THRESHOLD", "evaluate", "evaluator", "use_table"]

#: How many hands have been asked for under rules that have no table yet (1,024 rules kept).
_HANDS_SEEN: BoundedCache[Rules, int] = CACHE.section("hands seen without a table", 1024)
#: Rules without a table are evaluated with the reference evaluator (about 50 µs a hand)
#: until this many of their hands have been asked for in all; then their table (built in
#: about 0.5 s) pays for itself. Rules that keep changing never build one.
BUILD_THRESHOLD = 20_000


def evaluate(hand: Sequence[Card], rules: Rules) -> Evaluation:
    """Evaluate five cards from the precomputed table (RULES.md sections 3-4, 7).

    Same contract and same result as
    :func:`~service.engine.reference.evaluate_reference`, in a few microseconds (the
    rules' table is built on first use, about 0.5 s).

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


def evaluator(rules: Rules, hands: int = 1) -> Callable[[Sequence[Card]], Evaluation]:
    """The fastest way to evaluate ``hands`` hands under ``rules``: the table when
    :func:`use_table` gives one, else the reference evaluator.

    :param rules: the rules.
    :param hands: how many hands are about to be evaluated.
    :return: a function from five cards to their :class:`~service.engine.hand.Evaluation`.

    >>> from service.engine.rules import PROFILES, apply_overrides
    >>> evaluator(PROFILES["standard"].rules).func.__name__
    'evaluate'
    >>> evaluator(apply_overrides(Rules(), {"ties": "push", "bomb": True})).func.__name__
    'evaluate_reference'
    """
    if use_table(rules, hands) is not None:
        return partial(evaluate, rules=rules)
    return partial(evaluate_reference, rules=rules)


def use_table(rules: Rules, hands: int = 1) -> Table | None:
    """The table to evaluate ``hands`` hands with, or ``None`` for the reference evaluator.

    The table when it exists, or once :data:`BUILD_THRESHOLD` hands under these rules
    have been asked for; both ways give identical results.

    >>> from service.engine.rules import apply_overrides
    >>> from service.engine.tables import pin_table
    >>> pin_table(Rules()) is use_table(Rules())
    True
    >>> use_table(apply_overrides(Rules(), {"ties": "push", "bomb": True})) is None
    True
    """
    table = built_table(rules)
    if table is not None:
        return table
    rules = rules.without_commission
    seen = (_HANDS_SEEN.pop(rules) or 0) + hands
    if seen >= BUILD_THRESHOLD:
        return table_for(rules)
    _HANDS_SEEN.put(rules, seen)
    return None
