"""The scoring endpoints (evaluate, batch, rank, settle, showdowns, exposures): read the request,
call its operation (:mod:`service.operations.scoring`), count the hands, write JSON.

Every route here is a path x method of openapi.yaml; a test keeps the two in lock-step.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from flask import Blueprint, Response

from service import operations
from service.http import gc_pause
from service.http.json_body import accepted_language, json_response, localized, query, read_json
from service.http.receipts import answer_with_receipt
from service.http.runtime import runtime
from service.operations import Answer
from service.receipts import RECEIPT_PARAMETER

__all__ = ["scoring"]

scoring = Blueprint("scoring", __name__, url_prefix="/v1")


def _answer(operation: Callable[..., Answer]) -> Response:
    """Call ``operation`` with the request's body, query and the profiles; count its hands.
    A query naming ``receipt`` goes through :func:`~service.http.receipts.answer_with_receipt`."""
    rt = runtime()
    params = query()
    operation = partial(operation, language=accepted_language())  # the labels' language unless lang= says
    if RECEIPT_PARAMETER in params:
        answer, response = answer_with_receipt(operation, params, rt)
        rt.observe(answer.profile, answer.categories)
        return localized(response, answer.lang)
    answer = operation(read_json(), params, rt.profiles)
    rt.observe(answer.profile, answer.categories)
    return localized(json_response(answer.body), answer.lang)


@scoring.post("/evaluations")
def evaluate_hand() -> Response:
    """Evaluate one hand (openapi: ``evaluateHand``); ``fields`` selects members."""
    return _answer(operations.evaluate_hand)


@scoring.post("/evaluations/batch")
def evaluate_hands() -> Response:
    """Evaluate up to 10,000 hands (openapi: ``evaluateHands``); ``fields`` selects members."""
    # ~100,000 short-lived, acyclic objects (the parsed body, the answer): no cyclic
    # collection while they live; a refused request's problem leaves the pause as an
    # exception (its cycles wait for the next collection).
    with gc_pause.paused():
        return _answer(operations.evaluate_hands)


@scoring.post("/rankings")
def rank_hands() -> Response:
    """Rank 2 to 1,000 hands (openapi: ``rankHands``); ``fields`` selects members."""
    with gc_pause.paused():  # as a batch: thousands of short-lived, acyclic objects
        return _answer(operations.rank_hands)


@scoring.post("/settlements")
def settle_round() -> Response:
    """Settle a round against the dealer (openapi: ``settleRound``)."""
    return _answer(operations.settle_round)


@scoring.post("/showdowns")
def settle_showdown() -> Response:
    """Settle a round without a dealer, every hand against every other (openapi: ``settleShowdown``)."""
    return _answer(operations.settle_showdown)


@scoring.post("/exposures")
def table_exposures() -> Response:
    """What each seat and the dealer could lose and win before the deal (openapi: ``tableExposures``)."""
    return json_response(operations.table_exposures(read_json(), query(), runtime().profiles).body)
