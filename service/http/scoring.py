"""The scoring endpoints (evaluate, batch, rank, settle, exposures): read the request,
call its operation (:mod:`service.operations.scoring`), count the hands, write JSON.

Hands under custom rules that have no table are evaluated by the reference evaluator
(about 50 µs each): that work is paid from the client's share of the worker's analysis
budget (:mod:`service.http.budget`), like an uncached analysis: 429 when it is spent.

Every route here is a path x method of openapi.yaml; a test keeps the two in lock-step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response

from service import operations
from service.http import gc_pause
from service.http.analyses import client_guard
from service.http.compute import HEAVY_BODY_BYTES
from service.http.json_body import json_response, parse_json, query, read_json, read_json_bytes
from service.http.runtime import runtime
from service.operations import Answer, Guard, Query
from service.profiles import ProfileRegistry

__all__ = ["scoring"]

scoring = Blueprint("scoring", __name__, url_prefix="/v1")


def _answer(operation: Callable[[Any, Query, ProfileRegistry, Guard], Answer], *, paused: bool = False) -> Response:
    """Call ``operation`` with the request's body, query, the profiles and the client's
    budget guard; count its hands.

    A large body (:data:`~service.http.compute.HEAVY_BODY_BYTES`) is parsed, checked and
    answered on the worker's compute lane, off the event loop (:meth:`Runtime.compute
    <service.http.runtime.Runtime.compute>`); a small one at once. ``paused``: the cyclic
    garbage collector is off while the work runs (:mod:`service.http.gc_pause`), only
    then: never while the request waits for its body or for the lane, so paused spans
    do not pile up (garbage left by requests that waited long would outlive them)."""
    rt = runtime()
    raw, asked, guard = read_json_bytes(), query(), client_guard()

    def work() -> Answer:
        if not paused:
            return operation(parse_json(raw), asked, rt.profiles, guard)
        with gc_pause.paused():
            return operation(parse_json(raw), asked, rt.profiles, guard)

    answer = rt.compute(work, heavy=len(raw) >= HEAVY_BODY_BYTES)
    rt.observe(answer.profile, answer.categories)
    return json_response(answer.body)


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
    return _answer(operations.rank_hands)


@scoring.post("/settlements")
def settle_round() -> Response:
    """Settle a round against the dealer (openapi: ``settleRound``)."""
    return _answer(operations.settle_round)


@scoring.post("/exposures")
def table_exposures() -> Response:
    """What each seat and the dealer could lose and win before the deal (openapi: ``tableExposures``)."""
    return json_response(operations.table_exposures(read_json(), query(), runtime().profiles).body)
