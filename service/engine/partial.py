"""Exact odds before the last cards come: 3, 4 or 5 known cards, as player or as dealer
(RULES.md sections 4-6; issue 14).

The caller knows ``k`` of the five cards of its hand (3, 4 or 5). The other ``5 - k`` are
drawn uniformly from the cards left (``52 * decks`` less the known and the dead cards,
copies of a card counted apart), then one opponent hand of five from what is left after
that: every **deal** (completion, opponent hand) is equally likely and each one is
accounted for. The opponent is the dealer when ``role == "player"`` and a player when
``role == "dealer"``; each deal is settled as :func:`~service.engine.settle.settle_one`
does, and the answer is from the caller's side (its wins, its net).

**As dealer against several players.** The round's net is the sum of the nets against
each player; every player's hand, taken alone, is a uniformly random five of the cards left
after the dealer's completion (whatever the others hold), so by linearity of expectation
the round's expected net is exactly ``opponents`` times the expectation against one
unknown hand. tests/test_partial.py checks this against the literal enumeration of every
seating of 3 opponents on a reduced deck.

**Method.** Two groupings, both reusing :mod:`service.engine.odds`:

- rules that use no suits (:func:`~service.engine.odds.uses_suits`): completions are grouped
  by their pseudo-ranks (a completion's class and the opponent's cards left per pseudo-rank
  depend on nothing else), and each group is one sum over the 8,568 classes;
- otherwise one walk of the card multisets of the opponent ``D``. With one unknown card ``c``
  the number of physical deals ``(c, D)`` is ``w(D) * (n_c - m_c(D))`` (``n_c`` copies of
  ``c`` left, ``m_c(D)`` of them in ``D``), so the sum over deals is, per opponent hand,
  the sum over every ``c`` weighted ``n_c`` (a function of the opponent's strength and
  high-card order, one binary search into the completions sorted by strength) less the
  five terms of the cards ``D`` holds. With two unknown cards the first of them is
  enumerated (each unordered completion then counted twice, halved at the end).

The expected net is computed from per-deal outcomes (win, lose, push) and payouts in one
place, :func:`_net`, so a bet type that changes the amounts settles there.

>>> from service.engine.cards import parse_card
>>> from service.engine.rules import PROFILES
>>> p = partial_odds([parse_card(t) for t in "AS KH 10D 4C".split()], PROFILES["standard"].rules)
>>> p.completions, p.deals == 48 * comb(47, 5), p.labels["Ngau Tonku"]
(48, True, 8)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations, combinations_with_replacement
from math import comb, prod

import numpy as np
import numpy.typing as npt

from service.engine.cards import CARDS, Card
from service.engine.cards import HAND_SIZE as HAND
from service.engine.classes import CHOOSE, CLASS_COUNTS, PSEUDO_RANKS
from service.engine.classes import pseudo_rank as _pseudo_rank
from service.engine.distribution import labels_of
from service.engine.evaluate import evaluate
from service.engine.odds import Chances, OddsError, dealer_pool, odds, uses_suits
from service.engine.rules import Rules
from service.engine.tables import Table, table_for
from service.engine.walk import CHUNK as _CHUNK
from service.engine.walk import colex_rank
from service.engine.walk import multiset_weights as _multiset_weights
from service.engine.walk import slot_masks as _slot_masks
from service.engine.walk import suited_flags as _suited
from service.engine.walk import walk as _walk

__all__ = ["ROLES", "Completion", "PartialOdds", "max_opponents", "partial_odds"]

ROLES = ("player", "dealer")
_SHIFT = 23  # a multiset's colex rank is below C(56, 5) = 3,819,816 < 2**22


def max_opponents(known: int, dead: int, decks: int) -> int:
    """How many opponents the decks seat: every hand is five cards, none shared.

    :param known: the caller's known cards (its hand takes five in the end).
    :param dead: dead cards.
    :param decks: decks in play.

    >>> max_opponents(4, 0, 1), max_opponents(3, 7, 2)
    (9, 18)
    """
    del known  # the caller's hand is five cards once complete, whatever is known now
    return max(0, (52 * decks - dead - HAND) // HAND)


@dataclass(frozen=True)
class Completion:
    """One final hand the known cards can become.

    :param label: the final hand's label.
    :param category: its category.
    :param score: its score (higher is stronger).
    :param completions: how many completions (physical cards apart) give it.
    :param cards: with 4 known cards, the fifth cards (codes, ascending) that give it; empty otherwise.
    """

    label: str
    category: str
    score: int
    completions: int
    cards: tuple[int, ...] = ()


@dataclass(frozen=True)
class PartialOdds(Chances):
    """The caller's exact results over every deal (completion, one opponent hand).

    :param known: known cards, 3..5.
    :param role: ``player`` (against the dealer) or ``dealer`` (against one player).
    :param completions: how many completions (``C(cards left, 5 - known)``).
    :param deals: how many deals: ``completions * C(cards left - (5 - known), 5)``.
    :param wins: deals the caller wins; ``losses``, ``pushes`` likewise.
    :param net: the caller's total net over all deals, per unit stake.
    :param outcomes: every label a completion can give, strongest first (nonzero only).
    :param method: ``rank_classes`` or ``card_multisets`` (as :class:`~service.engine.odds.Odds`).
    """

    known: int
    role: str
    completions: int
    deals: int
    wins: int
    losses: int
    pushes: int
    net: int
    outcomes: tuple[Completion, ...]
    method: str
    labels: dict[str, int] = field(default_factory=dict)

    @property
    def counted(self) -> int:
        """Every deal counted (the denominator of :class:`~service.engine.odds.Chances`)."""
        return self.deals

    @property
    def expected_net(self) -> Fraction:
        """The caller's expected net per unit stake against one unknown hand."""
        return Fraction(self.net, self.deals)

    def round_net(self, opponents: int) -> Fraction:
        """The dealer's expected net for a round against ``opponents`` players (linearity).

        >>> from service.engine.rules import PROFILES
        >>> from service.engine.cards import parse_card
        >>> p = partial_odds([parse_card(t) for t in "KS QS JS".split()], PROFILES["standard"].rules, role="dealer")
        >>> p.round_net(3) == 3 * p.expected_net
        True
        """
        return opponents * self.expected_net


