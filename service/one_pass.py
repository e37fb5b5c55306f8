"""Reading plainly valid table bodies in one pass (the hot path of settlements and showdowns).

The request schemas (:mod:`service.schemas`) load a body through marshmallow's fields, which
costs about 0.3 ms a player. Most bodies are plainly valid: every member of the expected
type and range, every card known and within ``decks`` copies, no player's id repeated. These readers load such a
body with plain checks and the engine's one-pass card reader
(:func:`~service.engine.batch.read_hands`), and give exactly what the fields give
(``tests/engine/test_fast_paths.py`` compares the two on valid and invalid variants); any
doubt, and every error, is left to the fields (``None``).

Settlements come in the forms of RULES.md 6-6.5: each player's ``stake``, or the table's
``base`` with the dealer's ``bid_multiple`` and each player's ``bet_multiple`` (the loaded
stake is their product), with ``balance`` members as given (whether the rules take them is
checked with the rules). Showdowns (RULES.md 6.6) have ``base`` and players only. A deal
(RULES.md 9.1) has its seeds, nonce, decks and hand count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.engine.batch import read_hands
from service.engine.bets import BETS, DEFAULT_BET
from service.engine.caps import MAX_BALANCE
from service.engine.cards import DECK_SIZE, HAND_SIZE, MAX_DECKS, count_excess
from service.engine.deal import (
    MAX_CLIENT_SEED_CODE_POINTS,
    MAX_NONCE,
    MAX_SEED_BYTES,
    MIN_HANDS,
    MIN_SEED_BYTES,
    max_hands,
)
from service.engine.settle import MAX_MULTIPLE, MAX_STAKE

__all__ = ["MAX_ID_LENGTH", "distinct_ids", "max_players", "max_seats", "plain_deal", "plain_decks",
           "plain_hands", "plain_id", "plain_settlement", "plain_showdown"]

#: The longest caller's id.
MAX_ID_LENGTH = 128

#: The members a table body, its dealer and its players may have on the one-pass path.
_TABLE_KEYS = frozenset({"dealer", "players", "decks", "base"})
_DEALER_KEYS = frozenset({"hand", "balance"})
_BASE_DEALER_KEYS = _DEALER_KEYS | {"bid_multiple"}
_PLAYER_KEYS = frozenset({"id", "hand", "stake", "bet", "balance"})
_STAKED = frozenset({"hand", "stake"})
_BASE_PLAYER_KEYS = frozenset({"id", "hand", "bet", "bet_multiple", "balance"})
_SHOWDOWN_KEYS = frozenset({"base", "players", "decks"})
_SHOWDOWN_PLAYER_KEYS = frozenset({"id", "hand", "bet_multiple", "balance"})


def max_players(decks: int) -> int:
    """How many players a table can seat besides the dealer: ``floor(52 * decks / 5) - 1``.

    >>> max_players(1), max_players(8)
    (9, 82)
    """
    return DECK_SIZE * decks // HAND_SIZE - 1


def max_seats(decks: int) -> int:
    """How many players a showdown seats (no dealer): ``floor(52 * decks / 5)`` (DECISIONS 20).

    >>> max_seats(1), max_seats(8)
    (10, 83)
    """
    return DECK_SIZE * decks // HAND_SIZE


def plain_decks(data: Mapping[str, Any]) -> int | None:
    """``decks`` as the fields would load it when it is plainly valid (default 1), else ``None``."""
    decks = data.get("decks", 1)
    return decks if type(decks) is int and 1 <= decks <= MAX_DECKS else None


def plain_id(entry: Mapping[str, Any]) -> tuple[bool, str | None]:
    """An entry's ``id`` as the fields would load it (``None`` when absent), and whether it
    is plainly valid."""
    if "id" not in entry:
        return True, None
    value = entry["id"]
    return type(value) is str and len(value) <= MAX_ID_LENGTH, value


def plain_hands(hands: list[Any], decks: int, shared: bool) -> Sequence[Sequence[int]] | None:
    """The hands' codes when every hand is five known cards within ``decks`` copies of each
    (counted across the hands when ``shared``), else ``None``."""
    codes, problems = read_hands(hands)
    if problems or count_excess(codes, decks, shared=shared):
        return None
    return codes  # type: ignore[return-value]  # no problems: no None codes


def distinct_ids(seats: list[dict[str, Any]]) -> bool:
    """Whether no two seats give the same ``id`` (DECISIONS 10; seats without one aside): a
    table that repeats one is left to the fields, which name the repeat.

    >>> distinct_ids([{"id": "a"}, {"id": None}, {"id": None}]), distinct_ids([{"id": "a"}, {"id": "a"}])
    (True, False)
    """
    ids = [seat["id"] for seat in seats if seat["id"] is not None]
    return len(set(ids)) == len(ids)


def _within(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high  # bool is not int by type


def _plain_dealer(dealer: Any, based: bool) -> dict[str, Any] | None:
    """The dealer's members but its hand, as loaded, or ``None``."""
    if type(dealer) is not dict or "hand" not in dealer or not dealer.keys() <= (
            _BASE_DEALER_KEYS if based else _DEALER_KEYS):
        return None
    out: dict[str, Any] = {}
    if "bid_multiple" in dealer:
        if not _within(dealer["bid_multiple"], 1, MAX_MULTIPLE):
            return None
        out["bid_multiple"] = dealer["bid_multiple"]
    if "balance" in dealer:
        if not _within(dealer["balance"], 0, MAX_BALANCE):
            return None
        out["balance"] = dealer["balance"]
    return out


