"""Turning the ``gnau`` command line into API request bodies (the operations check them)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

__all__ = ["BAD_INPUT", "InputError", "apply_bets", "parse_player", "parse_ranked_hand", "parse_rules", "parse_seat",
           "read_body", "split_cards", "table_body", "with_options"]

#: Exit status for bad input (as for a usage error).
BAD_INPUT = 2


class InputError(click.ClickException):
    """Bad input: reported as one line, exit status 2."""

    exit_code = BAD_INPUT


def split_cards(text: str | Sequence[str]) -> list[str]:
    """Card tokens from arguments: spaces or commas separate cards.

    >>> split_cards(["AS KH", "10D,3C", "6S"])
    ['AS', 'KH', '10D', '3C', '6S']
    """
    parts = [text] if isinstance(text, str) else list(text)
    return [t for part in parts for t in re.split(r"[\s,]+", part) if t]


def parse_player(spec: str) -> dict[str, Any]:
    """A ``--player`` value, ``ID:STAKE:CARDS`` or ``STAKE:CARDS``, as a request player.

    A stake that is not an integer is passed on as written, so the request's check names it.

    >>> parse_player("seat-1:250:10H 9D AD 7C 4S")
    {'id': 'seat-1', 'stake': 250, 'hand': ['10H', '9D', 'AD', '7C', '4S']}
    >>> parse_player("100:JS QH KD JC QD")["stake"], parse_player("x:ten:AS")["stake"]
    (100, 'ten')
    """
    parts = spec.split(":")
    if len(parts) == 3:
        player: dict[str, Any] = {"id": parts[0]}
    elif len(parts) == 2:
        player = {}
    else:
        raise InputError(f"--player {spec!r}: write ID:STAKE:CARDS or STAKE:CARDS, e.g. 'ann:100:AS KH 10D 3C 6S'")
    stake_text, cards = parts[-2], parts[-1]
    try:
        stake: Any = int(stake_text)
    except ValueError:
        stake = stake_text
    player |= {"stake": stake, "hand": split_cards(cards)}
    return player


def parse_seat(spec: str) -> dict[str, Any]:
    """An ``exposures --seat`` value, ``ID:STAKE`` or ``STAKE``, as a request seat.

    A stake that is not an integer is passed on as written, so the request's check names it.

    >>> parse_seat("p1:1000"), parse_seat("250"), parse_seat("x:ten")
    ({'id': 'p1', 'stake': 1000}, {'stake': 250}, {'id': 'x', 'stake': 'ten'})
    """
    id_, sep, stake_text = spec.rpartition(":")
    seat: dict[str, Any] = {"id": id_} if sep else {}
    try:
        stake: Any = int(stake_text)
    except ValueError:
        stake = stake_text
    return seat | {"stake": stake}


def parse_ranked_hand(spec: str) -> dict[str, Any]:
    """A ``rank`` argument, ``CARDS`` or ``ID:CARDS``, as a request entry.

    >>> parse_ranked_hand("ann:10S 9H 8D 4C 4H"), parse_ranked_hand("JS QH KD JC QD")["hand"][0]
    ({'id': 'ann', 'hand': ['10S', '9H', '8D', '4C', '4H']}, 'JS')
    """
    if ":" in spec:
        id_, _, cards = spec.partition(":")
        return {"id": id_, "hand": split_cards(cards)}
    return {"hand": split_cards(spec)}


def read_body(path: str) -> dict[str, Any]:
    """A JSON request body from a file (``-`` for standard input).

    :raises InputError: unreadable, not JSON, or not a JSON object.
    """
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        body = json.loads(text)
    except ValueError as exc:
        raise InputError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise InputError(f"{path}: the body must be a JSON object")
    return body


def parse_rules(text: str | None) -> Any:
    """The ``--rules`` option: a JSON object of knob overrides (checked with the body)."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise InputError(f"--rules is not valid JSON: {exc}") from None


def apply_bets(players: list[dict[str, Any]], bets: Sequence[str]) -> None:
    """Give the ``--bet`` values to the ``--player`` entries: one for every player, or one
    each in order. A value is passed on as written, so the request's check names a bad one.

    :raises InputError: another number of ``--bet`` values.

    >>> seats = [{"stake": 1}, {"stake": 2}]
    >>> apply_bets(seats, ["equal", "double"]); [p["bet"] for p in seats]
    ['equal', 'double']
    >>> apply_bets(seats, ["equal"]); [p["bet"] for p in seats]
    ['equal', 'equal']
    """
    if not bets:
        return
    if len(bets) not in (1, len(players)):
        raise InputError(f"give --bet once (for every player) or once per player in order: "
                         f"{len(bets)} --bet for {len(players)} player{'s' * (len(players) != 1)}")
    for player, bet in zip(players, list(bets) * len(players) if len(bets) == 1 else bets, strict=False):
        player["bet"] = bet


def table_body(path: str | None, given: bool, table: Callable[[], dict[str, Any]] | None, bets: Sequence[str],
               *, options: str, missing: str) -> dict[str, Any]:
    """The body of a table command (``settle``, ``exposures``): read from ``--file``, or built
    from the options, with the ``--bet`` values given to its players (:func:`apply_bets`).

    :param path: the ``--file`` value.
    :param given: whether any option that builds the table was given.
    :param table: builds the body from the options; ``None`` when they are not enough.
    :param options: those options, for the message, e.g. ``"--seat and --bet"``.
    :param missing: what the options must give at least, for the message.
    :raises InputError: both ``--file`` and options, or neither enough.

    >>> table_body(None, True, lambda: {"players": [{"stake": 1}]}, ["equal"], options="--seat and --bet",
    ...            missing="at least one --seat [ID:]STAKE")
    {'players': [{'stake': 1, 'bet': 'equal'}]}
    """
    if path is not None:
        if given:
            raise InputError(f"give {options}, or --file, not both")
        return read_body(path)
    if table is None:
        raise InputError(f"give {missing} (or --file)")
    body = table()
    apply_bets(body["players"], bets)
    return body


def with_options(body: dict[str, Any], decks: int | None, rules: str | None) -> dict[str, Any]:
    """``body`` with the ``--decks`` and ``--rules`` options that were given."""
    if decks is not None:
        body["decks"] = decks
    overrides = parse_rules(rules)
    if overrides is not None:
        body["rules"] = overrides
    return body
