"""What the ``gnau`` command prints without ``--json``: the API's answers as tables."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import click
import orjson

from service.engine.categories import SPECS, Category
from service.engine.hand import Evaluation

__all__ = ["emit_json", "evaluation_text", "exposure_text", "odds_text", "plain", "profile_text", "profiles_text",
           "ranking_text", "settlement_text", "showdown_text", "table"]


def width(text: str) -> int:
    """The columns ``text`` takes on a terminal: two for a wide or full-width character
    (Unicode's East Asian Width W or F, as 牛 and 五), one for any other.

    >>> width("Single-Ox 7"), width("牛七"), width("炸彈 J")
    (11, 4, 6)
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def table(rows: Sequence[Sequence[object]]) -> str:
    """Rows as left-aligned columns two spaces apart (the first row is the header), padded
    by the columns each cell takes on a terminal (:func:`width`), so Chinese labels line up.

    >>> print(table([["label", "score"], ["牛牛", 10], ["No Ox", 0]]))
    label  score
    牛牛   10
    No Ox  0
    """
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(width(row[i]) for row in cells) for i in range(len(cells[0]))]
    return "\n".join("  ".join(c + " " * (w - width(c)) for c, w in zip(row, widths, strict=True)).rstrip()
                     for row in cells)


def plain(body: Any) -> Any:
    """An answer as plain JSON data: the JSON texts the operations embed for speed
    (``orjson.Fragment``) read back, so the tables can index every member."""
    found: Any = orjson.loads(orjson.dumps(body))
    return found


def emit_json(body: Any) -> None:
    """Print an answer as the API's JSON body, indented."""
    click.echo(orjson.dumps(body, option=orjson.OPT_INDENT_2).decode())


def _flags(e: Mapping[str, Any]) -> str:
    flags = [name for name, on in (("Nenku", e["nenku"]), ("suited", e["suited"])) if on]
    return f" [{', '.join(flags)}]" if flags else ""


def _parts(e: Evaluation) -> list[tuple[str, str]]:
    """Each card's part and points: ``('ox', '7')``, ``('power', '10')`` or ``('-', '-')``,
    from the formations' positions in the hand."""
    parts: dict[int, tuple[str, str]] = {}
    for name, formation in (("ox", e.ox), ("power", e.power)):
        if formation is not None:
            parts.update((i, (name, str(points))) for i, points in zip(formation.positions, formation.points, strict=True))
    return [parts.get(i, ("-", "-")) for i in range(len(e.hand))]


def _sums(e: Mapping[str, Any]) -> str:
    if e["ox"] is None:
        spec = SPECS[Category(e["category"])]
        return "no ox formation: " + ("no three cards make a multiple of 10" if spec.knob is None
                                      else f"{e['label']} needs none")
    ox, power = e["ox"]["points"], e["power"]["points"]
    return (f"ox {' + '.join(map(str, ox))} = {sum(ox)}; "
            f"power {' + '.join(map(str, power))} = {sum(power)}")


def evaluation_text(body: Mapping[str, Any], evaluation: Evaluation) -> str:
    """The ``evaluate`` table: headline, one row per card (its part from ``evaluation``),
    the sums."""
    head = (f"{' '.join(body['hand'])}: {body['label']}{_flags(body)}, pays {body['payout']}x "
            f"(profile {body['profile']})")
    rows: list[Sequence[object]] = [("card", "part", "points")]
    rows += [(card, part, points) for card, (part, points) in zip(body["hand"], _parts(evaluation), strict=True)]
    return f"{head}\n{table(rows)}\n{_sums(body)}"


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
    return f"profile {body['profile']}\n{table(rows)}"


def _factors(p: Mapping[str, Any]) -> str:
    """A stake's factors as ``base x bid x bet`` (RULES.md 6.4), or ``-``."""
    f = p.get("factors")
    return "-" if f is None else f"{f['base']}x{f['bid_multiple']}x{f['bet_multiple']}"


def _money(seats: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[Any]]:
    """The optional columns of a table's seats, present when the answer has them (RULES.md
    6.4-6.6): the stake's factors, the gross before caps and the cap. Returns their headers
    and, per seat, a getter row."""
    heads: list[str] = []
    if any("factors" in p for p in seats):
        heads.append("factors")
    if any("gross_uncapped" in p for p in seats):
        heads += ["uncapped", "cap"]
    return heads, [[_factors(p) if h == "factors" else f"{p['gross_uncapped']:+d}" if h == "uncapped"
                    else (p["cap"] or "-") for h in heads] for p in seats]


def _hand_cells(e: Mapping[str, Any]) -> list[object]:
    return [" ".join(e["hand"]), e["label"] + _flags(e), _formation_text(e, "ox"), _formation_text(e, "power"),
            f"{e['payout']}x"]


