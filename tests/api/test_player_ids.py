"""Player ids at a table (DECISIONS 10; issue 27): the ids a table gives must differ.

A repeat is a 400 naming the later player (``/players/i/id``; the first one is named in its
detail, never as a pointer) on the three operations whose players carry ids: settlements
(both forms, RULES.md 6.4), exposures and showdowns; the one-pass readers
(:mod:`service.one_pass`) leave such a table to the fields, and the ``gnau`` command answers
alike. Rankings take repeated ids: their entries are hands, each answered with its
``index``. No ``index`` is added to a table's players: ``players[i]`` answers the request's
``players[i]``, so a player without an id is known by its position.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from service.cli import main
from service.one_pass import plain_settlement, plain_showdown

HANDS = [["AS", "KH", "10D", "3C", "6S"], ["2S", "3H", "4D", "5C", "7S"], ["8S", "9H", "JD", "QC", "KS"],
         ["2H", "3D", "4C", "5S", "7H"], ["9S", "9D", "JH", "QH", "KD"]]
DETAIL = "repeats the id of /players/{}: each player's id must be unique"


def settlement(ids: list[str | None], **table: Any) -> dict[str, Any]:
    players = [({"id": i} if i is not None else {}) | {"hand": HANDS[n + 1]} for n, i in enumerate(ids)]
    if "base" in table:
        return {"dealer": {"hand": HANDS[0], "bid_multiple": 2}, "players": players, **table}
    return {"dealer": {"hand": HANDS[0]}, "players": [p | {"stake": 100} for p in players], **table}


def showdown(ids: list[str | None]) -> dict[str, Any]:
    return {"base": 10, "players": [({"id": i} if i is not None else {}) | {"hand": HANDS[n]}
                                    for n, i in enumerate(ids)]}


def exposures(ids: list[str | None]) -> dict[str, Any]:
    return {"players": [({"id": i} if i is not None else {}) | {"stake": 100} for i in ids]}


#: Each covered operation with a table builder.
TABLES = {
    "/v1/settlements": settlement,
    "/v1/settlements#base": lambda ids: settlement(ids, base=10),
    "/v1/showdowns": showdown,
    "/v1/exposures": exposures,
}


def problems(client: FlaskClient, path: str, body: dict[str, Any]) -> list[dict[str, str]]:
    response = client.post(path.split("#")[0], json=body)
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.content_type == "application/problem+json"
    problem = response.get_json()
    assert problem["type"] == "/problems/validation-error"
    errors: list[dict[str, str]] = problem["errors"]
    return errors


@pytest.mark.parametrize("path", TABLES)
def test_a_repeated_id_names_the_second_player(client: FlaskClient, path: str) -> None:
    errors = problems(client, path, TABLES[path](["a", "b", None, "a"]))
    assert errors == [{"pointer": "/players/3/id", "detail": DETAIL.format(0)}]
    assert "/players/0/id" not in {e["pointer"] for e in errors}


@pytest.mark.parametrize("path", TABLES)
def test_every_later_repeat_is_named_once(client: FlaskClient, path: str) -> None:
    errors = problems(client, path, TABLES[path](["a", "a", "b", "a"]))
    assert errors == [{"pointer": "/players/1/id", "detail": DETAIL.format(0)},
                      {"pointer": "/players/3/id", "detail": DETAIL.format(0)}]


@pytest.mark.parametrize("path", TABLES)
def test_distinct_ids_and_missing_ones_are_accepted(client: FlaskClient, path: str) -> None:
    """Players without an id never clash, and ids compare exactly (case counts)."""
    response = client.post(path.split("#")[0], json=TABLES[path]([None, "a", None, "A"]))
    assert response.status_code == 200, response.get_data(as_text=True)
    players = response.get_json()["players"]
    assert [p["id"] for p in players] == [None, "a", None, "A"]
    assert all("index" not in p for p in players)  # players[i] answers players[i]: no index echoed


@pytest.mark.parametrize("path", ["/v1/settlements", "/v1/showdowns"])
def test_a_repeat_is_listed_with_the_tables_other_problems(client: FlaskClient, path: str) -> None:
    body = TABLES[path](["a", "a"])
    body["players"][0]["hand"] = ["AS", "KH", "10D", "3C", "1S"]
    body["decks"] = 0
    assert [e["pointer"] for e in problems(client, path, body)] == ["/decks", "/players/0/hand/4", "/players/1/id"]


def test_the_one_pass_readers_leave_a_repeat_to_the_fields() -> None:
    assert plain_settlement(settlement(["a", "b"])) is not None
    assert plain_settlement(settlement(["a", "a"])) is None
    assert plain_settlement(settlement(["a", "a"], base=10)) is None
    assert plain_showdown(showdown(["a", None, None])) is not None
    assert plain_showdown(showdown(["a", "a"])) is None


def test_rankings_take_repeated_ids_and_answer_each_entry_with_its_index(client: FlaskClient) -> None:
    response = client.post("/v1/rankings", json={"hands": [{"id": "ann", "hand": HANDS[1]}, {"id": "ann", "hand": HANDS[2]}]})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert sorted((e["index"], e["id"]) for e in response.get_json()["ranking"]) == [(0, "ann"), (1, "ann")]


@pytest.mark.parametrize(("args", "pointer"), [
    (["settle", "--dealer", " ".join(HANDS[0]), "--player", f"a:100:{' '.join(HANDS[1])}",
      "--player", f"a:200:{' '.join(HANDS[2])}"], "/players/1/id"),
    (["settle", "--base", "10", "--dealer", " ".join(HANDS[0]), "--player", f"b:x2:{' '.join(HANDS[1])}",
      "--player", f"a:x1:{' '.join(HANDS[2])}", "--player", f"b:x1:{' '.join(HANDS[3])}"], "/players/2/id"),
    (["showdown", "--base", "10", "--player", f"s1:{' '.join(HANDS[1])}", "--player", f"s1:{' '.join(HANDS[2])}"],
     "/players/1/id"),
    (["exposures", "--seat", "p1:1000", "--seat", "p2:10", "--seat", "p1:5"], "/players/2/id"),
])
def test_the_command_refuses_a_repeat_in_the_api_words(capsys: pytest.CaptureFixture[str], args: list[str],
                                                       pointer: str) -> None:
    capsys.readouterr()
    status = main(args)
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert err == f"gnau: {pointer}: {DETAIL.format(0)}\n"
