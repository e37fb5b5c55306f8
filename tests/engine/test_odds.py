"""Exact odds, distributions and the house edge (issue 5), against brute force.

Brute force here means: evaluate every hand with the table (``service.engine.tables.evaluate``) and
settle every pair with ``settle_one`` — nothing shared with the grouped computations of
``service.engine.analysis.odds``, ``distribution`` and ``house_edge`` beyond the evaluator itself.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb
from typing import Any

import pytest
from flask.testing import FlaskClient

from bench.edge_table import edge_table
from service.engine.analysis.distribution import distribution, labels_of
from service.engine.analysis.house_edge import house_edge, house_edge_method
from service.engine.analysis.odds import Odds, OddsError, odds
from service.engine.bets import BET_NAMES as BETS
from service.engine.cards import CARD_CODES, CARDS, Card
from service.engine.categories import label_text
from service.engine.rules import PROFILES, Rules, apply_overrides
from service.engine.settle import settle_one
from service.engine.tables import evaluate
from service.http.app import create_app
from tests import ROOT
from tests.engine.test_exhaustive import PINNED_COUNTS

ONE_DECK = comb(52, 5)

#: Every built-in profile, and custom rules that exercise the other suit-dependent paths.
RULE_SETS: dict[str, Rules] = {name: p.rules for name, p in PROFILES.items()} | {
    "hand-bonus-high-card": apply_overrides(PROFILES["standard"].rules,
                                            {"suited_bonus": "hand", "ties": "high_card", "suited_multiplier": 3}),
    "hand-bonus-dealer": apply_overrides(PROFILES["casino"].rules, {"suited_bonus": "hand"}),
    "ox-bonus-push": apply_overrides(PROFILES["liberal"].rules, {"ties": "push", "payouts": {"single_ox_9": 4}}),
    # Commission (RULES.md section 6.2) under each tie rule, with and without a suited bonus.
    "commission-dealer": apply_overrides(PROFILES["casino"].rules, {"commission_bps": 500}),
    "commission-suited-dealer": apply_overrides(PROFILES["liberal"].rules, {"commission_bps": 333}),
    "commission-suited-push": apply_overrides(PROFILES["liberal"].rules, {"ties": "push", "commission_bps": 1}),
    "commission-hand-bonus-high-card": apply_overrides(
        PROFILES["standard"].rules, {"suited_bonus": "hand", "ties": "high_card", "commission_bps": 10_000}),
    # Issue 24's knobs and shapes: Bombs ordered by their cards under dealer ties (with a
    # commission), Five Dukes left to the tie rule, Five Small up to 5, and the poker shapes
    # under dealer ties (the house edge is then not computed: it is not 0 by symmetry).
    "bomb-high-card-dealer": apply_overrides(PROFILES["standard"].rules, {
        "bomb": True, "bomb_order": "high_card", "commission_bps": 250}),
    "five-dukes-no-push": apply_overrides(PROFILES["niu-niu"].rules, {"five_dukes_push": False}),
    "small-to-five": apply_overrides(PROFILES["standard"].rules, {"five_small_max_rank": 5,
                                                                 "five_small_max_points": 12}),
    "shapes-dealer": apply_overrides(PROFILES["standard"].rules, {
        "straight": True, "flush": True, "full_house": True, "straight_flush": True, "dragon": True,
        "straight_ace_high": True}),
    # A tie the dealer takes costs one stake (RULES.md 6.4, tie_payout; DECISIONS 30: exact).
    "flat-tie": apply_overrides(PROFILES["standard"].rules, {"tie_payout": "stake"}),
    "flat-tie-suited-commission": apply_overrides(PROFILES["liberal"].rules,
                                                  {"tie_payout": "stake", "commission_bps": 333}),
    "flat-tie-high-card": apply_overrides(PROFILES["niu-niu"].rules, {"tie_payout": "stake"}),
    # The peers' house rules (RULES.md 7's last knobs): runs of three ranks as oxen, and Full
    # Houses by their top card alone (identical top cards, with several decks, to the tie rule).
    "runs-top-card": apply_overrides(PROFILES["niu-niu-plus"].rules, {"run_ox": True, "full_house_order": "high_card"}),
    "runs-top-card-dealer": apply_overrides(PROFILES["standard"].rules, {
        "run_ox": True, "full_house": True, "full_house_order": "high_card", "commission_bps": 250}),
}


def codes(text: str) -> list[int]:
    return [CARD_CODES[t] for t in text.split()]


def cards(values: list[int] | tuple[int, ...]) -> list[Card]:
    return [CARDS[c] for c in values]


# ---------------------------------------------------------------------------------------
# Distribution


def test_standard_distribution_has_the_issue_counts() -> None:
    d = distribution(PROFILES["standard"].rules)
    assert d.total == ONE_DECK == sum(d.counts.values()) == sum(d.categories.values())
    assert (d.counts["five_dukes"], d.counts["five_small"], d.counts["ngau_tonku"], d.counts["no_ox"]) == (
        792, 4368, 26539, 568928)
    assert d.probability("five_small") == Fraction(4368, ONE_DECK)


@pytest.mark.parametrize("name", list(PROFILES))
def test_every_profile_distribution_sums_to_one_deck(name: str) -> None:
    rules = PROFILES[name].rules
    d = distribution(rules)
    assert d.total == sum(d.counts.values()) == ONE_DECK
    assert list(d.counts) == [label for label, _, _ in labels_of(rules)]  # strongest first, zeros kept
    if name in PINNED_COUNTS:  # pinned by the exhaustive walk of every hand
        assert {label_text(k): v for k, v in d.counts.items() if v} == PINNED_COUNTS[name]


def test_impossible_labels_are_listed_with_zero() -> None:
    d = distribution(PROFILES["liberal"].rules)  # three_six_pair: 3-3 is Double-Ox 6
    assert d.counts["double_ox_3"] == 0
    assert d.counts["double_ox_6"] > distribution(PROFILES["tens-are-dukes"].rules).counts["double_ox_6"]


SMALL_DECK = codes("AS AH 2S 3S 3H 4D 5S 6H 7S 9S 10S JS JH QS KS")
RANDOM_DECK = sorted(random.Random(20261130).sample(range(52), 14))


@pytest.mark.parametrize("name", ["standard", "niu-niu", "liberal", "niu-niu-plus", "shapes-dealer", "small-to-five"])
def test_distribution_on_a_small_deck_matches_brute_force(name: str) -> None:
    rules = RULE_SETS[name]
    brute = Counter(evaluate(cards(h), rules).label_key for h in combinations(SMALL_DECK, 5))
    d = distribution(rules, deck=SMALL_DECK)
    assert d.total == comb(15, 5)
    assert {k: v for k, v in d.counts.items() if v} == dict(brute)


# ---------------------------------------------------------------------------------------
# House edge


@cache
def brute_pairs(name: str, deck: tuple[int, ...]) -> dict[str, tuple[int, int, int]]:
    """Every ordered pair of disjoint hands of ``deck`` settled with ``settle_one`` at stake 1:
    per bet, ``(pairs, total gross, total winnings)``. The ``equal`` bet's gross is the
    outcome's sign (RULES.md section 6.1), the ``double`` bet's the settlement's gross."""
    rules = RULE_SETS[name]
    evaluations = {h: evaluate(cards(h), rules) for h in combinations(deck, 5)}
    net = won = wins = losses = pairs = 0
    for hand, player in evaluations.items():
        rest = [c for c in deck if c not in hand]
        for dealer in combinations(rest, 5):
            result = settle_one(evaluations[dealer], player, 1, rules)
            net += result.gross
            if result.outcome == "win":
                won += result.gross
                wins += 1
            elif result.outcome == "lose":
                losses += 1
            pairs += 1
    return {"double": (pairs, net, won), "equal": (pairs, wins - losses, wins)}


