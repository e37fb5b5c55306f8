"""Odds from 3, 4 or 5 known cards, as player or dealer (issue 14), against brute force.

Brute force here means: every completion of the known cards and every opponent hand are
enumerated literally from the physical cards left (copies of a card apart), each final hand
evaluated with the table (``service.engine.tables.evaluate``) and each deal settled with ``settle_one`` —
nothing shared with the grouped computations of ``service.engine.analysis.partial``.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from service.cli import cli
from service.engine.analysis.odds import OddsError, odds
from service.engine.analysis.partial import by_classes, class_path_applies, partial_odds
from service.engine.analysis.partial_walk import by_walk
from service.engine.cards import CARD_CODES, CARDS, Card
from service.engine.categories import label_text
from service.engine.hand import Evaluation
from service.engine.rules import PROFILES, Rules, apply_overrides
from service.engine.settle import settle_one
from service.engine.tables import evaluate
from service.http.app import create_app
from tests import ROOT
from tests.engine.test_odds import RULE_SETS

#: A stake at which every commission of these rules is a whole amount (gross x bps / 10,000),
#: so that brute force sums the exact expectation per unit stake (RULES.md section 6.2).
BIG = 10_000
PROBLEM = "application/problem+json"


def codes(text: str) -> list[int]:
    return [CARD_CODES[t] for t in text.split()]


def cards(values: list[int] | tuple[int, ...]) -> list[Card]:
    return [CARDS[c] for c in values]


class Brute:
    """Literal enumeration over a pool of physical cards (a list of codes, repeats allowed)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.seen: dict[tuple[int, ...], Evaluation] = {}

    def ev(self, hand: list[int] | tuple[int, ...]) -> Evaluation:
        key = tuple(sorted(hand))
        found = self.seen.get(key)
        if found is None:
            found = self.seen[key] = evaluate(cards(key), self.rules)
        return found

    def settle(self, me: Evaluation, opponent: Evaluation, role: str, bet: str) -> tuple[str, int, int]:
        """The caller's outcome, gross and commission against one opponent hand at stake
        :data:`BIG`: the player pays the commission on its own wins; as the dealer the
        caller pays none (no dealer commission in these rules)."""
        if role == "player":
            r = settle_one(opponent, me, BIG, self.rules, bet)
            return r.outcome, r.gross, r.commission
        r = settle_one(me, opponent, BIG, self.rules, bet)
        return {"win": "lose", "lose": "win", "push": "push"}[r.outcome], -r.gross, 0

    def odds(self, known: list[int], pool: list[int], role: str) -> tuple[tuple[int, int, int, int, int, dict[str, int]],
                                                                            dict[str, tuple[Fraction, Fraction, Fraction]]]:
        """(deals, wins, losses, pushes, gross, completions per label) over every deal, and
        each bet's expected (gross, commission, net) per unit stake."""
        tally: Counter[str] = Counter()
        labels: Counter[str] = Counter()
        sums: dict[str, list[int]] = {"double": [0, 0], "equal": [0, 0]}
        deals = 0
        positions = range(len(pool))
        for comp in combinations(positions, 5 - len(known)):
            me = self.ev(known + [pool[i] for i in comp])
            labels[me.label_key] += 1
            rest = [pool[i] for i in positions if i not in comp]
            for opponent_cards in combinations(rest, 5):
                opponent = self.ev(opponent_cards)
                for bet, total in sums.items():
                    outcome, gross, commission = self.settle(me, opponent, role, bet)
                    total[0] += gross
                    total[1] += commission
                tally[outcome] += 1
                deals += 1
        expected = {bet: (Fraction(g, deals * BIG), Fraction(c, deals * BIG), Fraction(g - c, deals * BIG))
                    for bet, (g, c) in sums.items()}
        counts = (deals, tally["win"], tally["lose"], tally["push"], sums["double"][0] // BIG, dict(labels))
        return counts, expected


def as_tuple(p: Any) -> tuple[int, int, int, int, int, dict[str, int]]:
    return p.deals, p.wins, p.losses, p.pushes, p.net, p.labels


# ---------------------------------------------------------------------------------------
# Exactness against brute force


@pytest.mark.parametrize("with_dead", [False, True], ids=["no-dead", "dead"])
@pytest.mark.parametrize("decks", [1, 2])
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_every_completion_and_opponent_hand_matches_brute_force(name: str, decks: int, with_dead: bool) -> None:
    """Every built-in profile (and custom rules for the other suit paths and commissions),
    3-5 known cards, both roles, both bets, on a reduced deck of 1 or 2 copies per card,
    with and without dead cards."""
    rules = RULE_SETS[name]
    brute = Brute(rules)
    rng = random.Random(f"{name}-{decks}-{with_dead}")
    for known_count in (3, 4, 5):
        distinct = rng.sample(range(52), 15 if decks == 1 else 8)
        deck = [c for c in distinct for _ in range(decks)]
        rng.shuffle(deck)
        known = deck[:known_count]
        dead = deck[known_count:known_count + 2] if with_dead else []
        pool = deck[known_count + len(dead):]
        assert len(pool) >= 10 - known_count
        for role in ("player", "dealer"):
            got = partial_odds(cards(known), rules, cards(dead), decks, role, deck=deck)
            counts, expected = brute.odds(known, pool, role)
            assert as_tuple(got) == counts, (known, dead, role)
            assert {bet: got.expected(bet) for bet in expected} == expected, (known, dead, role)
            assert got.win + got.lose + got.push == 1
            assert got.completions == comb(len(pool), 5 - known_count)


@pytest.mark.parametrize("name", ["standard", "liberal", "niu-niu", "niu-niu-plus"])
def test_four_known_cards_on_a_full_deck_sum_the_five_card_odds(name: str) -> None:
    """Full deck, no dead cards: the 4-card answer is the sum of the 5-card odds of every fifth card."""
    rules = PROFILES[name].rules
    known = codes("AS KH 10D 4C")
    got = partial_odds(cards(known), rules)
    deals = wins = losses = net = 0
    for c in range(52):
        if c in known:
            continue
        o = odds(cards([*known, c]), rules)
        deals, wins, losses, net = deals + o.dealer_hands, wins + o.wins, losses + o.losses, net + o.net
    assert (got.deals, got.wins, got.losses, got.net) == (deals, wins, losses, net)
    assert got.deals == 48 * comb(47, 5)


@pytest.mark.slow
def test_three_known_cards_with_two_decks_and_dead_cards_sum_the_four_card_odds() -> None:
    """Two decks and dead cards, a rule set using suits: summing the 4-card answers of every
    third card (weighted by its copies left) counts each completion twice."""
    rules = PROFILES["niu-niu"].rules
    known, dead = codes("AS KH 10D"), codes("AS 7C 7C QS")
    whole = partial_odds(cards(known), rules, cards(dead), decks=2)
    left = [2] * 52
    for c in known + dead:
        left[c] -= 1
    parts = [(left[c], partial_odds(cards([*known, c]), rules, cards(dead), decks=2)) for c in range(52) if left[c]]
    assert 2 * whole.wins == sum(n * p.wins for n, p in parts)
    assert 2 * whole.net == sum(n * p.net for n, p in parts)
    assert 2 * whole.deals == sum(n * p.deals for n, p in parts)


@pytest.mark.parametrize(("name", "known", "dead", "role"), [
    ("liberal", "AS KH 10D", "QS 7C", "player"),
    ("niu-niu", "JS 9H 2C", "", "dealer"),
    ("ox-bonus-push", "5S 5H 10S 3D", "KS", "player"),
    ("hand-bonus-dealer", "2H 7H JH", "", "dealer"),
    # A flush category (issue 24): the opponent's one-suit hands corrected one by one.
    ("niu-niu-plus", "2S 3S 4S 5S", "", "player"),
    ("niu-niu-plus", "7S 7H 7D", "9C", "dealer"),
    ("shapes-dealer", "10H JH QH", "", "player"),
    ("shapes-dealer", "AS 2S 3S 4S", "KH", "dealer"),
    ("bomb-high-card-dealer", "JS JH JC", "", "player"),
])
def test_the_class_sums_agree_with_the_multiset_walk_on_a_full_deck(name: str, known: str, dead: str,
                                                                     role: str) -> None:
    """One deck under rules that use suits: the class sums (top card for high-card ties, the
    suited hands' extra) and the walk of every card multiset count the same, every deal."""
    rules = RULE_SETS[name]
    left = [1] * 52
    for c in codes(known) + codes(dead):
        left[c] = 0
    assert class_path_applies(rules, left)
    labels: tuple[dict[str, int], dict[str, int]] = ({}, {})
    fifth: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
    fast = by_classes(codes(known), left, rules, role, labels[0], fifth[0])
    walked = by_walk(codes(known), left, rules, role, labels[1], fifth[1])
    assert fast == walked
    assert labels[0] == labels[1]
    assert {k: sorted(v) for k, v in fifth[0].items()} == {k: sorted(v) for k, v in fifth[1].items()}


def test_five_known_cards_as_player_answer_as_the_five_card_odds() -> None:
    rules = PROFILES["liberal"].rules
    hand = cards(codes("2S 3S 5S KH 9D"))
    o = odds(hand, rules, cards(codes("AS 10H")))
    p = partial_odds(hand, rules, cards(codes("AS 10H")))
    assert (p.deals, p.wins, p.losses, p.pushes, p.net, p.method) == (
        o.dealer_hands, o.wins, o.losses, o.pushes, o.net, o.method)


def seatings(masks: np.ndarray, nets: np.ndarray, taken: int, seats: int) -> tuple[int, int]:
    """(sum of nets, seatings) over ordered disjoint hands (bit masks of pool positions) for
    ``seats`` players, none using a position in ``taken``."""
    free = np.flatnonzero((masks & taken) == 0)
    if seats == 1:
        return int(nets[free].sum()), len(free)
    if seats == 2:  # every ordered pair (B, C) of free hands, disjoint ones counted
        disjoint = (masks[free][:, None] & masks[free][None, :]) == 0
        degree = disjoint.sum(axis=1)
        return 2 * int((nets[free] * degree).sum()), int(degree.sum())
    net_sum = ways = 0
    for k in free.tolist():
        sub_net, sub_ways = seatings(masks, nets, taken | int(masks[k]), seats - 1)
        net_sum += int(nets[k]) * sub_ways + sub_net
        ways += sub_ways
    return net_sum, ways


def round_literally(known: list[int], pool: list[int], opponents: int, rules: Rules) -> Fraction:
    """The dealer's expected round net, every completion and every seating of ``opponents``
    players (ordered, disjoint hands) enumerated literally."""
    brute = Brute(rules)
    total = Fraction(0)
    count = 0
    positions = list(range(len(pool)))
    for comp in combinations(positions, 5 - len(known)):
        me = brute.ev(known + [pool[i] for i in comp])
        rest = [i for i in positions if i not in comp]
        subsets = list(combinations(rest, 5))
        masks = np.array([sum(1 << i for i in s) for s in subsets], dtype=np.int64)
        nets = np.array([brute.settle(me, brute.ev([pool[i] for i in s]), "dealer", "double")[1] // BIG
                         for s in subsets], dtype=np.int64)

        net_sum, ways = seatings(masks, nets, 0, opponents)
        total += net_sum
        count += ways
    return total / count


@pytest.mark.parametrize("opponents", [1, 3])
@pytest.mark.parametrize("name", ["standard", "niu-niu", "liberal"])
def test_dealer_round_against_several_players_is_linear(name: str, opponents: int) -> None:
    """Five known dealer cards, a reduced deck: every seating of 1 or 3 players enumerated."""
    rules = PROFILES[name].rules
    rng = random.Random(name)
    deck = rng.sample(range(52), 20)
    known, pool = deck[:5], deck[5:]
    got = partial_odds(cards(known), rules, role="dealer", deck=deck)
    assert got.round_net(opponents) == round_literally(known, pool, opponents, rules)
    assert got.round_net(opponents) == opponents * got.expected_net


@pytest.mark.parametrize("name", ["standard", "liberal", "niu-niu"])
def test_dealer_round_from_four_known_cards_is_linear(name: str) -> None:
    """Four known dealer cards, 16 cards left: every completion and seating of 3 players."""
    rules = PROFILES[name].rules
    rng = random.Random(f"four-{name}")
    deck = rng.sample(range(52), 20)
    known, pool = deck[:4], deck[4:]
    got = partial_odds(cards(known), rules, role="dealer", deck=deck)
    assert got.round_net(3) == round_literally(known, pool, 3, rules)


def test_worked_check_four_known_cards() -> None:
    """The worked check of docs/odds.md ("Before the fifth card"): AS KH 10D 4C, standard, one deck."""
    p = partial_odds(cards(codes("AS KH 10D 4C")), PROFILES["standard"].rules)
    assert p.completions == 48
    assert [(label_text(o.label_key), o.completions, [str(CARDS[c]) for c in o.cards]) for o in p.outcomes] == [
        ("Ngau Tonku", 8, ["3D", "3C", "3H", "3S", "6D", "6C", "6H", "6S"]),
        ("Single-Ox 0", 4, ["5D", "5C", "5H", "5S"]),
        ("Single-Ox 5", 14, ["10C", "10H", "10S", "JD", "JC", "JH", "JS", "QD", "QC", "QH", "QS", "KD", "KC", "KS"]),
        ("Single-Ox 4", 4, ["9D", "9C", "9H", "9S"]),
        ("No Ox", 18, ["AD", "AC", "AH", "2D", "2C", "2H", "2S", "4D", "4H", "4S", "7D", "7C", "7H", "7S",
                       "8D", "8C", "8H", "8S"]),
    ]
    page = (ROOT / "docs" / "odds.md").read_text(encoding="utf-8")
    section = page[page.index("<!-- partial-odds-check -->"):page.index("<!-- /partial-odds-check -->")]
    for o in p.outcomes:
        label = label_text(o.label_key)
        assert re.search(rf"\| {re.escape(label)} \| {o.completions}/48 \| {o.completions / 48:.4f} \|", section), label
    assert f"{float(p.win):.6f}" in section
    assert f"{float(p.expected_net):+.6f}" in section


def test_engine_refuses_bad_forms() -> None:
    rules = PROFILES["standard"].rules
    with pytest.raises(OddsError, match="3 to 5 known cards"):
        partial_odds(cards(codes("AS KH")), rules)
    with pytest.raises(OddsError, match="role must be"):
        partial_odds(cards(codes("AS KH 10D")), rules, role="banker")
    with pytest.raises(OddsError, match="cards are left"):
        partial_odds(cards(codes("AS KH 10D")), rules, deck=codes("AS KH 10D 2C 3C 4C 5C 6C"))


# ---------------------------------------------------------------------------------------
# The API and the CLI


def pointers(response: Any) -> list[str]:
    assert response.mimetype == PROBLEM, response.get_data(as_text=True)
    return [e.get("pointer", "?" + e.get("parameter", "")) for e in response.get_json()["errors"]]


def test_odds_endpoint_with_four_known_cards(client: FlaskClient) -> None:
    response = client.post("/v1/odds", json={"hand": ["AS", "KH", "10D", "4C"]})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    p = partial_odds(cards(codes("AS KH 10D 4C")), PROFILES["standard"].rules)
    assert (body["known"], body["role"], body["completions"], body["deals"]) == (4, "player", 48, 48 * comb(47, 5))
    assert "evaluation" not in body
    assert "dealer_hands" not in body
    assert "opponents" not in body
    assert body["win"]["hands"] == p.wins
    assert body["win"]["fraction"] == f"{p.win.numerator}/{p.win.denominator}"
    assert body["expected_net"]["fraction"] == f"{p.expected_net.numerator}/{p.expected_net.denominator}"
    assert body["best"] == body["outcomes"][0]
    assert body["best"]["label"] == "Ngau Tonku"
    assert body["best"]["fraction"] == "1/6"
    assert body["best"]["cards"][0] == "3D"
    assert body["worst"]["label"] == "No Ox"
    assert body["worst"]["hands"] == 18
    assert sum(o["hands"] for o in body["outcomes"]) == 48


def test_odds_endpoint_as_dealer_against_three(client: FlaskClient) -> None:
    response = client.post("/v1/odds?profile=casino", json={"hand": ["AS", "KH", "10D"], "role": "dealer",
                                                            "opponents": 3, "dead": ["QS"], "decks": 2})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    p = partial_odds(cards(codes("AS KH 10D")), PROFILES["casino"].rules, cards(codes("QS")), 2, "dealer")
    assert (body["completions"], body["cards_left"], body["opponents"]) == (comb(100, 2), 100, 3)
    round_net = 3 * p.expected_net
    assert body["round_expected_net"]["fraction"] == f"{round_net.numerator}/{round_net.denominator}"
    assert "cards" not in body["outcomes"][0]


def test_odds_endpoint_five_cards_unchanged(client: FlaskClient) -> None:
    body = client.post("/v1/odds", json={"hand": ["10S", "7H", "3D", "KC", "7D"]}).get_json()
    o = odds(cards(codes("10S 7H 3D KC 7D")), PROFILES["standard"].rules)
    assert body["dealer_hands"] == body["deals"] == o.dealer_hands
    assert body["evaluation"]["label"] == "Single-Ox 0"
    assert body["win"]["hands"] == o.wins
    assert (body["known"], body["completions"]) == (5, 1)
    dealer = client.post("/v1/odds", json={"hand": ["10S", "7H", "3D", "KC", "7D"], "role": "dealer"}).get_json()
    assert dealer["win"]["hands"] + dealer["lose"]["hands"] + dealer["push"]["hands"] == o.dealer_hands
    assert dealer["opponents"] == 1
    assert dealer["round_expected_net"] == dealer["expected_net"]


@pytest.mark.parametrize(("body", "pointer", "words"), [
    ({"hand": ["AS", "KH"]}, "/hand", "got 2"),
    ({"hand": ["AS", "KH", "10D", "4C", "5C", "6C"]}, "/hand", "got 6"),
    ({"hand": ["AS", "KH", "10D"], "opponents": 2}, "/opponents", "role dealer only"),
    ({"hand": ["AS", "KH", "10D"], "role": "player", "opponents": 1}, "/opponents", "role dealer only"),
    ({"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": 10}, "/opponents", "at most 9 opponents"),
    ({"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": 9, "dead": ["2C", "3C", "4C"]}, "/opponents",
     "at most 8 opponents"),
    ({"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": 83}, "/opponents", "82"),
    ({"hand": ["AS", "KH", "10D"], "role": "banker"}, "/role", "must be one of player, dealer"),
    ({"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": "3"}, "/opponents", "integer"),
    ({"hand": ["AS", "KH", "10D"], "opponents": None}, "/opponents", "must not be null"),
    ({"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": None}, "/opponents", "must not be null"),
    ({"hand": ["AS", "KH", "10D"], "role": None}, "/role", "must not be null"),
])
def test_bad_forms_are_problems_naming_the_field(client: FlaskClient, body: dict[str, Any], pointer: str,
                                                 words: str) -> None:
    response = client.post("/v1/odds", json=body)
    assert response.status_code == 400
    assert pointers(response) == [pointer]
    assert words in response.get_json()["errors"][0]["detail"]


def test_expensive_partial_odds_are_charged_to_the_budget() -> None:
    client = create_app({"TESTING": True, "PROFILES_FILE": None, "ANALYSIS_BUDGET_SECONDS": 0}).test_client()
    cheap = client.post("/v1/odds", json={"hand": ["AS", "KH", "10D", "4C"]})
    assert cheap.status_code == 200  # under CHEAP_SECONDS: not counted (suits or not, with one deck)
    costly = client.post("/v1/odds?profile=niu-niu", json={"hand": ["AS", "KH", "10D"]})
    assert costly.status_code == 403
    assert costly.get_json()["type"] == "/problems/analysis-disabled"
    assert client.post("/v1/odds?profile=niu-niu", json={"hand": ["AS", "KH", "10D", "4C"]}).status_code == 200
    app = create_app({"TESTING": True, "PROFILES_FILE": None, "ANALYSIS_BUDGET_SECONDS": 0.5})
    client = app.test_client()
    assert client.post("/v1/odds?profile=niu-niu", json={"hand": ["AS", "KH", "10D"]}).status_code == 200
    refused = client.post("/v1/odds?profile=niu-niu", json={"hand": ["AS", "KH", "10D"], "decks": 2})
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) >= 1


