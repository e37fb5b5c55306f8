"""The house edge: the player's exact expected net when a random hand meets a random dealer
hand (RULES.md section 6), with the prose the API answers give for its method.

Both hands are dealt from one deck (disjoint), every ordered pair equally likely, and
settled as :func:`~service.engine.settle.settle_one` does.

**Method.** Swapping the two hands of a pair is a bijection of the pairs. When one hand is
stronger it collects its own payout from the other, so the pair and its swap net to zero;
pushes are zero. Only ties remain: under ``ties: dealer`` an equally strong pair (not both
Five Dukes) costs the player the dealer's payout, so::

    net = - sum over dealer classes D (not Five Dukes) of
              paid(D) * sum over classes P with score(P) == score(D) of
                  prod_p C(n[p] - l_D[p], l_P[p])

where ``paid(D)`` is the total payout of the hands of class D in the deck (the base payout
times the hand count, plus ``(multiplier - 1)`` times the base payout for each hand that
earns the suited bonus: suits are used only here, and only when ``suited_bonus`` is on, by
visiting each hand of the deck once, :mod:`service.engine.analysis.walk`). Under ``push`` and
``high_card`` every pair cancels with its swap and the net is exactly 0. The brute force
over all pairs of a reduced deck (tests/engine/test_odds.py) agrees for every profile.

**Bets and commission** (RULES.md sections 6.1, 6.2). An ``equal`` bet wins or loses one
stake: its net is ``-tie_pairs`` under ``ties: dealer`` and 0 otherwise; so is a ``double``
bet's under ``tie_payout: stake`` (RULES.md 6.4: a tie the dealer takes costs one stake;
:meth:`~service.engine.bets.TieCost.total`). A commission of
``r = commission_bps / 10,000`` costs the player ``r`` times the total winnings, computed
exactly (:data:`COMMISSION_METHOD`).

Cached per rules, deck and bet in the engine's cache (section ``house edges``); a
profile's is pinned (:func:`pinned_house_edge`).

>>> from service.engine.rules import PROFILES
>>> house_edge(PROFILES["niu-niu"].rules).player_expected_net   # high-card ties: symmetric
Fraction(0, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np
import numpy.typing as npt

from service.engine.analysis.odds import FULL_DECK, OddsError, RulesNotComputedError, deck_available
from service.engine.analysis.walk import class_tally, suited_flags, walk_chunks
from service.engine.bets import BETS, DEFAULT_BET, Bet
from service.engine.cache import CACHE, BoundedCache
from service.engine.cards import HAND_SIZE
from service.engine.classes import CHOOSE, CLASS_COUNTS, PSEUDO_RANKS, IntArray, class_weights
from service.engine.rules import MAX_BPS, Rules
from service.engine.tables import Table, table_for

__all__ = [
    "COMMISSION_METHOD",
    "EQUAL_BET_METHOD",
    "FLAT_TIE_METHOD",
    "HOUSE_EDGE_METHOD",
    "HouseEdge",
    "house_edge",
    "house_edge_method",
    "house_edge_ready",
    "pinned_house_edge",
]


@dataclass(frozen=True)
class HouseEdge:
    """The player's exact expected net when a random hand meets a random dealer hand.

    :param pairs: ordered (player, dealer) pairs of disjoint hands: ``C(n, 5) C(n - 5, 5)``.
    :param net: the player's total gross result (before commission) over all pairs, per
        unit stake.
    :param tie_pairs: under ``ties: dealer``, the pairs of equally strong hands (not both
        Five Dukes): the only pairs that do not cancel out (see :func:`house_edge`); 0
        under the other tie rules, where every pair cancels.
    :param bet: the bet type's name (RULES.md section 6.1).
    :param commission: the house's total commission from the player over all pairs, per
        unit stake, exactly ``commission_bps / 10,000`` of every winning gross (RULES.md
        section 6.2: from the rate, not rounded).
    """

    pairs: int
    net: int
    tie_pairs: int
    bet: str = DEFAULT_BET
    commission: Fraction = Fraction(0)

    @property
    def player_expected_gross(self) -> Fraction:
        """The player's expected result before commission, per unit stake."""
        return Fraction(self.net, self.pairs)

    @property
    def player_expected_commission(self) -> Fraction:
        """The player's expected commission to the house, per unit stake."""
        return self.commission / self.pairs

    @property
    def player_expected_net(self) -> Fraction:
        """The player's expected net per unit stake, after commission (negative: the house wins)."""
        return (self.net - self.commission) / self.pairs

    @property
    def edge(self) -> Fraction:
        """The house edge: the house's expected gain per unit stake, ``-player_expected_net``."""
        return -self.player_expected_net


