"""Scoring requests, shared by the HTTP views and the ``gnau`` command.

One place checks a request body the way the API does (profile, schema, rule overrides)
and one place turns a checked ranking or settlement into its answer, so the command line
and the API accept, reject and answer exactly alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from marshmallow import Schema, ValidationError

from service.engine.cards import CARDS, Card
from service.engine.compare import rank_hands
from service.engine.evaluate import Evaluation
from service.engine.exposure import Exposure, TableExposure, table_exposure, worst_case_amount
from service.engine.rules import Profile, Rules, RulesError, apply_overrides
from service.engine.settle import MAX_SAFE_INTEGER, Settlement, settle
from service.engine.tables import evaluator
from service.engine.text import echo
from service.problems import ErrorItem, flatten_messages, pointer
from service.schemas import (
    ExposureRequestSchema,
    ExposureResponseSchema,
    RankingResponseSchema,
    SettlementRequestSchema,
    SettlementResponseSchema,
)
from service.serialize import evaluation_dict

__all__ = ["Scoring", "cards", "evaluate_all", "exposure_answer", "load_body", "ranking_answer",
           "safe_integer_problems", "settle_request", "settlement_answer", "settlement_answer_dumped"]

_RANKING_OUT = RankingResponseSchema()
_SETTLEMENT_OUT = SettlementResponseSchema()
_EXPOSURE_OUT = ExposureResponseSchema()


@dataclass(frozen=True)
class Scoring:
    """A checked scoring request.

    :param data: the loaded body.
    :param profile: the selected profile.
    :param rules: the effective rules (profile plus the request's overrides).
    :param context: the ``profile``, ``rules_digest`` (and, when the request gave
        ``rules``, the effective ``rules`` and their ``max_payout``) members of the answer.
    """

    data: dict[str, Any]
    profile: Profile
    rules: Rules
    context: dict[str, Any]


def load_body(schema: Schema, body: Any, profile_name: str, profiles: Mapping[str, Profile],
              errors: list[ErrorItem], *, profiles_hint: str) -> Scoring | None:
    """Check a scoring body under a profile, as every scoring operation does.

    :param schema: the request schema.
    :param body: the parsed JSON body.
    :param profile_name: the requested profile.
    :param profiles: the known profiles by name.
    :param errors: problems found so far (e.g. query parameters); this call adds its own,
        including, for a settlement otherwise valid, :func:`safe_integer_problems`.
    :param profiles_hint: where the caller lists profiles, for the unknown-profile message.
    :return: the checked request, or ``None`` when ``errors`` is not empty.
    """
    profile = profiles.get(profile_name)
    if profile is None:
        errors.append({"parameter": "profile", "detail": f"unknown profile {echo(profile_name)}; see {profiles_hint}"})
    data: dict[str, Any] = {}
    if not isinstance(body, dict):
        errors.append({"pointer": "", "detail": "the body must be a JSON object"})
    else:
        try:
            data = schema.load(body)
        except ValidationError as exc:
            errors.extend(flatten_messages(exc.messages))
            data = exc.valid_data if isinstance(exc.valid_data, dict) else {}
    rules = profile.rules if profile is not None else None
    if rules is not None and isinstance(data.get("rules"), Mapping):
        try:
            rules = apply_overrides(rules, data["rules"])
        except RulesError as exc:
            # The schema loads only the knobs whose shape is right (RulesOverridesSchema), so
            # these are what it cannot see, e.g. a ranking that repeats a category.
            errors.extend({"pointer": pointer("rules", *path), "detail": msg} for path, msg in exc.problems)
    if not errors and rules is not None and isinstance(schema, (SettlementRequestSchema, ExposureRequestSchema)):
        errors.extend(safe_integer_problems(data, rules))
    if errors or profile is None or rules is None:
        return None
    context: dict[str, Any] = {"profile": profile.name, "rules_digest": rules.digest()}
    if isinstance(body, dict) and body.get("rules") is not None:
        context["rules"] = rules.as_dict()
        context["max_payout"] = rules.max_payout
    return Scoring(data, profile, rules, context)


def safe_integer_problems(data: Mapping[str, Any], rules: Rules) -> list[ErrorItem]:
    """The problem of a settlement table whose amounts could leave the safe integers.

    Every integer the service returns lies within ±(2^53 − 1) (I-JSON, RFC 7493), so that
    JavaScript and every other JSON client reads it exactly: a table whose worst case
    (:func:`service.engine.exposure.worst_case_amount`: the dealer's largest loss, RULES.md
    section 6.3) is larger is refused, naming the bound. Exposures are bounded by it too.

    :param data: a loaded settlement or exposure body (``players`` with stakes and bets).
    :param rules: the effective rules.
    :return: one ``/players`` problem, or none.
    """
    players = [(p["stake"], p.get("bet", "double")) for p in data.get("players", [])]
    worst = worst_case_amount(players, rules)
    if worst <= MAX_SAFE_INTEGER:
        return []
    return [{"pointer": "/players", "detail": (
        f"the stakes could settle for {worst} (each double bet's stake times the largest payout under "
        f"these rules, {rules.max_payout}, plus each equal bet's stake); every amount must stay within "
        f"±{MAX_SAFE_INTEGER} (2^53 − 1, the largest integer every JSON client reads exactly): lower the stakes")}]


def cards(codes: Sequence[int]) -> tuple[Card, ...]:
    """The cards of loaded card codes."""
    return tuple(CARDS[c] for c in codes)


def evaluate_all(hands: Sequence[Sequence[int]], rules: Rules) -> list[Evaluation]:
    """Evaluate loaded hands the fastest way for their number."""
    evaluate = evaluator(rules, len(hands))
    return [evaluate(cards(h)) for h in hands]


def ranking_answer(s: Scoring) -> tuple[dict[str, Any], list[Evaluation]]:
    """The answer of ``POST /v1/rankings`` and the evaluations it made (input order)."""
    entries = s.data["hands"]
    evaluations = evaluate_all([e["hand"] for e in entries], s.rules)
    ranking = [{"index": r.index, "id": entries[r.index]["id"], "position": r.position,
                "evaluation": r.evaluation} for r in rank_hands(evaluations, s.rules)]
    answer: dict[str, Any] = _RANKING_OUT.dump(s.context | {"ranking": ranking})
    return answer, evaluations


def settle_request(s: Scoring) -> tuple[Settlement, TableExposure]:
    """Settle a checked settlement request and find its table's exposure (dealer first)."""
    players = s.data["players"]
    evaluations = evaluate_all([s.data["dealer"]["hand"]] + [p["hand"] for p in players], s.rules)
    bets = [p["bet"] for p in players]
    seats = [(e, p["stake"]) for e, p in zip(evaluations[1:], players, strict=True)]
    # Every bet double (the common case): the engine's path without a bet list.
    result = settle(evaluations[0], seats, s.rules, None if all(b == "double" for b in bets) else bets)
    return result, table_exposure([(p["stake"], bet) for p, bet in zip(players, bets, strict=True)], s.rules)


def _exposure(x: Exposure) -> dict[str, int]:
    return {"max_loss": x.max_loss, "max_win": x.max_win}


def settlement_answer(s: Scoring) -> tuple[dict[str, Any], list[Evaluation]]:
    """The answer of ``POST /v1/settlements`` and the evaluations it made (dealer first).

    Written straight into dicts (the hot path of every settlement): the same data as
    :class:`~service.schemas.SettlementResponseSchema` dumps, which the tests compare.
    """
    result, exposure = settle_request(s)
    dealer = result.dealer
    answer: dict[str, Any] = dict(s.context)
    answer["dealer"] = {"evaluation": evaluation_dict(dealer), "gross": result.dealer_gross,
                        "commission": result.dealer_commission, "net": result.dealer_net,
                        "exposure": _exposure(exposure.dealer)}
    answer["players"] = [
        {"id": p["id"], "evaluation": evaluation_dict(r.evaluation), "stake": r.stake, "bet": r.bet,
         "outcome": r.outcome, "gross": r.gross, "commission": r.commission, "amount": r.amount,
         "exposure": _exposure(x)}
        for p, r, x in zip(s.data["players"], result.players, exposure.players, strict=True)]
    answer["house"] = result.house
    return answer, [dealer, *(r.evaluation for r in result.players)]


def settlement_answer_dumped(s: Scoring) -> dict[str, Any]:
    """:func:`settlement_answer`'s body through :class:`~service.schemas.SettlementResponseSchema`
    (the reference the tests compare the hot path with)."""
    result, exposure = settle_request(s)
    dumped: dict[str, Any] = _SETTLEMENT_OUT.dump(s.context | {
        "dealer": {"evaluation": result.dealer, "gross": result.dealer_gross, "commission": result.dealer_commission,
                   "net": result.dealer_net, "exposure": exposure.dealer},
        "players": [{"id": p["id"], "evaluation": r.evaluation, "stake": r.stake, "bet": r.bet,
                     "outcome": r.outcome, "gross": r.gross, "commission": r.commission, "amount": r.amount,
                     "exposure": x}
                    for p, r, x in zip(s.data["players"], result.players, exposure.players, strict=True)],
        "house": result.house,
    })
    return dumped


def exposure_answer(s: Scoring) -> dict[str, Any]:
    """The answer of ``POST /v1/exposures``: each seat's and the dealer's exposure
    (RULES.md section 6.3) and the rules' ``max_payout``."""
    seats = s.data["players"]
    exposure = table_exposure([(p["stake"], p["bet"]) for p in seats], s.rules)
    answer: dict[str, Any] = _EXPOSURE_OUT.dump(s.context | {
        "max_payout": s.rules.max_payout,
        "dealer": {"exposure": exposure.dealer},
        "players": [{"id": p["id"], "stake": p["stake"], "bet": p["bet"], "exposure": x}
                    for p, x in zip(seats, exposure.players, strict=True)],
    })
    return answer