def settlement_text(body: Mapping[str, Any]) -> str:
    """The ``settle`` table: the dealer, then each player's result, then the house's take.

    Money columns (RULES.md section 6.2): ``gross`` before commission, ``commission`` to
    the house, ``amount`` what the seat receives (the dealer's net on the dealer's row). A
    table with ``base`` adds each stake's ``factors`` and the dealer's sweep; one under
    balance caps the gross before caps (``uncapped``) and the ``cap`` (RULES.md 6.4-6.5).
    """
    dealer, players = body["dealer"], body["players"]
    extra, cells = _money(players)
    rows: list[Sequence[object]] = [("seat", "hand", "label", "ox (points)", "power (points)", "payout", "stake",
                                     "bet", "outcome", *extra, "gross", "commission", "amount")]
    rows.append(("dealer", *_hand_cells(dealer["evaluation"]), "", "", "", *[""] * len(extra),
                 f"{dealer['gross']:+d}", dealer["commission"], f"{dealer['net']:+d}"))
    for i, (p, more) in enumerate(zip(players, cells, strict=True)):
        rows.append((p["id"] if p["id"] is not None else f"#{i}", *_hand_cells(p["evaluation"]), p["stake"],
                     p["bet"], p["outcome"], *more, f"{p['gross']:+d}", p["commission"], f"{p['amount']:+d}"))
    sweep = f"\ndealer sweep {dealer['sweep'] or '-'}" if "sweep" in dealer else ""
    return f"profile {body['profile']}\n{table(rows)}\nhouse (commission) {body['house']}{sweep}"


def showdown_text(body: Mapping[str, Any]) -> str:
    """The ``showdown`` table (RULES.md 6.6): each player strongest first, its position, gross
    result (before and after caps, and the cap, under caps), commission and amount; then the
    strongest hands and the house's take."""
    players = body["players"]
    extra, cells = _money(players)
    rows: list[Sequence[object]] = [("pos", "seat", "hand", "label", "ox (points)", "power (points)", "payout",
                                     "stake", "multiple", *extra, "gross", "commission", "amount")]
    for entry in body["ranking"]:
        i = entry["index"]
        p = players[i]
        rows.append((entry["position"], p["id"] if p["id"] is not None else f"#{i}", *_hand_cells(p["evaluation"]),
                     p["stake"], f"x{p['bet_multiple']}", *cells[i], f"{p['gross']:+d}", p["commission"],
                     f"{p['amount']:+d}"))
    strongest = ", ".join(e["id"] if e["id"] is not None else f"#{e['index']}" for e in body["strongest"])
    return (f"profile {body['profile']}, base {body['base']}\n{table(rows)}\nstrongest {strongest}\n"
            f"house (commission) {body['house']}")


def exposure_text(body: Mapping[str, Any]) -> str:
    """The ``exposures`` table: each seat's and the dealer's most to lose and to win; with
    balances, the largest multiples they allow (RULES.md 6.5)."""
    dealer, players = body["dealer"], body["players"]
    factors = any("factors" in p for p in players)
    multiples = "max_bid_multiple" in dealer or any("max_bet_multiple" in p for p in players)
    rows: list[Sequence[object]] = [("seat", "stake", *(["factors"] if factors else []), "bet", "max loss", "max win",
                                     *(["max multiple"] if multiples else []))]
    x = dealer["exposure"]
    rows.append(("dealer", "", *([""] if factors else []), "", x["max_loss"], x["max_win"],
                 *([dealer.get("max_bid_multiple", "-")] if multiples else [])))
    for i, p in enumerate(players):
        x = p["exposure"]
        rows.append((p["id"] if p["id"] is not None else f"#{i}", p["stake"], *([_factors(p)] if factors else []),
                     p["bet"], x["max_loss"], x["max_win"], *([p.get("max_bet_multiple", "-")] if multiples else [])))
    return f"profile {body['profile']}, max payout {body['max_payout']}x\n{table(rows)}"


def odds_text(body: Mapping[str, Any]) -> str:
    """The odds answer as a few lines and a table of the final hands."""
    side = "dealer against one player" if body["role"] == "dealer" else "player against the dealer"
    lines = [f"{body['known']} known cards, {body['completions']:,} completions, {body['deals']:,} deals "
             f"({side}; profile {body['profile']}, {body['decks']} deck(s), {body['cards_left']} cards left)"]
    for name in ("win", "lose", "push"):
        lines.append(f"{name:5} {body[name]['probability']:.6f}  ({body[name]['fraction']})")
    lines.append(f"expected net per unit stake {body['expected_net']['value']:+.6f}  ({body['expected_net']['fraction']}; "
                 "double bet, after commission)")
    for bet, e in body["bets"].items():
        lines.append(f"{bet} bet: gross {e['expected_gross']['value']:+.6f}, commission "
                     f"{e['expected_commission']['value']:.6f}, net {e['expected_net']['value']:+.6f}")
    if body["role"] == "dealer":
        lines.append(f"round against {body['opponents']} player(s): {body['round_expected_net']['value']:+.6f}  "
                     f"({body['round_expected_net']['fraction']})")
    rows: list[list[object]] = [["final hand", "probability", "fraction", "cards"]]
    rows.extend([o["label"], f"{o['probability']:.6f}", o["fraction"], " ".join(o.get("cards", []))]
                for o in body["outcomes"])
    return "\n".join(lines) + "\n" + table(rows)


def profiles_text(listing: Mapping[str, Any]) -> str:
    """The ``profiles`` table: name, built-in, base and description of each."""
    rows: list[Sequence[object]] = [("name", "builtin", "extends", "description")]
    rows += [(p["name"], "yes" if p["builtin"] else "no", p["extends"] or "-", p["description"])
             for p in listing["profiles"]]
    return table(rows)


def profile_text(dumped: Mapping[str, Any]) -> str:
    """The ``profiles NAME`` table: every knob of one profile and its ``max_payout``."""
    knobs = [(k, json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v)
             for k, v in dumped["rules"].items()]
    return (f"{dumped['name']}: {dumped['description']}\n{table([('knob', 'value'), *knobs])}\n"
            f"max payout {dumped['max_payout']}x")
