"""marshmallow schemas of the request bodies (the shapes of openapi.yaml; the responses are
:mod:`service.response_schemas`, the analyses' requests :mod:`service.analysis_schemas`).

Cards are read by the engine's one reader (:mod:`service.engine.cards`,
:mod:`service.engine.batch` for a batch in one pass) and repeats found by its one counter
(:func:`~service.engine.cards.count_excess`); here their problems get marshmallow's keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from typing import Any, overload

from marshmallow import RAISE, Schema, ValidationError, fields, post_load, validate, validates_schema

from service.engine.batch import read_hands
from service.engine.bets import BETS, DEFAULT_BET
from service.engine.caps import MAX_BALANCE
from service.engine.cards import (
    HAND_SIZE,
    MAX_DECKS,
    SUITLESS_BASE,
    count_excess,
    duplicate_message,
    read_cards,
    read_hand,
)
from service.engine.knobs import Knob
from service.engine.rules import RULE_KNOBS
from service.engine.settle import MAX_MULTIPLE, MAX_STAKE
from service.one_pass import (
    MAX_ID_LENGTH,
    max_players,
    max_seats,
    plain_decks,
    plain_hands,
    plain_settlement,
    plain_showdown,
)

__all__ = [
    "MESSAGES",
    "BatchRequestSchema",
    "Entries",
    "EvaluationRequestSchema",
    "ExposureRequestSchema",
    "OnePassLoad",
    "RankingRequestSchema",
    "RulesOverridesSchema",
    "ScoringRequestSchema",
    "SettlementRequestSchema",
    "ShowdownRequestSchema",
    "bet_field",
    "card_codes",
    "duplicate_id_errors",
    "max_players",
    "max_seats",
]

MAX_BATCH = 10_000
MAX_RANKING = 1_000


def _messages(problems: Mapping[Any, str]) -> dict[Any, list[str]]:
    """The engine's card problems as marshmallow messages: ``None`` (the list itself) is ``_self``."""
    return {"_self" if i is None else i: [message] for i, message in problems.items()}


def card_codes(tokens: list[Any]) -> tuple[list[int | None], dict[Any, list[str]]]:
    """Read card tokens (:func:`~service.engine.cards.read_cards`): their codes (``None``
    where bad) and marshmallow's messages by index.

    >>> card_codes(["as", "1S"])
    ([3, None], {1: ["'1S' is not a card: write a rank (A 2-9 10 T 0 J Q K) then a suit (S H D C or ♠ ♥ ♦ ♣), e.g. 'AS' or '10H'"]})
    """
    codes, problems = read_cards(tokens)
    return codes, _messages(problems)


class HandField(fields.Field[Any]):
    """Five cards in any accepted notation, loaded as a list of card codes.

    A hand with bad cards still loads its good ones (``None`` for the bad) as
    ``valid_data``, so duplicate checks can run beside the card errors.
    """

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> list[int | None]:
        codes, problems = read_hand(value)
        if problems:
            raise ValidationError(_messages(problems), valid_data=codes)
        return codes


