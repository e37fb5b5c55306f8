"""The route table: every operation of openapi.yaml that calls :mod:`service.operations`, one
row each (:data:`ROUTES`), and the one way a request to it is answered (:func:`serve`).

Both dispatchers are built from the table:

- :class:`Dispatcher`, at the WSGI layer (Flask's documented place for middleware,
  ``app.wsgi_app``): a ``POST`` to a route without path variables is answered here, without
  Flask's request machinery (its request and app contexts, routing, the response object and
  hooks cost a small request about 100 µs of CPU, as much as a single evaluation or a deal).
  What :func:`serve` raises is answered here too, as problem details
  (:func:`service.http.problems.problem_answer`). Everything else goes to Flask;
- :func:`add_routes`, Flask's URL map: every row is a rule whose view (one thin adapter,
  :func:`_flask_view`) calls :func:`serve` with the request's environment and path
  variables. It answers the rows with path variables (``GET /v1/profiles/<name>``, ...) and
  the ``GET`` reads; its rules also give every path its ``OPTIONS`` and ``405`` answers.

What every answer carries (request id, CORS, counting) is added once, around both, by
:class:`~service.http.middleware.EveryAnswer`.

Each row names its path (a Flask rule), method and operationId; the operation, called with
what the request gives (:class:`Call`); the body size from which its work runs on the
worker's compute lane (``heavy_bytes``: ``0`` always, ``None`` never); whether the cyclic
garbage collector is paused while it runs (``gc_pause``, :mod:`service.http.gc_pause`);
and whether it signs receipts (:attr:`Route.signs`: its operationId is in
:data:`service.receipts.RECEIPT_OPERATIONS`). A new endpoint is one row (and its operation).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from types import MappingProxyType
from typing import Any, NamedTuple

import orjson
from flask import Flask, Response, current_app, request

from service import operations
from service.http import gc_pause
from service.http.compute import HEAVY_BODY_BYTES
from service.http.json_body import answer_headers, body_bytes, language_of, parse_json, query_of
from service.http.observability import ROUTE_KEY
from service.http.problems import problem_answer
from service.http.receipts import answer_with_receipt
from service.http.runtime import Runtime
from service.operations import Answer, Guard, Query
from service.profiles import ProfileRegistry
from service.receipts import RECEIPT_OPERATIONS, RECEIPT_PARAMETER

__all__ = ["ROUTES", "Call", "Dispatcher", "Route", "add_routes", "client_guard", "serve"]

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class Call(NamedTuple):
    """What an operation is called with: the request's parsed ``body`` (``None`` for a
    ``GET``), its ``query`` (every value of each parameter), the ``profiles``, the client's
    budget ``guard`` (:func:`client_guard`), the language its ``Accept-Language`` best
    matches (``None``: none), and the route's path variables (``args``)."""

    body: Any
    query: Query
    profiles: ProfileRegistry
    guard: Guard
    language: str | None
    args: Mapping[str, str]


#: An operation as a row calls it: its answer.
Operation = Callable[[Call], Answer]


class Route(NamedTuple):
    """One row of the route table (see the module).

    :param path: the Flask rule, e.g. ``/v1/profiles/<name>``.
    :param method: ``GET`` or ``POST``.
    :param operation_id: openapi.yaml's operationId, also the Flask endpoint's name.
    :param operation: the operation called with the request's :class:`Call`.
    :param heavy_bytes: from this body size (bytes) on, the work runs on the worker's
        compute lane (:meth:`Runtime.compute <service.http.runtime.Runtime.compute>`);
        ``0``: always; ``None``: never.
    :param gc_pause: the cyclic garbage collector is off while the work runs.
    """

    path: str
    method: str
    operation_id: str
    operation: Operation
    heavy_bytes: int | None = None
    gc_pause: bool = False

    @property
    def signs(self) -> bool:
        """Whether ``?receipt=true`` signs its answer (RULES.md 9.2)."""
        return self.operation_id in RECEIPT_OPERATIONS