# --------------------------------------------------------------------------------------
# One place where outcomes become money


def _net(wins_paid: int, losses_paid: int) -> int:
    """The caller's net from what its wins collect and its losses pay (``double`` bet,
    RULES.md section 6). A bet type (issue 13) changes the amounts here."""
    return wins_paid - losses_paid


def _tie_sides(rules: Rules, role: str) -> tuple[bool, bool]:
    """Whether equal hands (not both Five Dukes, high cards equal) go to the caller / the opponent."""
    if rules.ties != "dealer":
        return False, False
    return role == "dealer", role == "player"


def _five_dukes_score(table: Table) -> int | None:
    scores = {e.score for e in table.entries if e.category == "five_dukes"}
    return scores.pop() if scores else None


# --------------------------------------------------------------------------------------
# Rules without suits: completions grouped by pseudo-rank


@dataclass
class _Tally:
    completions: int = 0
    wins: int = 0
    losses: int = 0
    deals: int = 0
    paid_in: int = 0
    paid_out: int = 0

    def add(self, other: _Tally, times: int = 1) -> None:
        self.completions += times * other.completions
        self.wins += times * other.wins
        self.losses += times * other.losses
        self.deals += times * other.deals
        self.paid_in += times * other.paid_in
        self.paid_out += times * other.paid_out


_CLASS_OF: dict[tuple[int, ...], int] = {}


def _class_of(counts: Sequence[int]) -> int:
    """The class index of five cards given as 14 pseudo-rank counts."""
    if not _CLASS_OF:
        for i, row in enumerate(CLASS_COUNTS.tolist()):
            _CLASS_OF[tuple(row)] = i
    return _CLASS_OF[tuple(counts)]


