"""RULES.md 1.1: suitless input (rank-only cards) through the API and the ``gnau`` command.

Every "Suitless input" row of RULES.md 8.1 without a joker, on every operation that reads
hands; the counts; the refusals under rules that read suits; and the property that a
suitless hand scores as the same hand with suits (the ace of spades where written).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st

from service.cli import main
from service.engine.cards import CARD_TEXTS, CARDS, SUITLESS_BASE
from service.engine.reference import evaluate_reference
from service.engine.rules import PROFILES
from service.engine.tables import evaluate


def post(client: FlaskClient, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    answer = client.post(path, json=body)
    return answer.status_code, answer.get_json()


#: RULES.md 8.1 "Suitless input" rows without a joker (standard): hand, label, nenku, echo.
ACCEPTED = [
    ("10 4 6 A K", "Single-Ox 1", True, "10 4 6 A K"),        # 10+4+6; A is not the ace of spades
    ("10 4 6 AS K", "Ngau Tonku", False, "10 4 6 AS K"),     # power A♠ + K
    ("3 6 8 4 8", "Double-Ox 8", False, "3 6 8 4 8"),        # as 3S 6H 8D 4C 8H (§8)
    ("J Q K J Q", "Five Dukes", False, "J Q K J Q"),
    ("A AS A 8 A", "Double-Ox A", False, "A AS A 8 A"),      # ox A+A+8 leaves A-A
    ("t 4 6 a k", "Single-Ox 1", True, "10 4 6 A K"),        # canonical case
    ("0 4 6 A k", "Single-Ox 1", True, "10 4 6 A K"),
]

#: RULES.md 8.1's refused rows: hand, profile, pointer, what the detail names.
REFUSED = [
    ("K K K K K", "standard", "/hand/4", "more than 4 Ks"),                     # a fifth king
    ("A A A A 2", "standard", "/hand/3", "more than 3 aces other than the ace of spades"),
    ("JS 9 AD 5C 5D", "niu-niu", "/hand/1", "ties = high_card"),              # ties reads suits
    ("10 4 6 A K", "liberal", "/hand/0", "suited_bonus = ox"),               # the suited bonus reads suits
]


@pytest.mark.parametrize(("cards", "label", "nenku", "echo"), ACCEPTED)
def test_rows_through_the_api(client: FlaskClient, cards: str, label: str, nenku: bool, echo: str) -> None:
    status, body = post(client, "/v1/evaluations", {"hand": cards.split()})
    assert status == 200, body
    assert (body["label"], body["nenku"], body["hand"]) == (label, nenku, echo.split())
    written = set(echo.split())
    for part in ("ox", "power"):  # formations name the cards by the tokens as echoed
        if body[part] is not None:
            assert set(body[part]["cards"]) <= written


@pytest.mark.parametrize(("cards", "label", "nenku", "echo"), ACCEPTED)
def test_rows_through_the_batch_both_paths(client: FlaskClient, cards: str, label: str, nenku: bool,
                                           echo: str) -> None:
    for n in (1, 60):  # hand by hand, and read in one pass with numpy
        status, body = post(client, "/v1/evaluations/batch", {"hands": [cards.split()] * n})
        assert status == 200, body
        assert {(e["label"], e["nenku"], tuple(e["hand"])) for e in body["evaluations"]} == {
            (label, nenku, tuple(echo.split()))}


@pytest.mark.parametrize(("cards", "label", "nenku", "echo"), ACCEPTED)
def test_rows_through_the_cli(capsys: pytest.CaptureFixture[str], cards: str, label: str, nenku: bool,
                              echo: str) -> None:
    capsys.readouterr()
    status = main(["evaluate", cards, "--json"])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    body = json.loads(out)
    assert (body["label"], body["nenku"], body["hand"]) == (label, nenku, echo.split())
    status = main(["evaluate", cards])  # the table shows the cards as written too
    out, _ = capsys.readouterr()
    assert status == 0
    assert label in out
    assert echo.split()[0] in out


@pytest.mark.parametrize(("cards", "profile", "where", "why"), REFUSED)
def test_refused_rows(client: FlaskClient, capsys: pytest.CaptureFixture[str], cards: str, profile: str, where: str,
                      why: str) -> None:
    status, body = post(client, f"/v1/evaluations?profile={profile}", {"hand": cards.split()})
    assert status == 400
    assert [e["pointer"] for e in body["errors"]] == [where]
    assert why in body["errors"][0]["detail"]
    capsys.readouterr()
    assert main(["evaluate", cards, "--profile", profile]) == 2
    _, err = capsys.readouterr()
    assert why in err


def test_two_decks_hold_eight_of_a_rank(client: FlaskClient) -> None:
    status, body = post(client, "/v1/evaluations", {"hand": ["K", "K", "K", "K", "K"], "decks": 2})
    assert status == 200
    assert body["label"] == "Five Dukes"
    # A, AH, AD, AC are the plain aces: four of them with one deck is one too many.
    status, body = post(client, "/v1/evaluations", {"hand": ["A", "AH", "AD", "AC", "AS"]})
    assert status == 400
    assert body["errors"][0]["pointer"] == "/hand/3"
    # A suited card still at most once a deck, beside rank-only cards of its rank.
    status, body = post(client, "/v1/evaluations", {"hand": ["K", "KD", "KD", "2", "3"]})
    assert status == 400
    assert body["errors"][0]["pointer"] == "/hand/2"
    assert body["errors"][0]["detail"] == "KD appears more than once (1 deck in play)"


def test_a_table_counts_across_its_hands(client: FlaskClient) -> None:
    body: dict[str, Any] = {"dealer": {"hand": ["K", "K", "K", "2", "3"]},
                            "players": [{"stake": 10, "hand": ["K", "KS", "4", "5", "6"]}]}
    status, answer = post(client, "/v1/settlements", body)
    assert status == 400
    assert [e["pointer"] for e in answer["errors"]] == ["/players/0/hand/1"]  # the fifth king
    body["players"][0]["hand"] = ["Q", "QS", "4", "5", "6"]
    status, answer = post(client, "/v1/settlements", body)
    assert status == 200
    assert answer["dealer"]["evaluation"]["hand"] == ["K", "K", "K", "2", "3"]


@pytest.mark.parametrize("profile", ["niu-niu", "liberal", "bull-bull", "niu-niu-plus"])
def test_every_operation_refuses_where_suits_are_read(client: FlaskClient, profile: str) -> None:
    suited, plain = ["10S", "4H", "6D", "AD", "KH"], ["10", "4", "6", "A", "K"]
    knob = PROFILES[profile].rules.suit_reader
    assert knob is not None
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("/v1/evaluations", {"hand": plain}, "/hand/0"),
        ("/v1/evaluations/batch", {"hands": [suited] * 50 + [plain]}, "/hands/50/0"),
        ("/v1/evaluations/batch", {"hands": [suited, plain]}, "/hands/1/0"),
        ("/v1/rankings", {"hands": [{"hand": suited}, {"hand": plain}]}, "/hands/1/hand/0"),
        ("/v1/settlements", {"dealer": {"hand": suited}, "players": [{"stake": 1, "hand": plain}]},
         "/players/0/hand/0"),
        ("/v1/settlements", {"dealer": {"hand": ["10", "4H", "6D", "AD", "KH"]},
                             "players": [{"stake": 1, "hand": ["9S", "2H", "3D", "5C", "7S"]}]}, "/dealer/hand/0"),
        ("/v1/showdowns", {"base": 10, "players": [{"hand": suited}, {"hand": ["9S", "2", "3D", "5C", "7S"]}]},
         "/players/1/hand/1"),
        ("/v1/odds", {"hand": ["10", "4H", "6D"]}, "/hand/0"),
    ]
    for path, body, where in cases:
        status, answer = post(client, f"{path}?profile={profile}", body)
        assert status == 400, (path, answer)
        assert [e["pointer"] for e in answer["errors"]] == [where], path
        assert f"({knob} = " in answer["errors"][0]["detail"]


def test_every_operation_accepts_where_no_knob_reads_suits(client: FlaskClient) -> None:
    plain, suited = ["10", "4", "6", "A", "K"], ["10S", "4H", "6D", "AD", "KH"]
    status, ranking = post(client, "/v1/rankings", {"hands": [{"id": "p", "hand": plain}, {"id": "s", "hand": suited}]})
    assert status == 200
    assert [e["evaluation"]["score"] for e in ranking["ranking"]] == [201, 201]
    status, showdown = post(client, "/v1/showdowns", {"base": 10, "players": [
        {"hand": plain}, {"hand": ["10S", "9H", "8D", "4C", "4H"]}]})
    assert status == 200, showdown
    assert showdown["players"][0]["evaluation"]["hand"] == plain
    assert showdown["players"][0]["amount"] == 10  # Single-Ox 1 beats No Ox: base 10 x payout 1
    for profile in ("casino", "tens-are-dukes"):
        assert post(client, f"/v1/evaluations?profile={profile}", {"hand": plain})[0] == 200


def test_odds_with_rank_only_known_cards(client: FlaskClient) -> None:
    """Each rank-only known card removes one card of its rank (an A a plain ace): the odds
    equal those of the same cards with free suits."""
    for known, dead, suited_known, suited_dead in [
        ("10 4 6 A K", [], "10D 4C 6H AH KD", []),
        ("K K 10", ["KD", "K"], "KC KH 10D", ["KD", "KS"]),
        ("A A 5 9", ["A"], "AH AD 5C 9C", ["AC"]),
    ]:
        status, plain = post(client, "/v1/odds", {"hand": known.split(), "dead": dead})
        assert status == 200, plain
        _, suited = post(client, "/v1/odds", {"hand": suited_known.split(), "dead": suited_dead})
        for member in ("win", "lose", "push", "expected_net", "cards_left", "completions"):
            assert plain[member] == suited[member], member
        if "evaluation" in plain:
            assert plain["evaluation"]["hand"] == known.split()


def test_deal_verification_refuses_rank_only_cards(client: FlaskClient) -> None:
    body = {"server_seed": bytes(range(32)).hex(), "client_seed": "player-1", "nonce": 0, "decks": 1,
            "commitment": "sha256:" + "0" * 64, "hands": [["K", "2S", "3S", "4S", "5S"], None]}
    status, answer = post(client, "/v1/deals/verify", body)
    assert status == 400
    assert [e["pointer"] for e in answer["errors"]] == ["/hands/0/0"]


def _suitless(code: int) -> int:
    """A suited card written without its suit, but the ace of spades (RULES.md 1.1)."""
    return code if code == 3 else SUITLESS_BASE + (code >> 2)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True),
       st.sampled_from(["standard", "casino", "tens-are-dukes"]))
def test_a_suitless_hand_scores_as_the_hand_with_suits(codes: list[int], profile: str) -> None:
    rules = PROFILES[profile].rules
    plain = [_suitless(c) for c in codes]
    with_suits, without = evaluate([CARDS[c] for c in codes], rules), evaluate([CARDS[c] for c in plain], rules)
    assert (without.category, without.label_key, without.score, without.payout, without.nenku) == (
        with_suits.category, with_suits.label_key, with_suits.score, with_suits.payout, with_suits.nenku)
    assert [c.text for c in without.hand] == [CARD_TEXTS[c] for c in plain]
    # The literal reference evaluator reads rank-only cards as they are, and agrees.
    reference = evaluate_reference(tuple(CARDS[c] for c in plain), rules)
    assert (reference.label_key, reference.score, reference.nenku) == (
        with_suits.label_key, with_suits.score, with_suits.nenku)


@settings(max_examples=5, deadline=None)
@given(st.lists(st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True), min_size=48, max_size=80),
       st.sampled_from(["standard", "casino", "tens-are-dukes"]))
def test_a_suitless_batch_scores_as_the_batch_with_suits(app: Flask, hands: list[list[int]], profile: str) -> None:
    client = app.test_client()
    texts = [[CARD_TEXTS[c] for c in hand] for hand in hands]
    plain = [[CARD_TEXTS[_suitless(c)] for c in hand] for hand in hands]
    _, suited = post(client, f"/v1/evaluations/batch?profile={profile}", {"hands": texts})
    status, answer = post(client, f"/v1/evaluations/batch?profile={profile}", {"hands": plain})
    assert status == 200
    keep = ("category", "label", "label_key", "score", "payout", "nenku", "suited")
    assert [{k: e[k] for k in keep} for e in answer["evaluations"]] == [
        {k: e[k] for k in keep} for e in suited["evaluations"]]
    assert [e["hand"] for e in answer["evaluations"]] == plain


def test_every_knob_that_may_read_suits_is_in_the_refusal_order() -> None:
    """A knob declaring ``suits`` refuses rank-only cards; RULES.md 1.1's order names it."""
    from service.engine.rules import RULE_KNOBS, SUIT_READERS

    assert {name for name, knob in RULE_KNOBS.items() if knob.suits} <= set(SUIT_READERS)


