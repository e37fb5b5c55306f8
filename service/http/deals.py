"""The deal endpoints (RULES.md 9.1): read the request, call its operation
(:mod:`service.operations.deals`), write JSON. The seeds are read from the body only and
never logged; gunicorn's access line for these paths leaves the query string out
(:mod:`service.gunicorn_logging`), so a seed put there by mistake is not logged either.

Both routes are direct (:mod:`service.http.direct`). Every route here is a path x method of
openapi.yaml; a test keeps the two in lock-step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson
from flask import Blueprint, Response

from service import operations
from service.http.direct import Handler, direct, view_answer
from service.http.json_body import body_bytes, parse_json, query_of
from service.http.runtime import Runtime

__all__ = ["deals"]

deals = Blueprint("deals", __name__, url_prefix="/v1")


def _handler(operation: Callable[[Any, operations.Query], dict[str, Any]]) -> Handler:
    """The direct handler of a deal route: ``operation`` of the request's body and query."""

    def handle(environ: dict[str, Any], rt: Runtime, config: Mapping[str, Any], route: str) -> tuple[bytes, None]:
        return orjson.dumps(operation(parse_json(body_bytes(environ, config)), query_of(environ))), None

    return handle


_DEAL = _handler(operations.deal_hands)
_VERIFY = _handler(operations.verify_deal)


@deals.post("/deals")
@direct(_DEAL)
def deal_hands() -> Response:
    """Deal hands from committed seeds (openapi: ``dealHands``)."""
    return view_answer(_DEAL)


@deals.post("/deals/verify")
@direct(_VERIFY)
def verify_deal() -> Response:
    """Check a revealed seed and the hands dealt from it (openapi: ``verifyDeal``)."""
    return view_answer(_VERIFY)
