"""Cards and their notation (RULES.md section 1).

A card is a frozen :class:`Card` of a :class:`Rank` and a :class:`Suit`. Inside the
engine every card is also a small integer, its :attr:`Card.code`::

    code = (rank.order - 1) * 4 + suit.order        # 0 .. 51

    rank.order:  A=1  2=2 ... 10=10  J=11  Q=12  K=13
    suit.order:  D=0  C=1  H=2  S=3                 (RULES.md section 5: S > H > C > D)

so sorting codes sorts by rank (ace low) and then by suit, and a higher code is a higher
card in the ``high_card`` tie rule. ``CARDS[code]`` is the one :class:`Card` of a code.

A **rank-only** card (RULES.md 1.1: ``A``, ``2`` ... ``10``, ``J``, ``Q``, ``K``, written
without a suit) has a code of its own after the 52, :data:`SUITLESS_BASE` ``+ rank.order - 1``
(52 for ``A`` .. 64 for ``K``), so answers echo it as written (:data:`CARD_TEXTS`), and a
suited **stand-in** (:data:`STAND_IN`: its rank in diamonds, ``A`` the ace of diamonds, an ace
that is not the ace of spades) for everything that evaluates: where suitless input is
accepted no rule reads suits, so the stand-in scores exactly as the card would.

Every accepted spelling is turned into a card code at the edge by one reader,
:func:`read_cards` (with :func:`read_hand` for the shape of a hand, and
:func:`service.engine.batch.read_hands` for a batch), and every repeat check is one
counter, :func:`count_excess`; the API's
schemas, the command line and the analyses all use them, and :func:`parse_card` /
:func:`parse_hand` are the same two, raising. Nothing inside the engine sees a spelling.

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
from itertools import chain
from operator import eq

from service.engine.text import echo

__all__ = [
    "ACE_OF_SPADES",
    "CARDS",
    "CARD_CODES",
    "CARD_TEXTS",
    "CODES",
    "DECK_SIZE",
    "HAND_SIZE",
    "MAX_DECKS",
    "SORT_KEY",
    "STAND_IN",
    "SUITLESS_BASE",
    "Card",
    "CardError",
    "HandError",
    "Rank",
    "Suit",
    "accepted_spellings",
    "count_excess",
    "duplicate_message",
    "is_suitless",
    "parse_card",
    "parse_hand",
    "read_cards",
    "read_hand",
    "seats",
    "with_suits",
]

#: Cards in a hand.
HAND_SIZE = 5
#: Cards in one deck.
DECK_SIZE = 52
#: The most decks a request may play with (RULES.md section 1: ``decks`` 1..8).
MAX_DECKS = 8
#: The ace of spades' code (the only suit Gnau reads, RULES.md 1.1).
ACE_OF_SPADES = 3
#: The code of the rank-only ``A`` (RULES.md 1.1); ``K`` is this plus 12.
SUITLESS_BASE = DECK_SIZE
#: Every card code: the 52 suited cards, then the 13 rank-only ones.
CODES = DECK_SIZE + 13


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
    :param suit: the card's suit; ``None`` for a rank-only card (RULES.md 1.1), whose ace
        is not the ace of spades.

    >>> c = Card(Rank.ACE, Suit.SPADES)
    >>> str(c), c.code
    ('AS', 3)
    >>> str(Card(Rank.KING, None)), Card(Rank.KING, None).code
    ('K', 64)
    """

    rank: Rank
    suit: Suit | None
    #: The card's integer code, 0 (A♦) to 51 (K♠), 52 (``A``) to 64 (``K``); see the module docstring.
    code: int = field(init=False, repr=False, compare=False)
    #: The canonical notation, e.g. ``'10H'``, or ``'10'`` without a suit.
    text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.suit is None:
            object.__setattr__(self, "code", SUITLESS_BASE + self.rank.order - 1)
            object.__setattr__(self, "text", self.rank.value)
            return
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
        card = Card(rank, None)
        by_code[card.code] = card
    return tuple(by_code[code] for code in range(CODES))


#: The 52 suited cards and the 13 rank-only ones (RULES.md 1.1), indexed by code.
CARDS: tuple[Card, ...] = _build_cards()
#: Each card's canonical text (:attr:`Card.text`), indexed by code: how answers write cards.
CARD_TEXTS: tuple[str, ...] = tuple(card.text for card in CARDS)
#: Each code's suited stand-in for evaluation: itself for a suited card; for a rank-only
#: card its rank in diamonds (``A``: the ace of diamonds, not the ace of spades).
STAND_IN: tuple[int, ...] = tuple(code if code < DECK_SIZE else (code - SUITLESS_BASE) * 4 for code in range(CODES))

