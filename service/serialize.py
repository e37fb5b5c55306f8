"""Evaluations as JSON-ready data (the ``Evaluation`` schema of openapi.yaml).

One function, :func:`_evaluation`, writes the shape; everything else feeds it:
:func:`evaluation_dict` from an :class:`~service.engine.hand.Evaluation` (single
answers, rankings, settlements, via the response schemas' fields), and
:func:`evaluation_dicts` straight from card codes, which skips the
:class:`~service.engine.hand.Evaluation` objects (about 10 µs a hand) and resolves
hands with :func:`service.engine.tables.resolve_many` (about 1 µs a hand). Both give
equal data for the same hand.

The batch endpoint goes one step further with :func:`evaluations_json`: the answer's
``evaluations`` array as JSON text (an ``orjson.Fragment``), for hands read in one pass
(:class:`~service.engine.batch.Hands`). A class-only fieldset (``label,score``) is
scored with numpy (the classes of the sorted hands, :attr:`Hands.sorted`) and each class's JSON
written once; a full answer fills, per hand, a text template that :func:`_evaluation`
wrote once per fieldset and formation flags (:func:`_template`), with no dict per hand. Each gives
byte for byte what ``orjson.dumps(evaluation_dicts(...))`` gives (the tests compare).

>>> from service.engine.cards import parse_hand
>>> from service.engine.reference import evaluate_reference
>>> from service.engine.rules import Rules
>>> hand = parse_hand("3S 6H 8D 4C 8H".split())
>>> evaluation_dicts([[c.code for c in hand]], Rules()) == [evaluation_dict(evaluate_reference(hand, Rules()))]
True
"""

from __future__ import annotations

import re
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import permutations
from operator import itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from service.engine.batch import Hands
from service.engine.cards import CARDS, HAND_SIZE
from service.engine.classes import RANK_WEIGHT, class_indexes
from service.engine.evaluate import use_table
from service.engine.hand import Evaluation
from service.engine.reference import evaluate_reference
from service.engine.rules import CATEGORIES, Rules
from service.engine.tables import Table, choose_slot, resolve_many
from service.engine.text import echo

__all__ = ["EVALUATION_FIELDS", "evaluate_batch", "evaluation_dict", "evaluation_dicts", "evaluations_json",
           "parse_fields", "select"]

#: The members of the ``Evaluation`` schema, in the order answers give them; ``fields``
#: (a sparse fieldset, Zalando guideline 157) names a subset of these.
EVALUATION_FIELDS = ("hand", "category", "label", "score", "payout", "ox", "power", "nenku", "suited")
#: The longest ``fields`` value (the contract's ``maxLength``): every name once is 63 characters.
MAX_FIELDS_LENGTH = 200
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
    >>> parse_fields("label," * 40 + "score")[1]
    'at most 200 characters, got 245'
    """
    if len(value) > MAX_FIELDS_LENGTH:
        return (), f"at most {MAX_FIELDS_LENGTH} characters, got {len(value)}"
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
    """:func:`evaluation_dicts`, and each hand's category (for the metrics)."""
    return _evaluate_dicts(hands, rules, use_table(rules, len(hands)), fields)


def _class_only(fields: tuple[str, ...] | None, rules: Rules) -> bool:
    """Whether ``fields`` come from a hand's class alone (no formation to place)."""
    return fields is not None and (_CLASS_FIELDS | ({"payout"} if rules.suited_bonus == "none" else set())
                                   ).issuperset(fields)


def _evaluate_dicts(hands: Sequence[Sequence[int]], rules: Rules, table: Table | None,
                    fields: tuple[str, ...] | None) -> tuple[list[dict[str, Any]], list[str]]:
    """:func:`evaluate_batch` with the table :func:`~service.engine.tables.use_table` chose.

    Members that depend on the class alone (category, label, score, and payout when no
    suited bonus is on) are answered from the table without placing the formation: one
    dict per class, shared by the hands of that class.
    """
    if table is None:
        full = [evaluation_dict(evaluate_reference([CARDS[c] for c in codes], rules)) for codes in hands]
        return [select(x, fields) for x in full], [x["category"] for x in full]
    if fields is not None and _class_only(fields, rules):
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