# ~100,000 short-lived, acyclic objects (a batch's parsed body and answer), thousands for a
# ranking: no cyclic collection while they are made (a refused request's problem leaves the
# pause as an exception; its cycles wait for the next collection). The analyses may compute
# for seconds: always on the lane.
ROUTES: tuple[Route, ...] = (
    Route("/v1/evaluations", "POST", "evaluateHand",
          lambda c: operations.evaluate_hand(c.body, c.query, c.profiles, guard=c.guard, language=c.language),
          heavy_bytes=HEAVY_BODY_BYTES),
    Route("/v1/evaluations/batch", "POST", "evaluateHands",
          lambda c: operations.evaluate_hands(c.body, c.query, c.profiles, guard=c.guard, language=c.language),
          heavy_bytes=HEAVY_BODY_BYTES, gc_pause=True),
    Route("/v1/rankings", "POST", "rankHands",
          lambda c: operations.rank_hands(c.body, c.query, c.profiles, guard=c.guard, language=c.language),
          heavy_bytes=HEAVY_BODY_BYTES, gc_pause=True),
    Route("/v1/settlements", "POST", "settleRound",
          lambda c: operations.settle_round(c.body, c.query, c.profiles, guard=c.guard, language=c.language),
          heavy_bytes=HEAVY_BODY_BYTES),
    Route("/v1/showdowns", "POST", "settleShowdown",
          lambda c: operations.settle_showdown(c.body, c.query, c.profiles, guard=c.guard, language=c.language),
          heavy_bytes=HEAVY_BODY_BYTES),
    Route("/v1/exposures", "POST", "tableExposures",
          lambda c: operations.table_exposures(c.body, c.query, c.profiles)),
    Route("/v1/deals", "POST", "dealHands", lambda c: operations.deal_hands(c.body, c.query)),
    Route("/v1/deals/verify", "POST", "verifyDeal", lambda c: operations.verify_deal(c.body, c.query)),
    Route("/v1/odds", "POST", "oddsAgainstDealer",
          lambda c: operations.odds_against_dealer(c.body, c.query, c.profiles, c.guard, language=c.language),
          heavy_bytes=0),
    Route("/v1/analyses/distribution", "POST", "analyseDistribution",
          lambda c: operations.analyse_distribution(c.body, c.query, c.profiles, c.guard, language=c.language),
          heavy_bytes=0),
    Route("/v1/analyses/house-edge", "POST", "analyseHouseEdge",
          lambda c: operations.analyse_house_edge(c.body, c.query, c.profiles, c.guard), heavy_bytes=0),
    Route("/v1/profiles", "GET", "listProfiles", lambda c: operations.list_profiles(c.profiles, c.query)),
    Route("/v1/profiles/<name>", "GET", "getProfile",
          lambda c: operations.get_profile(c.args["name"], c.profiles, c.query)),
    Route("/v1/profiles/<name>/distribution", "GET", "getProfileDistribution",
          lambda c: operations.get_profile_distribution(c.args["name"], c.profiles, c.guard, query=c.query,
                                                        language=c.language)),
    Route("/v1/profiles/<name>/house-edge", "GET", "getProfileHouseEdge",
          lambda c: operations.get_profile_house_edge(c.args["name"], c.query, c.profiles)),
)

_NO_ARGS: Mapping[str, str] = MappingProxyType({})


def client_guard(rt: Runtime, environ: Mapping[str, Any]) -> Guard:
    """The budget guard (:meth:`~service.http.budget.AnalysisBudget.guard`) in ``rt`` of the
    client of ``environ`` (a WSGI environment), by its address."""
    guard: Guard = partial(rt.budget.guard, environ.get("REMOTE_ADDR") or "-")
    return guard