def brute_house_edge(name: str, deck: list[int], bet: str = "double") -> tuple[Fraction, Fraction]:
    """The player's expected gross and net per unit stake, the commission taken exactly at
    the rate (RULES.md section 6.2: no rounding in expected values)."""
    pairs, net, won = brute_pairs(name, tuple(deck))[bet]
    rate = Fraction(RULE_SETS[name].commission_bps, 10_000)
    return Fraction(net, pairs), Fraction(net, pairs) - rate * Fraction(won, pairs)


def _not_computed(rules: Rules, bet: str) -> bool:
    if rules.suit_categories:  # a flush: computed only where it is 0 by symmetry
        return rules.ties == "dealer" or bool(rules.commission_bps)
    return bet == "double" and bool(rules.commission_bps) and rules.suited_bonus != "none" and rules.ties == "high_card"


@pytest.mark.parametrize("bet", BETS)
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_house_edge_matches_brute_force_on_a_small_deck(name: str, bet: str) -> None:
    rules = RULE_SETS[name]
    if _not_computed(rules, bet):
        with pytest.raises(OddsError, match="not computed"):
            house_edge(rules, deck=SMALL_DECK, bet=bet)
        return
    he = house_edge(rules, deck=SMALL_DECK, bet=bet)
    assert he.pairs == comb(15, 5) * comb(10, 5)
    assert (he.player_expected_gross, he.player_expected_net) == brute_house_edge(name, SMALL_DECK, bet)
    if rules.commission_bps:
        assert he.player_expected_commission > 0


