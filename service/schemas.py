"""marshmallow schemas of the request bodies (the shapes of openapi.yaml; the responses are
:mod:`service.response_schemas`, the analyses' requests :mod:`service.analysis_schemas`).

Cards are read by the engine's one reader (:mod:`service.engine.cards`,
:mod:`service.engine.batch` for a batch in one pass) and repeats found by its one counter
(:func:`~service.engine.cards.count_excess`); here their problems get marshmallow's keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, overload

from marshmallow import RAISE, Schema, ValidationError, fields, post_load, validate, validates_schema

from service.engine.batch import read_hands
from service.engine.cards import read_cards, read_hand
from service.engine.knobs import Knob
from service.engine.rules import RULE_KNOBS
from service.members import (
    BATCH,
    EVALUATION,
    EXPOSURE,
    NO_DEFAULT,
    PLAYER,
    RANKING,
    SCORING,
    SETTLEMENT,
    SHOWDOWN,
    Body,
    Member,
    bid_multiple,
    duplicate_id_errors,
    excess_errors,
    product_errors,
    seat_errors,
    with_stakes,
)
from service.one_pass import plain_evaluation, plain_ranking, plain_settlement, plain_showdown

__all__ = [
    "MESSAGES",
    "BatchRequestSchema",
    "ByBase",
    "Entries",
    "EvaluationRequestSchema",
    "ExposureRequestSchema",
    "FieldKinds",
    "RankingRequestSchema",
    "RequestSchema",
    "RulesOverridesSchema",
    "ScoringRequestSchema",
    "SettlementRequestSchema",
    "ShowdownRequestSchema",
    "bet_field",
    "card_codes",
    "fields_of",
    "member_field",
]


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


#: Fields for the member kinds that a module's own field classes load (e.g. the deals'
#: seeds), by kind: each builds the field of a member from its declaration and the
#: ``required``/``load_default`` arguments.
FieldKinds = Mapping[str, Callable[..., fields.Field[Any]]]


def _presence(member: Member) -> dict[str, Any]:
    """marshmallow's arguments for whether a member must be given, and its default."""
    presence: dict[str, Any] = {"required": True} if member.required else {}
    if member.default is not NO_DEFAULT:
        presence["load_default"] = member.default
    return presence


def member_field(member: Member, kinds: FieldKinds | None = None) -> fields.Field[Any]:
    """The field of one request member, from its declaration (:class:`~service.members.Member`),
    in the API's words: the one-pass reader is built from the same declaration
    (:func:`service.one_pass.object_reader`).

    :param kinds: fields for the kinds this module does not build (:data:`FieldKinds`).
    :raises ValueError: for a kind no field is given for.
    """
    presence = _presence(member)
    if member.based is not None:
        return ByBase(member_field(member.plain, kinds), member_field(member.based, kinds), **presence)
    kind = member.kind
    if kinds is not None and kind in kinds:
        return kinds[kind](member, error_messages=MESSAGES, **presence)
    if kind == "int":
        return _int(member.low, member.high, **presence)
    if kind == "id":
        return fields.String(allow_none=False, error_messages={**MESSAGES, "invalid": "must be a string"},
                             validate=validate.Length(max=member.high, error=f"at most {member.high} characters"),
                             **presence)
    if kind == "choice":
        return _choice(*member.choices, **presence)
    if kind == "hand":
        return HandField(error_messages=MESSAGES, **presence)
    if kind == "hands":
        return HandsField(member.low, member.high, error_messages=MESSAGES, **presence)
    if kind == "refused":
        return Refused(member.reason, **presence)
    if kind == "overrides":
        return _nested(RulesOverridesSchema, allow_none=False, **presence)
    if member.body is not None and kind == "body":
        return _nested(schema_of(member.body), **presence)
    if member.body is not None and kind == "list":
        return BoundedList(_nested(schema_of(member.body)), member.low, member.high, member.what, **presence)
    raise ValueError(f"no field for a {kind} member")


def fields_of(body: Body, kinds: FieldKinds | None = None) -> dict[str, fields.Field[Any]]:
    """The fields of a body's members (:func:`member_field`), in order: a schema's
    ``Meta.include``.

    >>> list(fields_of(SHOWDOWN))
    ['decks', 'rules', 'base', 'players']
    """
    return {name: member_field(member, kinds) for name, member in body.items()}


_SCHEMAS: dict[str, type[Schema]] = {}


def schema_of(body: Body) -> type[Schema]:
    """The schema of a nested body (one per body, named for it)."""
    if body.name not in _SCHEMAS:
        _SCHEMAS[body.name] = _Strict.from_dict(fields_of(body), name=body.name)
    return _SCHEMAS[body.name]


def bet_field() -> fields.String:
    """A ``bet`` member: ``double`` (the default) or ``equal`` (RULES.md section 6.1)."""
    return _choice(*PLAYER["bet"].choices, **_presence(PLAYER["bet"]))


