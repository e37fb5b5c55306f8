"""The server's own endpoints: liveness, readiness and the contract it implements; and the
rule that reads take no query parameter but their own.

(``/metrics`` is :mod:`service.http.observability`'s; ``/docs`` is :mod:`service.http.docs`'.)
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, request

from service.http.json_body import json_response
from service.http.runtime import runtime
from service.operations.scoring import unknown_parameter
from service.problems import NOT_READY, ProblemError, validation_problem
from service.profiles import openapi_with_profiles

__all__ = ["OPENAPI_FILE", "QUERY_IGNORED", "READ_PARAMETERS", "ops", "reject_query_on_reads"]

ops = Blueprint("ops", __name__)

#: The committed contract (``service/openapi.yaml``).
OPENAPI_FILE = Path(__file__).parent.parent / "openapi.yaml"

#: Probes and scrapers may add a cache-busting query string: these endpoints ignore it.
QUERY_IGNORED = frozenset({"ops.health", "ops.readiness", "metrics"})
#: The reads that take a query parameter, by endpoint: the parameters each takes.
READ_PARAMETERS: dict[str, frozenset[str]] = {"analyses.profile_house_edge": frozenset({"bet"}),
                                               "analyses.profile_distribution": frozenset({"lang"})}


def reject_query_on_reads() -> None:
    """Only the POST operations take a query parameter (``profile``), and the reads listed
    in :data:`READ_PARAMETERS` theirs: refuse any other on a GET, except on health,
    readiness and metrics (:data:`QUERY_IGNORED`), which ignore the query string. A CORS
    preflight (``OPTIONS``) carries the query of the request it asks about and is never
    refused for it."""
    if request.method in ("POST", "OPTIONS") or request.endpoint in QUERY_IGNORED:
        return
    if request.args and request.routing_exception is None:
        allowed = READ_PARAMETERS.get(request.endpoint or "", frozenset())
        unknown = [name for name in request.args if name not in allowed]
        if unknown:
            raise validation_problem(unknown_parameter(name, allowed) for name in unknown)


@ops.get("/healthz")
def health() -> Response:
    """Liveness: cheap, checks nothing else (openapi: ``health``)."""
    return json_response({"status": "ok"})


@ops.get("/readyz")
def readiness() -> Response:
    """Readiness: 200 once the tables are built, 503 while draining (openapi: ``readiness``)."""
    state = runtime().state
    if state.draining:
        raise ProblemError(NOT_READY, "The server is draining after SIGTERM.")
    if not state.ready:
        raise ProblemError(NOT_READY, "The server is still starting.")
    return json_response({"status": "ready"})


@ops.get("/openapi.yaml")
def openapi_document() -> Response:
    """The contract this service implements (openapi: ``openapiDocument``), with the
    operator's profiles added to the ``profile`` parameter's enum; built once per app."""
    rt = runtime()
    if rt.openapi is None:
        rt.openapi = openapi_with_profiles(OPENAPI_FILE.read_bytes(), rt.profiles)
    return Response(rt.openapi, mimetype="application/yaml")
