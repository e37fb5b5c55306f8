"""The deal endpoints (RULES.md 9.1): read the request, call its operation
(:mod:`service.operations.deals`), write JSON. The seeds are read from the body only and
never logged; gunicorn's access line for these paths leaves the query string out
(:mod:`service.gunicorn_logging`), so a seed put there by mistake is not logged either.

Every route here is a path x method of openapi.yaml; a test keeps the two in lock-step.
"""

from __future__ import annotations

from flask import Blueprint, Response

from service import operations
from service.http.json_body import json_response, query, read_json

__all__ = ["deals"]

deals = Blueprint("deals", __name__, url_prefix="/v1")


@deals.post("/deals")
def deal_hands() -> Response:
    """Deal hands from committed seeds (openapi: ``dealHands``)."""
    return json_response(operations.deal_hands(read_json(), query()))


@deals.post("/deals/verify")
def verify_deal() -> Response:
    """Check a revealed seed and the hands dealt from it (openapi: ``verifyDeal``)."""
    return json_response(operations.verify_deal(read_json(), query()))
