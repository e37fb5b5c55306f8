"""Request shapes of the analyses (``POST /v1/odds``, ``POST /v1/analyses/...``), beside
:mod:`service.schemas`' scoring shapes, whose fields and base schema they share.

A card of ``hand`` and ``dead`` may appear at most ``decks`` times across both; the cards
left must hold the rest of the hand and every opponent's five.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from service.engine.analysis.partial import ROLES
from service.engine.cards import MAX_DECKS, count_excess, duplicate_message, seats
from service.schemas import MESSAGES, ScoringRequestSchema, bet_field, card_codes

__all__ = ["MAX_DEAD", "MAX_OPPONENTS", "MIN_KNOWN", "AnalysisRequestSchema", "CardsField", "HouseEdgeRequestSchema",
           "KnownCardsField", "OddsRequestSchema"]

#: The problem of ``opponents`` without ``role: dealer``.
NOT_DEALER = "opponents is for role dealer only (a player faces one dealer)"
#: Dead cards: at most every card of eight decks but the ten of two hands.
MAX_DEAD = 52 * MAX_DECKS - 10
#: Known cards for ``POST /v1/odds``: at least three (issue 14).
MIN_KNOWN = 3
#: The most opponents any request can name: eight decks, the dealer's hand, no dead cards.
MAX_OPPONENTS = seats(MAX_DECKS) - 1


class CardsField(fields.Field[Any]):
    """A list of cards in any accepted notation, loaded as card codes (``None`` where bad)."""

    def __init__(self, max_items: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_items = max_items

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> list[int | None]:
        if not isinstance(value, list):
            raise ValidationError("must be an array of cards")
        if len(value) > self.max_items:
            raise ValidationError(f"at most {self.max_items} cards, got {len(value)}")
        codes, errors = card_codes(value)
        if errors:
            raise ValidationError(errors, valid_data=codes)
        return codes


class KnownCardsField(CardsField):
    """The caller's known cards for odds: 3, 4 or 5 (issue 14), loaded as card codes."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> list[int | None]:
        if isinstance(value, list) and not MIN_KNOWN <= len(value) <= 5:
            raise ValidationError(f"odds need 3, 4 or 5 known cards, got {len(value)}")
        return super()._deserialize(value, attr, data, **kwargs)


class OddsRequestSchema(ScoringRequestSchema):
    """``POST /v1/odds``: ``{"hand": [3-5 cards], "dead": [cards], "decks": 1, "role": "player",
    "opponents": 1, "rules": {...}}``.

    A card may appear at most ``decks`` times across the hand and the dead cards; the
    cards left must hold the rest of the hand and every opponent's five. ``opponents`` is
    for ``role: dealer`` only (default 1).
    """

    hand = KnownCardsField(5, required=True, error_messages=MESSAGES)
    dead = CardsField(MAX_DEAD, load_default=list, error_messages=MESSAGES)
    role = fields.String(load_default="player", validate=validate.OneOf(ROLES, error=f"must be one of {', '.join(ROLES)}"),
                         error_messages={**MESSAGES, "invalid": f"must be one of {', '.join(ROLES)}"})
    # Absent means one opponent for the dealer; null is not absent (the contract has no null).
    opponents = fields.Integer(strict=True, load_default=None, allow_none=False, validate=validate.Range(
        1, MAX_OPPONENTS, error=f"must be an integer from 1 to {MAX_OPPONENTS} (and at most what the decks seat)"),
        error_messages={**MESSAGES, "invalid": f"must be an integer from 1 to {MAX_OPPONENTS}"})

    @validates_schema(skip_on_field_errors=False)
    def _check_cards(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        errors: dict[Any, Any] = {}
        # Named whatever else is wrong (decks included): it depends on nothing else.
        not_dealer = data.get("opponents") is not None and data.get("role") != "dealer"
        decks = data.get("decks")  # the default applied; absent when invalid
        if not isinstance(decks, int):
            if not_dealer:
                raise ValidationError({"opponents": [NOT_DEALER]})
            return
        names = ("hand", "dead")
        lists = [data.get(name) or [] for name in names]
        for h, i, code in count_excess(lists, decks):
            errors.setdefault(names[h], {})[i] = [duplicate_message(code, decks)]
        left = 52 * decks - sum(code is not None for codes in lists for code in codes)
        known = len(data.get("hand") or [])
        opponents = data.get("opponents")
        if not_dealer:
            errors["opponents"] = [NOT_DEALER]
        elif not errors and isinstance(opponents, int) and known:
            # Every hand is five cards, none shared: the caller's (five once complete) and each opponent's.
            most = max(0, seats(decks, dead=len(data.get("dead") or [])) - 1)
            if opponents > most:
                errors["opponents"] = [f"{decks} deck(s) less {len(data.get('dead') or [])} dead cards seat at most "
                                       f"{most} opponents beside the dealer's five cards"]
        if not errors and left < 10 - known:
            errors["dead"] = {"_self": [f"only {left} cards are left for the rest of the hand and the opponent; "
                                        f"at most {52 * decks - 10} dead cards with {decks} deck(s)"]}
        if errors:
            raise ValidationError(errors)


class AnalysisRequestSchema(ScoringRequestSchema):
    """``POST /v1/analyses/distribution``: ``{"rules": {...}}`` (optional: the profile as it
    is). One deck always: use it with ``exclude=("decks",)``, so that sending ``decks`` is
    an unknown-field error."""


class HouseEdgeRequestSchema(ScoringRequestSchema):
    """``POST /v1/analyses/house-edge``: ``{"rules": {...}, "bet": "double"}`` (both optional;
    one deck always: use it with ``exclude=("decks",)``)."""

    bet = bet_field()
