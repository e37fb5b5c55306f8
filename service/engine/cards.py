"""Cards and their notation (RULES.md section 1).

A card is a frozen :class:`Card` of a :class:`Rank` and a :class:`Suit`. Inside the
engine every card is also a small integer, its :attr:`Card.code`::

    code = (rank.order - 1) * 4 + suit.order        # 0 .. 51

    rank.order:  A=1  2=2 ... 10=10  J=11  Q=12  K=13
    suit.order:  D=0  C=1  H=2  S=3                 (RULES.md section 5: S > H > C > D)

so sorting codes sorts by rank (ace low) and then by suit, and a higher code is a higher
card in the ``high_card`` tie rule. ``CARDS[code]`` is the one :class:`Card` of a code.

Every accepted spelling is turned into a canonical card at the edge by
:func:`parse_card` / :func:`parse_hand`; nothing inside the engine sees a spelling.

>>> parse_card("10h")
Card(rank=<Rank.TEN: '10'>, suit=<Suit.HEARTS: 'H'>)
>>> [str(c) for c in parse_hand(["As", "Td", "0H", "k♣", "7S"])]
['AS', '10D', '10H', 'KC', '7S']
>>> parse_card("1S")
Traceback (most recent call last):
    ...
service.engine.cards.CardError: '1S' is not a card: write a rank (A 2-9 10 T 0 J Q K) then a suit (S H D C or ♠ ♥ ♦ ♣), e.g. 'AS' or '10H'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from service.engine.text import echo

__all__ = [
    "CARDS",
    "CARD_CODES",
    "Card",
    "CardError",
    "HandError",
    "Rank",
    "Suit",
    "accepted_spellings",
    "count_excess",
    "parse_card",
    "parse_hand",
]

HAND_SIZE = 5


class Rank(Enum):
    """A card rank; the value is the canonical notation.

    >>> Rank("Q").order, Rank("Q").base_points
    (12, 10)
    """

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    @cached_property
    def order(self) -> int:
        """1 for the ace up to 13 for the king (RULES.md section 5: K high, A low)."""
        return list(Rank).index(self) + 1

    @cached_property
    def base_points(self) -> int:
        """Ox points without the 3/6 swap (RULES.md section 2): A=1, 2-9 face, 10-K 10."""
        return min(self.order, 10)


class Suit(Enum):
    """A card suit; the value is the canonical notation.

    >>> Suit("S").order > Suit("H").order > Suit("C").order > Suit("D").order
    True
    """

    SPADES = "S"
    HEARTS = "H"
    CLUBS = "C"
    DIAMONDS = "D"

    @cached_property
    def order(self) -> int:
        """0 (diamonds) to 3 (spades): the suit order of the high-card rule."""
        return {"D": 0, "C": 1, "H": 2, "S": 3}[self.value]

    @cached_property
    def symbol(self) -> str:
        """The suit symbol, e.g. ``'♠'``."""
        return {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[self.value]


@dataclass(frozen=True)
class Card:
    """One playing card.

    :param rank: the card's rank.
    :param suit: the card's suit.

    >>> c = Card(Rank.ACE, Suit.SPADES)
    >>> str(c), c.code
    ('AS', 3)
    """

    rank: Rank
    suit: Suit
    #: The card's integer code, 0 (A♦) to 51 (K♠); see the module docstring.
    code: int = field(init=False, repr=False, compare=False)
    #: The canonical notation, e.g. ``'10H'``.
    text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", (self.rank.order - 1) * 4 + self.suit.order)
        object.__setattr__(self, "text", self.rank.value + self.suit.value)

    def __str__(self) -> str:
        return self.text


def _build_cards() -> tuple[Card, ...]:
    by_code: dict[int, Card] = {}
    for rank in Rank:
        for suit in Suit:
            card = Card(rank, suit)
            by_code[card.code] = card
    return tuple(by_code[code] for code in range(52))


#: The 52 cards, indexed by code.
CARDS: tuple[Card, ...] = _build_cards()

_RANK_SPELLINGS: dict[Rank, tuple[str, ...]] = {
    rank: (rank.value,) for rank in Rank
} | {Rank.TEN: ("10", "T", "0")}
_SUIT_SPELLINGS: dict[Suit, tuple[str, ...]] = {suit: (suit.value, suit.symbol) for suit in Suit}


def _build_spellings() -> dict[str, int]:
    table: dict[str, int] = {}
    for card in CARDS:
        for rank_text in _RANK_SPELLINGS[card.rank]:
            for suit_text in _SUIT_SPELLINGS[card.suit]:
                for r in {rank_text, rank_text.lower()}:
                    for s in {suit_text, suit_text.lower()}:
                        table[r + s] = card.code
    return table


#: Every accepted spelling (exact string) mapped to its card code.
CARD_CODES: dict[str, int] = _build_spellings()


def accepted_spellings() -> list[str]:
    """Every string :func:`parse_card` accepts, sorted (240 of them).

    >>> len(accepted_spellings()), "t♦" in accepted_spellings(), " AS" in accepted_spellings()
    (240, True, False)
    """
    return sorted(CARD_CODES)


def _json_type(value: object) -> str:
    """What a JSON reader would call the value's type: 'null', 'a number', 'an array', ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class CardError(ValueError):
    """A token that is not a card in any accepted notation."""


