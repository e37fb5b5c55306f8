"""Every one of the 2,598,960 one-deck hands, under `standard`, `niu-niu`, `niu-niu-plus`,
one rule set with every poker shape of RULES.md 4.1 on (issue 24) and the peers' rooms
(`niu-niu-plus` with `run_ox` and `full_house_order: high_card`, issue 39); each other knob
alone is the random-rules property test's, tests/engine/test_properties.py.

The service's fast path (class tables) must agree with the deliberately simple reference
in tests/engine/reference.py on every hand; the per-label counts and a digest of every hand's
score are pinned, so any change in ranking shows up as one failing assertion.
Deselect locally with ``-m "not exhaustive"``.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from service.engine.analysis.distribution import distribution
from service.engine.cards import CARDS
from service.engine.categories import CATEGORIES, Category
from service.engine.rules import PROFILES, Rules, apply_overrides
from service.engine.tables import evaluate, evaluate_many
from tests.engine.reference import reference_evaluate

ALL_HANDS = 2_598_960

#: Standard's knobs (3/6 swap, triple ox, Ngau Tonku, Double-Ox) with every poker shape on,
#: straights ace-high too, Bomb and Four Dukes, and Five Small up to 5: the shapes beside
#: everything the ox finds.
EVERY_SHAPE = apply_overrides(PROFILES["standard"].rules, {
    "straight": True, "flush": True, "full_house": True, "straight_flush": True, "dragon": True,
    "straight_ace_high": True, "bomb": True, "four_dukes": True, "five_small_max_rank": 5})
#: The peers' rooms (RULES.md 7's last knobs): niu-niu-plus with runs of three ranks as oxen
#: and Full Houses by their top card (one score for them all).
PEER_ROOMS = apply_overrides(PROFILES["niu-niu-plus"].rules, {"run_ox": True, "full_house_order": "high_card"})
RULE_SETS: dict[str, Rules] = {"standard": PROFILES["standard"].rules, "niu-niu": PROFILES["niu-niu"].rules,
                               "niu-niu-plus": PROFILES["niu-niu-plus"].rules, "every-shape": EVERY_SHAPE,
                               "peer-rooms": PEER_ROOMS}

PINNED_COUNTS: dict[str, dict[str, int]] = {
    "standard": {
        "Double-Ox 10": 15564, "Double-Ox 2": 16868, "Double-Ox 3": 14340, "Double-Ox 4": 15752,
        "Double-Ox 5": 16048, "Double-Ox 6": 15020, "Double-Ox 7": 16552, "Double-Ox 8": 17292,
        "Double-Ox 9": 17284, "Double-Ox A": 16868, "Double-Ox J": 15828, "Double-Ox K": 16116,
        "Double-Ox Q": 15972, "Five Dukes": 792, "Five Small": 4368, "Ngau Tonku": 26539,
        "No Ox": 568928, "Single-Ox 0": 248812, "Single-Ox 1": 119425, "Single-Ox 2": 120860,
        "Single-Ox 3": 77952, "Single-Ox 4": 114224, "Single-Ox 5": 197896, "Single-Ox 6": 211152,
        "Single-Ox 7": 203364, "Single-Ox 8": 255644, "Single-Ox 9": 239500,
    },
    "niu-niu": {
        "Bomb 10": 48, "Bomb 2": 44, "Bomb 3": 48, "Bomb 4": 48, "Bomb 5": 48, "Bomb 6": 48,
        "Bomb 7": 48, "Bomb 8": 48, "Bomb 9": 48, "Bomb A": 36, "Bomb J": 48, "Bomb K": 48,
        "Bomb Q": 48, "Five Dukes": 768, "Five Small": 776, "Four Dukes": 1968, "No Ox": 870984,
        "Single-Ox 0": 189008, "Single-Ox 1": 171288, "Single-Ox 2": 168072, "Single-Ox 3": 171288,
        "Single-Ox 4": 168072, "Single-Ox 5": 177408, "Single-Ox 6": 168072, "Single-Ox 7": 171288,
        "Single-Ox 8": 168072, "Single-Ox 9": 171288,
    },
    "niu-niu-plus": {
        "Bomb 10": 48, "Bomb 2": 44, "Bomb 3": 48, "Bomb 4": 48, "Bomb 5": 48, "Bomb 6": 48, "Bomb 7": 48,
        "Bomb 8": 48, "Bomb 9": 48, "Bomb A": 36, "Bomb J": 48, "Bomb K": 48, "Bomb Q": 48,
        "Five Dukes": 624, "Five Small": 776, "Flush": 5148, "Full House 10": 288, "Full House 2": 264,
        "Full House 3": 288, "Full House 4": 288, "Full House 5": 288, "Full House 6": 288,
        "Full House 7": 288, "Full House 8": 288, "Full House 9": 288, "Full House A": 240,
        "Full House J": 288, "Full House K": 288, "Full House Q": 288, "No Ox": 864300,
        "Single-Ox 0": 188296, "Single-Ox 1": 170904, "Single-Ox 2": 167476, "Single-Ox 3": 170904,
        "Single-Ox 4": 167476, "Single-Ox 5": 174876, "Single-Ox 6": 167476, "Single-Ox 7": 169884,
        "Single-Ox 8": 167476, "Single-Ox 9": 169884, "Straight 10": 1020, "Straight 5": 1020,
        "Straight 6": 1020, "Straight 7": 1020, "Straight 8": 1020, "Straight 9": 1020, "Straight J": 1020,
        "Straight K": 1020, "Straight Q": 1020,
    },
    "every-shape": {
        "Bomb 10": 48, "Bomb 2": 32, "Bomb 3": 32, "Bomb 4": 32, "Bomb 5": 32, "Bomb 6": 48, "Bomb 7": 48,
        "Bomb 8": 48, "Bomb 9": 48, "Bomb A": 32, "Bomb J": 40, "Bomb K": 40, "Bomb Q": 40,
        "Double-Ox 10": 15312, "Double-Ox 2": 16224, "Double-Ox 3": 13696, "Double-Ox 4": 15088,
        "Double-Ox 5": 15136, "Double-Ox 6": 14720, "Double-Ox 7": 16256, "Double-Ox 8": 16928,
        "Double-Ox 9": 16992, "Double-Ox A": 16224, "Double-Ox J": 15024, "Double-Ox K": 15024,
        "Double-Ox Q": 15024, "Five Dukes": 792, "Five Small": 15504, "Flush": 5108, "Four Dukes": 1968,
        "Full House 10": 288, "Full House 2": 192, "Full House 3": 192, "Full House 4": 192,
        "Full House 5": 192, "Full House 6": 288, "Full House 7": 288, "Full House 8": 288,
        "Full House 9": 288, "Full House A": 192, "Full House J": 240, "Full House K": 240,
        "Full House Q": 240, "Ngau Tonku": 26208, "No Ox": 566052, "Single-Ox 0": 245252,
        "Single-Ox 1": 118350, "Single-Ox 2": 119524, "Single-Ox 3": 77324, "Single-Ox 4": 113942,
        "Single-Ox 5": 196264, "Single-Ox 6": 209052, "Single-Ox 7": 199375, "Single-Ox 8": 253125,
        "Single-Ox 9": 236616, "Straight 10": 1020, "Straight 6": 1020, "Straight 7": 1020,
        "Straight 8": 1020, "Straight 9": 1020, "Straight A": 1020, "Straight Flush 10": 4,
        "Straight Flush 6": 4, "Straight Flush 7": 4, "Straight Flush 8": 4, "Straight Flush 9": 4,
        "Straight Flush A": 4, "Straight Flush J": 4, "Straight Flush K": 4, "Straight Flush Q": 4,
        "Straight J": 1020, "Straight K": 1020, "Straight Q": 1020,
    },
    # The same shapes as niu-niu-plus; runs move 179,888 hands out of No Ox.
    "peer-rooms": {
        "Bomb 10": 48, "Bomb 2": 44, "Bomb 3": 48, "Bomb 4": 48, "Bomb 5": 48, "Bomb 6": 48, "Bomb 7": 48,
        "Bomb 8": 48, "Bomb 9": 48, "Bomb A": 36, "Bomb J": 48, "Bomb K": 48, "Bomb Q": 48, "Five Dukes": 624,
        "Five Small": 776, "Flush": 5148, "Full House 10": 288, "Full House 2": 264, "Full House 3": 288,
        "Full House 4": 288, "Full House 5": 288, "Full House 6": 288, "Full House 7": 288, "Full House 8": 288,
        "Full House 9": 288, "Full House A": 240, "Full House J": 288, "Full House K": 288, "Full House Q": 288,
        "No Ox": 684412, "Single-Ox 0": 280512, "Single-Ox 1": 152392, "Single-Ox 2": 160476, "Single-Ox 3": 164292,
        "Single-Ox 4": 169588, "Single-Ox 5": 177776, "Single-Ox 6": 183144, "Single-Ox 7": 186136,
        "Single-Ox 8": 209200, "Single-Ox 9": 211024, "Straight 10": 1020, "Straight 5": 1020, "Straight 6": 1020,
        "Straight 7": 1020, "Straight 8": 1020, "Straight 9": 1020, "Straight J": 1020, "Straight K": 1020,
        "Straight Q": 1020,
    },
}

PINNED_SCORE_DIGESTS = {
    "standard": "55b2b0dec4be899ddc58c7bf6e786fae3b122c03c927142aad61f55d1dae9d2f",
    "niu-niu": "93e98d6f925b9c1ce3b2acc0e74a8779f7d05f875f5c761e13b392c13d13a6bb",
    "niu-niu-plus": "1798a627f4ba3db92eb8e4cfe5f4a7c2fa68145d1693442aea1f6b084fbecf7b",
    "every-shape": "7d5f74ab0cee21c9ca6427c65c016e1c9edd56917be9ea48883c3d3321125794",
    "peer-rooms": "0947fbe955665adb90823346e309785a0a526a74d05c7d3bf461bedc9e609dd5",
}


def _all_hands() -> np.ndarray:
    return np.array(list(combinations(range(52), 5)), dtype=np.int8)


@pytest.mark.parametrize("profile", list(RULE_SETS))
def test_pinned_counts_are_totals(profile: str) -> None:
    assert sum(PINNED_COUNTS[profile].values()) == ALL_HANDS


@pytest.mark.exhaustive
@pytest.mark.parametrize("profile", list(RULE_SETS))
def test_score_digest_is_pinned(profile: str) -> None:
    scores, _ = evaluate_many(_all_hands(), RULE_SETS[profile])
    assert len(scores) == ALL_HANDS
    assert hashlib.sha256(scores.astype("<i2").tobytes()).hexdigest() == PINNED_SCORE_DIGESTS[profile]


@pytest.mark.exhaustive
@pytest.mark.parametrize("profile", list(RULE_SETS))
def test_every_hand_agrees_with_the_reference(profile: str) -> None:
    rules = RULE_SETS[profile]
    hands = _all_hands()
    vector_scores, _ = evaluate_many(hands, rules)
    counts: Counter[str] = Counter()
    mismatches: list[tuple[list[str], tuple[str, str, bool], tuple[str, str, bool]]] = []
    for i, codes in enumerate(hands.tolist()):
        cards = [CARDS[c] for c in codes]
        texts = [c.text for c in cards]
        expected = reference_evaluate(texts, rules)
        got = evaluate(cards, rules)
        counts[expected[1]] += 1
        if (got.category, got.label, got.nenku) != expected or got.score != vector_scores[i]:
            mismatches.append((texts, expected, (got.category, got.label, got.nenku)))
            if len(mismatches) >= 20:
                break
    assert mismatches == []
    assert dict(counts) == PINNED_COUNTS[profile]


def _shapes(hands: np.ndarray) -> dict[str, np.ndarray]:
    """RULES.md 4.1's shapes of every hand, ace low, with numpy (independent of the engine)."""
    ranks = np.sort(hands >> 2, axis=1)
    suits = hands & 3
    distinct = (np.diff(ranks, axis=1) > 0).all(axis=1)
    run = distinct & (ranks[:, 4] - ranks[:, 0] == 4)
    one_suit = (suits == suits[:, :1]).all(axis=1)
    counts = np.stack([(ranks == r).sum(axis=1) for r in range(13)], axis=1)
    full = (counts == 3).any(axis=1) & (counts == 2).any(axis=1)
    dragon = (ranks == np.arange(5)).all(axis=1)
    return {"straight": run & ~one_suit, "flush": one_suit & ~run, "full_house": full, "straight_flush": run & one_suit,
            "dragon": dragon}


