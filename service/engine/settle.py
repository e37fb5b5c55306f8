"""Settling a round against the dealer (RULES.md section 6).

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import PROFILES
>>> from service.engine.tables import evaluate
>>> std = PROFILES["standard"].rules
>>> dealer = evaluate(parse_hand("10S 9H 8D 4C 4H".split()), std)     # No Ox
>>> player = evaluate(parse_hand("10H 9D AD 7C 4S".split()), std)     # Single-Ox 1
>>> s = settle(dealer, [(player, 1)], std)
>>> s.players[0].outcome, s.players[0].amount, s.dealer_net
('win', 1, -1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from service.engine.compare import compare
from service.engine.evaluate import Evaluation
from service.engine.rules import Rules

__all__ = ["MAX_SAFE_INTEGER", "MAX_STAKE", "Outcome", "PlayerResult", "Settlement", "largest_payout", "settle",
           "worst_case_amount"]

#: The largest stake, in the caller's minor unit (RULES.md section 6).
MAX_STAKE = 10**12

#: The largest integer every JSON reader keeps exactly: 2^53 - 1 (I-JSON, RFC 7493 section
#: 2.2; JavaScript's ``Number.MAX_SAFE_INTEGER``). No amount a settlement returns may exceed
#: it in absolute value (RULES.md section 6).
MAX_SAFE_INTEGER = 2**53 - 1

Outcome = Literal["win", "lose", "push"]


@dataclass(frozen=True)
class PlayerResult:
    """One player's result.

    :param evaluation: the player's hand.
    :param stake: the stake, a positive integer in the caller's minor unit.
    :param outcome: ``'win'``, ``'lose'`` or ``'push'``.
    :param amount: signed from the player's side, in the stake's unit: positive when the
        dealer pays, negative when the player pays, 0 on a push.
    """

    evaluation: Evaluation
    stake: int
    outcome: Outcome
    amount: int


@dataclass(frozen=True)
class Settlement:
    """A settled round.

    :param dealer: the dealer's hand.
    :param dealer_net: minus the sum of the players' amounts (zero-sum).
    :param players: one result per player, in input order.
    """

    dealer: Evaluation
    dealer_net: int
    players: tuple[PlayerResult, ...]


def settle_one(dealer: Evaluation, player: Evaluation, stake: int, rules: Rules) -> PlayerResult:
    """Settle one player against the dealer (RULES.md section 6).

    - both Five Dukes: push, whatever the tie rule;
    - player stronger: the dealer pays ``stake * player.payout``;
    - otherwise the player pays ``stake * dealer.payout``, except that equal hands push
      under the ``push`` tie rule and under ``high_card`` when the high cards are equal too.

    :raises ValueError: ``stake`` is not an integer from 1 to :data:`MAX_STAKE`.
    """
    if isinstance(stake, bool) or not isinstance(stake, int) or not 1 <= stake <= MAX_STAKE:
        raise ValueError(f"stake must be an integer from 1 to {MAX_STAKE}")
    if dealer.category == player.category == "five_dukes":
        return PlayerResult(player, stake, "push", 0)
    order = compare(player, dealer, rules)
    if order > 0:
        return PlayerResult(player, stake, "win", stake * player.payout)
    if order == 0 and rules.ties != "dealer":
        return PlayerResult(player, stake, "push", 0)
    return PlayerResult(player, stake, "lose", -stake * dealer.payout)


def settle(dealer: Evaluation, players: Sequence[tuple[Evaluation, int]], rules: Rules) -> Settlement:
    """Settle every player against the dealer (RULES.md section 6).

    :param dealer: the dealer's evaluated hand.
    :param players: ``(evaluation, stake)`` per player, in table order.
    :param rules: the rules (``ties`` and the payouts carried by the evaluations).
    :return: the settlement; ``dealer_net == -sum(amounts)``.
    :raises ValueError: a stake out of range.

    >>> from service.engine.cards import parse_hand
    >>> from service.engine.rules import PROFILES
    >>> from service.engine.tables import evaluate
    >>> std = PROFILES["standard"].rules
    >>> d8 = evaluate(parse_hand("3S 6H 8D 4C 8H".split()), std)       # Double-Ox 8
    >>> no_ox = evaluate(parse_hand("10S 9H 7D 4C 5H".split()), std)
    >>> settle(d8, [(no_ox, 250)], std).players[0].amount
    -500
    """
    results = tuple(settle_one(dealer, e, stake, rules) for e, stake in players)
    return Settlement(dealer, -sum(r.amount for r in results), results)


def largest_payout(rules: Rules) -> int:
    """The largest stake multiplier any hand can carry under ``rules``: the largest payout
    of a category the rules enable (each ``single_ox_N`` counted for Single-Ox), times
    ``suited_multiplier`` when a suited bonus is on (RULES.md sections 6 and 7).

    >>> from service.engine.rules import PROFILES
    >>> largest_payout(PROFILES["standard"].rules)      # Five Dukes pays 10
    10
    >>> from service.engine.rules import apply_overrides
    >>> largest_payout(apply_overrides(PROFILES["standard"].rules, {"suited_bonus": "hand", "suited_multiplier": 3}))
    30
    """
    payouts = [rules.payout("single_ox", n) for n in range(10)]
    payouts += [rules.payouts[c] for c in rules.ranking if c != "single_ox" and rules.enabled(c)]
    return max(payouts) * (rules.suited_multiplier if rules.suited_bonus != "none" else 1)


def worst_case_amount(stakes: Sequence[int], rules: Rules) -> int:
    """The largest absolute integer a settlement of these stakes could return, whatever the
    hands: the dealer's net when every player wins (or loses) at :func:`largest_payout`,
    ``sum(stakes) * largest_payout(rules)``. Every player's amount is at most this too.
    A table is accepted only when this is at most :data:`MAX_SAFE_INTEGER`.

    :param stakes: the players' stakes, positive integers in the caller's minor unit.
    :param rules: the effective rules.
    :return: a non-negative integer.

    >>> from service.engine.rules import PROFILES
    >>> worst_case_amount([100, 250], PROFILES["standard"].rules)
    3500
    >>> worst_case_amount([MAX_STAKE] * 82, PROFILES["standard"].rules) <= MAX_SAFE_INTEGER
    True
    """
    return sum(stakes) * largest_payout(rules)
