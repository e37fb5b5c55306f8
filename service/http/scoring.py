"""The scoring endpoints (evaluate, batch, rank, settle, showdowns, exposures): read the request,
call its operation (:mod:`service.operations.scoring`), count the hands, write JSON.

Hands under custom rules that have no table are evaluated by the reference evaluator
(about 50 µs each): that work is paid from the client's share of the worker's analysis
budget (:mod:`service.http.budget`), like an uncached analysis: 429 when it is spent.

Every route here is a path x method of openapi.yaml; a test keeps the two in lock-step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import orjson
from flask import Blueprint, Response

from service import operations
from service.http import gc_pause
from service.http.analyses import client_guard
from service.http.compute import HEAVY_BODY_BYTES
from service.http.direct import Handler, direct, view_answer
from service.http.json_body import (
    body_bytes,
    json_response,
    language_of,
    parse_json,
    query,
    query_of,
    read_json,
)
from service.http.receipts import answer_with_receipt, receipt_operation
from service.http.runtime import Runtime, runtime
from service.operations import Answer
from service.receipts import RECEIPT_PARAMETER

__all__ = ["scoring"]

scoring = Blueprint("scoring", __name__, url_prefix="/v1")


def _handler(operation: Callable[..., Answer], *, paused: bool = False) -> Handler:
    """The direct handler (:mod:`service.http.direct`) of a scoring route: ``operation``
    called with the request's body, query, the profiles, the client's budget guard and the
    labels' language (unless ``lang=`` says); its hands counted. A query naming ``receipt``
    goes through :func:`~service.http.receipts.answer_with_receipt`.

    A large body (:data:`~service.http.compute.HEAVY_BODY_BYTES`) is parsed, checked and
    answered on the worker's compute lane, off the event loop (:meth:`Runtime.compute
    <service.http.runtime.Runtime.compute>`); a small one at once. The work touches no
    request context (the lane is another thread): what it needs is read first.
    ``paused``: the cyclic garbage collector is off while the work runs
    (:mod:`service.http.gc_pause`), only then: never while the request waits for its body
    or for the lane, so paused spans do not pile up (garbage left by requests that waited
    long would outlive them)."""

    def handle(environ: dict[str, Any], rt: Runtime, config: Mapping[str, Any], route: str) -> tuple[bytes, str | None]:
        raw, params = body_bytes(environ, config), query_of(environ)
        call = partial(operation, guard=client_guard(rt, environ), language=language_of(environ))
        asks_receipt = RECEIPT_PARAMETER in params
        operation_id = receipt_operation(rt, route) if asks_receipt else None

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

        answer, signed = rt.compute(work, heavy=len(raw) >= HEAVY_BODY_BYTES, environ=environ)
        rt.observe(answer.profile, answer.categories)
        return (orjson.dumps(answer.body) if signed is None else signed), answer.lang

    return handle


_EVALUATE = _handler(operations.evaluate_hand)
# ~100,000 short-lived, acyclic objects (the parsed body, the answer): no cyclic collection
# while they are made; a refused request's problem leaves the pause as an exception (its
# cycles wait for the next collection). Rankings as a batch: thousands of short-lived objects.
_EVALUATE_BATCH = _handler(operations.evaluate_hands, paused=True)
_RANK = _handler(operations.rank_hands, paused=True)
_SETTLE = _handler(operations.settle_round)
_SHOWDOWN = _handler(operations.settle_showdown)


@scoring.post("/evaluations")
@direct(_EVALUATE)
def evaluate_hand() -> Response:
    """Evaluate one hand (openapi: ``evaluateHand``); ``fields`` selects members."""
    return view_answer(_EVALUATE)


@scoring.post("/evaluations/batch")
@direct(_EVALUATE_BATCH)
def evaluate_hands() -> Response:
    """Evaluate up to 10,000 hands (openapi: ``evaluateHands``); ``fields`` selects members."""
    return view_answer(_EVALUATE_BATCH)


@scoring.post("/rankings")
@direct(_RANK)
def rank_hands() -> Response:
    """Rank 2 to 1,000 hands (openapi: ``rankHands``); ``fields`` selects members."""
    return view_answer(_RANK)


@scoring.post("/settlements")
@direct(_SETTLE)
def settle_round() -> Response:
    """Settle a round against the dealer (openapi: ``settleRound``)."""
    return view_answer(_SETTLE)


@scoring.post("/showdowns")
@direct(_SHOWDOWN)
def settle_showdown() -> Response:
    """Settle a round without a dealer, every hand against every other (openapi: ``settleShowdown``)."""
    return view_answer(_SHOWDOWN)


@scoring.post("/exposures")
def table_exposures() -> Response:
    """What each seat and the dealer could lose and win before the deal (openapi: ``tableExposures``)."""
    return json_response(operations.table_exposures(read_json(), query(), runtime().profiles).body)
