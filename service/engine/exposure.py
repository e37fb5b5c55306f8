"""Exposure: what each side of a table could lose or win before any card is dealt
(RULES.md section 6.3).

>>> from service.engine.rules import PROFILES
>>> bb = PROFILES["bull-bull"].rules
>>> player_exposure(1000, "double", bb), player_exposure(1000, "equal", bb)
(Exposure(max_loss=5000, max_win=4750), Exposure(max_loss=1000, max_win=950))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.engine.bets import BETS
from service.engine.rules import Rules
from service.engine.settle import MAX_MULTIPLE, MAX_STAKE, commission

__all__ = ["Exposure", "TableExposure", "max_bet_multiple", "max_bid_multiple", "player_exposure", "table_exposure",
           "worst_case_amount"]


@dataclass(frozen=True, slots=True)
class Exposure:
    """The most one side can lose and win in a round, in the stakes' minor unit.

    :param max_loss: the largest amount it may have to pay (a non-negative integer).
    :param max_win: the largest amount it may receive after commission (non-negative).
    """

    max_loss: int
    max_win: int


@dataclass(frozen=True, slots=True)
class TableExposure:
    """A table's exposure: one :class:`Exposure` per player (input order) and the dealer's."""

    players: tuple[Exposure, ...]
    dealer: Exposure


def _bound(stake: int, bet: str, rules: Rules) -> int:
    """The largest gross amount a bet can win or lose (:meth:`~service.engine.bets.Bet.worst`)."""
    if type(stake) is not int or not 1 <= stake <= MAX_STAKE:  # bool is not int by type
        raise ValueError(f"stake must be an integer from 1 to {MAX_STAKE}")
    kind = BETS.get(bet)
    if kind is None:
        raise ValueError("bet must be one of " + ", ".join(BETS))
    return kind.worst(stake, rules.max_payout)


def player_exposure(stake: int, bet: str, rules: Rules) -> Exposure:
    """A player's exposure (RULES.md section 6.3).

    The most the bet can lose is its worst case (:meth:`~service.engine.bets.Bet.worst`:
    ``stake * rules.max_payout`` for ``double``, ``stake`` for ``equal``); the most it can
    win is the same bound less the commission on it
    (``commission_bps``, rounded down as in a settlement, at least ``min_commission``;
    ``x - max(min(m, x), floor(x * r))`` never decreases as ``x`` grows, so no smaller win
    nets more).

    :param stake: a positive integer up to :data:`~service.engine.settle.MAX_STAKE`.
    :param bet: a bet type's name (:data:`~service.engine.bets.BETS`).
    :param rules: the rules (their ``max_payout`` and ``commission_bps``).
    :return: the exposure.
    :raises ValueError: a stake out of range or an unknown bet.

    >>> from service.engine.rules import PROFILES
    >>> player_exposure(19, "equal", PROFILES["bull-bull"].rules)
    Exposure(max_loss=19, max_win=19)
    """
    bound = _bound(stake, bet, rules)
    return Exposure(bound, bound - commission(bound, rules.commission_bps, rules.min_commission))


def table_exposure(players: Sequence[tuple[int, str]], rules: Rules, balances: Sequence[int | None] | None = None,
                   dealer_balance: int | None = None) -> TableExposure:
    """Every player's exposure and the dealer's (RULES.md section 6.3; with caps, 6.5).

    The dealer pays each winner's gross win (the player's commission comes out of it to
    the house), so the dealer's ``max_loss`` is the sum of the players' largest gross wins,
    ``sum(max_loss)`` of the players' bounds; RULES.md's "sum of the players' maximum wins",
    counted before commission (docs/rules-decisions.md, 10). The dealer's ``max_win`` is the
    sum of the players' ``max_loss`` less ``dealer_commission_bps`` of it, rounded down.

    Under ``balance_caps`` ``players`` or ``table`` a player's bound is also at most its
    balance (where one is given), and under ``table`` the dealer's bounds at most the
    dealer's balance; under ``none`` balances bound nothing (they are only the question of
    :func:`max_bet_multiple` and :func:`max_bid_multiple`).

    :param players: ``(stake, bet)`` per player.
    :param rules: the rules.
    :param balances: each player's balance or ``None``, same order (``None``: none given).
    :param dealer_balance: the dealer's balance, if given.
    :return: the table's exposure.
    :raises ValueError: a stake out of range or an unknown bet.

    >>> from service.engine.rules import PROFILES, apply_overrides
    >>> t = table_exposure([(1000, "double"), (1000, "equal")], PROFILES["bull-bull"].rules)
    >>> [p.max_win for p in t.players], t.dealer
    ([4750, 950], Exposure(max_loss=6000, max_win=6000))
    >>> capped = apply_overrides(PROFILES["bull-bull"].rules, {"balance_caps": "table"})
    >>> t = table_exposure([(1000, "double"), (1000, "equal")], capped, [3000, None], 2500)
    >>> t.players[0], t.dealer
    (Exposure(max_loss=3000, max_win=2850), Exposure(max_loss=2500, max_win=2500))
    """
    bounds = [_bound(stake, bet, rules) for stake, bet in players]
    if rules.balance_caps != "none" and balances is not None:
        bounds = [b if limit is None else min(b, limit) for b, limit in zip(bounds, balances, strict=True)]
    bps = rules.commission_bps
    least = rules.min_commission
    exposures = tuple([Exposure(b, b - commission(b, bps, least)) for b in bounds] if bps else
                      [Exposure(b, b) for b in bounds])
    total = sum(bounds)
    if rules.balance_caps == "table" and dealer_balance is not None:
        total = min(total, dealer_balance)
    return TableExposure(exposures, Exposure(total, total - commission(total, rules.dealer_commission_bps, least)))


def _fits(base: int, bid: int, bet_multiple: int) -> bool:
    return base * bid * bet_multiple <= MAX_STAKE


def max_bet_multiple(base: int, bid_multiple: int, bet: str, balance: int, rules: Rules) -> int:
    """The largest ``bet_multiple`` (1..100) whose worst loss fits ``balance``, or 0 when even 1
    is too much (RULES.md 6.5): the loss of :meth:`~service.engine.bets.Bet.worst` at the
    stake ``base × bid_multiple × bet_multiple``, which must itself stay within the stake
    bound (a settlement refuses a larger one).

    >>> from service.engine.rules import PROFILES
    >>> nn = PROFILES["niu-niu"].rules     # max payout 5
    >>> max_bet_multiple(100, 3, "double", 10_000, nn), max_bet_multiple(100, 3, "equal", 10_000, nn)
    (6, 33)
    >>> max_bet_multiple(100, 3, "double", 1499, nn)
    0
    """
    kind = BETS[bet]
    best = 0
    for m in range(1, MAX_MULTIPLE + 1):
        if not _fits(base, bid_multiple, m) or kind.worst(base * bid_multiple * m, rules.max_payout) > balance:
            break
        best = m
    return best


def max_bid_multiple(base: int, seats: Sequence[tuple[int, str, int | None]], balance: int, rules: Rules) -> int:
    """The largest ``bid_multiple`` (1..100) for which the sum of the players' worst wins
    (before commission, at their bet multiples) fits the dealer's ``balance``, or 0
    (RULES.md 6.5; DECISIONS 22: each worst win is capped by the player's balance when
    ``balance_caps`` is not ``none``). Every stake must stay within the stake bound.

    :param seats: ``(bet_multiple, bet, balance or None)`` per player.

    >>> from service.engine.rules import PROFILES, apply_overrides
    >>> nn = PROFILES["niu-niu"].rules
    >>> max_bid_multiple(100, [(1, "double", None), (2, "equal", None)], 3000, nn)   # 500 + 200 a bid
    4
    >>> max_bid_multiple(100, [(1, "double", 300), (2, "equal", None)], 3000, apply_overrides(nn, {"balance_caps": "players"}))
    13
    """
    capped = rules.balance_caps != "none"
    best = 0
    for bid in range(1, MAX_MULTIPLE + 1):
        if not all(_fits(base, bid, m) for m, _, _ in seats):
            break
        worst = 0
        for m, bet, limit in seats:
            win = BETS[bet].worst(base * bid * m, rules.max_payout)
            worst += min(win, limit) if capped and limit is not None else win
        if worst > balance:
            break
        best = bid
    return best


def worst_case_amount(players: Sequence[tuple[int, str]], rules: Rules) -> int:
    """The largest absolute integer a settlement of these seats could return, whatever the
    hands: the dealer's largest loss (RULES.md section 6.3), the sum of every bet's bound
    (``stake * max_payout`` for ``double``, ``stake`` for ``equal``). Every player's amount,
    every gross, commission and exposure is at most this too; a table is accepted only
    when it is at most :data:`~service.engine.settle.MAX_SAFE_INTEGER`.

    :param players: ``(stake, bet)`` per player.
    :param rules: the effective rules.
    :return: a non-negative integer.
    :raises ValueError: a stake out of range or an unknown bet.

    >>> from service.engine.rules import PROFILES
    >>> worst_case_amount([(100, "double"), (250, "equal")], PROFILES["standard"].rules)
    1250
    """
    return sum(_bound(stake, bet, rules) for stake, bet in players)
