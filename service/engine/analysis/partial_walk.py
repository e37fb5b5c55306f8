"""Partial odds by one walk of the opponent's card multisets (issue 14; RULES.md sections 4-7).

The general method, for rules that use suits with several decks (or with a suited bonus and
``high_card`` ties together); one deck otherwise goes by classes
(:func:`service.engine.analysis.partial.by_classes`), which is faster.

With one unknown card ``c`` the number of physical deals ``(c, D)`` is
``w(D) * (n_c - m_c(D))`` (``n_c`` copies of ``c`` left, ``m_c(D)`` of them in ``D``), so the
sum over deals is, per opponent hand, the sum over every ``c`` weighted ``n_c`` (a function
of the opponent's strength and high-card order: one binary search into the completions
sorted by strength) less the five terms of the cards ``D`` holds. With two unknown cards
the same inclusion-exclusion runs over pairs (:func:`by_walk`).

>>> from service.engine.rules import PROFILES
>>> left = [2] * 52
>>> for c in (3, 50, 36, 13):   # AS KH 10D 4C
...     left[c] -= 1
>>> t = by_walk([3, 50, 36, 13], left, PROFILES["niu-niu"].rules, "player", {}, {})
>>> t.completions, t.deals == 100 * comb(99, 5)
(100, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np
import numpy.typing as npt

from service.engine.analysis.odds import Tally, tie_sides
from service.engine.analysis.walk import Chunk, colex_rank, suited_flags, walk_chunks
from service.engine.cards import CARDS, HAND_SIZE
from service.engine.rules import Rules
from service.engine.tables import evaluate, table_for

__all__ = ["by_walk"]

_SHIFT = 23  # a multiset's colex rank is below C(56, 5) = 3,819,816 < 2**22


def _key(rules: Rules, category: str, score: int, hand: Sequence[int]) -> int:
    """Strength then, where the high card orders equally strong hands (not a category that
    pushes), the high-card order: the multiset's colex rank, or its top card's code for a
    category compared by the top card alone (``full_house_order: high_card``)."""
    if category not in rules.high_card_categories or category in rules.pushing:
        return score << _SHIFT
    return (score << _SHIFT) + (max(hand) if category in rules.top_card_categories else colex_rank(hand))


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


@dataclass
class _Completions:
    """The caller's possible final hands: keys and payouts by unknown card(s), all of them
    sorted by key (``every``) and, with two unknown cards, by first card (``by_first``, block
    ``a`` holding the other card ``y`` of each completion with ``a``, ``y`` not that ``a``)."""

    key1: npt.NDArray[np.int64]
    pay1: npt.NDArray[np.int64]
    key2: npt.NDArray[np.int64]
    pay2: npt.NDArray[np.int64]
    every: _Sorted
    by_first: _Sorted | None = None
    starts: npt.NDArray[np.intp] | None = None


def _completions(known: Sequence[int], left: list[int], rules: Rules, labels: dict[str, int],
                 by_label: dict[str, list[int]]) -> _Completions:
    """Every completion judged once (filling ``labels`` and, with one unknown card, ``by_label``)."""
    missing = HAND_SIZE - len(known)
    live = [c for c in range(52) if left[c]]

    def judge(extra: Sequence[int]) -> tuple[int, int, str]:
        hand = [*known, *extra]
        ev = evaluate([CARDS[x] for x in hand], rules)
        return _key(rules, ev.category, ev.score, hand), ev.payout, ev.label_key

    out = _Completions(np.zeros(52, dtype=np.int64), np.zeros(52, dtype=np.int64),
                       np.zeros((52, 52), dtype=np.int64), np.zeros((52, 52), dtype=np.int64), _Sorted.of([]))
    items: list[tuple[int, int, int]] = []
    if missing == 0:
        k, p, label = judge(())
        items.append((k, p, 1))
        labels[label] = 1
    elif missing == 1:
        for c in live:
            k, p, label = judge((c,))
            out.key1[c], out.pay1[c] = k, p
            items.append((k, p, left[c]))
            labels[label] = labels.get(label, 0) + left[c]
            by_label.setdefault(label, []).append(c)
    else:
        for i, a in enumerate(live):
            for b in live[i:]:
                k, p, label = judge((a, b))
                out.key2[a, b] = out.key2[b, a] = k
                out.pay2[a, b] = out.pay2[b, a] = p
                ways = comb(left[a], 2) if a == b else left[a] * left[b]
                if ways:
                    items.append((k, p, ways))
                    labels[label] = labels.get(label, 0) + ways
        blocks = [((a << _BLOCK) + int(out.key2[a, b]), int(out.pay2[a, b]), left[b] - (a == b))
                  for a in live for b in live if left[b] - (a == b)]
        out.by_first = _Sorted.of(blocks)
        out.starts = np.searchsorted(out.by_first.keys, np.arange(53, dtype=np.int64) << _BLOCK, "left")
    out.every = _Sorted.of(items)
    return out


def _judge_rows(chunk: Chunk, comps: _Completions, j: _Judge, missing: int) -> _Three:
    """Per opponent row: the caller's wins, win payouts and losses over the completions that
    avoid the row's cards (inclusion-exclusion, :func:`by_walk`)."""
    win_n, win_p, lose_n = j.among(comps.every)
    codes = chunk.codes
    if missing == 1:
        for i in range(HAND_SIZE):
            col = codes[:, i]
            dw, dp, dl = j.direct(comps.key1[col], comps.pay1[col])
            win_n, win_p, lose_n = win_n - dw, win_p - dp, lose_n - dl
    elif comps.by_first is not None and comps.starts is not None:
        for i in range(HAND_SIZE):
            col = codes[:, i]
            dw, dp, dl = j.among(comps.by_first, col.astype(np.int64) << _BLOCK, comps.starts[col],
                                 comps.starts[col + 1])
            win_n, win_p, lose_n = win_n - dw, win_p - dp, lose_n - dl
        for ia, ib in combinations(range(HAND_SIZE), 2):
            ca, cb = codes[:, ia], codes[:, ib]
            dw, dp, dl = j.direct(comps.key2[ca, cb], comps.pay2[ca, cb])
            win_n, win_p, lose_n = win_n + dw, win_p + dp, lose_n + dl
    return win_n, win_p, lose_n


