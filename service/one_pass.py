"""Reading plainly valid request bodies in one pass (the hot path of settlements, showdowns,
rankings, deals and single evaluations).

The request schemas (:mod:`service.schemas`) load a body through marshmallow's fields, which
costs about 0.3 ms a player. Most bodies are plainly valid: every member of the expected
type and range, every card known and within ``decks`` copies, no player's id repeated. The
readers here load such a body with plain checks and the engine's one-pass card reader
(:func:`~service.engine.batch.read_hands`), and give exactly what the fields give; any doubt,
and every error, is left to the fields (``None``). A schema's ``read`` tries its reader
first (:meth:`service.schemas.RequestSchema.read`).

Both readers are built from the same declarations (:mod:`service.members`): the checks of
each member here come from :func:`object_reader`, and the rules across members are the
one-pass twins declared beside the fields' checks (``tests/test_members.py`` holds the two
readers to the declarations; ``tests/engine/test_fast_paths.py`` compares them on valid and
invalid variants).

Settlements come in the forms of RULES.md 6-6.5: each player's ``stake``, or the table's
``base`` with the dealer's ``bid_multiple`` and each player's ``bet_multiple`` (the loaded
stake is their product), with ``balance`` members as given (whether the rules take them is
checked with the rules). Showdowns (RULES.md 6.6) have ``base`` and players only. A deal
(RULES.md 9.1) has its seeds, nonce, decks and hand count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any

from service.engine.batch import read_hands
from service.engine.cards import HAND_SIZE, SUITLESS_BASE, count_excess, read_hand, seats
from service.members import (
    DEAL,
    EVALUATION,
    NO_DEFAULT,
    RANKING,
    RANKING_ENTRY,
    SETTLEMENT,
    SHOWDOWN,
    Body,
    Member,
    bid_multiple,
    distinct_ids,
    products_hold,
    table_seats,
    with_stakes,
)

__all__ = ["NOT_PLAIN", "Reader", "Slots", "defaults", "member_reader", "object_reader", "plain_deal", "plain_evaluation",
           "plain_hands", "plain_ranking", "plain_settlement", "plain_showdown", "read_slots"]

#: The hands a reader met, in body order: ``(codes loaded, value given)``; the codes list
#: is empty until the hands are read together (:func:`read_slots`), which fills it.
Slots = list[tuple[list[int], Any]]
#: A member's one-pass reader: ``(value given, slots)`` to the value loaded, or
#: :data:`NOT_PLAIN`.
Reader = Callable[[Any, Slots], Any]

#: What a reader answers for a value that is not plainly valid (left to the fields).
NOT_PLAIN: Any = object()
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def member_reader(member: Member) -> Reader:
    """The one-pass reader of one member, from its declaration: the value as the field loads
    it when plainly valid, else :data:`NOT_PLAIN`. A hand is loaded as a list that
    :func:`read_slots` fills once the table's hands are read together; a ``body`` or a
    ``list`` is read by its body's :func:`object_reader`.

    :raises ValueError: for a kind that has no one-pass reader (the body's reader cannot be
        built: its schema has no one-pass reader).

    >>> from service.members import PLAYER
    >>> read = member_reader(PLAYER["stake"])
    >>> read(5, []), read(True, []) is read(0, []) is read(5.0, []) is NOT_PLAIN
    (5, True)
    """
    kind, low, high = member.kind, member.low, member.high
    if kind in _WRITTEN_OUT:  # the checks reader_source writes out, as a function of their own
        names: dict[str, Any] = {"NOT_PLAIN": NOT_PLAIN}
        lines = ["def read(v, slots):", *(line[4:] for line in _check_lines(member, 0, names)), "    return v"]
        return _compiled("\n".join(lines), names, f"{kind} member")
    if kind in ("refused", "overrides"):  # given: left to the fields (a refusal, or rules to apply)
        return lambda v, _: NOT_PLAIN
    if member.body is not None and kind == "body":
        return object_reader(member.body)
    if member.body is not None and kind == "list":
        item = object_reader(member.body)

        def items(v: Any, slots: Slots) -> Any:
            if type(v) is not list or not low <= len(v) <= high:
                return NOT_PLAIN
            out = []
            for entry in v:
                loaded = item(entry, slots)
                if loaded is NOT_PLAIN:
                    return NOT_PLAIN
                out.append(loaded)
            return out
        return items
    raise ValueError(f"a {kind} member has no one-pass reader")


def defaults(body: Body) -> dict[str, Any]:
    """What ``body``'s absent members load as (those with a default), in order.

    >>> defaults(EVALUATION)
    {'decks': 1, 'rules': None}
    """
    return {name: m.default for name, m in body.items() if m.default is not NO_DEFAULT}


def reader_source(body: Body, based: bool = False) -> tuple[str, dict[str, Any]]:
    """The source of the one-pass reader of ``body``'s objects (:func:`object_reader`), and
    the names it uses besides its arguments. The reader is written out member by member,
    as one would write it by hand (the checks of :func:`member_reader`, inline for the
    commonest kinds), so that it costs what a hand-written reader costs.

    :param based: the reader of the ``base`` form of the members that have one.

    >>> print(reader_source(RANKING_ENTRY)[0])
    def read(data, slots):
        if type(data) is not dict or not data.keys() <= KEYS:
            return NOT_PLAIN
        out = {}
        if 'id' in data:
            v = data['id']
            if type(v) is not str or len(v) > 128:
                return NOT_PLAIN
            out['id'] = v
        else:
            out['id'] = DEFAULT_0
        if 'hand' in data:
            v = data['hand']
            codes = []
            slots.append((codes, v))
            v = codes
            out['hand'] = v
        else:
            return NOT_PLAIN
        return out
    """
    names: dict[str, Any] = {"NOT_PLAIN": NOT_PLAIN, "KEYS": frozenset(body.members)}
    lines = ["def read(data, slots):",
             "    if type(data) is not dict or not data.keys() <= KEYS:",
             "        return NOT_PLAIN",
             "    out = {}"]
    for i, (name, declared) in enumerate(body.items()):
        if callable(declared.default):
            raise ValueError(f"{body.name}.{name}: a default made per body has no one-pass reader")
        member = declared.based if based and declared.based is not None else declared
        key = repr(name)
        lines += [f"    if {key} in data:", f"        v = data[{key}]", *_check_lines(member, i, names),
                  f"        out[{key}] = v"]
        if declared.required:
            lines += ["    else:", "        return NOT_PLAIN"]
        elif declared.default is not NO_DEFAULT:
            names[f"DEFAULT_{i}"] = declared.default
            lines += ["    else:", f"        out[{key}] = DEFAULT_{i}"]
    lines.append("    return out")
    return "\n".join(lines), names


#: The kinds whose checks :func:`_check_lines` writes out (the others call their reader).
_WRITTEN_OUT = frozenset({"int", "id", "choice", "client_seed", "server_seed", "hand"})


def _check_lines(member: Member, i: int, names: dict[str, Any]) -> list[str]:
    """The lines of :func:`reader_source` that check ``v``, the value of its ``i``-th member
    (and load it: a seed's bytes, a hand's slot), adding the names they use to ``names``."""
    kind, low, high = member.kind, member.low, member.high
    if kind == "int":
        return [f"        if type(v) is not int or not {low} <= v <= {high}:", "            return NOT_PLAIN"]
    if kind == "id":
        return [f"        if type(v) is not str or len(v) > {high}:", "            return NOT_PLAIN"]
    if kind == "choice":
        names[f"CHOICES_{i}"] = frozenset(member.choices)
        return [f"        if type(v) is not str or v not in CHOICES_{i}:", "            return NOT_PLAIN"]
    if kind == "client_seed":
        return [f"        if type(v) is not str or not {low} <= len(v) <= {high}:", "            return NOT_PLAIN"]
    if kind == "server_seed":
        names["HEX_DIGITS"] = _HEX_DIGITS
        return [f"        if type(v) is not str or not {2 * low} <= len(v) <= {2 * high} or len(v) % 2 "
                "or not HEX_DIGITS.issuperset(v):", "            return NOT_PLAIN", "        v = bytes.fromhex(v)"]
    if kind == "hand":
        return ["        codes = []", "        slots.append((codes, v))", "        v = codes"]
    names[f"READ_{i}"] = member_reader(member)
    return [f"        v = READ_{i}(v, slots)", "        if v is NOT_PLAIN:", "            return NOT_PLAIN"]


def _compiled(source: str, names: dict[str, Any], what: str) -> Reader:
    """The function ``read`` that ``source`` defines (written here from the declarations)."""
    exec(compile(source, f"<one-pass reader of a {what}>", "exec"), names)  # our own source, from the declarations
    reader: Reader = names["read"]
    return reader


def object_reader(body: Body) -> Reader:
    """The one-pass reader of objects of ``body``'s members (RULES.md's request shapes): an
    object of known members, each required one given, each value taken as its
    :func:`member_reader` takes it (nested bodies and lists of them read alike), defaults
    applied for absent members, in declaration order (as the fields load). A member declared
    with a ``based`` form is read in that form when the object gives ``base``. Hands are
    left in the slots; the rules across members are the caller's. Its source:
    :func:`reader_source`.

    >>> from service.members import DEALER
    >>> slots: Slots = []
    >>> object_reader(DEALER)({"hand": ["AS", "2S", "3S", "4S", "6S"], "balance": 5}, slots), len(slots)
    ({'hand': [], 'balance': 5}, 1)
    >>> object_reader(DEALER)({"hand": ["AS", "2S", "3S", "4S", "6S"], "bid_multiple": 2}, slots) is NOT_PLAIN
    True
    """
    plain = _compiled(*reader_source(body), body.name)
    if not any(m.based is not None for _, m in body.items()):
        return plain
    based = _compiled(*reader_source(body, based=True), body.name)
    return lambda data, slots: (based if type(data) is dict and "base" in data else plain)(data, slots)


def plain_hands(hands: list[Any], decks: int, shared: bool) -> Sequence[Sequence[int]] | None:
    """The hands' codes when every hand is five known cards within ``decks`` copies of each
    (counted across the hands when ``shared``), else ``None``: the one-pass twin of
    :func:`service.members.excess_errors` and the hand fields."""
    codes, problems = read_hands(hands)
    if problems or count_excess(codes, decks, shared=shared):
        return None
    return codes  # type: ignore[return-value]  # no problems: no None codes


def read_slots(slots: Slots, decks: int, shared: bool) -> bool:
    """Read the hands a reader left in ``slots`` (:func:`plain_hands`) and set each one's
    codes (a list, as the fields load it) where it was met; ``False`` when any is not plain."""
    codes = plain_hands([value for _, value in slots], decks, shared)
    if codes is None:
        return False
    for (loaded, _), hand in zip(slots, codes, strict=True):
        loaded.extend(hand)
    return True


_SETTLEMENT = object_reader(SETTLEMENT)
_SHOWDOWN = object_reader(SHOWDOWN)
_DEAL = object_reader(DEAL)


def plain_settlement(data: Any) -> dict[str, Any] | None:
    """A settlement body (``POST /v1/settlements``) loaded in one pass, or ``None``: its
    members (:data:`~service.members.SETTLEMENT`), then the rules across them: the seats, the
    distinct ids, the factor products (each stake set to ``base × bid_multiple ×
    bet_multiple`` with ``base``, RULES.md 6.4) and the cards counted across the table.
    """
    slots: Slots = []
    out = _SETTLEMENT(data, slots)
    if out is NOT_PLAIN:
        return None
    players = out["players"]
    if len(players) > table_seats(out["decks"], dealer=True) or not distinct_ids(players):
        return None
    if "base" in out and not products_hold(out["base"], bid_multiple(out), players):
        return None
    return with_stakes(out) if read_slots(slots, out["decks"], shared=True) else None


def plain_showdown(data: Any) -> dict[str, Any] | None:
    """A showdown body (``POST /v1/showdowns``) loaded in one pass, or ``None``: its members
    (:data:`~service.members.SHOWDOWN`), the seats, the distinct ids, the factor products
    (``base × bet_multiple``) and the cards counted across the table.

    >>> plain_showdown({"base": 10, "players": [{"hand": ["AS", "2S", "3S", "4S", "6S"], "bet_multiple": 2},
    ...                                         {"id": "b", "hand": ["AH", "2H", "3H", "4H", "6H"]}]})["players"][0]
    {'id': None, 'hand': [3, 7, 11, 15, 23], 'bet_multiple': 2}
    """
    slots: Slots = []
    out = _SHOWDOWN(data, slots)
    if out is NOT_PLAIN:
        return None
    players = out["players"]
    if len(players) > table_seats(out["decks"], dealer=False) or not distinct_ids(players) or not products_hold(
            out["base"], 1, players):
        return None
    return out if read_slots(slots, out["decks"], shared=True) else None


def plain_deal(data: Any) -> dict[str, Any] | None:
    """A plainly valid ``POST /v1/deals`` body (RULES.md 9.1) as its schema loads it: the
    server seed as bytes, ``decks`` defaulted to 1, no more hands than the decks deal;
    ``None`` for anything else.

    >>> plain_deal({"server_seed": "00" * 16, "client_seed": "p", "nonce": 0, "hands": 2})
    {'server_seed': b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00', 'client_seed': 'p', 'nonce': 0, 'decks': 1, 'hands': 2}
    >>> plain_deal({"server_seed": "00" * 16, "client_seed": "p", "nonce": True, "hands": 2}) is None
    True
    """
    out: dict[str, Any] = _DEAL(data, [])
    if out is NOT_PLAIN or out["hands"] > seats(out["decks"]):  # the twin of too_many_hands
        return None
    return out


_EVALUATION_DEFAULTS = defaults(EVALUATION)
if [name for name, m in EVALUATION.items() if m.default is NO_DEFAULT] != ["hand"]:
    raise TypeError("plain_evaluation reads a body of one hand, every other member defaulted")


def plain_evaluation(data: Any) -> dict[str, Any] | None:
    """The commonest ``POST /v1/evaluations`` body, ``{"hand": [five distinct known cards]}``
    (every other member of :data:`~service.members.EVALUATION` at its default), loaded in
    one pass; ``None`` for anything else.

    >>> plain_evaluation({"hand": ["10S", "7h", "3D", "KC", "7D"]})
    {'decks': 1, 'rules': None, 'hand': [39, 26, 8, 49, 24]}
    >>> plain_evaluation({"hand": ["10S", "10S", "3D", "KC", "7D"]}) is None
    True
    """
    if type(data) is dict and len(data) == 1:
        codes, problems = read_hand(data.get("hand"))
        # Five cards, none repeated, all suited (rank-only cards have counts of their own: 1.1).
        if not problems and len(set(codes)) == HAND_SIZE and max(codes) < SUITLESS_BASE:  # type: ignore[type-var,operator]  # no None: no problems
            return {**_EVALUATION_DEFAULTS, "hand": codes}
    return None


# The ranking's entries are checked a whole list at a time (C loops, no Python call per
# entry), which holds for entries of an optional id and a required hand only.
if [(name, m.kind, m.required) for name, m in RANKING_ENTRY.items()] != [("id", "id", False), ("hand", "hand", True)]:
    raise TypeError("plain_ranking reads entries of an optional id and a hand only")
_RANKING_KEYS = frozenset(name for name, m in RANKING.items() if m.kind != "overrides")
_RANKING_DECKS = member_reader(RANKING["decks"])
_MAX_ID_LENGTH = RANKING_ENTRY["id"].high


def plain_ranking(data: Any) -> tuple[int, list[str | None], Sequence[Sequence[int]]] | None:
    """A ranking body (``POST /v1/rankings``) read in one pass: its ``decks``, its entries'
    ids (``None`` where not given) and their hands' codes; ``None`` for anything not plainly
    valid (:data:`~service.members.RANKING`; hands counted each on its own).

    >>> plain_ranking({"hands": [{"id": "a", "hand": ["AS", "2D", "3C", "4H", "5S"]},
    ...                          {"hand": ["KS", "QD", "JC", "10H", "9S"]}]})
    (1, ['a', None], [[3, 4, 9, 14, 19], [51, 44, 41, 38, 35]])
    """
    if type(data) is not dict or not data.keys() <= _RANKING_KEYS:
        return None
    decks, entries, bounds = _RANKING_DECKS(data.get("decks", RANKING["decks"].default), []), data.get("hands"), RANKING["hands"]
    if decks is NOT_PLAIN or type(entries) is not list or not bounds.low <= len(entries) <= bounds.high:
        return None
    try:  # TypeError: an entry is not an object; KeyError: it has no "hand"
        hands = list(map(dict.__getitem__, entries, repeat("hand")))
    except (TypeError, KeyError):
        return None
    ids: list[Any] = list(map(dict.get, entries, repeat("id")))
    absent = ids.count(None)
    # Each entry's "hand", and its "id" only where that is not null: no other member.
    if sum(map(len, entries)) != 2 * len(entries) - absent:
        return None
    if absent < len(ids):
        named = ids if not absent else [i for i in ids if i is not None]
        try:
            "".join(named)  # TypeError: an id is not a string
        except TypeError:
            return None
        if max(map(len, named)) > _MAX_ID_LENGTH:
            return None
    codes = plain_hands(hands, decks, shared=False)
    if codes is None:
        return None
    return decks, ids, codes
