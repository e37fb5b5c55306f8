"""The deal operations (RULES.md 9.1), shared by the HTTP views and the ``gnau`` command:
:func:`deal_hands` (``POST /v1/deals``) and :func:`verify_deal` (``POST /v1/deals/verify``).

The service chooses no seed and keeps none: it turns the caller's seeds into a deal
(:mod:`service.engine.deal`) and forgets them. No answer and no problem quotes a seed
(:mod:`service.deal_schemas` describes what is wrong without the value), and nothing here
logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.deal_schemas import DealRequestSchema, VerifyDealRequestSchema
from service.engine.cards import CARD_TEXTS
from service.engine.deal import ALGORITHM, commitment, deal
from service.errors import ErrorItem, InvalidRequestError
from service.operations.scoring import Answer, Query, load_object, unknown_parameter
from service.schemas import RequestSchema

__all__ = ["deal_hands", "verify_deal"]

_DEAL = DealRequestSchema()
_VERIFY = VerifyDealRequestSchema()


def _load(schema: RequestSchema, body: Any, query: Query) -> dict[str, Any]:
    """The checked body; the deal operations take no query parameter.

    :raises InvalidRequestError: naming every problem (query parameters first).
    """
    errors: list[ErrorItem] = [unknown_parameter(name, ()) for name in query]
    data = load_object(schema, body, errors)
    if errors:
        raise InvalidRequestError(errors)
    return data


def _dealt(data: dict[str, Any], hands: int) -> list[list[str]]:
    """The deal of checked inputs, each card in canonical notation."""
    codes = deal(data["server_seed"], data["client_seed"], data["nonce"], decks=data["decks"], hands=hands)
    return [[CARD_TEXTS[c] for c in hand] for hand in codes]


def deal_hands(body: Any, query: Query) -> Answer:
    """``POST /v1/deals`` (``dealHands``): the hands that the seeds and the nonce deal.

    :param body: ``{"server_seed": hex, "client_seed": str, "nonce": int, "decks": 1..8
        (default 1), "hands": 2..floor(52 × decks / 5)}``.
    :param query: the query parameters (none is taken).
    :return: the answer, its body ``{"algorithm": "gnau-deal-v1", "commitment": "sha256:…",
        "hands": [[five canonical cards], …]}``; hand 0 first (the dealer's, when there is one).
    :raises InvalidRequestError: naming every problem; no problem quotes a seed.

    >>> deal_hands({"server_seed": "00" * 16, "client_seed": "p", "nonce": 0, "hands": 2}, {}).body["hands"][0]
    ['9C', '4C', '10D', 'QH', '3H']
    """
    data = _load(_DEAL, body, query)
    return Answer({"algorithm": ALGORITHM, "commitment": commitment(data["server_seed"]),
                   "hands": _dealt(data, data["hands"])})


def _matches(given: Sequence[list[int | None] | None], dealt: list[list[str]]) -> list[bool | None]:
    """Per hand: ``None`` where the caller gave none, else whether it is the dealt hand card
    for card, in order."""
    return [None if hand is None else [CARD_TEXTS[c] if c is not None else None for c in hand] == dealt[i]
            for i, hand in enumerate(given)]


def verify_deal(body: Any, query: Query) -> Answer:
    """``POST /v1/deals/verify`` (``verifyDeal``): whether a revealed server seed matches its
    published commitment and whether the hands given are the ones the seeds deal.

    :param body: the inputs of :func:`deal_hands` but with ``hands`` the list of hands as
        dealt (its length is the deal's hand count; ``null`` for a hand the caller does not
        know), plus ``commitment`` (``sha256:`` and 64 hex digits, any case).
    :param query: the query parameters (none is taken).
    :return: the answer, its body ``{"algorithm", "commitment_matches": bool, "hands_match": [true, false or
        null per hand], "match": bool, "hands": the recomputed hands}``; ``match`` is true
        when the commitment and every given hand match.
    :raises InvalidRequestError: naming every problem; no problem quotes a seed.
    """
    data = _load(_VERIFY, body, query)
    dealt = _dealt(data, len(data["hands"]))
    commitment_matches = data["commitment"] == commitment(data["server_seed"])
    hands_match = _matches(data["hands"], dealt)
    return Answer({"algorithm": ALGORITHM, "commitment_matches": commitment_matches, "hands_match": hands_match,
                   "match": commitment_matches and False not in hands_match, "hands": dealt})