def _by_classes(known: Sequence[int], left: list[int], rules: Rules, role: str,
                labels: dict[str, int], by_label: dict[str, list[int]]) -> _Tally:
    table = table_for(rules)
    scores = table.scores.astype(np.int64)
    payouts = table.payouts
    fd = _five_dukes_score(table)
    tie_me, tie_opp = _tie_sides(rules, role)
    avail = [0] * PSEUDO_RANKS
    for code, n in enumerate(left):
        avail[_pseudo_rank(code)] += n
    base = [0] * PSEUDO_RANKS
    for c in known:
        base[_pseudo_rank(c)] += 1
    missing = HAND - len(known)
    total_left = sum(left)
    tally = _Tally()
    for combo in combinations_with_replacement(range(PSEUDO_RANKS), missing):
        take = [0] * PSEUDO_RANKS
        for p in combo:
            take[p] += 1
        ways = prod(comb(avail[p], take[p]) for p in range(PSEUDO_RANKS) if take[p])
        if not ways:
            continue
        klass = _class_of([b + t for b, t in zip(base, take, strict=True)])
        entry = table.entries[klass]
        opp = np.asarray([a - t for a, t in zip(avail, take, strict=True)], dtype=np.int64)
        weights = np.prod(CHOOSE[opp[None, :], CLASS_COUNTS], axis=1)
        s = entry.score
        tie = (scores == s) & (s != fd)
        win = (scores < s) | (tie & tie_me)
        lose = (scores > s) | (tie & tie_opp)
        w_win = int(weights[win].sum())
        w_lose = int(weights[lose].sum())
        tally.completions += ways
        tally.deals += ways * comb(total_left - missing, HAND)
        tally.wins += ways * w_win
        tally.losses += ways * w_lose
        tally.paid_in += ways * w_win * entry.payout
        tally.paid_out += ways * int((weights[lose] * payouts[lose]).sum())
        labels[entry.label] = labels.get(entry.label, 0) + ways
        if missing == 1:
            p = combo[0]
            by_label.setdefault(entry.label, []).extend(
                c for c in range(52) if left[c] and _pseudo_rank(c) == p)
    return tally


# --------------------------------------------------------------------------------------
# Rules with suits: one walk of the opponent's card multisets


@dataclass(frozen=True)
class _Rows:
    rows: npt.NDArray[np.intp]
    weights: npt.NDArray[np.int64] | None
    codes: npt.NDArray[np.uint8]
    klass: npt.NDArray[np.int16]
    mono: npt.NDArray[np.uint16]
    flush: npt.NDArray[np.bool_]


def _rows(left: Sequence[int]) -> Iterator[_Rows]:
    """The multiset walk in chunks, the rows that can be drawn from ``left`` with their codes."""
    walk = _walk()
    available = np.asarray(left, dtype=np.int32)
    one_deck = max(left) <= 1
    mask = np.uint64(sum(1 << c for c in range(52) if not left[c]) | (1 << 63))
    zero = np.uint64(0)
    for start in range(0, len(walk.klass), _CHUNK):
        end = start + _CHUNK
        if one_deck:  # live: no card gone, none repeated
            live = np.flatnonzero((walk.bits[start:end] & mask) == zero)
            weights: npt.NDArray[np.int64] | None = None
        else:
            all_weights = _multiset_weights(walk.codes[start:end], available)
            live = np.flatnonzero(all_weights)
            weights = all_weights[live].astype(np.int64)
        yield _Rows(live + start, weights, walk.codes[start:end][live],
                    walk.klass[start:end][live], walk.mono[start:end][live], walk.flush[start:end][live])


def _key(rules: Rules, score: int, colex: int, fd: int | None) -> int:
    """Strength then, under ``high_card`` ties (not Five Dukes), the high-card order."""
    return (score << _SHIFT) + (colex if rules.ties == "high_card" and score != fd else 0)


_BLOCK = 40  # key < 2**(15 + 23): a code's block of keys starts at code << 40


