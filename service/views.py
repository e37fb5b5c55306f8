"""The HTTP endpoints: parse with marshmallow, call the engine, dump with marshmallow.

Every route here is a path × method of openapi.yaml; a test keeps the two in lock-step.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
from flask import Blueprint, Response, current_app, request

from service import gc_pause
from service.engine.text import echo
from service.problems import ErrorItem, ProblemError, pointer, validation_problem
from service.profiles import ProfileRegistry, openapi_with_profiles
from service.request_body import BodyFramingError, BodyTimeoutError, BodyTooLargeError, read_body
from service.schemas import (
    BatchRequestSchema,
    EvaluationRequestSchema,
    ExposureRequestSchema,
    ProfileListSchema,
    ProfileSchema,
    RankingRequestSchema,
    SettlementRequestSchema,
)
from service.scoring import Scoring, exposure_answer, load_body, ranking_answer, settlement_answer
from service.serialize import evaluate_batch, evaluations_json, parse_fields, select

__all__ = ["QUERY_IGNORED", "api", "ops"]

api = Blueprint("api", __name__, url_prefix="/v1")
ops = Blueprint("ops", __name__)

_SCHEMAS = {
    "evaluation": EvaluationRequestSchema(),
    "batch": BatchRequestSchema(),
    "ranking": RankingRequestSchema(),
    "settlement": SettlementRequestSchema(),
    "exposure": ExposureRequestSchema(),
}
_OUT = {
    "profile": ProfileSchema(),
    "profiles": ProfileListSchema(),
}


def registry() -> ProfileRegistry:
    """The app's profiles (built-in and operator-defined)."""
    reg: ProfileRegistry = current_app.extensions["gnau.profiles"]
    return reg


def json_response(data: Any, status: int = 200) -> Response:
    """A JSON response written with orjson."""
    return Response(orjson.dumps(data), status=status, mimetype="application/json")


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {echo(key)} in an object")
        out[key] = value
    return out


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def _malformed(detail: str) -> ProblemError:
    return ProblemError(400, "/problems/malformed-json", "Malformed JSON", detail, [{"pointer": "", "detail": detail}])


def _surrogate_pointers(value: Any, path: tuple[object, ...] = ()) -> list[str]:
    """Pointers to strings (and keys) holding a lone UTF-16 surrogate escape."""
    found: list[str] = []
    if isinstance(value, str):
        if any("\ud800" <= ch <= "\udfff" for ch in value):
            found.append(pointer(*path))
    elif isinstance(value, dict):
        for key, item in value.items():
            if any("\ud800" <= ch <= "\udfff" for ch in key):
                found.append(pointer(*path, key.encode("utf-8", "backslashreplace").decode()))
            else:
                found.extend(_surrogate_pointers(item, (*path, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(_surrogate_pointers(item, (*path, i)))
    return found


def read_json() -> Any:
    """The request body as JSON data.

    :raises ProblemError: 415 when the body is not ``application/json`` in UTF-8 (another
        ``charset`` or a ``Content-Encoding`` is refused, never reinterpreted); 413 when it
        is over 1 MiB however it is framed (``Content-Length`` or chunked); 408 when it does
        not arrive within ``BODY_TIMEOUT`` seconds; 400 when its framing is broken (a bad
        chunk size, a short body) or when it is
        not well-formed JSON (a duplicate key, ``NaN``, a number of over 4,300 digits, or
        nesting too deep for the parser count as malformed: nothing is dropped) or holds
        a lone UTF-16 surrogate escape such as ``"\\ud800"`` (named by pointer).
    """
    if request.mimetype != "application/json":
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                           f"The body must be application/json, got {request.mimetype or 'none'}.")
    charset = request.mimetype_params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                           f"The body must be encoded as UTF-8, got charset={charset}.")
    codings = [c.strip().lower() for c in request.headers.get("Transfer-Encoding", "").split(",") if c.strip()]
    if any(c != "chunked" for c in codings):
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                           f"Transfer-Encoding {echo(', '.join(codings))} is not accepted; send the body "
                           "uncompressed (chunked framing alone is fine).")
    encoding = request.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                           f"Content-Encoding {encoding} is not accepted; send the body uncompressed.")
    try:
        raw = read_body(request.environ, current_app.config["MAX_CONTENT_LENGTH"],
                        current_app.config["BODY_TIMEOUT"])
    except BodyTooLargeError:
        raise ProblemError(413, "/problems/payload-too-large", "Payload too large",
                           "The request body is over the 1 MiB limit.") from None
    except BodyTimeoutError:
        raise ProblemError(408, "/problems/request-timeout", "Request timeout",
                           f"The request body did not arrive within {current_app.config['BODY_TIMEOUT']:g} s; "
                           "the connection is closed.") from None
    except BodyFramingError as exc:
        raise ProblemError(400, "/problems/malformed-body", "Malformed body",
                           f"The request body cannot be read: {exc}.") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _malformed(f"The body is not valid UTF-8: byte {exc.start} cannot be decoded.") from None
    try:
        body = json.loads(text, object_pairs_hook=_reject_duplicate_keys, parse_constant=_reject_constant)
    except RecursionError:
        raise _malformed("The body is not valid JSON: it is nested too deeply.") from None
    except ValueError as exc:
        message = str(exc)
        if "int_max_str_digits" in message or "Exceeds the limit" in message:
            message = "a number has more than 4,300 digits"
        raise _malformed(f"The body is not valid JSON: {message}") from None
    bad = _surrogate_pointers(body) if "\\u" in text else []  # escapes are rare: walk only then
    if bad:
        raise validation_problem({"pointer": p, "detail": "holds a lone UTF-16 surrogate escape (\\ud800-\\udfff)"}
                                 for p in bad)
    return body


