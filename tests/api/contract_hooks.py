"""Schemathesis hooks for the rules JSON Schema cannot state, shared by the CLI and pytest.

``schemathesis.toml`` (at the repository root) loads this file, so the bare CLI run

    st run http://127.0.0.1:8000/openapi.yaml --checks all

generates valid requests that are really valid; ``tests/api/test_contract.py`` imports it for the
in-process run. It keeps *positive* (valid) cases valid for the cross-field rules of
openapi.yaml that a schema cannot express (RULES.md sections 1, 6 and 7):

- a card appears at most ``decks`` times in a hand (across the whole table for settlements,
  across ``hand`` and ``dead`` for odds, where at most ``52 × decks − 10`` cards are dead);
- a card given by its rank alone (RULES.md 1.1) is accepted only where no knob in force reads
  suits, and counted per rank: each is replaced by a suited card (tests/api/test_suitless.py
  covers rank-only cards);
- odds: ``opponents`` only with ``role: dealer``, and no more than the cards left seat;
- a table seats at most ``floor(52 × decks / 5) − 1`` players besides the dealer, and the
  sum of the stakes times the largest payout stays within 2^53 − 1;
- the round forms (RULES.md 6.4-6.6): each player gives ``stake`` or the table ``base``
  (with the multiples), never both, and ``base × bid_multiple × bet_multiple`` stays within
  10^12; balances are given exactly where the effective ``balance_caps`` takes them (the
  built-in profiles have none; a ``rules`` override may set it), a dealer balance only
  under ``table``; exposures take balances with ``base`` only; showdowns seat at most
  ``floor(52 × decks / 5)`` players, caps only with ``winner_takes_all``, and their worst
  case (every player paying every other at the largest payout) within 2^53 − 1;
- a table's player ids differ (settlements, exposures, showdowns; DECISIONS 10): a repeated
  ``id`` is dropped (ids are optional);
- an overridden ``ranking`` lists every category (so every one that is on, whatever the
  profile), each once, ``single_ox`` then ``no_ox`` last; the categories it gave keep their order;
- ``five_small_max_rank: null`` (any rank) needs ``five_small_max_points`` set (RULES.md 7):
  such cases set it to 10 when they leave it unset or null;
- the house edge of a double bet with a commission is not computed under rules with both a
  suited bonus and ``high_card`` ties (a documented 400): such cases ask for the equal bet;
  nor under rules with a suit category (``flush``, ``straight_flush``) unless ties are not the
  dealer's and there is no commission (a documented 400): such cases turn those two off;
- dealer odds are not computed under a dealer commission (a documented 400): such cases
  ask without one;
- deals (``/v1/deals``, ``/v1/deals/verify``): no more hands than the decks deal
  (``floor(52 × decks / 5)``), and no trailing newline after a seed or a commitment (their
  patterns are ``$``-anchored).

Negative (invalid) cases are left alone, except that no generated query may push the
request line over gunicorn's 4,094 bytes (a 414 before the app, see ``filter_query``). The
file needs only schemathesis (and PyYAML, which it brings): it does not import the service,
so a consumer can run it from a checkout against any server.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import schemathesis
import yaml

__all__ = ["CATEGORIES", "canonical", "map_case"]

_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
_SUITS = {"S": "S", "H": "H", "D": "D", "C": "C", "♠": "S", "♥": "H", "♦": "D", "♣": "C"}
_DECK = [rank + suit for rank in _RANKS for suit in "SHDC"]
#: RULES.md 7's categories in the standard order: openapi.yaml's ``Category`` (written from the
#: engine's declarations by ``make spec``), read from the checkout this file is in.
CATEGORIES: list[str] = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text(
    encoding="utf-8"))["components"]["schemas"]["Category"]["enum"]
_SAFE = 2**53 - 1
_MAX_STAKE = 10**12
# The largest payout the schema allows (1,000) times the largest suited multiplier (10).
_WORST_MULTIPLIER = 1000 * 10


def canonical(token: object) -> str | None:
    """The canonical card of an accepted spelling (``'tH'`` → ``'10H'``), else ``None``.

    >>> canonical("tH"), canonical("a♠"), canonical("0d"), canonical("1S")
    ('10H', 'AS', '10D', None)
    """
    if not isinstance(token, str) or len(token) < 2:
        return None
    rank, suit = token[:-1].upper(), _SUITS.get(token[-1].upper())
    rank = "10" if rank in ("T", "0") else rank
    return rank + suit if rank in _RANKS and suit else None


def _rank_only(token: object) -> bool:
    """Whether a token is a card's rank alone (``'t'``, ``'K'``).

    >>> _rank_only("t"), _rank_only("10"), _rank_only("KS"), _rank_only(10)
    (True, True, False, False)
    """
    return isinstance(token, str) and ("10" if token.upper() in ("T", "0") else token.upper()) in _RANKS


def _repair(hands: list[list[Any]], decks: int) -> None:
    """Replace cards used more than ``decks`` times (counted across ``hands``)."""
    seen = dict.fromkeys(_DECK, 0)
    for hand in hands:
        for i, token in enumerate(hand):
            card = canonical(token)
            if card is None:
                if not _rank_only(token):
                    continue
                card = next(c for c in _DECK if seen[c] < decks)
                hand[i] = card
            elif seen[card] >= decks:
                card = next(c for c in _DECK if seen[c] < decks)
                hand[i] = card
            seen[card] += 1


def _repair_round(body: dict[str, Any], path: str) -> None:
    """Stakes or ``base`` (never both), multiples within the stake bound, balances where the
    caps take them (module docstring)."""
    players = [p for p in body["players"] if isinstance(p, dict)]
    dealer = body.get("dealer") if isinstance(body.get("dealer"), dict) else None
    rules: dict[str, Any] = body["rules"] if isinstance(body.get("rules"), dict) else {}
    caps = rules.get("balance_caps", "none")
    if path == "/v1/showdowns":
        if caps != "none" and rules.get("showdown") == "all_pairs":
            rules["showdown"] = "winner_takes_all"
    elif isinstance(body.get("base"), int):
        for p in players:
            p.pop("stake", None)
    else:
        for seat in [*players, dealer or {}]:
            seat.pop("bet_multiple", None)
            seat.pop("bid_multiple", None)
            if path == "/v1/exposures":
                seat.pop("balance", None)
        for p in players:
            p.setdefault("stake", 1)
    if path != "/v1/exposures":
        for p in players:
            if caps == "none":
                p.pop("balance", None)
            else:
                p.setdefault("balance", 1000)
        if dealer is not None and caps != "table":
            dealer.pop("balance", None)
        elif dealer is not None:
            dealer.setdefault("balance", 1000)
    if isinstance(body.get("base"), int):
        bid = dealer.get("bid_multiple", 1) if dealer is not None else 1
        biggest = max([p.get("bet_multiple", 1) for p in players] or [1])
        seats = max(1, len(players))
        # the stake bound, and 2^53 - 1 over every pair of seats at the largest multiples and payout
        cap = min(_MAX_STAKE // (bid * biggest), _SAFE // (_WORST_MULTIPLIER * seats * seats * bid * biggest * biggest))
        body["base"] = max(1, min(body["base"], cap))


def _unique_ids(players: list[Any]) -> None:
    """Drop each repeat of a player's ``id`` (ids are optional, and must differ: DECISIONS 10)."""
    seen: set[str] = set()
    for p in players:
        if isinstance(p, dict) and isinstance(p.get("id"), str):
            if p["id"] in seen:
                del p["id"]
            else:
                seen.add(p["id"])


