"""Turning the ``gnau`` command line into API request bodies (the operations check them)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from service.json_text import (
    MAX_BODY_BYTES,
    SURROGATE_DETAIL,
    MalformedJSONError,
    decode_utf8,
    read_json_text,
)

__all__ = ["BAD_INPUT", "InputError", "apply_bets", "apply_each", "parse_player", "parse_ranked_hand", "parse_rules",
           "parse_seat", "parse_showdown_player", "read_body", "refuse_with_file", "split_cards", "strict_json",
           "table_body", "with_options"]

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


def _stake(text: str, option: str, spec: str) -> int:
    """A stake of ASCII digits (``[0-9]+``) as an integer (its range is the request's check).

    :raises InputError: anything else (``ten``, ``1_0``, `` +7 ``, other scripts' digits),
        naming it rather than reading it some other way.
    """
    if not re.fullmatch(r"[0-9]+", text):
        raise InputError(f"{option} {spec!r}: the stake {text!r} must be written in the digits 0-9")
    return int(text)


def _stake_or_multiple(text: str, option: str, spec: str) -> dict[str, int]:
    """``{"stake": N}`` for ``N``, or ``{"bet_multiple": M}`` for ``xM`` (a table with ``--base``,
    RULES.md 6.4), digits 0-9 only.

    >>> _stake_or_multiple("250", "--player", ""), _stake_or_multiple("x3", "--player", "")
    ({'stake': 250}, {'bet_multiple': 3})
    """
    if text[:1] in ("x", "X"):
        if not re.fullmatch(r"[0-9]+", text[1:]):
            raise InputError(f"{option} {spec!r}: the bet multiple {text!r} must be x and the digits 0-9, e.g. 'x3'")
        return {"bet_multiple": int(text[1:])}
    return {"stake": _stake(text, option, spec)}


def _id_stake(spec: str, option: str, fields: int, form: str, example: str) -> tuple[dict[str, Any], list[str]]:
    """``spec`` split at ``:`` into an optional id, a stake (or ``xM``, a bet multiple) and
    ``fields - 1`` more fields.

    :return: the seat so far (``id`` if given, ``stake`` or ``bet_multiple``) and the fields
        after the stake.
    :raises InputError: another number of fields (an id holding ``:`` is ambiguous).
    """
    parts = spec.split(":")
    if len(parts) not in (fields, fields + 1):
        raise InputError(f"{option} {spec!r}: write {form} (xM instead of STAKE: a bet multiple, with --base), "
                         f"e.g. {example!r}")
    seat: dict[str, Any] = {"id": parts[0]} if len(parts) == fields + 1 else {}
    offset = len(parts) - fields
    return seat | _stake_or_multiple(parts[offset], option, spec), parts[offset + 1:]


def parse_player(spec: str) -> dict[str, Any]:
    """A ``--player`` value, ``ID:STAKE:CARDS`` or ``STAKE:CARDS``, as a request player.

    :raises InputError: another number of fields, or a stake not in the digits 0-9.

    >>> parse_player("seat-1:250:10H 9D AD 7C 4S")
    {'id': 'seat-1', 'stake': 250, 'hand': ['10H', '9D', 'AD', '7C', '4S']}
    >>> parse_player("100:JS QH KD JC QD")["stake"]
    100
    """
    player, (cards,) = _id_stake(spec, "--player", 2, "ID:STAKE:CARDS or STAKE:CARDS", "ann:100:AS KH 10D 3C 6S")
    return player | {"hand": split_cards(cards)}


def parse_seat(spec: str) -> dict[str, Any]:
    """An ``exposures --seat`` value, ``ID:STAKE`` or ``STAKE``, as a request seat.

    :raises InputError: as :func:`parse_player`.

    >>> parse_seat("p1:1000"), parse_seat("250")
    ({'id': 'p1', 'stake': 1000}, {'stake': 250})
    """
    return _id_stake(spec, "--seat", 1, "ID:STAKE or STAKE", "p1:1000")[0]


def parse_showdown_player(spec: str) -> dict[str, Any]:
    """A ``showdown --player`` value, ``[ID:][xM:]CARDS``, as a request player (RULES.md 6.6):
    an optional id and an optional bet multiple ``xM`` (default 1).

    :raises InputError: more fields, or a multiple not written ``x`` and digits.

    >>> parse_showdown_player("s1:x2:JS 9H AD 5C 5D"), parse_showdown_player("7S 3H JH 8C 10C")["hand"][0]
    ({'id': 's1', 'bet_multiple': 2, 'hand': ['JS', '9H', 'AD', '5C', '5D']}, '7S')
    >>> parse_showdown_player("x3:2S 5H 8D 7C QH")["bet_multiple"]
    3
    """
    parts = spec.split(":")
    if len(parts) > 3 or (len(parts) == 3 and parts[1][:1] not in ("x", "X")):
        raise InputError(f"--player {spec!r}: write [ID:][xM:]CARDS, e.g. 's1:x2:JS 9H AD 5C 5D'")
    player: dict[str, Any] = {}
    if len(parts) == 3 or (len(parts) == 2 and parts[0][:1] not in ("x", "X")):
        player["id"] = parts[0]
    if len(parts) >= 2 and parts[-2][:1] in ("x", "X"):
        player |= _stake_or_multiple(parts[-2], "--player", spec)
    return player | {"hand": split_cards(parts[-1])}


def parse_ranked_hand(spec: str) -> dict[str, Any]:
    """A ``rank`` argument, ``CARDS`` or ``ID:CARDS``, as a request entry.

    >>> parse_ranked_hand("ann:10S 9H 8D 4C 4H"), parse_ranked_hand("JS QH KD JC QD")["hand"][0]
    ({'id': 'ann', 'hand': ['10S', '9H', '8D', '4C', '4H']}, 'JS')
    """
    if ":" in spec:
        id_, _, cards = spec.partition(":")
        return {"id": id_, "hand": split_cards(cards)}
    return {"hand": split_cards(spec)}


def _read_capped(path: str) -> bytes:
    """At most :data:`MAX_BODY_BYTES` + 1 bytes of ``path`` (``-`` for standard input)."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream (e.g. under a test runner)
            return sys.stdin.read(MAX_BODY_BYTES + 1).encode("utf-8", "surrogateescape")
        data: bytes = stream.read(MAX_BODY_BYTES + 1)
        return data
    with Path(path).open("rb") as file:
        return file.read(MAX_BODY_BYTES + 1)


def strict_json(text: str, what: str) -> Any:
    """The data of ``text``, read as strictly as the API reads a body (:mod:`service.json_text`).

    :raises InputError: ``what``, then the API's words, e.g. ``--rules is not valid JSON: ...``.
    """
    try:
        data, bad = read_json_text(text, what)
    except MalformedJSONError as exc:
        raise InputError(str(exc)) from None
    if bad:
        raise InputError("; ".join(f"{what} {p or '(body)'}: {SURROGATE_DETAIL}" for p in bad))
    return data


def read_body(path: str) -> dict[str, Any]:
    """A JSON request body from a file (``-`` for standard input), read as the API reads one:
    at most 1 MiB (:data:`MAX_BODY_BYTES`), UTF-8, strict JSON.

    :raises InputError: unreadable, too large, not UTF-8, not strict JSON, or not a JSON object.
    """
    try:
        raw = _read_capped(path)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    if len(raw) > MAX_BODY_BYTES:
        raise InputError(f"{path}: the body is over the {MAX_BODY_BYTES // 2**20} MiB limit "
                         f"({MAX_BODY_BYTES:,} bytes) of a request body")
    try:
        text = decode_utf8(raw, path)
    except MalformedJSONError as exc:
        raise InputError(str(exc)) from None
    body = strict_json(text, path)
    if not isinstance(body, dict):
        raise InputError(f"{path}: the body must be a JSON object")
    return body


def parse_rules(text: str) -> Any:
    """The ``--rules`` option: JSON knob overrides (checked with the body, so ``null`` or a
    non-object is passed on for the request's check to name).

    :raises InputError: not strict JSON, in the API's words.
    """
    return strict_json(text, "--rules")


def apply_each(players: list[dict[str, Any]], values: Sequence[Any], key: str, option: str) -> None:
    """Give an option's values to the players as ``key``: one for every player, or one each
    in order (values passed on as written, for the request's check to name a bad one).

    :raises InputError: another number of values.

    >>> seats = [{"stake": 1}, {"stake": 2}]
    >>> apply_each(seats, [500, 700], "balance", "--balance"); [p["balance"] for p in seats]
    [500, 700]
    """
    if not values:
        return
    if len(values) not in (1, len(players)):
        raise InputError(f"give {option} once (for every player) or once per player in order: "
                         f"{len(values)} {option} for {len(players)} player{'s' * (len(players) != 1)}")
    for player, value in zip(players, list(values) * len(players) if len(values) == 1 else values, strict=False):
        player[key] = value


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
    apply_each(players, bets, "bet", "--bet")


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
        refuse_with_file(path, given, options)
        return read_body(path)
    if table is None:
        raise InputError(f"give {missing} (or --file)")
    body = table()
    apply_bets(body["players"], bets)
    return body


def refuse_with_file(path: str | None, given: bool, options: str) -> None:
    """Refuse options that would build or change a body given with ``--file``.

    :raises InputError: ``path`` and ``given`` both.
    """
    if path is not None and given:
        raise InputError(f"--file gives the whole body, so it takes none of {options}")


def with_options(body: dict[str, Any], decks: int | None, rules: str | None,
                 path: str | None = None) -> dict[str, Any]:
    """``body`` with the ``--decks`` and ``--rules`` options that were given (``--rules null``
    included, for the request's check to refuse).

    :param path: the ``--file`` the body came from: then neither option may be given (the
        file's ``decks`` and ``rules`` are never replaced).
    :raises InputError: an option with ``--file``, or ``--rules`` not strict JSON.
    """
    refuse_with_file(path, decks is not None or rules is not None,
                     '--decks and --rules (put "decks" and "rules" in the body)')
    if decks is not None:
        body["decks"] = decks
    if rules is not None:
        body["rules"] = parse_rules(rules)
    return body
