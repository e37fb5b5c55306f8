"""The ``gnau`` command: it agrees with the API on every RULES.md section 8 row, prints the
API's body under ``--json``, and rejects bad input with one line and exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from bench.harness import ROOT, free_port, stop
from tests.api.helpers import gnau, gnau_json, post
from tests.engine.cases import (
    COMMISSION_ROUNDS,
    NIU_NIU_ROWS,
    OVERRIDE_ROWS,
    SETTLEMENTS,
    SHAPE_ROWS,
    STANDARD_ROWS,
    hand,
)

GNAU = Path(sys.executable).with_name("gnau")


@pytest.mark.parametrize(("cards", "label", "nenku", "overrides", "other"), STANDARD_ROWS,
                         ids=[row[0] for row in STANDARD_ROWS])
def test_evaluate_agrees_with_the_api_on_every_standard_row(
        capsys: pytest.CaptureFixture[str], client: FlaskClient, cards: str, label: str, nenku: bool,
        overrides: dict[str, Any] | None, other: str | None) -> None:
    body = gnau_json(capsys, "evaluate", *hand(cards))
    assert body == post(client, "/v1/evaluations", {"hand": hand(cards)})
    assert (body["label"], body["nenku"]) == (label, nenku)
    status, text, _ = gnau(capsys, "evaluate", cards)  # one argument works too
    assert status == 0
    assert text.startswith(f"{' '.join(hand(cards))}: {label}{' [Nenku]' if nenku else ''}, pays ")
    if overrides is not None:
        varied = gnau_json(capsys, "evaluate", *hand(cards), "--rules", json.dumps(overrides))
        assert varied == post(client, "/v1/evaluations", {"hand": hand(cards), "rules": overrides})
        assert varied["label"] == other


@pytest.mark.parametrize(("cards", "niu_niu", "standard"), NIU_NIU_ROWS, ids=[row[0] for row in NIU_NIU_ROWS])
def test_evaluate_agrees_with_the_api_on_every_niu_niu_row(
        capsys: pytest.CaptureFixture[str], client: FlaskClient, cards: str, niu_niu: str, standard: str) -> None:
    for profile, label in (("niu-niu", niu_niu), ("standard", standard)):
        body = gnau_json(capsys, "evaluate", *hand(cards), "--profile", profile)
        assert body == post(client, "/v1/evaluations", {"hand": hand(cards)}, profile)
        assert (body["profile"], body["label"]) == (profile, label)


@pytest.mark.parametrize(("cards", "label", "key", "chinese", "payout", "niu_label", "niu_payout"), SHAPE_ROWS,
                         ids=[row[0] for row in SHAPE_ROWS])
def test_evaluate_agrees_with_the_api_on_every_poker_shape_row(
        capsys: pytest.CaptureFixture[str], client: FlaskClient, cards: str, label: str, key: str, chinese: str,
        payout: int, niu_label: str, niu_payout: int) -> None:
    """RULES.md 8's poker-shaped rows through gnau, the zh-Hans column with --lang."""
    body = gnau_json(capsys, "evaluate", *hand(cards), "--profile", "niu-niu-plus")
    assert body == post(client, "/v1/evaluations", {"hand": hand(cards)}, "niu-niu-plus")
    assert (body["label"], body["label_key"], body["payout"]) == (label, key, payout)
    chinese_body = gnau_json(capsys, "evaluate", *hand(cards), "--profile", "niu-niu-plus", "--lang", "zh-Hans")
    assert chinese_body == client.post("/v1/evaluations?profile=niu-niu-plus&lang=zh-Hans",
                                    json={"hand": hand(cards)}).get_json()
    assert (chinese_body["label"], chinese_body["label_key"]) == (chinese, key)
    status, text, _ = gnau(capsys, "evaluate", cards, "--profile", "niu-niu-plus", "--lang", "zh-Hans")
    assert status == 0
    first = text.splitlines()[0]
    assert first.startswith(f"{' '.join(hand(cards))}: {chinese}")
    assert first.endswith(f", pays {payout}x (profile niu-niu-plus)")
    niu = gnau_json(capsys, "evaluate", *hand(cards), "--profile", "niu-niu")
    assert (niu["label"], niu["payout"]) == (niu_label, niu_payout)


