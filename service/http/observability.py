"""Request ids and Prometheus metrics (the JSON logs: :mod:`service.logs`).

Metrics use prometheus_client; with ``PROMETHEUS_MULTIPROC_DIR`` set (gunicorn.conf.py
sets it) every worker writes its samples there and ``/metrics`` aggregates them all.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as prometheus_multiprocess

from service.logs import REQUEST_ID_KEY, WAIT_KEY

__all__ = ["REQUEST_ID_HEADER", "ROUTE_KEY", "count_answer", "install", "observe_categories", "request_id", "route_of",
           "start_request"]

REQUEST_ID_HEADER = "X-Request-ID"
#: Where :func:`start_request` keeps the request's id and start time in the WSGI environment.
_STARTED_KEY = "gnau.started"
#: Where the route table's dispatcher notes the route template it answered (:func:`route_of`).
ROUTE_KEY = "gnau.route"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_REQUEST_ID_ENVIRON = "HTTP_" + REQUEST_ID_HEADER.upper().replace("-", "_")

REQUESTS = Counter("gnau_http_requests_total", "HTTP requests served, by route template, method and status.",
                   ["route", "method", "status"])
LATENCY = Histogram("gnau_http_request_duration_seconds", "Time to serve a request, by route template.",
                    ["route", "method"],
                    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0))
WAIT = Histogram("gnau_http_request_wait_seconds",
                 "Time a request run on its worker's compute lane waited for it, by route template "
                 "(requests that need no lane are not counted here).", ["route", "method"],
                 buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0))
EVALUATIONS = Counter("gnau_evaluations_total", "Hands evaluated, by profile and category.",
                      ["profile", "category"])


#: Metric children by label values, looked up once: ``labels()`` checks and hashes its
#: arguments on every call, which costs more than the increment itself. The label values
#: are bounded (routes, methods, statuses, profiles and categories), so these stay small.
_REQUEST_CHILDREN: dict[tuple[str, str, int], Any] = {}
_LATENCY_CHILDREN: dict[tuple[str, str], Any] = {}
_WAIT_CHILDREN: dict[tuple[str, str], Any] = {}
_EVALUATION_CHILDREN: dict[tuple[str, str], Any] = {}


def _child(cache: dict[Any, Any], metric: Any, key: tuple[Any, ...]) -> Any:
    child = cache.get(key)
    if child is None:
        child = cache[key] = metric.labels(*(str(k) for k in key))
    return child


def observe_categories(profile: str, categories: Mapping[str, int]) -> None:
    """Count evaluated hands by profile and category, given how many hands of each
    category were evaluated (a batch counts them with numpy, not hand by hand)."""
    for category, n in categories.items():
        _child(_EVALUATION_CHILDREN, EVALUATIONS, (profile, category)).inc(n)


def metrics_response() -> Response:
    """The Prometheus exposition of every worker's metrics."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        prometheus_multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        data = generate_latest(registry)
    else:
        data = generate_latest()
    return Response(data, content_type=CONTENT_TYPE_LATEST)


def start_request(environ: dict[str, Any]) -> str:
    """Give a request its id (the caller's ``X-Request-ID`` when it is 1 to 128 of
    ``A-Z a-z 0-9 . _ : -``, else 32 random hex digits) and note when it started, both in
    ``environ``; return the id. The WSGI layer (:mod:`service.http.middleware`) calls it
    first thing, and echoes the id in the answer's ``X-Request-ID``."""
    given = environ.get(_REQUEST_ID_ENVIRON)
    found = given if given is not None and _REQUEST_ID.fullmatch(given) else os.urandom(16).hex()
    environ[REQUEST_ID_KEY] = found
    environ[_STARTED_KEY] = time.perf_counter()
    return found


def request_id(environ: Mapping[str, Any]) -> str:
    """The id of the request of ``environ`` (its WSGI environment; :func:`start_request`),
    for problem bodies."""
    found: str = environ.get(REQUEST_ID_KEY, "")
    return found


def route_of(environ: Mapping[str, Any]) -> str:
    """The route template the request of ``environ`` matched: the route table's
    (:data:`ROUTE_KEY`, set by :class:`service.http.routes.Dispatcher`), else the rule of the
    request Flask made for it (Werkzeug keeps it in ``environ``), else ``"unmatched"``."""
    route: str | None = environ.get(ROUTE_KEY)
    if route is None:
        rule = getattr(environ.get("werkzeug.request"), "url_rule", None)
        route = "unmatched" if rule is None else rule.rule
    return route


def count_answer(environ: Mapping[str, Any], route: str, status: int) -> None:
    """Count an answer of ``status`` to the request of ``environ`` (its WSGI environment) on
    the route template ``route`` (``"unmatched"`` for none): the request counter, the latency
    from :func:`start_request` and, when it ran on the compute lane, its wait."""
    method = environ.get("REQUEST_METHOD", "")
    method = method if method in _METHODS else "other"  # bounded label values
    _child(_REQUEST_CHILDREN, REQUESTS, (route, method, status)).inc()
    started = environ.get(_STARTED_KEY)
    if started is not None:
        _child(_LATENCY_CHILDREN, LATENCY, (route, method)).observe(time.perf_counter() - started)
    waited = environ.get(WAIT_KEY)
    if waited is not None:  # it ran on the compute lane
        _child(_WAIT_CHILDREN, WAIT, (route, method)).observe(waited)


def install(app: Flask) -> None:
    """``/metrics``. Every answer is counted once, at the WSGI layer
    (:class:`service.http.middleware.EveryAnswer` calls :func:`count_answer`): the request
    counter by route template (:func:`route_of`), method and status; the latency from
    :func:`start_request`; the wait of a request for its worker's compute lane
    (``gnau_http_request_wait_seconds``)."""
    app.add_url_rule("/metrics", "metrics", metrics_response, methods=["GET"])