def _cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    capsys.readouterr()
    status = main([*args, "--json"])
    out, err = capsys.readouterr()
    assert (status, err) == (0, ""), err
    return json.loads(out)


def test_the_cli_takes_rank_only_cards_on_every_command(client: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    """gnau rank, settle and odds answer rank-only cards as the API does."""
    ranked = _cli_json(capsys, "rank", "p:10 4 6 A K", "q:10S 9H 8D 4C 4H")
    _, body = post(client, "/v1/rankings", {"hands": [{"id": "p", "hand": ["10", "4", "6", "A", "K"]},
                                                     {"id": "q", "hand": ["10S", "9H", "8D", "4C", "4H"]}]})
    assert ranked == body
    assert [e["id"] for e in ranked["ranking"]] == ["p", "q"]  # Single-Ox 1 above No Ox
    settled = _cli_json(capsys, "settle", "--dealer", "10S 9H 8D 4C 4H", "--player", "p:100:10 4 6 A K")
    _, body = post(client, "/v1/settlements", {"dealer": {"hand": ["10S", "9H", "8D", "4C", "4H"]},
                                            "players": [{"id": "p", "stake": 100, "hand": ["10", "4", "6", "A", "K"]}]})
    assert settled == body
    assert settled["players"][0]["amount"] == 100
    odds = _cli_json(capsys, "odds", "K", "K", "10", "--dead", "KD K")
    _, body = post(client, "/v1/odds", {"hand": ["K", "K", "10"], "dead": ["KD", "K"]})
    assert odds == body