def _plain_player(player: Any, base: int | None, bid: int) -> dict[str, Any] | None:
    """A settlement player's members but its hand, as loaded (``stake`` given, or the
    product of the factors), or ``None``."""
    if type(player) is not dict:
        return None
    keys = player.keys()
    if base is None:
        if not _STAKED <= keys <= _PLAYER_KEYS:
            return None
        stake = player["stake"]
    else:
        multiple = player.get("bet_multiple", 1)
        if "hand" not in keys or not keys <= _BASE_PLAYER_KEYS or type(multiple) is not int or not (
                1 <= multiple <= MAX_MULTIPLE):
            return None
        stake = base * bid * multiple
    good, value = plain_id(player)
    bet = player.get("bet", DEFAULT_BET)
    if not good or type(stake) is not int or not 1 <= stake <= MAX_STAKE or type(bet) is not str or bet not in BETS:
        return None
    seat = {"id": value, "stake": stake, "bet": bet}
    if base is not None and "bet_multiple" in keys:
        seat["bet_multiple"] = player["bet_multiple"]
    if "balance" in keys:
        balance = seat["balance"] = player["balance"]
        if type(balance) is not int or not 0 <= balance <= MAX_BALANCE:
            return None
    return seat


def plain_settlement(data: Any) -> dict[str, Any] | None:
    """A settlement body (``POST /v1/settlements``) loaded in one pass, or ``None``."""
    if type(data) is not dict or "dealer" not in data or "players" not in data or not data.keys() <= _TABLE_KEYS:
        return None
    base = data.get("base")
    if "base" in data and not _within(base, 1, MAX_STAKE):
        return None
    decks, players = plain_decks(data), data["players"]
    dealer = _plain_dealer(data["dealer"], base is not None)
    if decks is None or dealer is None or type(players) is not list or not 1 <= len(players) <= max_players(decks):
        return None
    bid = dealer.get("bid_multiple", 1)
    seats = []
    for player in players:
        seat = _plain_player(player, base, bid)
        if seat is None:
            return None
        seats.append(seat)
    if not distinct_ids(seats):
        return None
    codes = plain_hands([data["dealer"]["hand"], *(p["hand"] for p in players)], decks, shared=True)
    if codes is None:
        return None
    out = {"decks": decks, "rules": None, "dealer": {"hand": list(codes[0])} | dealer,
           "players": [{"id": s.pop("id"), "hand": list(h)} | s for s, h in zip(seats, codes[1:], strict=True)]}
    if base is not None:
        out["base"] = base
    return out