class HandsField(fields.Field[Any]):
    """A list of hands, checked in one pass (the batch path)."""

    def __init__(self, min_items: int, max_items: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.min_items = min_items
        self.max_items = max_items

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> Sequence[Sequence[int | None]]:
        if not isinstance(value, list):
            raise ValidationError("must be an array of hands")
        if not self.min_items <= len(value) <= self.max_items:
            raise ValidationError(f"must hold {self.min_items} to {self.max_items:,} hands, got {len(value):,}")
        hands, problems = read_hands(value)  # all valid: engine Hands, read in one pass
        if problems:
            raise ValidationError({i: _messages(found) for i, found in problems.items()}, valid_data=list(hands))
        return hands


#: Messages in the service's own words for what marshmallow would phrase its way.
MESSAGES: dict[str, str | list[Any] | dict[Any, Any]] = {
    "required": "is required",
    "null": "must not be null",
    "type": "must be an object",
    "unknown": "unknown field",
}


def _int(low: int, high: int, **kwargs: Any) -> fields.Integer:
    text = f"must be an integer from {low} to {high}"
    return fields.Integer(strict=True, validate=validate.Range(low, high, error=text),
                          error_messages={**MESSAGES, "invalid": text, "too_large": text}, **kwargs)


def _stake_field() -> fields.Integer:
    return _int(1, MAX_STAKE, required=True)


def _decks_field() -> fields.Integer:
    return _int(1, MAX_DECKS, load_default=1)


def _id_field() -> fields.String:
    return fields.String(load_default=None, allow_none=False, error_messages={**MESSAGES, "invalid": "must be a string"},
                         validate=validate.Length(max=MAX_ID_LENGTH, error=f"at most {MAX_ID_LENGTH} characters"))


def _choice(*choices: str, **kwargs: Any) -> fields.String:
    text = "must be one of " + ", ".join(choices)
    return fields.String(validate=validate.OneOf(choices, error=text), error_messages={**MESSAGES, "invalid": text},
                         **kwargs)


class BoundedList(fields.List[Any]):
    """A list whose length is checked before its items, so a huge list is one error."""

    def __init__(self, inner: fields.Field[Any], low: int, high: int, what: str, **kwargs: Any) -> None:
        self.text = f"must be an array of {low} to {high:,} {what}"
        super().__init__(inner, error_messages={**MESSAGES, "invalid": self.text}, **kwargs)
        self.low, self.high = low, high

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> list[Any]:
        if isinstance(value, list) and not self.low <= len(value) <= self.high:
            raise ValidationError(f"{self.text}, got {len(value):,}")
        return super()._deserialize(value, attr, data, **kwargs)


def _nested(schema: type[Schema] | Schema, **kwargs: Any) -> fields.Nested:
    return fields.Nested(schema, error_messages={**MESSAGES, "type": "must be an object"}, **kwargs)


class StrictBoolean(fields.Field[Any]):
    """``true`` or ``false`` only (marshmallow's Boolean also takes 1, "yes", ...)."""

    default_error_messages = {"invalid": "must be true or false"}  # noqa: RUF012

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class _Strict(Schema):
    error_messages = {"unknown": "unknown field", "type": "must be an object"}  # noqa: RUF012

    class Meta:
        unknown = RAISE  # marshmallow's default, stated: unknown fields are errors


class RankingField(BoundedList):
    """A ``ranking`` override: its length, then each category. A ranking with a bad item
    loads nothing (not the good items), so the engine's check of what loaded
    (:func:`service.engine.rules.apply_overrides`: each category once, ``no_ox`` last) never
    repeats what this field reported."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> list[Any]:
        try:
            return super()._deserialize(value, attr, data, **kwargs)
        except ValidationError as exc:
            raise ValidationError(exc.messages) from None


def _knob_field(knob: Knob) -> fields.Field[Any]:
    """The field of one knob override, from its declaration: the shape (type, range,
    choices, known keys) in the API's words. What a shape cannot say (a ranking's order) is
    left to the engine, which reports it after every other problem of the body."""
    if knob.kind == "bool":
        return StrictBoolean()
    if knob.kind == "int":
        return _int(knob.low, knob.high, allow_none=knob.nullable)
    if knob.kind == "choice":
        return _choice(*knob.choices)
    if knob.kind == "ranking":
        return RankingField(_choice(*knob.choices), knob.low, knob.high, "categories")
    payouts = _Strict.from_dict({key: _int(knob.low, knob.high) for key in knob.choices}, name="PayoutsSchema")
    return _nested(payouts)


#: Knob overrides (RULES.md section 7), one field per knob of :data:`RULE_KNOBS`, in order.
RulesOverridesSchema = _Strict.from_dict({name: _knob_field(knob) for name, knob in RULE_KNOBS.items()},
                                         name="RulesOverridesSchema")


class ScoringRequestSchema(_Strict):
    """What every scoring request may carry: ``decks`` (1..8, default 1) and ``rules``
    (knob overrides, RULES.md section 7)."""

    decks = _decks_field()
    rules = _nested(RulesOverridesSchema, load_default=None, allow_none=False)


class OnePassLoad:
    """A request schema's one-pass reader (:mod:`service.one_pass`), put before the schema's
    class among the bases: ``_plain(data)`` is the loaded data of a plainly valid body
    (exactly what the fields give), or ``None`` to load it through the fields."""

    @staticmethod
    def _plain(data: Any) -> dict[str, Any] | None:
        return None

    def load(self, data: Any, *args: Any, **kwargs: Any) -> Any:
        """marshmallow's ``load``, with the one-pass path for a plainly valid body."""
        if not args and not kwargs:
            fast = self._plain(data)
            if fast is not None:
                return fast
        return super().load(data, *args, **kwargs)  # type: ignore[misc]


