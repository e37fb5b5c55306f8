"""Request shapes of the analyses (``POST /v1/odds``, ``POST /v1/analyses/...``), beside
:mod:`service.schemas`' scoring shapes, whose fields and base schema they share.

A card of ``hand`` and ``dead`` may appear at most ``decks`` times across both; the cards
left must hold the rest of the hand and every opponent's five.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from service.engine.cards import duplicate_message
from service.engine.partial import ROLES, max_opponents
from service.schemas import MAX_DECKS, ScoringRequestSchema, bet_field, card_codes

__all__ = ["MAX_DEAD", "MAX_OPPONENTS", "MIN_KNOWN", "AnalysisRequestSchema", "CardsField", "HouseEdgeRequestSchema",
           "KnownCardsField", "OddsRequestSchema"]

#: Dead cards: at most every card of eight decks but the ten of two hands.
MAX_DEAD = 52 * MAX_DECKS - 10
#: Known cards for ``POST /v1/odds``: at least three (issue 14).
MIN_KNOWN = 3
#: The most opponents any request can name: eight decks, the dealer's hand, no dead cards.
MAX_OPPONENTS = max_opponents(5, 0, MAX_DECKS)


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

    hand = KnownCardsField(5, required=True)
    dead = CardsField(MAX_DEAD, load_default=list)
    role = fields.String(load_default="player", validate=validate.OneOf(ROLES, error=f"must be one of {', '.join(ROLES)}"))
    opponents = fields.Integer(strict=True, load_default=None, validate=validate.Range(
        1, MAX_OPPONENTS, error=f"must be an integer from 1 to {MAX_OPPONENTS} (and at most what the decks seat)"),
        error_messages={"invalid": f"must be an integer from 1 to {MAX_OPPONENTS}"})

    @validates_schema(skip_on_field_errors=False)
    def _check_cards(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = data.get("decks")  # the default applied; absent when invalid
        if not isinstance(decks, int):
            return
        errors: dict[Any, Any] = {}
        seen = [0] * 52
        used = 0
        for name in ("hand", "dead"):
            for i, code in enumerate(data.get(name) or []):
                if code is None:
                    continue
                used += 1
                seen[code] += 1
                if seen[code] > decks:
                    errors.setdefault(name, {})[i] = [duplicate_message(code, decks)]
        left = 52 * decks - used
        known = len(data.get("hand") or [])
        opponents = data.get("opponents")
        if opponents is not None and data.get("role") != "dealer":
            errors["opponents"] = ["opponents is for role dealer only (a player faces one dealer)"]
        elif not errors and isinstance(opponents, int) and known:
            seats = max_opponents(known, len(data.get("dead") or []), decks)
            if opponents > seats:
                errors["opponents"] = [f"{decks} deck(s) less {len(data.get('dead') or [])} dead cards seat at most "
                                       f"{seats} opponents beside the dealer's five cards"]
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