@pytest.mark.parametrize("bet", BETS)
@pytest.mark.parametrize("name", ["standard", "liberal", "niu-niu", "hand-bonus-dealer", "bull-bull",
                                  "commission-suited-dealer", "niu-niu-plus"])
def test_house_edge_matches_brute_force_on_a_random_deck(name: str, bet: str) -> None:
    he = house_edge(RULE_SETS[name], deck=RANDOM_DECK, bet=bet)
    assert (he.player_expected_gross, he.player_expected_net) == brute_house_edge(name, RANDOM_DECK, bet)


def test_bull_bull_house_edge_is_positive_for_both_bets_and_niu_niu_stays_zero() -> None:
    for bet in BETS:
        bb = house_edge(PROFILES["bull-bull"].rules, bet=bet)
        nn = house_edge(apply_overrides(PROFILES["bull-bull"].rules, {"commission_bps": 0}), bet=bet)
        assert bb.edge > 0, bet
        assert bb.player_expected_gross == nn.player_expected_net == nn.edge == 0
        assert bb.edge == bb.player_expected_commission
    # The equal bet's commission is 5 % of the chance of winning: half of every pair but the
    # few where both hands are Five Dukes (high-card ties decide every other tie).
    equal = house_edge(PROFILES["bull-bull"].rules, bet="equal")
    assert Fraction(1, 40) * Fraction(999_999, 1_000_000) < equal.edge < Fraction(1, 40)


def test_house_edge_of_the_profiles() -> None:
    std = house_edge(PROFILES["standard"].rules)
    assert std.pairs == ONE_DECK * comb(47, 5)
    assert std.player_expected_net < 0
    assert std.edge == -std.player_expected_net
    # push and high-card ties make the game symmetric: exactly zero
    assert house_edge(PROFILES["niu-niu"].rules).player_expected_net == 0
    assert house_edge(apply_overrides(PROFILES["standard"].rules, {"ties": "push"})).net == 0
    # the casino table pays more for specials, and the dealer collects them on ties
    assert house_edge(PROFILES["casino"].rules).edge > std.edge


def test_house_edge_needs_ten_cards() -> None:
    with pytest.raises(OddsError, match="at least 10 cards"):
        house_edge(PROFILES["standard"].rules, deck=range(9))


# ---------------------------------------------------------------------------------------
# Odds


def brute_odds(hand: list[int], dead: list[int], decks: int, rules: Rules) -> tuple[int, int, int, int, int]:
    """Every dealer hand settled with ``settle_one`` (double bet, stake 1): hands, wins,
    losses, pushes and the player's total gross."""
    n, wins, losses, pushes, net, _ = _brute_odds(hand, dead, decks, rules)
    return n, wins, losses, pushes, net


