"""The one JSON formatter of a hand's result (openapi.yaml's ``Evaluation`` schema).

:data:`MEMBERS` is the one table of the members: each row names one, the values it takes
from a hand (its holes), how it is written from them and whether it comes from a hand's class
alone; a new member is one row there and its values in :func:`_values` (and in
:func:`evaluation_dict`, from the reference evaluator's object). :func:`evaluation_shape` writes
the object from the table. Every answer that holds evaluations writes them from the
resolver's rows (:meth:`service.engine.tables.Resolution.rows`) through it:

- :func:`evaluation_data`: one hand as a dict (single evaluations, the odds' evaluation);
- :func:`evaluation_texts`: many hands as JSON texts (rankings, settlements), each a
  text template that :func:`evaluation_shape` wrote once per fieldset and formation flags,
  filled per hand (no dict per hand);
- :func:`evaluations_json`: a batch's whole array as one ``orjson.Fragment``; a class-only
  fieldset (``label,score``) writes each class's text once per table.

:func:`evaluation_dict` applies the same shape to an ``Evaluation`` object (the reference
evaluator's, in tests). All give byte for byte what ``orjson.dumps`` of the shape gives (the
tests compare).

>>> from service.engine.cards import parse_hand
>>> from service.engine.tables import resolved
>>> from service.engine.reference import evaluate_reference
>>> from service.engine.rules import Rules
>>> hand = parse_hand("3S 6H 8D 4C 8H".split())
>>> [row] = resolved([[c.code for c in hand]], Rules()).rows()
>>> evaluation_data(row) == evaluation_dict(evaluate_reference(hand, Rules()))
True
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import accumulate
from operator import itemgetter
from typing import Any, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt
import orjson

from service.engine.cards import CARD_TEXTS
from service.engine.categories import LABELS, LANGUAGES
from service.engine.hand import Evaluation
from service.engine.tables import Entry, FormationSlot, Resolution, Table
from service.engine.text import echo

__all__ = ["EVALUATION_FIELDS", "MEMBERS", "Flags", "Member", "Row", "evaluation_data", "evaluation_dict", "evaluation_shape", "evaluation_texts",
           "evaluations_json", "parse_fields", "ranking_json", "select"]

class Flags(NamedTuple):
    """What a hand's evaluation is besides its values: whether it has a formation (an ox and
    power cards), whether the power cards are a Nenku, whether the hand is suited."""

    formed: bool
    nenku: bool
    suited: bool


class Member(NamedTuple):
    """One member of the ``Evaluation`` object: a row of :data:`MEMBERS`.

    :param name: its name in answers and in ``fields``.
    :param holes: the kinds of the values it takes from a hand's values (:func:`_values`), in
        order: ``s`` a text that goes inside a JSON string as it is, ``n`` a whole number;
        none for a member written from the flags alone.
    :param write: its JSON value from its values and the hand's :class:`Flags`.
    :param formed: its values exist only for a hand with a formation (else it takes none).
    :param of_class: it comes from a hand's class alone (no formation to place), so a
        fieldset of such members is written once per class (:func:`_class_texts`, which
        reads them from the class's table entry).
    """

    name: str
    holes: str
    write: Callable[[Sequence[Any], Flags], Any]
    formed: bool = False
    of_class: bool = False


def _one(values: Sequence[Any], flags: Flags) -> Any:
    return values[0]


def _formation(values: Sequence[Any], flags: Flags) -> dict[str, list[Any]] | None:
    """``{"cards", "points"}`` from the cards' texts then their points, or ``None`` without a formation."""
    if not flags.formed:
        return None
    half = len(values) // 2
    return {"cards": list(values[:half]), "points": list(values[half:])}


#: The members of the ``Evaluation`` schema, in the order answers give them (openapi.yaml's
#: ``Evaluation``; the values of each hand in this order too, :func:`_values`).
MEMBERS: tuple[Member, ...] = (
    Member("hand", "sssss", lambda values, flags: list(values)),
    Member("category", "s", lambda values, flags: str(values[0]), of_class=True),  # the engine's Category: its name
    Member("label", "s", _one, of_class=True),
    Member("label_key", "s", _one, of_class=True),
    Member("score", "n", _one, of_class=True),
    Member("payout", "n", _one),
    Member("ox", "sssnnn", _formation, formed=True),
    Member("power", "ssnn", _formation, formed=True),
    Member("nenku", "", lambda values, flags: flags.nenku),
    Member("suited", "", lambda values, flags: flags.suited),
)
#: The members' names in answer order; ``fields`` (a sparse fieldset, Zalando guideline 157)
#: names a subset of these.
EVALUATION_FIELDS = tuple(m.name for m in MEMBERS)
#: The longest ``fields`` value (the contract's ``maxLength``): every name once is 63 characters.
MAX_FIELDS_LENGTH = 200
#: Members that come from a hand's class alone (no formation to place).
_CLASS_FIELDS = frozenset(m.name for m in MEMBERS if m.of_class)
#: Each member with the slice of a hand's values it takes, without and with a formation.
_SLICES: tuple[tuple[tuple[Member, slice], ...], ...] = tuple(
    tuple((m, slice(at - n, at)) for m, n, at in zip(MEMBERS, sizes, accumulate(sizes), strict=True))
    for sizes in ([0 if m.formed else len(m.holes) for m in MEMBERS], [len(m.holes) for m in MEMBERS]))
#: The kinds of a hand's values in order, without and with a formation.
_KINDS = ("".join(m.holes for m in MEMBERS if not m.formed), "".join(m.holes for m in MEMBERS))

#: One resolved hand: ``(codes, entry, slot, order, suited, payout)``
#: (:meth:`~service.engine.tables.Resolution.rows`).
Row = tuple[Sequence[int], Entry, FormationSlot | None, int, bool, int]


def evaluation_shape(values: Sequence[Any], flags: Flags) -> dict[str, Any]:
    """The ``Evaluation`` object of a hand's ``values`` (in :data:`MEMBERS`' order, the
    formation's only when ``flags.formed``) and ``flags``, written from the table.

    >>> evaluation_shape(["AS", "2S", "3S", "4S", "5S", "five_small", "Five Small", "five_small", 30, 5],
    ...                  Flags(False, False, True))["ox"]
    """
    return {m.name: m.write(values[at], flags) for m, at in _SLICES[flags.formed]}


def parse_fields(value: str) -> tuple[tuple[str, ...], str | None]:
    """Read a ``fields`` query value: comma-separated names of :data:`EVALUATION_FIELDS`.

    :return: the names in answer order (each once), and ``None``; or ``()`` and the problem.

    >>> parse_fields("score,label,score")   # a name given twice is answered once
    (('label', 'score'), None)
    >>> parse_fields("label,colour")[1]
    "unknown field 'colour'; the fields are hand, category, label, label_key, score, payout, ox, power, nenku, suited"
    >>> parse_fields("")[1]
    'give one or more of hand, category, label, label_key, score, payout, ox, power, nenku, suited, comma-separated'
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


def evaluation_dict(e: Evaluation, lang: str = "en") -> dict[str, Any]:
    """:func:`evaluation_shape` of an :class:`~service.engine.hand.Evaluation` (canonical
    cards in input order), its label in ``lang``.

    >>> from service.engine.cards import parse_hand
    >>> from service.engine.reference import evaluate_reference
    >>> from service.engine.rules import Rules
    >>> d = evaluation_dict(evaluate_reference(parse_hand("KS QH 2D 5C 9H".split()), Rules()))
    >>> d["hand"], d["label"], d["ox"], d["power"]
    (['KS', 'QH', '2D', '5C', '9H'], 'No Ox', None, None)
    """
    ox, power = e.ox, e.power
    values: list[Any] = [c.text for c in e.hand]
    values += (e.category, LABELS[e.label_key][lang], e.label_key, e.score, e.payout)
    if ox is not None and power is not None:
        values += (*(c.text for c in ox.cards), *ox.points, *(c.text for c in power.cards), *power.points)
    return evaluation_shape(values, Flags(ox is not None, e.nenku, e.suited))


#: Per :class:`Flags` (as ``formed << 2 | nenku << 1 | suited``), a :func:`_template`.
Forms = tuple[tuple[str, Callable[[tuple[Any, ...]], Any] | None], ...]


def _values(rows: Iterable[Row], lang: int, forms: Forms | None = None) -> Iterator[Any]:
    """Each row's flags (:class:`Flags` as ``formed << 2 | nenku << 1 | suited``) and values
    in :data:`MEMBERS`' order: ``(5 card texts, category, label, label key, score, payout)``
    and, with a formation, ``(3 ox card texts, their points, 2 power card texts, their
    points)``; the label in the ``lang``-th language. With ``forms``, each row's text
    instead: its template filled with its values (:func:`_texts`).

    The one place a hand's values are read, written out: the loop of every batch, ranking
    and settlement.
    """
    text = CARD_TEXTS
    for codes, entry, slot, order, suited, payout in rows:
        a, b, c, d, e = codes
        if slot is None:
            flags: int = suited
            values: tuple[Any, ...] = (text[a], text[b], text[c], text[d], text[e], entry.category,
                                       entry.labels[lang], entry.label_key, entry.score, payout)
        else:
            (i, j, h), (f, g, n), (r, s), (t, u) = slot.by_order[order]
            p, q = slot.ox_points, slot.power_points
            flags = 4 | slot.nenku << 1 | suited
            values = (text[a], text[b], text[c], text[d], text[e], entry.category, entry.labels[lang],
                      entry.label_key, entry.score, payout, text[codes[i]], text[codes[j]], text[codes[h]], p[f], p[g],
                      p[n], text[codes[r]], text[codes[s]], q[t], q[u])
        if forms is None:
            yield flags, values
        else:
            form, getter = forms[flags]
            yield form % (values if getter is None else getter(values))


def evaluation_data(row: Row, fields: tuple[str, ...] | None = None, lang: str = "en") -> dict[str, Any]:
    """One resolved hand as the ``Evaluation`` object (only ``fields`` when given), its label
    in ``lang`` (one of :data:`~service.engine.categories.LANGUAGES`).

    >>> from service.engine.tables import resolved
    >>> from service.engine.rules import Rules
    >>> [row] = resolved([[11, 22, 28, 13, 30]], Rules()).rows()
    >>> evaluation_data(row, ("label", "power"))
    {'label': 'Double-Ox 8', 'power': {'cards': ['8D', '8H'], 'points': [8, 8]}}
    """
    [(flags, values)] = _values((row,), LANGUAGES.index(lang))
    return select(evaluation_shape(values, Flags(bool(flags & 4), bool(flags & 2), bool(flags & 1))), fields)


#: A template's holes: ``@sN@`` inside a JSON string, ``"@nN@"`` a whole number.
_HOLE = re.compile(r'"@n(\d+)@"|@s(\d+)@')


@lru_cache(maxsize=256)
def _template(formed: bool, nenku: bool, suited: bool,
              fields: tuple[str, ...] | None) -> tuple[str, Callable[[tuple[Any, ...]], Any] | None]:
    """One evaluation's JSON text as :func:`evaluation_shape` writes it, with ``%s`` holes
    for :func:`_values`, so the text depends only on whether the hand has a formation, the
    flags and the fieldset. Card texts, category names and labels need no JSON escapes
    (a test checks), so they go into the holes as they are.

    :return: the text (``%``-format) and the getter of its values from a hand's values
        (``None``: all of them, in order).

    >>> text, values = _template(True, False, False, ("hand", "ox"))
    >>> text
    '{"hand":["%s","%s","%s","%s","%s"],"ox":{"cards":["%s","%s","%s"],"points":[%s,%s,%s]}}'
    >>> values(tuple(range(20)))
    (0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15)
    >>> _template(False, False, False, None)[1] is None
    True
    """
    kinds = _KINDS[formed]
    holes: list[Any] = [f"@{kind}{i}@" for i, kind in enumerate(kinds)]
    shape = evaluation_shape(holes, Flags(formed, nenku, suited))
    text = orjson.dumps(select(shape, fields)).decode()
    order = [int(n or s) for n, s in _HOLE.findall(text)]
    getter: Callable[[tuple[Any, ...]], Any] | None = (
        None if order == list(range(len(kinds))) else itemgetter(*order) if order else (lambda _: ()))
    return _HOLE.sub("%s", text.replace("%", "%%")), getter


@lru_cache(maxsize=64)
def _forms(fields: tuple[str, ...] | None) -> Forms:
    """The :func:`_template` of every formation flag combination for ``fields``, by
    ``formed << 2 | nenku << 1 | suited``."""
    return tuple(_template(bool(i & 4), bool(i & 2), bool(i & 1), fields) for i in range(8))


def _texts(resolution: Resolution, fields: tuple[str, ...] | None, lang: str) -> Iterator[str]:
    """Each resolved hand's ``Evaluation`` as JSON text: its :func:`_template` filled with
    its :func:`_values`."""
    texts: Iterator[str] = _values(resolution.rows(), LANGUAGES.index(lang), _forms(fields))
    return texts


def evaluation_texts(resolution: Resolution, fields: tuple[str, ...] | None = None, lang: str = "en") -> list[str]:
    """Each resolved hand's ``Evaluation`` as JSON text, in order (only ``fields`` when given;
    labels in ``lang``).

    >>> from service.engine.tables import resolved
    >>> from service.engine.rules import Rules
    >>> evaluation_texts(resolved([[11, 22, 28, 13, 30]], Rules()), ("label", "nenku"))
    ['{"label":"Double-Ox 8","nenku":false}']
    """
    return list(_texts(resolution, fields, lang))


#: Hands whose texts :func:`evaluations_json` joins at a time (about 50 kB of text).
_CHUNK = 256


def _class_only(fields: tuple[str, ...] | None, resolution: Resolution) -> bool:
    """Whether ``fields`` come from a hand's class alone (no formation to place)."""
    extra = {"payout"} if resolution.table.rules.suited_bonus == "none" else set()
    return fields is not None and (_CLASS_FIELDS | extra).issuperset(fields)


