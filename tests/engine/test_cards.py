"""RULES.md section 1: card notation in, canonical cards out."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine.batch import AT_ONCE_FROM
from service.engine.cards import CARDS, CardError, HandError, accepted_spellings, parse_card, parse_hand


@pytest.mark.parametrize(("token", "canonical"), [
    ("AS", "AS"), ("as", "AS"), ("10h", "10H"), ("Td", "10D"), ("tD", "10D"), ("0H", "10H"),
    ("kc", "KC"), ("A♠", "AS"), ("a♠", "AS"), ("Q♥", "QH"), ("0♦", "10D"), ("7♣", "7C"), ("J♣", "JC"),
])
def test_every_notation_parses_to_canonical(token: str, canonical: str) -> None:
    assert parse_card(token).text == canonical


@pytest.mark.parametrize("token", ["", "1", "1S", "11H", "AX", " AS", "AS ", "A S", "11", "♠A", "AS\n",
                                   "１S", "A♤", "KK", "010H", "1OH", "♠", "S", "X", " K", "K "])
def test_anything_else_is_rejected(token: str) -> None:
    with pytest.raises(CardError, match="is not a card"):
        parse_card(token)


def test_non_strings_are_rejected() -> None:
    for token in (10, None, ["AS"], 1.5, True):
        with pytest.raises(CardError, match="must be a string"):
            parse_card(token)


@pytest.mark.parametrize(("token", "canonical"), [
    ("A", "A"), ("a", "A"), ("2", "2"), ("9", "9"), ("10", "10"), ("T", "10"), ("t", "10"), ("0", "10"),
    ("J", "J"), ("j", "J"), ("q", "Q"), ("K", "K"), ("k", "K"),
])
def test_rank_only_tokens_are_cards_without_a_suit(token: str, canonical: str) -> None:
    """RULES.md 1.1: a rank alone, case-insensitive, ten as 10/T/0; echoed in canonical case."""
    card = parse_card(token)
    assert (card.text, card.suit) == (canonical, None)
    assert card.rank.value == canonical


def test_codes_and_canonical_text() -> None:
    assert [c.code for c in CARDS] == list(range(65))
    assert len({c.text for c in CARDS}) == 65
    assert len(accepted_spellings()) == 240 + 20  # 13 ranks, 7 with a lower-case form, ten also T t 0
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


def test_read_cards_names_every_bad_token_by_index() -> None:
    from service.engine.cards import read_cards

    assert read_cards(["as", "Td", "0♥"]) == ([3, 36, 38], {})
    codes, problems = read_cards(["AS", ["x"], 7, None, "1S"])
    assert codes == [3, None, None, None, None]
    assert problems == {
        1: "a card must be a string such as 'AS' or '10H', not an array",
        2: "a card must be a string such as 'AS' or '10H', not a number",
        3: "a card must be a string such as 'AS' or '10H', not null",
        4: "'1S' is not a card: write a rank (A 2-9 10 T 0 J Q K) then a suit (S H D C or ♠ ♥ ♦ ♣), e.g. 'AS' or '10H'",
    }
    for token in accepted_spellings():  # the reader and parse_card agree on every spelling
        assert read_cards([token])[0] == [parse_card(token).code]


def test_read_hand_checks_the_shape() -> None:
    from service.engine.cards import read_hand

    assert read_hand(["AS", "2D", "3C", "4H", "5S"]) == ([3, 4, 9, 14, 19], {})
    assert read_hand({"a": 1}) == ([], {None: "a hand must be an array of 5 cards"})
    assert read_hand(["AS"] * 11) == ([], {None: "a hand is exactly 5 cards, got 11"})
    codes, problems = read_hand(["AS", "ZZ", "2D", "3C", "4H", "5S"])
    assert codes == [3, None, 4, 9, 14, 19]
    assert list(problems) == [1, None]  # the cards first, then the hand


def test_read_hands_fast_and_per_hand_paths_agree() -> None:
    from service.engine.batch import Hands, read_hands
    from service.engine.cards import read_hand

    good = [["AS", "2D", "3C", "4H", "5S"], ["as", "as", "Td", "0h", "k♣"]] * (AT_ONCE_FROM // 2)
    hands, problems = read_hands(good)
    at_once = hands
    assert isinstance(hands, Hands)
    assert problems == {}
    assert hands == [tuple(read_hand(h)[0]) for h in good]
    assert hands.array.tolist() == [list(h) for h in hands]
    n = len(good)
    mixed = [*good, "AS", ["AS", "XX", "2D", "3C", "4H"]]
    hands, problems = read_hands(mixed)
    assert not isinstance(hands, Hands)
    assert hands == [read_hand(h)[0] for h in mixed]
    assert problems == {n: read_hand("AS")[1], n + 1: read_hand(mixed[n + 1])[1]}
    few, problems = read_hands(good[:AT_ONCE_FROM - 1])  # below the threshold: hand by hand, the same codes
    assert not isinstance(few, Hands)
    assert problems == {}
    assert [tuple(h) for h in few] == list(at_once[:AT_ONCE_FROM - 1])


_NEAR_CARDS = ["AS", "10h", "t♦", "k♣", "0c", "Q♥", "KD!", "K", "", "K,D", "K;", "KX", "AS,", ";", ",", "10", "1OS",
               "AS ", " AS", "10SS", "♠A", "A\u2660", "\u00c1S", "\U0001f0a1", "\ud800", "AS\x00", 'K"', 'KD"', "K\\",
               "KD\\", '"', "KD]", "K]", "\n"]
_TOKENS = st.one_of(st.sampled_from(_NEAR_CARDS), st.sampled_from(accepted_spellings()), st.text(max_size=4),
                    st.none(), st.integers(0, 60), st.lists(st.sampled_from(["AS", "2D", "KD"]), max_size=2),
                    st.dictionaries(st.sampled_from(["AS", "2D"]), st.sampled_from(["3C", 1])))


@pytest.mark.parametrize("token", [*_NEAR_CARDS, None, 7, ["AS"]])
@pytest.mark.parametrize("at", [0, 4, 7, 14])
def test_one_near_miss_among_good_hands_is_read_as_hand_by_hand(token: object, at: int) -> None:
    from service.engine.batch import Hands, read_hands
    from service.engine.cards import read_hand

    values: list[list[object]] = [["AS", "10h", "t♦", "k♣", "0c"] for _ in range(AT_ONCE_FROM)]
    values[at // 5][at % 5] = token
    hands, problems = read_hands(values)
    each = [read_hand(h) for h in values]
    assert [list(h) for h in hands] == [codes for codes, _ in each]
    assert problems == {i: found for i, (_, found) in enumerate(each) if found}
    assert isinstance(hands, Hands) == (not problems)


@pytest.mark.parametrize("hand", [["AS,2D", "3C", "4H", "5S"], ["AS,2D,3C,4H,5S"], ["AS;2D", "3C", "4H", "5S"],
                                  ["AS", "2D", "3C", "4H,5S"], ["AS,2D", "3C", "4H", "5S", "6D;7C"]])
def test_tokens_holding_separators_never_stand_in_for_cards(hand: list[object]) -> None:
    """Cards joined inside one token are one bad token, as hand by hand, however the
    commas make up for the missing tokens (found by an adversarial review)."""
    from service.engine.batch import read_hands
    from service.engine.cards import read_hand

    values: list[list[object]] = [["KD", "QS", "JH", "10C", "9D"], hand]
    hands, problems = read_hands(values)
    assert problems == {1: read_hand(hand)[1]}
    assert problems[1]
    assert [list(h) for h in hands] == [read_hand(h)[0] for h in values]


@pytest.mark.parametrize("hand", [[["AS", "2D"], None, "3C", "4H", "5S"], [{"AS": "2D"}, 1, "3C", "4H", "5S"],
                                  [["AS"], "2D", "3C", "4H", "5S"], ["AS", ["2D", "3C"], 7, "4H", "5S"],
                                  [{"AS": "2D", "3C": "4H"}, 1, 2, 3, "5S"], ["AS", "2D", "3C", "4H", {"5S": None}]])
def test_five_strings_in_another_shape_are_not_five_cards(hand: list[object]) -> None:
    """Nested arrays and objects can hold as many strings as a hand of five cards (the
    one-pass reader counts quotes in the hands written as JSON): each such hand is read
    on its own and its bad entries named, as hand by hand."""
    from service.engine.batch import read_hands
    from service.engine.cards import read_hand

    values: list[list[object]] = [["KD", "QS", "JH", "10C", "9D"], hand, ["AS", "2D", "3C", "4H", "6S"]]
    hands, problems = read_hands(values)
    assert problems == {1: read_hand(hand)[1]}
    assert problems[1]
    assert [list(h) for h in hands] == [read_hand(h)[0] for h in values]


@pytest.mark.parametrize("sizes", [(4, 6), (6, 4), (5, 4), (4,), (0, 5), (10,)])
def test_hands_of_other_sizes_are_read_as_hand_by_hand(sizes: tuple[int, ...]) -> None:
    from service.engine.batch import read_hands
    from service.engine.cards import read_hand

    values = [["AS", "2D", "3C", "4H", "5S", "6D", "7C", "8H", "9S", "KD"][:n] for n in sizes]
    hands, problems = read_hands(values)
    assert problems == {i: read_hand(h)[1] for i, h in enumerate(values) if len(h) != 5}
    assert [list(h) for h in hands] == [read_hand(h)[0] for h in values]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.lists(_TOKENS, min_size=4, max_size=6), st.lists(st.sampled_from(accepted_spellings()),
                                                                                min_size=5, max_size=5)),
                max_size=6))
def test_read_hands_equals_hand_by_hand_for_any_tokens(values: list[list[object]]) -> None:
    """The one-pass reader (tokens joined and looked up with numpy) gives what reading
    each hand on its own gives, for near-miss spellings, separators inside tokens, other
    sizes and types, and lone surrogates."""
    from service.engine.batch import Hands, read_hands
    from service.engine.cards import read_hand

    good: list[object] = ["AS", "10h", "t♦", "k♣", "0c"]
    values = [*values, *[good] * AT_ONCE_FROM]  # enough hands for the one-pass reader
    hands, problems = read_hands(values)
    each = [read_hand(h) for h in values]
    assert [list(h) for h in hands] == [codes for codes, _ in each]
    assert problems == {i: found for i, (_, found) in enumerate(each) if found}
    assert isinstance(hands, Hands) == (not problems)


def test_count_excess_shared_and_per_hand() -> None:
    from service.engine.cards import count_excess

    table = [[0, 1, 2, 3, 4], [0, 5, 6, 7, 8], [0, 0, 9, 10, 11]]
    assert count_excess(table, 1) == [(1, 0, 0), (2, 0, 0), (2, 1, 0)]
    assert count_excess(table, 2) == [(2, 0, 0), (2, 1, 0)]
    assert count_excess(table, 1, shared=False) == [(2, 1, 0)]
    assert count_excess([[0, None, None, 0]], 1) == [(0, 3, 0)]
    assert count_excess([[5] * 5], 4, shared=False) == [(0, 4, 5)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.one_of(st.integers(0, 7), st.none()), max_size=6), max_size=8), st.integers(1, 3))
def test_count_excess_shared_is_a_plain_count(hands: list[list[int | None]], decks: int) -> None:
    """Every occurrence of a card past its ``decks``-th, in reading order (a few codes, so
    repeats are common: the sorted-run check that answers "none" must never miss one)."""
    from service.engine.cards import count_excess

    seen: dict[int, int] = {}
    expected = []
    for h, hand in enumerate(hands):
        for i, code in enumerate(hand):
            if code is not None:
                seen[code] = seen.get(code, 0) + 1
                if seen[code] > decks:
                    expected.append((h, i, code))
    assert count_excess(hands, decks) == expected


def test_deck_constants() -> None:
    from service.engine.cards import DECK_SIZE, HAND_SIZE, MAX_DECKS

    assert HAND_SIZE == 5
    assert len(CARDS) == DECK_SIZE + 13  # and the 13 rank-only cards (RULES.md 1.1)
    assert MAX_DECKS == 8