def plain_showdown(data: Any) -> dict[str, Any] | None:
    """A showdown body (``POST /v1/showdowns``) loaded in one pass, or ``None``.

    >>> plain_showdown({"base": 10, "players": [{"hand": ["AS", "2S", "3S", "4S", "6S"], "bet_multiple": 2},
    ...                                         {"id": "b", "hand": ["AH", "2H", "3H", "4H", "6H"]}]})["players"][0]
    {'id': None, 'hand': [3, 7, 11, 15, 23], 'bet_multiple': 2}
    """
    if type(data) is not dict or "base" not in data or "players" not in data or not data.keys() <= _SHOWDOWN_KEYS:
        return None
    base, decks, players = data["base"], plain_decks(data), data["players"]
    if not _within(base, 1, MAX_STAKE) or decks is None or type(players) is not list or not (
            2 <= len(players) <= max_seats(decks)):
        return None
    seats = []
    for player in players:
        if type(player) is not dict or "hand" not in player or not player.keys() <= _SHOWDOWN_PLAYER_KEYS:
            return None
        good, value = plain_id(player)
        seat: dict[str, Any] = {"id": value}
        for key, low, high in (("bet_multiple", 1, MAX_MULTIPLE), ("balance", 0, MAX_BALANCE)):
            if key in player:
                if not _within(player[key], low, high):
                    return None
                seat[key] = player[key]
        if not good or base * seat.get("bet_multiple", 1) > MAX_STAKE:
            return None
        seats.append(seat)
    if not distinct_ids(seats):
        return None
    codes = plain_hands([p["hand"] for p in players], decks, shared=True)
    if codes is None:
        return None
    return {"decks": decks, "rules": None, "base": base,
            "players": [{"id": s.pop("id"), "hand": list(h)} | s for s, h in zip(seats, codes, strict=True)]}


_DEAL_KEYS = frozenset({"server_seed", "client_seed", "nonce", "decks", "hands"})
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def plain_deal(data: Any) -> dict[str, Any] | None:
    """A plainly valid ``POST /v1/deals`` body (RULES.md 9.1) as its schema loads it: the
    server seed as bytes, ``decks`` defaulted to 1; ``None`` for anything else.

    >>> plain_deal({"server_seed": "00" * 16, "client_seed": "p", "nonce": 0, "hands": 2})
    {'server_seed': b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00', 'client_seed': 'p', 'nonce': 0, 'decks': 1, 'hands': 2}
    >>> plain_deal({"server_seed": "00" * 16, "client_seed": "p", "nonce": True, "hands": 2}) is None
    True
    """
    if type(data) is not dict or not data.keys() <= _DEAL_KEYS:
        return None
    seed, client, nonce = data.get("server_seed"), data.get("client_seed"), data.get("nonce")
    decks, hands = data.get("decks", 1), data.get("hands")
    if not (type(seed) is str and 2 * MIN_SEED_BYTES <= len(seed) <= 2 * MAX_SEED_BYTES and not len(seed) % 2
            and _HEX_DIGITS.issuperset(seed)):
        return None
    if not (type(client) is str and 1 <= len(client) <= MAX_CLIENT_SEED_CODE_POINTS):
        return None
    if not (type(nonce) is int and 0 <= nonce <= MAX_NONCE and type(decks) is int and 1 <= decks <= MAX_DECKS
            and type(hands) is int and MIN_HANDS <= hands <= max_hands(decks)):
        return None
    return {"server_seed": bytes.fromhex(seed), "client_seed": client, "nonce": nonce, "decks": decks, "hands": hands}
