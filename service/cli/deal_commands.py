"""``gnau deal`` and ``gnau verify-deal`` (RULES.md 9.1): the deal operations
(:mod:`service.operations.deals`) from the terminal.

Seeds are secrets until the round ends, so they are never read from the command line
(where shell history and ``ps`` would keep them): both commands read a JSON object from
``--file FILE`` or, without it, from standard input, holding ``server_seed`` and
``client_seed`` (or the whole request body). The options add the other members; a member
given both ways is refused. ``--json`` prints exactly the API's body. ``gnau verify-deal``
exits with status 1 when the deal does not verify (0 when it does, 2 for bad input).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from service import operations
from service.cli.args import InputError, read_body, split_cards
from service.cli.commands import cli, one_line
from service.cli.tables import emit_json, table
from service.errors import InvalidRequestError

__all__ = ["deal_command", "deal_text", "verify_deal_command", "verify_text"]

#: Verification that fails: the command's exit status.
NOT_VERIFIED = 1


def _body(path: str | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """The request body: the JSON object of ``path`` (standard input without one) plus the
    options that were given.

    :raises InputError: unreadable or not strict JSON, or a member given both ways.
    """
    body = read_body(path or "-")
    for name, value in options.items():
        if value is None:
            continue
        if name in body:
            raise InputError(f"{name} is given in {path or 'standard input'} and as --{name.replace('_', '-')}: "
                             "give it once")
        body[name] = value
    return body


def _run(operation: Any, body: dict[str, Any]) -> dict[str, Any]:
    try:
        answer: dict[str, Any] = operation(body, {}).body
    except InvalidRequestError as exc:
        raise InputError(one_line(exc.errors)) from None
    return answer


def deal_text(body: Mapping[str, Any]) -> str:
    """The answer of ``POST /v1/deals`` as a table of hands.

    >>> print(deal_text({"algorithm": "gnau-deal-v1", "commitment": "sha256:ab", "hands": [["AS", "2S"], ["3S", "4S"]]}))
    gnau-deal-v1, commitment sha256:ab
    hand  cards
    0     AS 2S
    1     3S 4S
    """
    rows: list[list[object]] = [["hand", "cards"], *([i, " ".join(hand)] for i, hand in enumerate(body["hands"]))]
    return f"{body['algorithm']}, commitment {body['commitment']}\n{table(rows)}"


def verify_text(body: Mapping[str, Any], given: list[list[str] | None]) -> str:
    """The answer of ``POST /v1/deals/verify`` as a table: each hand given, dealt, matched.

    >>> print(verify_text({"algorithm": "gnau-deal-v1", "commitment_matches": True, "hands_match": [True, None],
    ...                    "match": True, "hands": [["AS"], ["2S"]]}, [["as"], None]))
    gnau-deal-v1, commitment matches: yes
    hand  given  dealt  match
    0     as     AS     yes
    1     -      2S     -
    verified: the commitment and every hand given match
    """
    word = {True: "yes", False: "NO", None: "-"}
    rows: list[list[object]] = [["hand", "given", "dealt", "match"]]
    for i, (hand, dealt, matched) in enumerate(zip(given, body["hands"], body["hands_match"], strict=True)):
        rows.append([i, "-" if hand is None else " ".join(hand), " ".join(dealt), word[matched]])
    verdict = ("verified: the commitment and every hand given match" if body["match"]
               else "NOT VERIFIED: " + ("the commitment does not match" if not body["commitment_matches"]
                                        else "a hand given is not the hand dealt"))
    return f"{body['algorithm']}, commitment matches: {word[body['commitment_matches']]}\n{table(rows)}\n{verdict}"


_FILE_HELP = ("A JSON object with server_seed and client_seed (or the whole request body); without it, "
              "standard input. Seeds are never taken from the command line.")


@cli.command(name="deal")
@click.option("--file", "path", metavar="FILE", help=_FILE_HELP)
@click.option("--nonce", type=int, default=None, help="The round's nonce, 0 to 2^53 - 1.")
@click.option("--hands", type=int, default=None, help="Hands to deal, 2 to floor(52 x decks / 5).")
@click.option("--decks", type=int, default=None, help="Decks in play, 1..8 (default 1).")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON body instead of a table.")
def deal_command(path: str | None, nonce: int | None, hands: int | None, decks: int | None, as_json: bool) -> None:
    """Deal hands from committed seeds (gnau-deal-v1, RULES.md 9.1), as POST /v1/deals.

    Example: gnau deal --file seeds.json --nonce 0 --hands 4
    """
    answer = _run(operations.deal_hands, _body(path, {"nonce": nonce, "hands": hands, "decks": decks}))
    if as_json:
        emit_json(answer)
    else:
        click.echo(deal_text(answer))


def _given(hands: tuple[str, ...]) -> list[list[str] | None] | None:
    """The ``--hand`` options: five cards each, ``-`` for a hand not known."""
    if not hands:
        return None
    return [None if spec.strip() == "-" else split_cards(spec) for spec in hands]


@cli.command(name="verify-deal")
@click.option("--file", "path", metavar="FILE", help=_FILE_HELP)
@click.option("--nonce", type=int, default=None, help="The round's nonce.")
@click.option("--decks", type=int, default=None, help="Decks in play, 1..8 (default 1).")
@click.option("--commitment", default=None, metavar="sha256:HEX", help="The commitment published before the round.")
@click.option("--hand", "hands", metavar="CARDS|-", multiple=True,
              help="A hand as dealt, in order (repeat for each hand of the deal); - for a hand not known.")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON body instead of a table.")
def verify_deal_command(path: str | None, nonce: int | None, decks: int | None, commitment: str | None,
                        hands: tuple[str, ...], as_json: bool) -> int:
    """Check a revealed server seed against its commitment and the hands dealt, as
    POST /v1/deals/verify; exit status 1 when it does not verify.

    Example: gnau verify-deal --file seeds.json --nonce 0 --commitment sha256:630d... --hand "9D 7H 5S 6C 10D" --hand - --hand - --hand -
    """
    body = _body(path, {"nonce": nonce, "decks": decks, "commitment": commitment, "hands": _given(hands)})
    answer = _run(operations.verify_deal, body)
    if as_json:
        emit_json(answer)
    else:
        given = body["hands"]
        click.echo(verify_text(answer, [h if h is None else [str(c) for c in h] for h in given]))
    return 0 if answer["match"] else NOT_VERIFIED
