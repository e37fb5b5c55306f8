"""``gnau``: score hands from the terminal with the engine (no server needed).

Commands: ``evaluate``, ``rank``, ``settle``, ``exposures``, ``odds``, ``profiles`` and ``serve``. The scoring
commands take ``--profile`` (default ``standard``), ``--decks`` (1..8) and ``--rules`` (a
JSON object of knob overrides, RULES.md section 7), and build the same request body the
API takes, so they check it with the API's own schemas and answer with the API's own body
under ``--json``. Without ``--json`` they print a table: each card's part (ox or power) and
the points it took, the label and the payout.

Bad input ends the command with exit status 2 and one line on stderr naming every problem
by its JSON pointer into the request body (``/hand/1: 'XX' is not a card ...``), never a
traceback. Profiles come from the built-ins plus the operator's ``PROFILES_FILE``, as in
the service.

>>> from click.testing import CliRunner
>>> print(CliRunner().invoke(cli, ["evaluate", "10S", "7H", "3D", "KC", "7D"]).output, end="")
10S 7H 3D KC 7D: Single-Ox 0, pays 1x (profile standard)
card  part   points
10S   power  10
7H    ox     7
3D    ox     6
KC    power  10
7D    ox     7
ox 7 + 6 + 7 = 20; power 10 + 10 = 20
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
import orjson
from marshmallow import Schema

from service.engine.evaluate import evaluator
from service.engine.rules import Profile
from service.problems import ErrorItem
from service.profiles import ProfileRegistry, ProfilesFileError, load_profiles_file
from service.schemas import (
    EvaluationRequestSchema,
    ExposureRequestSchema,
    ProfileListSchema,
    ProfileSchema,
    RankingRequestSchema,
    SettlementRequestSchema,
)
from service.scoring import Scoring, cards, exposure_answer, load_body, ranking_answer, settlement_answer
from service.serialize import evaluation_dict

__all__ = ["InputError", "apply_bets", "cli", "main", "parse_player", "parse_seat", "split_cards"]

F = TypeVar("F", bound=Callable[..., Any])

#: Exit status for bad input (as for a usage error).
BAD_INPUT = 2


class InputError(click.ClickException):
    """Bad input: reported as one line, exit status 2."""

    exit_code = BAD_INPUT


# --------------------------------------------------------------------------------------
# Parsing the command line into API request bodies.


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


# --------------------------------------------------------------------------------------
# Scoring: the same checks and the same answer bodies as the API (service.views).


def registry() -> ProfileRegistry:
    """The built-in profiles plus the operator's ``PROFILES_FILE``, as the service loads them.

    :raises InputError: the profiles file is invalid.
    """
    path = os.environ.get("PROFILES_FILE") or None
    try:
        return ProfileRegistry(load_profiles_file(path) if path else [])
    except ProfilesFileError as exc:
        raise InputError(f"PROFILES_FILE: {exc}") from None


def _one_line(errors: list[ErrorItem]) -> str:
    return "; ".join(f"{e['pointer'] or '(body)'}: {e['detail']}" if "pointer" in e
                     else f"--{e['parameter']}: {e['detail']}" for e in errors)


def load_request(schema: Schema, body: dict[str, Any], profile_name: str) -> Scoring:
    """Check a request body as the API does (:func:`service.scoring.load_body`).

    :raises InputError: naming every problem, one line.
    """
    errors: list[ErrorItem] = []
    scoring = load_body(schema, body, profile_name, registry(), errors, profiles_hint="gnau profiles")
    if scoring is None:
        raise InputError(_one_line(errors))
    return scoring


def evaluation_body(body: dict[str, Any], profile: str) -> dict[str, Any]:
    """The answer of ``POST /v1/evaluations?profile=...`` to ``body``."""
    s = load_request(EvaluationRequestSchema(), body, profile)
    return s.context | evaluation_dict(evaluator(s.rules)(cards(s.data["hand"])))


def ranking_body(body: dict[str, Any], profile: str) -> dict[str, Any]:
    """The answer of ``POST /v1/rankings?profile=...`` to ``body``."""
    return ranking_answer(load_request(RankingRequestSchema(), body, profile))[0]


def settlement_body(body: dict[str, Any], profile: str) -> dict[str, Any]:
    """The answer of ``POST /v1/settlements?profile=...`` to ``body``."""
    return settlement_answer(load_request(SettlementRequestSchema(), body, profile))[0]


def exposure_body(body: dict[str, Any], profile: str) -> dict[str, Any]:
    """The answer of ``POST /v1/exposures?profile=...`` to ``body``."""
    return exposure_answer(load_request(ExposureRequestSchema(), body, profile))


# --------------------------------------------------------------------------------------
# Output.


def _table(rows: Sequence[Sequence[object]]) -> str:
    """Rows as left-aligned columns two spaces apart (the first row is the header)."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells)