def serve(route: Route, environ: dict[str, Any], rt: Runtime, config: Mapping[str, Any],
          args: Mapping[str, str] = _NO_ARGS) -> tuple[bytes, str | None]:
    """Answer a request to ``route``: the answer's JSON text and the language of its labels
    (``None``: it has none). No request context is needed.

    The body (a ``POST``'s) is read first (:func:`~service.http.json_body.body_bytes`: media
    type, size, deadline, framing), then parsed and given to the operation with the query,
    the profiles, the client's budget guard and the language; on the compute lane when the
    body is heavy (the work touches no request context: the lane is another thread), with
    the collector paused when the row says so (only while the work runs: never while the
    request waits for its body or the lane, so paused spans do not pile up). A query naming
    ``receipt`` on a route that signs goes through
    :func:`~service.http.receipts.answer_with_receipt`. The hands evaluated are counted.

    :param config: the app's (``MAX_CONTENT_LENGTH``, ``BODY_TIMEOUT``).
    :param args: the route's path variables.
    :raises Exception: what the reading or the operation raises (a problem, a refusal, a bug).
    """
    raw = body_bytes(environ, config) if route.method == "POST" else b""
    params = query_of(environ)
    guard, language = client_guard(rt, environ), language_of(environ)
    asks_receipt = RECEIPT_PARAMETER in params and route.signs

    def answered() -> tuple[Answer, bytes | None]:
        call = Call(parse_json(raw) if route.method == "POST" else None, params, rt.profiles, guard, language, args)
        if asks_receipt:
            return answer_with_receipt(lambda query: route.operation(call._replace(query=query)),
                                       call.body, params, rt, route.operation_id)
        return route.operation(call), None

    def work() -> tuple[Answer, bytes | None]:
        if not route.gc_pause:
            return answered()
        with gc_pause.paused():
            return answered()

    heavy = route.heavy_bytes is not None and len(raw) >= route.heavy_bytes
    answer, signed = rt.compute(work, heavy=heavy, environ=environ)
    if answer.categories:
        rt.observe(answer.profile, answer.categories)
    return (orjson.dumps(answer.body) if signed is None else signed), answer.lang


class Dispatcher:
    """WSGI middleware: each ``POST`` to a route of ``routes`` without path variables
    answered by :func:`serve` (its problems too, :func:`~service.http.problems.problem_answer`),
    everything else by ``flask_app`` (the Flask app's ``wsgi_app``).

    :param routes: the route table.
    :param flask_app: what answers every other request.
    :param rt: the app's runtime.
    :param config: the app's config.
    """

    def __init__(self, routes: Iterable[Route], flask_app: WSGIApp, rt: Runtime, config: Mapping[str, Any]) -> None:
        self.flask_app = flask_app
        self.rt = rt
        self.config = config
        self.routes = {r.path: r for r in routes if r.method == "POST" and "<" not in r.path}

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Serve one request: here when its route is in the table, else through Flask."""
        route = self.routes.get(environ.get("PATH_INFO", "")) if environ.get("REQUEST_METHOD") == "POST" else None
        if route is None:
            return self.flask_app(environ, start_response)
        environ[ROUTE_KEY] = route.path
        try:
            text, lang = serve(route, environ, self.rt, self.config)
        except Exception as exc:  # every failure is answered as problem details
            status, headers, text = problem_answer(exc, environ)
            start_response(status, headers)
            return [text]
        start_response("200 OK", answer_headers(text, lang))
        return [text]


def _flask_view(route: Route, rt: Runtime) -> Callable[..., Response]:
    """The one Flask view of the table: ``route`` served (:func:`serve`) with the current
    request's environment and path variables; what it raises goes to Flask's error
    handlers (the same problems, :mod:`service.http.problems`)."""

    def view(**args: str) -> Response:
        text, lang = serve(route, request.environ, rt, current_app.config, args)
        return Response(text, 200, answer_headers(text, lang))

    view.__name__ = view.__qualname__ = route.operation_id
    view.__doc__ = f"{route.method} {route.path} (openapi: ``{route.operation_id}``), through Flask."
    return view


def add_routes(app: Flask, rt: Runtime, routes: Iterable[Route] = ROUTES) -> None:
    """Make every row of ``routes`` a rule of ``app``'s URL map (endpoint: its operationId)."""
    for route in routes:
        app.add_url_rule(route.path, route.operation_id, _flask_view(route, rt), methods=[route.method])
