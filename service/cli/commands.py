"""The ``gnau`` commands: each builds an API request body, hands it to its operation
(:mod:`service.operations`, the API's own checks and answers) and prints the answer."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import click

from service import operations
from service.cli.args import (
    InputError,
    apply_each,
    parse_player,
    parse_ranked_hand,
    parse_seat,
    parse_showdown_player,
    read_body,
    refuse_with_file,
    split_cards,
    table_body,
    with_options,
)
from service.cli.tables import (
    emit_json,
    evaluation_text,
    exposure_text,
    odds_text,
    plain,
    profile_text,
    profiles_text,
    ranking_text,
    settlement_text,
    showdown_text,
)
from service.engine.bets import BET_NAMES, DEFAULT_BET
from service.errors import ErrorItem, InvalidRequestError
from service.profiles import ProfileRegistry, ProfilesFileError, UnknownProfileError, load_registry

__all__ = ["answer", "cli", "find_gunicorn_config", "main", "one_line", "registry"]

F = TypeVar("F", bound=Callable[..., Any])


def registry() -> ProfileRegistry:
    """The built-in profiles plus the operator's ``PROFILES_FILE``, as the service loads them.

    :raises InputError: the profiles file is invalid.
    """
    try:
        return load_registry(listing="gnau profiles")
    except ProfilesFileError as exc:
        raise InputError(f"PROFILES_FILE: {exc}") from None


def one_line(errors: list[ErrorItem]) -> str:
    """Every problem of a request on one line: ``/hand/1: ...; --profile: ...``."""
    return "; ".join(f"{e['pointer'] or '(body)'}: {e['detail']}" if "pointer" in e
                     else f"--{e['parameter']}: {e['detail']}" for e in errors)


def run(operation: Callable[[Any, operations.Query, ProfileRegistry], Any], body: dict[str, Any],
        profile: str, lang: str | None = None) -> Any:
    """What an operation gives for ``body`` under ``profile`` (an ``Answer`` or answer data),
    labels in ``lang`` when given (the API's ``lang`` query parameter).

    :raises InputError: naming every problem of the request, one line.
    """
    query = {"profile": [profile]} | ({"lang": [lang]} if lang is not None else {})
    try:
        return operation(body, query, registry())
    except InvalidRequestError as exc:
        raise InputError(one_line(exc.errors)) from None


def answer(operation: Callable[[Any, operations.Query, ProfileRegistry], Any], body: dict[str, Any],
           profile: str, lang: str | None = None) -> dict[str, Any]:
    """The answer of an operation to ``body`` under ``profile``, as the API gives it.

    :raises InputError: naming every problem of the request, one line.
    """
    result = run(operation, body, profile, lang)
    data: dict[str, Any] = plain(result.body if isinstance(result, operations.Answer) else result)
    return data


def _print(body: dict[str, Any], as_json: bool, text: Callable[[dict[str, Any]], str]) -> None:
    if as_json:
        emit_json(body)
    else:
        click.echo(text(body))


def lang_option(func: F) -> F:
    """``--lang``: the labels' language (the API's ``lang`` query parameter)."""
    return click.option("--lang", metavar="LANG", default=None,
                        help="Labels in this language: en (default), zh-Hans or zh-Hant (RULES.md 4.2).")(func)


def scoring_options(func: F) -> F:
    """``--profile``, ``--decks``, ``--rules`` and ``--json``."""
    func = click.option("--json", "as_json", is_flag=True, help="Print the API's JSON body instead of a table.")(func)
    func = click.option("--rules", metavar="JSON",
                        help='Knob overrides for this call, e.g. \'{"three_six_swap": false}\'.')(func)
    func = click.option("--decks", type=int, default=None, help="Decks in play, 1..8 (default 1).")(func)
    func = click.option("--profile", default="standard", show_default=True,
                        help="Rules profile (see gnau profiles).")(func)
    return func


def bet_option(seat: str) -> Callable[[F], F]:
    """``--bet``, repeatable: once for every ``seat``, or once per ``seat`` in order."""
    return click.option("--bet", "bets", metavar="|".join(BET_NAMES), multiple=True,
                        help=f"The bet (RULES.md 6.1; default {DEFAULT_BET}): once for every {seat[2:]}, or once per "
                             f"{seat} in order.")


def round_options(dealer: bool = True) -> Callable[[F], F]:
    """``--base``, ``--balance`` (repeatable) and, for a table with a dealer,
    ``--bid-multiple`` and ``--dealer-balance`` (RULES.md 6.4-6.5)."""
    def decorate(func: F) -> F:
        if dealer:
            func = click.option("--dealer-balance", type=int, default=None, metavar="N",
                                help="The dealer's balance (under balance_caps table; RULES.md 6.5).")(func)
            func = click.option("--bid-multiple", type=int, default=None, metavar="N",
                                help="The dealer's bid multiple, 1..100 (with --base; RULES.md 6.4).")(func)
        func = click.option("--balance", "balances", type=int, multiple=True, metavar="N",
                            help="A player's balance (under balance caps; RULES.md 6.5): once for every player, "
                                 "or once per player in order.")(func)
        return click.option("--base", type=int, default=None, metavar="N",
                            help="The room's base (RULES.md 6.4): players then give xM, a bet multiple, "
                                 "instead of a stake.")(func)
    return decorate


def with_round(body: dict[str, Any], base: int | None, balances: Sequence[int], bid_multiple: int | None = None,
               dealer_balance: int | None = None) -> dict[str, Any]:
    """``body`` with the round options that were given (the request's check names bad values).

    :raises InputError: another number of ``--balance`` values than one or one per player.
    """
    if base is not None:
        body["base"] = base
    apply_each(body["players"], balances, "balance", "--balance")
    dealer = body.setdefault("dealer", {}) if bid_multiple is not None or dealer_balance is not None else None
    if dealer is not None and bid_multiple is not None:
        dealer["bid_multiple"] = bid_multiple
    if dealer is not None and dealer_balance is not None:
        dealer["balance"] = dealer_balance
    return body


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gnau-scoring", prog_name="gnau")
def cli() -> None:
    """Score Gnau and Niu Niu hands with the reference engine (RULES.md)."""


@cli.command()
@click.argument("cards", nargs=-1, required=True)
@scoring_options
@lang_option
def evaluate(cards: tuple[str, ...], profile: str, decks: int | None, rules: str | None, as_json: bool,
             lang: str | None) -> None:
    """Evaluate one hand of five CARDS, e.g. gnau evaluate AS KH 10D 3C 6S."""
    body = with_options({"hand": split_cards(cards)}, decks, rules)
    result = run(partial(operations.evaluate_hand, with_evaluation=True), body, profile, lang)
    _print(plain(result.body), as_json, lambda data: evaluation_text(data, result.evaluations[0]))


@cli.command()
@click.argument("hands", nargs=-1)
@click.option("--file", "path", metavar="FILE", help="A ranking request body (JSON, - for stdin) instead of HANDS.")
@scoring_options
@lang_option
def rank(hands: tuple[str, ...], path: str | None, profile: str, decks: int | None, rules: str | None,
         as_json: bool, lang: str | None) -> None:
    """Rank 2 or more HANDS, strongest first; each is "CARDS" or "ID:CARDS".

    Example: gnau rank "ann:10S 9H 8D 4C 4H" "bo:JS QH KD JC QD"
    """
    refuse_with_file(path, bool(hands), "HANDS")
    body = read_body(path) if path is not None else {"hands": [parse_ranked_hand(h) for h in hands]}
    _print(answer(operations.rank_hands, with_options(body, decks, rules, path), profile, lang), as_json,
           ranking_text)


@cli.command(name="settle")
@click.option("--dealer", metavar="CARDS", help="The dealer's five cards.")
@click.option("--player", "players", metavar="[ID:]STAKE:CARDS", multiple=True,
              help="A player (repeat for each), e.g. --player 'ann:100:AS KH 10D 3C 6S'; with --base, xM instead "
                   "of the stake: --player 'ann:x3:AS KH 10D 3C 6S'.")
@bet_option("--player")
@round_options()
@click.option("--file", "path", metavar="FILE", help="A settlement request body (JSON, - for stdin); bets go "
              "in it (\"bet\" per player).")
@scoring_options
@lang_option
def settle_command(dealer: str | None, players: tuple[str, ...], bets: tuple[str, ...], base: int | None,
                   balances: tuple[int, ...], bid_multiple: int | None, dealer_balance: int | None, path: str | None,
                   profile: str, decks: int | None, rules: str | None, as_json: bool, lang: str | None) -> None:
    """Settle a round: each player against the dealer (amounts in the stake's unit).

    The table shows each seat's gross result, the house's commission and the amount it
    receives (the dealer's net on its row), then the house's total. Bid for banker
    (RULES.md 6.4): --base with --bid-multiple and xM per player; balances (6.5) under the
    balance_caps knob: --balance per player, --dealer-balance under table caps.
    """
    def table() -> dict[str, Any]:
        return with_round({"dealer": {"hand": split_cards(dealer or "")}, "players": [parse_player(p) for p in players]},
                          base, balances, bid_multiple, dealer_balance)

    rounds = base is not None or bool(balances) or bid_multiple is not None or dealer_balance is not None
    body = table_body(path, dealer is not None or bool(players) or bool(bets) or rounds,
                      table if dealer is not None and players else None, bets,
                      options="--dealer, --player and --bet",
                      missing="--dealer CARDS and at least one --player [ID:]STAKE:CARDS")
    _print(answer(operations.settle_round, with_options(body, decks, rules, path), profile, lang), as_json,
           settlement_text)


@cli.command(name="showdown")
@click.option("--base", type=int, default=None, metavar="N", help="The room's base (RULES.md 6.6).")
@click.option("--player", "players", metavar="[ID:][xM:]CARDS", multiple=True,
              help="A player (repeat for each, two or more), e.g. --player 's1:x2:JS 9H AD 5C 5D' (xM: its bet "
                   "multiple, default 1).")
@click.option("--balance", "balances", type=int, multiple=True, metavar="N",
              help="A player's balance (under balance caps): once for every player, or once per player in order.")
@click.option("--file", "path", metavar="FILE", help="A showdown request body (JSON, - for stdin).")
@scoring_options
@lang_option
def showdown_command(base: int | None, players: tuple[str, ...], balances: tuple[int, ...], path: str | None,
                     profile: str, decks: int | None, rules: str | None, as_json: bool, lang: str | None) -> None:
    """Settle a showdown without a dealer: every hand against every other (RULES.md 6.6).

    The table ranks the hands and shows each player's gross result, the house's commission
    and the amount it receives, then the strongest hands and the house's total.
    """
    def table() -> dict[str, Any]:
        return with_round({"players": [parse_showdown_player(p) for p in players]}, base, balances)

    body = table_body(path, bool(players) or base is not None or bool(balances),
                      table if players and base is not None else None, (),
                      options="--base, --player and --balance", missing="--base N and two or more --player CARDS")
    _print(answer(operations.settle_showdown, with_options(body, decks, rules, path), profile, lang), as_json,
           showdown_text)


@cli.command()
@click.option("--seat", "seats", metavar="[ID:]STAKE", multiple=True,
              help="A player's seat (repeat for each), e.g. --seat p1:1000; with --base, xM: --seat p1:x2.")
@bet_option("--seat")
@round_options()
@click.option("--file", "path", metavar="FILE", help="An exposures request body (JSON, - for stdin).")
@scoring_options
def exposures(seats: tuple[str, ...], bets: tuple[str, ...], base: int | None, balances: tuple[int, ...],
              bid_multiple: int | None, dealer_balance: int | None, path: str | None, profile: str, decks: int | None,
              rules: str | None, as_json: bool) -> None:
    """What each seat and the dealer could lose and win, before the deal (RULES.md 6.3); with
    --base and balances, the largest multiples they allow (6.5)."""
    rounds = base is not None or bool(balances) or bid_multiple is not None or dealer_balance is not None
    body = table_body(path, bool(seats) or bool(bets) or rounds,
                      (lambda: with_round({"players": [parse_seat(seat) for seat in seats]}, base, balances,
                                          bid_multiple, dealer_balance)) if seats else None, bets,
                      options="--seat and --bet", missing="at least one --seat [ID:]STAKE")
    _print(answer(operations.table_exposures, with_options(body, decks, rules, path), profile), as_json,
           exposure_text)


@cli.command(name="odds")
@click.argument("cards", nargs=-1, required=True)
@click.option("--role", type=click.Choice(["player", "dealer"]), default="player", show_default=True,
              help="Whose odds: the player's against the dealer, or the dealer's against --opponents players.")
@click.option("--opponents", type=int, default=None, help="With --role dealer: players faced (default 1).")
@click.option("--dead", metavar="CARDS", multiple=True,
              help="Cards out of play (repeatable: every --dead counts), e.g. --dead 'QS 2H' or --dead QS --dead 2H.")
@scoring_options
@lang_option
def odds_command(cards: tuple[str, ...], role: str, opponents: int | None, dead: tuple[str, ...], profile: str,
                 decks: int | None, rules: str | None, as_json: bool, lang: str | None) -> None:
    """Exact odds from 3, 4 or 5 known CARDS, e.g. gnau odds AS KH 10D 4C.

    No compute budget: it is the caller's own machine.
    """
    body: dict[str, Any] = {"hand": split_cards(cards), "role": role}
    if opponents is not None:
        body["opponents"] = opponents
    if dead:
        body["dead"] = split_cards(dead)
    _print(answer(operations.odds_against_dealer, with_options(body, decks, rules), profile, lang), as_json,
           odds_text)


@cli.command()
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON body instead of a table.")
def profiles(name: str | None, as_json: bool) -> None:
    """List the rules profiles, or show one profile's knobs."""
    reg = registry()
    if name is None:
        _print(operations.list_profiles(reg).body, as_json, profiles_text)
        return
    try:
        dumped = operations.get_profile(name, reg).body
    except UnknownProfileError:
        raise InputError(f"unknown profile {name!r}; the profiles are {', '.join(reg)}") from None
    _print(dumped, as_json, profile_text)


def find_gunicorn_config(explicit: str | None = None) -> Path:
    """The gunicorn config to serve with.

    In order: ``explicit``, ``$GNAU_GUNICORN_CONFIG``, ``./gunicorn.conf.py``, then the
    ``gunicorn.conf.py`` of the checkout this package runs from.

    :raises InputError: none of them exists.
    """
    candidates = [Path(p) for p in (explicit, os.environ.get("GNAU_GUNICORN_CONFIG")) if p]
    candidates += [Path.cwd() / "gunicorn.conf.py", Path(__file__).resolve().parents[2] / "gunicorn.conf.py"]
    for candidate in candidates:
        if candidate.is_file():
            return candidate.resolve()
    raise InputError("cannot find gunicorn.conf.py; pass --config PATH or set GNAU_GUNICORN_CONFIG")


@cli.command()
@click.option("--bind", metavar="HOST:PORT", help="Address to listen on (GNAU_BIND, default 127.0.0.1:8000).")
@click.option("--workers", type=click.IntRange(min=1), help="Worker processes (GNAU_WORKERS, default 2).")
@click.option("--worker-connections", type=click.IntRange(min=10, max=100_000),
              help="Connections each worker holds at once (GNAU_WORKER_CONNECTIONS, default 1000).")
@click.option("--profiles-file", type=click.Path(exists=True, dir_okay=False), help="Operator profiles (PROFILES_FILE).")
@click.option("--config", "config", type=click.Path(dir_okay=False), help="gunicorn config (default: gunicorn.conf.py).")
@click.option("--probe-bind", help="HOST:PORT of the health and readiness listener (GNAU_PROBE_BIND; default: the "
                                   "port after --bind's; empty: none).")
def serve(bind: str | None, workers: int | None, worker_connections: int | None, profiles_file: str | None,
          config: str | None, probe_bind: str | None) -> None:
    """Run the HTTP service under gunicorn with the project's gunicorn.conf.py."""
    path = find_gunicorn_config(config)
    env = dict(os.environ)
    for key, value in (("GNAU_BIND", bind), ("GNAU_WORKERS", workers), ("GNAU_WORKER_CONNECTIONS", worker_connections),
                       ("PROFILES_FILE", profiles_file), ("GNAU_PROBE_BIND", probe_bind)):
        if value is not None:
            env[key] = str(value)
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, "-m", "gunicorn", "-c", str(path)], env)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``gnau`` entry point: run a command, turn every error into one line on stderr.

    :return: the exit status: 0, 2 for bad input or usage, 1 for other failures.
    """
    try:
        result = cli.main(args=list(argv) if argv is not None else None, prog_name="gnau", standalone_mode=False)
    except click.ClickException as exc:
        message = " ".join(exc.format_message().split())
        click.echo(f"gnau: {message}", err=True)
        return exc.exit_code
    except click.Abort:
        click.echo("gnau: aborted", err=True)
        return 1
    except BrokenPipeError:  # e.g. gnau profiles | head -1
        sys.stderr.close()
        return 1
    return result if isinstance(result, int) else 0
