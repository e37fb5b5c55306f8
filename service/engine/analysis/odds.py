"""Exact odds of five known cards against the dealer (RULES.md sections 5-6), and what the
analyses share: the pools of cards left, :func:`uses_suits` and :class:`OddsError`.

Every figure here is exact: counts are integers and probabilities
:class:`~fractions.Fraction` values, found by enumeration grouped so that no more is
visited than the rules need. When the rules use no suits (no suited bonus, no
``high_card`` ties) an answer is a sum over the 8,568 hand classes
(:mod:`service.engine.classes`); otherwise every card multiset is visited
(:mod:`service.engine.analysis.walk`). The other analyses build on this module:
:mod:`service.engine.analysis.distribution`, :mod:`service.engine.analysis.house_edge`,
:mod:`service.engine.analysis.partial` (fewer known cards) and :mod:`service.engine.analysis.cost`.

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import PROFILES
>>> o = odds(parse_hand("JS QH KD JC QD".split()), PROFILES["standard"].rules)     # Five Dukes
>>> o.dealer_hands, o.lose, o.push * o.dealer_hands
(1533939, Fraction(0, 1), Fraction(21, 1))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np

from service.engine.analysis.walk import class_tally, colex_rank, suited_flags, walk_chunks
from service.engine.bets import BETS, DEFAULT_BET
from service.engine.cards import CARDS, HAND_SIZE, Card, count_excess
from service.engine.classes import IntArray, class_weights, pseudo_available
from service.engine.hand import Evaluation
from service.engine.rules import MAX_BPS, Rules
from service.engine.tables import Table, evaluate, table_for

__all__ = [
    "FULL_DECK",
    "Chances",
    "Odds",
    "OddsError",
    "RulesNotComputedError",
    "Tally",
    "dealer_pool",
    "deck_available",
    "flat_ties",
    "odds",
    "tie_sides",
    "uses_suits",
]

#: The codes of one full deck, each once.
FULL_DECK: tuple[int, ...] = tuple(range(52))


class OddsError(ValueError):
    """A hand, dead cards or deck count that cannot be dealt from, or a bet whose figure is
    not computed (the message says why)."""


class RulesNotComputedError(OddsError):
    """Rules whose figure is not computed whatever the bet (the message says why)."""


def deck_available(deck: Sequence[int]) -> list[int]:
    """Cards per pseudo-rank (:func:`~service.engine.classes.pseudo_available`) of a deck
    given as codes, each at most once.

    :raises OddsError: a card repeated.

    >>> deck_available(range(12))
    [3, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    """
    if count_excess([deck], 1):
        raise OddsError("a deck holds each card at most once")
    counts = [0] * 52
    for c in deck:
        counts[c] += 1
    return pseudo_available(counts)


class Chances:
    """Win, lose and push as exact fractions of everything counted: shared by the odds of
    five known cards (:class:`Odds`) and of fewer (:class:`~service.engine.analysis.partial.PartialOdds`),
    which say what they counted through :attr:`counted`."""

    wins: int
    losses: int
    pushes: int

    @property
    def counted(self) -> int:
        """How many (equally likely) deals were counted."""
        raise NotImplementedError

    @property
    def win(self) -> Fraction:
        """P(the caller wins)."""
        return Fraction(self.wins, self.counted)

    @property
    def lose(self) -> Fraction:
        """P(the caller loses)."""
        return Fraction(self.losses, self.counted)

    @property
    def push(self) -> Fraction:
        """P(push)."""
        return Fraction(self.pushes, self.counted)

    @property
    def payout_totals(self) -> tuple[int, int]:
        """Over everything counted: the payouts the caller's wins collect and its losses pay
        (per unit stake at one stake a payout point, the ``double`` bet's amounts)."""
        raise NotImplementedError

    @property
    def commission_bps(self) -> int:
        """The commission on the caller's wins (RULES.md section 6.2); 0 unless given."""
        return 0

    def expected(self, bet: str = DEFAULT_BET) -> tuple[Fraction, Fraction, Fraction]:
        """The caller's expected gross, commission and net per unit stake for ``bet``
        (RULES.md sections 6.1 and 6.2), from the counts and the payout totals
        (:meth:`~service.engine.bets.Bet.expected_gross`: every bet is linear in the payout).

        The commission is taken exactly at the rate, as if stakes were large:
        ``commission_bps / 10,000`` of the expected winnings (:meth:`~service.engine.bets.Bet.winnings`).

        :raises OddsError: an unknown bet.

        >>> o = Odds(10, 4, 5, 1, 4 * 3 - 5 * 2, "rank_classes", payout=3, commission=500)
        >>> o.expected("double"), o.expected("equal")[2]
        ((Fraction(1, 5), Fraction(3, 50), Fraction(7, 50)), Fraction(-3, 25))
        """
        kind = BETS.get(bet)
        if kind is None:
            raise OddsError("bet must be one of " + ", ".join(BETS))
        paid_in, paid_out = self.payout_totals
        gross = kind.expected_gross(self.wins, self.losses, paid_in, paid_out)
        winnings = kind.winnings(self.wins, paid_in)
        commission = Fraction(winnings * self.commission_bps, MAX_BPS * self.counted)
        return Fraction(gross, self.counted), commission, Fraction(gross, self.counted) - commission

    @property
    def expected_net(self) -> Fraction:
        """The caller's expected net per unit stake with the default bet (``double``), after
        commission."""
        return self.expected(DEFAULT_BET)[2]


@dataclass(frozen=True)
class Odds(Chances):
    """A player's exact chances against a dealer hand drawn from the cards left.

    :param dealer_hands: how many dealer hands there are (``C(cards left, 5)``, copies of a
        card counted apart); every one of them is accounted for.
    :param wins: how many of them the player beats; ``losses`` and ``pushes`` likewise.
    :param net: the player's total gross result (``double`` bet, before commission) over
        all dealer hands, per unit stake.
    :param method: ``rank_classes`` (the rules use no suits) or ``card_multisets``.
    :param payout: what the player's hand collects per unit stake when a ``double`` bet wins.
    :param commission: the rules' commission on players' wins in basis points (RULES.md
        section 6.2).
    """

    dealer_hands: int
    wins: int
    losses: int
    pushes: int
    net: int
    method: str
    payout: int = 0
    commission: int = 0

    @property
    def counted(self) -> int:
        """Every dealer hand counted (the denominator of :class:`Chances`)."""
        return self.dealer_hands

    @property
    def payout_totals(self) -> tuple[int, int]:
        """What the wins collect (``wins * payout``) and the losses pay (``paid_in - net``)."""
        return self.wins * self.payout, self.wins * self.payout - self.net

    @property
    def commission_bps(self) -> int:
        """The rules' commission on players' wins."""
        return self.commission


def dealer_pool(hand: Sequence[int], dead: Sequence[int] = (), decks: int = 1) -> list[int]:
    """Cards left per code once the player's hand and the dead cards are out.

    :param hand: the player's five card codes.
    :param dead: card codes seen elsewhere (other hands, burnt cards).
    :param decks: decks in play, 1..8.
    :return: 52 counts.
    :raises OddsError: a card used more than ``decks`` times, or fewer than five cards left.

    >>> sum(dealer_pool([0, 1, 2, 3, 4], [5, 6]))
    45
    >>> dealer_pool([0, 1, 2, 3, 4], [4])
    Traceback (most recent call last):
        ...
    service.engine.analysis.odds.OddsError: 2D is used more than once (1 deck in play)
    """
    if not 1 <= decks <= 8:
        raise OddsError("decks must be from 1 to 8")
    excess = count_excess([hand, dead], decks)
    if excess:
        code = excess[0][2]
        times = "once" if decks == 1 else f"{decks} times"
        raise OddsError(f"{CARDS[code]} is used more than {times} ({decks} deck{'s' * (decks > 1)} in play)")
    left = [decks] * 52
    for code in [*hand, *dead]:
        left[code] -= 1
    if sum(left) < HAND_SIZE:
        raise OddsError(f"only {sum(left)} cards are left for the dealer")
    return left


def uses_suits(rules: Rules) -> bool:
    """Whether settling depends on suits: some knob's value makes it so (a suited bonus,
    ``high_card`` ties; :attr:`~service.engine.rules.Rules.suit_effects`).

    >>> from service.engine.rules import PROFILES
    >>> uses_suits(PROFILES["standard"].rules), uses_suits(PROFILES["liberal"].rules)
    (False, True)
    """
    return bool(rules.suit_effects)


def odds(hand: Sequence[Card], rules: Rules, dead: Sequence[Card] = (), decks: int = 1,
         player: Evaluation | None = None) -> Odds:
    """The player's exact odds against every dealer hand that can be drawn (RULES.md s. 5-6).

    The dealer's hand is drawn uniformly from the ``52 * decks`` cards less the player's
    hand and the dead cards; each is settled as :func:`~service.engine.settle.settle_one`
    does (both Five Dukes push; equal hands by ``rules.ties``; the suited bonus counted in
    whichever hand collects).

    Rules without a suited bonus or high-card ties are summed over the 8,568 classes
    (:func:`uses_suits`); otherwise every card multiset is visited, vectorised.

    :param hand: the player's five cards.
    :param rules: the rules.
    :param dead: cards out of play (seen in other hands).
    :param decks: decks in play, 1..8.
    :param player: ``hand`` evaluated under ``rules``, when the caller has it already.
    :return: the odds.
    :raises OddsError: a card used more than ``decks`` times, or fewer than 5 cards left.

    >>> from service.engine.rules import PROFILES
    >>> from service.engine.cards import parse_hand
    >>> o = odds(parse_hand("10S 9H 8D 4C 4H".split()), PROFILES["standard"].rules)  # No Ox
    >>> o.win, o.method
    (Fraction(0, 1), 'rank_classes')
    >>> o = odds(parse_hand("KS 9H 7D AS 4C".split()), PROFILES["liberal"].rules)   # Ngau Tonku
    >>> o.method, o.wins + o.losses + o.pushes == o.dealer_hands == 1533939
    ('card_multisets', True)
    """
    codes = [c.code for c in hand]
    left = dealer_pool(codes, [c.code for c in dead], decks)
    player = player or evaluate(hand, rules)
    table = table_for(rules)
    total = comb(sum(left), HAND_SIZE)
    if not uses_suits(rules):
        wins, lose_plain, lose_suited = _by_classes(player, rules, table, left)
        method = "rank_classes"
    else:
        wins, lose_plain, lose_suited = _by_multisets(player, rules, table, left, colex_rank(codes))
        method = "card_multisets"
    return _odds(rules, table, wins, lose_plain, lose_suited, player, total, method)


#: Per dealer class: the hands the player beats, and the hands it loses to without and
#: with the dealer's suited bonus.
_Counts = tuple[IntArray, IntArray, IntArray]


def _by_classes(player: Evaluation, rules: Rules, table: Table, left: Sequence[int]) -> _Counts:
    """:func:`odds` for rules without suits: one sum over the classes."""
    scores = table.scores.astype(np.int64)
    weights = class_weights(pseudo_available(left))
    lose = scores > player.score
    if rules.ties == "dealer" and player.category not in rules.pushing:
        lose |= scores == player.score
    wins = np.where(scores < player.score, weights, 0)
    return wins, np.where(lose, weights, 0), np.zeros(len(table.every), dtype=np.int64)


def _by_multisets(player: Evaluation, rules: Rules, table: Table, left: Sequence[int], me: int) -> _Counts:
    """:func:`odds` for rules with suits: one walk of the dealer's card multisets
    (``me``: the player's :func:`~service.engine.analysis.walk.colex_rank`, its high-card order)."""
    n = len(table.every)
    scores = table.scores.astype(np.int64)
    wins = np.zeros(n, dtype=np.int64)
    lose_plain = np.zeros(n, dtype=np.int64)
    lose_suited = np.zeros(n, dtype=np.int64)
    category = player.category
    top = max(c.code for c in player.hand)  # the top card's code (full_house_order: high_card)
    for chunk in walk_chunks(left, table):
        s = scores[chunk.klass]
        lower = s < player.score
        if category in rules.pushing:
            lose = s > player.score
        elif category in rules.high_card_categories:  # the walk's row index is the high-card order
            tie = s == player.score
            theirs, mine = (chunk.codes.max(axis=1), top) if category in rules.top_card_categories else (chunk.rows, me)
            lose = (s > player.score) | (tie & (theirs > mine))
            lower |= tie & (theirs < mine)
            if rules.ties == "dealer":  # identical cards (several decks): the dealer takes the tie
                lose |= tie & (theirs == mine)
        elif rules.ties == "dealer":
            lose = s >= player.score
        else:
            lose = s > player.score
        wins += class_tally(chunk, lower, n)
        if rules.suited_bonus == "none":
            lose_plain += class_tally(chunk, lose, n)
        else:
            suited = suited_flags(table, chunk.klass, chunk.mono, chunk.flush)
            lose_plain += class_tally(chunk, lose & ~suited, n)
            lose_suited += class_tally(chunk, lose & suited, n)
    return wins, lose_plain, lose_suited


def _odds(rules: Rules, table: Table, wins: IntArray, lose_plain: IntArray, lose_suited: IntArray,
          player: Evaluation, total: int, method: str) -> Odds:
    """Per-class counts to :class:`Odds`, in exact Python integers. Under ``ties: dealer`` the
    losses in the player's own score are the ties the dealer takes: they pay what
    ``tie_payout`` says (:meth:`~service.engine.bets.TieCost.total`, RULES.md 6.4)."""
    multiplier = rules.suited_multiplier
    paid_each = [p * (a + multiplier * b)
                 for p, a, b in zip(table.payouts.tolist(), lose_plain.tolist(), lose_suited.tolist(), strict=True)]
    paid = sum(paid_each)
    if rules.ties == "dealer" and not rules.tie_cost.by_hand and player.category not in rules.high_card_categories:
        tied = np.flatnonzero(table.scores == player.score).tolist()  # (Bombs by their cards: no ties)
        ties, tie_paid = sum(int(lose_plain[k]) + int(lose_suited[k]) for k in tied), sum(paid_each[k] for k in tied)
        paid += rules.tie_cost.total(BETS[DEFAULT_BET], ties, tie_paid) - tie_paid
    win_count = int(wins.sum())
    losses = int(lose_plain.sum()) + int(lose_suited.sum())
    return Odds(total, win_count, losses, total - win_count - losses, win_count * player.payout - paid, method,
                player.payout, rules.commission_bps)


# --------------------------------------------------------------------------------------
# Deals of partial odds (service.engine.analysis.partial, service.engine.analysis.partial_walk) count into a Tally


@dataclass
class Tally:
    """Running counts over deals, from the caller's side (all exact integers).

    :param completions: completions counted (physical cards apart).
    :param wins: deals the caller wins; ``losses`` likewise.
    :param deals: every deal counted.
    :param paid_in: per unit stake, what the caller's wins collect (its hand's payout, suited
        bonus included).
    :param paid_out: per unit stake, what the caller's losses pay (the opponent's payout).
    """

    completions: int = 0
    wins: int = 0
    losses: int = 0
    deals: int = 0
    paid_in: int = 0
    paid_out: int = 0


def flat_ties(by_rule: Tally, by_push: Tally) -> Tally:
    """A tally under ``tie_payout: stake`` (RULES.md 6.4: a tie the dealer takes costs one
    stake), from the tally of the same deals under ``ties: dealer`` (``by_rule``) and under
    ``ties: push`` (``by_push``): the two differ exactly in the tied deals, which the dealer
    wins under one and push under the other, so their number is the difference of the wins
    (the caller is the dealer) or of the losses (the caller is a player), and each moves one
    stake instead of the dealer's payout. Exact for every bet (the ``equal`` bet's tie costs
    one stake either way).

    >>> flat_ties(Tally(9, 3, 4, 20, 6, 10), Tally(9, 3, 2, 20, 6, 4))   # two ties, 6 paid out on them
    Tally(completions=9, wins=3, losses=4, deals=20, paid_in=6, paid_out=6)
    """
    return Tally(by_rule.completions, by_rule.wins, by_rule.losses, by_rule.deals,
                 by_push.paid_in + (by_rule.wins - by_push.wins), by_push.paid_out + (by_rule.losses - by_push.losses))


def tie_sides(rules: Rules, role: str) -> tuple[bool, bool]:
    """Whether equal hands (not both Five Dukes) go to the caller / to the opponent under
    ``ties: dealer`` (RULES.md section 5); ``(False, False)`` under the other tie rules.

    :param role: ``player`` or ``dealer``: the caller's seat.

    >>> from service.engine.rules import PROFILES
    >>> tie_sides(PROFILES["standard"].rules, "dealer"), tie_sides(PROFILES["niu-niu"].rules, "player")
    ((True, False), (False, False))
    """
    if rules.ties != "dealer":
        return False, False
    return role == "dealer", role == "player"