HOUSE_EDGE_METHOD = (
    "Exact. Player and dealer hands are exchangeable (a uniformly random pair of disjoint "
    "hands is as likely as the same pair swapped), and whenever one hand is stronger the "
    "stronger one collects its own payout, so over all pairs those amounts cancel exactly; "
    "so do pushes. What is left is the tie rule: with `ties: dealer` the dealer collects its "
    "payout from every equally strong player (both Five Dukes excepted), so the player's "
    "expected net is minus the sum, over tied pairs, of the dealer's payout, divided by "
    "C(52,5) C(47,5). That sum is computed by grouping hands into classes (sorted ranks with "
    "the ace of spades apart): the number of player hands of an equally strong class "
    "disjoint from a dealer class is a product of binomials per rank; suits enter only "
    "through the count of each class's hands that earn the suited bonus, found by visiting "
    "the one-deck hands once. With `push` or `high_card` ties the game is symmetric and the "
    "expected net is exactly 0."
)

#: Added to :data:`HOUSE_EDGE_METHOD` for an ``equal`` bet (RULES.md section 6.1).
EQUAL_BET_METHOD = (
    " Equal bet: every win and every loss is one stake whatever the hands, so the expected "
    "result is (wins - losses) / pairs: strictly stronger pairs cancel with their swaps, and "
    "what is left is again the tie rule (with `ties: dealer` every tied pair, both Five Dukes "
    "excepted, is a loss)."
)

#: Added to :data:`HOUSE_EDGE_METHOD` when the rules take a commission (RULES.md section 6.2).
COMMISSION_METHOD = (
    " Commission: computed exactly from the rate, as if stakes were large (only settlements "
    "round): the player's expected net is the expected result less commission_bps / 10,000 "
    "times the expected winnings. The winnings do not cancel by symmetry, so they are summed "
    "exactly: for the double bet, over player classes, the class's total payout (suited bonus "
    "counted hand by hand) times the number of disjoint dealer hands of a lower score (a "
    "product of binomials per rank, summed over dealer classes), plus, under `high_card` "
    "ties, half the tied pairs at their common payout (disjoint tied hands always differ in "
    "high card, and a pair and its swap split the win); for the equal bet, the number of "
    "pairs the player wins: half the pairs of unequal strength, plus half the tied pairs "
    "(both Five Dukes excepted) under `high_card`."
)


#: Added to :data:`HOUSE_EDGE_METHOD` under ``ties: dealer`` with ``tie_payout: stake`` (RULES.md 6.4).
FLAT_TIE_METHOD = (
    " Tie payout: with `tie_payout: stake` a tie the dealer takes costs one stake instead of "
    "the dealer's payout, so the tied pairs are counted rather than their payouts summed."
)


def house_edge_method(rules: Rules, bet: str = DEFAULT_BET) -> str:
    """The ``method`` text of a house-edge answer for ``rules`` and ``bet``.

    >>> from service.engine.rules import PROFILES
    >>> house_edge_method(PROFILES["standard"].rules) == HOUSE_EDGE_METHOD
    True
    >>> "exactly from the rate" in house_edge_method(PROFILES["bull-bull"].rules, "equal")
    True
    """
    text = HOUSE_EDGE_METHOD
    if BETS[bet].flat:
        text += EQUAL_BET_METHOD
    if rules.commission_bps:
        text += COMMISSION_METHOD
    if rules.ties == "dealer" and not rules.tie_cost.by_hand:
        text += FLAT_TIE_METHOD
    return text

_EDGES: BoundedCache[tuple[Rules, tuple[int, ...], str], HouseEdge] = CACHE.section("house edges", 32)