def evaluations_json(resolution: Resolution, fields: tuple[str, ...] | None = None,
                     lang: str = "en") -> orjson.Fragment:
    """A batch's ``evaluations`` array as one JSON text (an ``orjson.Fragment``), labels in
    ``lang``.

    A class-only fieldset writes each class's text once per table (:func:`_class_texts`);
    otherwise each hand's text is a filled template (:func:`evaluation_texts`), joined
    :data:`_CHUNK` hands at a time, so the small strings die while they are still in the
    CPU cache and their memory is taken again for the next ones (kept all at once, 10,000
    of them fill about 2 MiB of fresh allocator arenas, which the worker maps, about 500
    page faults, and hands back on every request).

    >>> from service.engine.tables import resolved
    >>> from service.engine.rules import Rules
    >>> orjson.dumps({"e": evaluations_json(resolved([[11, 22, 28, 13, 30]] * 2, Rules()), ("label", "payout"))})
    b'{"e":[{"label":"Double-Ox 8","payout":2},{"label":"Double-Ox 8","payout":2}]}'
    """
    if fields is not None and _class_only(fields, resolution):
        return orjson.Fragment(b"[" + b",".join(_class_texts(resolution, fields, lang)) + b"]")
    parts: list[str] = []
    append = parts.append
    chunks: list[str] = []
    for text in _texts(resolution, fields, lang):
        append(text)
        if len(parts) == _CHUNK:
            chunks.append(",".join(parts))
            parts.clear()
    if parts or not chunks:
        chunks.append(",".join(parts))
    return orjson.Fragment("[" + ",".join(chunks) + "]")


