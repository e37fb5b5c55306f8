"""Deals from seeds: ``gnau-deal-v1`` (RULES.md section 9.1).

The service never chooses or keeps a seed. An operator commits to a secret **server
seed** by publishing its :func:`commitment`, a player contributes a **client seed**, and
the operator counts **nonces** (one per round). From those three inputs :func:`deal`
shuffles ``52 × decks`` cards and deals the hands, and anyone who learns the server seed
after the round recomputes the same deal with any HMAC-SHA256 implementation.

The steps (RULES.md 9.1):

1. the commitment is ``sha256:`` and the lower-case hex SHA-256 of the server seed's bytes;
2. block ``n`` of the byte stream is HMAC-SHA256, keyed by the server seed's bytes, of the
   UTF-8 bytes of ``client_seed + ":" + nonce + ":" + n`` (decimal); the stream is read
   4 bytes at a time as big-endian unsigned 32-bit integers ``u`` (:func:`stream`);
3. the starting order is, deck after deck, ``AS 2S … KS AH … KH AD … KD AC … KC``
   (:func:`starting_order`);
4. Fisher–Yates from the last position down to 1, each ``j`` drawn without bias by
   rejecting ``u ≥ 2^32 − (2^32 mod (i + 1))`` (:func:`shuffle`);
5. round-robin: hand ``h`` gets positions ``h``, ``h + hands``, … ``h + 4 × hands``.

Plain Python over :mod:`hashlib`, :mod:`hmac` and ``cryptography``'s HMAC: cards are the engine's codes
(:mod:`service.engine.cards`), and nothing here reads or writes a seed anywhere.

RULES.md section 8's worked deal:

>>> from service.engine.cards import CARDS
>>> seed = bytes(range(32))
>>> commitment(seed)
'sha256:630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
>>> block(seed, "player-1", 0, 0).hex()
'2d5ed446a31af7cafc69f85d4bcc697f7d2d61e528fa6aeb1953b53c9a3c3f8d'
>>> next(stream(seed, "player-1", 0))
761189446
>>> [" ".join(str(CARDS[c]) for c in hand) for hand in deal(seed, "player-1", 0, decks=1, hands=4)]
['9D 7H 5S 6C 10D', '4S 10H 10S 10C AS', 'KS 6D 8C QC 4H', '4C 7S 4D 2D 5H']
>>> [" ".join(str(CARDS[c]) for c in hand) for hand in deal(seed, "player-1", 1, decks=1, hands=4)]
['JC 9D 8D JS 4S', '3D 9H 10S AS AH', '3C 5H 2H JD 9S', 'QC 8C 10C 4C KS']
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator
from itertools import chain, count, islice

from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.hmac import HMAC

from service.engine.cards import DECK_SIZE, HAND_SIZE, MAX_DECKS, Rank, Suit, seats

__all__ = [
    "ALGORITHM",
    "MAX_CLIENT_SEED_CODE_POINTS",
    "MAX_NONCE",
    "MAX_SEED_BYTES",
    "MIN_HANDS",
    "MIN_SEED_BYTES",
    "block",
    "commitment",
    "deal",
    "shuffle",
    "starting_order",
    "stream",
]

#: The algorithm's name, as answers carry it.
ALGORITHM = "gnau-deal-v1"
#: The server seed's size in bytes (written as twice as many hex digits).
MIN_SEED_BYTES = 16
MAX_SEED_BYTES = 64
#: The client seed's length, in Unicode code points (at least 1).
MAX_CLIENT_SEED_CODE_POINTS = 256
#: The largest nonce, 2^53 − 1 (the largest integer every JSON client reads exactly).
MAX_NONCE = 2**53 - 1
#: The fewest hands a deal deals.
MIN_HANDS = 2

_U32 = 2**32
_SUIT_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
#: One deck's starting order (:func:`starting_order`), as card codes.
_ONE_DECK = tuple((rank.order - 1) * 4 + suit.order for suit in _SUIT_ORDER for rank in Rank)
#: A block (32 bytes) read as eight big-endian unsigned 32-bit integers.
_EIGHT_U32 = struct.Struct(">8I")


def commitment(server_seed: bytes) -> str:
    """The published commitment to a server seed (RULES.md 9.1 step 1).

    :param server_seed: the seed's bytes (16 to 64 of them; not checked here).
    :return: ``sha256:`` and 64 lower-case hex digits.

    >>> commitment(b"\\x00" * 16)
    'sha256:374708fff7719dd5979ec875d56cd2286f6d3cf7ec317a3b25632aab28ec37bb'
    """
    return "sha256:" + hashlib.sha256(server_seed).hexdigest()


def block(server_seed: bytes, client_seed: str, nonce: int, n: int) -> bytes:
    """Block ``n`` of a deal's byte stream (RULES.md 9.1 step 2): 32 bytes.

    :param server_seed: the HMAC key, the server seed's bytes.
    :param client_seed: the client seed (any Unicode text; encoded as UTF-8).
    :param nonce: the round's nonce, 0 or more.
    :param n: the block's number, 0 or more.
    :return: HMAC-SHA256(server_seed, UTF-8 of ``f"{client_seed}:{nonce}:{n}"``).
    """
    return hmac.digest(server_seed, f"{client_seed}:{nonce}:{n}".encode(), "sha256")


def stream(server_seed: bytes, client_seed: str, nonce: int) -> Iterator[int]:
    """The deal's stream of unsigned 32-bit integers (RULES.md 9.1 step 2): blocks 0, 1, …
    read 4 bytes at a time, big-endian; endless.

    Each block is :func:`block`'s HMAC, computed from one HMAC keyed by the server seed
    that has read ``client_seed:nonce:`` (copied, then given the block's number: the same
    bytes, without keying the HMAC and encoding the seed again for every block). The copies
    are ``cryptography``'s (about 0.6 µs a block against the standard library's 1.2: a
    deal of one deck reads 7 blocks; a test compares the two), and the integers are handed
    out by a C iterator (a deal draws about one per card).

    :param server_seed: the server seed's bytes.
    :param client_seed: the client seed.
    :param nonce: the round's nonce.

    >>> s = stream(bytes(range(32)), "player-1", 0)
    >>> [next(s) for _ in range(3)]
    [761189446, 2736453578, 4234803293]
    """
    keyed = HMAC(server_seed, SHA256())
    keyed.update(f"{client_seed}:{nonce}:".encode())

    def numbered(n: int) -> tuple[int, ...]:
        mac = keyed.copy()
        mac.update(b"%d" % n)
        return _EIGHT_U32.unpack(mac.finalize())

    return chain.from_iterable(map(numbered, count()))


def starting_order(decks: int) -> list[int]:
    """The cards before the shuffle (RULES.md 9.1 step 3), as card codes: for each deck in
    turn, spades, hearts, diamonds, clubs, each from the ace to the king.

    :param decks: decks in play, 1..8.
    :return: ``52 × decks`` card codes.

    >>> from service.engine.cards import CARDS
    >>> [str(CARDS[c]) for c in starting_order(1)[:3] + starting_order(1)[-2:]]
    ['AS', '2S', '3S', 'QC', 'KC']
    >>> len(starting_order(2))
    104
    """
    return list(_ONE_DECK * decks)


def shuffle(cards: list[int], draws: Iterator[int]) -> list[int]:
    """Shuffle ``cards`` in place by Fisher–Yates (RULES.md 9.1 step 4) and return them.

    For ``i`` from the last position down to 1: take the next ``u`` from ``draws`` until
    ``u < 2^32 − (2^32 mod (i + 1))`` (so every ``j`` is equally likely), let
    ``j = u mod (i + 1)`` and swap positions ``i`` and ``j``.

    :param cards: the cards, in their starting order.
    :param draws: unsigned 32-bit integers (:func:`stream`).
    :return: ``cards``, shuffled.

    >>> shuffle([0, 1, 2], iter([2**32 - 1, 4, 0]))  # 2^32 - 1 is rejected for i = 2 (j = 4 mod 3)
    [2, 0, 1]
    >>> shuffle([0, 1, 2], iter([4, 0]))
    [2, 0, 1]

    Every limit is above ``2^32 − len(cards)``: when no draw of the first ``len(cards) − 1``
    reaches that (all but always), none is rejected and the swaps take them in turn.
    """
    n = len(cards)
    first = list(islice(draws, max(n - 1, 0)))  # one draw a position, unless one is rejected
    if len(first) == n - 1 and max(first, default=0) < _U32 - n:  # under every limit: none is rejected
        for i, u in zip(range(n - 1, 0, -1), first, strict=True):
            j = u % (i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        return cards
    draws = chain(first, draws)
    limits = _LIMITS if n <= len(_LIMITS) else _limits(n)
    for i in range(n - 1, 0, -1):
        size = i + 1
        limit = limits[size]
        u = next(draws)
        while u >= limit:
            u = next(draws)
        j = u % size
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def _limits(n: int) -> tuple[int, ...]:
    """For each ``size`` up to ``n``, the draws below which ``u mod size`` is unbiased:
    ``2^32 − (2^32 mod size)`` (index 0 unused)."""
    return (0, *(_U32 - _U32 % size for size in range(1, n + 1)))


_LIMITS = _limits(DECK_SIZE * MAX_DECKS)


def deal(server_seed: bytes, client_seed: str, nonce: int, *, decks: int, hands: int) -> list[list[int]]:
    """The hands of a deal (RULES.md 9.1): shuffle ``52 × decks`` cards from the seeds and
    nonce, then deal five cards to each hand, round by round.

    :param server_seed: the server seed's bytes (16 to 64).
    :param client_seed: the client seed (1 to 256 code points).
    :param nonce: the round's nonce, 0 to 2^53 − 1.
    :param decks: decks in play, 1..8.
    :param hands: hands dealt, 2 to :func:`~service.engine.cards.seats` ``(decks)``.
    :return: ``hands`` lists of five card codes; hand ``h`` holds the shuffled positions
        ``h, h + hands, …, h + 4 × hands``.
    :raises ValueError: an input outside those bounds (the API checks them first and
        names the field).

    >>> deal(bytes(16), "x", 0, decks=1, hands=11)
    Traceback (most recent call last):
        ...
    ValueError: 1 deck deals 2 to 10 hands, not 11
    """
    _check(server_seed, client_seed, nonce, decks, hands)
    shuffled = shuffle(starting_order(decks), stream(server_seed, client_seed, nonce))
    return [shuffled[h:h + HAND_SIZE * hands:hands] for h in range(hands)]


def _check(server_seed: bytes, client_seed: str, nonce: int, decks: int, hands: int) -> None:
    if not MIN_SEED_BYTES <= len(server_seed) <= MAX_SEED_BYTES:
        raise ValueError(f"a server seed is {MIN_SEED_BYTES} to {MAX_SEED_BYTES} bytes")
    if not 1 <= len(client_seed) <= MAX_CLIENT_SEED_CODE_POINTS:
        raise ValueError(f"a client seed is 1 to {MAX_CLIENT_SEED_CODE_POINTS} code points")
    if not 0 <= nonce <= MAX_NONCE:
        raise ValueError(f"a nonce is 0 to {MAX_NONCE}")
    if not 1 <= decks <= MAX_DECKS:
        raise ValueError(f"decks is 1 to {MAX_DECKS}")
    if not MIN_HANDS <= hands <= seats(decks):
        raise ValueError(f"{decks} deck{'s' if decks > 1 else ''} deal{'' if decks > 1 else 's'} "
                         f"{MIN_HANDS} to {seats(decks)} hands, not {hands}")