def house_edge(rules: Rules, deck: Sequence[int] | None = None, bet: str = DEFAULT_BET) -> HouseEdge:
    """The player's exact expected net per unit stake, random hand against random dealer
    (the method: module docstring). Cached per rules, deck and bet.

    :param rules: the rules.
    :param deck: the cards (codes, each at most once); the full 52 by default. Tests use
        small decks, where brute force over all pairs is cheap.
    :param bet: a bet type's name (:data:`~service.engine.bets.BETS`; ``double`` by default).
    :return: the house edge.
    :raises OddsError: a card repeated, fewer than 10 cards in ``deck``, an unknown bet, a
        commission on a ``double`` bet under rules with both a suited bonus and
        ``high_card`` ties (the winnings of tied pairs then depend on how suits and high
        cards go together, which this method does not count), or a category that depends on
        suits where the edge is not 0 by symmetry (``ties: dealer`` or a commission: the
        class counts of disjoint pairs then depend on suits).

    >>> from service.engine.rules import PROFILES
    >>> he = house_edge(PROFILES["standard"].rules)
    >>> he.pairs == comb(52, 5) * comb(47, 5), float(he.edge) > 0
    (True, True)
    >>> house_edge(PROFILES["standard"].rules, deck=range(12)).pairs   # A-3 only: C(12,5) C(7,5)
    16632
    >>> bb = house_edge(PROFILES["bull-bull"].rules, bet="equal")
    >>> bb.player_expected_gross, bb.player_expected_net < 0
    (Fraction(0, 1), True)
    """
    kind = BETS.get(bet)
    if kind is None:
        raise OddsError("bet must be one of " + ", ".join(BETS))
    key = (rules, tuple(FULL_DECK if deck is None else sorted(deck)), bet)
    found = _EDGES.get(key)
    if found is not None:
        return found
    cards = key[1]
    if len(cards) < 2 * HAND_SIZE:
        raise OddsError("a deck for two hands needs at least 10 cards")
    if kind.payout_factor and rules.commission_bps and {"payouts", "comparisons"} <= rules.suit_effects:
        raise OddsError("the house edge of a double bet with a commission is not computed for rules with both "
                        "a suited bonus and high_card ties")
    if not rules.commission_bps and rules.ties != "dealer":
        result = HouseEdge(pairs=_pairs(cards), net=0, tie_pairs=0, bet=bet)  # symmetric: wins and losses cancel
    elif rules.suit_categories:
        raise RulesNotComputedError("the house edge is not computed for rules with a category that depends on suits (flush, "
                        "straight_flush) unless it is exactly 0 by symmetry: push or high_card ties and no "
                        "commission")
    elif kind.flat or rules.commission_bps:
        result = _house_edge_with_bets(rules, cards, kind)
    else:
        result = _double_bet_edge(rules, cards, kind)
    return _EDGES.put(key, result)


def _pairs(cards: Sequence[int]) -> int:
    """Ordered pairs of disjoint hands from ``cards``: ``C(n, 5) C(n - 5, 5)``."""
    return comb(len(cards), HAND_SIZE) * comb(len(cards) - HAND_SIZE, HAND_SIZE)


def _double_bet_edge(rules: Rules, cards: Sequence[int], kind: Bet) -> HouseEdge:
    """:func:`house_edge` of a bet paid by the hand alone (``double``) without a commission,
    under ``ties: dealer``: only ties count."""
    available = np.array(deck_available(cards), dtype=np.int64)
    counts = class_weights(available.tolist())
    tie_paid = 0
    tie_pairs = 0
    if rules.ties == "dealer":
        table = table_for(rules)
        payouts = table.payouts.tolist()
        suited = _suited_counts(rules, table, cards)
        scores = table.scores
        to_dealer = _ties_to_dealer(table)
        for score in np.unique(scores[counts > 0]).tolist():
            group = np.flatnonzero((scores == score) & (counts > 0))
            dealers = group[to_dealer[group]]
            if len(dealers) == 0:
                continue
            left = available[None, :] - CLASS_COUNTS[dealers]           # (|D|, 14)
            players = CLASS_COUNTS[group]                               # (|P|, 14)
            ways = np.ones((len(dealers), len(group)), dtype=np.int64)
            for p in range(PSEUDO_RANKS):
                ways *= CHOOSE[left[:, p][:, None], players[:, p][None, :]]
            tied = ways.sum(axis=1).tolist()
            for d, t in zip(dealers.tolist(), tied, strict=True):
                n_d = int(counts[d])
                tie_pairs += n_d * t
                tie_paid += payouts[d] * (n_d + (rules.suited_multiplier - 1) * suited[d]) * t
    return HouseEdge(pairs=_pairs(cards), net=-rules.tie_cost.total(kind, tie_pairs, tie_paid), tie_pairs=tie_pairs,
                     bet=kind.name)


