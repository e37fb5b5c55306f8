"""The scoring endpoints (evaluate, batch, rank, settle, showdowns, exposures): read the request,
call its operation (:mod:`service.operations.scoring`), count the hands, write JSON.

Hands under custom rules that have no table are evaluated by the reference evaluator
(about 50 µs each): that work is paid from the client's share of the worker's analysis
budget (:mod:`service.http.budget`), like an uncached analysis: 429 when it is spent.

Every route here is a path x method of openapi.yaml; a test keeps the two in lock-step.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from flask import Blueprint, Response

from service import operations
from service.http import gc_pause
from service.http.analyses import client_guard
from service.http.compute import HEAVY_BODY_BYTES
from service.http.json_body import (
    accepted_language,
    json_response,
    json_text_response,
    parse_json,
    query,
    read_json,
    read_json_bytes,
)
from service.http.receipts import answer_with_receipt, receipt_operation
from service.http.runtime import runtime
from service.operations import Answer
from service.receipts import RECEIPT_PARAMETER

__all__ = ["scoring"]

scoring = Blueprint("scoring", __name__, url_prefix="/v1")


def _answer(operation: Callable[..., Answer], *, paused: bool = False) -> Response:
    """Call ``operation`` with the request's body, query, the profiles, the client's budget
    guard and the labels' language (unless ``lang=`` says); count its hands. A query naming
    ``receipt`` goes through :func:`~service.http.receipts.answer_with_receipt`.

    A large body (:data:`~service.http.compute.HEAVY_BODY_BYTES`) is parsed, checked and
    answered on the worker's compute lane, off the event loop (:meth:`Runtime.compute
    <service.http.runtime.Runtime.compute>`); a small one at once. The work touches no
    request context (the lane is another thread): what it needs is read here first.
    ``paused``: the cyclic garbage collector is off while the work runs
    (:mod:`service.http.gc_pause`), only then: never while the request waits for its body
    or for the lane, so paused spans do not pile up (garbage left by requests that waited
    long would outlive them)."""
    rt = runtime()
    raw, params = read_json_bytes(), query()
    call = partial(operation, guard=client_guard(rt), language=accepted_language())
    asks_receipt = RECEIPT_PARAMETER in params
    operation_id = receipt_operation(rt) if asks_receipt else None

    def answered() -> tuple[Answer, bytes | None]:
        body = parse_json(raw)
        if asks_receipt:
            return answer_with_receipt(call, body, params, rt, operation_id)
        return call(body, params, rt.profiles), None

    def work() -> tuple[Answer, bytes | None]:
        if not paused:
            return answered()
        with gc_pause.paused():
            return answered()

    answer, signed = rt.compute(work, heavy=len(raw) >= HEAVY_BODY_BYTES)
    rt.observe(answer.profile, answer.categories)
    if signed is None:
        return json_response(answer.body, lang=answer.lang)
    return json_text_response(signed, lang=answer.lang)


@scoring.post("/evaluations")
def evaluate_hand() -> Response:
    """Evaluate one hand (openapi: ``evaluateHand``); ``fields`` selects members."""
    return _answer(operations.evaluate_hand)


@scoring.post("/evaluations/batch")
def evaluate_hands() -> Response:
    """Evaluate up to 10,000 hands (openapi: ``evaluateHands``); ``fields`` selects members."""
    # ~100,000 short-lived, acyclic objects (the parsed body, the answer): no cyclic
    # collection while they are made; a refused request's problem leaves the pause as an
    # exception (its cycles wait for the next collection).
    return _answer(operations.evaluate_hands, paused=True)


@scoring.post("/rankings")
def rank_hands() -> Response:
    """Rank 2 to 1,000 hands (openapi: ``rankHands``); ``fields`` selects members."""
    return _answer(operations.rank_hands, paused=True)  # as a batch: thousands of short-lived objects


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