def test_cli_odds() -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["odds", "AS", "KH", "10D", "4C"])
    assert out.exit_code == 0, out.output
    assert "48 completions" in out.output
    assert re.search(r"Ngau Tonku\s+0\.166667\s+1/6\s+3D 3C 3H 3S 6D 6C 6H 6S", out.output)
    dealer = runner.invoke(cli, ["odds", "AS KH 10D", "--role", "dealer", "--opponents", "3", "--decks", "2",
                                 "--dead", "QS", "--profile", "casino", "--json"])
    assert dealer.exit_code == 0, dealer.output
    p = partial_odds(cards(codes("AS KH 10D")), PROFILES["casino"].rules, cards(codes("QS")), 2, "dealer")
    body = __import__("json").loads(dealer.output)
    assert body["round_expected_net"]["value"] == float(3 * p.expected_net)
    bad = runner.invoke(cli, ["odds", "AS", "KH", "--opponents", "2"])
    assert bad.exit_code == 2
    assert "/hand: odds need 3, 4 or 5 known cards, got 2" in bad.output
    assert "/opponents: opponents is for role dealer only" in bad.output


@pytest.mark.parametrize(("query", "body"), [
    ({}, {"hand": ["AS", "KH", "10D", "4C"]}),
    ({"profile": "niu-niu"}, {"hand": ["AS", "KH", "10D", "4C"], "role": "dealer", "opponents": 9}),
    ({"profile": "casino"}, {"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": 3, "dead": ["QS"],
                             "decks": 2}),
    ({}, {"hand": ["AS", "KH", "10D", "4C", "5C"], "role": "dealer"}),
    ({}, {"hand": ["AS", "KH", "10D", "4C", "5C"], "role": "player"}),
])
def test_new_request_forms_honour_the_contract(query: dict[str, str], body: dict[str, Any]) -> None:
    """Each new form through schemathesis with every check (the generated run covers them too)."""
    from tests.api.test_contract import schema

    case = schema["/v1/odds"]["POST"].Case(body=body, query=query)
    response = case.call_and_validate()
    assert response.status_code == 200