@dataclass(frozen=True)
class _Sorted:
    """The caller's possible hands sorted by key, with running counts and payouts."""

    keys: npt.NDArray[np.int64]
    cum_n: npt.NDArray[np.int64]
    cum_p: npt.NDArray[np.int64]

    @staticmethod
    def of(items: list[tuple[int, int, int]]) -> _Sorted:
        """From ``(key, payout, copies)`` triples."""
        items.sort()
        return _Sorted(np.array([k for k, _, _ in items], dtype=np.int64),
                       np.concatenate([[0], np.cumsum([n for _, _, n in items])]).astype(np.int64),
                       np.concatenate([[0], np.cumsum([n * p for _, p, n in items])]).astype(np.int64))


_Int64s = npt.NDArray[np.int64]
_Three = tuple[_Int64s, _Int64s, _Int64s]


def _as64(values: npt.ArrayLike) -> _Int64s:
    return np.asarray(values, dtype=np.int64)


class _Judge:
    """Per opponent row, the caller's wins, win payouts and losses over sets of its hands."""

    def __init__(self, key: npt.NDArray[np.int64], not_fd: npt.NDArray[np.bool_], tie_me: bool,
                 tie_opp: bool) -> None:
        self.key = key
        self.not_fd = not_fd
        self.tie_me = tie_me
        self.tie_opp = tie_opp

    def among(self, s: _Sorted, offset: npt.NDArray[np.int64] | int = 0,
              first: npt.NDArray[np.int64] | int = 0,
              last: npt.NDArray[np.int64] | int | None = None) -> _Three:
        """Against the hands ``s.keys[first:last]`` (keys there carry ``offset``)."""
        end = len(s.keys) if last is None else last
        query = self.key + offset
        lo = np.searchsorted(s.keys, query, "left")
        hi = np.searchsorted(s.keys, query, "right")
        equal = self.not_fd & bool(self.tie_me or self.tie_opp)
        eq_n = np.where(equal, s.cum_n[hi] - s.cum_n[lo], 0)
        win_n = s.cum_n[end] - s.cum_n[hi] + (eq_n if self.tie_me else 0)
        win_p = s.cum_p[end] - s.cum_p[hi] + (np.where(equal, s.cum_p[hi] - s.cum_p[lo], 0) if self.tie_me else 0)
        lose_n = s.cum_n[lo] - s.cum_n[first] + (eq_n if self.tie_opp else 0)
        return _as64(win_n), _as64(win_p), _as64(lose_n)

    def direct(self, k: npt.NDArray[np.int64],
               p: npt.NDArray[np.int64]) -> _Three:
        """Against one hand per row: key ``k``, payout ``p``."""
        tie = (k == self.key) & self.not_fd
        won = (k > self.key) | (tie & self.tie_me)
        lost = (k < self.key) | (tie & self.tie_opp)
        return _as64(won), _as64(np.where(won, p, 0)), _as64(lost)