@pytest.mark.parametrize(("profile", "overrides", "cards", "label", "key", "chinese", "payout"), OVERRIDE_ROWS,
                         ids=[f"{row[0]}-{row[2]}" for row in OVERRIDE_ROWS])
def test_evaluate_agrees_with_the_api_on_the_override_and_bull_bull_rows(
        capsys: pytest.CaptureFixture[str], client: FlaskClient, profile: str, overrides: dict[str, Any], cards: str,
        label: str, key: str, chinese: str | None, payout: int | None) -> None:
    args = ["evaluate", *hand(cards), "--profile", profile, "--rules", json.dumps(overrides)]
    body = gnau_json(capsys, *args)
    assert body == post(client, "/v1/evaluations", {"hand": hand(cards), "rules": overrides}, profile)
    assert (body["label"], body["label_key"]) == (label, key)
    if chinese is not None:
        assert gnau_json(capsys, *args, "--lang", "zh-Hans")["label"] == chinese


def test_lang_is_checked_like_the_api(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = gnau(capsys, "evaluate", "10S 7H 3D KC 7D", "--lang", "fr")
    assert status != 0
    assert err.startswith("gnau: --lang: must be one of en, zh-Hans, zh-Hant")
    status, out, _ = gnau(capsys, "evaluate", "10S 7H 3D KC 7D", "--lang", "zh-tw")  # BCP 47 aliases, any case
    assert status == 0
    assert out.startswith("10S 7H 3D KC 7D: 牛牛, pays 1x")


def test_evaluate_table_shows_each_cards_part_and_points(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = gnau(capsys, "evaluate", "3s", "6♥", "8D", "4C", "8h", "--profile", "casino")
    assert status == 0
    assert out.splitlines() == [
        "3S 6H 8D 4C 8H: Double-Ox 8, pays 3x (profile casino)",
        "card  part   points",
        "3S    ox     3",
        "6H    ox     3",  # the 6 counted as 3: 3 + 3 + 4 = 10
        "8D    power  8",
        "4C    ox     4",
        "8H    power  8",
        "ox 3 + 3 + 4 = 10; power 8 + 8 = 16",
    ]


@pytest.mark.parametrize(("profile", "decks", "dealer", "players", "amounts", "outcomes"), SETTLEMENTS,
                         ids=[f"{row[0]}-{row[2]}" for row in SETTLEMENTS])
def test_settle_agrees_with_the_api(
        capsys: pytest.CaptureFixture[str], client: FlaskClient, profile: str, decks: int, dealer: str,
        players: list[tuple[str, int]], amounts: list[int], outcomes: list[str]) -> None:
    args = ["settle", "--dealer", dealer, "--profile", profile, "--decks", str(decks)]
    for i, (cards, stake) in enumerate(players):
        args += ["--player", f"p{i}:{stake}:{cards}"]
    body = gnau_json(capsys, *args)
    request = {"dealer": {"hand": hand(dealer)}, "decks": decks,
               "players": [{"id": f"p{i}", "hand": hand(c), "stake": s} for i, (c, s) in enumerate(players)]}
    assert body == post(client, "/v1/settlements", request, profile)
    assert [p["amount"] for p in body["players"]] == amounts
    assert [p["outcome"] for p in body["players"]] == outcomes
    assert body["dealer"]["net"] == -sum(amounts)


def test_settle_from_a_file_in_the_api_shape(capsys: pytest.CaptureFixture[str], client: FlaskClient,
                                             tmp_path: Path) -> None:
    request = {"dealer": {"hand": ["3S", "6H", "8D", "4C", "8H"]},
               "players": [{"id": "seat-1", "hand": ["10H", "9S", "8S", "4D", "4H"], "stake": 250},
                           {"hand": ["JS", "QH", "KD", "JC", "QD"], "stake": 100}]}
    path = tmp_path / "round.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    body = gnau_json(capsys, "settle", "--file", str(path))
    assert body == post(client, "/v1/settlements", request)
    status, out, _ = gnau(capsys, "settle", "--file", str(path))
    assert status == 0
    lines = out.splitlines()
    assert lines[2].split() == ["dealer", "3S", "6H", "8D", "4C", "8H", "Double-Ox", "8", "3S=3", "6H=3", "4C=4",
                                "8D=8", "8H=8", "2x", "-500", "0", "-500"]
    assert lines[3].split()[-6:] == ["250", "double", "lose", "-500", "0", "-500"]
    assert lines[4].split()[0] == "#1"
    assert lines[4].split()[-6:] == ["100", "double", "win", "+1000", "0", "+1000"]
    assert lines[5] == "house (commission) 0"


@pytest.mark.parametrize(("profile", "overrides", "dealer", "players", "dealer_result", "house", "exposures"),
                         COMMISSION_ROUNDS, ids=[row[0] for row in COMMISSION_ROUNDS])
def test_settle_commission_examples(capsys: pytest.CaptureFixture[str], client: FlaskClient, profile: str,
                                    overrides: dict[str, Any], dealer: str,
                                    players: list[tuple[str, int, str, str, int, int, int]],
                                    dealer_result: tuple[int, int, int], house: int,
                                    exposures: dict[int, tuple[int, int]]) -> None:
    """RULES.md section 8's bet and commission rows, through ``gnau settle --bet``."""
    args = ["settle", "--dealer", dealer, "--profile", profile]
    for i, (cards, stake, bet, *_) in enumerate(players, 1):
        args += ["--player", f"p{i}:{stake}:{cards}", "--bet", bet]
    if overrides:
        args += ["--rules", json.dumps(overrides)]
    body = gnau_json(capsys, *args)
    request: dict[str, Any] = {"dealer": {"hand": hand(dealer)}, "players": [
        {"id": f"p{i}", "hand": hand(p[0]), "stake": p[1], "bet": p[2]} for i, p in enumerate(players, 1)]}
    if overrides:
        request["rules"] = overrides
    assert body == post(client, "/v1/settlements", request, profile)
    status, out, _ = gnau(capsys, *args)
    assert status == 0
    lines = out.splitlines()
    assert lines[2].split()[0] == "dealer"
    gross, commission, net = dealer_result
    assert lines[2].split()[-3:] == [f"{gross:+d}", str(commission), f"{net:+d}"]
    for line, (_, stake, bet, outcome, p_gross, p_commission, amount) in zip(lines[3:], players, strict=False):
        assert line.split()[-6:] == [str(stake), bet, outcome, f"{p_gross:+d}", str(p_commission), f"{amount:+d}"]
    assert lines[-1] == f"house (commission) {house}"
    # The exposures RULES.md section 8 states, in the settlement and before the deal.
    seat_args = ["exposures", "--profile", profile]
    for i, (_, stake, bet, *_) in enumerate(players, 1):
        seat_args += ["--seat", f"p{i}:{stake}", "--bet", bet]
    if overrides:
        seat_args += ["--rules", json.dumps(overrides)]
    before = gnau_json(capsys, *seat_args)
    seats: dict[str, Any] = {"players": [{"id": f"p{i}", "stake": p[1], "bet": p[2]} for i, p in enumerate(players, 1)]}
    if overrides:
        seats["rules"] = overrides
    assert before == post(client, "/v1/exposures", seats, profile)
    assert [p["exposure"] for p in before["players"]] == [p["exposure"] for p in body["players"]]
    status, out, _ = gnau(capsys, *seat_args)
    assert status == 0
    for i, (max_loss, max_win) in exposures.items():
        assert body["players"][i]["exposure"] == {"max_loss": max_loss, "max_win": max_win}
        row = out.splitlines()[3 + i].split()
        assert row == [f"p{i + 1}", str(players[i][1]), players[i][2], str(max_loss), str(max_win)]


def test_settle_takes_one_bet_for_every_player_or_bets_from_the_file(
        capsys: pytest.CaptureFixture[str], client: FlaskClient, tmp_path: Path) -> None:
    players = ["p1:1000:JS 9H AD 5C 5D", "p2:1000:7S 3H JH 8C 10C"]
    args = ["settle", "--dealer", "KH QS 10D 4C AC", "--profile", "bull-bull"]
    for p in players:
        args += ["--player", p]
    body = gnau_json(capsys, *args, "--bet", "equal")
    assert [(p["bet"], p["gross"], p["commission"], p["amount"]) for p in body["players"]] == [
        ("equal", 1000, 50, 950), ("equal", 1000, 50, 950)]
    request = {"dealer": {"hand": hand("KH QS 10D 4C AC")},
               "players": [{"hand": hand("JS 9H AD 5C 5D"), "stake": 1000, "bet": "equal"},
                           {"hand": hand("7S 3H JH 8C 10C"), "stake": 1000}]}
    path = tmp_path / "round.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    body = gnau_json(capsys, "settle", "--file", str(path), "--profile", "bull-bull")
    assert body == post(client, "/v1/settlements", request, "bull-bull")
    assert [(p["bet"], p["amount"]) for p in body["players"]] == [("equal", 950), ("double", 1900)]


def test_rank_agrees_with_the_api(capsys: pytest.CaptureFixture[str], client: FlaskClient, tmp_path: Path) -> None:
    args = ["ann:10S 9H 8D 4C 4H", "bo:JS QH KD JC QD", "10H 9D AD 7C 4S", "10C 9C AC 7D 4D"]
    body = gnau_json(capsys, "rank", *args)
    request = {"hands": [{"id": "ann", "hand": hand("10S 9H 8D 4C 4H")}, {"id": "bo", "hand": hand("JS QH KD JC QD")},
                         {"hand": hand("10H 9D AD 7C 4S")}, {"hand": hand("10C 9C AC 7D 4D")}]}
    assert body == post(client, "/v1/rankings", request)
    assert [(r["index"], r["position"]) for r in body["ranking"]] == [(1, 1), (2, 2), (3, 2), (0, 4)]
    path = tmp_path / "hands.json"
    path.write_text(json.dumps(request | {"decks": 2}), encoding="utf-8")
    assert gnau_json(capsys, "rank", "--file", str(path), "--profile", "niu-niu") == post(
        client, "/v1/rankings", request | {"decks": 2}, "niu-niu")
    status, out, _ = gnau(capsys, "rank", *args)
    assert status == 0
    assert [line.split()[:2] for line in out.splitlines()[2:]] == [["1", "bo"], ["2", "#2"], ["2", "#3"], ["4", "ann"]]


def test_profiles_agree_with_the_api(capsys: pytest.CaptureFixture[str], client: FlaskClient) -> None:
    assert gnau_json(capsys, "profiles") == client.get("/v1/profiles").get_json()
    assert gnau_json(capsys, "profiles", "niu-niu") == client.get("/v1/profiles/niu-niu").get_json()
    status, out, _ = gnau(capsys, "profiles")
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "name", "standard", "casino", "tens-are-dukes", "liberal", "niu-niu", "bull-bull", "niu-niu-plus"]
    status, out, _ = gnau(capsys, "profiles", "niu-niu")
    assert status == 0
    assert "ties                   high_card" in out
    assert gnau_json(capsys, "profiles", "bull-bull") == client.get("/v1/profiles/bull-bull").get_json()
    status, out, _ = gnau(capsys, "profiles", "bull-bull")
    assert status == 0
    assert "commission_bps         500" in out.splitlines()
    assert out.splitlines()[-1] == "max payout 5x"


def test_operator_profiles_come_from_profiles_file(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "profiles.yaml"
    path.write_text("profiles:\n  house-aces:\n    extends: standard\n    description: Aces on top.\n"
                    "    rules: {double_ox_order: ace_high}\n", encoding="utf-8")
    monkeypatch.setenv("PROFILES_FILE", str(path))
    aces = gnau_json(capsys, "rank", "AS AH 10D 4C 6D", "KS KH 10H 4D 6C", "--profile", "house-aces")
    assert [r["evaluation"]["label"] for r in aces["ranking"]] == ["Double-Ox A", "Double-Ox K"]


@pytest.mark.parametrize(("args", "message"), [
    (["evaluate", "AS", "XX", "10D", "3C", "6S"], "gnau: /hand/1: 'XX' is not a card: write a rank"),
    (["evaluate", "AS", "KH", "10D", "3C"], "gnau: /hand: a hand is exactly 5 cards, got 4"),
    (["evaluate", "AS", "AS", "10D", "3C", "6S"], "gnau: /hand/1: AS appears more than once"),
    (["evaluate", "AS", "KH", "10D", "3C", "6S", "--decks", "9"], "gnau: /decks: must be an integer from 1 to 8"),
    (["evaluate", "AS", "KH", "10D", "3C", "6S", "--profile", "vegas"], "gnau: --profile: unknown profile 'vegas'"),
    (["evaluate", "AS", "KH", "10D", "3C", "6S", "--rules", '{"ties": "coin"}'], "gnau: /rules/ties: "),
    (["evaluate", "AS", "KH", "10D", "3C", "6S", "--rules", "{"], "gnau: --rules is not valid JSON"),
    (["evaluate", "AS", "KH", "10D", "3C", "6S", "--decks", "two"], "gnau: Invalid value for '--decks'"),
    (["evaluate"], "gnau: Missing argument"),
    (["rank", "AS KH 10D 3C 6S"], "gnau: /hands: must be an array of 2 to 1,000 hands, got 1"),
    (["settle", "--dealer", "AS KH 10D 3C 6S"], "gnau: give --dealer CARDS and at least one --player"),
    (["settle", "--dealer", "AS KH 10D 3C 6S", "--player", "a:ten:2S 3S 4S 5S 7S"],
     "gnau: --player 'a:ten:2S 3S 4S 5S 7S': the stake 'ten' must be written in the digits 0-9"),
    (["settle", "--dealer", "AS KH 10D 3C 6S", "--player", "9:AS 2S 3S 4S 5S"],
     "gnau: /players/0/hand/0: AS appears more than once"),
    (["settle", "--file", "/nonexistent/round.json"], "gnau: /nonexistent/round.json: cannot read"),
    (["settle", "--dealer", "AS KH 10D 3C 6S", "--player", "9:2S 3S 4S 5S 7S", "--bet", "triple"],
     "gnau: /players/0/bet: must be one of double, equal"),
    (["settle", "--dealer", "AS KH 10D 3C 6S", "--player", "9:2S 3S 4S 5S 7S", "--bet", "equal", "--bet", "equal"],
     "gnau: give --bet once (for every player) or once per player in order: 2 --bet for 1 player"),
    (["exposures"], "gnau: give at least one --seat [ID:]STAKE (or --file)"),
    (["exposures", "--seat", "p1:0", "--bet", "triple"],
     "gnau: /players/0/stake: must be an integer from 1 to 1000000000000; /players/0/bet: must be one of double, equal"),
    (["settle", "--file", "round.json", "--bet", "equal"], "gnau: --file gives the whole body, so it takes none of --dealer, --player and --bet"),
    (["settle", "--dealer", "AS KH 10D 3C 6S", "--player", "9:2S 3S 4S 5S 7S", "--rules",
      '{"commission_bps": 10001}'], "gnau: /rules/commission_bps: must be an integer from 0 to 10000"),
    (["profiles", "vegas"], "gnau: unknown profile 'vegas'"),
    (["shuffle"], "gnau: No such command 'shuffle'"),
])
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    status, out, err = gnau(capsys, *args)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(message), err


def test_installed_command_reports_bad_input_without_traceback() -> None:
    result = subprocess.run([str(GNAU), "evaluate", "AS", "ZZ", "10D", "3C", "6S", "--json"], capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("gnau: /hand/1: 'ZZ' is not a card")
    assert result.stderr.count("\n") == 1
    good = subprocess.run([str(GNAU), "evaluate", "JS", "QH", "KD", "JC", "QD", "--json"], capture_output=True,
                          text=True, timeout=60, check=True)
    assert json.loads(good.stdout)["label"] == "Five Dukes"


@pytest.mark.slow
def test_serve_runs_gunicorn_with_the_project_config(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"} | {"GNAU_DRAIN_SECONDS": "0"}
    with (tmp_path / "serve.log").open("wb") as log:
        proc = subprocess.Popen([str(GNAU), "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1",
                                 "--probe-bind", f"127.0.0.1:{free_port()}"], cwd=tmp_path,
                                env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            body = None
            deadline = time.monotonic() + 60
            while body is None and time.monotonic() < deadline and proc.poll() is None:
                try:
                    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/evaluations", method="POST",
                                                     data=b'{"hand": ["JS", "QH", "KD", "JC", "QD"]}',
                                                     headers={"Content-Type": "application/json"})
                    with urllib.request.urlopen(request, timeout=2) as response:
                        body = json.loads(response.read())
                except OSError:
                    time.sleep(0.2)
            assert body is not None, (tmp_path / "serve.log").read_text()
            assert body["label"] == "Five Dukes"
        finally:
            stop(proc)
    assert proc.returncode == 0
    assert ROOT.joinpath("gunicorn.conf.py").is_file()


def test_settle_refuses_a_table_beyond_the_safe_integers_like_the_api(
        capsys: pytest.CaptureFixture[str], client: FlaskClient, tmp_path: Path) -> None:
    request = {"dealer": {"hand": ["3S", "6H", "8D", "4C", "8H"]},
               "players": [{"hand": ["10H", "9S", "8S", "4D", "4H"], "stake": 10**12}],
               "rules": {"payouts": {"no_ox": 1000}, "suited_bonus": "hand", "suited_multiplier": 10}}
    path = tmp_path / "round.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    status, out, err = gnau(capsys, "settle", "--file", str(path))
    assert (status, out) == (2, "")
    assert "/players" in err
    assert "9007199254740991" in err
    problem = client.post("/v1/settlements", json=request).get_json()
    assert [e["pointer"] for e in problem["errors"]] == ["/players"]


DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(("args", "message"), [
    (["--rules", '{"ties":"push","ties":"dealer"}'], "gnau: --rules is not valid JSON: duplicate key 'ties' in an object"),
    (["--rules", '{"ties": NaN}'], "gnau: --rules is not valid JSON: NaN is not valid JSON"),
    (["--rules", DEEP], "gnau: --rules is not valid JSON: it is nested too deeply."),
    (["--rules", '{"ties": "\\ud800"}'], "gnau: --rules /ties: holds a lone UTF-16 surrogate escape"),
    (["--rules", "null"], "gnau: /rules: must not be null"),
])
def test_rules_are_read_as_strictly_as_the_api_reads_a_body(capsys: pytest.CaptureFixture[str], args: list[str],
                                                             message: str) -> None:
    status, out, err = gnau(capsys, "evaluate", "AS", "KH", "10D", "3C", "6S", *args)
    assert (status, out, err.count("\n")) == (2, "", 1)
    assert err.startswith(message), err


@pytest.mark.parametrize(("content", "api_detail"), [
    (b'{"hands": [], "hands": []}', "The body is not valid JSON: duplicate key 'hands' in an object"),
    (b'{"hands": [' + DEEP.encode() + b"]}", "The body is not valid JSON: it is nested too deeply."),
    (b'{"decks": Infinity}', "The body is not valid JSON: Infinity is not valid JSON"),
    (b"\xff\xfe{}", "The body is not valid UTF-8: byte 0 cannot be decoded."),
])
def test_file_bodies_are_refused_in_the_api_words(capsys: pytest.CaptureFixture[str], client: FlaskClient,
                                                  tmp_path: Path, content: bytes, api_detail: str) -> None:
    response = client.post("/v1/rankings", data=content, content_type="application/json")
    assert response.status_code == 400
    assert response.get_json()["detail"] == api_detail
    path = tmp_path / "b.json"
    path.write_bytes(content)
    status, out, err = gnau(capsys, "rank", "--file", str(path))
    assert (status, out) == (2, "")
    assert err == f"gnau: {path}{api_detail.removeprefix('The body')}\n"


def test_file_reads_stop_at_the_api_body_limit(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from service.json_text import MAX_BODY_BYTES
    path = tmp_path / "big.json"
    path.write_bytes(b" " * MAX_BODY_BYTES + b"{}")
    status, _, err = gnau(capsys, "rank", "--file", str(path))
    assert status == 2
    assert err == f"gnau: {path}: the body is over the 1 MiB limit (1,048,576 bytes) of a request body\n"
    if Path("/dev/zero").exists():
        assert gnau(capsys, "rank", "--file", "/dev/zero")[0] == 2


def test_every_dead_option_counts(capsys: pytest.CaptureFixture[str], client: FlaskClient) -> None:
    body = gnau_json(capsys, "odds", "AS", "KH", "10D", "--dead", "QS", "--dead", "2H")
    assert body == post(client, "/v1/odds", {"hand": ["AS", "KH", "10D"], "role": "player", "dead": ["QS", "2H"]})
    assert body["cards_left"] == 47
    assert gnau_json(capsys, "odds", "AS", "KH", "10D", "--dead", "QS 2H") == body
    status, out, _ = gnau(capsys, "odds", "--help")
    assert status == 0
    assert "repeatable" in out


@pytest.mark.parametrize("command", [["rank"], ["settle"], ["exposures"]])
@pytest.mark.parametrize("option", [["--decks", "2"], ["--rules", "{}"]])
def test_decks_and_rules_do_not_replace_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                               command: list[str], option: list[str]) -> None:
    path = tmp_path / "b.json"
    path.write_text('{"rules": {"ties": "push"}, "decks": 1}')
    status, out, err = gnau(capsys, *command, "--file", str(path), *option)
    assert (status, out) == (2, "")
    assert err == 'gnau: --file gives the whole body, so it takes none of --decks and --rules (put "decks" and "rules" in the body)\n'


@pytest.mark.parametrize("stake", ["١٠٠", "1_0", " +7 ", "+7", "10.0", "٣", ""])
def test_stakes_are_ascii_digits_only(capsys: pytest.CaptureFixture[str], stake: str) -> None:
    spec = f"a:{stake}:2S 3S 4S 5S 7S"
    status, out, err = gnau(capsys, "settle", "--dealer", "AS KH 10D 3C 6S", "--player", spec)
    assert (status, out) == (2, "")
    assert err == f"gnau: --player {spec!r}: the stake {stake!r} must be written in the digits 0-9\n"
    status, out, err = gnau(capsys, "exposures", "--seat", f"p1:{stake}")
    assert (status, out) == (2, "")
    assert err == f"gnau: --seat 'p1:{stake}': the stake {stake!r} must be written in the digits 0-9\n"
    assert gnau_json(capsys, "exposures", "--seat", "p1:0100")["players"][0]["stake"] == 100


@pytest.mark.parametrize(("args", "message"), [
    (["exposures", "--seat", "p1:100:200"], "gnau: --seat 'p1:100:200': write ID:STAKE or STAKE"),
    (["settle", "--dealer", "AS KH 10D 3C 6S", "--player", "a:b:100:2S 3S 4S 5S 7S"],
     "gnau: --player 'a:b:100:2S 3S 4S 5S 7S': write ID:STAKE:CARDS or STAKE:CARDS"),
])
def test_seat_and_player_refuse_an_id_holding_a_colon(capsys: pytest.CaptureFixture[str], args: list[str],
                                                      message: str) -> None:
    status, out, err = gnau(capsys, *args)
    assert (status, out, err.count("\n")) == (2, "", 1)
    assert err.startswith(message), err
