"""Deals from seeds (``gnau-deal-v1``, RULES.md section 9.1) in the engine: section 8's
worked deal, the HMAC blocks and the commitment against ``openssl dgst`` (an implementation
that shares nothing with Python's), and the shuffle's uniformity by chi-square."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from service.engine.cards import CARDS, parse_card, seats
from service.engine.deal import (
    ALGORITHM,
    block,
    commitment,
    deal,
    shuffle,
    starting_order,
    stream,
)
from tests.tools import missing_tool

#: RULES.md section 8.
SEED = bytes.fromhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
CLIENT = "player-1"
COMMITMENT = "sha256:630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
BLOCK_0 = "2d5ed446a31af7cafc69f85d4bcc697f7d2d61e528fa6aeb1953b53c9a3c3f8d"
NONCE_0 = ["9D 7H 5S 6C 10D", "4S 10H 10S 10C AS", "KS 6D 8C QC 4H", "4C 7S 4D 2D 5H"]
NONCE_1 = ["JC 9D 8D JS 4S", "3D 9H 10S AS AH", "3C 5H 2H JD 9S", "QC 8C 10C 4C KS"]


def text(hands: list[list[int]]) -> list[str]:
    """Hands of codes as section 8 writes them."""
    return [" ".join(str(CARDS[c]) for c in hand) for hand in hands]


def test_section_8_deal() -> None:
    assert ALGORITHM == "gnau-deal-v1"
    assert commitment(SEED) == COMMITMENT
    assert block(SEED, CLIENT, 0, 0).hex() == BLOCK_0
    assert next(stream(SEED, CLIENT, 0)) == 761189446
    assert text(deal(SEED, CLIENT, 0, decks=1, hands=4)) == NONCE_0
    assert text(deal(SEED, CLIENT, 1, decks=1, hands=4)) == NONCE_1


def test_section_8_first_swap() -> None:
    """The first u, 761189446, makes the first swap i = 51, j = 30 (section 8)."""
    order = starting_order(1)
    assert 761189446 % 52 == 30
    # Later draws of 0 only ever swap positions below 51 with position 0.
    shuffled = shuffle(list(order), iter([761189446] + [0] * 60))
    assert str(CARDS[shuffled[51]]) == str(CARDS[order[30]]) == "5D"


def _spec_shuffle(cards: list[int], draws: list[int]) -> list[int]:
    """RULES.md 9.1 step 4 read plainly: for i from the last position down to 1, draw until
    u < 2^32 - (2^32 mod (i + 1)), then swap i and u mod (i + 1)."""
    cards, k = list(cards), 0
    for i in range(len(cards) - 1, 0, -1):
        while draws[k] >= 2**32 - 2**32 % (i + 1):
            k += 1
        j = draws[k] % (i + 1)
        k += 1
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.mark.parametrize("decks", [1, 2, 8])
@pytest.mark.parametrize("where", [None, "first", "second", "middle", "last"])
def test_the_shuffle_is_step_4_with_and_without_rejected_draws(decks: int, where: str | None) -> None:
    """Draws near 2^32 (rejected for most sizes: not the powers of two, whose limit is 2^32)
    at any position, and the largest draw the shuffle's quick path takes, give step 4's result."""
    import random

    order = starting_order(decks)
    n = len(order)
    rng = random.Random(f"{decks}:{where}")
    draws = [rng.randrange(2**32 - n) for _ in range(n + 8)]
    if where is None:
        draws[n // 2] = 2**32 - n - 1  # below every limit: taken on the quick path
    else:
        at = {"first": 0, "second": 1, "middle": n // 2, "last": n - 2}[where]
        draws[at:at] = [2**32 - 1, 2**32 - 2]
    assert shuffle(list(order), iter(draws)) == _spec_shuffle(order, draws)


def test_starting_order_and_round_robin() -> None:
    order = starting_order(2)
    assert [str(CARDS[c]) for c in order[:14]] == ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S",
                                                   "JS", "QS", "KS", "AH"]
    assert order[52:] == order[:52]
    assert [str(CARDS[c]) for c in order[39:52]][-1] == "KC"
    # Round-robin: hand h holds the shuffled positions h, h + hands, ...
    shuffled = shuffle(list(starting_order(1)), stream(SEED, CLIENT, 0))
    hands = deal(SEED, CLIENT, 0, decks=1, hands=4)
    assert hands[1] == [shuffled[1], shuffled[5], shuffled[9], shuffled[13], shuffled[17]]


def test_more_decks_and_the_most_hands() -> None:
    hands = deal(SEED, CLIENT, 7, decks=8, hands=seats(8))
    assert len(hands) == 83
    assert all(len(h) == 5 for h in hands)
    counts = Counter(c for h in hands for c in h)
    assert max(counts.values()) <= 8
    one_deck = deal(SEED, CLIENT, 7, decks=1, hands=10)
    assert len({c for h in one_deck for c in h}) == 50


def test_unicode_client_seed_is_utf8() -> None:
    """The message is UTF-8 (RULES.md 9.1): a non-ASCII client seed deals as its bytes say."""
    import hashlib
    import hmac

    expected = hmac.new(SEED, "玩家-é:3:0".encode(), hashlib.sha256).digest()
    assert block(SEED, "玩家-é", 3, 0) == expected


@pytest.mark.parametrize(("seed", "client", "nonce"), [
    (SEED, CLIENT, 0), (bytes(range(64)), "玩家-é", 2**53 - 1), (b"\xff" * 16, ":", 10**12)])
def test_the_stream_reads_its_blocks_in_order(seed: bytes, client: str, nonce: int) -> None:
    """:func:`stream` (one keyed HMAC, copied per block) is :func:`block` 0, 1, … read as
    big-endian 32-bit integers, past the tenth block (two- and three-digit numbers)."""
    import struct
    from itertools import islice

    expected = [u for n in range(120) for u in struct.unpack(">8I", block(seed, client, nonce, n))]
    assert list(islice(stream(seed, client, nonce), len(expected))) == expected


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"server_seed": bytes(15)}, "a server seed is 16 to 64 bytes"),
    ({"client_seed": ""}, "a client seed is 1 to 256 code points"),
    ({"client_seed": "x" * 257}, "a client seed is 1 to 256 code points"),
    ({"nonce": 2**53}, "a nonce is 0 to 9007199254740991"),
    ({"decks": 9}, "decks is 1 to 8"),
    ({"hands": 1}, "1 deck deals 2 to 10 hands, not 1"),
    ({"decks": 2, "hands": 21}, "2 decks deal 2 to 20 hands, not 21"),
])
def test_deal_refuses_what_the_api_refuses(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"server_seed": SEED, "client_seed": CLIENT, "nonce": 0, "decks": 1, "hands": 4}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        deal(args.pop("server_seed"), args.pop("client_seed"), args.pop("nonce"), **args)  # type: ignore[arg-type]


def test_the_largest_inputs() -> None:
    seed = bytes(range(64))
    hands = deal(seed, "☃" * 256, 2**53 - 1, decks=1, hands=2)
    assert len(hands) == 2


@pytest.fixture(scope="module")
def openssl(pytestconfig: pytest.Config) -> str:
    """The openssl command, the independent implementation the blocks are checked against."""
    found = shutil.which("openssl")
    if found is None:
        missing_tool(pytestconfig, "openssl", "openssl is not on PATH: the HMAC blocks are not checked against it")
    return found


@pytest.mark.parametrize(("seed_hex", "client", "nonce", "n"), [
    (SEED.hex(), CLIENT, 0, 0),
    (SEED.hex(), CLIENT, 0, 1),
    (SEED.hex(), CLIENT, 1, 0),
    ("ff" * 16, "玩家 one", 9007199254740991, 12),
    ("0123456789ABCDEFabcdef0123456789" * 4, ":", 42, 3),
])
def test_blocks_and_commitment_match_openssl(openssl: str, tmp_path: Path, seed_hex: str, client: str, nonce: int,
                                             n: int) -> None:
    """Block ``n`` is HMAC-SHA256 keyed by the seed's bytes over ``client:nonce:n``, and the
    commitment SHA-256 of the seed's bytes, as OpenSSL computes them."""
    seed = bytes.fromhex(seed_hex)
    message = tmp_path / "message"
    message.write_bytes(f"{client}:{nonce}:{n}".encode())
    mac = subprocess.run([openssl, "dgst", "-sha256", "-mac", "HMAC", "-macopt", f"hexkey:{seed.hex()}",
                          "-r", str(message)], capture_output=True, text=True, check=True).stdout.split()[0]
    assert mac == block(seed, client, nonce, n).hex()
    seed_file = tmp_path / "seed"
    seed_file.write_bytes(seed)
    digest = subprocess.run([openssl, "dgst", "-sha256", "-r", str(seed_file)], capture_output=True, text=True,
                            check=True).stdout.split()[0]
    assert "sha256:" + digest == commitment(seed)


