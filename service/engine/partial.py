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
unknown hand. tests/engine/test_partial.py checks this against the literal enumeration of every
seating of 3 opponents on a reduced deck.

**Method.** Two groupings, both reusing the class machinery of :mod:`service.engine.odds`:

- by classes (:mod:`service.engine.partial_classes`): completions are grouped by their
  pseudo-ranks and each group is a sum over the 8,568 classes of the opponent's hand. Rules
  that use no suits need nothing else; with suits and one deck each completion is settled
  apart, ``high_card`` ties by the top card (disjoint hands) and the suited bonus from the
  list of suited hands (:mod:`service.engine.suited_hands`);
- otherwise (several decks with suits, or a suited bonus with ``high_card`` ties) one walk
  of the card multisets of the opponent (:mod:`service.engine.partial_walk`).

The expected net is computed from per-deal outcomes (win, lose, push) and payouts in one
place, :func:`~service.engine.deal_tally.net`, so a bet type that changes the amounts
settles there. ``method`` says, as for five known cards, whether the rules use suits
(``card_multisets``) or not (``rank_classes``), whichever grouping counted.

>>> from math import comb
>>> from service.engine.cards import parse_card
>>> from service.engine.rules import PROFILES
>>> p = partial_odds([parse_card(t) for t in "AS KH 10D 4C".split()], PROFILES["standard"].rules)
>>> p.completions, p.deals == 48 * comb(47, 5), p.labels["Ngau Tonku"]
(48, True, 8)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from service.engine.cards import CARDS, HAND_SIZE, Card, count_excess
from service.engine.deal_tally import net
from service.engine.distribution import labels_of
from service.engine.evaluate import evaluate
from service.engine.odds import Chances, OddsError, dealer_pool, odds, uses_suits
from service.engine.partial_classes import by_classes, class_path_applies
from service.engine.partial_walk import by_walk
from service.engine.rules import Rules

__all__ = ["ROLES", "Completion", "PartialOdds", "max_opponents", "partial_odds"]

ROLES = ("player", "dealer")


def max_opponents(known: int, dead: int, decks: int) -> int:
    """How many opponents the decks seat: every hand is five cards, none shared.

    :param known: the caller's known cards (its hand takes five in the end).
    :param dead: dead cards.
    :param decks: decks in play.

    >>> max_opponents(4, 0, 1), max_opponents(3, 7, 2)
    (9, 18)
    """
    del known  # the caller's hand is five cards once complete, whatever is known now
    return max(0, (52 * decks - dead - HAND_SIZE) // HAND_SIZE)


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
    :param labels: completions per label.
    :param paid_in: the total the caller's wins collect over all deals, per unit stake
        (``double`` bet): what a commission is taken from.
    :param commission: the commission on the caller's wins, in basis points: the rules'
        ``commission_bps`` as ``player``; 0 as ``dealer`` (a player's commission is the
        house's share of the player's win, never the dealer's).
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
    paid_in: int = 0
    commission: int = 0

    @property
    def counted(self) -> int:
        """Every deal counted (the denominator of :class:`~service.engine.odds.Chances`)."""
        return self.deals

    @property
    def payout_totals(self) -> tuple[int, int]:
        """What the wins collect (``paid_in``) and the losses pay (``paid_in - net``)."""
        return self.paid_in, self.paid_in - self.net

    @property
    def commission_bps(self) -> int:
        """The commission on the caller's wins (see ``commission``)."""
        return self.commission

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
# The answer


def _deck_left(deck: Sequence[int], used: Sequence[int], decks: int) -> list[int]:
    """Cards left per code from a given deck once ``used`` are out.

    >>> sum(_deck_left([0, 1, 2, 2], [2], 2))
    3
    """
    if count_excess([deck], decks):
        raise OddsError(f"a deck for {decks} deck(s) holds each card at most {decks} times")
    left = [0] * 52
    for c in deck:
        left[c] += 1
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
        ``decks`` times, too few cards left for the completion and one opponent, or the
        ``dealer`` role under a dealer commission (RULES.md section 6.2: it is taken from the
        dealer's result for the whole round, so a round's expectation is not a sum of the
        players').

    >>> from service.engine.cards import parse_card
    >>> from service.engine.rules import PROFILES
    >>> from math import comb
    >>> p = partial_odds([parse_card(t) for t in "JS QH KD".split()], PROFILES["standard"].rules)
    >>> p.completions == comb(49, 2), p.wins + p.losses + p.pushes == p.deals
    (True, True)
    >>> partial_odds([parse_card(t) for t in "JS QH".split()], PROFILES["standard"].rules)
    Traceback (most recent call last):
        ...
    service.engine.odds.OddsError: 3 to 5 known cards are needed, got 2
    """
    if not 3 <= len(known) <= HAND_SIZE:
        raise OddsError(f"3 to 5 known cards are needed, got {len(known)}")
    if role not in ROLES:
        raise OddsError(f"role must be one of {', '.join(ROLES)}")
    if role == "dealer" and rules.dealer_commission_bps:
        raise OddsError("dealer odds are not computed under a dealer commission")
    codes = [c.code for c in known]
    dead_codes = [c.code for c in dead]
    missing = HAND_SIZE - len(codes)
    left = dealer_pool(codes, dead_codes, decks) if deck is None else _deck_left(deck, [*codes, *dead_codes], decks)
    if sum(left) < missing + HAND_SIZE:
        raise OddsError(f"only {sum(left)} cards are left for {missing} more card(s) and an opponent's five")
    labels: dict[str, int] = {}
    by_label: dict[str, list[int]] = {}
    if missing == 0 and role == "player" and deck is None:
        ev = evaluate(known, rules)
        o = odds(known, rules, dead, decks, ev)
        return PartialOdds(HAND_SIZE, role, 1, o.dealer_hands, o.wins, o.losses, o.pushes, o.net,
                           (Completion(ev.label, ev.category, ev.score, 1),), o.method, {ev.label: 1},
                           o.payout_totals[0], o.commission)
    count = by_classes if class_path_applies(rules, left) else by_walk
    tally = count(codes, left, rules, role, labels, by_label)
    method = "card_multisets" if uses_suits(rules) else "rank_classes"
    outcomes = tuple(Completion(label, category, score, labels[label], tuple(sorted(by_label.get(label, ()))))
                     for label, category, score in labels_of(rules) if labels.get(label))
    return PartialOdds(len(codes), role, tally.completions, tally.deals, tally.wins, tally.losses,
                       tally.deals - tally.wins - tally.losses, net(tally.paid_in, tally.paid_out), outcomes, method,
                       {o.label: o.completions for o in outcomes}, tally.paid_in,
                       rules.commission_bps if role == "player" else 0)