def by_walk(known: Sequence[int], left: list[int], rules: Rules, role: str,
            labels: dict[str, int], by_label: dict[str, list[int]]) -> Tally:
    """Every deal, by one walk of the opponent's hands for 0, 1 or 2 unknown cards.

    Over the physical cards ``U`` left and an opponent hand ``D`` (cards ``D_i``), the sum of
    ``g`` over the completions ``S`` that avoid ``D`` is, with one unknown card,
    ``sum_U g - sum_i g(D_i)``, and with two::

        sum_{S in U} g(S) - sum_i (sum_{y in U, y != D_i} g(D_i, y)) + sum_{i<j} g(D_i, D_j)

    (a completion with both cards in ``D`` is taken out twice by the middle sum).

    :param known: the caller's known card codes.
    :param left: cards left per code (52 counts) once the known and dead cards are out.
    :param role: the caller's seat, ``player`` or ``dealer``.
    :param labels: filled: completions per final label.
    :param by_label: filled with one unknown card: the fifth cards (codes) per final label.
    :return: the tally of every deal.
    """
    table = table_for(rules)
    scores = table.scores.astype(np.int64)
    pushes = table.pushes
    ordered = np.array([e.category in rules.high_card_categories for e in table.every], dtype=np.bool_) & ~pushes
    by_top = np.array([e.category in rules.top_card_categories for e in table.every], dtype=np.bool_)
    tie_me, tie_opp = tie_sides(rules, role)
    missing = HAND_SIZE - len(known)
    comps = _completions(known, left, rules, labels, by_label)
    tally = Tally()
    for chunk in walk_chunks(left, table):
        s = scores[chunk.klass]
        not_fd = ~pushes[chunk.klass]
        order = np.where(by_top[chunk.klass], chunk.codes.max(axis=1).astype(np.int64), chunk.rows)
        key = (s << _SHIFT) + np.where(ordered[chunk.klass], order, 0)
        pay = table.payouts[chunk.klass]
        if rules.suited_bonus != "none":
            suited = suited_flags(table, chunk.klass, chunk.mono, chunk.flush)
            pay = np.where(suited, pay * rules.suited_multiplier, pay)
        win_n, win_p, lose_n = _judge_rows(chunk, comps, _Judge(key, not_fd, tie_me, tie_opp), missing)
        # one deck: one hand per row
        wt = np.ones(len(win_n), dtype=np.int64) if chunk.weights is None else chunk.weights.astype(np.int64)
        tally.wins += int(np.dot(wt, win_n))
        tally.losses += int(np.dot(wt, lose_n))
        tally.paid_in += int(np.dot(wt, win_p))
        tally.paid_out += int(np.dot(wt * lose_n, pay))
    n_left = sum(left)
    tally.completions = comb(n_left, missing)
    tally.deals = tally.completions * comb(n_left - missing, HAND_SIZE)
    return tally
