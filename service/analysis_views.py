"""Analysis endpoints: exact odds against the dealer, distributions, house edge (issue 5).

Thin views over :mod:`service.engine.odds`: parse with marshmallow (through
:func:`service.views.load_scoring`), call the engine, write JSON. Every route is a path x
method of openapi.yaml.

Every profile's analyses are computed before the workers fork (:func:`service.app.create_app`)
and are never refused. Work that is not cached (a table for custom rules, odds with
several decks under rules that use suits) is estimated with
:func:`~service.engine.cost.analysis_cost`; under :data:`CHEAP_SECONDS` it just runs,
above it is paid from an :class:`AnalysisBudget`: seconds per minute for each client
address (``ANALYSIS_BUDGET_SECONDS``, from ``GNAU_ANALYSIS_BUDGET_SECONDS``, default 10)
and for all clients of the worker (``ANALYSIS_POOL_SECONDS``, default 30). When either is
spent the request is refused at once: ``429 /problems/too-expensive`` with
``Retry-After``; 429 rather than 503: the server is healthy and the same request will be
served once the budget refills (a 5xx would count as a server fault). A budget of 0 turns
such work off: ``403 /problems/analysis-disabled``, with no promise of a retry.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from flask import Blueprint, Response, current_app, request
from marshmallow import ValidationError, fields, validate, validates_schema
from werkzeug.wrappers import Response as WerkzeugResponse

from service.engine.cards import CARDS, Card, duplicate_message
from service.engine.cost import analysis_cost
from service.engine.distribution import Distribution, distribution, labels_of
from service.engine.evaluate import evaluate
from service.engine.house_edge import HouseEdge, house_edge, house_edge_method, pinned_house_edge
from service.engine.odds import OddsError, odds
from service.engine.partial import ROLES, PartialOdds, max_opponents, partial_odds
from service.engine.rules import Profile, Rules
from service.engine.settle import BETS
from service.engine.text import echo
from service.problems import ProblemError, problem_response, validation_problem
from service.schemas import MAX_DECKS, _bet_field, _ScoringRequest, card_codes
from service.scoring import cards
from service.serialize import evaluation_dict
from service.views import _SCHEMAS, json_response, load_scoring, registry

__all__ = ["OddsRequestSchema", "analyses", "fraction_text", "odds_answer"]

analyses = Blueprint("analyses", __name__, url_prefix="/v1")

#: Dead cards: at most every card of eight decks but the ten of two hands.
MAX_DEAD = 52 * MAX_DECKS - 10


def fraction_text(value: Fraction) -> str:
    """An exact fraction as ``"p/q"`` (always with a denominator), e.g. ``"-3/7"``, ``"0/1"``.

    >>> fraction_text(Fraction(-6, 14)), fraction_text(Fraction(0))
    ('-3/7', '0/1')
    """
    return f"{value.numerator}/{value.denominator}"


def _chance(hands: int, value: Fraction) -> dict[str, Any]:
    return {"hands": hands, "fraction": fraction_text(value), "probability": float(value)}


def _exact(value: Fraction) -> dict[str, Any]:
    return {"fraction": fraction_text(value), "value": float(value)}


class CardsField(fields.Field[Any]):
    """A list of cards in any accepted notation, loaded as card codes (``None`` where bad)."""

    def __init__(self, max_items: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_items = max_items

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> list[int | None]:
        if not isinstance(value, list):
            raise ValidationError("must be an array of cards")
        if len(value) > self.max_items:
            raise ValidationError(f"at most {self.max_items} cards, got {len(value)}")
        codes, errors = card_codes(value)
        if errors:
            raise ValidationError(errors, valid_data=codes)
        return codes


class KnownCardsField(CardsField):
    """The caller's known cards for odds: 3, 4 or 5 (issue 14), loaded as card codes."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> list[int | None]:
        if isinstance(value, list) and not MIN_KNOWN <= len(value) <= 5:
            raise ValidationError(f"odds need 3, 4 or 5 known cards, got {len(value)}")
        return super()._deserialize(value, attr, data, **kwargs)


#: Known cards for ``POST /v1/odds``: at least three (issue 14).
MIN_KNOWN = 3
#: The most opponents any request can name: eight decks, the dealer's hand, no dead cards.
MAX_OPPONENTS = max_opponents(5, 0, MAX_DECKS)