#: Each code's place in a hand sorted by rank (ace low, the ace of spades above the other
#: aces): ``2 × STAND_IN[code]``, plus 1 for a rank-only card, so that it sorts beside its
#: stand-in, never level with a suited card: the formation reported never depends on the
#: order the cards were written in.
SORT_KEY: tuple[int, ...] = tuple(2 * STAND_IN[code] + (code >= SUITLESS_BASE) for code in range(CODES))


def is_suitless(code: int) -> bool:
    """Whether a card code is a rank-only card (RULES.md 1.1).

    >>> is_suitless(CARD_CODES["k"]), is_suitless(CARD_CODES["KS"])
    (True, False)
    """
    return code >= SUITLESS_BASE

_RANK_SPELLINGS: dict[Rank, tuple[str, ...]] = {
    rank: (rank.value,) for rank in Rank
} | {Rank.TEN: ("10", "T", "0")}
_SUIT_SPELLINGS: dict[Suit, tuple[str, ...]] = {suit: (suit.value, suit.symbol) for suit in Suit}


def _build_spellings() -> dict[str, int]:
    table: dict[str, int] = {}
    for card in CARDS[:DECK_SIZE]:
        assert card.suit is not None
        for rank_text in _RANK_SPELLINGS[card.rank]:
            for suit_text in _SUIT_SPELLINGS[card.suit]:
                for r in {rank_text, rank_text.lower()}:
                    for s in {suit_text, suit_text.lower()}:
                        table[r + s] = card.code
    for rank in Rank:  # rank-only tokens (RULES.md 1.1)
        code = SUITLESS_BASE + rank.order - 1
        for rank_text in _RANK_SPELLINGS[rank]:
            table[rank_text] = table[rank_text.lower()] = code
    return table


#: Every accepted spelling (exact string) mapped to its card code.
CARD_CODES: dict[str, int] = _build_spellings()


def accepted_spellings() -> list[str]:
    """Every string :func:`parse_card` accepts, sorted (240 suited, 20 rank-only).

    >>> len(accepted_spellings()), "t♦" in accepted_spellings(), " AS" in accepted_spellings(), "t" in accepted_spellings()
    (260, True, False, True)
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


def _problem(token: object) -> str:
    """Why ``token`` is not a card, in the service's words (callers know it is not one)."""
    if not isinstance(token, str):
        return f"a card must be a string such as 'AS' or '10H', not {_json_type(token)}"
    return (f"{echo(token)} is not a card: write a rank (A 2-9 10 T 0 J Q K) then a suit "
            "(S H D C or ♠ ♥ ♦ ♣), e.g. 'AS' or '10H'")


def parse_card(token: object) -> Card:
    """Turn one card token into a canonical :class:`Card` (RULES.md section 1; a rank-only
    token, section 1.1, is a card without a suit).

    :param token: a string such as ``'AS'``, ``'10h'``, ``'Td'``, ``'0H'``, ``'A♠'``, ``'t'``.
    :return: the card.
    :raises CardError: the token is not a string or not a card in any accepted notation.

    >>> str(parse_card("td")), str(parse_card("0C")), str(parse_card("Q♥"))
    ('10D', '10C', 'QH')
    >>> parse_card(7)
    Traceback (most recent call last):
        ...
    service.engine.cards.CardError: a card must be a string such as 'AS' or '10H', not a number
    """
    code = CARD_CODES.get(token) if isinstance(token, str) else None
    if code is None:
        raise CardError(_problem(token))
    return CARDS[code]


def read_cards(tokens: Sequence[object]) -> tuple[list[int | None], dict[int, str]]:
    """Read card tokens into codes: the one card reader of the service (RULES.md section 1).

    A list of known spellings (the common case) is one ``map`` through :data:`CARD_CODES`;
    only when something is wrong is each bad token looked at and named.

    :param tokens: card tokens, any JSON values.
    :return: the codes in input order (``None`` where a token is not a card) and, by
        index, why each bad token is not a card (empty when all are cards).

    >>> read_cards(["as", "Td"])
    ([3, 36], {})
    >>> read_cards(["as", "1S", 7])
    ([3, None, None], {1: "'1S' is not a card: write a rank (A 2-9 10 T 0 J Q K) then a suit (S H D C or ♠ ♥ ♦ ♣), e.g. 'AS' or '10H'", 2: "a card must be a string such as 'AS' or '10H', not a number"})
    """
    get = CARD_CODES.get
    try:
        codes: list[int | None] = list(map(get, tokens))  # type: ignore[arg-type]  # a non-string: None
    except TypeError:  # an unhashable token (an array or an object)
        codes = [get(t) if isinstance(t, str) else None for t in tokens]
    if None not in codes:
        return codes, {}
    return codes, {i: _problem(token) for i, (token, code) in enumerate(zip(tokens, codes, strict=True))
                   if code is None}


