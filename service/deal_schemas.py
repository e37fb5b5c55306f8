"""Request shapes of the deals (``POST /v1/deals``, ``POST /v1/deals/verify``; RULES.md 9.1).

A seed is a secret until the round ends: no message here quotes a seed, whatever is wrong
with it (its length, its digits, its type are described, never its value). The
``commitment`` is not quoted either (a caller may have pasted a seed there by mistake).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from service.engine.cards import CARD_TEXTS, MAX_DECKS, SUITLESS_BASE, read_hand
from service.engine.deal import (
    MAX_CLIENT_SEED_CODE_POINTS,
    MAX_NONCE,
    MAX_SEED_BYTES,
    MIN_HANDS,
    MIN_SEED_BYTES,
    max_hands,
)
from service.one_pass import plain_deal
from service.schemas import MESSAGES, OnePassLoad

__all__ = ["DealRequestSchema", "VerifyDealRequestSchema"]

_HEX = re.compile(r"[0-9a-fA-F]*")
_COMMITMENT = re.compile(r"sha256:[0-9a-fA-F]{64}")


class ServerSeedField(fields.Field[Any]):
    """``server_seed``: 32 to 128 hex digits, even in number, any case; loaded as bytes."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> bytes:
        low, high = 2 * MIN_SEED_BYTES, 2 * MAX_SEED_BYTES
        if not isinstance(value, str):
            raise ValidationError(f"must be a string of {low} to {high} hexadecimal digits")
        if len(value) > 4 * high or not _HEX.fullmatch(value):
            raise ValidationError("must hold hexadecimal digits only (0-9, a-f, A-F); the value is a secret and "
                                  "is not quoted")
        if not low <= len(value) <= high:
            raise ValidationError(f"must be {low} to {high} hexadecimal digits ({MIN_SEED_BYTES} to "
                                  f"{MAX_SEED_BYTES} bytes), got {len(value)}")
        if len(value) % 2:
            raise ValidationError(f"must be an even number of hexadecimal digits (whole bytes), got {len(value)}")
        return bytes.fromhex(value)


class ClientSeedField(fields.Field[Any]):
    """``client_seed``: a string of 1 to 256 Unicode code points."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> str:
        text = f"must be a string of 1 to {MAX_CLIENT_SEED_CODE_POINTS} characters (Unicode code points)"
        if not isinstance(value, str):
            raise ValidationError(text)
        if not 1 <= len(value) <= MAX_CLIENT_SEED_CODE_POINTS:
            raise ValidationError(f"{text}, got {len(value):,}")
        return value


class CommitmentField(fields.Field[Any]):
    """``commitment``: ``sha256:`` and 64 hex digits, any case; loaded in lower case."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> str:
        if not isinstance(value, str) or not _COMMITMENT.fullmatch(value):
            raise ValidationError("must be sha256: followed by 64 hexadecimal digits (as POST /v1/deals answers)")
        return value.lower()


class DealtHandsField(fields.Field[Any]):
    """``hands`` as dealt: 2 to 83 entries, each five cards in any notation (loaded as
    card codes) or ``null`` for a hand the caller does not know."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> list[list[int | None] | None]:
        high = max_hands(MAX_DECKS)
        text = f"must be an array of {MIN_HANDS} to {high} hands (five cards each, or null for a hand not known)"
        if not isinstance(value, list):
            raise ValidationError(text)
        if not MIN_HANDS <= len(value) <= high:
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


def _integer(low: int, high: int, **kwargs: Any) -> fields.Integer:
    text = f"must be an integer from {low} to {high}"
    return fields.Integer(strict=True, validate=validate.Range(low, high, error=text),
                          error_messages={**MESSAGES, "invalid": text, "too_large": text}, **kwargs)


def _too_many_hands(decks: int, hands: int) -> str:
    return (f"{decks} deck{'s' if decks > 1 else ''} deal{'' if decks > 1 else 's'} at most {max_hands(decks)} "
            f"hands of five, got {hands}")


class _DealInputs(Schema):
    """What both deal operations take: the seeds, the nonce and the decks."""

    error_messages = {"unknown": "unknown field", "type": "must be an object"}  # noqa: RUF012

    class Meta:
        unknown = RAISE

    server_seed = ServerSeedField(required=True, error_messages=MESSAGES)
    client_seed = ClientSeedField(required=True, error_messages=MESSAGES)
    nonce = _integer(0, MAX_NONCE, required=True)
    decks = _integer(1, MAX_DECKS, load_default=1)


class DealRequestSchema(OnePassLoad, _DealInputs):
    """``POST /v1/deals``: ``{"server_seed", "client_seed", "nonce", "decks": 1, "hands"}``;
    a plainly valid body is read in one pass (:func:`~service.one_pass.plain_deal`).

    >>> DealRequestSchema().load({"server_seed": "00" * 16, "client_seed": "p", "nonce": 0, "hands": 2})["hands"]
    2
    >>> DealRequestSchema().load({"server_seed": "0" * 33, "client_seed": "p", "nonce": 0, "hands": 11})
    Traceback (most recent call last):
        ...
    marshmallow.exceptions.ValidationError: {'server_seed': ['must be an even number of hexadecimal digits (whole bytes), got 33'], 'hands': ['1 deck deals at most 10 hands of five, got 11']}
    """

    hands = _integer(MIN_HANDS, max_hands(MAX_DECKS), required=True)
    _plain = staticmethod(plain_deal)

    @validates_schema(skip_on_field_errors=False)
    def _check_hands(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks, hands = data.get("decks"), data.get("hands")
        if isinstance(decks, int) and isinstance(hands, int) and hands > max_hands(decks):
            raise ValidationError({"hands": [_too_many_hands(decks, hands)]})


class VerifyDealRequestSchema(_DealInputs):
    """``POST /v1/deals/verify``: the deal's inputs, the published ``commitment`` and the
    ``hands`` as dealt (their number is the deal's; ``null`` for a hand not known)."""

    commitment = CommitmentField(required=True, error_messages=MESSAGES)
    hands = DealtHandsField(required=True, error_messages=MESSAGES)

    @validates_schema(skip_on_field_errors=False)
    def _check_hands(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks, hands = data.get("decks"), data.get("hands")
        if isinstance(decks, int) and isinstance(hands, list) and len(hands) > max_hands(decks):
            raise ValidationError({"hands": {"_self": [_too_many_hands(decks, len(hands))]}})
