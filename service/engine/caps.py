"""Balances and caps: nobody wins or loses more than it brought to the table (RULES.md 6.5,
and 6.6 for showdowns).

A table with caps gives each player a ``balance`` (and, under ``balance_caps: table``, the
dealer too). :func:`cap_round` applies section 6.5's three steps to the players' gross
results against the dealer; :func:`scale_to` is the exact scaling with largest-remainder
rounding that step 2 and the showdowns' winner caps share. Every figure is an integer in
the stakes' minor unit; the scaling is done in exact integer arithmetic (no floats).

The second bid-for-banker example of RULES.md section 8 (``table`` caps, dealer balance
1,000; p1's balance 500, the others 10,000):

>>> [(gross, cap) for gross, _, cap in cap_round([900, -1200, 0, 2400], [500, 10_000, 10_000, 10_000], 1000)]
[(294, 'dealer_balance'), (-706, 'dealer_balance'), (0, None), (1412, 'dealer_balance')]
>>> [(gross, cap) for gross, _, cap in cap_round([900, -1200, 0, 2400], [500, 10_000, 10_000, 10_000], None)]
[(500, 'player_balance'), (-1200, None), (0, None), (2400, None)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

__all__ = ["DEALER_BALANCE", "LOSER_BALANCE", "MAX_BALANCE", "PLAYER_BALANCE", "SHORTFALLS", "WINNER_BALANCE",
           "Capped", "Shortfall", "cap_round", "cover_shortfall", "scale_to"]

#: The largest balance, in the stakes' minor unit (RULES.md 6.5).
MAX_BALANCE = 10**15

#: Why a settlement's gross differs from its uncapped gross (RULES.md 6.5 step 3): the
#: dealer's balance (step 2 changed it) or the player's own (only step 1 did).
DEALER_BALANCE = "dealer_balance"
PLAYER_BALANCE = "player_balance"
#: Why a showdown's gross differs from its uncapped gross (RULES.md 6.6, DECISIONS 24): a
#: winner's balance reduced it, or only a loser's did (whose result it is does not matter).
WINNER_BALANCE = "winner_balance"
LOSER_BALANCE = "loser_balance"


#: Who absorbs a dealer's shortfall under ``table`` caps (the ``dealer_shortfall`` knob,
#: RULES.md 6.5): every player's result scaled (``scale_all``), or the losers pay in full and
#: only the winners share what the dealer can pay (``winners_share``; mirrored when the dealer
#: would win more than its balance).
Shortfall = Literal["scale_all", "winners_share"]
SHORTFALLS: tuple[Shortfall, ...] = ("scale_all", "winners_share")

#: One player's gross after caps: ``(gross, uncapped, cap)``: the capped gross (signed from
#: the player's side), the gross before caps (section 6's result), and ``None`` when the two
#: are equal, else why they differ (:data:`DEALER_BALANCE`, :data:`PLAYER_BALANCE`).
Capped = tuple[int, int, str | None]


def scale_to(values: Sequence[int], target: int) -> list[int]:
    """``values`` scaled to add up to exactly ``target``, rounded by largest remainders
    (RULES.md 6.5 step 2): each ``x_i = values_i × target / Σ values`` is rounded down
    (toward minus infinity), then the units still missing, ``target − Σ floor(x_i)``, go
    one each to the largest fractional parts ``x_i − floor(x_i)``, the first listed first
    among equal parts. Exact: the fractions are compared as integers.

    :param values: integers, all of one sign or zero, not all zero.
    :param target: the total to reach, of the same sign as ``Σ values`` and at most as
        large in absolute value.
    :return: integers adding up to ``target``; each lies between 0 and its value.
    :raises ValueError: ``values`` add up to 0.

    >>> scale_to([500, -1200, 0, 2400], 1000)
    [294, -706, 0, 1412]
    >>> scale_to([1500, -1800, -2700, -2000], -3001)
    [900, -1080, -1621, -1200]
    >>> scale_to([10, 10, 10], 20)      # equal parts: the first listed first
    [7, 7, 6]
    """
    total = sum(values)
    if not total:
        raise ValueError("the values add up to 0: nothing to scale")
    den = abs(total)
    nums = [v * abs(target) for v in values]  # x_i = nums_i / den exactly
    floors = [n // den for n in nums]
    remainders = [n % den for n in nums]  # x_i - floor(x_i), times den (0 <= r < den)
    missing = target - sum(floors)
    # largest remainders first; a stable sort keeps equal ones in list order, reverse or not
    for i in sorted(range(len(values)), key=remainders.__getitem__, reverse=True)[:missing]:
        floors[i] += 1
    return floors


def cover_shortfall(capped: Sequence[int], dealer_balance: int, shortfall: Shortfall = "scale_all") -> list[int]:
    """Step 2 of RULES.md 6.5 under ``dealer_shortfall``: the players' results after step 1
    bounded so that the dealer pays or collects at most ``dealer_balance`` in all.

    - ``scale_all``: when ``|S| > B`` (``S = Σ c_i``), every ``c_i`` is scaled to add up to
      exactly ``sign(S) × B`` (:func:`scale_to`).
    - ``winners_share``: when ``S > B``, every player with ``c_i < 0`` pays in full and the
      pool ``P = B + Σ |c_i|`` over them is shared among the players with ``c_i > 0`` in
      proportion to ``c_i``; when ``S < −B``, every ``c_i > 0`` is paid in full and ``P = B +
      Σ c_i`` over them is collected from the players with ``c_i < 0``. The scaled side is
      rounded as in :func:`scale_to` so that it adds up to exactly ``P`` (resp. ``−P``).

    :param capped: each player's result after step 1, signed from the player's side.
    :param dealer_balance: the dealer's balance ``B`` (0 to :data:`MAX_BALANCE`).
    :param shortfall: the knob's value.
    :return: one integer per player, in order; the list unchanged when ``|S| ≤ B``. The
        dealer's result is minus their sum, at most ``B`` in absolute value, and every value
        lies between 0 and its ``c_i``.

    RULES.md section 8.1's shortfall tables (``niu-niu``, ``table`` caps):

    >>> cover_shortfall([500, -1200, 0, 2400], 1000, "winners_share")
    [379, -1200, 0, 1821]
    >>> cover_shortfall([1500, -1800, -2700, -2000], 3001, "winners_share")
    [1500, -1246, -1870, -1385]
    >>> cover_shortfall([900, -600, 300], 0, "winners_share"), cover_shortfall([900, -600, 300], 0)
    ([450, -600, 150], [0, 0, 0])
    >>> cover_shortfall([500, 1000], 1000, "winners_share") == cover_shortfall([500, 1000], 1000) == [333, 667]
    True
    """
    total = sum(capped)
    if -dealer_balance <= total <= dealer_balance:
        return list(capped)
    if shortfall == "scale_all":
        return scale_to(capped, dealer_balance if total > 0 else -dealer_balance)
    # winners_share: the side the dealer is short to shares the balance and the other side's results
    sign = 1 if total > 0 else -1
    pool = dealer_balance - sum(c for c in capped if c * sign < 0) * sign  # B + what the full side brings
    shared = [i for i, c in enumerate(capped) if c * sign > 0]
    scaled = scale_to([capped[i] for i in shared], sign * pool)
    out = list(capped)
    for i, x in zip(shared, scaled, strict=True):
        out[i] = x
    return out


def cap_round(gross: Sequence[int], balances: Sequence[int], dealer_balance: int | None,
              shortfall: Shortfall = "scale_all") -> list[Capped]:
    """The players' gross results against the dealer after caps (RULES.md 6.5).

    1. each ``c_i = sign(g_i) × min(|g_i|, balance_i)``;
    2. with a dealer balance ``B`` (``table`` caps): if ``|Σ c_i| > B`` the results are
       bounded by :func:`cover_shortfall` under ``shortfall`` (the ``dealer_shortfall`` knob);
    3. ``cap`` is ``None`` when the result equals ``g_i``, else ``dealer_balance`` when step
       2 changed the value and ``player_balance`` when only step 1 did.

    :param gross: each player's gross before caps, signed from the player's side.
    :param balances: each player's balance (0 to :data:`MAX_BALANCE`), same order.
    :param dealer_balance: the dealer's balance under ``table`` caps; ``None`` under ``players``.
    :param shortfall: who absorbs the dealer's shortfall (:data:`Shortfall`).
    :return: one :data:`Capped` ``(gross, uncapped, cap)`` per player, in order: every
        ``|gross|`` within its balance, and within ``dealer_balance`` summed.
    :raises ValueError: ``balances`` of another length.

    >>> cap_round([1500, -1800, -2700, -3600], [10_000, 10_000, 10_000, 2000], 3001)[3]
    (-1200, -3600, 'dealer_balance')
    >>> [cap for _, _, cap in cap_round([500, -1200, 0, 2400], [10_000] * 4, 1000, "winners_share")]
    ['dealer_balance', None, None, 'dealer_balance']
    """
    if len(balances) != len(gross):
        raise ValueError("give one balance per player")
    capped = [g if -b <= g <= b else (b if g > 0 else -b) for g, b in zip(gross, balances, strict=True)]
    scaled = capped if dealer_balance is None else cover_shortfall(capped, dealer_balance, shortfall)
    return [(x, g, None if x == g else DEALER_BALANCE if x != c else PLAYER_BALANCE)
            for g, c, x in zip(gross, capped, scaled, strict=True)]