def evaluations_json(hands: Sequence[Sequence[int]], rules: Rules,
                     fields: tuple[str, ...] | None = None) -> tuple[orjson.Fragment, dict[str, int]]:
    """The batch answer's ``evaluations``: ``orjson.dumps(evaluation_dicts(...))`` as an
    ``orjson.Fragment``, written faster for :class:`~service.engine.cards.Hands` under rules
    with a table; and how many hands of each category there are (for the metrics).

    :param hands: hands of five valid card codes each, in input order.
    :param rules: the rules to evaluate under.
    :param fields: only these members (:func:`parse_fields`); every member when ``None``.
    :return: the JSON array (embed it with ``orjson.dumps``) and the hands by category
        (only categories with hands).

    >>> from service.engine.batch import read_hands
    >>> hands, _ = read_hands([["3S", "6H", "8D", "4C", "8H"]] * 2)
    >>> text, categories = evaluations_json(hands, Rules(), ("label", "payout"))
    >>> orjson.dumps({"evaluations": text}), categories
    (b'{"evaluations":[{"label":"Double-Ox 8","payout":2},{"label":"Double-Ox 8","payout":2}]}', {'double_ox': 2})
    """
    table = use_table(rules, len(hands))
    if table is not None and isinstance(hands, Hands):
        if _class_only(fields, rules):
            return _classes_json(hands, table, fields or ())
        return _formations_json(hands, table, rules, fields)
    evaluations, categories = _evaluate_dicts(hands, rules, table, fields)
    return orjson.Fragment(orjson.dumps(evaluations)), dict(Counter(categories))


#: The category names by index (the table's ``categories`` array holds indexes).
_CATEGORY_NAMES: tuple[str, ...] = tuple(str(c) for c in CATEGORIES)


def _classes_json(hands: Hands, table: Table, fields: tuple[str, ...]) -> tuple[orjson.Fragment, dict[str, int]]:
    """The evaluations' JSON array for class-only ``fields``, and the hands by category:
    each hand's class found with numpy, and its text looked up (:func:`_class_texts`)."""
    classes = class_indexes(hands.sorted, presorted=True)
    return (orjson.Fragment(b"[" + b",".join(_class_texts(table, fields)[classes].tolist()) + b"]"),
            _count_categories(table, classes))


def _count_categories(table: Table, classes: npt.NDArray[np.integer[Any]]) -> dict[str, int]:
    """How many of the hands of ``classes`` (class indexes) fall in each category, with numpy."""
    counts = np.bincount(table.categories[classes], minlength=len(CATEGORIES)).tolist()
    return {name: n for name, n in zip(_CATEGORY_NAMES, counts, strict=True) if n}


#: :func:`_class_texts` by table, kept only while the engine keeps the table.
_CLASS_TEXTS: weakref.WeakKeyDictionary[Table, dict[tuple[str, ...], npt.NDArray[np.object_]]] = (
    weakref.WeakKeyDictionary())


def _class_texts(table: Table, fields: tuple[str, ...]) -> npt.NDArray[np.object_]:
    """Each class's evaluation with class-only ``fields`` as JSON bytes, by class index:
    written once per table and fieldset (a few ms, about 70 kB; at most 15 fieldsets a
    table), and dropped with the table.

    Under one set of rules a hand's score determines its category, label and payout
    (without a suited bonus): ``score = (rank of the category) * 100 + strength`` and the
    label and payout follow from the category and strength. So each distinct score's
    text is written once and shared by its classes.
    """
    known = _CLASS_TEXTS.setdefault(table, {})
    texts = known.get(fields)
    if texts is None:
        by_score: dict[int, bytes] = {}
        texts = known[fields] = np.empty(len(table.entries), dtype=object)
        for k, entry in enumerate(table.entries):
            text = by_score.get(entry.score)
            if text is None:
                text = by_score[entry.score] = orjson.dumps({f: getattr(entry, f) for f in fields})
            texts[k] = text
    return texts


def _order_index() -> npt.NDArray[np.intp]:
    """The index in :data:`_ORDERS` of an order written as a base-5 number."""
    index = np.zeros(HAND_SIZE**HAND_SIZE, dtype=np.intp)
    for i, order in enumerate(_ORDERS):
        index[int(np.dot(order, _ORDER_DIGITS))] = i
    return index


#: The 120 orders of a hand's positions (``order[k]``: the input position of the k-th
#: card sorted by code), as :class:`~service.engine.tables.FormationSlot` places by them.
_ORDERS: tuple[tuple[int, ...], ...] = tuple(permutations(range(HAND_SIZE)))
_ORDER_DIGITS = np.array([HAND_SIZE**k for k in range(HAND_SIZE)])
_ORDER_INDEX = _order_index()
#: A template's holes: ``@sN@`` inside a JSON string, ``"@nN@"`` a whole number.
_HOLE = re.compile(r'"@n(\d+)@"|@s(\d+)@')


#: Hands whose texts :func:`_formations_json` joins at a time (about 50 kB of text).
_CHUNK = 256