class RequestSchema(_Strict):
    """A request body's schema: its fields come from the body's declaration
    (:mod:`service.members`, ``Meta.include``).

    :meth:`read` is how a request is read: the schema's one-pass reader first
    (:meth:`one_pass`), then the fields (marshmallow's ``load``) for anything it leaves.
    ``load`` itself is marshmallow's, untouched: every problem is found there.
    """

    #: The body's declaration, which ``Meta.include`` builds the fields from (``None``: the
    #: schema declares its fields itself).
    members: ClassVar[Body | None] = None

    def one_pass(self, data: Any) -> dict[str, Any] | None:
        """The body as the fields would load it, read in one pass when it is plainly valid;
        ``None`` (this base schema: always) leaves it to the fields."""
        return None

    def read(self, data: Any) -> dict[str, Any]:
        """The body loaded: by :meth:`one_pass` when it takes it, else by the fields.

        :raises marshmallow.ValidationError: the fields' problems (messages by member).
        """
        plain = self.one_pass(data)
        if plain is not None:
            return plain
        loaded: dict[str, Any] = self.load(data)
        return loaded


def _merge(errors: dict[Any, Any], more: Mapping[Any, Any]) -> None:
    """Add nested messages ``more`` into ``errors`` (objects merged key by key)."""
    for key, value in more.items():
        if isinstance(errors.get(key), dict) and isinstance(value, Mapping):
            _merge(errors[key], value)
        else:
            errors[key] = value


def _decks(data: Mapping[str, Any]) -> int | None:
    """The loaded ``decks`` (its default applied), or ``None`` when it was invalid."""
    decks = data.get("decks")
    return decks if isinstance(decks, int) else None


class ScoringRequestSchema(RequestSchema):
    """What every scoring request may carry (:data:`~service.members.SCORING`): ``decks``
    (1..8, default 1) and ``rules`` (knob overrides, RULES.md section 7)."""

    members = SCORING

    class Meta(RequestSchema.Meta):
        include = fields_of(SCORING)


