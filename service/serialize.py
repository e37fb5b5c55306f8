"""Evaluations as JSON-ready data (the ``Evaluation`` schema of openapi.yaml).

One function, :func:`_evaluation`, writes the shape; everything else feeds it:
:func:`evaluation_dict` from an :class:`~service.engine.hand.Evaluation` (single
answers, rankings, settlements, via the response schemas' fields), and
:func:`evaluation_dicts` straight from card codes for the batch path, which skips the
:class:`~service.engine.hand.Evaluation` objects (about 10 µs a hand) and resolves
hands with :func:`service.engine.tables.resolve_many` (about 1 µs a hand). Both give
equal data for the same hand.

>>> from service.engine.cards import parse_hand
>>> from service.engine.reference import evaluate_reference
>>> from service.engine.rules import Rules
>>> hand = parse_hand("3S 6H 8D 4C 8H".split())
>>> evaluation_dicts([[c.code for c in hand]], Rules()) == [evaluation_dict(evaluate_reference(hand, Rules()))]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.engine.cards import CARDS
from service.engine.classes import RANK_WEIGHT
from service.engine.evaluate import use_table
from service.engine.hand import Evaluation
from service.engine.reference import evaluate_reference
from service.engine.rules import Rules
from service.engine.tables import resolve_many
from service.engine.text import echo

__all__ = ["EVALUATION_FIELDS", "evaluate_batch", "evaluation_dict", "evaluation_dicts", "parse_fields", "select"]

#: The members of the ``Evaluation`` schema, in the order answers give them; ``fields``
#: (a sparse fieldset, Zalando guideline 157) names a subset of these.
EVALUATION_FIELDS = ("hand", "category", "label", "score", "payout", "ox", "power", "nenku", "suited")
#: Members that come from a hand's class alone (no formation to place): the batch path
#: answers these without resolving the hand any further.
_CLASS_FIELDS = frozenset({"category", "label", "score"})

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


def parse_fields(value: str) -> tuple[tuple[str, ...], str | None]:
    """Read a ``fields`` query value: comma-separated names of :data:`EVALUATION_FIELDS`.

    :return: the names in answer order (each once), and ``None``; or ``()`` and the problem.

    >>> parse_fields("score,label,score")   # a name given twice is answered once
    (('label', 'score'), None)
    >>> parse_fields("label,colour")[1]
    "unknown field 'colour'; the fields are hand, category, label, score, payout, ox, power, nenku, suited"
    >>> parse_fields("")[1]
    'give one or more of hand, category, label, score, payout, ox, power, nenku, suited, comma-separated'
    """
    names = value.split(",")
    known = ", ".join(EVALUATION_FIELDS)
    if not value or any(not n for n in names):
        return (), f"give one or more of {known}, comma-separated"
    unknown = [n for n in dict.fromkeys(names) if n not in EVALUATION_FIELDS]
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        return (), f"unknown field{plural} {', '.join(echo(n) for n in unknown[:5])}; the fields are {known}"
    return tuple(f for f in EVALUATION_FIELDS if f in names), None


def select(evaluation: dict[str, Any], fields: tuple[str, ...] | None) -> dict[str, Any]:
    """``evaluation`` with only ``fields`` (all of it when ``None``).

    >>> select({"label": "No Ox", "score": 100, "payout": 0}, ("label",))
    {'label': 'No Ox'}
    """
    if fields is None:
        return evaluation
    return {f: evaluation[f] for f in fields}


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


def evaluation_dicts(hands: Sequence[Sequence[int]], rules: Rules,
                     fields: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """:func:`evaluation_dict` of every hand, straight from card codes (the batch path).

    Uses the rules' table when :func:`~service.engine.evaluate.use_table` says so, else the
    reference evaluator; the data is the same either way.

    :param hands: hands of five valid card codes (0..51) each, in input order.
    :param rules: the rules to evaluate under.
    :param fields: only these members (:func:`parse_fields`); every member when ``None``.
    :return: one ``Evaluation`` schema object (a dict) per hand, same order.

    >>> evaluation_dicts([[11, 22, 28, 13, 30]], Rules(), ("label", "payout"))
    [{'label': 'Double-Ox 8', 'payout': 2}]
    """
    return evaluate_batch(hands, rules, fields)[0]


def evaluate_batch(hands: Sequence[Sequence[int]], rules: Rules,
                   fields: tuple[str, ...] | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """:func:`evaluation_dicts`, and each hand's category (for the metrics).

    Members that depend on the class alone (category, label, score, and payout when no
    suited bonus is on) are answered from the table without placing the formation: one
    dict per class, shared by the hands of that class.
    """
    table = use_table(rules, len(hands))
    if table is None:
        full = [evaluation_dict(evaluate_reference([CARDS[c] for c in codes], rules)) for codes in hands]
        return [select(x, fields) for x in full], [x["category"] for x in full]
    if fields is not None and (_CLASS_FIELDS | ({"payout"} if rules.suited_bonus == "none" else set())).issuperset(fields):
        by_weight, weight = table.by_weight, RANK_WEIGHT
        entries = [by_weight[weight[a] + weight[b] + weight[c] + weight[d] + weight[e]] for a, b, c, d, e in hands]
        shared: dict[int, dict[str, Any]] = {}
        out = []
        for entry in entries:
            found = shared.get(id(entry))
            if found is None:
                found = shared[id(entry)] = {f: getattr(entry, f) for f in fields}
            out.append(found)
        return out, [entry.category for entry in entries]
    text = _TEXT
    make = _evaluation
    full = []
    append = full.append
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
    categories = [x["category"] for x in full]
    return (full if fields is None else [select(x, fields) for x in full]), categories