@lru_cache(maxsize=256)
def _template(formed: bool, nenku: bool, suited: bool,
              fields: tuple[str, ...] | None) -> tuple[str, Callable[[tuple[Any, ...]], Any] | None]:
    """One evaluation's JSON text as :func:`_evaluation` writes it, with ``%s`` holes.

    A hand's values are ``(5 card texts, category, label, score, payout)`` and, with a
    formation, ``(3 ox card texts, their points, 2 power card texts, their points)``: the
    order of the holes of every member, so the text depends only on whether the hand has
    a formation, the flags and the fieldset. Card texts, category names and labels need no
    JSON escapes, so they go into the holes as they are.

    :return: the text (``%``-format) and the getter of its values from a hand's values
        (``None``: all of them, in order).

    >>> text, values = _template(True, False, False, ("hand", "ox"))
    >>> text
    '{"hand":["%s","%s","%s","%s","%s"],"ox":{"cards":["%s","%s","%s"],"points":[%s,%s,%s]}}'
    >>> values(tuple(range(19)))
    (0, 1, 2, 3, 4, 9, 10, 11, 12, 13, 14)
    >>> _template(False, False, False, None)[1] is None
    True
    """
    kinds = "sssssssnnsssnnnssnn"  # a hole in a JSON string (s), or a whole number (n)
    holes: list[Any] = [f"@{kind}{i}@" for i, kind in enumerate(kinds)]
    if formed:
        evaluation = _evaluation(holes[:HAND_SIZE], holes[5], holes[6], holes[7], holes[8], holes[9:12],
                                 holes[12:15], holes[15:17], holes[17:19], nenku, suited)
    else:
        evaluation = _evaluation(holes[:HAND_SIZE], holes[5], holes[6], holes[7], holes[8], None, [], None, [],
                                 nenku, suited)
    text = orjson.dumps(select(evaluation, fields)).decode()
    order = [int(n or s) for n, s in _HOLE.findall(text)]
    getter: Callable[[tuple[Any, ...]], Any] | None = (
        None if order == list(range(19 if formed else 9)) else itemgetter(*order) if order else (lambda _: ()))
    return _HOLE.sub("%s", text.replace("%", "%%")), getter


def _formations_json(hands: Hands, table: Table, rules: Rules,
                     fields: tuple[str, ...] | None) -> tuple[orjson.Fragment, dict[str, int]]:
    """The evaluations' JSON array for any fieldset: per hand, a :func:`_template` filled.

    What :func:`~service.engine.tables.resolve_many` does per hand (the class, the
    formation slot, its placement by the hand's order), with the classes and the orders of
    the whole batch found by numpy at once
    (:func:`~service.engine.classes.class_indexes`, one sort).

    The hands' texts are joined :data:`_CHUNK` at a time, so the small strings die while
    they are still in the CPU cache and their memory is taken again for the next ones:
    kept all at once, 10,000 of them fill about 2 MiB of fresh allocator arenas, which the
    worker maps (about 500 page faults) and hands back on every request.
    """
    ordered = np.argsort(hands.array, axis=1, kind="stable")
    orders = _ORDER_INDEX[ordered @ _ORDER_DIGITS].tolist()
    found = class_indexes(hands.sorted, presorted=True)  # the rows in that order, sorted once per batch
    classes = found.tolist()
    entries, text, all_orders = table.entries, _TEXT, _ORDERS
    no_bonus, multiplier = rules.suited_bonus == "none", rules.suited_multiplier
    # Templates by whether the hand has a formation, its Nenku flag and its suited flag.
    forms = [_template(bool(i & 4), bool(i & 2), bool(i & 1), fields) for i in range(8)]
    parts: list[str] = []
    append = parts.append
    chunks: list[str] = []
    for codes, o, k in zip(hands, orders, classes, strict=True):
        a, b, c, d, e = codes
        entry = entries[k]
        if no_bonus:
            slot, suited, payout = entry.first_slot, False, entry.payout
        else:
            slot, suited = choose_slot(entry, codes, all_orders[o], rules)
            payout = entry.payout * multiplier if suited else entry.payout
        if slot is None:
            form, getter = forms[suited]
            values: tuple[Any, ...] = (text[a], text[b], text[c], text[d], text[e], entry.category, entry.label,
                                       entry.score, payout)
        else:
            (i, j, h), (f, g, n), (r, s), (t, u) = slot.by_order[o]
            p, q = slot.ox_points, slot.power_points
            form, getter = forms[4 | slot.nenku << 1 | suited]
            values = (text[a], text[b], text[c], text[d], text[e], entry.category, entry.label, entry.score,
                      payout, text[codes[i]], text[codes[j]], text[codes[h]], p[f], p[g], p[n],
                      text[codes[r]], text[codes[s]], q[t], q[u])
        append(form % (values if getter is None else getter(values)))
        if len(parts) == _CHUNK:
            chunks.append(",".join(parts))
            parts.clear()
    if parts or not chunks:
        chunks.append(",".join(parts))
    return orjson.Fragment("[" + ",".join(chunks) + "]"), _count_categories(table, found)