class HandError(ValueError):
    """A hand that is not five valid cards.

    :ivar problems: ``(index, message)`` pairs; ``index`` is the position of the bad card
        in the hand, or ``None`` for a problem with the hand as a whole (its size).
    """

    def __init__(self, problems: list[tuple[int | None, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(m if i is None else f"card {i}: {m}" for i, m in problems))


def parse_card(token: object) -> Card:
    """Turn one card token into a canonical :class:`Card` (RULES.md section 1).

    :param token: a string such as ``'AS'``, ``'10h'``, ``'Td'``, ``'0H'``, ``'A♠'``.
    :return: the card.
    :raises CardError: the token is not a string or not a card in any accepted notation.

    >>> str(parse_card("td")), str(parse_card("0C")), str(parse_card("Q♥"))
    ('10D', '10C', 'QH')
    >>> parse_card(7)
    Traceback (most recent call last):
        ...
    service.engine.cards.CardError: a card must be a string such as 'AS' or '10H', not a number
    """
    if not isinstance(token, str):
        raise CardError(f"a card must be a string such as 'AS' or '10H', not {_json_type(token)}")
    code = CARD_CODES.get(token)
    if code is None:
        raise CardError(
            f"{echo(token)} is not a card: write a rank (A 2-9 10 T 0 J Q K) then a suit "
            "(S H D C or ♠ ♥ ♦ ♣), e.g. 'AS' or '10H'"
        )
    return CARDS[code]


def count_excess(hands: Sequence[Sequence[int]], decks: int) -> list[tuple[int, int, int]]:
    """Find cards used more often than ``decks`` copies allow (RULES.md section 1).

    :param hands: hands of card codes, in table order (dealer first, then the players).
    :param decks: how many decks are in play, 1..8.
    :return: ``(hand_index, card_index, code)`` for every occurrence beyond the
        ``decks``-th of the same card, in reading order; empty when the table is valid.

    >>> count_excess([[0, 1, 2, 3, 4], [5, 0, 6, 7, 8]], decks=1)
    [(1, 1, 0)]
    >>> count_excess([[0, 1, 2, 3, 4], [5, 0, 6, 7, 8]], decks=2)
    []
    """
    seen = [0] * 52
    excess: list[tuple[int, int, int]] = []
    for h, hand in enumerate(hands):
        for i, code in enumerate(hand):
            seen[code] += 1
            if seen[code] > decks:
                excess.append((h, i, code))
    return excess


def parse_hand(tokens: Iterable[object], decks: int = 1) -> tuple[Card, ...]:
    """Turn five card tokens into canonical cards, in input order (RULES.md section 1).

    :param tokens: exactly five card tokens.
    :param decks: how many decks are in play (1..8): a card may appear at most this often.
    :return: the five cards, in input order.
    :raises HandError: naming every bad token by position, a repeated card, or a wrong
        number of cards.

    >>> parse_hand(["AS", "AS", "2H", "3H", "XX"])
    Traceback (most recent call last):
        ...
    service.engine.cards.HandError: card 4: 'XX' is not a card: write a rank (A 2-9 10 T 0 J Q K) then a suit (S H D C or ♠ ♥ ♦ ♣), e.g. 'AS' or '10H'; card 1: AS appears more than once (1 deck in play)
    >>> len(parse_hand(["AS", "AS", "2H", "3H", "4H"], decks=2))
    5
    """
    items = list(tokens)
    if len(items) != HAND_SIZE:
        raise HandError([(None, f"a hand is exactly {HAND_SIZE} cards, got {len(items)}")])
    problems: list[tuple[int | None, str]] = []
    cards: list[Card | None] = []
    for i, token in enumerate(items):
        try:
            cards.append(parse_card(token))
        except CardError as exc:
            problems.append((i, str(exc)))
            cards.append(None)
    seen = [0] * 52
    for i, card in enumerate(cards):
        if card is not None:
            seen[card.code] += 1
            if seen[card.code] > decks:
                problems.append((i, duplicate_message(card.code, decks)))
    if problems:
        raise HandError(problems)
    return tuple(c for c in cards if c is not None)


def duplicate_message(code: int, decks: int) -> str:
    """The message for a card used more often than ``decks`` allows.

    >>> duplicate_message(3, 2)
    'AS appears more than twice (2 decks in play)'
    """
    times = {1: "once", 2: "twice"}.get(decks, f"{decks} times")
    plural = "deck" if decks == 1 else "decks"
    return f"{CARDS[code]} appears more than {times} ({decks} {plural} in play)"