def _brute_odds(hand: list[int], dead: list[int], decks: int,
                rules: Rules) -> tuple[int, int, int, int, int, dict[str, tuple[Fraction, Fraction]]]:
    """:func:`brute_odds`, plus per bet the expected gross and commission per unit stake,
    each dealer hand settled with ``settle_one`` for that bet and the commission taken
    exactly at the rate from each winning gross (RULES.md section 6.2)."""
    pool = [c for c in range(52) for _ in range(decks)]
    for c in hand + dead:
        pool.remove(c)
    player = evaluate(cards(hand), rules)
    tally: Counter[str] = Counter()
    gross = dict.fromkeys(BETS, 0)
    won = dict.fromkeys(BETS, 0)
    n = 0
    for dealer_cards in combinations(pool, 5):
        dealer = evaluate(cards(dealer_cards), rules)
        for bet in BETS:
            result = settle_one(dealer, player, 1, rules, bet)
            gross[bet] += result.gross
            won[bet] += max(result.gross, 0)
        tally[result.outcome] += 1
        n += 1
    rate = Fraction(rules.commission_bps, 10_000)
    per_bet: dict[str, tuple[Fraction, Fraction]] = {
        bet: (Fraction(gross[bet], n), rate * Fraction(won[bet], n)) for bet in BETS}
    return n, tally["win"], tally["lose"], tally["push"], gross["double"], per_bet


def as_tuple(o: Odds) -> tuple[int, int, int, int, int]:
    return o.dealer_hands, o.wins, o.losses, o.pushes, o.net


@pytest.mark.parametrize("decks", [1, 2, 3])
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_odds_match_brute_force_with_few_cards_left(name: str, decks: int) -> None:
    """Random hands, with dead cards leaving 17 cards (6,188 dealer hands)."""
    rules = RULE_SETS[name]
    rng = random.Random(f"{name}-{decks}")
    for _ in range(2):
        pool = [c for c in range(52) for _ in range(decks)]
        rng.shuffle(pool)
        hand, dead = pool[:5], pool[5:52 * decks - 17]
        got = odds(cards(hand), rules, cards(dead), decks)
        *counts, per_bet = _brute_odds(hand, dead, decks, rules)
        assert as_tuple(got) == tuple(counts)
        assert got.win + got.lose + got.push == 1
        for bet in BETS:
            expected_gross, expected_commission = per_bet[bet]
            assert got.expected(bet) == (expected_gross, expected_commission, expected_gross - expected_commission)


@pytest.mark.parametrize("name", ["standard", "niu-niu", "hand-bonus-high-card", "liberal"])
def test_odds_with_identical_dealer_hands_possible(name: str) -> None:
    """Two decks, the cards left hold a second copy of the player's hand: under
    high-card ties an identical hand pushes; Five Dukes against Five Dukes pushes."""
    rules = RULE_SETS[name]
    for text in ("10S 7H 3D KC 7D", "JS QH KD JC QD", "AS 2S 3S 4S 6S"):
        hand = codes(text)
        keep = hand + codes("JH QS KS 9D 2C 5H")
        pool = [c for c in range(52) for _ in range(2)]
        for c in hand + keep:
            pool.remove(c)
        got = odds(cards(hand), rules, cards(pool), decks=2)
        assert as_tuple(got) == brute_odds(hand, pool, 2, rules)
        if rules.ties == "high_card" or text.startswith("JS"):
            assert got.pushes >= 1


def test_odds_of_five_dukes_never_lose_under_standard() -> None:
    got = odds(cards(codes("JS QH KD JC QD")), PROFILES["standard"].rules)
    assert got.dealer_hands == comb(47, 5)
    assert got.losses == 0
    assert got.pushes == comb(7, 5)
    assert got.expected_net == Fraction(10 * got.wins, got.dealer_hands)


