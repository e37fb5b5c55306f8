"""Request shapes of the deals (``POST /v1/deals``, ``POST /v1/deals/verify``; RULES.md 9.1).

A seed is a secret until the round ends: no message here quotes a seed, whatever is wrong
with it (its length, its digits, its type are described, never its value). The
``commitment`` is not quoted either (a caller may have pasted a seed there by mistake).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from marshmallow import ValidationError, fields, validates_schema

from service.engine.cards import CARD_TEXTS, SUITLESS_BASE, read_hand
from service.members import DEAL, DEAL_INPUTS, VERIFY_DEAL, Member, too_many_hands
from service.one_pass import plain_deal
from service.schemas import FieldKinds, RequestSchema, fields_of

__all__ = ["DealRequestSchema", "VerifyDealRequestSchema"]

_HEX = re.compile(r"[0-9a-fA-F]*")
_COMMITMENT = re.compile(r"sha256:[0-9a-fA-F]{64}")


class _Declared(fields.Field[Any]):
    """A field whose bounds are its member's declaration (:class:`~service.members.Member`)."""

    def __init__(self, member: Member, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.member = member


class ServerSeedField(_Declared):
    """``server_seed``: 32 to 128 hex digits (``low`` to ``high`` bytes), even in number, any
    case; loaded as bytes."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> bytes:
        low_bytes, high_bytes = self.member.low, self.member.high
        low, high = 2 * low_bytes, 2 * high_bytes
        if not isinstance(value, str):
            raise ValidationError(f"must be a string of {low} to {high} hexadecimal digits")
        if len(value) > 4 * high or not _HEX.fullmatch(value):
            raise ValidationError("must hold hexadecimal digits only (0-9, a-f, A-F); the value is a secret and "
                                  "is not quoted")
        if not low <= len(value) <= high:
            raise ValidationError(f"must be {low} to {high} hexadecimal digits ({low_bytes} to "
                                  f"{high_bytes} bytes), got {len(value)}")
        if len(value) % 2:
            raise ValidationError(f"must be an even number of hexadecimal digits (whole bytes), got {len(value)}")
        return bytes.fromhex(value)


class ClientSeedField(_Declared):
    """``client_seed``: a string of 1 to 256 (``low`` to ``high``) Unicode code points."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> str:
        low, high = self.member.low, self.member.high
        text = f"must be a string of {low} to {high} characters (Unicode code points)"
        if not isinstance(value, str):
            raise ValidationError(text)
        if not low <= len(value) <= high:
            raise ValidationError(f"{text}, got {len(value):,}")
        return value


class CommitmentField(_Declared):
    """``commitment``: ``sha256:`` and 64 hex digits, any case; loaded in lower case."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> str:
        if not isinstance(value, str) or not _COMMITMENT.fullmatch(value):
            raise ValidationError("must be sha256: followed by 64 hexadecimal digits (as POST /v1/deals answers)")
        return value.lower()


class DealtHandsField(_Declared):
    """``hands`` as dealt: 2 to 83 (``low`` to ``high``) entries, each five cards in any
    notation (loaded as card codes) or ``null`` for a hand the caller does not know."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> list[list[int | None] | None]:
        low, high = self.member.low, self.member.high
        text = f"must be an array of {low} to {high} hands (five cards each, or null for a hand not known)"
        if not isinstance(value, list):
            raise ValidationError(text)
        if not low <= len(value) <= high:
            raise ValidationError(f"{text}, got {len(value):,}")
        hands: list[list[int | None] | None] = []
        errors: dict[Any, Any] = {}
        for i, item in enumerate(value):
            if item is None:
                hands.append(None)
                continue
            codes, problems = read_hand(item)
            for k, code in enumerate(codes):  # dealt cards have suits (RULES.md 1.1: not deals)
                if code is not None and code >= SUITLESS_BASE:
                    problems[k] = (f"{CARD_TEXTS[code]} is written without a suit: a dealt card has one "
                                   f"(write it as dealt, e.g. {CARD_TEXTS[code]}H)")
            if problems:
                errors[i] = {"_self" if k is None else k: [message] for k, message in problems.items()}
            hands.append(codes)
        if errors:
            raise ValidationError(errors, valid_data=hands)
        return hands


#: The fields of the deals' own member kinds (:func:`service.schemas.member_field`).
_KINDS: FieldKinds = {"server_seed": ServerSeedField, "client_seed": ClientSeedField, "commitment": CommitmentField,
                      "dealt_hands": DealtHandsField}


class _DealInputs(RequestSchema):
    """What both deal operations take: the seeds, the nonce and the decks
    (:data:`~service.members.DEAL_INPUTS`)."""

    members = DEAL_INPUTS

    class Meta(RequestSchema.Meta):
        include = fields_of(DEAL_INPUTS, _KINDS)


class DealRequestSchema(_DealInputs):
    """``POST /v1/deals``: ``{"server_seed", "client_seed", "nonce", "decks": 1, "hands"}``
    (:data:`~service.members.DEAL`); a plainly valid body is read in one pass
    (:func:`~service.one_pass.plain_deal`).

    >>> DealRequestSchema().read({"server_seed": "00" * 16, "client_seed": "p", "nonce": 0, "hands": 2})["hands"]
    2
    >>> DealRequestSchema().read({"server_seed": "0" * 33, "client_seed": "p", "nonce": 0, "hands": 11})
    Traceback (most recent call last):
        ...
    marshmallow.exceptions.ValidationError: {'server_seed': ['must be an even number of hexadecimal digits (whole bytes), got 33'], 'hands': ['1 deck deals at most 10 hands of five, got 11']}
    """

    members = DEAL

    class Meta(RequestSchema.Meta):
        include = fields_of(DEAL, _KINDS)

    def one_pass(self, data: Any) -> dict[str, Any] | None:
        """A plainly valid deal (:func:`~service.one_pass.plain_deal`)."""
        return plain_deal(data)

    @validates_schema(skip_on_field_errors=False)
    def _check_hands(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks, hands = data.get("decks"), data.get("hands")
        problem = too_many_hands(decks, hands) if isinstance(decks, int) and isinstance(hands, int) else None
        if problem is not None:
            raise ValidationError({"hands": [problem]})


class VerifyDealRequestSchema(_DealInputs):
    """``POST /v1/deals/verify``: the deal's inputs, the published ``commitment`` and the
    ``hands`` as dealt (their number is the deal's; ``null`` for a hand not known;
    :data:`~service.members.VERIFY_DEAL`)."""

    members = VERIFY_DEAL

    class Meta(RequestSchema.Meta):
        include = fields_of(VERIFY_DEAL, _KINDS)

    @validates_schema(skip_on_field_errors=False)
    def _check_hands(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks, hands = data.get("decks"), data.get("hands")
        problem = too_many_hands(decks, len(hands)) if isinstance(decks, int) and isinstance(hands, list) else None
        if problem is not None:
            raise ValidationError({"hands": {"_self": [problem]}})