T = TypeVar("T")

#: Each ranking entry's text before its id (after the ``},`` that closes the entry before),
#: by index, and between its id and evaluation, by position (the ``RankedHand`` schema's
#: order), for ids in quotes (``True``) and ids as JSON text (``False``); grown on demand
#: by :func:`_ranked_parts`.
_RANKED_PARTS: dict[bool, tuple[list[str], list[str]]] = {}


def _ranked_parts(quoted: bool, n: int) -> tuple[list[str], list[str]]:
    """:data:`_RANKED_PARTS` for ``n`` hands (made once for 1,024, more than a ranking takes)."""
    parts = _RANKED_PARTS.get(quoted)
    if parts is None or len(parts[0]) < n:
        q = '"' if quoted else ""
        size = max(n, 1024)
        parts = _RANKED_PARTS[quoted] = ([f'}},{{"index":{i},"id":{q}' for i in range(size)],
                                         [f'{q},"position":{p},"evaluation":' for p in range(size + 1)])
    return parts


def _take(items: Sequence[T], at: Sequence[int]) -> Sequence[T]:
    """``items`` at the indexes ``at``, in that order (one C call: ``itemgetter``)."""
    return itemgetter(*at)(items) if len(at) > 1 else [items[i] for i in at]


def ranking_json(resolution: Resolution, ids: Sequence[str | None], order: Sequence[int], positions: Sequence[int],
                 fields: tuple[str, ...] | None = None, lang: str = "en") -> orjson.Fragment:
    """A ranking's ``ranking`` array as one JSON text (an ``orjson.Fragment``): for each
    hand strongest first, ``{"index", "id", "position", "evaluation"}``, the evaluation the
    formatter's text (:func:`evaluation_texts`: only ``fields`` when given, labels in ``lang``).

    :param ids: each hand's id (``None``: it has none), in input order.
    :param order: the hands' input indexes, strongest first.
    :param positions: their competition positions (RULES.md section 5), in the same order.

    Each entry is four pieces (the text before the id, the id, the text up to the
    evaluation, the evaluation), put in place a whole list at a time and joined once: a
    dict per entry for orjson to write cost about three times as much. Ids are written by
    orjson, or, when every hand has one and none needs an escape (no backslash in their
    JSON text, and no ``null`` in it: an id holding that text is written by orjson too),
    go between quotes as they are.

    >>> from service.engine.tables import resolved
    >>> from service.engine.rules import Rules
    >>> r = resolved([[11, 22, 28, 13, 30], [0, 1, 2, 3, 4]], Rules())
    >>> text = orjson.dumps(ranking_json(r, ["a", None], [1, 0], [1, 2], ("label",))).decode()
    >>> text[:text.index("},{") + 1]
    '[{"index":1,"id":null,"position":1,"evaluation":{"label":"Five Small"}}'
    >>> text[text.index("},{") + 2:]
    '{"index":0,"id":"a","position":2,"evaluation":{"label":"Double-Ox 8"}}]'
    >>> [e["id"] for e in orjson.loads(orjson.dumps(ranking_json(r, ['"b"', "c"], [1, 0], [1, 1], ("nenku",))))]
    ['c', '"b"']
    >>> ranking_json(r, ["z"], [0], [1], ("nenku",))
    Traceback (most recent call last):
        ...
    ValueError: 2 hands, 1 ids, 1 in order and 1 positions
    """
    texts = evaluation_texts(resolution, fields, lang)
    n = len(texts)
    if not len(ids) == len(order) == len(positions) == n:
        raise ValueError(f"{n} hands, {len(ids)} ids, {len(order)} in order and {len(positions)} positions")
    if not n:
        return orjson.Fragment("[]")
    dumped = orjson.dumps(ids)
    quoted = b"\\" not in dumped and b"null" not in dumped  # no escape, no None (or an id holding "null")
    named = ids if quoted else [orjson.dumps(i).decode() for i in ids]
    heads, places = _ranked_parts(quoted, n)
    parts: list[Any] = [""] * (4 * n)  # texts, and ids (str: none is None when they go in as they are)
    parts[0::4] = _take(heads, order)
    parts[1::4] = _take(named, order)
    parts[2::4] = _take(places, positions)
    parts[3::4] = _take(texts, order)
    parts[0] = "[" + parts[0][2:]  # no entry before the first
    parts.append("}]")
    return orjson.Fragment("".join(parts))


