"""The HTTP endpoints: parse with marshmallow, call the engine, dump with marshmallow.

Every route here is a path × method of openapi.yaml; a test keeps the two in lock-step.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from flask import Blueprint, Response, current_app, request
from marshmallow import ValidationError

from service import gc_pause
from service.engine.cards import CARDS, Card
from service.engine.compare import rank_hands
from service.engine.evaluate import Evaluation
from service.engine.rules import Profile, Rules, RulesError, apply_overrides
from service.engine.settle import settle
from service.engine.tables import evaluator
from service.problems import ErrorItem, ProblemError, flatten_messages, pointer, validation_problem
from service.profiles import ProfileRegistry, openapi_with_profiles
from service.schemas import (
    BatchRequestSchema,
    EvaluationRequestSchema,
    ProfileListSchema,
    ProfileSchema,
    RankingRequestSchema,
    RankingResponseSchema,
    SettlementRequestSchema,
    SettlementResponseSchema,
)
from service.serialize import evaluation_dicts

__all__ = ["api", "ops"]

api = Blueprint("api", __name__, url_prefix="/v1")
ops = Blueprint("ops", __name__)

_QUERY_PARAMETERS = {"profile"}
_SCHEMAS = {
    "evaluation": EvaluationRequestSchema(),
    "batch": BatchRequestSchema(),
    "ranking": RankingRequestSchema(),
    "settlement": SettlementRequestSchema(),
}
_OUT = {
    "ranking": RankingResponseSchema(),
    "settlement": SettlementResponseSchema(),
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


@dataclass(frozen=True)
class Scoring:
    """A parsed scoring request.

    :param data: the loaded body.
    :param profile: the selected profile.
    :param rules: the effective rules (profile plus the request's overrides).
    :param context: the ``profile``, ``rules_digest`` (and ``rules``) members of the answer.
    """

    data: dict[str, Any]
    profile: Profile
    rules: Rules
    context: dict[str, Any]


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r} in an object")
        out[key] = value
    return out


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def read_json() -> Any:
    """The request body as JSON data.

    :raises ProblemError: 415 when the body is not ``application/json``; 400 when it is not
        well-formed JSON (a duplicate key or NaN counts as malformed: nothing is dropped).
    """
    if request.mimetype != "application/json":
        raise ProblemError(415, "/problems/unsupported-media-type", "Unsupported media type",
                         f"The body must be application/json, got {request.mimetype or 'none'}.")
    raw = request.get_data(cache=False)
    try:
        return json.loads(raw, object_pairs_hook=_reject_duplicate_keys, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        detail = f"The body is not valid JSON: {exc}"
        raise ProblemError(400, "/problems/malformed-json", "Malformed JSON", detail,
                         [{"pointer": "", "detail": detail}]) from None


def load_scoring(kind: str) -> Scoring:
    """Parse a scoring request: query parameters, body, profile and rule overrides.

    :param kind: which request schema: ``evaluation``, ``batch``, ``ranking`` or ``settlement``.
    :raises ProblemError: naming every problem found.
    """
    body = read_json()
    errors: list[ErrorItem] = []
    for name in request.args:
        if name not in _QUERY_PARAMETERS:
            errors.append({"parameter": name, "detail": "unknown query parameter; the only one is profile"})
    if len(request.args.getlist("profile")) > 1:
        errors.append({"parameter": "profile", "detail": "give profile once"})
    name = request.args.get("profile", "standard")
    profile = registry().get(name)
    if profile is None:
        errors.append({"parameter": "profile",
                       "detail": f"unknown profile {name!r}; see GET /v1/profiles"})
    data: dict[str, Any] = {}
    if not isinstance(body, dict):
        errors.append({"pointer": "", "detail": "the body must be a JSON object"})
    else:
        try:
            data = _SCHEMAS[kind].load(body)
        except ValidationError as exc:
            errors.extend(flatten_messages(exc.messages))
            data = exc.valid_data if isinstance(exc.valid_data, dict) else {}
    rules = profile.rules if profile is not None else None
    overrides = body.get("rules") if isinstance(body, dict) else None
    if rules is not None and isinstance(data.get("rules"), Mapping):
        try:
            rules = apply_overrides(rules, data["rules"])
        except RulesError as exc:
            errors.extend({"pointer": pointer("rules", *path), "detail": msg} for path, msg in exc.problems)
    if errors or profile is None or rules is None:
        raise validation_problem(errors)
    context: dict[str, Any] = {"profile": profile.name, "rules_digest": rules.digest()}
    if overrides is not None:
        context["rules"] = rules.as_dict()
    return Scoring(data, profile, rules, context)


def _cards(codes: list[int]) -> tuple[Card, ...]:
    return tuple(CARDS[c] for c in codes)


def _evaluate_all(hands: list[list[int]], rules: Rules) -> list[Evaluation]:
    evaluate = evaluator(rules, len(hands))
    return [evaluate(_cards(h)) for h in hands]


@api.post("/evaluations")
def evaluate_hand() -> Response:
    """Evaluate one hand (openapi: ``evaluateHand``)."""
    s = load_scoring("evaluation")
    [evaluation] = evaluation_dicts([s.data["hand"]], s.rules)
    current_app.extensions["gnau.observe_categories"](s.profile.name, [evaluation["category"]])
    return json_response(s.context | evaluation)


@api.post("/evaluations/batch")
def evaluate_hands() -> Response:
    """Evaluate up to 10,000 hands (openapi: ``evaluateHands``)."""
    # ~100,000 short-lived, acyclic objects: no cyclic collection while they live, and all
    # of them are freed (with _evaluate_batch's frame) before it is back on.
    with gc_pause.paused():
        return _evaluate_batch()


def _evaluate_batch() -> Response:
    s = load_scoring("batch")
    evaluations = evaluation_dicts(s.data["hands"], s.rules)  # the fast path: no Evaluation objects
    current_app.extensions["gnau.observe_categories"](s.profile.name, [e["category"] for e in evaluations])
    return json_response(s.context | {"evaluations": evaluations})


@api.post("/rankings")
def rank() -> Response:
    """Rank 2 to 1,000 hands (openapi: ``rankHands``)."""
    s = load_scoring("ranking")
    entries = s.data["hands"]
    evaluations = _evaluate_all([e["hand"] for e in entries], s.rules)
    current_app.extensions["gnau.observe"](s.profile.name, evaluations)
    ranked = rank_hands(evaluations, s.rules)
    ranking = [{"index": r.index, "id": entries[r.index]["id"], "position": r.position,
                "evaluation": r.evaluation} for r in ranked]
    return json_response(_OUT["ranking"].dump(s.context | {"ranking": ranking}))


@api.post("/settlements")
def settle_round() -> Response:
    """Settle a round against the dealer (openapi: ``settleRound``)."""
    s = load_scoring("settlement")
    players = s.data["players"]
    evaluations = _evaluate_all([s.data["dealer"]["hand"]] + [p["hand"] for p in players], s.rules)
    current_app.extensions["gnau.observe"](s.profile.name, evaluations)
    result = settle(evaluations[0], [(e, p["stake"]) for e, p in zip(evaluations[1:], players, strict=True)],
                    s.rules)
    body = s.context | {
        "dealer": {"evaluation": result.dealer, "net": result.dealer_net},
        "players": [{"id": p["id"], "evaluation": r.evaluation, "stake": r.stake, "outcome": r.outcome,
                     "amount": r.amount} for p, r in zip(players, result.players, strict=True)],
    }
    return json_response(_OUT["settlement"].dump(body))


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
                         f"There is no profile {name!r}; see GET /v1/profiles.")
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