def _by_high_card(table: Table) -> npt.NDArray[np.bool_]:
    """Per class, whether its equally strong pairs are decided by the high card (one deck:
    disjoint hands always differ; a pair and its swap split the win), not by the tie rule."""
    high = table.rules.high_card_categories
    return np.array([e.category in high for e in table.every], dtype=np.bool_) & ~table.pushes


def _ties_to_dealer(table: Table) -> npt.NDArray[np.bool_]:
    """Per class, whether the dealer takes its equally strong pairs (``ties: dealer``, not a
    category that pushes, not decided by the high card)."""
    if table.rules.ties != "dealer":
        return np.zeros(len(table.every), dtype=np.bool_)
    return ~table.pushes & ~_by_high_card(table)


def _tied_per_class(table: Table, available: IntArray, counts: IntArray) -> IntArray:
    """Per dealer class (with hands in the deck): the disjoint player hands of equal score.

    ``sum over classes P with score(P) == score(D) of prod_p C(n[p] - l_D[p], l_P[p])``
    (0 for classes without hands).
    """
    scores = table.scores
    out = np.zeros(len(counts), dtype=np.int64)
    for score in np.unique(scores[counts > 0]).tolist():
        group = np.flatnonzero((scores == score) & (counts > 0))
        left = available[None, :] - CLASS_COUNTS[group]                 # (|D|, 14)
        players = CLASS_COUNTS[group]                                   # (|P|, 14)
        ways = np.ones((len(group), len(group)), dtype=np.int64)
        for p in range(PSEUDO_RANKS):
            ways *= CHOOSE[left[:, p][:, None], players[:, p][None, :]]
        out[group] = ways.sum(axis=1)
    return out


_WEAKER_CHUNK = 128


def _weaker_per_class(table: Table, available: IntArray, counts: IntArray) -> IntArray:
    """Per player class (with hands in the deck): the disjoint dealer hands of a strictly
    lower score, ``sum over D with score(D) < score(P) of prod_p C(n[p] - l_P[p], l_D[p])``.

    Classes are sorted by score, so a player class's weaker dealer classes are a prefix;
    each dealer class is written as at most five (pseudo-rank, count) slots, so a product
    has five factors, not fourteen. About 8,568 x 4,300 products for one deck (a second or
    two).
    """
    live = np.flatnonzero(counts > 0)
    order = live[np.argsort(table.scores[live], kind="stable")]
    scores = table.scores[order].astype(np.int64)
    rows = CLASS_COUNTS[order]
    slot = np.argsort(rows == 0, axis=1, kind="stable")[:, :HAND_SIZE]        # non-zero columns first
    slot_count = np.take_along_axis(rows, slot, axis=1)                 # 0 pads a short row
    lower = np.searchsorted(scores, scores, side="left")                 # dealer classes below each
    out = np.zeros(len(counts), dtype=np.int64)
    for start in range(0, len(order), _WEAKER_CHUNK):
        stop = min(start + _WEAKER_CHUNK, len(order))
        limit = int(lower[stop - 1])
        if limit == 0:
            continue
        left = available[None, :] - rows[start:stop]                    # (c, 14) cards left
        ways = np.ones((stop - start, limit), dtype=np.int64)
        for j in range(HAND_SIZE):
            ways *= CHOOSE[left[:, slot[:limit, j]], slot_count[:limit, j][None, :]]
        below = np.arange(limit)[None, :] < lower[start:stop, None]
        out[order[start:stop]] = np.where(below, ways, 0).sum(axis=1)
    return out


