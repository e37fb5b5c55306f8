"""Evaluating hands: :func:`evaluate` (the table-driven fast path), and :func:`evaluate_codes`
with :func:`use_table` (the fastest way for rules that may have no table yet: when a table
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

from collections.abc import Sequence

from service.engine.cache import CACHE, BoundedCache
from service.engine.cards import CARDS, Card
from service.engine.hand import Evaluation, Formation
from service.engine.reference import evaluate_reference
from service.engine.rules import Rules
from service.engine.tables import Resolved, Table, built_table, resolve_many, table_for

__all__ = ["BUILD_THRESHOLD", "evaluate", "evaluate_codes", "use_table"]

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
    [resolved] = resolve_many([[c.code for c in hand]], table_for(rules))
    return _evaluation(tuple(hand), resolved)


def evaluate_codes(hands: Sequence[Sequence[int]], rules: Rules) -> list[Evaluation]:
    """Evaluate hands given as card codes (what the card reader gives), the fastest way for
    their number: one table look-up pass when :func:`use_table` gives a table, else the
    reference evaluator (RULES.md sections 3-4, 7).

    :param hands: hands of five valid card codes each (0..51), in input order.
    :param rules: the rules to evaluate under.
    :return: one evaluation per hand, in input order; the cards are the notation table's
        :data:`~service.engine.cards.CARDS`, so nothing is parsed again.

    >>> from service.engine.rules import PROFILES
    >>> [e.label for e in evaluate_codes([[39, 26, 8, 49, 24], [43, 46, 48, 41, 44]], PROFILES["standard"].rules)]
    ['Single-Ox 0', 'Five Dukes']
    """
    table = use_table(rules, len(hands))
    if table is None:
        return [evaluate_reference(tuple(CARDS[c] for c in h), rules) for h in hands]
    return [_evaluation(tuple(CARDS[c] for c in h), resolved)
            for h, resolved in zip(hands, resolve_many(hands, table), strict=True)]


def _evaluation(hand: tuple[Card, ...], resolved: Resolved) -> Evaluation:
    """The :class:`~service.engine.hand.Evaluation` of a hand from its table result."""
    entry, slot, projection, suited, payout = resolved
    ox = power = None
    if slot is not None and projection is not None:
        ox_at, ox_points, power_at, power_points = projection
        ox = Formation(tuple(hand[i] for i in ox_at), tuple(ox_points), tuple(ox_at))
        power = Formation(tuple(hand[i] for i in power_at), tuple(power_points), tuple(power_at))
    return Evaluation(
        hand=hand,
        category=entry.category,
        label=entry.label,
        score=entry.score,
        payout=payout,
        ox=ox,
        power=power,
        nenku=slot is not None and slot.nenku,
        suited=suited,
    )


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
