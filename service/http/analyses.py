"""The analysis endpoints: exact odds against the dealer, distributions, house edge (issue 5).

Thin views over :mod:`service.operations.analyses`; uncached work runs inside the
client's share of the worker's :class:`~service.http.budget.AnalysisBudget`. The POST
analyses (which may compute for seconds) run on the worker's compute lane, off the event
loop (:meth:`Runtime.compute <service.http.runtime.Runtime.compute>`); the profiles' own
analyses are warm and answered at once. Every route is a path x method of openapi.yaml.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from flask import Blueprint, Response, request

from service import operations
from service.http.json_body import (
    accepted_language,
    json_response,
    parse_json,
    query,
    read_json_bytes,
)
from service.http.runtime import Runtime, runtime

__all__ = ["analyses", "client_guard"]

analyses = Blueprint("analyses", __name__, url_prefix="/v1")


def client_guard(rt: Runtime | None = None, environ: Mapping[str, Any] | None = None) -> operations.Guard:
    """The current client's budget guard (:meth:`~service.http.budget.AnalysisBudget.guard`)
    in ``rt``, the app's runtime (looked up when not given); the client of ``environ`` (a
    WSGI environment) when given, else of the current request."""
    address = (request.environ if environ is None else environ).get("REMOTE_ADDR") or "-"
    guard: operations.Guard = partial((rt or runtime()).budget.guard, address)
    return guard


def _heavy(operation: Callable[..., Any], **keywords: Any) -> Response:
    """``operation`` with the request's body, query, the profiles, the client's budget guard
    and ``keywords``, on the worker's compute lane; its :class:`~service.operations.Answer`
    (or plain answer) written as JSON, in the language it names."""
    rt, raw, asked, guard = runtime(), read_json_bytes(), query(), client_guard()
    answer = rt.compute(lambda: operation(parse_json(raw), asked, rt.profiles, guard, **keywords), heavy=True)
    if isinstance(answer, operations.Answer):
        return json_response(answer.body, lang=answer.lang)
    return json_response(answer)


@analyses.post("/odds")
def odds_against_dealer() -> Response:
    """Exact odds of a hand against a random dealer hand (openapi: ``oddsAgainstDealer``)."""
    return _heavy(operations.odds_against_dealer, language=accepted_language())


@analyses.get("/profiles/<name>/distribution")
def profile_distribution(name: str) -> Response:
    """Hands per label over one deck (openapi: ``getProfileDistribution``); 404 when unknown."""
    answer = operations.get_profile_distribution(name, runtime().profiles, client_guard(), query=query(),
                                                 language=accepted_language())
    return json_response(answer.body, lang=answer.lang)


@analyses.get("/profiles/<name>/house-edge")
def profile_house_edge(name: str) -> Response:
    """The profile's exact house edge for a bet (openapi: ``getProfileHouseEdge``); 404 when unknown."""
    return json_response(operations.get_profile_house_edge(name, query(), runtime().profiles))


@analyses.post("/analyses/distribution")
def custom_distribution() -> Response:
    """Hands per label under custom rules (openapi: ``analyseDistribution``)."""
    return _heavy(operations.analyse_distribution, language=accepted_language())


@analyses.post("/analyses/house-edge")
def custom_house_edge() -> Response:
    """The house edge under custom rules for a bet (openapi: ``analyseHouseEdge``)."""
    return _heavy(operations.analyse_house_edge)