def _house_edge_with_bets(rules: Rules, cards: Sequence[int], kind: Bet) -> HouseEdge:
    """:func:`house_edge` for a bet with a flat part (``equal``) or under a commission (see
    :data:`COMMISSION_METHOD`): the bet's payout part and flat part are computed apart and
    combined (every bet is linear in the payout, :class:`~service.engine.bets.Bet`)."""
    available = np.array(deck_available(cards), dtype=np.int64)
    pairs = _pairs(cards)
    counts = class_weights(available.tolist())
    table = table_for(rules)
    tied = _tied_per_class(table, available, counts)
    high_card, to_dealer = _by_high_card(table), _ties_to_dealer(table)
    n = counts.tolist()
    tied_pairs = [a * b for a, b in zip(n, tied.tolist(), strict=True)]   # per dealer class
    by_card = sum(t for t, h in zip(tied_pairs, high_card.tolist(), strict=True) if h)  # split: half won
    tie_pairs = sum(t for t, d in zip(tied_pairs, to_dealer.tolist(), strict=True) if d)  # the dealer's
    unequal = pairs - sum(tied_pairs)
    wins = unequal // 2 + by_card // 2
    losses = unequal // 2 + by_card // 2 + tie_pairs
    net = kind.flat * (wins - losses + tie_pairs)  # the ties apart: they cost what tie_payout says
    winnings = Fraction(kind.flat * wins)
    tie_paid = 0
    if kind.payout_factor:
        payouts = table.payouts.tolist()
        suited = _suited_counts(rules, table, cards)
        paid = [p * (k + (rules.suited_multiplier - 1) * s) for p, k, s in zip(payouts, n, suited, strict=True)]
        if tie_pairs:
            tie_paid = sum(paid[d] * t for d, t in enumerate(tied.tolist()) if t and to_dealer[d])
        if rules.commission_bps:
            weaker = _weaker_per_class(table, available, counts).tolist()
            total = Fraction(sum(a * b for a, b in zip(paid, weaker, strict=True)))
            if by_card:  # no suited bonus here: tied hands share one payout
                total += Fraction(sum(payouts[d] * tp for d, tp in enumerate(tied_pairs) if tp and high_card[d]), 2)
            winnings += kind.payout_factor * total
    net -= rules.tie_cost.total(kind, tie_pairs, tie_paid)
    commission = winnings * Fraction(rules.commission_bps, MAX_BPS) if rules.commission_bps else Fraction(0)
    return HouseEdge(pairs=pairs, net=net, tie_pairs=tie_pairs, bet=kind.name, commission=commission)


def _suited_counts(rules: Rules, table: Table, deck: Sequence[int]) -> list[int]:
    """Per class, how many hands of ``deck`` earn the suited bonus (all zero without one)."""
    n = len(table.every)
    if rules.suited_bonus == "none":
        return [0] * n
    left = [0] * 52
    for c in deck:
        left[c] = 1
    out = np.zeros(n, dtype=np.int64)
    for chunk in walk_chunks(left, table):
        out += class_tally(chunk, suited_flags(table, chunk.klass, chunk.mono, chunk.flush), n)
    return [int(x) for x in out.tolist()]


def pinned_house_edge(rules: Rules, bet: str = DEFAULT_BET) -> HouseEdge:
    """:func:`house_edge` of a profile's rules over one deck, kept for good once computed
    (profiles are few, so this is bounded; custom rules go through the bounded cache).

    :raises OddsError: as :func:`house_edge`.
    """
    key = (rules, FULL_DECK, bet)
    found = _EDGES.get(key)
    if found is None:
        found = house_edge(rules, bet=bet)
    return _EDGES.pin(key, found)


def house_edge_ready(rules: Rules, bet: str = DEFAULT_BET) -> bool:
    """Whether the one-deck house edge of ``rules`` and ``bet`` is computed (callers
    budgeting time ask)."""
    return (rules, FULL_DECK, bet) in _EDGES