def test_rules_4_1_counts_and_shares() -> None:
    """RULES.md 4.1's figures: straight 9,180 (plus 36 straight flushes), flush 5,112, full
    house 3,744, straight flush 36, dragon 1,024; about one hand in 144 is a straight, flush
    or full house, and 37 % of those have no ox under niu-niu's knobs (11 % under standard's).
    The engine's distributions count the same with each shape ranked first."""
    hands = _all_hands()
    shapes = _shapes(hands)
    assert {k: int(v.sum()) for k, v in shapes.items()} == {
        "straight": 9180, "flush": 5112, "full_house": 3744, "straight_flush": 36, "dragon": 1024}
    poker = shapes["straight"] | shapes["flush"] | shapes["full_house"] | shapes["straight_flush"]
    assert round(ALL_HANDS / int(poker.sum())) == 144
    for profile, share in (("niu-niu", 37), ("standard", 11)):
        _, categories = evaluate_many(hands[poker], PROFILES[profile].rules)
        no_ox = int((categories == CATEGORIES.index(Category.NO_OX)).sum())
        assert round(100 * no_ox / int(poker.sum())) == share, profile
    base = PROFILES["standard"].rules
    for first, expected in ((["straight_flush", "flush", "straight"], {"straight_flush": 36, "flush": 5112,
                                                                        "straight": 9180}),
                            (["full_house"], {"full_house": 3744}), (["dragon"], {"dragon": 1024})):
        rules = apply_overrides(base, {**dict.fromkeys(first, True),
                                       "ranking": [*first, *(c for c in base.ranking if c not in first)]})
        found = distribution(rules).categories
        assert {name: found[name] for name in first} == expected, first
