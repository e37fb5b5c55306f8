"""Bet types as declared data (RULES.md section 6.1): what a bet wins, loses and risks.

A :class:`Bet` settles every amount as ``stake × multiplier(payout)``, where the payout is
that of the hand that collects (the player's on a win, the dealer's on a loss) and the
multiplier is linear in it: ``payout_factor × payout + flat``. ``double`` pays by the hand
(``1 × payout + 0``), ``equal`` one stake whatever the hands (``0 × payout + 1``). Because
every bet is linear in the payout, the analyses (odds, house edge) turn their counts of wins
and losses and their sums of payouts into each bet's expectation exactly
(:meth:`Bet.expected_gross`), and exposures into each bet's worst case
(:meth:`Bet.worst`). Settlement, exposure, the analyses, the API's schemas and the ``gnau``
command all ask :data:`BETS`; adding a bet type is one entry there.

>>> BETS["double"].win(100, 5), BETS["equal"].win(100, 5), BETS["equal"].worst(100, 10)
(500, 100, 100)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["BETS", "BET_NAMES", "DEFAULT_BET", "TIE_COSTS", "Bet", "TieCost"]


@dataclass(frozen=True)
class Bet:
    """One bet type.

    :param name: the API name (``"double"``).
    :param doc: one line for people (openapi.yaml's description, the CLI's help).
    :param payout_factor: how many times the collecting hand's payout one stake is paid.
    :param flat: how many stakes are paid on top, whatever the hands.
    """

    name: str
    doc: str
    payout_factor: int
    flat: int

    def multiplier(self, payout: int) -> int:
        """Stakes paid when a hand of ``payout`` collects: ``payout_factor × payout + flat``."""
        return self.payout_factor * payout + self.flat

    def win(self, stake: int, player_payout: int) -> int:
        """The gross a winning player collects, before commission (RULES.md 6, 6.1)."""
        return stake * (self.payout_factor * player_payout + self.flat)

    def loss(self, stake: int, dealer_payout: int) -> int:
        """What a losing player pays the dealer (a positive amount, RULES.md 6, 6.1)."""
        return stake * (self.payout_factor * dealer_payout + self.flat)

    def worst(self, stake: int, max_payout: int) -> int:
        """The most the bet can win or lose gross whatever the hands (RULES.md 6.3), given
        the largest payout any hand collects under the rules."""
        return stake * (self.payout_factor * max_payout + self.flat)

    def expected_gross(self, wins: int, losses: int, paid_in: int, paid_out: int) -> int:
        """The caller's total gross per unit stake over counted deals, from how many it won
        and lost and the payouts its wins collected (``paid_in``) and its losses paid
        (``paid_out``): exact, since every amount is linear in the payout.

        >>> BETS["double"].expected_gross(3, 1, 6, 2), BETS["equal"].expected_gross(3, 1, 6, 2)
        (4, 2)
        """
        return self.payout_factor * (paid_in - paid_out) + self.flat * (wins - losses)

    def winnings(self, wins: int, paid_in: int) -> int:
        """What the caller's wins collect per unit stake (what a commission is taken from)."""
        return self.payout_factor * paid_in + self.flat * wins


#: Every bet type by name (RULES.md 6.1); the first is the default.
BETS: Mapping[str, Bet] = MappingProxyType({bet.name: bet for bet in (
    Bet("double", "A win collects stake x the player's payout, a loss costs stake x the dealer's.", 1, 0),
    Bet("equal", "A win or a loss is one stake, whatever the hands.", 0, 1),
)})
#: The bet types' names, the default first.
BET_NAMES: tuple[str, ...] = tuple(BETS)
#: The bet a player makes unless it says otherwise.
DEFAULT_BET: str = BET_NAMES[0]


@dataclass(frozen=True)
class TieCost:
    """What a tie the dealer takes costs a player (RULES.md 6.4, the ``tie_payout`` knob): the
    bet's loss on the dealer's payout (``hand``, as section 6), or one flat stake whatever
    the bet and the hands (``stake``: rooms that charge "one base" on a tie).

    A tie here is a pair of equal hands under ``ties: dealer`` (a dealer win by the
    ``high_card`` comparison is a win, not a tie).

    :param name: the knob's value.
    :param doc: one line for people.
    :param by_hand: the tie costs what a loss costs (else one stake).

    >>> TIE_COSTS["hand"].loss(BETS["double"], 100, 3), TIE_COSTS["stake"].loss(BETS["double"], 100, 3)
    (300, 100)
    """

    name: str
    doc: str
    by_hand: bool

    def loss(self, bet: Bet, stake: int, dealer_payout: int) -> int:
        """What a player with ``bet`` and ``stake`` pays on a tie the dealer takes (a positive
        amount)."""
        return bet.loss(stake, dealer_payout) if self.by_hand else stake

    def total(self, bet: Bet, ties: int, paid: int) -> int:
        """What counted ties cost per unit stake, from their number and the dealer payouts
        they would collect as losses (``paid``): the analyses' one tie-cost sum (exact:
        every amount is linear in the payout).

        >>> TIE_COSTS["hand"].total(BETS["double"], 4, 7), TIE_COSTS["stake"].total(BETS["double"], 4, 7)
        (7, 4)
        >>> TIE_COSTS["hand"].total(BETS["equal"], 4, 7), TIE_COSTS["stake"].total(BETS["equal"], 4, 7)
        (4, 4)
        """
        return bet.payout_factor * paid + bet.flat * ties if self.by_hand else ties


#: The ``tie_payout`` knob's values (RULES.md 6.4); the first is the default.
TIE_COSTS: Mapping[str, TieCost] = MappingProxyType({cost.name: cost for cost in (
    TieCost("hand", "A tie the dealer takes costs the bet's loss on the dealer's payout (section 6).", True),
    TieCost("stake", "A tie the dealer takes costs one flat stake, whatever the bet and the hands.", False),
)})
