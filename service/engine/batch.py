"""A batch of hands read in one pass (``POST /v1/evaluations/batch``: up to 50,000 card
strings), on :mod:`service.engine.cards`' reader and repeat counter.

:func:`read_hands` is :func:`~service.engine.cards.read_hand` of every hand with a fast
path inside: when every hand is five known spellings, the shapes are checked at once and
all the tokens mapped at once, into :class:`Hands`, whose numpy array the repeat counter
(:func:`~service.engine.cards.count_excess`, through :meth:`Hands.repeating`) and the
vectorised evaluation use. Otherwise each hand is read on its own and every bad card named.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import Any, overload

import numpy as np
import numpy.typing as npt
import orjson

from service.engine.cards import ACE_OF_SPADES, CARD_CODES, HAND_SIZE, SUITLESS_BASE, read_hand
from service.engine.classes import ByCode, sort_hands

__all__ = ["AT_ONCE_FROM", "Hands", "read_hands"]

#: Every character of a card spelling (:data:`~service.engine.cards.CARD_CODES`), by
#: number: 1, 2, ...; the double quote (what follows the last character of a token, in
#: the tokens written as JSON) is 0, and :data:`_OTHER` any other character.
_ALPHABET = {ch: i for i, ch in enumerate(sorted(set("".join(CARD_CODES))), start=1)}
_OTHER = 63
_CHAR_IDS: npt.NDArray[np.intp] = np.full(max(map(ord, _ALPHABET)) + 2, _OTHER, dtype=np.intp)
_CHAR_IDS[ord('"')] = 0
for _ch, _id in _ALPHABET.items():
    _CHAR_IDS[ord(_ch)] = _id


def _spelling_key(spelling: str) -> int:
    """A spelling's first three characters' numbers, six bits each (the closing quote
    after two; after one, the closing quote and then a comma or a bracket, both
    :data:`_OTHER`)."""
    padded = spelling + '",'
    a, b, c = padded[0], padded[1], padded[2]
    return int(_CHAR_IDS[ord(a)] << 12 | _CHAR_IDS[ord(b)] << 6 | _CHAR_IDS[ord(c)])


#: The code of each spelling by :func:`_spelling_key`; 255 where no card is spelled so.
_KEY_CODES = np.full(1 << 18, 255, dtype=np.uint8)
for _spelling, _code in CARD_CODES.items():
    _KEY_CODES[_spelling_key(_spelling)] = _code
#: The longest spelling, in characters.
_LONGEST = max(map(len, CARD_CODES))


def _plain_tokens(values: Sequence[list[object]]) -> tuple[npt.NDArray[np.integer[Any]], npt.NDArray[np.intp]] | None:
    """Hands of :data:`HAND_SIZE` entries each written as one JSON text by orjson (in C:
    no Python string per token or hand), ``[["AS","2D",...],[...]]``, as characters
    (bytes, or code points when any is not ASCII), and where each token starts in it; or
    ``None`` unless every entry is a string of 1 to 3 characters with no escape in it:

    - no backslash: no token holds an escaped character, so every double quote opens or
      closes a token;
    - ``10 n`` quotes, and the text exactly as long as ``n`` hands of five strings of
      those lengths with their brackets and commas: anything else in a hand (a number,
      ``null``, a nested array or object) adds characters no string accounts for;
    - each token 1 to :data:`_LONGEST` characters.

    An entry that is not JSON text (or holds a lone surrogate) makes orjson refuse.
    """
    try:
        text = orjson.dumps(values)
    except orjson.JSONEncodeError:
        return None
    if b"\\" in text:
        return None
    points: npt.NDArray[np.integer[Any]] = np.frombuffer(text, dtype=np.uint8)
    if points.max() >= 128:  # by code point, not by byte
        points = np.frombuffer(text.decode().encode("utf-32-le"), dtype=np.uint32)
    quotes = np.flatnonzero(points == 34)
    hands = len(values)
    tokens = hands * HAND_SIZE
    if len(quotes) != 2 * tokens:
        return None
    starts, ends = quotes[0::2] + 1, quotes[1::2]
    lengths = ends - starts
    # Nothing but the tokens: two outer brackets, two a hand, a comma between hands, four
    # inside each, two quotes a token.
    if len(points) != 2 + 2 * hands + (hands - 1) + (HAND_SIZE - 1) * hands + 2 * tokens + int(lengths.sum()):
        return None
    if int(lengths.min()) < 1 or int(lengths.max()) > _LONGEST:
        return None
    return points, starts


def _codes_at_once(values: Sequence[list[object]]) -> bytes | None:
    """The codes of hands of :data:`HAND_SIZE` tokens each (the caller checks each list's
    length), one byte each, when every token is a card's spelling; else ``None`` (read
    them one by one).

    The tokens (:func:`_plain_tokens`) are looked up all at once by the numbers of their
    first three characters (a two-character token has its closing quote for the third),
    in :data:`_KEY_CODES`. About 1 ms for 10,000 hands (joining the tokens in Python and
    looking them up took 2 ms).

    >>> list(_codes_at_once([["AS", "10h", "t♦", "2C", "KD"]]))
    [3, 38, 36, 5, 48]
    >>> list(_codes_at_once([["a", "10", "t", "K", "kd"]]))   # rank-only cards (RULES.md 1.1)
    [52, 61, 61, 64, 48]
    >>> bad = ("KD!", "Z", "", "K,D", "KD,", "K;", "KX", 'K"', "K" + chr(92), 1, None, ["KD"])
    >>> [_codes_at_once([["AS", "10h", "t♦", "2C", token]]) for token in bad]
    [None, None, None, None, None, None, None, None, None, None, None, None]
    >>> _codes_at_once([[["AS", "10h"], "t♦", "2C", 1, "KD"]]) is None  # five strings, not five cards
    True
    """
    if not values:
        return b""
    found = _plain_tokens(values)
    if found is None:
        return None
    points, starts = found
    wide = points.dtype == np.uint32  # bytes need no clamping: _CHAR_IDS is longer than 256

    def ids(k: int) -> npt.NDArray[np.intp]:  # the numbers of each token's k-th character
        chars = points[starts + k]
        looked_up: npt.NDArray[np.intp] = _CHAR_IDS[np.minimum(chars, len(_CHAR_IDS) - 1) if wide else chars]
        return looked_up

    codes = _KEY_CODES[ids(0) << 12 | ids(1) << 6 | ids(2)]
    if (codes == 255).any():
        return None
    flat: bytes = codes.tobytes()
    return flat


class Hands(Sequence[tuple[int, ...]]):
    """Hands read in one pass by :func:`read_hands`: a sequence of five-code tuples, made
    only when asked for; :attr:`array` holds the same codes as one numpy array (for
    :meth:`repeating` and the vectorised evaluation, which need no tuples).

    :param codes: the hands' codes one after the other, one byte each.
    :ivar array: the same codes as an ``(n, 5)`` ``uint8`` array (read-only).

    >>> hands = Hands(bytes([3, 4, 9, 14, 19, 0, 1, 2, 3, 4]))
    >>> len(hands), hands[1], hands[-2], hands.array[1].tolist(), hands == [(3, 4, 9, 14, 19), (0, 1, 2, 3, 4)]
    (2, (0, 1, 2, 3, 4), (3, 4, 9, 14, 19), [0, 1, 2, 3, 4], True)
    >>> hands[2]
    Traceback (most recent call last):
        ...
    IndexError: hand index out of range
    """

    __hash__ = None  # type: ignore[assignment]  # compares by value, like a list

    def __init__(self, codes: bytes) -> None:
        self.array: npt.NDArray[np.uint8] = np.frombuffer(codes, dtype=np.uint8).reshape(-1, HAND_SIZE)
        self._codes = codes

    @cached_property
    def _rows(self) -> list[tuple[int, ...]]:
        return list(zip(*[iter(self._codes)] * HAND_SIZE, strict=True))

    def __len__(self) -> int:
        return len(self.array)

    @overload
    def __getitem__(self, index: int) -> tuple[int, ...]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, ...]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, ...] | list[tuple[int, ...]]:
        if isinstance(index, int):  # one hand: no need to make every tuple
            start = (index if index >= 0 else index + len(self)) * HAND_SIZE
            if not 0 <= start < len(self._codes):
                raise IndexError("hand index out of range")
            return tuple(self._codes[start:start + HAND_SIZE])
        return self._rows[index]

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return iter(self._rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self._rows == list(other)

    def __repr__(self) -> str:
        return repr(self._rows)

    @cached_property
    def by_code(self) -> ByCode:
        """Each hand's codes sorted ascending and their input positions, both ``(n, 5)``
        (:func:`~service.engine.classes.sort_hands`): sorted once for the repeat check, the
        class lookup and the formations.

        >>> [a.tolist() for a in Hands(bytes([3, 4, 9, 14, 0])).by_code]
        [[[0, 3, 4, 9, 14]], [[4, 0, 1, 2, 3]]]
        """
        return sort_hands(self.array)

    def repeating(self, decks: int) -> list[int]:
        """The indexes of the hands holding some card more than ``decks`` times (numpy: in a
        row sorted by code, a card is there more than ``d`` times when the cards ``d``
        apart are equal somewhere).

        >>> Hands(bytes([3, 3, 9, 14, 19, 0, 1, 2, 3, 4, 5, 5, 5, 6, 7])).repeating(1)
        [0, 2]
        >>> Hands(bytes([3, 3, 9, 14, 19, 0, 1, 2, 3, 4, 5, 5, 5, 6, 7])).repeating(2)
        [2]

        With one deck, a hand holding a rank-only card (RULES.md 1.1) is listed too: its rank
        and plain-ace counts may bind without a repeated code (``K KS KH KD KC``).

        >>> Hands(bytes([64, 51, 50, 49, 48, 0, 1, 2, 3, 4, 64, 64, 52, 52, 7])).repeating(1)
        [0]
        >>> Hands(bytes([52, 52, 52, 0, 7, 52, 52, 52, 3, 7])).repeating(1)  # four plain aces; three and A♠
        [0]
        """
        if decks >= HAND_SIZE:
            return []
        ordered = self.by_code[0]
        same = ordered[:, decks:] == ordered[:, :-decks]
        if int(ordered[:, -1].max(initial=0)) < SUITLESS_BASE:
            found: list[int] = np.flatnonzero(same.any(axis=1)).tolist()
            return found
        # Rank-only cards repeat freely; only suited ones have copies to exceed.
        hits = (same & (ordered[:, decks:] < SUITLESS_BASE)).any(axis=1)
        if decks == 1:  # with more decks, 4 x decks and 3 x decks exceed no hand of five
            ranks = np.where(ordered >= SUITLESS_BASE, ordered - SUITLESS_BASE, ordered >> 2)
            plain_aces = ((ranks == 0) & (ordered != ACE_OF_SPADES)).sum(axis=1)
            hits |= (ranks == ranks[:, :1]).all(axis=1) | (plain_aces > 3)
        found = np.flatnonzero(hits).tolist()
        return found


#: From this many hands on, :func:`read_hands` reads all the tokens at once with numpy (below
#: it, numpy's fixed cost is more than reading the hands one by one).
AT_ONCE_FROM = 48


def read_hands(values: Sequence[object]) -> tuple[Sequence[Sequence[int | None]], dict[int, dict[int | None, str]]]:
    """Read many hands (a batch): :func:`~service.engine.cards.read_hand` of each, with a
    fast path inside.

    When there are :data:`AT_ONCE_FROM` hands or more and every hand is an array of five
    known spellings (the common case), the shapes are checked in one pass and all the tokens
    are mapped at once: the hands come back as :class:`Hands`. Otherwise each hand is read
    on its own, so every bad card is named.

    :param values: the hands as sent.
    :return: the codes of each hand (as :func:`read_hand` gives them) and the problems of
        each hand that has any, by hand index.

    >>> hands, problems = read_hands([["AS", "2D", "3C", "4H", "5S"]] * AT_ONCE_FROM)
    >>> hands[0], hands.array.shape, problems
    ((3, 4, 9, 14, 19), (48, 5), {})
    >>> read_hands([["AS", "2D", "3C", "4H", "5S"], ["AS"]])
    ([[3, 4, 9, 14, 19], [3]], {1: {None: 'a hand is exactly 5 cards, got 1'}})
    """
    if (len(values) >= AT_ONCE_FROM and set(map(type, values)) <= {list}
            and set(map(len, values)) <= {HAND_SIZE}):  # type: ignore[arg-type]
        flat = _codes_at_once(values)  # type: ignore[arg-type]
        if flat is not None:
            return Hands(flat), {}
    out: list[Sequence[int | None]] = []
    problems: dict[int, dict[int | None, str]] = {}
    for i, value in enumerate(values):
        codes, found = read_hand(value)
        if found:
            problems[i] = found
        out.append(codes)
    return out, problems
