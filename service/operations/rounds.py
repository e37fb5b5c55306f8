"""What the round forms add to a table's request and answer (RULES.md 6.4-6.6): the checks
that need the rules (balances against ``balance_caps``, caps against ``showdown``), and the
members the answers gain only when used (DECISIONS 2): ``factors`` and ``sweep`` with
``base``, ``gross_uncapped`` and ``cap`` under caps.

Shared by the settlement and exposure operations (:mod:`service.operations.scoring`) and
the showdown operation (:mod:`service.operations.showdowns`); it imports neither.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import Any

from service.engine.rules import Rules
from service.engine.settle import MAX_SAFE_INTEGER, PlayerResult, Settlement
from service.engine.showdown import showdown_worst_case
from service.errors import ErrorItem, pointer

__all__ = ["balance_problems", "capped", "dealer_balance", "factors", "player_balances", "round_dealer",
           "round_players", "showdown_integer_problems"]


def capped(rules: Rules) -> bool:
    """Whether the rules take balances (``balance_caps`` ``players`` or ``table``, RULES.md 6.5)."""
    return rules.balance_caps != "none"


def _objects(body: Any, key: str) -> list[tuple[int, Mapping[str, Any]]]:
    """The objects of ``body[key]`` (a list) with their indexes; none when it is not a list."""
    items = body.get(key) if isinstance(body, Mapping) else None
    return [(i, item) for i, item in enumerate(items) if isinstance(item, Mapping)] if isinstance(items, list) else []


def _any_balance(body: Any) -> bool:
    """Whether the body gives a balance anywhere (a player's or the dealer's)."""
    if type(body) is not dict:
        return False
    players, dealer = body.get("players"), body.get("dealer")
    if type(dealer) is dict and "balance" in dealer:
        return True
    return type(players) is list and any(type(p) is dict and "balance" in p for p in players)


def _every_balance(body: Any, *, dealer: bool) -> bool:
    """Whether the body is an object whose players are a list of objects that all give a
    balance, and whose dealer (an object) gives one exactly when ``dealer`` (checked in C
    loops: the hot path of capped tables)."""
    if type(body) is not dict or type(players := body.get("players")) is not list:
        return False
    try:  # TypeError: a player is not an object
        if not all(map(dict.__contains__, players, repeat("balance"))):
            return False
    except TypeError:
        return False
    if "dealer" not in body:
        return not dealer
    given = body["dealer"]
    return type(given) is dict and ("balance" in given) == dealer


def _rules_source(body: Any, *knobs: str) -> ErrorItem:
    """Where a problem of the effective rules comes from: the first of ``knobs`` the body's
    ``rules`` overrides (``/rules/<knob>``), else the profile."""
    rules = body.get("rules") if isinstance(body, Mapping) else None
    for knob in knobs:
        if isinstance(rules, Mapping) and knob in rules:
            return {"pointer": pointer("rules", knob)}
    return {"parameter": "profile"}


def balance_problems(body: Any, rules: Rules, *, showdown: bool = False) -> list[ErrorItem]:
    """The problems of a table's balances under the effective rules (RULES.md 6.5, 6.6;
    DECISIONS 23), read from the body as sent (so they are listed beside every other
    problem): a balance under ``balance_caps: none``; a missing player balance under caps; a
    dealer balance except under ``table``, and a missing one under it; caps with an
    ``all_pairs`` showdown.

    :param body: the request body as parsed.
    :param rules: the effective rules.
    :param showdown: a showdown (no dealer) rather than a settlement.

    >>> from service.engine.rules import Rules
    >>> balance_problems({"players": [{"balance": 5}], "dealer": {}}, Rules())
    [{'pointer': '/players/0/balance', 'detail': 'balances are taken only under balance_caps players or table (RULES.md 6.5); these rules have none'}]
    """
    caps = rules.balance_caps
    if caps == "none" and not _any_balance(body):  # the common table: nothing to judge
        return []
    if caps != "none" and _every_balance(body, dealer=caps == "table" and not showdown) and not (
            showdown and rules.showdown == "all_pairs"):
        return []  # the common capped table: every balance where it belongs
    errors: list[ErrorItem] = []
    for i, player in _objects(body, "players"):
        if caps == "none" and "balance" in player:
            errors.append({"pointer": pointer("players", i, "balance"), "detail": (
                "balances are taken only under balance_caps players or table (RULES.md 6.5); these rules have none")})
        elif caps != "none" and "balance" not in player:
            errors.append({"pointer": pointer("players", i, "balance"), "detail": f"is required under balance_caps {caps}"})
    dealer = body.get("dealer") if isinstance(body, Mapping) and not showdown else None
    if isinstance(dealer, Mapping):
        if caps != "table" and "balance" in dealer:
            errors.append({"pointer": "/dealer/balance", "detail": (
                f"the dealer gives a balance under balance_caps table only (RULES.md 6.5); these rules have {caps}")})
        elif caps == "table" and "balance" not in dealer:
            errors.append({"pointer": "/dealer/balance", "detail": "is required under balance_caps table"})
    if showdown and caps != "none" and rules.showdown == "all_pairs":
        errors.append(_rules_source(body, "balance_caps", "showdown") | {"detail": (
            "balance caps apply to winner_takes_all showdowns only (RULES.md 6.6); these rules have "
            f"balance_caps {caps} and showdown all_pairs")})
    return errors


def showdown_integer_problems(data: Mapping[str, Any], rules: Rules) -> list[ErrorItem]:
    """The problem of a showdown whose amounts could leave the safe integers (I-JSON, as for
    settlements; DECISIONS 20): its worst case
    (:func:`~service.engine.showdown.showdown_worst_case`) over 2^53 − 1 is refused on
    ``/players``.

    >>> from service.engine.rules import Rules
    >>> showdown_integer_problems({"base": 10**12, "players": [{"bet_multiple": 1}] * 10}, Rules())
    []
    """
    multiples = [p.get("bet_multiple", 1) for p in data.get("players", [])]
    worst = showdown_worst_case(data["base"], multiples, rules)
    if worst <= MAX_SAFE_INTEGER:
        return []
    return [{"pointer": "/players", "detail": (
        f"the table could settle for {worst} (what every player could pay every other at the largest payout "
        f"under these rules, {rules.max_payout}); every amount must stay within ±{MAX_SAFE_INTEGER} "
        "(2^53 − 1, the largest integer every JSON client reads exactly): lower the base or the multiples")}]


def player_balances(data: Mapping[str, Any], rules: Rules) -> list[int] | None:
    """Each loaded player's balance under caps, else ``None``."""
    return [p["balance"] for p in data["players"]] if capped(rules) else None


