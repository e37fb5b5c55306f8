"""Showdowns without a dealer (通比牛牛, "compare all"): every hand against every other
(RULES.md 6.6).

There is no banker: the room's ``base`` and each player's ``bet_multiple`` (1..100) are
given. The strongest hand wins; under ``high_card`` one hand is strongest unless two hold
identical cards or both are Five Dukes while they push (``rules.pushing``); under ``push``
or ``dealer`` ties equal hands are all strongest (there is no dealer to take a tie). The
``showdown`` knob says how the round settles:

- ``winner_takes_all``: each player not among the ``w`` strongest pays each strongest hand
  ``floor(amount / w)``, ``amount = base × loser's bet_multiple × payout(winner)`` (times the
  winner's ``bet_multiple`` under ``showdown_stake: loser_x_winner``);
- ``all_pairs``: every pair settles as a player against a dealer would, the stronger hand
  paid the same amount by the weaker; hands still equal push.

Under balance caps (``players`` or ``table``, ``winner_takes_all`` only) each payment from a
loser is first limited to ``floor(balance / w)``, then the payments to one winner are scaled
down to its balance by largest remainders (:func:`~service.engine.caps.scale_to`); under
``showdown_winner_cap: per_loser`` each payment is instead at most the winner's balance too,
and a winner's total is not capped.
Commission (``commission_bps``) is taken from a positive gross; ``Σ amounts + house = 0``.

The example of RULES.md section 8 (``niu-niu``, ``base`` 10):

>>> from service.engine.cards import parse_hand
>>> from service.engine.tables import evaluate
>>> from service.engine.rules import PROFILES, apply_overrides
>>> nn = PROFILES["niu-niu"].rules
>>> hands = [evaluate(parse_hand(h.split()), nn) for h in
...          ("JS 9H AD 5C 5D", "7S 3H JH 8C 10C", "9S 9D KS 2H 4D", "2S 5H 8D 7C QH")]
>>> [p.gross for p in showdown(hands, [2, 1, 4, 3], 10, nn).players]
[240, -30, -120, -90]
>>> [p.gross for p in showdown(hands, [2, 1, 4, 3], 10, apply_overrides(nn, {"showdown": "all_pairs"})).players]
[240, 110, -170, -180]
>>> capped = showdown(hands, [2, 1, 4, 3], 10, apply_overrides(nn, {"balance_caps": "players"}),
...                   [10_000, 25, 10_000, 10_000])
>>> [(p.gross, p.cap) for p in capped.players]
[(235, 'loser_balance'), (-25, 'loser_balance'), (-120, None), (-90, None)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cmp_to_key
from typing import NamedTuple

from service.engine.caps import LOSER_BALANCE, WINNER_BALANCE, scale_to
from service.engine.compare import Scored, compare
from service.engine.rules import Rules
from service.engine.settle import commission, stake_of

__all__ = ["Showdown", "ShowdownPlayer", "showdown", "showdown_order", "showdown_worst_case", "versus"]

#: Payments of a showdown: ``(payer, payee) -> amount`` (indexes into the players).
Payments = dict[tuple[int, int], int]


class ShowdownPlayer(NamedTuple):
    """One player's result in a showdown.

    :param evaluation: the player's hand.
    :param stake: ``base × bet_multiple``.
    :param bet_multiple: the player's bet multiple.
    :param position: competition ranking among the hands (1 for the strongest; equal hands
        share a position).
    :param gross: the sum of its payments, signed (received minus paid), after caps.
    :param commission: the house's share of a positive ``gross`` (``commission_bps``).
    :param amount: ``gross - commission``.
    :param gross_uncapped: the gross before caps (equal to ``gross`` without caps).
    :param cap: ``None`` when the two are equal, else ``winner_balance`` or ``loser_balance``.
    """

    evaluation: Scored
    stake: int
    bet_multiple: int
    position: int
    gross: int
    commission: int
    amount: int
    gross_uncapped: int
    cap: str | None


@dataclass(frozen=True, slots=True)
class Showdown:
    """A settled showdown.

    :param players: one result per player, in input order.
    :param order: the players' indexes, strongest first (equal hands in input order).
    :param strongest: the indexes of the strongest hands, in input order.
    :param house: every commission taken: ``sum(amounts) + house == 0``.
    """

    players: tuple[ShowdownPlayer, ...]
    order: tuple[int, ...]
    strongest: tuple[int, ...]
    house: int


def versus(a: Scored, b: Scored, rules: Rules) -> int:
    """How two hands compare in a showdown: section 5's comparison (:func:`~service.engine.compare.compare`,
    the ``high_card`` one included under ``ties: high_card``), except that two hands of a
    category that pushes (Five Dukes while ``five_dukes_push`` is on) are equal.

    :return: ``1``, ``-1`` or ``0``.
    """
    if a.category == b.category and a.category in rules.pushing:
        return 0
    return compare(a, b, rules)


def showdown_order(hands: Sequence[Scored], rules: Rules) -> tuple[list[int], list[int]]:
    """The hands' indexes strongest first (equal hands in input order) and each hand's
    competition position (1, 2, 2, 4), by :func:`versus`.

    >>> from service.engine.cards import parse_hand
    >>> from service.engine.tables import evaluate
    >>> from service.engine.rules import PROFILES
    >>> nn = PROFILES["niu-niu"].rules
    >>> dukes = [evaluate(parse_hand(h.split()), nn) for h in ("KS KH QD JC QS", "10S 9H 8D 4C 4H", "KD KC QH JS QC")]
    >>> showdown_order(dukes, nn)     # two Five Dukes push: both strongest, whatever the high card
    ([0, 2, 1], [1, 3, 1])
    """
    def stronger_first(i: int, j: int) -> int:
        return versus(hands[j], hands[i], rules) or i - j

    order = sorted(range(len(hands)), key=cmp_to_key(stronger_first))
    positions = [0] * len(hands)
    for n, i in enumerate(order):
        previous = order[n - 1] if n else None
        tied = previous is not None and versus(hands[i], hands[previous], rules) == 0
        positions[i] = positions[previous] if tied and previous is not None else n + 1
    return order, positions


def _amount(hands: Sequence[Scored], bets: Sequence[int], base: int, rules: Rules, loser: int, winner: int) -> int:
    """What ``loser`` owes ``winner`` before any split or cap (RULES.md 6.6)."""
    amount = base * bets[loser] * hands[winner].payout
    return amount * bets[winner] if rules.showdown_stake == "loser_x_winner" else amount


def _winner_takes_all(hands: Sequence[Scored], bets: Sequence[int], base: int, rules: Rules,
                      strongest: Sequence[int]) -> Payments:
    """Each loser pays each of the ``w`` strongest ``floor(amount / w)``."""
    w = len(strongest)
    winners = set(strongest)
    return {(loser, winner): _amount(hands, bets, base, rules, loser, winner) // w
            for loser in range(len(hands)) if loser not in winners for winner in strongest}


def _all_pairs_gross(hands: Sequence[Scored], bets: Sequence[int], base: int, rules: Rules,
                     positions: Sequence[int]) -> list[int]:
    """Each player's gross when every pair settles: the weaker pays the stronger
    :func:`_amount`, equal hands push. :func:`versus` is a weak order, so the competition
    positions decide every pair, and a player's gross is what every weaker hand pays it less
    what it pays every stronger one: ``base × (payout × w × B − m × P)``, with ``m`` its bet
    multiple, ``w`` its multiple under ``loser_x_winner`` (else 1), ``B`` the weaker hands'
    multiples summed and ``P`` the stronger hands' ``payout × w`` summed (one pass over the
    positions, not one per pair; exact integers, there is no division).

    >>> from service.engine.cards import parse_hand
    >>> from service.engine.tables import evaluate
    >>> from service.engine.rules import PROFILES
    >>> nn = PROFILES["niu-niu"].rules
    >>> hands = [evaluate(parse_hand(h.split()), nn) for h in ("JS 9H AD 5C 5D", "7S 3H JH 8C 10C")]
    >>> hands[0].label, hands[0].payout
    ('Single-Ox 0', 3)
    >>> _all_pairs_gross(hands, [2, 1], 10, nn, [1, 2])      # 10 x 1 x 3: the weaker pays the stronger
    [30, -30]
    """
    by_stake = rules.showdown_stake == "loser_x_winner"
    last = max(positions)
    multiples = [0] * (last + 2)  # by position: the bet multiples there, summed
    owed = [0] * (last + 2)  # by position: what each unit a weaker hand pays them comes to
    for i, position in enumerate(positions):
        multiples[position] += bets[i]
        owed[position] += hands[i].payout * (bets[i] if by_stake else 1)
    weaker = [0] * (last + 2)  # the multiples of every position after this one
    for position in range(last, 0, -1):
        weaker[position - 1] = weaker[position] + multiples[position]
    stronger = [0] * (last + 2)  # the owed of every position before this one
    for position in range(2, last + 1):
        stronger[position] = stronger[position - 1] + owed[position - 1]
    return [base * (hands[i].payout * (bets[i] if by_stake else 1) * weaker[p] - bets[i] * stronger[p])
            for i, p in enumerate(positions)]


def _capped(payments: Payments, balances: Sequence[int], strongest: Sequence[int]) -> tuple[Payments, set[int],
                                                                                              set[int]]:
    """The payments under caps (RULES.md 6.6): each first limited to ``floor(balance_L / w)``,
    then each winner's scaled down to its balance by largest remainders (the loser listed
    first first among equal parts).

    :return: the capped payments, and the players a loser's limit changed and a winner's
        scaling changed (each through one of its payments).
    """
    w = len(strongest)
    limited = {pair: min(amount, balances[pair[0]] // w) for pair, amount in payments.items()}
    by_loser = {pair for pair, amount in limited.items() if amount != payments[pair]}
    out = dict(limited)
    by_winner: set[tuple[int, int]] = set()
    for winner in strongest:
        pairs = sorted(pair for pair in limited if pair[1] == winner)  # losers in input order
        total = sum(limited[pair] for pair in pairs)
        if total > balances[winner]:
            for pair, value in zip(pairs, scale_to([limited[p] for p in pairs], balances[winner]), strict=True):
                if value != limited[pair]:
                    by_winner.add(pair)
                out[pair] = value
    return out, {i for pair in by_loser for i in pair}, {i for pair in by_winner for i in pair}


def _capped_per_loser(payments: Payments, balances: Sequence[int], strongest: Sequence[int]
                      ) -> tuple[Payments, set[int], set[int]]:
    """The payments under caps with ``showdown_winner_cap: per_loser`` (RULES.md 7): each at
    most ``min(floor(balance_L / w), balance_W)``, nothing scaled, so a winner's total may
    exceed its balance. A payment the loser's limit cut is the loser's balance's doing (both
    players' ``cap`` is then ``loser_balance``); one cut further by the winner's balance is the
    winner's (``winner_balance``).

    :return: the capped payments, and the players a loser's limit changed and a winner's
        balance changed (each through one of its payments).

    >>> _capped_per_loser({(1, 0): 195_000, (2, 0): 225_000}, [50_000, 20_000, 2_000_000], [0])
    ({(1, 0): 20000, (2, 0): 50000}, {0, 1}, {0, 2})
    """
    w = len(strongest)
    out: Payments = {}
    by_loser: set[int] = set()
    by_winner: set[int] = set()
    for (loser, winner), amount in payments.items():
        limited = min(amount, balances[loser] // w)
        value = min(limited, balances[winner])
        if value < limited:
            by_winner.update((loser, winner))
        elif value < amount:
            by_loser.update((loser, winner))
        out[loser, winner] = value
    return out, by_loser, by_winner


def _gross(payments: Payments, n: int) -> list[int]:
    out = [0] * n
    for (payer, payee), amount in payments.items():
        out[payer] -= amount
        out[payee] += amount
    return out


def showdown(hands: Sequence[Scored], bet_multiples: Sequence[int], base: int, rules: Rules,
             balances: Sequence[int] | None = None) -> Showdown:
    """Settle a showdown without a dealer (RULES.md 6.6; the module docstring).

    :param hands: two or more evaluated hands, in table order.
    :param bet_multiples: each player's bet multiple (1..100), same order.
    :param base: the room's base, 1..10^12; every ``base × bet_multiple`` is a stake (at most 10^12).
    :param rules: ``ties``, ``showdown``, ``showdown_stake``, ``balance_caps``, ``commission_bps``
        (``dealer_commission_bps`` and ``tie_payout`` have no dealer to act on).
    :param balances: each player's balance, required under caps and refused without.
    :return: the showdown.
    :raises ValueError: fewer than two hands, a multiple, base or stake out of range,
        balances given or missing against ``balance_caps``, or caps with ``all_pairs``.
    """
    n = len(hands)
    if n < 2 or len(bet_multiples) != n:
        raise ValueError("a showdown needs two or more hands and one bet multiple each")
    stakes = [stake_of(base, 1, m) for m in bet_multiples]
    caps = rules.balance_caps != "none"
    if caps != (balances is not None) or (balances is not None and len(balances) != n):
        raise ValueError("give one balance per player under balance caps, and none without")
    if caps and rules.showdown == "all_pairs":
        raise ValueError("balance caps apply to winner_takes_all showdowns only")
    order, positions = showdown_order(hands, rules)
    strongest = tuple(sorted(i for i in range(n) if positions[i] == 1))
    by_loser: set[int] = set()
    by_winner: set[int] = set()
    if rules.showdown == "all_pairs":  # never under caps (refused above)
        gross = uncapped = _all_pairs_gross(hands, bet_multiples, base, rules, positions)
    else:
        payments = _winner_takes_all(hands, bet_multiples, base, rules, strongest)
        gross = uncapped = _gross(payments, n)
        if balances is not None:
            cap_payments = _capped_per_loser if rules.showdown_winner_cap == "per_loser" else _capped
            payments, by_loser, by_winner = cap_payments(payments, balances, strongest)
            gross = _gross(payments, n)
    players = []
    for i in range(n):
        cap = (None if gross[i] == uncapped[i] else WINNER_BALANCE if i in by_winner
               else LOSER_BALANCE if i in by_loser else None)
        taken = commission(gross[i], rules.commission_bps, rules.min_commission)
        players.append(ShowdownPlayer(hands[i], stakes[i], bet_multiples[i], positions[i], gross[i], taken,
                                      gross[i] - taken, uncapped[i], cap))
    return Showdown(tuple(players), tuple(order), strongest, sum(p.commission for p in players))


def showdown_worst_case(base: int, bet_multiples: Sequence[int], rules: Rules) -> int:
    """The largest absolute integer a showdown of these seats could answer, whatever the
    hands: what every player could pay every other at the largest payout, summed over the
    ordered pairs (every gross, the house and each amount are at most this).

    :param base: the room's base.
    :param bet_multiples: each player's bet multiple.
    :param rules: the effective rules (``max_payout``, ``showdown_stake``).
    :return: a non-negative integer; a table is accepted only when it is at most 2^53 − 1.

    >>> from service.engine.rules import PROFILES
    >>> showdown_worst_case(10, [2, 1, 4, 3], PROFILES["niu-niu"].rules)   # 3 x 10 x 10 x 5
    1500
    """
    total = sum(bet_multiples)
    if rules.showdown_stake == "loser_x_winner":
        pairs = total * total - sum(m * m for m in bet_multiples)  # sum over i != j of m_i m_j
    else:
        pairs = (len(bet_multiples) - 1) * total
    return base * pairs * rules.max_payout