def _repair_table(body: dict[str, Any], decks: int, path: str) -> None:
    players = body["players"]
    del players[52 * decks // 5 - (0 if path == "/v1/showdowns" else 1):]
    _unique_ids(players)
    _repair_round(body, path)
    if path != "/v1/exposures":  # a settlement or a showdown: hands counted across the table
        dealer = body.get("dealer")
        hands = ([dealer["hand"]] if isinstance(dealer, dict) else []) + [p["hand"] for p in players
                                                                           if isinstance(p, dict)]
        _repair([h for h in hands if isinstance(h, list)], decks)
    # 82 stakes of up to 10^12 at a 10,000x payout could settle beyond 2^53 - 1: keep the
    # table's worst case inside, whatever rules the case overrides.
    cap = max(1, _SAFE // _WORST_MULTIPLIER // max(1, len(players)))
    for p in players:
        if isinstance(p, dict) and isinstance(p.get("stake"), int) and p["stake"] > cap:
            p["stake"] = min(cap, _MAX_STAKE)


def _repair_deal(body: dict[str, Any], decks: int) -> None:
    """At most as many hands as the decks deal; no newline after a `$`-anchored value."""
    for name in ("server_seed", "commitment"):
        if isinstance(body.get(name), str):
            body[name] = body[name].rstrip("\n")
    most = 52 * decks // 5
    if isinstance(body.get("hands"), int) and not isinstance(body["hands"], bool):
        body["hands"] = min(body["hands"], most)
    elif isinstance(body.get("hands"), list):
        del body["hands"][most:]


#: gunicorn answers a request line over 4,094 bytes itself, 414 before the app (docs/api.md,
#: "Errors"); schemathesis does not count a 414 as a rejection, so generated queries stay
#: well under it (the limit is the server's framing, tested in tests/live/test_limits.py).
MAX_QUERY_BYTES = 3_000


@schemathesis.hook
def filter_query(context: Any, query: Any) -> bool:
    """Keep queries whose encoded form leaves the request line under gunicorn's limit."""
    if not isinstance(query, dict):
        return True
    return len(urlencode(query, doseq=True)) <= MAX_QUERY_BYTES


def _valid_body_intended(meta: Any) -> bool:
    """Whether the case's body is meant to be valid: a positive case, or a negative one whose
    mutation is elsewhere (a header, a query parameter: schemathesis then expects the body
    accepted whenever the mutation turns out schema-valid)."""
    if meta.generation.mode.is_positive:
        return True
    location = getattr(getattr(meta.phase, "data", None), "parameter_location", None)
    return location is not None and getattr(location, "value", location) not in ("body", None)


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    """Keep positive cases valid for the rules JSON Schema cannot state (module docstring)."""
    meta = case.meta
    if meta is None or not _valid_body_intended(meta) or not isinstance(case.body, dict):
        return case
    # Coverage cases may share nested objects (the operation's example): repair a copy, or
    # one case's repair (balances taken away, say) would undo another's.
    case.body = copy.deepcopy(case.body)
    for name in ("fields", "lang"):
        if isinstance(case.query, dict) and isinstance(case.query.get(name), str):
            # A `$`-anchored pattern lets a trailing newline through (TOOLING.md); the server rightly refuses it.
            case.query[name] = case.query[name].rstrip("\n")
    body = case.body
    decks = body.get("decks", 1) if isinstance(body.get("decks", 1), int) else 1
    if case.path in ("/v1/deals", "/v1/deals/verify"):
        _repair_deal(body, decks)
        return case
    rules = body.get("rules")
    if isinstance(rules, dict) and isinstance(rules.get("ranking"), list):
        given = [c for c in dict.fromkeys(rules["ranking"]) if c in CATEGORIES[:-2]]
        rules["ranking"] = given + [c for c in CATEGORIES[:-2] if c not in given] + CATEGORIES[-2:]
    if isinstance(rules, dict) and "five_small_max_rank" in rules and rules["five_small_max_rank"] is None \
            and rules.get("five_small_max_points") is None:
        rules["five_small_max_points"] = 10  # any rank needs a points bound (a documented 400)
    if isinstance(body.get("hand"), list):
        dead = body.get("dead")
        if body.get("role") != "dealer":  # POST /v1/odds: opponents only for the dealer
            body.pop("opponents", None)
        opponents = body.get("opponents", 1) if isinstance(body.get("opponents", 1), int) else 1
        if isinstance(dead, list):  # the rest of the hand and every opponent's five left
            del dead[max(0, 52 * decks - 5 - 5 * opponents):]
        if isinstance(body.get("opponents"), int):
            body["opponents"] = min(opponents, (52 * decks - 5 - len(dead if isinstance(dead, list) else [])) // 5)
        _repair([body["hand"]] + ([dead] if isinstance(dead, list) else []), decks)
    if isinstance(body.get("hands"), list):
        for item in body["hands"]:
            hand = item.get("hand") if isinstance(item, dict) else item
            if isinstance(hand, list):
                _repair([hand], decks)
    if isinstance(body.get("players"), list):  # settlements, showdowns and exposures
        _repair_table(body, decks, case.path)
    if case.path == "/v1/odds" and body.get("role") == "dealer" and isinstance(rules, dict):
        rules["dealer_commission_bps"] = 0  # dealer odds are not computed under one (a documented 400)
    if (case.path == "/v1/analyses/house-edge" and isinstance(rules, dict) and body.get("bet", "double") == "double"
            and rules.get("commission_bps") and rules.get("suited_bonus", "none") != "none"
            and rules.get("ties") == "high_card"):
        body["bet"] = "equal"  # the one combination the house edge does not compute (a documented 400)
    if case.path == "/v1/analyses/house-edge" and isinstance(rules, dict):
        rules["flush"] = rules["straight_flush"] = False  # suit categories: computed only when 0 by symmetry
    return case
