"""The scoring operations (evaluate, rank, settle, exposures), shared by the HTTP views
and the ``gnau`` command.

One place checks a request the way the API does (query parameters, profile, schema, rule
overrides: :func:`load`) and one function per operation turns it into its answer, so the
command line and the API accept, reject and answer exactly alike. Problems are raised as
:class:`~service.errors.InvalidRequestError`, listing every one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

import orjson
from marshmallow import Schema, ValidationError

from service.engine.analysis.cost import scoring_cost
from service.engine.batch import Hands
from service.engine.bets import DEFAULT_BET
from service.engine.cards import CARD_TEXTS, SUITLESS_BASE
from service.engine.compare import ranking_order
from service.engine.hand import Evaluation
from service.engine.rules import Profile, Rules, RulesError, apply_overrides
from service.engine.settle import (
    MAX_SAFE_INTEGER,
    Exposure,
    Settlement,
    TableExposure,
    max_bet_multiple,
    max_bid_multiple,
    settle,
    table_exposure,
    worst_case_amount,
)
from service.engine.tables import HandResult, resolved
from service.errors import ErrorItem, InvalidRequestError, flatten_messages, in_body_order, pointer
from service.languages import DEFAULT_LANGUAGE, LANG_DETAIL, lang_value
from service.operations.rounds import (
    balance_problems,
    capped,
    dealer_balance,
    factors,
    player_balances,
    round_dealer,
    round_players,
    showdown_integer_problems,
)
from service.profiles import ProfileRegistry, UnknownProfileError
from service.response_schemas import ExposureResponseSchema
from service.schemas import (
    BatchRequestSchema,
    Entries,
    EvaluationRequestSchema,
    ExposureRequestSchema,
    RankingRequestSchema,
    RequestSchema,
    SettlementRequestSchema,
    ShowdownRequestSchema,
)
from service.serialize import evaluation_data, evaluation_texts, evaluations_json, parse_fields, ranking_json

__all__ = [
    "Answer",
    "Guard",
    "Query",
    "Scoring",
    "answer_language",
    "check_query",
    "evaluate_hand",
    "evaluate_hands",
    "exposure_answer",
    "load",
    "load_body",
    "load_object",
    "rank_hands",
    "ranking_answer",
    "refuse_unknown",
    "safe_integer_problems",
    "settle_request",
    "settle_round",
    "settlement_answer",
    "suitless_problems",
    "table_exposures",
    "unguarded",
    "unknown_parameter",
]

#: Query parameters by name, every value given (``{"profile": ["niu-niu"]}``).
Query = Mapping[str, Sequence[str]]

#: Runs uncached work estimated at the given seconds, or raises to refuse it (the HTTP
#: layer's compute budget; custom rules without a table cost the reference evaluator's time).
Guard = Callable[[float], AbstractContextManager[object]]


def unguarded(cost: float) -> AbstractContextManager[object]:
    """The :data:`Guard` that runs any work (the ``gnau`` command's)."""
    return nullcontext()

_EXPOSURE_OUT = ExposureResponseSchema()


@dataclass(frozen=True)
class Scoring:
    """A checked scoring request.

    :param data: the loaded body.
    :param profile: the selected profile.
    :param rules: the effective rules (profile plus the request's overrides).
    :param context: the ``profile``, ``rules_digest`` (and, when the request gave
        ``rules``, the effective ``rules`` and their ``max_payout``) members of the answer.
    :param lang: the language of the answer's labels (RULES.md 4.2).
    """

    data: dict[str, Any]
    profile: Profile
    rules: Rules
    context: dict[str, Any]
    lang: str = DEFAULT_LANGUAGE


def load_object(schema: RequestSchema, body: Any, errors: list[ErrorItem]) -> dict[str, Any]:
    """``schema.read(body)`` (the one-pass reader, then the fields) for a body that must be
    a JSON object; its problems are
    appended to ``errors`` in body order, and then the data that did load is returned
    (``{}`` when the body is not an object)."""
    if not isinstance(body, dict):
        errors.append({"pointer": "", "detail": "the body must be a JSON object"})
        return {}
    try:
        data = schema.read(body)
    except ValidationError as exc:
        errors.extend(flatten_messages(in_body_order(exc.messages, body)))
        return exc.valid_data if isinstance(exc.valid_data, dict) else {}
    return data


def load_body(schema: RequestSchema, body: Any, profile_name: str, profiles: ProfileRegistry,
              errors: list[ErrorItem], lang: str = DEFAULT_LANGUAGE) -> Scoring | None:
    """Check a scoring body under a profile, as every scoring operation does.

    :param schema: the request schema.
    :param body: the parsed JSON body.
    :param profile_name: the requested profile.
    :param profiles: the known profiles.
    :param errors: problems found so far (e.g. query parameters); this call adds its own,
        including, for a settlement otherwise valid, :func:`safe_integer_problems`.
    :param lang: the language of the answer's labels.
    :return: the checked request, or ``None`` when ``errors`` is not empty.
    """
    profile: Profile | None
    try:
        profile = profiles.named(profile_name)
    except UnknownProfileError as exc:
        profile = None
        errors.append({"parameter": "profile", "detail": str(exc)})
    data = load_object(schema, body, errors)
    rules = profile.rules if profile is not None else None
    if rules is not None and isinstance(data.get("rules"), Mapping):
        try:
            rules = apply_overrides(rules, data["rules"])
        except RulesError as exc:
            # The schema loads only the knobs whose shape is right (RulesOverridesSchema), so
            # these are what it cannot see, e.g. a ranking that repeats a category.
            errors.extend({"pointer": pointer("rules", *path), "detail": msg} for path, msg in exc.problems)
    if rules is not None and rules.suit_reader is not None:
        errors.extend(suitless_problems(data, rules))
    if rules is not None:
        errors.extend(_table_problems(schema, body, data, rules, errors))
    if errors or profile is None or rules is None:
        return None
    context: dict[str, Any] = {"profile": profile.name, "rules_digest": rules.digest()}
    if isinstance(body, dict) and body.get("rules") is not None:
        context["rules"] = rules.listed()
        context["max_payout"] = rules.max_payout
    return Scoring(data, profile, rules, context, lang)


def _hands_in(data: Mapping[str, Any]) -> Iterator[tuple[tuple[object, ...], Sequence[int | None]]]:
    """Every card list of a loaded request with its path, in the body's order: ``hand``,
    ``dead``, ``hands`` (a batch's, or a ranking's entries), the dealer's and each player's
    hand."""
    for name in ("hand", "dead"):
        if isinstance(data.get(name), list):
            yield (name,), data[name]
    hands = data.get("hands")
    entries = hands.codes if isinstance(hands, Entries) else hands
    if isinstance(entries, Hands) and int(entries.array.max(initial=0)) < SUITLESS_BASE:
        entries = None  # read in one pass, and not one rank-only card
    if isinstance(entries, Sequence):
        ranked = isinstance(hands, Entries)
        for i, entry in enumerate(entries):
            if isinstance(entry, Mapping):
                ranked = True
                entry = entry.get("hand")
            if isinstance(entry, Sequence):
                yield (("hands", i, "hand") if ranked else ("hands", i)), entry
    dealer = data.get("dealer")
    if isinstance(dealer, Mapping) and isinstance(dealer.get("hand"), list):
        yield ("dealer", "hand"), dealer["hand"]
    for i, player in enumerate(data.get("players") or ()):
        if isinstance(player, Mapping) and isinstance(player.get("hand"), list):
            yield ("players", i, "hand"), player["hand"]


def suitless_problems(data: Mapping[str, Any], rules: Rules) -> list[ErrorItem]:
    """The problem of a rank-only card under rules that read suits (RULES.md 1.1): one,
    naming the first such card of the request and the first knob that reads suits
    (:attr:`~service.engine.rules.Rules.suit_reader`); none when the rules read no suits
    or every card has one.

    >>> from service.engine.rules import PROFILES
    >>> suitless_problems({"hand": [3, 52, 4, 5, 6]}, PROFILES["niu-niu"].rules)
    [{'pointer': '/hand/1', 'detail': "A is written without a suit, but these rules read suits (ties = high_card): \
write the card's suit, e.g. AH"}]
    >>> suitless_problems({"hand": [3, 52, 4, 5, 6]}, PROFILES["standard"].rules)
    []
    """
    knob = rules.suit_reader
    if knob is None:
        return []
    for path, codes in _hands_in(data):
        for i, code in enumerate(codes):
            if code is not None and code >= SUITLESS_BASE:
                value = getattr(rules, knob)
                shown = "true" if value is True else value
                rank = CARD_TEXTS[code]
                return [{"pointer": pointer(*path, i), "detail": (
                    f"{rank} is written without a suit, but these rules read suits ({knob} = {shown}): "
                    f"write the card's suit, e.g. {rank}H")}]
    return []


#: The knobs the balance checks read (:func:`~service.operations.rounds.balance_problems`).
_ROUND_KNOBS = ("balance_caps", "showdown")


def _table_problems(schema: Schema, body: Any, data: Mapping[str, Any], rules: Rules,
                    found: list[ErrorItem]) -> list[ErrorItem]:
    """The problems of a table that need the effective rules: balances against the caps
    (beside every other problem), then, for a table otherwise valid, the safe-integer bound."""
    kind = type(schema)  # the operations' own schema objects (a settlement on the hot path)
    problems: list[ErrorItem] = []
    if (kind is SettlementRequestSchema or kind is ShowdownRequestSchema) and not _caps_unread(body, data):
        problems = balance_problems(body, rules, showdown=kind is ShowdownRequestSchema)
    if found or problems:
        return problems
    if kind is SettlementRequestSchema or kind is ExposureRequestSchema:
        return safe_integer_problems(data, rules)
    if kind is ShowdownRequestSchema:
        return showdown_integer_problems(data, rules)
    return []


def _caps_unread(body: Any, data: Mapping[str, Any]) -> bool:
    """Whether the body's ``balance_caps`` or ``showdown`` override was itself refused (then
    the balances are not judged against the profile's caps: the refusal is listed)."""
    overrides = body.get("rules") if type(body) is dict else None
    if not isinstance(overrides, Mapping):
        return False
    loaded = data.get("rules") or {}
    return any(k in overrides and k not in loaded for k in _ROUND_KNOBS)


class Answer(NamedTuple):
    """An operation's answer, the one type every operation returns: the body, and for the
    metrics the profile and how many hands of each category were evaluated.

    :param body: the answer's data (the JSON body).
    :param profile: the selected profile's name (``""``: the operation reads none, e.g. a deal).
    :param categories: the number of hands evaluated, by category.
    :param evaluations: the evaluations themselves, where the operation was asked for them
        (the ``gnau`` command shows each card's part from their formations' positions).
    :param rules: the effective rules, where the answer can carry a receipt (RULES.md 9.2:
        its ``rules_sha256``).
    :param lang: the language of the answer's labels (its ``Content-Language``), or ``None``
        for an answer without labels.
    """

    body: dict[str, Any]
    profile: str = ""
    categories: Mapping[str, int] = MappingProxyType({})
    evaluations: Sequence[Evaluation] = ()
    rules: Rules | None = None
    lang: str | None = None


def unknown_parameter(name: str, takes: Iterable[str]) -> ErrorItem:
    """The one problem of a query parameter ``name`` that an operation taking ``takes`` does
    not know (every operation's words, POST or GET).

    >>> unknown_parameter("x", {"profile", "lang", "fields"})["detail"]
    'unknown query parameter; this operation takes fields, lang and profile'
    >>> unknown_parameter("x", ())["detail"]
    'unknown query parameter; this operation takes none'
    """
    names = sorted(takes)
    listed = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else (names[0] if names else "none")
    return {"parameter": name, "detail": f"unknown query parameter; this operation takes {listed}"}


def check_query(query: Query, takes: frozenset[str]) -> list[ErrorItem]:
    """The problems of a POST operation's query parameters: unknown names and names given twice.

    >>> check_query({"profile": ["a", "b"], "x": ["1"]}, frozenset({"profile"}))
    [{'parameter': 'x', 'detail': 'unknown query parameter; this operation takes profile'}, \
{'parameter': 'profile', 'detail': 'give profile once'}]
    """
    errors: list[ErrorItem] = []
    errors.extend(unknown_parameter(name, takes) for name in query if name not in takes)
    for name in takes:
        if len(query.get(name, ())) > 1:
            errors.append({"parameter": name, "detail": f"give {name} once"})
    return errors


def refuse_unknown(query: Query, takes: frozenset[str]) -> None:
    """Refuse a read's query parameters that it does not take (a read declares the ones it
    takes; checked before anything else, so a bad parameter is named even on an unknown
    profile).

    :raises InvalidRequestError: every unknown parameter.

    >>> refuse_unknown({"bet": ["equal"]}, frozenset({"bet"}))
    >>> refuse_unknown({"x": ["1"]}, frozenset())
    Traceback (most recent call last):
        ...
    service.errors.InvalidRequestError: unknown query parameter; this operation takes none
    """
    unknown = [unknown_parameter(name, takes) for name in query if name not in takes]
    if unknown:
        raise InvalidRequestError(unknown)


def answer_language(query: Query, language: str | None, errors: list[ErrorItem]) -> str:
    """The language of an answer's labels (RULES.md 4.2): the ``lang`` query parameter, else
    ``language`` (what the caller's ``Accept-Language`` best matches), else English. A
    ``lang`` that names no offered language is a problem added to ``errors``.

    >>> errors: list[ErrorItem] = []
    >>> answer_language({"lang": ["zh-TW"]}, "en", errors), answer_language({}, None, errors), errors
    ('zh-Hant', 'en', [])
    """
    if "lang" in query:
        found = lang_value(query["lang"][0])
        if found is None:
            errors.append({"parameter": "lang", "detail": LANG_DETAIL})
            return DEFAULT_LANGUAGE
        return found
    return language or DEFAULT_LANGUAGE


#: The query parameters a scoring operation takes, by (with_fields, with_lang).
_TAKES = {(f, g): frozenset({"profile"} | ({"fields"} if f else set()) | ({"lang"} if g else set()))
          for f in (False, True) for g in (False, True)}


def load(schema: RequestSchema, body: Any, query: Query, profiles: ProfileRegistry, *, with_fields: bool = False,
         with_lang: bool = False, language: str | None = None) -> tuple[Scoring, tuple[str, ...] | None]:
    """Check a scoring request: query parameters (``profile``; ``fields`` when
    ``with_fields``; ``lang`` when ``with_lang``), body, profile and rule overrides.

    :param language: with ``with_lang``, the language the caller's ``Accept-Language`` best
        matches (the HTTP layer's), taken when the query gives no ``lang``.
    :return: the checked request (its ``lang`` decided) and the sparse fieldset (``None``:
        every member).
    :raises InvalidRequestError: naming every problem found.
    """
    errors = check_query(query, _TAKES[with_fields, with_lang]) if query else []
    fields: tuple[str, ...] | None = None
    if with_fields and "fields" in query:
        fields, problem = parse_fields(query["fields"][0])
        if problem is not None:
            errors.append({"parameter": "fields", "detail": problem})
    lang = answer_language(query, language, errors) if with_lang else DEFAULT_LANGUAGE
    profile = query["profile"][0] if "profile" in query else "standard"
    scoring = load_body(schema, body, profile, profiles, errors, lang)
    if scoring is None or errors:
        raise InvalidRequestError(errors)
    return scoring, fields


def safe_integer_problems(data: Mapping[str, Any], rules: Rules) -> list[ErrorItem]:
    """The problem of a settlement table whose amounts could leave the safe integers.

    Every integer the service returns lies within ±(2^53 − 1) (I-JSON, RFC 7493), so that
    JavaScript and every other JSON client reads it exactly: a table whose worst case
    (:func:`service.engine.settle.worst_case_amount`: the dealer's largest loss, RULES.md
    section 6.3) is larger is refused, naming the bound. Exposures are bounded by it too.

    :param data: a loaded settlement or exposure body (``players`` with stakes and bets).
    :param rules: the effective rules.
    :return: one ``/players`` problem, or none.
    """
    players = [(p["stake"], p.get("bet", DEFAULT_BET)) for p in data.get("players", [])]
    worst = worst_case_amount(players, rules)
    if worst <= MAX_SAFE_INTEGER:
        return []
    return [{"pointer": "/players", "detail": (
        f"the stakes could settle for {worst} (each double bet's stake times the largest payout under "
        f"these rules, {rules.max_payout}, plus each equal bet's stake); every amount must stay within "
        f"±{MAX_SAFE_INTEGER} (2^53 − 1, the largest integer every JSON client reads exactly): lower the stakes")}]


def ranking_answer(s: Scoring, fields: tuple[str, ...] | None = None) -> tuple[dict[str, Any], dict[str, int]]:
    """The answer of ``POST /v1/rankings`` and the hands by category: every hand resolved
    once, ordered with numpy (:func:`~service.engine.compare.ranking_order`), each evaluation
    a JSON text of the one formatter."""
    entries = s.data["hands"]
    if isinstance(entries, Entries):  # read in one pass
        ids, hands = entries.ids, entries.codes
    else:
        ids, hands = [e["id"] for e in entries], [e["hand"] for e in entries]
    if isinstance(hands, Hands):  # classes and orders with numpy
        resolution = resolved(hands, s.rules, by_code=hands.by_code, array=hands.array)
        codes: Any = hands.array
    else:
        resolution = resolved(hands, s.rules)
        codes = hands
    order, positions = ranking_order(resolution.scores(), codes, resolution.by_high_card(),
                                     resolution.by_top_card())
    ranking = ranking_json(resolution, ids, order, positions, fields, s.lang)
    return s.context | {"ranking": ranking}, resolution.categories()


def settle_request(s: Scoring) -> tuple[Settlement, TableExposure, list[str], dict[str, int]]:
    """Settle a checked settlement request and find its table's exposure; with each hand's
    evaluation as JSON text (dealer first) and the hands by category."""
    players = s.data["players"]
    resolution = resolved([s.data["dealer"]["hand"]] + [p["hand"] for p in players], s.rules)
    results = resolution.results()
    bets = [p["bet"] for p in players]
    seats = [(r, p["stake"]) for r, p in zip(results[1:], players, strict=True)]
    # Every bet the default (the common case): the engine's path without a bet list.
    plain_bets = None if all(b == DEFAULT_BET for b in bets) else bets
    stakes = [(p["stake"], bet) for p, bet in zip(players, bets, strict=True)]
    if capped(s.rules):  # balances (RULES.md 6.5)
        balances, dealer = player_balances(s.data, s.rules), dealer_balance(s.data, s.rules)
        result = settle(results[0], seats, s.rules, plain_bets, balances, dealer)
        exposure = table_exposure(stakes, s.rules, balances, dealer)
    else:
        result = settle(results[0], seats, s.rules, plain_bets)
        exposure = table_exposure(stakes, s.rules)
    return result, exposure, evaluation_texts(resolution, lang=s.lang), resolution.categories()


def _exposure(x: Exposure) -> dict[str, int]:
    return {"max_loss": x.max_loss, "max_win": x.max_win}


def settlement_answer(s: Scoring) -> tuple[dict[str, Any], dict[str, int]]:
    """The answer of ``POST /v1/settlements`` and its hands by category.

    Written straight into dicts (the hot path of every settlement), each evaluation a JSON
    text from the one formatter: the same data as
    :class:`~service.response_schemas.SettlementResponseSchema` describes, which the tests
    compare.
    """
    result, exposure, texts, categories = settle_request(s)
    caps = capped(s.rules)
    if caps or "base" in s.data:
        return _round_answer(s, result, exposure, texts, caps), categories
    answer: dict[str, Any] = dict(s.context)
    answer["dealer"] = {"evaluation": orjson.Fragment(texts[0]), "gross": result.dealer_gross,
                        "commission": result.dealer_commission, "net": result.dealer_net,
                        "exposure": _exposure(exposure.dealer)}
    answer["players"] = [
        {"id": p["id"], "evaluation": orjson.Fragment(text), "stake": r.stake, "bet": r.bet,
         "outcome": r.outcome, "gross": r.gross, "commission": r.commission, "amount": r.amount,
         "exposure": _exposure(x)}
        for p, r, x, text in zip(s.data["players"], result.players, exposure.players, texts[1:], strict=True)]
    answer["house"] = result.house
    return answer, categories


def _round_answer(s: Scoring, result: Settlement, exposure: TableExposure, texts: list[str],
                  caps: bool) -> dict[str, Any]:
    """:func:`settlement_answer` of a table with ``base`` or caps: the members each form adds
    (:mod:`service.operations.rounds`), only where used."""
    fragment = orjson.Fragment
    answer: dict[str, Any] = dict(s.context)
    answer["dealer"] = round_dealer(s.data, result, fragment(texts[0]), _exposure(exposure.dealer))
    answer["players"] = round_players(s.data, result.players, [fragment(text) for text in texts[1:]],
                                      [_exposure(x) for x in exposure.players], caps)
    answer["house"] = result.house
    return answer


def exposure_answer(s: Scoring) -> dict[str, Any]:
    """The answer of ``POST /v1/exposures``: each seat's and the dealer's exposure
    (RULES.md section 6.3; bounded by balances under caps, 6.5) and the rules' ``max_payout``;
    with ``base``, each seat's ``factors``, and from balances the largest multiples that fit
    them (``max_bet_multiple`` per seat, ``max_bid_multiple`` for the dealer, DECISIONS 21-22)."""
    data, rules = s.data, s.rules
    seats, dealer = data["players"], data.get("dealer") or {}
    exposure = table_exposure([(p["stake"], p["bet"]) for p in seats], rules, [p.get("balance") for p in seats],
                              dealer.get("balance"))
    players: list[dict[str, Any]] = []
    for p, x in zip(seats, exposure.players, strict=True):
        seat: dict[str, Any] = {"id": p["id"], "stake": p["stake"]}
        if "base" in data:
            seat["factors"] = factors(data, p)
        seat |= {"bet": p["bet"], "exposure": x}
        if "balance" in p:
            seat["max_bet_multiple"] = max_bet_multiple(data["base"], dealer.get("bid_multiple", 1), p["bet"],
                                                        p["balance"], rules)
        players.append(seat)
    dealer_out: dict[str, Any] = {"exposure": exposure.dealer}
    if "balance" in dealer:
        dealer_out["max_bid_multiple"] = max_bid_multiple(
            data["base"], [(p.get("bet_multiple", 1), p["bet"], p.get("balance")) for p in seats], dealer["balance"],
            rules)
    answer: dict[str, Any] = _EXPOSURE_OUT.dump(s.context | {"max_payout": rules.max_payout, "dealer": dealer_out,
                                                             "players": players})
    return answer


_EVALUATION = EvaluationRequestSchema()
_BATCH = BatchRequestSchema()
_RANKING = RankingRequestSchema()
_SETTLEMENT = SettlementRequestSchema()
_EXPOSURE = ExposureRequestSchema()


def evaluate_hand(body: Any, query: Query, profiles: ProfileRegistry, *, guard: Guard = unguarded,
                  with_evaluation: bool = False, language: str | None = None) -> Answer:
    """``POST /v1/evaluations`` (``evaluateHand``): one hand; ``fields`` selects members.

    :param guard: pays for hands under rules without a table (the HTTP layer's budget).
    :param with_evaluation: also give the :class:`~service.engine.hand.Evaluation` (the
        ``gnau`` command shows each card's part from it).
    :raises InvalidRequestError: naming every problem of the request.
    """
    s, fields = load(_EVALUATION, body, query, profiles, with_fields=True, with_lang=True, language=language)
    with guard(scoring_cost(s.rules, 1)):  # cheap: never refused, as for every few hands
        [row] = resolved([s.data["hand"]], s.rules).rows()
    evaluations = [HandResult(*row).evaluation()] if with_evaluation else []
    return Answer(s.context | evaluation_data(row, fields, s.lang), s.profile.name, {row[1].category.value: 1},
                  evaluations, s.rules, s.lang)


def evaluate_hands(body: Any, query: Query, profiles: ProfileRegistry, *, guard: Guard = unguarded,
                   language: str | None = None) -> Answer:
    """``POST /v1/evaluations/batch`` (``evaluateHands``): up to 10,000 hands, the
    evaluations as one JSON text (an ``orjson.Fragment``: no Evaluation objects, no dict
    per hand); ``fields`` selects members.

    :raises InvalidRequestError: naming every problem of the request.
    """
    s, fields = load(_BATCH, body, query, profiles, with_fields=True, with_lang=True, language=language)
    hands = s.data["hands"]
    # The evaluations are written inside the guard: under rules without a table, the hands'
    # entries are filled as the JSON is written, and that is the work the budget pays for.
    with guard(scoring_cost(s.rules, len(hands))):
        if isinstance(hands, Hands):  # read in one pass: classes and orders with numpy
            resolution = resolved(hands, s.rules, by_code=hands.by_code, array=hands.array)
        else:
            resolution = resolved(hands, s.rules)
        evaluations = evaluations_json(resolution, fields, s.lang)
    return Answer(s.context | {"evaluations": evaluations}, s.profile.name, resolution.categories(), lang=s.lang)


def rank_hands(body: Any, query: Query, profiles: ProfileRegistry, *, guard: Guard = unguarded,
               language: str | None = None) -> Answer:
    """``POST /v1/rankings`` (``rankHands``): 2 to 1,000 hands; ``fields`` selects members.

    :raises InvalidRequestError: naming every problem of the request.
    """
    s, fields = load(_RANKING, body, query, profiles, with_fields=True, with_lang=True, language=language)
    with guard(scoring_cost(s.rules, len(s.data["hands"]))):
        answer, categories = ranking_answer(s, fields)
    return Answer(answer, s.profile.name, categories, rules=s.rules, lang=s.lang)


def settle_round(body: Any, query: Query, profiles: ProfileRegistry, *, guard: Guard = unguarded,
                 language: str | None = None) -> Answer:
    """``POST /v1/settlements`` (``settleRound``): a round against the dealer.

    :raises InvalidRequestError: naming every problem of the request.
    """
    s, _ = load(_SETTLEMENT, body, query, profiles, with_lang=True, language=language)
    with guard(scoring_cost(s.rules, 1 + len(s.data["players"]))):
        answer, categories = settlement_answer(s)
    return Answer(answer, s.profile.name, categories, rules=s.rules, lang=s.lang)


def table_exposures(body: Any, query: Query, profiles: ProfileRegistry) -> Answer:
    """``POST /v1/exposures`` (``tableExposures``): each seat's and the dealer's exposure.

    :raises InvalidRequestError: naming every problem of the request.
    """
    s, _ = load(_EXPOSURE, body, query, profiles)
    return Answer(exposure_answer(s), s.profile.name)