class EvaluationRequestSchema(ScoringRequestSchema):
    """``POST /v1/evaluations``: ``{"hand": [5 cards], "decks": 1, "rules": {...}}``
    (:data:`~service.members.EVALUATION`).

    The most common body, ``{"hand": [five distinct cards]}``, is read in one pass
    (:func:`~service.one_pass.plain_evaluation`; the same data: the tests compare the two);
    anything else, and every error, goes through the fields.

    >>> EvaluationRequestSchema().read({"hand": ["10S", "7h", "3D", "KC", "7D"]})
    {'decks': 1, 'rules': None, 'hand': [39, 26, 8, 49, 24]}
    """

    members = EVALUATION

    class Meta(RequestSchema.Meta):
        include = fields_of(EVALUATION)

    def one_pass(self, data: Any) -> dict[str, Any] | None:
        """A bare hand of five distinct known cards (:func:`~service.one_pass.plain_evaluation`)."""
        return plain_evaluation(data)

    @validates_schema(skip_on_field_errors=False)
    def _check_cards(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        if decks and data.get("hand"):
            errors = excess_errors(lambda _: ("hand",), [data["hand"]], decks, shared=False)
            if errors:
                raise ValidationError(errors)


class BatchRequestSchema(ScoringRequestSchema):
    """``POST /v1/evaluations/batch``: ``{"hands": [[5 cards], ...], "decks": 1}``
    (:data:`~service.members.BATCH`; its hands are read in one pass by their field)."""

    members = BATCH

    class Meta(RequestSchema.Meta):
        include = fields_of(BATCH)

    @validates_schema(skip_on_field_errors=False)
    def _check_cards(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        if decks and data.get("hands"):
            errors = excess_errors(lambda h: ("hands", h), data["hands"], decks, shared=False)
            if errors:
                raise ValidationError(errors)


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


class RankingRequestSchema(ScoringRequestSchema):
    """``POST /v1/rankings``: 2 to 1,000 hands, each checked on its own
    (:data:`~service.members.RANKING`).

    The common body (``hands`` of ``{"hand": [...], "id": "..."}`` entries, all valid, and
    ``decks`` at most) is read in one pass over the hands (:func:`~service.one_pass.plain_ranking`),
    without the field machinery (the same data: the tests compare the two); anything else,
    and every error, goes through the fields.

    >>> RankingRequestSchema().read({"hands": [{"id": "a", "hand": ["AS", "2D", "3C", "4H", "5S"]},
    ...                                        {"hand": ["KS", "QD", "JC", "10H", "9S"]}]})["hands"]
    [{'id': 'a', 'hand': [3, 4, 9, 14, 19]}, {'id': None, 'hand': [51, 44, 41, 38, 35]}]

    (Hands read in one pass come as tuples of codes from 48 hands on:
    :class:`~service.engine.batch.Hands` rows.)
    """

    members = RANKING

    class Meta(RequestSchema.Meta):
        include = fields_of(RANKING)

    def one_pass(self, data: Any) -> dict[str, Any] | None:
        """The entries' ids and hands read a whole list at a time (:func:`~service.one_pass.plain_ranking`),
        as :class:`Entries`."""
        plain = plain_ranking(data)
        if plain is None:
            return None
        decks, ids, codes = plain
        return {"decks": decks, "rules": None, "hands": Entries(ids, codes)}

    @validates_schema(skip_on_field_errors=False)
    def _check_cards(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        if decks and isinstance(data.get("hands"), list):
            at = [i for i, e in enumerate(data["hands"]) if isinstance(e, dict) and e.get("hand")]
            errors = excess_errors(lambda h: ("hands", at[h], "hand"), [data["hands"][i]["hand"] for i in at],
                                   decks, shared=False)
            if errors:
                raise ValidationError(errors)


class SettlementRequestSchema(ScoringRequestSchema):
    """``POST /v1/settlements``: a dealer, 1 to 82 players; cards counted across the table
    (:data:`~service.members.SETTLEMENT`).

    A table gives each player's ``stake``, or the room's ``base`` with the dealer's
    ``bid_multiple`` and each player's ``bet_multiple`` (RULES.md 6.4): then each loaded
    player's ``stake`` is their product. Balances (6.5) are loaded as given; whether the
    rules take them is checked with the rules (:mod:`service.operations.scoring`).

    A plainly valid body (either form, balances included, no ``rules``) is read in one pass
    (:func:`~service.one_pass.plain_settlement`), without the field machinery (the same data:
    the tests compare the two); anything else goes through the fields.
    """

    members = SETTLEMENT

    class Meta(RequestSchema.Meta):
        include = fields_of(SETTLEMENT)

    def one_pass(self, data: Any) -> dict[str, Any] | None:
        """A plainly valid table (:func:`~service.one_pass.plain_settlement`)."""
        return plain_settlement(data)

    @validates_schema(skip_on_field_errors=False)
    def _check_table(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        errors = duplicate_id_errors(data)
        if not decks:
            if errors:
                raise ValidationError(errors)
            return
        _merge(errors, seat_errors(data, decks, dealer=True))
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
        _merge(errors, excess_errors(paths.__getitem__, hands, decks, shared=True))
        _merge(errors, product_errors(data, bid_multiple(data)))
        if errors:
            raise ValidationError(errors)

    @post_load
    def _stakes(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return with_stakes(data)


class ExposureRequestSchema(ScoringRequestSchema):
    """``POST /v1/exposures``: 1 to 82 seats (no hands), as many as ``decks`` can seat; with
    ``base``, multiples instead of stakes, and balances (RULES.md 6.5;
    :data:`~service.members.EXPOSURE`).

    >>> ExposureRequestSchema().load({"players": [{"stake": 5, "bet": "equal"}]})["players"]
    [{'id': None, 'stake': 5, 'bet': 'equal'}]
    >>> ExposureRequestSchema().load({"base": 10, "dealer": {"bid_multiple": 3}, "players": [{"bet_multiple": 2}]})["players"]
    [{'id': None, 'bet': 'double', 'bet_multiple': 2, 'stake': 60}]
    """

    members = EXPOSURE

    class Meta(RequestSchema.Meta):
        include = fields_of(EXPOSURE)

    @validates_schema(skip_on_field_errors=False)
    def _check_seats(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        errors = seat_errors(data, decks, dealer=True) if decks else {}
        _merge(errors, duplicate_id_errors(data))
        _merge(errors, product_errors(data, bid_multiple(data)))
        seats = [data.get("dealer"), *(data.get("players") or [])]
        if "base" not in data and any(isinstance(x, dict) and "balance" in x for x in seats):
            errors["base"] = ["is required with a balance: the largest multiples answered are multiples of the base"]
        if errors:
            raise ValidationError(errors)

    @post_load
    def _stakes(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return with_stakes(data)


class ShowdownRequestSchema(ScoringRequestSchema):
    """``POST /v1/showdowns``: ``base`` and 2 to ``floor(52 × decks / 5)`` players, no dealer;
    cards counted across the table (RULES.md 6.6; :data:`~service.members.SHOWDOWN`).

    >>> ShowdownRequestSchema().read({"base": 10, "players": [{"hand": ["JS", "9H", "AD", "5C", "5D"]},
    ...                                                        {"hand": ["7S", "3H", "JH", "8C", "10C"], "bet_multiple": 4}]})["players"][1]
    {'id': None, 'hand': [27, 10, 42, 29, 37], 'bet_multiple': 4}
    """

    members = SHOWDOWN

    class Meta(RequestSchema.Meta):
        include = fields_of(SHOWDOWN)

    def one_pass(self, data: Any) -> dict[str, Any] | None:
        """A plainly valid showdown (:func:`~service.one_pass.plain_showdown`)."""
        return plain_showdown(data)

    @validates_schema(skip_on_field_errors=False)
    def _check_table(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = _decks(data)
        errors = duplicate_id_errors(data)
        if not decks:
            if errors:
                raise ValidationError(errors)
            return
        _merge(errors, seat_errors(data, decks, dealer=False))
        given = data.get("players")
        players: list[Any] = given if isinstance(given, list) else []
        at = [i for i, p in enumerate(players) if isinstance(p, dict) and p.get("hand")]
        _merge(errors, excess_errors(lambda h: ("players", at[h], "hand"), [players[i]["hand"] for i in at],
                                     decks, shared=True))
        _merge(errors, product_errors(data, None))
        if errors:
            raise ValidationError(errors)