def _by_walk(known: Sequence[int], left: list[int], rules: Rules, role: str,
             labels: dict[str, int], by_label: dict[str, list[int]]) -> _Tally:
    """One walk of the opponent's hands for 0, 1 or 2 unknown cards (module docstring).

    Over the physical cards ``U`` left and an opponent hand ``D`` (cards ``D_i``), the sum of
    ``g`` over the completions ``S`` that avoid ``D`` is, with one unknown card,
    ``sum_U g - sum_i g(D_i)``, and with two::

        sum_{S in U} g(S) - sum_i (sum_{y in U, y != D_i} g(D_i, y)) + sum_{i<j} g(D_i, D_j)

    (a completion with both cards in ``D`` is taken out twice by the middle sum).
    """
    table = table_for(rules)
    scores = table.scores.astype(np.int64)
    payouts = table.payouts
    masks = _slot_masks(table)
    fd = _five_dukes_score(table)
    fd_key = -1 if fd is None else fd
    tie_me, tie_opp = _tie_sides(rules, role)
    missing = HAND - len(known)
    live = [c for c in range(52) if left[c]]

    def judge(extra: Sequence[int]) -> tuple[int, int, str]:
        hand = [*known, *extra]
        ev = evaluate([CARDS[x] for x in hand], rules)
        return _key(rules, ev.score, colex_rank(hand), fd), ev.payout, ev.label

    key1 = np.zeros(52, dtype=np.int64)
    pay1 = np.zeros(52, dtype=np.int64)
    key2 = np.zeros((52, 52), dtype=np.int64)
    pay2 = np.zeros((52, 52), dtype=np.int64)
    items: list[tuple[int, int, int]] = []
    blocks: list[tuple[int, int, int]] = []
    if missing == 0:
        k, p, label = judge(())
        items.append((k, p, 1))
        labels[label] = 1
    elif missing == 1:
        for c in live:
            k, p, label = judge((c,))
            key1[c], pay1[c] = k, p
            items.append((k, p, left[c]))
            labels[label] = labels.get(label, 0) + left[c]
            by_label.setdefault(label, []).append(c)
    else:
        for i, a in enumerate(live):
            for b in live[i:]:
                k, p, label = judge((a, b))
                key2[a, b] = key2[b, a] = k
                pay2[a, b] = pay2[b, a] = p
                ways = comb(left[a], 2) if a == b else left[a] * left[b]
                if ways:
                    items.append((k, p, ways))
                    labels[label] = labels.get(label, 0) + ways
        for a in live:  # block a: the other card y of a completion holding a, y != that a
            blocks.extend(((a << _BLOCK) + int(key2[a, b]), int(pay2[a, b]), left[b] - (a == b))
                          for b in live if left[b] - (a == b))
    every = _Sorted.of(items)
    by_first = _Sorted.of(blocks) if missing == 2 else None
    if by_first is not None:
        starts = np.searchsorted(by_first.keys, np.arange(53, dtype=np.int64) << _BLOCK, "left")
    tally = _Tally()
    for chunk in _rows(left):
        s = scores[chunk.klass]
        not_fd = s != fd_key
        key = s << _SHIFT
        if rules.ties == "high_card":
            key = key + np.where(not_fd, chunk.rows, 0)
        pay = payouts[chunk.klass]
        if rules.suited_bonus != "none":
            suited = _suited(rules, masks, chunk.klass, chunk.mono, chunk.flush)
            pay = np.where(suited, pay * rules.suited_multiplier, pay)
        j = _Judge(key, not_fd, tie_me, tie_opp)
        win_n, win_p, lose_n = j.among(every)
        codes = chunk.codes
        if missing == 1:
            for i in range(HAND):
                col = codes[:, i]
                dw, dp, dl = j.direct(key1[col], pay1[col])
                win_n, win_p, lose_n = win_n - dw, win_p - dp, lose_n - dl
        elif by_first is not None:
            for i in range(HAND):
                col = codes[:, i]
                dw, dp, dl = j.among(by_first, col.astype(np.int64) << _BLOCK, starts[col], starts[col + 1])
                win_n, win_p, lose_n = win_n - dw, win_p - dp, lose_n - dl
            for ia, ib in combinations(range(HAND), 2):
                ca, cb = codes[:, ia], codes[:, ib]
                dw, dp, dl = j.direct(key2[ca, cb], pay2[ca, cb])
                win_n, win_p, lose_n = win_n + dw, win_p + dp, lose_n + dl
        wt = chunk.weights
        if wt is None:  # one deck: one hand per row
            tally.wins += int(win_n.sum())
            tally.losses += int(lose_n.sum())
            tally.paid_in += int(win_p.sum())
            tally.paid_out += int(np.dot(lose_n, pay))
        else:
            tally.wins += int(np.dot(wt, win_n))
            tally.losses += int(np.dot(wt, lose_n))
            tally.paid_in += int(np.dot(wt, win_p))
            tally.paid_out += int(np.dot(wt * lose_n, pay))
    n_left = sum(left)
    tally.completions = comb(n_left, missing)
    tally.deals = tally.completions * comb(n_left - missing, HAND)
    return tally


# --------------------------------------------------------------------------------------
# The answer