#: Probes and scrapers may add a cache-busting query string: these endpoints ignore it.
QUERY_IGNORED = frozenset({"ops.health", "ops.readiness", "metrics"})
#: The reads that take a query parameter, by endpoint: the parameters each takes.
READ_PARAMETERS: dict[str, frozenset[str]] = {"analyses.profile_house_edge": frozenset({"bet"})}


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
            raise validation_problem({"parameter": name, "detail": "unknown query parameter; this operation takes "
                                      + (", ".join(sorted(allowed)) if allowed else "none")} for name in unknown)


#: The scoring kinds whose answers hold evaluations, which take a ``fields`` parameter.
_FIELDS_KINDS = frozenset({"evaluation", "batch", "ranking"})


def load_scoring(kind: str) -> Scoring:
    """Parse a scoring request: query parameters, body, profile and rule overrides.

    :param kind: which request schema: ``evaluation``, ``batch``, ``ranking``, ``settlement``
        or ``exposure`` (and the analyses' kinds).
    :raises ProblemError: naming every problem found.
    """
    scoring, _ = _load(kind)
    return scoring


def _load(kind: str) -> tuple[Scoring, tuple[str, ...] | None]:
    """:func:`load_scoring`, and the sparse fieldset of kinds that take ``fields``."""
    body = read_json()
    errors: list[ErrorItem] = []
    takes = {"profile", "fields"} if kind in _FIELDS_KINDS else {"profile"}
    for name in request.args:
        if name not in takes:
            errors.append({"parameter": name, "detail": "unknown query parameter; this operation takes "
                                                        + " and ".join(sorted(takes))})
    for name in takes:
        if len(request.args.getlist(name)) > 1:
            errors.append({"parameter": name, "detail": f"give {name} once"})
    fields: tuple[str, ...] | None = None
    if "fields" in takes and "fields" in request.args:
        fields, problem = parse_fields(request.args["fields"])
        if problem is not None:
            errors.append({"parameter": "fields", "detail": problem})
    scoring = load_body(_SCHEMAS[kind], body, request.args.get("profile", "standard"), registry(), errors,
                        profiles_hint="GET /v1/profiles")
    if scoring is None or errors:
        raise validation_problem(errors)
    return scoring, fields