class OddsRequestSchema(_ScoringRequest):
    """``POST /v1/odds``: ``{"hand": [3-5 cards], "dead": [cards], "decks": 1, "role": "player",
    "opponents": 1, "rules": {...}}``.

    A card may appear at most ``decks`` times across the hand and the dead cards; the
    cards left must hold the rest of the hand and every opponent's five. ``opponents`` is
    for ``role: dealer`` only (default 1).
    """

    hand = KnownCardsField(5, required=True)
    dead = CardsField(MAX_DEAD, load_default=list)
    role = fields.String(load_default="player", validate=validate.OneOf(ROLES, error=f"must be one of {', '.join(ROLES)}"))
    opponents = fields.Integer(strict=True, load_default=None, validate=validate.Range(
        1, MAX_OPPONENTS, error=f"must be an integer from 1 to {MAX_OPPONENTS} (and at most what the decks seat)"),
        error_messages={"invalid": f"must be an integer from 1 to {MAX_OPPONENTS}"})

    @validates_schema(skip_on_field_errors=False)
    def _check_cards(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        decks = data.get("decks")  # the default applied; absent when invalid
        if not isinstance(decks, int):
            return
        errors: dict[Any, Any] = {}
        seen = [0] * 52
        used = 0
        for name in ("hand", "dead"):
            for i, code in enumerate(data.get(name) or []):
                if code is None:
                    continue
                used += 1
                seen[code] += 1
                if seen[code] > decks:
                    errors.setdefault(name, {})[i] = [duplicate_message(code, decks)]
        left = 52 * decks - used
        known = len(data.get("hand") or [])
        opponents = data.get("opponents")
        if opponents is not None and data.get("role") != "dealer":
            errors["opponents"] = ["opponents is for role dealer only (a player faces one dealer)"]
        elif not errors and isinstance(opponents, int) and known:
            seats = max_opponents(known, len(data.get("dead") or []), decks)
            if opponents > seats:
                errors["opponents"] = [f"{decks} deck(s) less {len(data.get('dead') or [])} dead cards seat at most "
                                       f"{seats} opponents beside the dealer's five cards"]
        if not errors and left < 10 - known:
            errors["dead"] = {"_self": [f"only {left} cards are left for the rest of the hand and the opponent; "
                                        f"at most {52 * decks - 10} dead cards with {decks} deck(s)"]}
        if errors:
            raise ValidationError(errors)


#: ``POST /v1/analyses/...``: ``{"rules": {...}}`` (optional: the profile as it is). One
#: deck always, so ``decks`` is not a field (sending it is an unknown-field error).
_ANALYSIS_SCHEMA = _ScoringRequest(exclude=("decks",))


class HouseEdgeRequestSchema(_ScoringRequest):
    """``POST /v1/analyses/house-edge``: ``{"rules": {...}, "bet": "double"}`` (both optional;
    one deck always, so ``decks`` is not a field)."""

    bet = _bet_field()


_SCHEMAS.setdefault("odds", OddsRequestSchema())  # load_scoring's kinds: one more each
_SCHEMAS.setdefault("analysis", _ANALYSIS_SCHEMA)
_SCHEMAS.setdefault("house_edge", HouseEdgeRequestSchema(exclude=("decks",)))

class ComputeBudget:
    """A token bucket of seconds of uncached analysis work, per process.

    It holds at most ``capacity`` seconds and refills at ``capacity`` per minute. A request
    whose uncached work is estimated at ``cost`` seconds runs when the bucket holds
    ``min(cost, capacity)`` (a full bucket always admits one request); the time it really
    took is then taken out, so the bucket may go negative. Capacity 0 admits nothing.

    >>> b = ComputeBudget(10.0, clock=lambda: 0.0)
    >>> b.admit(0.8), b.admit(30.0)
    (None, None)
    >>> b.charge(12.0); b.admit(0.8)    # 2.8 s short at 10 s a minute
    17
    """

    WINDOW = 60.0

    def __init__(self, capacity: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = capacity
        self.tokens = capacity
        self.clock = clock
        self.stamp = clock()
        self.lock = threading.Lock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.capacity / self.WINDOW)
        self.stamp = now

    def admit(self, cost: float) -> int | None:
        """``None`` when a request of ``cost`` seconds may run now, else seconds to wait."""
        with self.lock:
            if self.capacity <= 0:
                return int(self.WINDOW)
            self._refill()
            need = min(cost, self.capacity)
            if self.tokens >= need:
                return None
            return max(1, math.ceil((need - self.tokens) * self.WINDOW / self.capacity))

    def charge(self, seconds: float) -> None:
        """Take ``seconds`` of work done out of the bucket."""
        with self.lock:
            self._refill()
            self.tokens -= seconds


class AnalysisBudget:
    """Who may spend how much uncached analysis work, per worker process.

    Every client address has its own :class:`ComputeBudget` of ``per_client`` seconds a
    minute (the 4,096 most recently seen addresses are remembered), and all clients
    together draw on a pool of ``pool`` seconds a minute: a request runs only when both
    its client's bucket and the pool admit it, and its time is charged to both. One
    client can therefore spend at most its own share and never the whole pool when the
    pool is larger than a share (defaults 10 and 30). ``per_client`` 0 turns such work
    off (:class:`AnalysisDisabledError`).

    >>> budget = AnalysisBudget(10.0, 15.0, clock=lambda: 0.0)
    >>> budget.admit("10.0.0.1", 3.0), budget.charge("10.0.0.1", 10.0), budget.admit("10.0.0.1", 3.0)
    (None, None, 18)
    >>> budget.admit("10.0.0.2", 3.0), budget.charge("10.0.0.2", 4.0), budget.admit("10.0.0.3", 3.0)
    (None, None, 8)
    """

    MAX_CLIENTS = 4096

    def __init__(self, per_client: float, pool: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_client = per_client
        self.pool = ComputeBudget(pool, clock)
        self.clock = clock
        self.clients: OrderedDict[str, ComputeBudget] = OrderedDict()
        self.lock = threading.Lock()

    def _client(self, client: str) -> ComputeBudget:
        with self.lock:
            bucket = self.clients.get(client)
            if bucket is None:
                bucket = self.clients[client] = ComputeBudget(self.per_client, self.clock)
                while len(self.clients) > self.MAX_CLIENTS:
                    self.clients.popitem(last=False)
            self.clients.move_to_end(client)
            return bucket

    def admit(self, client: str, cost: float) -> int | None:
        """``None`` when ``client`` may run ``cost`` seconds of work now, else seconds to wait.

        :raises AnalysisDisabledError: the budget is 0.
        """
        if self.per_client <= 0 or self.pool.capacity <= 0:
            raise AnalysisDisabledError
        waits = [w for w in (self._client(client).admit(cost), self.pool.admit(cost)) if w is not None]
        return max(waits) if waits else None

    def charge(self, client: str, seconds: float) -> None:
        """Take ``seconds`` of work done out of ``client``'s bucket and the pool."""
        self._client(client).charge(seconds)
        self.pool.charge(seconds)


#: Work estimated under this many seconds runs without being counted (a one-deck odds
#: query under rules that use suits costs about 0.03 s).
CHEAP_SECONDS = 0.1


def _budget() -> AnalysisBudget:
    budget: AnalysisBudget | None = current_app.extensions.get("gnau.analysis_budget")
    if budget is None:
        budget = current_app.extensions["gnau.analysis_budget"] = AnalysisBudget(
            float(current_app.config["ANALYSIS_BUDGET_SECONDS"]), float(current_app.config["ANALYSIS_POOL_SECONDS"]))
    return budget


@contextmanager
def _bounded(rules: Rules, kind: str, decks: int = 1, known: int = 5, bet: str = "double") -> Iterator[None]:
    """Run cheap or cached work at once; other work only as the client's budget allows."""
    cost = analysis_cost(rules, kind, decks, known, bet)
    if cost < CHEAP_SECONDS:
        yield
        return
    budget = _budget()
    client = request.remote_addr or "-"
    wait = budget.admit(client, cost)
    if wait is not None:
        raise TooExpensiveError(
            f"This analysis needs about {cost:.1f} s of uncached work and the budget for such work "
            f"({budget.per_client:g} s per minute for each client, {budget.pool.capacity:g} s for all) is spent; "
            f"retry in {wait} s, or use a profile's cached analyses.",
            wait)
    started = time.monotonic()
    try:
        yield
    finally:
        budget.charge(client, time.monotonic() - started)


class TooExpensiveError(ProblemError):
    """429 ``/problems/too-expensive`` with a ``Retry-After`` header."""

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(429, "/problems/too-expensive", "Analysis budget spent", detail)
        self.retry_after = retry_after


@analyses.errorhandler(TooExpensiveError)
def _too_expensive(exc: TooExpensiveError) -> WerkzeugResponse:
    response = problem_response(exc.status, exc.detail, type_=exc.type, title=exc.title)
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


class AnalysisDisabledError(ProblemError):
    """403 ``/problems/analysis-disabled``: the operator turned uncached analyses off."""

    def __init__(self) -> None:
        super().__init__(403, "/problems/analysis-disabled", "Analysis disabled",
                         "Analyses that need uncached work (custom rules, odds with several decks or from 3 or 4 "
                         "known cards under rules that use suits) are turned off on this server (GNAU_ANALYSIS_BUDGET_SECONDS=0); "
                         "the profiles' cached analyses are served.")


def _profile_or_404(name: str) -> Profile:
    profile = registry().get(name)
    if profile is None:
        raise ProblemError(404, "/problems/unknown-profile", "Unknown profile",
                         f"There is no profile {echo(name)}; see GET /v1/profiles.")
    return profile


def _distribution_body(rules: Rules, result: Distribution) -> dict[str, Any]:
    total = result.total
    labels = [
        {"label": label, "category": category, "score": score} | _chance(result.counts[label],
                                                                         Fraction(result.counts[label], total))
        for label, category, score in labels_of(rules)
    ]
    categories = [{"category": c} | _chance(n, Fraction(n, total)) for c, n in result.categories.items()]
    return {"total": total, "labels": labels, "categories": categories}


def _edge_body(rules: Rules, result: HouseEdge) -> dict[str, Any]:
    return {
        "bet": result.bet,
        "commission_bps": rules.commission_bps,
        "pairs": result.pairs,
        "player_expected_gross": _exact(result.player_expected_gross),
        "player_expected_commission": _exact(result.player_expected_commission),
        "player_expected_net": _exact(result.player_expected_net),
        "house_edge": _exact(result.edge),
        "method": house_edge_method(rules, result.bet),
    }


def _house_edge(rules: Rules, bet: str, where: dict[str, str], profile: bool = False) -> HouseEdge:
    """:func:`house_edge` in the compute budget, or for a ``profile``'s rules outside it
    (computed once per worker and kept: a profile's analyses are never refused, and there
    are only so many); a combination it does not compute is a 400 naming ``where`` (the
    ``bet`` parameter or body member)."""
    try:
        if profile:
            return pinned_house_edge(rules, bet)
        with _bounded(rules, "house_edge", bet=bet):
            return house_edge(rules, bet=bet)
    except OddsError as exc:
        raise validation_problem([where | {"detail": str(exc)}]) from None


def _bet_parameter() -> str:
    """The ``bet`` query parameter of a house-edge read: ``double`` (default) or ``equal``."""
    values = request.args.getlist("bet")
    if len(values) > 1:
        raise validation_problem([{"parameter": "bet", "detail": "give bet once"}])
    bet = values[0] if values else "double"
    if bet not in BETS:
        raise validation_problem([{"parameter": "bet", "detail": "must be one of " + ", ".join(BETS)}])
    return bet


def _context(profile: Profile) -> dict[str, Any]:
    return {"profile": profile.name, "rules_digest": profile.rules.digest()}


@analyses.post("/odds")
def odds_against_dealer() -> Response:
    """Exact odds of a hand against a random dealer hand (openapi: ``oddsAgainstDealer``)."""
    s = load_scoring("odds")
    known = len(s.data["hand"])
    with _bounded(s.rules, "odds", s.data["decks"], known=known):
        return json_response(odds_answer(s.rules, s.context, s.data))


def odds_answer(rules: Rules, context: dict[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """The body of ``POST /v1/odds`` for a loaded request (no budget: the caller bounds it).

    :param rules: the request's rules.
    :param context: ``profile`` and ``rules_digest``.
    :param data: the loaded request: ``hand`` (3-5 codes), ``dead``, ``decks``, ``role``,
        ``opponents``.
    :raises ProblemError: cards that cannot be dealt (the schema checks the same first); a
        partial or dealer request under rules with a commission (not computed yet: the
        commission on a round's winnings does not follow from the tallies kept here).
    """
    hand = cards(data["hand"])
    dead = cards(data["dead"])
    decks: int = data["decks"]
    if len(hand) < 5 or data["role"] != "player":
        if rules.commission_bps or rules.dealer_commission_bps:
            where = "/role" if len(hand) == 5 else "/hand"
            raise validation_problem([{"pointer": where, "detail": (
                "odds from 3 or 4 known cards, or as the dealer, are not computed under rules with a "
                "commission (commission_bps, dealer_commission_bps) yet: ask with five known cards as the "
                "player, or without a commission")}])
        return _partial_odds(rules, context, hand, dead, decks, data["role"], data["opponents"] or 1)
    try:
        result = odds(hand, rules, dead, decks)
    except OddsError as exc:  # the schema checks the same; kept as a guard
        raise ProblemError(400, "/problems/validation-error", "Invalid request", str(exc),
                           [{"pointer": "/dead", "detail": str(exc)}]) from None
    evaluation = evaluate(hand, rules)
    cards_left = 52 * decks - 5 - len(dead)
    body = context | {
        "evaluation": evaluation_dict(evaluation),
        "decks": decks,
        "cards_left": cards_left,
        "dealer_hands": result.dealer_hands,
        "method": result.method,
        "win": _chance(result.wins, result.win),
        "lose": _chance(result.losses, result.lose),
        "push": _chance(result.pushes, result.push),
        "expected_net": _exact(result.expected_net),
        "bets": {bet: dict(zip(("expected_gross", "expected_commission", "expected_net"),
                               map(_exact, result.expected(bet)), strict=True)) for bet in BETS},
        "role": "player",
        "known": 5,
        "completions": 1,
        "deals": result.dealer_hands,
        "outcomes": [_outcome(evaluation.label, evaluation.category, evaluation.score, 1, 1, ())],
    }
    body["best"] = body["worst"] = body["outcomes"][0]
    return body


def _outcome(label: str, category: str, score: int, hands: int, completions: int,
             codes: tuple[int, ...]) -> dict[str, Any]:
    out = {"label": label, "category": category, "score": score} | _chance(hands, Fraction(hands, completions))
    if codes:
        out["cards"] = [str(CARDS[c]) for c in codes]
    return out


def _partial_odds(rules: Rules, context: dict[str, Any], hand: Sequence[Card], dead: Sequence[Card], decks: int,
                  role: str, opponents: int) -> dict[str, Any]:
    """``POST /v1/odds`` with 3 or 4 known cards, or as the dealer (issue 14)."""
    try:
        result: PartialOdds = partial_odds(hand, rules, dead, decks, role)
    except OddsError as exc:  # the schema checks the same; kept as a guard
        raise ProblemError(400, "/problems/validation-error", "Invalid request", str(exc),
                           [{"pointer": "/dead", "detail": str(exc)}]) from None
    outcomes = [_outcome(o.label, o.category, o.score, o.completions, result.completions, o.cards)
                for o in result.outcomes]
    body = context | {
        "decks": decks,
        "cards_left": 52 * decks - len(hand) - len(dead),
        "method": result.method,
        "win": _chance(result.wins, result.win),
        "lose": _chance(result.losses, result.lose),
        "push": _chance(result.pushes, result.push),
        "expected_net": _exact(result.expected_net),
        "role": role,
        "known": len(hand),
        "completions": result.completions,
        "deals": result.deals,
        "outcomes": outcomes,
        "best": outcomes[0],
        "worst": outcomes[-1],
    }
    if len(hand) == 5:
        body["evaluation"] = evaluation_dict(evaluate(hand, rules))
    if role == "dealer":
        body["opponents"] = opponents
        body["round_expected_net"] = _exact(result.round_net(opponents))
    return body


@analyses.get("/profiles/<name>/distribution")
def profile_distribution(name: str) -> Response:
    """Hands per label over one deck (openapi: ``getProfileDistribution``); 404 when unknown."""
    profile = _profile_or_404(name)
    with _bounded(profile.rules, "distribution"):
        result = distribution(profile.rules)
    return json_response(_context(profile) | _distribution_body(profile.rules, result))


@analyses.get("/profiles/<name>/house-edge")
def profile_house_edge(name: str) -> Response:
    """The profile's exact house edge for a bet (openapi: ``getProfileHouseEdge``); 404 when unknown."""
    profile = _profile_or_404(name)
    bet = _bet_parameter()
    result = _house_edge(profile.rules, bet, {"parameter": "bet"}, profile=True)
    return json_response(_context(profile) | _edge_body(profile.rules, result))


@analyses.post("/analyses/distribution")
def custom_distribution() -> Response:
    """Hands per label under custom rules (openapi: ``analyseDistribution``)."""
    s = load_scoring("analysis")
    with _bounded(s.rules, "distribution"):
        result = distribution(s.rules)
    return json_response(s.context | _distribution_body(s.rules, result))


@analyses.post("/analyses/house-edge")
def custom_house_edge() -> Response:
    """The house edge under custom rules for a bet (openapi: ``analyseHouseEdge``)."""
    s = load_scoring("house_edge")
    result = _house_edge(s.rules, s.data["bet"], {"pointer": "/bet"})
    return json_response(s.context | _edge_body(s.rules, result))