class _OnePassSchema(OnePassLoad, ScoringRequestSchema):
    """A scoring request with a one-pass reader (:class:`OnePassLoad`)."""


def _excess_errors(path: Callable[[int], tuple[object, ...]], hands: Sequence[Sequence[int | None]], decks: int,
                   shared: bool) -> dict[Any, Any]:
    """Errors for cards beyond ``decks`` copies (:func:`~service.engine.cards.count_excess`),
    nested by path.

    :param path: the path of the hand at an index of ``hands``.
    :param hands: codes per hand; a code is ``None`` where the card was bad.
    :param shared: count across all hands (a table) rather than within each hand.
    """
    errors: dict[Any, Any] = {}
    for h, i, code in count_excess(hands, decks, shared=shared):
        node = errors
        for part in path(h):
            node = node.setdefault(part, {})
        node[i] = [duplicate_message(code, decks)]
    return errors


def _decks(data: Mapping[str, Any]) -> int | None:
    """The loaded ``decks`` (its default applied), or ``None`` when it was invalid."""
    decks = data.get("decks")
    return decks if isinstance(decks, int) else None


class EvaluationRequestSchema(ScoringRequestSchema):
    """``POST /v1/evaluations``: ``{"hand": [5 cards], "decks": 1, "rules": {...}}``.

    The most common body, ``{"hand": [five distinct cards]}``, loads without the field
    machinery (the same data: the tests compare the two); anything else, and every error,
    goes through the fields.

    >>> EvaluationRequestSchema().load({"hand": ["10S", "7h", "3D", "KC", "7D"]})
    {'decks': 1, 'rules': None, 'hand': [39, 26, 8, 49, 24]}
    """

    hand = HandField(required=True, error_messages=MESSAGES)

    def load(self, data: Any, *args: Any, **kwargs: Any) -> Any:
        """marshmallow's ``load``, with the fast path for a bare hand of known cards."""
        if not args and not kwargs and type(data) is dict and len(data) == 1:
            codes, problems = read_hand(data.get("hand"))
            # Five cards, none repeated, all suited (rank-only cards have counts of their own).
            if not problems and len(set(codes)) == HAND_SIZE and max(codes) < SUITLESS_BASE:  # type: ignore[type-var,operator]  # no None: no problems
                return {"decks": 1, "rules": None, "hand": codes}
        return super().load(data, *args, **kwargs)

    @validates_schema(skip_on_field_errors=False)
    def _check_cards(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        if decks and data.get("hand"):
            errors = _excess_errors(lambda _: ("hand",), [data["hand"]], decks, shared=False)
            if errors:
                raise ValidationError(errors)


class BatchRequestSchema(ScoringRequestSchema):
    """``POST /v1/evaluations/batch``: ``{"hands": [[5 cards], ...], "decks": 1}``."""

    hands = HandsField(1, MAX_BATCH, required=True, error_messages=MESSAGES)

    @validates_schema(skip_on_field_errors=False)
    def _check_cards(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        if decks and data.get("hands"):
            errors = _excess_errors(lambda h: ("hands", h), data["hands"], decks, shared=False)
            if errors:
                raise ValidationError(errors)


class RankingEntrySchema(_Strict):
    """One hand to rank: ``{"id": "optional", "hand": [5 cards]}``."""

    id = _id_field()
    hand = HandField(required=True, error_messages=MESSAGES)


class Entries(Sequence[dict[str, Any]]):
    """Loaded ranking entries read in one pass: their ids and their hands' codes (as one
    :class:`~service.engine.batch.Hands` from 48 hands on), each entry ``{"id", "hand"}``
    made only when asked for; equal to the list the fields load.

    >>> e = Entries(["a", None], [(3, 4, 9, 14, 19), (51, 44, 41, 38, 35)])
    >>> e[1], len(e), e == [{"id": "a", "hand": (3, 4, 9, 14, 19)}, {"id": None, "hand": (51, 44, 41, 38, 35)}]
    ({'id': None, 'hand': (51, 44, 41, 38, 35)}, 2, True)
    """

    __hash__ = None  # type: ignore[assignment]  # compares by value, like a list

    def __init__(self, ids: list[str | None], codes: Sequence[Sequence[int]]) -> None:
        self.ids = ids
        self.codes = codes

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [{"id": i, "hand": h} for i, h in zip(self.ids[index], self.codes[index], strict=True)]
        return {"id": self.ids[index], "hand": self.codes[index]}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return repr(list(self))


class RankingRequestSchema(_OnePassSchema):
    """``POST /v1/rankings``: 2 to 1,000 hands, each checked on its own.

    The common body (``hands`` of ``{"hand": [...], "id": "..."}`` entries, all valid, and
    ``decks`` at most) loads in one pass over the hands, without the field machinery (the
    same data: the tests compare the two); anything else, and every error, goes through
    the fields.

    >>> RankingRequestSchema().load({"hands": [{"id": "a", "hand": ["AS", "2D", "3C", "4H", "5S"]},
    ...                                        {"hand": ["KS", "QD", "JC", "10H", "9S"]}]})["hands"]
    [{'id': 'a', 'hand': [3, 4, 9, 14, 19]}, {'id': None, 'hand': [51, 44, 41, 38, 35]}]

    (Hands read in one pass come as tuples of codes: :class:`~service.engine.batch.Hands` rows.)
    """

    hands = BoundedList(_nested(RankingEntrySchema), 2, MAX_RANKING, "hands", required=True)

    @staticmethod
    def _plain(data: Any) -> dict[str, Any] | None:
        if type(data) is not dict or not data.keys() <= {"hands", "decks"}:
            return None
        decks, entries = plain_decks(data), data.get("hands")
        if decks is None or type(entries) is not list or not 2 <= len(entries) <= MAX_RANKING:
            return None
        # Checked a whole list at a time (C loops, no Python call per entry): objects holding
        # a "hand" and at most an "id", every id given a string of at most MAX_ID_LENGTH.
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
            if max(map(len, named)) > MAX_ID_LENGTH:
                return None
        codes = plain_hands(hands, decks, shared=False)
        if codes is None:
            return None
        return {"decks": decks, "rules": None, "hands": Entries(ids, codes)}

    @validates_schema(skip_on_field_errors=False)
    def _check_cards(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        if decks and isinstance(data.get("hands"), list):
            at = [i for i, e in enumerate(data["hands"]) if isinstance(e, dict) and e.get("hand")]
            errors = _excess_errors(lambda h: ("hands", at[h], "hand"), [data["hands"][i]["hand"] for i in at],
                                    decks, shared=False)
            if errors:
                raise ValidationError(errors)


#: What a multiple without the table's ``base`` is told (RULES.md 6.4).
NEEDS_BASE = "needs the table's base: with base, each stake is base × bid_multiple × bet_multiple"
#: What a stake beside the table's ``base`` is told (RULES.md 6.4).
BASE_AND_STAKE = ("give the table's base or each player's stake, not both: with base, each stake is "
                  "base × bid_multiple × bet_multiple")


class Refused(fields.Field[Any]):
    """A member this shape does not take, with the reason (a multiple without ``base``, a
    stake beside it): any value given is an error naming the member."""

    def __init__(self, reason: str, **kwargs: Any) -> None:
        super().__init__(error_messages={**MESSAGES, "refused": reason}, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Any:
        raise self.make_error("refused")


class ByBase(fields.Field[Any]):
    """A member whose shape depends on whether the table gives ``base`` (RULES.md 6.4): loaded
    by ``plain`` without it, by ``based`` with it. Both see the same body, so the one-pass
    readers and the fields load alike."""

    def __init__(self, plain: fields.Field[Any], based: fields.Field[Any], **kwargs: Any) -> None:
        super().__init__(error_messages=MESSAGES, **kwargs)
        self.plain, self.based = plain, based

    def _bind_to_schema(self, field_name: str, parent: Any) -> None:
        super()._bind_to_schema(field_name, parent)
        self.plain._bind_to_schema(field_name, parent)
        self.based._bind_to_schema(field_name, parent)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Any:
        chosen = self.based if isinstance(data, Mapping) and "base" in data else self.plain
        return chosen.deserialize(value, attr, data, **kwargs)


def _multiple_field() -> fields.Integer:
    return _int(1, MAX_MULTIPLE)


def _balance_field() -> fields.Integer:
    return _int(0, MAX_BALANCE)


def _base_field(**kwargs: Any) -> fields.Integer:
    return _int(1, MAX_STAKE, **kwargs)


class DealerSchema(_Strict):
    """The dealer: ``{"hand": [5 cards]}``, and ``balance`` under ``table`` caps (RULES.md 6.5)."""

    hand = HandField(required=True, error_messages=MESSAGES)
    bid_multiple: fields.Field[Any] = Refused(NEEDS_BASE)
    balance = _balance_field()


class BaseDealerSchema(DealerSchema):
    """The dealer at a table with ``base``: also its ``bid_multiple`` (1..100, default 1)."""

    bid_multiple = _multiple_field()


def bet_field() -> fields.String:
    """A ``bet`` member: ``double`` (the default) or ``equal`` (RULES.md section 6.1)."""
    return _choice(*BETS, load_default=DEFAULT_BET)


class PlayerSchema(_Strict):
    """A player: ``{"id": "optional", "hand": [5 cards], "stake": 100, "bet": "double"}``, and
    ``balance`` under caps (RULES.md 6.5)."""

    id = _id_field()
    hand = HandField(required=True, error_messages=MESSAGES)
    stake: fields.Field[Any] = _stake_field()
    bet = bet_field()
    bet_multiple: fields.Field[Any] = Refused(NEEDS_BASE)
    balance = _balance_field()


class BasePlayerSchema(PlayerSchema):
    """A player at a table with ``base`` (RULES.md 6.4): ``bet_multiple`` (1..100, default 1)
    instead of a stake."""

    stake = Refused(BASE_AND_STAKE)
    bet_multiple = _multiple_field()


def _seat_errors(data: Mapping[str, Any], decks: int, most: int, besides: str) -> dict[Any, Any]:
    """The problem of more players than ``decks`` seat (``most``), as marshmallow messages."""
    players = data.get("players")
    if isinstance(players, list) and len(players) > most:
        return {"players": {"_self": [f"{decks} deck{'s' if decks > 1 else ''} can seat at most {most} players"
                                      f"{besides}, got {len(players)}"]}}
    return {}


def _product_errors(data: Mapping[str, Any], bid: int | None) -> dict[Any, Any]:
    """With a valid ``base``: each player whose stake, ``base × bid × bet_multiple``, is over
    the stake bound (DECISIONS 27: the error names ``/players/i/bet_multiple``); ``bid`` is
    ``None`` at a showdown (no dealer, DECISIONS 20: ``base × bet_multiple``)."""
    product = "base × bet_multiple" if bid is None else "base × bid_multiple × bet_multiple"
    bid = 1 if bid is None else bid
    base, players = data.get("base"), data.get("players")
    errors: dict[Any, Any] = {}
    if type(base) is not int or not isinstance(players, list):
        return errors
    for i, player in enumerate(players):
        multiple = player.get("bet_multiple", 1) if isinstance(player, dict) else 1
        if type(multiple) is int and base * bid * multiple > MAX_STAKE:
            errors[i] = {"bet_multiple": [f"{product} is {base * bid * multiple}, over the stake bound {MAX_STAKE}"]}
    return {"players": errors} if errors else {}


def duplicate_id_errors(data: Mapping[str, Any]) -> dict[Any, Any]:
    """Each player whose ``id`` repeats an earlier player's (DECISIONS 10: a ledger keys a
    table's results by id): the error names the later one, ``/players/i/id``, and says which
    player had it first. Players without an id are never duplicates.

    >>> duplicate_id_errors({"players": [{"id": "a"}, {"id": "b"}, {}, {"id": "a"}]})
    {'players': {3: {'id': ["repeats the id of /players/0: each player's id must be unique"]}}}
    """
    players = data.get("players")
    first: dict[str, int] = {}
    errors: dict[Any, Any] = {}
    for i, player in enumerate(players if isinstance(players, list) else []):
        id_ = player.get("id") if isinstance(player, dict) else None
        if isinstance(id_, str):
            if id_ in first:
                errors[i] = {"id": [f"repeats the id of /players/{first[id_]}: each player's id must be unique"]}
            else:
                first[id_] = i
    return {"players": errors} if errors else {}


def _merge(errors: dict[Any, Any], more: Mapping[Any, Any]) -> None:
    """Add nested messages ``more`` into ``errors`` (objects merged key by key)."""
    for key, value in more.items():
        if isinstance(errors.get(key), dict) and isinstance(value, Mapping):
            _merge(errors[key], value)
        else:
            errors[key] = value


def _bid(data: Mapping[str, Any]) -> int:
    dealer = data.get("dealer")
    bid = dealer.get("bid_multiple", 1) if isinstance(dealer, dict) else 1
    return bid if type(bid) is int else 1


def _with_stakes(data: dict[str, Any]) -> dict[str, Any]:
    """A loaded table with ``base``: each player's ``stake`` set to ``base × bid_multiple ×
    bet_multiple`` (RULES.md 6.4); a table without ``base`` as it is."""
    if "base" in data:
        bid = _bid(data)
        for player in data["players"]:
            player["stake"] = data["base"] * bid * player.get("bet_multiple", 1)
    return data


class SettlementRequestSchema(_OnePassSchema):
    """``POST /v1/settlements``: a dealer, 1 to 82 players; cards counted across the table.

    A table gives each player's ``stake``, or the room's ``base`` with the dealer's
    ``bid_multiple`` and each player's ``bet_multiple`` (RULES.md 6.4): then each loaded
    player's ``stake`` is their product. Balances (6.5) are loaded as given; whether the
    rules take them is checked with the rules (:mod:`service.operations.scoring`).

    A plainly valid body (either form, balances included, no ``rules``) loads in one pass
    (:func:`~service.one_pass.plain_settlement`), without the field machinery (the same data:
    the tests compare the two); anything else goes through the fields.
    """

    dealer = ByBase(_nested(DealerSchema), _nested(BaseDealerSchema), required=True)
    players = ByBase(BoundedList(_nested(PlayerSchema), 1, max_players(MAX_DECKS), "players"),
                     BoundedList(_nested(BasePlayerSchema), 1, max_players(MAX_DECKS), "players"), required=True)
    base = _base_field()

    _plain = staticmethod(plain_settlement)

    @validates_schema(skip_on_field_errors=False)
    def _check_table(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        errors = duplicate_id_errors(data)
        if not decks:
            if errors:
                raise ValidationError(errors)
            return
        _merge(errors, _seat_errors(data, decks, max_players(decks), " besides the dealer"))
        players = data.get("players")
        paths: list[tuple[object, ...]] = []
        hands: list[Sequence[int | None]] = []
        dealer = data.get("dealer")
        if isinstance(dealer, dict) and dealer.get("hand"):
            paths.append(("dealer", "hand"))
            hands.append(dealer["hand"])
        for i, player in enumerate(players if isinstance(players, list) else []):
            if isinstance(player, dict) and player.get("hand"):
                paths.append(("players", i, "hand"))
                hands.append(player["hand"])
        _merge(errors, _excess_errors(paths.__getitem__, hands, decks, shared=True))
        _merge(errors, _product_errors(data, _bid(data)))
        if errors:
            raise ValidationError(errors)

    @post_load
    def _stakes(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return _with_stakes(data)


class ExposureSeatSchema(_Strict):
    """A seat before the deal: ``{"id": "optional", "stake": 100, "bet": "double"}``; a
    ``balance`` is the question of the largest bet multiple (RULES.md 6.5)."""

    id = _id_field()
    stake: fields.Field[Any] = _stake_field()
    bet = bet_field()
    bet_multiple: fields.Field[Any] = Refused(NEEDS_BASE)
    balance = _balance_field()


class BaseExposureSeatSchema(ExposureSeatSchema):
    """A seat at a table with ``base``: ``bet_multiple`` (1..100, default 1) instead of a stake."""

    stake = Refused(BASE_AND_STAKE)
    bet_multiple = _multiple_field()


class ExposureDealerSchema(_Strict):
    """The dealer before the deal: ``balance`` (the question of the largest bid multiple)."""

    bid_multiple: fields.Field[Any] = Refused(NEEDS_BASE)
    balance = _balance_field()


class BaseExposureDealerSchema(ExposureDealerSchema):
    """The dealer at a table with ``base``: also its ``bid_multiple``."""

    bid_multiple = _multiple_field()


class ExposureRequestSchema(ScoringRequestSchema):
    """``POST /v1/exposures``: 1 to 82 seats (no hands), as many as ``decks`` can seat; with
    ``base``, multiples instead of stakes, and balances (RULES.md 6.5; DECISIONS 21).

    >>> ExposureRequestSchema().load({"players": [{"stake": 5, "bet": "equal"}]})["players"]
    [{'id': None, 'stake': 5, 'bet': 'equal'}]
    >>> ExposureRequestSchema().load({"base": 10, "dealer": {"bid_multiple": 3}, "players": [{"bet_multiple": 2}]})["players"]
    [{'id': None, 'bet': 'double', 'bet_multiple': 2, 'stake': 60}]
    """

    players = ByBase(BoundedList(_nested(ExposureSeatSchema), 1, max_players(MAX_DECKS), "players"),
                     BoundedList(_nested(BaseExposureSeatSchema), 1, max_players(MAX_DECKS), "players"), required=True)
    dealer = ByBase(_nested(ExposureDealerSchema), _nested(BaseExposureDealerSchema))
    base = _base_field()

    @validates_schema(skip_on_field_errors=False)
    def _check_seats(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        errors = _seat_errors(data, decks, max_players(decks), " besides the dealer") if decks else {}
        _merge(errors, duplicate_id_errors(data))
        _merge(errors, _product_errors(data, _bid(data)))
        seats = [data.get("dealer"), *(data.get("players") or [])]
        if "base" not in data and any(isinstance(x, dict) and "balance" in x for x in seats):
            errors["base"] = ["is required with a balance: the largest multiples answered are multiples of the base"]
        if errors:
            raise ValidationError(errors)

    @post_load
    def _stakes(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return _with_stakes(data)


class ShowdownPlayerSchema(_Strict):
    """A player of a showdown: ``{"id": "optional", "hand": [5 cards], "bet_multiple": 1}``,
    and ``balance`` under caps (RULES.md 6.6). No stake and no bet type: the amounts come from
    ``base`` and the multiples."""

    id = _id_field()
    hand = HandField(required=True, error_messages=MESSAGES)
    bet_multiple = _multiple_field()
    balance = _balance_field()


class ShowdownRequestSchema(_OnePassSchema):
    """``POST /v1/showdowns``: ``base`` and 2 to ``floor(52 × decks / 5)`` players, no dealer;
    cards counted across the table (RULES.md 6.6; DECISIONS 19-20).

    >>> ShowdownRequestSchema().load({"base": 10, "players": [{"hand": ["JS", "9H", "AD", "5C", "5D"]},
    ...                                                        {"hand": ["7S", "3H", "JH", "8C", "10C"], "bet_multiple": 4}]})["players"][1]
    {'id': None, 'hand': [27, 10, 42, 29, 37], 'bet_multiple': 4}
    """

    base = _base_field(required=True)
    players = BoundedList(_nested(ShowdownPlayerSchema), 2, max_seats(MAX_DECKS), "players", required=True)

    _plain = staticmethod(plain_showdown)

    @validates_schema(skip_on_field_errors=False)
    def _check_table(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        errors = duplicate_id_errors(data)
        if not decks:
            if errors:
                raise ValidationError(errors)
            return
        _merge(errors, _seat_errors(data, decks, max_seats(decks), ""))
        given = data.get("players")
        players: list[Any] = given if isinstance(given, list) else []
        at = [i for i, p in enumerate(players) if isinstance(p, dict) and p.get("hand")]
        _merge(errors, _excess_errors(lambda h: ("players", at[h], "hand"), [players[i]["hand"] for i in at],
                                      decks, shared=True))
        _merge(errors, _product_errors(data, None))
        if errors:
            raise ValidationError(errors)