def dealer_balance(data: Mapping[str, Any], rules: Rules) -> int | None:
    """The loaded dealer's balance under ``table`` caps, else ``None``."""
    dealer = data.get("dealer") or {}
    return dealer["balance"] if rules.balance_caps == "table" else None


def factors(data: Mapping[str, Any], player: Mapping[str, Any]) -> dict[str, int]:
    """A player's ``factors`` at a table with ``base`` (RULES.md 6.4): ``{base, bid_multiple,
    bet_multiple}``, whose product is its stake."""
    dealer = data.get("dealer") or {}
    return {"base": data["base"], "bid_multiple": dealer.get("bid_multiple", 1),
            "bet_multiple": player.get("bet_multiple", 1)}


def round_players(data: Mapping[str, Any], results: Sequence[PlayerResult], evaluations: Sequence[Any],
                  exposures: Sequence[dict[str, int]], caps: bool) -> list[dict[str, Any]]:
    """The settled players with the round forms' members, each only when used: ``factors``
    (with ``base``) after ``stake``, ``gross_uncapped`` and ``cap`` (under caps) around
    ``gross`` (one dict display per player: the hot path of these tables)."""
    players = data["players"]
    base = data.get("base")
    bid = (data.get("dealer") or {}).get("bid_multiple", 1)
    out = []
    for p, r, e, x in zip(players, results, evaluations, exposures, strict=True):
        row = {"id": p["id"], "evaluation": e, "stake": r.stake}
        if base is not None:
            row["factors"] = {"base": base, "bid_multiple": bid, "bet_multiple": p.get("bet_multiple", 1)}
        row["bet"] = r.bet
        row["outcome"] = r.outcome
        if caps:
            row["gross_uncapped"] = r.gross_uncapped
            row["gross"] = r.gross
            row["cap"] = r.cap
        else:
            row["gross"] = r.gross
        row["commission"] = r.commission
        row["amount"] = r.amount
        row["exposure"] = x
        out.append(row)
    return out


def round_dealer(data: Mapping[str, Any], result: Settlement, evaluation: Any,
                 exposure: dict[str, int]) -> dict[str, Any]:
    """The dealer's result with ``sweep`` after ``net`` at a table with ``base`` (RULES.md 6.4)."""
    out: dict[str, Any] = {"evaluation": evaluation, "gross": result.dealer_gross,
                           "commission": result.dealer_commission, "net": result.dealer_net}
    if "base" in data:
        out["sweep"] = result.sweep
    out["exposure"] = exposure
    return out