def test_odds_reject_cards_beyond_the_decks() -> None:
    with pytest.raises(OddsError, match="more than once"):
        odds(cards(codes("10S 7H 3D KC 7D")), PROFILES["standard"].rules, cards(codes("7H")))
    with pytest.raises(OddsError, match="cards are left"):
        odds(cards(codes("10S 7H 3D KC 7D")), PROFILES["standard"].rules, cards([c for c in range(52)
                                                                                 if c not in codes("10S 7H 3D KC 7D")][:43]))


@pytest.mark.slow
@pytest.mark.parametrize(("name", "hand"), [("standard", "10S 7H 3D KC 7D"), ("niu-niu", "KS QH JD 2C 3C"),
                                            ("liberal", "2S 3S 5S KH 9D")])
def test_odds_match_brute_force_over_all_dealer_hands(name: str, hand: str) -> None:
    """One deck, no dead cards: every one of the 1,533,939 dealer hands (20-30 s each)."""
    rules = RULE_SETS[name]
    assert as_tuple(odds(cards(codes(hand)), rules)) == brute_odds(codes(hand), [], 1, rules)


# ---------------------------------------------------------------------------------------
# The docs' table (docs/odds.md, "Odds and house edge")


def test_docs_table_matches_the_engine() -> None:
    page = (ROOT / "docs" / "odds.md").read_text(encoding="utf-8")
    assert page.startswith("# Odds and house edge\n")
    assert "python -m bench.edge_table" in page
    assert edge_table() in page


# ---------------------------------------------------------------------------------------
# HTTP


PROBLEM = "application/problem+json"


def pointers(response: Any) -> list[str]:
    assert response.mimetype == PROBLEM, response.get_data(as_text=True)
    return [e.get("pointer", "?" + e.get("parameter", "")) for e in response.get_json()["errors"]]


def test_odds_endpoint(client: FlaskClient) -> None:
    response = client.post("/v1/odds?profile=liberal", json={"hand": ["2s", "3S", "5♠", "KH", "9D"],
                                                             "dead": ["AS", "0h"], "decks": 1})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    expected = odds(cards(codes("2S 3S 5S KH 9D")), PROFILES["liberal"].rules, cards(codes("AS 10H")))
    assert body["profile"] == "liberal"
    assert "rules" not in body
    assert body["evaluation"]["label"] == "Single-Ox 9"
    assert body["evaluation"]["suited"] is True
    assert (body["cards_left"], body["dealer_hands"], body["method"]) == (45, comb(45, 5), "card_multisets")
    assert body["win"] == {"hands": expected.wins, "fraction": f"{expected.win.numerator}/{expected.win.denominator}",
                           "probability": float(expected.win)}
    assert body["lose"]["hands"] + body["win"]["hands"] + body["push"]["hands"] == comb(45, 5)
    net = expected.expected_net
    assert body["expected_net"] == {"fraction": f"{net.numerator}/{net.denominator}", "value": float(net)}


def test_odds_endpoint_with_rules_and_decks(client: FlaskClient) -> None:
    body = client.post("/v1/odds", json={"hand": ["JS", "QH", "KD", "JC", "QD"], "decks": 2,
                                         "rules": {"ties": "push"}}).get_json()
    assert body["rules"]["ties"] == "push"
    assert body["method"] == "rank_classes"
    assert body["dealer_hands"] == comb(99, 5)
    assert body["lose"] == {"hands": 0, "fraction": "0/1", "probability": 0.0}


def test_odds_endpoint_names_every_bad_field(client: FlaskClient) -> None:
    response = client.post("/v1/odds?profile=vegas&x=1", json={
        "hand": ["10S", "7H", "3D", "KC", "ZZ"], "dead": ["7h", "10S", "QQ", 5], "decks": 1, "extra": True})
    assert response.status_code == 400
    assert sorted(pointers(response)) == sorted(["?x", "?profile", "/hand/4", "/dead/0", "/dead/1", "/dead/2",
                                                 "/dead/3", "/extra"])