@api.post("/evaluations")
def evaluate_hand() -> Response:
    """Evaluate one hand (openapi: ``evaluateHand``); ``fields`` selects members."""
    s, fields = _load("evaluation")
    [evaluation], categories = evaluate_batch([s.data["hand"]], s.rules, fields)
    current_app.extensions["gnau.observe_categories"](s.profile.name, categories)
    return json_response(s.context | evaluation)


@api.post("/evaluations/batch")
def evaluate_hands() -> Response:
    """Evaluate up to 10,000 hands (openapi: ``evaluateHands``); ``fields`` selects members."""
    s, fields = _load("batch")  # validation (and its error objects) before any pause
    # ~100,000 short-lived, acyclic objects: no cyclic collection while they live; the
    # response bytes are all that leaves the pause.
    with gc_pause.paused():
        evaluations, categories = evaluations_json(s.data["hands"], s.rules, fields)  # JSON text, no objects
        data = orjson.dumps(s.context | {"evaluations": evaluations})
        del evaluations
    current_app.extensions["gnau.observe_categories"](s.profile.name, categories)
    return Response(data, mimetype="application/json")


@api.post("/rankings")
def rank() -> Response:
    """Rank 2 to 1,000 hands (openapi: ``rankHands``)."""
    s, fields = _load("ranking")
    answer, evaluations = ranking_answer(s)
    if fields is not None:
        for item in answer["ranking"]:
            item["evaluation"] = select(item["evaluation"], fields)
    current_app.extensions["gnau.observe"](s.profile.name, evaluations)
    return json_response(answer)


@api.post("/settlements")
def settle_round() -> Response:
    """Settle a round against the dealer (openapi: ``settleRound``)."""
    s = load_scoring("settlement")
    answer, evaluations = settlement_answer(s)
    current_app.extensions["gnau.observe"](s.profile.name, evaluations)
    return json_response(answer)


@api.post("/exposures")
def table_exposures() -> Response:
    """What each seat and the dealer could lose and win before the deal (openapi: ``tableExposures``)."""
    return json_response(exposure_answer(load_scoring("exposure")))


@api.get("/profiles")
def list_profiles() -> Response:
    """Every profile (openapi: ``listProfiles``)."""
    return json_response(_OUT["profiles"].dump({"profiles": list(registry().values())}))


@api.get("/profiles/<name>")
def get_profile(name: str) -> Response:
    """One profile (openapi: ``getProfile``); 404 when unknown."""
    profile = registry().get(name)
    if profile is None:
        raise ProblemError(404, "/problems/unknown-profile", "Unknown profile",
                         f"There is no profile {echo(name)}; see GET /v1/profiles.")
    return json_response(_OUT["profile"].dump(profile))


@ops.get("/healthz")
def health() -> Response:
    """Liveness: cheap, checks nothing else (openapi: ``health``)."""
    return json_response({"status": "ok"})


@ops.get("/readyz")
def readiness() -> Response:
    """Readiness: 200 once the tables are built, 503 while draining (openapi: ``readiness``)."""
    state = current_app.extensions["gnau.state"]
    if state.draining:
        raise ProblemError(503, "/problems/not-ready", "Not ready", "The server is draining after SIGTERM.")
    if not state.ready:
        raise ProblemError(503, "/problems/not-ready", "Not ready", "The server is still starting.")
    return json_response({"status": "ready"})


@ops.get("/openapi.yaml")
def openapi_document() -> Response:
    """The contract this service implements (openapi: ``openapiDocument``), with the
    operator's profiles added to the ``profile`` parameter's enum; built once per app."""
    document: bytes | None = current_app.extensions.get("gnau.openapi")
    if document is None:
        committed = Path(__file__).with_name("openapi.yaml").read_bytes()
        document = current_app.extensions["gnau.openapi"] = openapi_with_profiles(committed, registry())
    return Response(document, mimetype="application/yaml")