def read_hand(value: object) -> tuple[list[int | None], dict[int | None, str]]:
    """Read one hand: :func:`read_cards`, and the hand's own shape.

    :param value: the hand as sent: an array of :data:`HAND_SIZE` card tokens.
    :return: the codes (``None`` where bad; empty when ``value`` is not an array or far
        too long) and the problems by card index, with the hand's own problem under
        ``None`` (after the cards').

    >>> read_hand(["AS", "2D", "3C", "4H"])
    ([3, 4, 9, 14], {None: 'a hand is exactly 5 cards, got 4'})
    >>> read_hand("AS 2D 3C 4H 5S")
    ([], {None: 'a hand must be an array of 5 cards'})
    """
    if not isinstance(value, list):
        return [], {None: f"a hand must be an array of {HAND_SIZE} cards"}
    if len(value) > 2 * HAND_SIZE:  # far off: say so once, not once per card
        return [], {None: f"a hand is exactly {HAND_SIZE} cards, got {len(value)}"}
    codes, found = read_cards(value)
    problems: dict[int | None, str] = {}
    problems.update(found.items())
    if len(value) != HAND_SIZE:
        problems[None] = f"a hand is exactly {HAND_SIZE} cards, got {len(value)}"
    return codes, problems


def seats(decks: int, dead: int = 0) -> int:
    """How many hands of five ``decks`` decks seat, every hand its own five cards: the one
    count behind every bound on hands (RULES.md section 1): the hands a deal deals (9.1), the
    seats of a showdown (6.6), a table's players besides the dealer (``seats(decks) - 1``),
    the opponents of an odds question (``seats(decks, dead) - 1``).

    :param decks: decks in play, 1..8.
    :param dead: cards out of play (dead cards), 0 or more.
    :return: ``floor((52 × decks − dead) / 5)``, at least 0.

    >>> seats(1), seats(8), seats(2, dead=7)
    (10, 83, 19)
    """
    return max(0, (DECK_SIZE * decks - dead) // HAND_SIZE)


def count_excess(hands: Sequence[Sequence[int | None]], decks: int, *,
                 shared: bool = True) -> list[tuple[int, int, int]]:
    """Find cards beyond what ``decks`` decks hold: the one repeat counter (RULES.md
    sections 1 and 1.1).

    Each suited card at most ``decks`` times; with rank-only cards (1.1) also at most
    ``4 × decks`` cards of a rank and ``3 × decks`` aces other than the ace of spades (``A``,
    ``AH``, ``AD``, ``AC`` together). Without a rank-only card the last two never bind.

    :param hands: hands (or other card lists, e.g. dead cards) of codes, ``None`` where a
        card was bad (skipped); :class:`~service.engine.batch.Hands` (a batch read in one
        pass) say with numpy which of them to count.
    :param decks: how many decks are in play, 1..8.
    :param shared: count across all the lists (a table, a hand and its dead cards);
        ``False`` counts within each on its own (a batch of hands).
    :return: ``(hand_index, card_index, code)`` for every card that exceeds a count, in
        reading order; ``code`` is the card itself where its own copies are exceeded, else
        the rank-only code of its rank (:func:`duplicate_message` words either). Empty
        when all is valid.

    >>> count_excess([[0, 1, 2, 3, 4], [5, 0, 6, 7, 8]], decks=1)
    [(1, 1, 0)]
    >>> count_excess([[0, 1, 2, 3, 4], [5, 0, 6, 7, 8]], decks=2)
    []
    >>> count_excess([[0, 1, 0, None, 0], [5, 5]], decks=1, shared=False)
    [(0, 2, 0), (0, 4, 0), (1, 1, 5)]
    >>> k, a = CARD_CODES["K"], CARD_CODES["A"]
    >>> count_excess([[k, k, k, k, k], [a, a, a, a, 5]], decks=1, shared=False)
    [(0, 4, 64), (1, 3, 52)]
    """
    if shared:  # the common case first: no card beyond its copies at all
        flat = list(chain.from_iterable(hands))
        if None not in flat and flat:
            # Sorted, a card held more than ``decks`` times is a run reaching ``decks`` places on.
            ordered = sorted(flat)  # type: ignore[type-var]  # no None in it
            if ordered[-1] < SUITLESS_BASE and not any(map(eq, ordered, ordered[decks:])):  # type: ignore[operator]
                return []
    which: Iterable[int] = range(len(hands))
    if not shared:
        repeating = getattr(hands, "repeating", None)  # engine.batch.Hands: found with numpy
        which = repeating(decks) if repeating else [
            h for h, hand in enumerate(hands)
            if len(set(hand)) < len(hand) or any(c is not None and c >= SUITLESS_BASE for c in hand)]
    excess: list[tuple[int, int, int]] = []
    seen = [0] * CODES
    for h in which:
        if not shared:
            seen = [0] * CODES
        for i, code in enumerate(hands[h]):
            if code is not None:
                over = _count(seen, code, decks)
                if over is not None:
                    excess.append((h, i, over))
    return excess


#: ``seen`` slots of :func:`_count` beyond the codes: cards per rank, then aces other than A♠.
_RANK_SLOT = CODES
_PLAIN_ACES = CODES + 13


def _count(seen: list[int], code: int, decks: int) -> int | None:
    """Count one card into ``seen`` (per code, per rank, plain aces: grown as needed); the
    code whose count it exceeds (:func:`count_excess`), or ``None``."""
    if len(seen) == CODES:
        seen.extend([0] * 14)
    seen[code] += 1
    if code < SUITLESS_BASE and seen[code] > decks:
        return code
    rank = code - SUITLESS_BASE if code >= SUITLESS_BASE else code >> 2
    seen[_RANK_SLOT + rank] += 1
    if seen[_RANK_SLOT + rank] > 4 * decks:
        return SUITLESS_BASE + rank
    if rank == 0 and code != ACE_OF_SPADES:
        seen[_PLAIN_ACES] += 1
        if seen[_PLAIN_ACES] > 3 * decks:
            return SUITLESS_BASE
    return None



def duplicate_message(code: int, decks: int) -> str:
    """The message for a card beyond what ``decks`` decks hold (a code from
    :func:`count_excess`).

    >>> duplicate_message(3, 2)
    'AS appears more than twice (2 decks in play)'
    >>> duplicate_message(CARD_CODES["K"], 1), duplicate_message(CARD_CODES["A"], 2)
    ('more than 4 Ks (1 deck in play)', 'more than 6 aces other than the ace of spades (2 decks in play)')
    """
    plural = "deck" if decks == 1 else "decks"
    if code == SUITLESS_BASE:
        return f"more than {3 * decks} aces other than the ace of spades ({decks} {plural} in play)"
    if code > SUITLESS_BASE:
        return f"more than {4 * decks} {CARD_TEXTS[code]}s ({decks} {plural} in play)"
    times = {1: "once", 2: "twice"}.get(decks, f"{decks} times")
    return f"{CARDS[code]} appears more than {times} ({decks} {plural} in play)"


def with_suits(lists: Sequence[Sequence[int]], decks: int) -> list[list[int]]:
    """The card lists with every rank-only card (RULES.md 1.1) given a suit no copy of
    which is used up yet (diamonds, clubs, hearts, then spades; an ``A`` never the ace of
    spades), counting across all the lists: the deck the cards leave is then exact where no
    rule reads suits (an analysis that removes known cards from the deck).

    :param lists: card lists of codes, within :func:`count_excess`'s counts (shared).
    :param decks: decks in play.
    :return: the same lists, suited.

    >>> k, a = CARD_CODES["K"], CARD_CODES["A"]
    >>> [[CARD_TEXTS[c] for c in cards] for cards in with_suits([[k, 48, k], [a]], 1)]
    [['KC', 'KD', 'KH'], ['AD']]
    """
    used = [0] * DECK_SIZE
    for cards in lists:
        for code in cards:
            if code < SUITLESS_BASE:
                used[code] += 1
    out: list[list[int]] = []
    for cards in lists:
        suited: list[int] = []
        for code in cards:
            if code >= SUITLESS_BASE:
                first = (code - SUITLESS_BASE) * 4
                suits = range(3) if code == SUITLESS_BASE else range(4)  # D C H (S), by suit order
                code = next((first + s for s in suits if used[first + s] < decks), first)
                used[code] += 1
            suited.append(code)
        out.append(suited)
    return out


def parse_hand(tokens: Iterable[object], decks: int = 1) -> tuple[Card, ...]:
    """Turn five card tokens into canonical cards, in input order (RULES.md section 1):
    :func:`read_hand` and :func:`count_excess`, raising.

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
    codes, found = read_hand(list(tokens))
    problems = list(found.items())
    problems += [(i, duplicate_message(code, decks)) for _, i, code in count_excess([codes], decks)]
    if problems:
        raise HandError(problems)
    return tuple(CARDS[c] for c in codes if c is not None)