#: Per table and class-only fieldset, each class's text (kept only while the engine keeps the table).
_CLASS_TEXTS: weakref.WeakKeyDictionary[Table, dict[tuple[tuple[str, ...], str], npt.NDArray[np.object_]]] = (
    weakref.WeakKeyDictionary())


def _class_texts(resolution: Resolution, fields: tuple[str, ...], lang: str) -> list[bytes]:
    """Each hand's evaluation with class-only ``fields`` as JSON bytes: one text per class
    and fieldset, written once per table (at most 31 fieldsets a table, in each language) and
    dropped with it.

    Under one set of rules a hand's score determines its category, label and payout
    (without a suited bonus), so each distinct score's text is written once and shared by
    its classes.
    """
    table = resolution.table
    known = _CLASS_TEXTS.setdefault(table, {})
    texts = known.get((fields, lang))
    if texts is None:
        texts = known[(fields, lang)] = np.full(len(table.entries), None, dtype=object)
    li = LANGUAGES.index(lang)
    missing = [k for k in set(resolution.classes) if texts[k] is None]
    if missing:
        by_score: dict[int, bytes] = {}
        for k in missing:
            entry = table.entry(k)
            text = by_score.get(entry.score)
            if text is None:
                data = {"category": entry.category.value, "label": entry.labels[li], "label_key": entry.label_key,
                        "score": entry.score, "payout": entry.payout}
                text = by_score[entry.score] = orjson.dumps({f: data[f] for f in fields})
            texts[k] = text
    found: list[bytes] = texts[np.asarray(resolution.classes, dtype=np.intp) if resolution.class_array is None
                               else resolution.class_array].tolist()
    return found
