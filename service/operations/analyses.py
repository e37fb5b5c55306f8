"""The analysis operations: exact odds against the dealer, distributions, house edge (issue 5).

Each function checks its request like the scoring operations (:func:`service.operations.scoring.load`)
and calls the engine (:mod:`service.engine.analysis.odds`, :mod:`service.engine.analysis.partial`). Work the
engine has not cached is run inside a :data:`Guard` given the estimated seconds
(:func:`~service.engine.analysis.cost.analysis_cost`): the HTTP layer's compute budget refuses it
when spent; the ``gnau`` command, on the caller's own machine, runs it as it comes
(:func:`unguarded`). A profile's analyses are computed before the workers fork and never
need a guard.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from service.analysis_schemas import AnalysisRequestSchema, HouseEdgeRequestSchema, OddsRequestSchema
from service.engine.analysis.cost import analysis_cost
from service.engine.analysis.distribution import Distribution, distribution, labels_of
from service.engine.analysis.house_edge import HouseEdge, house_edge, house_edge_method, pinned_house_edge
from service.engine.analysis.odds import Chances, OddsError, RulesNotComputedError, odds
from service.engine.analysis.partial import PartialOdds, partial_odds
from service.engine.bets import BETS, DEFAULT_BET
from service.engine.cards import CARDS, Card, with_suits
from service.engine.categories import label_text
from service.engine.rules import Profile, Rules
from service.engine.tables import evaluate, resolved
from service.errors import ErrorItem, InvalidRequestError
from service.languages import DEFAULT_LANGUAGE
from service.operations.scoring import (
    Answer,
    Guard,
    Query,
    answer_language,
    check_query,
    load,
    refuse_unknown,
    unguarded,
)
from service.profiles import ProfileRegistry
from service.serialize import evaluation_data

__all__ = ["Guard", "analyse_distribution", "analyse_house_edge", "fraction_text", "get_profile_distribution",
           "get_profile_house_edge", "odds_against_dealer", "odds_answer", "unguarded"]

_ODDS = OddsRequestSchema()
_ANALYSIS = AnalysisRequestSchema(exclude=("decks",))
_HOUSE_EDGE = HouseEdgeRequestSchema(exclude=("decks",))
#: The query parameters of the profile reads (their own; the POST analyses' are :func:`load`'s).
DISTRIBUTION_TAKES = frozenset({"lang"})
HOUSE_EDGE_TAKES = frozenset({"bet"})


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


def _context(profile: Profile) -> dict[str, Any]:
    return _noted({"profile": profile.name, "rules_digest": profile.rules.digest()}, profile.rules)


def _noted(context: dict[str, Any], rules: Rules) -> dict[str, Any]:
    """``context`` with ``ignored_knobs`` when the rules set knobs the analyses do not take
    into account (:attr:`~service.engine.rules.Rules.ignored_knobs`; DECISIONS 30): the
    analyses compute under :attr:`~service.engine.rules.Rules.analysed` and say so."""
    return context | {"ignored_knobs": list(rules.ignored_knobs)} if rules.ignored_knobs else context


def odds_against_dealer(body: Any, query: Query, profiles: ProfileRegistry, guard: Guard = unguarded, *,
                        language: str | None = None) -> Answer:
    """``POST /v1/odds`` (``oddsAgainstDealer``): exact odds of 3 to 5 known cards, labels in
    the ``lang`` query parameter's language or ``language`` (RULES.md 4.2).

    :raises InvalidRequestError: naming every problem of the request.
    """
    s, _ = load(_ODDS, body, query, profiles, with_lang=True, language=language)
    rules = s.rules.analysed
    with guard(analysis_cost(rules, "odds", s.data["decks"], len(s.data["hand"]))):
        return Answer(odds_answer(rules, _noted(s.context, s.rules), s.data, s.lang), s.profile.name, lang=s.lang)


def odds_answer(rules: Rules, context: dict[str, Any], data: Mapping[str, Any], lang: str = DEFAULT_LANGUAGE
                ) -> dict[str, Any]:
    """The body of ``POST /v1/odds`` for a loaded request (no guard: the caller bounds it).

    :param rules: the request's rules.
    :param context: ``profile`` and ``rules_digest``.
    :param data: the loaded request: ``hand`` (3-5 codes), ``dead``, ``decks``, ``role``,
        ``opponents``.
    :param lang: the labels' language.
    :raises InvalidRequestError: cards that cannot be dealt (the schema checks the same
        first); the ``dealer`` role under a dealer commission (RULES.md section 6.2: it is
        taken from the dealer's result for the whole round, so the round's expectation is
        not a sum over the players).
    """
    decks: int = data["decks"]
    # Rank-only cards (RULES.md 1.1) leave the deck as suited ones would: each takes a free suit.
    suited_hand, suited_dead = with_suits([data["hand"], data["dead"]], decks)
    hand = tuple(CARDS[c] for c in suited_hand)
    dead = tuple(CARDS[c] for c in suited_dead)
    written = tuple(CARDS[c] for c in data["hand"])
    if len(hand) < 5 or data["role"] != "player":
        if data["role"] == "dealer" and rules.dealer_commission_bps:
            raise InvalidRequestError([{"pointer": "/role", "detail": (
                "dealer odds are not computed under a dealer commission (dealer_commission_bps): it is "
                "taken from the dealer's result for the whole round, which is not a sum over the players; "
                "ask as the player, or without a dealer commission")}])
        return _partial_odds(rules, context, hand, dead, decks, data["role"], data["opponents"] or 1, lang, written)
    evaluation = evaluate(hand, rules)
    try:
        result = odds(hand, rules, dead, decks, evaluation)  # the hand evaluated once
    except OddsError as exc:  # the schema checks the same; kept as a guard
        raise InvalidRequestError([{"pointer": "/dead", "detail": str(exc)}]) from None
    cards_left = 52 * decks - 5 - len(dead)
    body = context | {
        "evaluation": _evaluation(written, rules, lang),
        "decks": decks,
        "cards_left": cards_left,
        "dealer_hands": result.dealer_hands,
        **_results(result.method, result),
        "role": "player",
        "known": 5,
        "completions": 1,
        "deals": result.dealer_hands,
        "outcomes": [_outcome(evaluation.label_key, evaluation.category, evaluation.score, 1, 1, (), lang)],
    }
    body["best"] = body["worst"] = body["outcomes"][0]
    return body
def _evaluation(hand: Sequence[Card], rules: Rules, lang: str) -> dict[str, Any]:
    """The ``Evaluation`` member of an odds answer (the one formatter's)."""
    [row] = resolved([[c.code for c in hand]], rules).rows()
    return evaluation_data(row, lang=lang)


def _results(method: str, result: Chances) -> dict[str, Any]:
    """The members every odds answer has, in order: how hands were grouped, win / lose /
    push, the expected net, and each bet type's expected gross, commission and net per unit
    stake (RULES.md 6.1, 6.2)."""
    return {
        "method": method,
        "win": _chance(result.wins, result.win),
        "lose": _chance(result.losses, result.lose),
        "push": _chance(result.pushes, result.push),
        "expected_net": _exact(result.expected_net),
        "bets": {bet: dict(zip(("expected_gross", "expected_commission", "expected_net"),
                               map(_exact, result.expected(bet)), strict=True)) for bet in BETS},
    }


def _outcome(key: str, category: str, score: int, hands: int, completions: int,
             codes: tuple[int, ...], lang: str) -> dict[str, Any]:
    out = ({"label": label_text(key, lang), "label_key": key, "category": category, "score": score}
           | _chance(hands, Fraction(hands, completions)))
    if codes:
        out["cards"] = [str(CARDS[c]) for c in codes]
    return out


def _partial_odds(rules: Rules, context: dict[str, Any], hand: Sequence[Card], dead: Sequence[Card], decks: int,
                  role: str, opponents: int, lang: str, written: Sequence[Card]) -> dict[str, Any]:
    """``POST /v1/odds`` with 3 or 4 known cards, or as the dealer (issue 14); ``written``
    the known cards as the request wrote them (``hand`` with rank-only cards suited)."""
    try:
        result: PartialOdds = partial_odds(hand, rules, dead, decks, role)
    except OddsError as exc:  # the schema checks the same; kept as a guard
        raise InvalidRequestError([{"pointer": "/dead", "detail": str(exc)}]) from None
    outcomes = [_outcome(o.label_key, o.category, o.score, o.completions, result.completions, o.cards, lang)
                for o in result.outcomes]
    body = context | {
        "decks": decks,
        "cards_left": 52 * decks - len(hand) - len(dead),
        **_results(result.method, result),
        "role": role,
        "known": len(hand),
        "completions": result.completions,
        "deals": result.deals,
        "outcomes": outcomes,
        "best": outcomes[0],
        "worst": outcomes[-1],
    }
    if len(hand) == 5:
        body["evaluation"] = _evaluation(written, rules, lang)
    if role == "dealer":
        body["opponents"] = opponents
        body["round_expected_net"] = _exact(result.round_net(opponents))
    return body


def _distribution_body(rules: Rules, result: Distribution, lang: str) -> dict[str, Any]:
    total = result.total
    labels = [
        {"label": label_text(key, lang), "label_key": key, "category": category, "score": score}
        | _chance(result.counts[key], Fraction(result.counts[key], total))
        for key, category, score in labels_of(rules)
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


def _house_edge(rules: Rules, bet: str, where: ErrorItem, guard: Guard | None,
                rules_where: ErrorItem | None = None) -> HouseEdge:
    """:func:`house_edge` inside ``guard``, or, without one, for a profile's rules (computed
    once per worker and kept: a profile's analyses are never refused, and there are only
    so many); a bet it does not compute is a 400 naming ``where`` (the ``bet`` parameter or
    body member), rules it does not compute for any bet one naming ``rules_where`` (else
    ``where``)."""
    try:
        if guard is None:
            return pinned_house_edge(rules, bet)
        with guard(analysis_cost(rules, "house_edge", bet=bet)):
            return house_edge(rules, bet=bet)
    except RulesNotComputedError as exc:
        raise InvalidRequestError([(rules_where or where) | {"detail": str(exc)}]) from None
    except OddsError as exc:
        raise InvalidRequestError([where | {"detail": str(exc)}]) from None


def _bet_parameter(query: Query) -> str:
    """The ``bet`` query parameter of a house-edge read: ``double`` (default) or ``equal``."""
    values = query.get("bet", ())
    if len(values) > 1:
        raise InvalidRequestError([{"parameter": "bet", "detail": "give bet once"}])
    bet = values[0] if values else DEFAULT_BET
    if bet not in BETS:
        raise InvalidRequestError([{"parameter": "bet", "detail": "must be one of " + ", ".join(BETS)}])
    return bet


def get_profile_distribution(name: str, profiles: ProfileRegistry, guard: Guard = unguarded, *,
                             query: Query | None = None, language: str | None = None) -> Answer:
    """``GET /v1/profiles/{name}/distribution`` (``getProfileDistribution``): hands per label over
    one deck, labels in the ``lang`` query parameter's language or ``language``.

    :raises service.profiles.UnknownProfileError: no profile has that name.
    :raises InvalidRequestError: a ``lang`` that names no offered language.
    """
    refuse_unknown(query or {}, DISTRIBUTION_TAKES)
    profile = profiles.named(name)
    errors = check_query(query or {}, DISTRIBUTION_TAKES)
    lang = answer_language(query or {}, language, errors)
    if errors:
        raise InvalidRequestError(errors)
    rules = profile.rules.analysed
    with guard(analysis_cost(rules, "distribution")):
        result = distribution(rules)
    return Answer(_context(profile) | _distribution_body(rules, result, lang), profile.name, lang=lang)


def get_profile_house_edge(name: str, query: Query, profiles: ProfileRegistry) -> Answer:
    """``GET /v1/profiles/{name}/house-edge`` (``getProfileHouseEdge``): the profile's exact
    house edge for the ``bet`` query parameter (computed once, never refused).

    :raises service.profiles.UnknownProfileError: no profile has that name.
    :raises InvalidRequestError: a query parameter but ``bet``, a bad ``bet``, or a bet whose
        edge is not computed.
    """
    refuse_unknown(query, HOUSE_EDGE_TAKES)
    profile = profiles.named(name)
    bet = _bet_parameter(query)
    rules = profile.rules.analysed
    result = _house_edge(rules, bet, {"parameter": "bet"}, None, {"parameter": "name"})
    return Answer(_context(profile) | _edge_body(rules, result), profile.name)


def analyse_distribution(body: Any, query: Query, profiles: ProfileRegistry, guard: Guard = unguarded, *,
                         language: str | None = None) -> Answer:
    """``POST /v1/analyses/distribution`` (``analyseDistribution``): hands per label under custom
    rules, labels in the ``lang`` query parameter's language or ``language``.

    :raises InvalidRequestError: naming every problem of the request.
    """
    s, _ = load(_ANALYSIS, body, query, profiles, with_lang=True, language=language)
    rules = s.rules.analysed
    with guard(analysis_cost(rules, "distribution")):
        result = distribution(rules)
    return Answer(_noted(s.context, s.rules) | _distribution_body(rules, result, s.lang), s.profile.name, lang=s.lang)


def analyse_house_edge(body: Any, query: Query, profiles: ProfileRegistry, guard: Guard = unguarded) -> Answer:
    """``POST /v1/analyses/house-edge`` (``analyseHouseEdge``): the house edge under custom rules for a bet.

    :raises InvalidRequestError: naming every problem of the request, or a bet whose edge
        is not computed.
    """
    s, _ = load(_HOUSE_EDGE, body, query, profiles)
    by_rules: ErrorItem = {"pointer": "/rules"} if "rules" in s.data else {"parameter": "profile"}
    rules = s.rules.analysed
    result = _house_edge(rules, s.data["bet"], {"pointer": "/bet"}, guard, by_rules)
    return Answer(_noted(s.context, s.rules) | _edge_body(rules, result), s.profile.name)