def test_odds_endpoint_counts_copies_across_hand_and_dead(client: FlaskClient) -> None:
    ok = client.post("/v1/odds", json={"hand": ["10S", "7H", "3D", "KC", "7D"], "dead": ["7H"], "decks": 2})
    assert ok.status_code == 200
    bad = client.post("/v1/odds", json={"hand": ["10S", "7H", "3D", "KC", "7D"], "dead": ["7H", "7h"], "decks": 2})
    assert pointers(bad) == ["/dead/1"]
    rest = [t for t in CARD_CODES if t == t.upper() and t[0] not in "T0" and len(t) <= 3
            and not any(s in t for s in "♠♥♦♣") and t[-1] in "SHDC" and t not in ("10S", "7H", "3D", "KC", "7D")]
    assert len(rest) == 47
    full = client.post("/v1/odds", json={"hand": ["10S", "7H", "3D", "KC", "7D"], "dead": rest[:43]})
    assert pointers(full) == ["/dead"]
    assert "only 4 cards are left" in full.get_json()["errors"][0]["detail"]
    assert pointers(client.post("/v1/odds", json={"hand": ["10S"] * 5, "decks": 9})) == ["/decks"]
    assert pointers(client.post("/v1/odds", json={"dead": []})) == ["/hand"]


def test_distribution_endpoint(client: FlaskClient) -> None:
    response = client.get("/v1/profiles/standard/distribution")
    assert response.status_code == 200
    body = response.get_json()
    assert body["total"] == ONE_DECK == sum(e["hands"] for e in body["labels"])
    first = body["labels"][0]
    assert first == {"label": "Five Dukes", "label_key": "five_dukes", "category": "five_dukes", "score": 800,
                     "hands": 792, "fraction": "33/108290", "probability": 792 / ONE_DECK}
    assert response.headers["Content-Language"] == "en"
    chinese = client.get("/v1/profiles/standard/distribution?lang=zh-Hant")
    assert chinese.headers["Content-Language"] == "zh-Hant"
    assert [e["label"] for e in chinese.get_json()["labels"][:3]] == ["五花牛", "五小牛", "牛冬菇"]
    assert [e["label_key"] for e in chinese.get_json()["labels"]] == [e["label_key"] for e in body["labels"]]
    by_label = {e["label"]: e["hands"] for e in body["labels"]}
    assert (by_label["Five Small"], by_label["Ngau Tonku"], by_label["No Ox"]) == (4368, 26539, 568928)
    assert [c["category"] for c in body["categories"]] == [
        "five_dukes", "five_small", "ngau_tonku", "double_ox", "single_ox", "no_ox"]
    missing = client.get("/v1/profiles/vegas/distribution")
    assert missing.status_code == 404
    assert missing.get_json()["type"] == "/problems/unknown-profile"


def test_house_edge_endpoint(client: FlaskClient) -> None:
    body = client.get("/v1/profiles/casino/house-edge").get_json()
    he = house_edge(PROFILES["casino"].rules)
    edge = he.edge
    assert body["house_edge"] == {"fraction": f"{edge.numerator}/{edge.denominator}", "value": float(edge)}
    assert body["player_expected_net"]["value"] == -float(edge)
    assert body["pairs"] == ONE_DECK * comb(47, 5)
    assert "exchangeable" in body["method"]
    assert client.get("/v1/profiles/vegas/house-edge").status_code == 404


