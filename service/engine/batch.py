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
from itertools import chain
from typing import overload

import numpy as np
import numpy.typing as npt

from service.engine.cards import CARD_CODES, HAND_SIZE, read_hand

__all__ = ["Hands", "read_hands"]


class Hands(Sequence[tuple[int, ...]]):
    """Hands read in one pass by :func:`read_hands`: a sequence of five-code tuples, made
    only when asked for; :attr:`array` holds the same codes as one numpy array (for
    :meth:`repeating` and the vectorised evaluation, which need no tuples).

    :param codes: the hands' codes one after the other, one byte each.
    :ivar array: the same codes as an ``(n, 5)`` ``uint8`` array (read-only).

    >>> hands = Hands(bytes([3, 4, 9, 14, 19, 0, 1, 2, 3, 4]))
    >>> len(hands), hands[1], hands.array[1].tolist(), hands == [(3, 4, 9, 14, 19), (0, 1, 2, 3, 4)]
    (2, (0, 1, 2, 3, 4), [0, 1, 2, 3, 4], True)
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
        return self._rows[index]

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return iter(self._rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self._rows == list(other)

    def __repr__(self) -> str:
        return repr(self._rows)

    def repeating(self, decks: int) -> list[int]:
        """The indexes of the hands holding some card more than ``decks`` times (numpy: in a
        row sorted by code, a card is there more than ``d`` times when the cards ``d``
        apart are equal somewhere).

        >>> Hands(bytes([3, 3, 9, 14, 19, 0, 1, 2, 3, 4, 5, 5, 5, 6, 7])).repeating(1)
        [0, 2]
        >>> Hands(bytes([3, 3, 9, 14, 19, 0, 1, 2, 3, 4, 5, 5, 5, 6, 7])).repeating(2)
        [2]
        """
        if decks >= HAND_SIZE:
            return []
        ordered = np.sort(self.array, axis=1)
        found: list[int] = np.flatnonzero((ordered[:, decks:] == ordered[:, :-decks]).any(axis=1)).tolist()
        return found


def read_hands(values: Sequence[object]) -> tuple[Sequence[Sequence[int | None]], dict[int, dict[int | None, str]]]:
    """Read many hands (a batch): :func:`~service.engine.cards.read_hand` of each, with a
    fast path inside.

    When every hand is an array of five known spellings (the common case), the shapes
    are checked in one pass and all the tokens are mapped at once: the hands come back as
    :class:`Hands`. Otherwise each hand is read on its own, so every bad card is named.

    :param values: the hands as sent.
    :return: the codes of each hand (as :func:`read_hand` gives them) and the problems of
        each hand that has any, by hand index.

    >>> hands, problems = read_hands([["AS", "2D", "3C", "4H", "5S"]])
    >>> hands, hands.array.shape, problems
    ([(3, 4, 9, 14, 19)], (1, 5), {})
    >>> read_hands([["AS", "2D", "3C", "4H", "5S"], ["AS"]])
    ([[3, 4, 9, 14, 19], [3]], {1: {None: 'a hand is exactly 5 cards, got 1'}})
    """
    if set(map(type, values)) <= {list} and set(map(len, values)) <= {HAND_SIZE}:  # type: ignore[arg-type]
        try:
            flat = bytes(list(map(CARD_CODES.get, chain.from_iterable(values))))  # type: ignore[arg-type]
        except TypeError:  # a token that is not a card (None), or unhashable
            pass
        else:
            return Hands(flat), {}
    out: list[Sequence[int | None]] = []
    problems: dict[int, dict[int | None, str]] = {}
    for i, value in enumerate(values):
        codes, found = read_hand(value)
        if found:
            problems[i] = found
        out.append(codes)
    return out, problems
