"""``POST /v1/showdowns`` (``settleShowdown``): a round without a dealer, every hand against
every other (RULES.md 6.6; the request and answer: docs/settlements.md).

Checked like every scoring request (:func:`service.operations.scoring.load`: the schema, the
rules, balances against ``balance_caps``, caps against ``showdown``, the safe-integer bound),
then settled by the engine (:func:`service.engine.showdown.showdown`) over the one resolver's
hands; each evaluation is a JSON text of the one formatter.
"""

from __future__ import annotations

from typing import Any

import orjson

from service.engine.analysis.cost import scoring_cost
from service.engine.showdown import showdown
from service.engine.tables import resolved
from service.operations.rounds import capped, player_balances
from service.operations.scoring import Answer, Guard, Query, Scoring, load, unguarded
from service.profiles import ProfileRegistry
from service.schemas import ShowdownRequestSchema
from service.serialize import evaluation_texts

__all__ = ["settle_showdown", "showdown_answer"]

_SHOWDOWN = ShowdownRequestSchema()


def showdown_answer(s: Scoring) -> tuple[dict[str, Any], dict[str, int]]:
    """The answer of ``POST /v1/showdowns`` and its hands by category::

        {profile, rules_digest, [rules, max_payout,] base,
         ranking: [{index, id, position}, ...] strongest first,
         strongest: [{index, id}, ...] in table order,
         players: [{id, evaluation, stake, bet_multiple, position, [gross_uncapped,] gross, [cap,]
                    commission, amount}, ...] in table order,
         house}

    ``gross_uncapped`` and ``cap`` only under balance caps (DECISIONS 2); ``stake`` is
    ``base × bet_multiple``. Amounts in the base's minor unit; ``Σ amount + house = 0``.
    """
    players = s.data["players"]
    resolution = resolved([p["hand"] for p in players], s.rules)
    multiples = [p.get("bet_multiple", 1) for p in players]
    result = showdown(resolution.results(), multiples, s.data["base"], s.rules, player_balances(s.data, s.rules))
    texts = evaluation_texts(resolution, lang=s.lang)
    caps = capped(s.rules)
    ids = [p["id"] for p in players]
    out: list[dict[str, Any]] = []
    for i, r in enumerate(result.players):
        entry: dict[str, Any] = {"id": ids[i], "evaluation": orjson.Fragment(texts[i]), "stake": r.stake,
                                 "bet_multiple": r.bet_multiple, "position": r.position}
        if caps:
            entry["gross_uncapped"] = r.gross_uncapped
        entry["gross"] = r.gross
        if caps:
            entry["cap"] = r.cap
        out.append(entry | {"commission": r.commission, "amount": r.amount})
    answer = s.context | {
        "base": s.data["base"],
        "ranking": [{"index": i, "id": ids[i], "position": result.players[i].position} for i in result.order],
        "strongest": [{"index": i, "id": ids[i]} for i in result.strongest],
        "players": out,
        "house": result.house,
    }
    return answer, resolution.categories()


def settle_showdown(body: Any, query: Query, profiles: ProfileRegistry, *, guard: Guard = unguarded,
                    language: str | None = None) -> Answer:
    """``POST /v1/showdowns`` (``settleShowdown``): a round without a dealer (RULES.md 6.6),
    labels in the ``lang`` query parameter's language or ``language`` (RULES.md 4.2).

    :raises InvalidRequestError: naming every problem of the request.
    """
    s, _ = load(_SHOWDOWN, body, query, profiles, with_lang=True, language=language)
    with guard(scoring_cost(s.rules, len(s.data["players"]))):
        answer, categories = showdown_answer(s)
    return Answer(answer, s.profile.name, categories, rules=s.rules, lang=s.lang)