def _emit_json(body: Any) -> None:
    click.echo(orjson.dumps(body, option=orjson.OPT_INDENT_2).decode())


def _flags(e: Mapping[str, Any]) -> str:
    flags = [name for name, on in (("Nenku", e["nenku"]), ("suited", e["suited"])) if on]
    return f" [{', '.join(flags)}]" if flags else ""


def _parts(e: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each card's part and points: ``('ox', '7')``, ``('power', '10')`` or ``('-', '-')``."""
    parts: dict[int, tuple[str, str]] = {}
    for name in ("ox", "power"):
        formation = e[name]
        if formation is None:
            continue
        remaining = list(range(len(e["hand"])))
        for card, points in zip(formation["cards"], formation["points"], strict=True):
            i = next(i for i in remaining if e["hand"][i] == card and i not in parts)
            remaining.remove(i)
            parts[i] = (name, str(points))
    return [parts.get(i, ("-", "-")) for i in range(len(e["hand"]))]


def _sums(e: Mapping[str, Any]) -> str:
    if e["ox"] is None:
        return "no ox formation: " + {"no_ox": "no three cards make a multiple of 10",
                                      "five_small": "Five Small needs none",
                                      "bomb": "a Bomb needs none"}.get(e["category"], "none")
    ox, power = e["ox"]["points"], e["power"]["points"]
    return (f"ox {' + '.join(map(str, ox))} = {sum(ox)}; "
            f"power {' + '.join(map(str, power))} = {sum(power)}")


def evaluation_text(body: Mapping[str, Any]) -> str:
    """The ``evaluate`` table: headline, one row per card, the sums."""
    head = (f"{' '.join(body['hand'])}: {body['label']}{_flags(body)}, pays {body['payout']}x "
            f"(profile {body['profile']})")
    rows: list[Sequence[object]] = [("card", "part", "points")]
    rows += [(card, part, points) for card, (part, points) in zip(body["hand"], _parts(body), strict=True)]
    return f"{head}\n{_table(rows)}\n{_sums(body)}"


def _formation_text(e: Mapping[str, Any], name: str) -> str:
    f = e[name]
    if f is None:
        return "-"
    return " ".join(f"{c}={p}" for c, p in zip(f["cards"], f["points"], strict=True))


def ranking_text(body: Mapping[str, Any]) -> str:
    """The ``rank`` table, strongest first."""
    rows: list[Sequence[object]] = [("pos", "id", "hand", "label", "ox (points)", "power (points)", "payout")]
    for r in body["ranking"]:
        e = r["evaluation"]
        rows.append((r["position"], r["id"] if r["id"] is not None else f"#{r['index']}", " ".join(e["hand"]),
                     e["label"] + _flags(e), _formation_text(e, "ox"), _formation_text(e, "power"),
                     f"{e['payout']}x"))
    return f"profile {body['profile']}\n{_table(rows)}"


def settlement_text(body: Mapping[str, Any]) -> str:
    """The ``settle`` table: the dealer, then each player's result, then the house's take.

    Money columns (RULES.md section 6.2): ``gross`` before commission, ``commission`` to
    the house, ``amount`` what the seat receives (the dealer's net on the dealer's row).
    """
    dealer = body["dealer"]
    d = dealer["evaluation"]
    rows: list[Sequence[object]] = [("seat", "hand", "label", "ox (points)", "power (points)", "payout", "stake",
                                     "bet", "outcome", "gross", "commission", "amount")]
    rows.append(("dealer", " ".join(d["hand"]), d["label"] + _flags(d), _formation_text(d, "ox"),
                 _formation_text(d, "power"), f"{d['payout']}x", "", "", "", f"{dealer['gross']:+d}",
                 dealer["commission"], f"{dealer['net']:+d}"))
    for i, p in enumerate(body["players"]):
        e = p["evaluation"]
        rows.append((p["id"] if p["id"] is not None else f"#{i}", " ".join(e["hand"]), e["label"] + _flags(e),
                     _formation_text(e, "ox"), _formation_text(e, "power"), f"{e['payout']}x", p["stake"],
                     p["bet"], p["outcome"], f"{p['gross']:+d}", p["commission"], f"{p['amount']:+d}"))
    return f"profile {body['profile']}\n{_table(rows)}\nhouse (commission) {body['house']}"


def exposure_text(body: Mapping[str, Any]) -> str:
    """The ``exposures`` table: each seat's and the dealer's most to lose and to win."""
    rows: list[Sequence[object]] = [("seat", "stake", "bet", "max loss", "max win")]
    dealer = body["dealer"]["exposure"]
    rows.append(("dealer", "", "", dealer["max_loss"], dealer["max_win"]))
    for i, p in enumerate(body["players"]):
        x = p["exposure"]
        rows.append((p["id"] if p["id"] is not None else f"#{i}", p["stake"], p["bet"], x["max_loss"], x["max_win"]))
    return f"profile {body['profile']}, max payout {body['max_payout']}x\n{_table(rows)}"


# --------------------------------------------------------------------------------------
# Commands.


def scoring_options(func: F) -> F:
    """``--profile``, ``--decks``, ``--rules`` and ``--json``."""
    func = click.option("--json", "as_json", is_flag=True, help="Print the API's JSON body instead of a table.")(func)
    func = click.option("--rules", metavar="JSON",
                        help='Knob overrides for this call, e.g. \'{"three_six_swap": false}\'.')(func)
    func = click.option("--decks", type=int, default=None, help="Decks in play, 1..8 (default 1).")(func)
    func = click.option("--profile", default="standard", show_default=True,
                        help="Rules profile (see gnau profiles).")(func)
    return func


def _with_options(body: dict[str, Any], decks: int | None, rules: str | None) -> dict[str, Any]:
    if decks is not None:
        body["decks"] = decks
    overrides = parse_rules(rules)
    if overrides is not None:
        body["rules"] = overrides
    return body


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gnau-scoring", prog_name="gnau")
def cli() -> None:
    """Score Gnau and Niu Niu hands with the reference engine (RULES.md)."""


@cli.command()
@click.argument("cards", nargs=-1, required=True)
@scoring_options
def evaluate(cards: tuple[str, ...], profile: str, decks: int | None, rules: str | None, as_json: bool) -> None:
    """Evaluate one hand of five CARDS, e.g. gnau evaluate AS KH 10D 3C 6S."""
    body = evaluation_body(_with_options({"hand": split_cards(cards)}, decks, rules), profile)
    if as_json:
        _emit_json(body)
    else:
        click.echo(evaluation_text(body))


@cli.command()
@click.argument("hands", nargs=-1)
@click.option("--file", "path", metavar="FILE", help="A ranking request body (JSON, - for stdin) instead of HANDS.")
@scoring_options
def rank(hands: tuple[str, ...], path: str | None, profile: str, decks: int | None, rules: str | None,
         as_json: bool) -> None:
    """Rank 2 or more HANDS, strongest first; each is "CARDS" or "ID:CARDS".

    Example: gnau rank "ann:10S 9H 8D 4C 4H" "bo:JS QH KD JC QD"
    """
    if path is not None and hands:
        raise InputError("give HANDS or --file, not both")
    body = read_body(path) if path is not None else {"hands": [parse_ranked_hand(h) for h in hands]}
    body = ranking_body(_with_options(body, decks, rules), profile)
    if as_json:
        _emit_json(body)
    else:
        click.echo(ranking_text(body))


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


@cli.command(name="settle")
@click.option("--dealer", metavar="CARDS", help="The dealer's five cards.")
@click.option("--player", "players", metavar="[ID:]STAKE:CARDS", multiple=True,
              help="A player (repeat for each), e.g. --player 'ann:100:AS KH 10D 3C 6S'.")
@click.option("--bet", "bets", metavar="double|equal", multiple=True,
              help="The bet (RULES.md 6.1; default double): once for every player, or once per --player in order.")
@click.option("--file", "path", metavar="FILE", help="A settlement request body (JSON, - for stdin); bets go "
              "in it (\"bet\" per player).")
@scoring_options
def settle_command(dealer: str | None, players: tuple[str, ...], bets: tuple[str, ...], path: str | None,
                   profile: str, decks: int | None, rules: str | None, as_json: bool) -> None:
    """Settle a round: each player against the dealer (amounts in the stake's unit).

    The table shows each seat's gross result, the house's commission and the amount it
    receives (the dealer's net on its row), then the house's total.
    """
    if path is not None and (dealer is not None or players or bets):
        raise InputError("give --dealer, --player and --bet, or --file, not both")
    if path is not None:
        body = read_body(path)
    elif dealer is None or not players:
        raise InputError("give --dealer CARDS and at least one --player [ID:]STAKE:CARDS (or --file)")
    else:
        body = {"dealer": {"hand": split_cards(dealer)}, "players": [parse_player(p) for p in players]}
        apply_bets(body["players"], bets)
    body = settlement_body(_with_options(body, decks, rules), profile)
    if as_json:
        _emit_json(body)
    else:
        click.echo(settlement_text(body))


def odds_body(body: dict[str, Any], profile: str) -> dict[str, Any]:
    """The answer of ``POST /v1/odds?profile=...`` to ``body`` (no compute budget: it is
    the caller's own machine)."""
    from service.analysis_views import OddsRequestSchema, odds_answer

    s = load_request(OddsRequestSchema(), body, profile)
    return odds_answer(s.rules, s.context, s.data)


def odds_text(body: Mapping[str, Any]) -> str:
    """The odds answer as a few lines and a table of the final hands."""
    side = "dealer against one player" if body["role"] == "dealer" else "player against the dealer"
    lines = [f"{body['known']} known cards, {body['completions']:,} completions, {body['deals']:,} deals "
             f"({side}; profile {body['profile']}, {body['decks']} deck(s), {body['cards_left']} cards left)"]
    for name in ("win", "lose", "push"):
        lines.append(f"{name:5} {body[name]['probability']:.6f}  ({body[name]['fraction']})")
    lines.append(f"expected net per unit stake {body['expected_net']['value']:+.6f}  ({body['expected_net']['fraction']})")
    if body["role"] == "dealer":
        lines.append(f"round against {body['opponents']} player(s): {body['round_expected_net']['value']:+.6f}  "
                     f"({body['round_expected_net']['fraction']})")
    rows: list[list[object]] = [["final hand", "probability", "fraction", "cards"]]
    rows.extend([o["label"], f"{o['probability']:.6f}", o["fraction"], " ".join(o.get("cards", []))]
                for o in body["outcomes"])
    return "\n".join(lines) + "\n" + _table(rows)


@cli.command(name="odds")
@click.argument("cards", nargs=-1, required=True)
@click.option("--role", type=click.Choice(["player", "dealer"]), default="player", show_default=True,
              help="Whose odds: the player's against the dealer, or the dealer's against --opponents players.")
@click.option("--opponents", type=int, default=None, help="With --role dealer: players faced (default 1).")
@click.option("--dead", metavar="CARDS", default=None, help="Cards out of play, e.g. --dead 'QS 2H'.")
@scoring_options
def odds_command(cards: tuple[str, ...], role: str, opponents: int | None, dead: str | None, profile: str,
                 decks: int | None, rules: str | None, as_json: bool) -> None:
    """Exact odds from 3, 4 or 5 known CARDS, e.g. gnau odds AS KH 10D 4C."""
    body: dict[str, Any] = {"hand": split_cards(cards), "role": role}
    if opponents is not None:
        body["opponents"] = opponents
    if dead is not None:
        body["dead"] = split_cards(dead)
    answer = odds_body(_with_options(body, decks, rules), profile)
    if as_json:
        _emit_json(answer)
    else:
        click.echo(odds_text(answer))


@cli.command()
@click.option("--seat", "seats", metavar="[ID:]STAKE", multiple=True,
              help="A player's seat (repeat for each), e.g. --seat p1:1000.")
@click.option("--bet", "bets", metavar="double|equal", multiple=True,
              help="The bet (default double): once for every seat, or once per --seat in order.")
@click.option("--file", "path", metavar="FILE", help="An exposures request body (JSON, - for stdin).")
@scoring_options
def exposures(seats: tuple[str, ...], bets: tuple[str, ...], path: str | None, profile: str, decks: int | None,
              rules: str | None, as_json: bool) -> None:
    """What each seat and the dealer could lose and win, before the deal (RULES.md 6.3)."""
    if path is not None and (seats or bets):
        raise InputError("give --seat and --bet, or --file, not both")
    if path is not None:
        body = read_body(path)
    elif not seats:
        raise InputError("give at least one --seat [ID:]STAKE (or --file)")
    else:
        body = {"players": [parse_seat(seat) for seat in seats]}
        apply_bets(body["players"], bets)
    body = exposure_body(_with_options(body, decks, rules), profile)
    if as_json:
        _emit_json(body)
    else:
        click.echo(exposure_text(body))


@cli.command()
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON body instead of a table.")
def profiles(name: str | None, as_json: bool) -> None:
    """List the rules profiles, or show one profile's knobs."""
    reg = registry()
    if name is None:
        listing: dict[str, Any] = ProfileListSchema().dump({"profiles": list(reg.values())})
        if as_json:
            _emit_json(listing)
            return
        rows: list[Sequence[object]] = [("name", "builtin", "extends", "description")]
        rows += [(p["name"], "yes" if p["builtin"] else "no", p["extends"] or "-", p["description"])
                 for p in listing["profiles"]]
        click.echo(_table(rows))
        return
    profile: Profile | None = reg.get(name)
    if profile is None:
        raise InputError(f"unknown profile {name!r}; the profiles are {', '.join(reg)}")
    dumped: dict[str, Any] = ProfileSchema().dump(profile)
    if as_json:
        _emit_json(dumped)
        return
    knobs = [(k, json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v)
             for k, v in dumped["rules"].items()]
    click.echo(f"{dumped['name']}: {dumped['description']}\n{_table([('knob', 'value'), *knobs])}\n"
               f"max payout {dumped['max_payout']}x")


def find_gunicorn_config(explicit: str | None = None) -> Path:
    """The gunicorn config to serve with.

    In order: ``explicit``, ``$GNAU_GUNICORN_CONFIG``, ``./gunicorn.conf.py``, then the
    ``gunicorn.conf.py`` of the checkout this package runs from.

    :raises InputError: none of them exists.
    """
    candidates = [Path(p) for p in (explicit, os.environ.get("GNAU_GUNICORN_CONFIG")) if p]
    candidates += [Path.cwd() / "gunicorn.conf.py", Path(__file__).resolve().parent.parent / "gunicorn.conf.py"]
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
def serve(bind: str | None, workers: int | None, worker_connections: int | None, profiles_file: str | None,
          config: str | None) -> None:
    """Run the HTTP service under gunicorn with the project's gunicorn.conf.py."""
    path = find_gunicorn_config(config)
    env = dict(os.environ)
    for key, value in (("GNAU_BIND", bind), ("GNAU_WORKERS", workers), ("GNAU_WORKER_CONNECTIONS", worker_connections),
                       ("PROFILES_FILE", profiles_file)):
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
