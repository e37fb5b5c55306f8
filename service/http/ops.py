"""The server's own endpoints: liveness, readiness and the contract it implements; and the
rule that the server's own reads take no query parameter.

(``/metrics`` is :mod:`service.http.observability`'s; ``/docs`` is :mod:`service.http.docs`'.)
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, current_app, request

from service.http.json_body import json_response
from service.http.routes import ROUTES
from service.http.runtime import Runtime
from service.operations.scoring import unknown_parameter
from service.problems import NOT_READY, ProblemError, validation_problem
from service.profiles import openapi_with_profiles

__all__ = ["OPENAPI_FILE", "QUERY_IGNORED", "ops", "reject_query_on_reads"]

ops = Blueprint("ops", __name__)

#: The committed contract (``service/openapi.yaml``).
OPENAPI_FILE = Path(__file__).parent.parent / "openapi.yaml"

#: Probes and scrapers may add a cache-busting query string: these endpoints ignore it.
QUERY_IGNORED = frozenset({"ops.health", "ops.readiness", "metrics"})
#: The route table's operations, which check their own query parameters.
_OPERATIONS = frozenset(route.operation_id for route in ROUTES)


def reject_query_on_reads() -> None:
    """The server's own reads (the contract, the receipt keys, the docs) take no query
    parameter: refuse any on a GET, except on health, readiness and metrics
    (:data:`QUERY_IGNORED`), which ignore the query string. The route table's operations
    (:mod:`service.http.routes`) declare and check their own. A CORS preflight
    (``OPTIONS``) carries the query of the request it asks about and is never refused for it."""
    if request.method in ("POST", "OPTIONS") or request.endpoint in QUERY_IGNORED or request.endpoint in _OPERATIONS:
        return
    if request.args and request.routing_exception is None:
        raise validation_problem(unknown_parameter(name, ()) for name in request.args)


@ops.get("/healthz")
def health() -> Response:
    """Liveness: cheap, checks nothing else (openapi: ``health``)."""
    return json_response({"status": "ok"})


@ops.get("/readyz")
def readiness() -> Response:
    """Readiness: 200 once the tables are built, 503 while draining (openapi: ``readiness``)."""
    state = Runtime.of(current_app).state
    if state.draining:
        raise ProblemError(NOT_READY, "The server is draining after SIGTERM.")
    if not state.ready:
        raise ProblemError(NOT_READY, "The server is still starting.")
    return json_response({"status": "ready"})


@ops.get("/openapi.yaml")
def openapi_document() -> Response:
    """The contract this service implements (openapi: ``openapiDocument``), with the
    operator's profiles added to the ``profile`` parameter's enum; built once per app."""
    rt = Runtime.of(current_app)
    if rt.openapi is None:
        rt.openapi = openapi_with_profiles(OPENAPI_FILE.read_bytes(), rt.profiles)
    return Response(rt.openapi, mimetype="application/yaml")