def test_custom_rule_analyses(client: FlaskClient) -> None:
    body = client.post("/v1/analyses/house-edge?profile=standard", json={"rules": {"ties": "high_card"}}).get_json()
    assert body["house_edge"] == {"fraction": "0/1", "value": 0.0}
    assert body["rules"]["ties"] == "high_card"
    rules = {"three_six_swap": False}
    body = client.post("/v1/analyses/distribution", json={"rules": rules}).get_json()
    expected = distribution(apply_overrides(PROFILES["standard"].rules, rules))
    assert {e["label_key"]: e["hands"] for e in body["labels"]} == expected.counts
    same = client.post("/v1/analyses/distribution?profile=niu-niu", json={}).get_json()
    assert same["labels"] == client.get("/v1/profiles/niu-niu/distribution").get_json()["labels"]
    # A suit category under dealer ties: not computed for any bet, a 400 naming the rules.
    for body, where in (({"rules": {"flush": True}}, {"pointer": "/rules"}),
                        ({"rules": {"straight_flush": True, "ties": "push", "commission_bps": 1}, "bet": "equal"},
                         {"pointer": "/rules"})):
        refused = client.post("/v1/analyses/house-edge", json=body)
        assert refused.status_code == 400
        assert [{k: v for k, v in e.items() if k != "detail"} for e in refused.get_json()["errors"]] == [where]
        assert "depends on suits" in refused.get_json()["detail"]
    assert client.post("/v1/analyses/house-edge?profile=niu-niu-plus", json={}).get_json()["house_edge"] == {
        "fraction": "0/1", "value": 0.0}
    bad = client.post("/v1/analyses/house-edge?profile=nope", json={"rules": {"ties": "coin"}, "deck": []})
    assert sorted(pointers(bad)) == ["/deck", "/rules/ties", "?profile"]


def test_uncached_analyses_are_bounded_by_the_compute_budget() -> None:
    app = create_app({"TESTING": True, "PROFILES_FILE": None, "ANALYSIS_BUDGET_SECONDS": 0.2})
    client = app.test_client()
    # rules no other test builds: each needs a new table (~0.5 s of work)
    first = client.post("/v1/analyses/distribution", json={"rules": {"payouts": {"single_ox_3": 331}}})
    assert first.status_code == 200  # a full bucket admits one request
    for path in ("/v1/analyses/distribution", "/v1/analyses/house-edge"):
        response = client.post(path, json={"rules": {"payouts": {"single_ox_3": 332}, "ties": "dealer"}})
        assert response.status_code == 429
        assert response.mimetype == PROBLEM
        assert response.get_json()["type"] == "/problems/too-expensive"
        assert int(response.headers["Retry-After"]) >= 1
    odds_response = client.post("/v1/odds", json={"hand": ["10S", "7H", "3D", "KC", "7D"],
                                                  "rules": {"payouts": {"single_ox_3": 333}}})
    assert odds_response.status_code == 429
    # cached work is never refused: the same rules again, and the built-in profiles
    again = client.post("/v1/analyses/distribution", json={"rules": {"payouts": {"single_ox_3": 331}}})
    assert again.status_code == 200
    assert client.get("/v1/profiles/standard/distribution").status_code == 200


def test_a_zero_budget_turns_uncached_analyses_off() -> None:
    client = create_app({"TESTING": True, "PROFILES_FILE": None, "ANALYSIS_BUDGET_SECONDS": 0}).test_client()
    response = client.post("/v1/analyses/distribution", json={"rules": {"payouts": {"single_ox_3": 334}}})
    assert response.status_code == 403  # turned off: no Retry-After, no promise
    assert response.get_json()["type"] == "/problems/analysis-disabled"
    assert "Retry-After" not in response.headers
    assert client.get("/v1/profiles/liberal/house-edge").status_code == 200  # the profiles' analyses stay
    assert client.post("/v1/analyses/house-edge", json={"rules": {"ties": "push"}}).status_code == 200  # exactly 0


