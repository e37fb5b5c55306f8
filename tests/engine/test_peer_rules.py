"""The peers' house rules (RULES.md 7's last four knobs, 8.2's rows) in the engine: each
knob against the case of the server that plays it, ported from that server's own code or
test, and properties over random tables for the settling knobs."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine.cards import CARD_CODES, CARDS, Card, parse_hand
from service.engine.compare import compare, rank_hands
from service.engine.evaluate import evaluate, resolved
from service.engine.compare import ranking_order
from service.engine.exposure import table_exposure
from service.engine.odds import odds
from service.engine.partial import partial_odds
from service.engine.reference import evaluate_reference
from service.engine.rules import PROFILES, Rules, apply_overrides
from service.engine.settle import settle
from service.engine.showdown import showdown
from tests.engine.cases import (
    FULL_HOUSE_AMOUNTS,
    FULL_HOUSE_PAIR,
    FULL_HOUSE_RULES,
    FULL_HOUSE_TABLE,
    MIN_COMMISSION_RESULTS,
    MIN_COMMISSION_RULES,
    MIN_COMMISSION_TABLE,
    RUN_OX,
    RUN_OX_ROWS,
    WINNER_CAP_RESULTS,
    WINNER_CAP_RULES,
    WINNER_CAP_SEATS,
    hand,
)
from tests.engine.reference import reference_evaluate
from tests.engine.test_odds import as_tuple, brute_odds
from tests.engine.test_partial import Brute
from tests.engine.test_partial import as_tuple as partial_tuple

NIU_NIU = PROFILES["niu-niu"].rules
PLUS = PROFILES["niu-niu-plus"].rules


def cards(text: str) -> list[Card]:
    return parse_hand(hand(text))


# ---------------------------------------------------------------------------------------
# RULES.md 8.2 in the engine


@pytest.mark.parametrize(("text", "label", "without"), RUN_OX_ROWS)
def test_run_ox_rows(text: str, label: str, without: str) -> None:
    rules = apply_overrides(NIU_NIU, RUN_OX)
    for evaluator in (evaluate, evaluate_reference):
        assert evaluator(cards(text), rules).label == label
        assert evaluator(cards(text), NIU_NIU).label == without
    assert reference_evaluate(hand(text), rules)[1] == label


@pytest.mark.parametrize("order", list(FULL_HOUSE_AMOUNTS))
def test_full_house_order_rows(order: str) -> None:
    rules = apply_overrides(PLUS, FULL_HOUSE_RULES[order])
    dealer_text, bid, player_text, bet, base = FULL_HOUSE_TABLE
    dealer, player = evaluate(cards(dealer_text), rules), evaluate(cards(player_text), rules)
    assert settle(dealer, [(player, base * bid * bet)], rules).players[0].amount == FULL_HOUSE_AMOUNTS[order]
    strong, weak = (evaluate(cards(h), rules) for h in FULL_HOUSE_PAIR)
    assert compare(strong, weak, rules) == (1 if order == "high_card" else -1)


def test_full_house_order_high_card_gives_one_score_and_compares_the_top_card_alone() -> None:
    """One score for every Full House (RULES.md 7, like Bombs under ``bomb_order``); the top
    card decides, its suit after its rank; identical top cards (several decks) fall to
    ``ties``: the dealer's under ``dealer``, a push under ``push``, and under ``high_card``
    the rest of the hands (section 5)."""
    rules = apply_overrides(Rules(), {"full_house": True, "full_house_order": "high_card"})
    kings, kings_again, deuces = (evaluate(parse_hand(h.split(), decks=2), rules)
                                  for h in ("KS KH KD 2S 2H", "KC KH KD 3S 3H", "2S 2H 2D KH KC"))
    assert kings.score == kings_again.score == deuces.score
    assert compare(kings, kings_again, rules) == 1  # K♠ over K♥
    assert compare(kings_again, deuces, rules) == 0  # both topped by K♥
    assert settle(deuces, [(kings_again, 10)], rules).players[0].amount == -60  # the dealer takes it, 10 x 6
    assert settle(deuces, [(kings_again, 10)], apply_overrides(rules, {"ties": "push"})).players[0].outcome == "push"
    whole = apply_overrides(rules, {"ties": "high_card"})  # K♥ K♣ K♦ 3 3 over K♥ K♣ 2 2 2 by the third card
    assert compare(kings_again, deuces, whole) == 1
    ranked = rank_hands([deuces, kings_again, kings], rules)
    assert [(r.index, r.position) for r in ranked] == [(2, 1), (0, 2), (1, 2)]
    trips = apply_overrides(rules, {"full_house_order": "trips_rank"})
    assert compare(*(evaluate(e.hand, trips) for e in (kings_again, deuces)), trips) == 1


def test_full_house_odds_with_two_decks_count_identical_top_cards_as_ties() -> None:
    """The odds' card-multiset walk (several decks) compares Full Houses by the top card alone:
    brute force over every dealer hand of the cards left, which hold Full Houses topped by
    the player's own K♠ (a second copy) with other cards."""
    for ties in ("dealer", "push"):
        rules = apply_overrides(Rules(), {"full_house": True, "full_house_order": "high_card", "ties": ties})
        player = [CARD_CODES[t] for t in "KS KH KD 2S 2H".split()]
        keep = [CARD_CODES[t] for t in "KS KC KD 3S 3H 3D 2C QS QH JS 9D 4C".split()]
        pool = [c for c in range(52) for _ in range(2)]
        for c in player + keep:
            pool.remove(c)
        got = odds([CARDS[c] for c in player], rules, [CARDS[c] for c in pool], decks=2)
        assert as_tuple(got) == brute_odds(player, pool, 2, rules)
        assert (got.pushes > 0) == (ties == "push")


def test_full_house_partial_odds_with_two_decks_count_identical_top_cards_as_ties() -> None:
    """The partial odds' walk (several decks) likewise: four known cards, a two-deck pool of
    kings, threes and deuces where completions and opponents share top cards; brute force
    settles every completion against every opponent hand."""
    for ties in ("dealer", "push"):
        rules = apply_overrides(Rules(), {"full_house": True, "full_house_order": "high_card", "ties": ties})
        distinct = [CARD_CODES[t] for t in "KS KH KC KD 3S 3H 2S 2H 9D".split()]
        deck = [c for c in distinct for _ in range(2)]
        known = [CARD_CODES[t] for t in "KS KH KD 3S".split()]
        pool = list(deck)
        for c in known:
            pool.remove(c)
        for role in ("player", "dealer"):
            got = partial_odds([CARDS[c] for c in known], rules, [], 2, role, deck=deck)
            counts, _ = Brute(rules).odds(known, pool, role)
            assert partial_tuple(got) == counts, (ties, role)
