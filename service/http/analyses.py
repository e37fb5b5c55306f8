"""The analysis endpoints: exact odds against the dealer, distributions, house edge (issue 5).

Thin views over :mod:`service.operations.analyses`; uncached work runs inside the
client's share of the worker's :class:`~service.http.budget.AnalysisBudget`. Every route
is a path x method of openapi.yaml.
"""

from __future__ import annotations

from functools import partial

from flask import Blueprint, Response, request

from service import operations
from service.http.json_body import accepted_language, json_response, localized, query, read_json
from service.http.runtime import runtime

__all__ = ["analyses"]

analyses = Blueprint("analyses", __name__, url_prefix="/v1")


def _guard() -> operations.Guard:
    """The current client's budget guard (:meth:`~service.http.budget.AnalysisBudget.guard`)."""
    guard: operations.Guard = partial(runtime().budget.guard, request.remote_addr or "-")
    return guard


@analyses.post("/odds")
def odds_against_dealer() -> Response:
    """Exact odds of a hand against a random dealer hand (openapi: ``oddsAgainstDealer``)."""
    answer = operations.odds_against_dealer(read_json(), query(), runtime().profiles, _guard(),
                                            language=accepted_language())
    return localized(json_response(answer.body), answer.lang)


@analyses.get("/profiles/<name>/distribution")
def profile_distribution(name: str) -> Response:
    """Hands per label over one deck (openapi: ``getProfileDistribution``); 404 when unknown."""
    answer = operations.get_profile_distribution(name, runtime().profiles, _guard(), query=query(),
                                                 language=accepted_language())
    return localized(json_response(answer.body), answer.lang)


@analyses.get("/profiles/<name>/house-edge")
def profile_house_edge(name: str) -> Response:
    """The profile's exact house edge for a bet (openapi: ``getProfileHouseEdge``); 404 when unknown."""
    return json_response(operations.get_profile_house_edge(name, query(), runtime().profiles))


@analyses.post("/analyses/distribution")
def custom_distribution() -> Response:
    """Hands per label under custom rules (openapi: ``analyseDistribution``)."""
    answer = operations.analyse_distribution(read_json(), query(), runtime().profiles, _guard(),
                                             language=accepted_language())
    return localized(json_response(answer.body), answer.lang)


@analyses.post("/analyses/house-edge")
def custom_house_edge() -> Response:
    """The house edge under custom rules for a bet (openapi: ``analyseHouseEdge``)."""
    return json_response(operations.analyse_house_edge(read_json(), query(), runtime().profiles, _guard()))
