"""Every one of the 2,598,960 one-deck hands, under `standard` and `niu-niu`.

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

from service.engine.cards import CARDS
from service.engine.evaluate import evaluate
from service.engine.rules import PROFILES
from service.engine.tables import evaluate_many
from tests.engine.reference import reference_evaluate

ALL_HANDS = 2_598_960

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
}

PINNED_SCORE_DIGESTS = {
    "standard": "55b2b0dec4be899ddc58c7bf6e786fae3b122c03c927142aad61f55d1dae9d2f",
    "niu-niu": "93e98d6f925b9c1ce3b2acc0e74a8779f7d05f875f5c761e13b392c13d13a6bb",
}


def _all_hands() -> np.ndarray:
    return np.array(list(combinations(range(52), 5)), dtype=np.int8)


@pytest.mark.parametrize("profile", ["standard", "niu-niu"])
def test_pinned_counts_are_totals(profile: str) -> None:
    assert sum(PINNED_COUNTS[profile].values()) == ALL_HANDS


@pytest.mark.exhaustive
@pytest.mark.parametrize("profile", ["standard", "niu-niu"])
def test_score_digest_is_pinned(profile: str) -> None:
    scores, _ = evaluate_many(_all_hands(), PROFILES[profile].rules)
    assert len(scores) == ALL_HANDS
    assert hashlib.sha256(scores.astype("<i2").tobytes()).hexdigest() == PINNED_SCORE_DIGESTS[profile]


@pytest.mark.exhaustive
@pytest.mark.parametrize("profile", ["standard", "niu-niu"])
def test_every_hand_agrees_with_the_reference(profile: str) -> None:
    rules = PROFILES[profile].rules
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