@pytest.mark.parametrize("body", [
    {"hand": ["AS", "KH"]},
    {"hand": ["AS", "KH", "10D", "4C", "5C", "6C"]},
    {"hand": ["AS", "KH", "10D"], "opponents": 2},
    {"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": 10},
])
def test_bad_forms_answer_as_the_contract_says(body: dict[str, Any]) -> None:
    from tests.api.test_contract import schema

    operation = schema["/v1/odds"]["POST"]
    response = operation.Case(body=body).call()
    assert response.status_code == 400
    operation.validate_response(response)


def test_opponents_without_the_dealer_role_is_named_whatever_else_is_wrong(client: FlaskClient) -> None:
    response = client.post("/v1/odds", json={"hand": ["AS", "KH"], "opponents": 2, "decks": 0})
    assert response.status_code == 400
    assert sorted(e["pointer"] for e in response.get_json()["errors"]) == ["/decks", "/hand", "/opponents"]


def test_partial_odds_under_a_commission_give_each_bet(client: FlaskClient) -> None:
    """bull-bull (5% on players' wins): from four known cards each bet's expectation is
    answered, the commission taken from the winnings; as the dealer no commission is paid
    (the player's goes to the house), so the dealer's net is minus the player's gross."""
    body = {"hand": ["AS", "KH", "10D", "4C"]}
    player = client.post("/v1/odds?profile=bull-bull", json=body).get_json()
    plain = client.post("/v1/odds?profile=bull-bull", json=body | {"rules": {"commission_bps": 0}}).get_json()
    assert player["win"] == plain["win"]
    assert player["bets"]["double"]["expected_gross"] == plain["expected_net"]
    double = {k: Fraction(v["fraction"]) for k, v in player["bets"]["double"].items()}
    assert double["expected_commission"] > 0
    assert double["expected_net"] == double["expected_gross"] - double["expected_commission"]
    assert player["expected_net"] == player["bets"]["double"]["expected_net"]
    dealer = client.post("/v1/odds?profile=bull-bull", json=body | {"role": "dealer"}).get_json()
    assert dealer["bets"]["double"]["expected_commission"]["fraction"] == "0/1"
    assert dealer["expected_net"] == client.post("/v1/odds?profile=bull-bull", json=body | {
        "role": "dealer", "rules": {"commission_bps": 0}}).get_json()["expected_net"]


def test_dealer_odds_under_a_dealer_commission_are_refused_not_approximated(client: FlaskClient) -> None:
    """A dealer commission is taken from the dealer's result for the whole round, so the
    round's expectation is not a sum over players: refused, naming the role."""
    body = {"hand": ["AS", "KH", "10D", "4C"], "role": "dealer", "opponents": 3,
            "rules": {"dealer_commission_bps": 500}}
    response = client.post("/v1/odds", json=body)
    assert response.status_code == 400
    [error] = response.get_json()["errors"]
    assert error["pointer"] == "/role"
    assert "dealer commission" in error["detail"]
    assert client.post("/v1/odds", json={"hand": body["hand"], "rules": body["rules"]}).status_code == 200
    with pytest.raises(OddsError, match="dealer commission"):
        partial_odds(cards(codes("AS KH 10D 4C")), apply_overrides(Rules(), {"dealer_commission_bps": 1}), role="dealer")