def _deck_left(deck: Sequence[int], used: Sequence[int], decks: int) -> list[int]:
    """Cards left per code from a given deck once ``used`` are out.

    >>> sum(_deck_left([0, 1, 2, 2], [2], 2))
    3
    """
    left = [0] * 52
    for c in deck:
        left[c] += 1
    if max(left) > decks:
        raise OddsError(f"a deck for {decks} deck(s) holds each card at most {decks} times")
    for c in used:
        left[c] -= 1
        if left[c] < 0:
            raise OddsError(f"{CARDS[c]} is used more often than the deck holds it")
    return left


def partial_odds(known: Sequence[Card], rules: Rules, dead: Sequence[Card] = (), decks: int = 1,
                 role: str = "player", deck: Sequence[int] | None = None) -> PartialOdds:
    """The caller's exact odds over every completion of ``known`` and every opponent hand.

    :param known: 3, 4 or 5 of the caller's cards.
    :param rules: the rules.
    :param dead: cards out of play.
    :param decks: decks in play, 1..8.
    :param role: ``player`` (the opponent is the dealer) or ``dealer`` (the opponent is one
        player; see :meth:`PartialOdds.round_net` for several).
    :param deck: the cards (codes, each at most ``decks`` times) to deal from; ``52 * decks``
        cards by default. A smaller deck is for tests against brute force.
    :return: the odds; with ``role="player"`` and five known cards the counts are those of
        :func:`~service.engine.odds.odds`.
    :raises OddsError: not 3..5 known cards, an unknown role, a card used more than
        ``decks`` times, too few cards left for the completion and one opponent, or rules
        with a commission (RULES.md section 6.2; not computed here: the tallies keep the
        net only, not the winnings a commission is taken from).

    >>> from service.engine.cards import parse_card
    >>> from service.engine.rules import PROFILES
    >>> p = partial_odds([parse_card(t) for t in "JS QH KD".split()], PROFILES["standard"].rules)
    >>> p.completions == comb(49, 2), p.wins + p.losses + p.pushes == p.deals
    (True, True)
    >>> partial_odds([parse_card(t) for t in "JS QH".split()], PROFILES["standard"].rules)
    Traceback (most recent call last):
        ...
    service.engine.odds.OddsError: 3 to 5 known cards are needed, got 2
    """
    if not 3 <= len(known) <= HAND:
        raise OddsError(f"3 to 5 known cards are needed, got {len(known)}")
    if role not in ROLES:
        raise OddsError(f"role must be one of {', '.join(ROLES)}")
    if rules.commission_bps or rules.dealer_commission_bps:
        raise OddsError("partial or dealer odds are not computed under rules with a commission")
    codes = [c.code for c in known]
    dead_codes = [c.code for c in dead]
    missing = HAND - len(codes)
    left = dealer_pool(codes, dead_codes, decks) if deck is None else _deck_left(deck, [*codes, *dead_codes], decks)
    if sum(left) < missing + HAND:
        raise OddsError(f"only {sum(left)} cards are left for {missing} more card(s) and an opponent's five")
    labels: dict[str, int] = {}
    by_label: dict[str, list[int]] = {}
    if missing == 0 and role == "player" and deck is None:
        o = odds(known, rules, dead, decks)
        ev = evaluate(known, rules)
        return PartialOdds(HAND, role, 1, o.dealer_hands, o.wins, o.losses, o.pushes, o.net,
                           (Completion(ev.label, ev.category, ev.score, 1),), o.method, {ev.label: 1})
    if not uses_suits(rules):
        tally = _by_classes(codes, left, rules, role, labels, by_label)
        method = "rank_classes"
    else:
        tally = _by_walk(codes, left, rules, role, labels, by_label)
        method = "card_multisets"
    outcomes = tuple(Completion(label, category, score, labels[label], tuple(sorted(by_label.get(label, ()))))
                     for label, category, score in labels_of(rules) if labels.get(label))
    net = _net(tally.paid_in, tally.paid_out)
    return PartialOdds(len(codes), role, tally.completions, tally.deals, tally.wins, tally.losses,
                       tally.deals - tally.wins - tally.losses, net, outcomes, method,
                       {o.label: o.completions for o in outcomes})