def test_odds_endpoint_gives_both_bets_after_commission(client: FlaskClient) -> None:
    hand = ["JS", "9H", "AD", "5C", "5D"]  # Bull-Bull, pays 3x
    body = client.post("/v1/odds?profile=bull-bull", json={"hand": hand}).get_json()
    got = odds(cards(codes(" ".join(hand))), PROFILES["bull-bull"].rules)
    for bet in BETS:
        gross, commission, net = got.expected(bet)
        assert body["bets"][bet] == {"expected_gross": {"fraction": f"{gross.numerator}/{gross.denominator}",
                                                        "value": float(gross)},
                                     "expected_commission": {"fraction": f"{commission.numerator}/"
                                                             f"{commission.denominator}", "value": float(commission)},
                                     "expected_net": {"fraction": f"{net.numerator}/{net.denominator}",
                                                      "value": float(net)}}
        assert net == gross - commission
        assert commission == Fraction(5, 100) * (3 if bet == "double" else 1) * got.win
    assert body["expected_net"] == body["bets"]["double"]["expected_net"]
    # Without a commission, the double bet's net is the expected net as it always was.
    plain = client.post("/v1/odds?profile=bull-bull", json={"hand": hand, "rules": {"commission_bps": 0}}).get_json()
    assert plain["bets"]["double"]["expected_gross"] == plain["expected_net"] == body["bets"]["double"]["expected_gross"]
    assert plain["bets"]["equal"]["expected_commission"] == {"fraction": "0/1", "value": 0.0}


def test_house_edge_endpoints_take_the_bet(client: FlaskClient) -> None:
    for bet in BETS:
        bb = client.get(f"/v1/profiles/bull-bull/house-edge?bet={bet}").get_json()
        he = house_edge(PROFILES["bull-bull"].rules, bet=bet)
        assert (bb["bet"], bb["commission_bps"]) == (bet, 500)
        assert bb["house_edge"]["fraction"] == f"{he.edge.numerator}/{he.edge.denominator}"
        assert bb["house_edge"]["value"] > 0
        assert bb["player_expected_gross"] == {"fraction": "0/1", "value": 0.0}
        assert bb["player_expected_commission"] == bb["house_edge"]
        assert "exactly from the rate" in bb["method"]
        nn = client.post("/v1/analyses/house-edge?profile=bull-bull",
                         json={"rules": {"commission_bps": 0}, "bet": bet}).get_json()
        assert nn["house_edge"] == {"fraction": "0/1", "value": 0.0}
        assert "exactly from the rate" not in nn["method"]
        custom = client.post("/v1/analyses/house-edge?profile=bull-bull",
                             json={"rules": {"commission_bps": 500}, "bet": bet}).get_json()
        assert custom["house_edge"] == bb["house_edge"]
    default = client.get("/v1/profiles/bull-bull/house-edge").get_json()
    assert default["bet"] == "double"
    standard = client.get("/v1/profiles/standard/house-edge").get_json()
    assert standard["method"] == house_edge_method(PROFILES["standard"].rules)
    assert standard["player_expected_net"] == standard["player_expected_gross"]
    equal = client.get("/v1/profiles/standard/house-edge?bet=equal").get_json()
    assert "Equal bet" in equal["method"]
    assert equal["house_edge"]["value"] > standard["house_edge"]["value"] > 0


def test_house_edge_bet_errors_name_the_bet(client: FlaskClient) -> None:
    for query, detail in (("bet=triple", "must be one of double, equal"), ("bet=equal&bet=double", "give bet once")):
        response = client.get(f"/v1/profiles/bull-bull/house-edge?{query}")
        assert response.status_code == 400
        assert response.get_json()["errors"] == [{"parameter": "bet", "detail": detail}]
    response = client.get("/v1/profiles/bull-bull/house-edge?bet=equal&deck=1")
    assert pointers(response) == ["?deck"]
    assert pointers(client.get("/v1/profiles/bull-bull/distribution?bet=equal")) == ["?bet"]
    assert pointers(client.post("/v1/analyses/house-edge", json={"bet": "triple"})) == ["/bet"]
    assert pointers(client.post("/v1/analyses/distribution", json={"bet": "equal"})) == ["/bet"]
    not_computed = client.post("/v1/analyses/house-edge?profile=bull-bull", json={"rules": {"suited_bonus": "ox"}})
    assert not_computed.status_code == 400
    assert pointers(not_computed) == ["/bet"]
    assert "not computed" in not_computed.get_json()["errors"][0]["detail"]
    # the equal bet of the same rules is computed
    assert client.post("/v1/analyses/house-edge?profile=bull-bull",
                       json={"rules": {"suited_bonus": "ox"}, "bet": "equal"}).status_code == 200