# chi-square critical values at the 99.9 % level for 51 degrees of freedom (52 cells):
# scipy.stats.chi2.ppf(0.999, 51) = 87.968 (tables: 87.97).
CHI2_999_DF51 = 87.968
DEALS = 20_000


def chi_square(counts: Counter[int], cells: int, total: int) -> float:
    """Pearson's statistic of ``counts`` over ``cells`` equally likely cells."""
    expected = total / cells
    return sum((counts.get(cell, 0) - expected) ** 2 / expected for cell in range(cells))


def test_first_card_and_one_cards_position_are_uniform() -> None:
    """20,000 deals of fixed seeds and nonces 0..19,999: the first card dealt takes each of
    the 52 cards, and the ace of spades each of the 52 positions of the shuffled deck,
    about equally often (chi-square at the 99.9 % level, 51 degrees of freedom).
    Deterministic: the same seeds give the same statistics on every run."""
    seed = bytes.fromhex("5eed" * 16)
    ace = parse_card("AS").code
    first: Counter[int] = Counter()
    where: Counter[int] = Counter()
    for nonce in range(DEALS):
        shuffled = shuffle(starting_order(1), stream(seed, "chi-square", nonce))
        first[shuffled[0]] += 1
        where[shuffled.index(ace)] += 1
    assert sum(first.values()) == sum(where.values()) == DEALS
    first_stat, where_stat = chi_square(first, 52, DEALS), chi_square(where, 52, DEALS)
    assert first_stat < CHI2_999_DF51, f"first card: chi-square {first_stat:.1f}"
    assert where_stat < CHI2_999_DF51, f"position of AS: chi-square {where_stat:.1f}"
    # and the first card dealt is the shuffled position 0, hand 0's first card
    assert deal(seed, "chi-square", 5, decks=1, hands=2)[0][0] == shuffle(starting_order(1),
                                                                      stream(seed, "chi-square", 5))[0]
