"""RULES.md section 1: card notation in, canonical cards out."""

from __future__ import annotations

import pytest

from service.engine.cards import CARDS, CardError, HandError, accepted_spellings, parse_card, parse_hand


@pytest.mark.parametrize(("token", "canonical"), [
    ("AS", "AS"), ("as", "AS"), ("10h", "10H"), ("Td", "10D"), ("tD", "10D"), ("0H", "10H"),
    ("kc", "KC"), ("A♠", "AS"), ("a♠", "AS"), ("Q♥", "QH"), ("0♦", "10D"), ("7♣", "7C"), ("J♣", "JC"),
])
def test_every_notation_parses_to_canonical(token: str, canonical: str) -> None:
    assert parse_card(token).text == canonical


@pytest.mark.parametrize("token", ["", "A", "1S", "11H", "AX", " AS", "AS ", "A S", "10", "♠A", "AS\n",
                                   "１S", "A♤", "KK", "010H", "1OH"])
def test_anything_else_is_rejected(token: str) -> None:
    with pytest.raises(CardError, match="is not a card"):
        parse_card(token)


def test_non_strings_are_rejected() -> None:
    for token in (10, None, ["AS"], 1.5, True):
        with pytest.raises(CardError, match="must be a string"):
            parse_card(token)


def test_codes_and_canonical_text() -> None:
    assert [c.code for c in CARDS] == list(range(52))
    assert len({c.text for c in CARDS}) == 52
    assert len(accepted_spellings()) == 240
    assert {parse_card(s).text for s in accepted_spellings()} == {c.text for c in CARDS}


def test_hand_errors_name_every_position() -> None:
    with pytest.raises(HandError) as info:
        parse_hand(["AS", "ZZ", "as", "2H", "3H"])
    assert info.value.problems == [
        (1, "'ZZ' is not a card: write a rank (A 2-9 10 T 0 J Q K) then a suit (S H D C or ♠ ♥ ♦ ♣), e.g. 'AS' or '10H'"),
        (2, "AS appears more than once (1 deck in play)"),
    ]
    with pytest.raises(HandError, match="exactly 5 cards, got 4"):
        parse_hand(["AS", "2S", "3S", "4S"])


def test_decks_allow_repeats() -> None:
    assert [c.text for c in parse_hand(["AS"] * 3 + ["2S", "2S"], decks=3)] == ["AS", "AS", "AS", "2S", "2S"]
    with pytest.raises(HandError, match="more than twice"):
        parse_hand(["AS"] * 3 + ["2S", "2H"], decks=2)
