"""Settling a round against the dealer (RULES.md section 6, bets 6.1, commission 6.2).

>>> from service.engine.cards import parse_hand
>>> from service.engine.rules import PROFILES
>>> from service.engine.tables import evaluate
>>> std = PROFILES["standard"].rules
>>> dealer = evaluate(parse_hand("10S 9H 8D 4C 4H".split()), std)     # No Ox
>>> player = evaluate(parse_hand("10H 9D AD 7C 4S".split()), std)     # Single-Ox 1
>>> s = settle(dealer, [(player, 1)], std)
>>> s.players[0].outcome, s.players[0].amount, s.dealer_net, s.house
('win', 1, -1, 0)

Exposure: what each side of a table could lose or win before any card is dealt
(RULES.md section 6.3).

>>> from service.engine.rules import PROFILES
>>> bb = PROFILES["bull-bull"].rules
>>> player_exposure(1000, "double", bb), player_exposure(1000, "equal", bb)
(Exposure(max_loss=5000, max_win=4750), Exposure(max_loss=1000, max_win=950))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from service.engine.bets import BETS, DEFAULT_BET
from service.engine.caps import cap_round
from service.engine.compare import Scored, compare
from service.engine.rules import MAX_BPS, Rules

__all__ = ["ALL_LOSE", "ALL_WIN", "MAX_MULTIPLE", "MAX_SAFE_INTEGER", "MAX_STAKE", "Exposure", "Outcome",
           "PlayerResult", "Settlement", "TableExposure", "commission", "max_bet_multiple",
           "max_bid_multiple", "player_exposure", "settle", "settle_one", "stake_of", "table_exposure",
           "worst_case_amount"]

#: The largest stake, in the caller's minor unit (RULES.md section 6).
MAX_STAKE = 10**12
#: The largest bid or bet multiple (RULES.md 6.4).
MAX_MULTIPLE = 100
#: A dealer's ``sweep`` (RULES.md 6.4): every player lost to it (通吃), or beat it (通赔).
ALL_WIN = "all_win"
ALL_LOSE = "all_lose"

#: The largest integer every JSON reader keeps exactly: 2^53 - 1 (I-JSON, RFC 7493 section
#: 2.2; JavaScript's ``Number.MAX_SAFE_INTEGER``). No amount a settlement returns may exceed
#: it in absolute value (RULES.md section 6).
MAX_SAFE_INTEGER = 2**53 - 1

Outcome = Literal["win", "lose", "push"]


def commission(gross: int, bps: int, minimum: int = 0) -> int:
    """The house's commission on a positive ``gross`` result (RULES.md sections 6.2, 7).

    ``floor(gross * bps / 10,000)`` for ``gross > 0``, else 0: rounding is always down, so
    nobody pays more than the stated rate; where the rate is above 0, at least ``minimum``
    (the ``min_commission`` knob), never more than ``gross`` itself.

    :param gross: the result before commission, an integer in the minor unit.
    :param bps: the rate in basis points, 0..10,000.
    :param minimum: the least commission of a positive ``gross`` under a rate above 0.
    :return: the commission, an integer from 0 to ``gross``.

    >>> commission(3000, 500), commission(19, 500), commission(20, 500), commission(-500, 500)
    (150, 0, 1, 0)
    >>> commission(10, 500, 1), commission(3000, 500, 1), commission(3, 500, 5), commission(10, 0, 1)
    (1, 150, 3, 0)
    """
    if gross <= 0 or not bps:
        return 0
    taken = gross * bps // MAX_BPS
    return max(taken, min(minimum, gross)) if minimum else taken


class PlayerResult(NamedTuple):
    """One player's result (an immutable record; a named tuple, which builds in half the
    time of a frozen dataclass: a settlement makes one per player).

    :param evaluation: the player's hand (an :class:`~service.engine.hand.Evaluation` or a
        resolver's :class:`~service.engine.tables.HandResult`).
    :param stake: the stake, a positive integer in the caller's minor unit.
    :param outcome: ``'win'``, ``'lose'`` or ``'push'``.
    :param amount: what the player receives, signed from the player's side, in the
        stake's unit: ``gross - commission`` (positive when the player wins, negative when
        the player pays, 0 on a push).
    :param bet: the bet type's name (:data:`~service.engine.bets.BETS`, RULES.md section 6.1).
    :param gross: the result before commission: the bet's amount for the collecting hand
        (:class:`~service.engine.bets.Bet`), signed like ``amount``.
    :param commission: what the house takes from the player's win (0 unless ``gross > 0``).
    :param gross_uncapped: under balance caps (RULES.md 6.5), the gross before caps; else ``None``.
    :param cap: under balance caps, why ``gross`` differs from ``gross_uncapped``
        (:mod:`service.engine.caps`), or ``None``.
    """

    evaluation: Scored
    stake: int
    outcome: Outcome
    amount: int
    bet: str = DEFAULT_BET
    gross: int = 0
    commission: int = 0
    gross_uncapped: int | None = None
    cap: str | None = None


@dataclass(frozen=True, slots=True)
class Settlement:
    """A settled round (RULES.md section 6.2).

    :param dealer: the dealer's hand.
    :param dealer_net: what the dealer receives: ``dealer_gross - dealer_commission``.
    :param players: one result per player, in input order.
    :param dealer_gross: minus the sum of the players' gross amounts.
    :param dealer_commission: the house's share of a positive ``dealer_gross``.
    :param house: every commission taken: the players' and the dealer's. Always
        ``sum(amounts) + dealer_net + house == 0``.
    """

    dealer: Scored
    dealer_net: int
    players: tuple[PlayerResult, ...]
    dealer_gross: int = 0
    dealer_commission: int = 0
    house: int = 0

    @property
    def sweep(self) -> str | None:
        """:data:`ALL_WIN` when every player lost to the dealer (通吃), :data:`ALL_LOSE` when
        every player beat it (通赔), else ``None`` (a push, or mixed outcomes): from the
        outcomes, not the amounts (RULES.md 6.4).

        >>> from service.engine.cards import parse_hand
        >>> from service.engine.rules import PROFILES
        >>> from service.engine.tables import evaluate
        >>> std = PROFILES["standard"].rules
        >>> no_ox, five_dukes = (evaluate(parse_hand(h.split()), std) for h in ("10S 9H 8D 4C 4H", "JS QH KD JC QD"))
        >>> settle(five_dukes, [(no_ox, 1)], std).sweep, settle(no_ox, [(five_dukes, 1)], std).sweep
        ('all_win', 'all_lose')
        """
        outcomes = {p.outcome for p in self.players}
        if outcomes == {"lose"}:
            return ALL_WIN
        if outcomes == {"win"}:
            return ALL_LOSE
        return None


def stake_of(base: int, bid_multiple: int = 1, bet_multiple: int = 1) -> int:
    """A player's stake at a bid-for-banker table (RULES.md 6.4): ``base × bid_multiple ×
    bet_multiple``.

    :param base: the room's base, 1 to :data:`MAX_STAKE`.
    :param bid_multiple: the banker's bid multiple, 1 to :data:`MAX_MULTIPLE`.
    :param bet_multiple: the player's bet multiple, 1 to :data:`MAX_MULTIPLE`.
    :return: the stake.
    :raises ValueError: a factor out of range, or a product over :data:`MAX_STAKE`.

    >>> stake_of(100, 3, 4)
    1200
    >>> stake_of(10**11, 3, 4)
    Traceback (most recent call last):
        ...
    ValueError: base x bid_multiple x bet_multiple is 1200000000000, over the stake bound 1000000000000
    """
    if type(base) is not int or not 1 <= base <= MAX_STAKE:
        raise ValueError(f"base must be an integer from 1 to {MAX_STAKE}")
    for name, value in (("bid_multiple", bid_multiple), ("bet_multiple", bet_multiple)):
        if type(value) is not int or not 1 <= value <= MAX_MULTIPLE:
            raise ValueError(f"{name} must be an integer from 1 to {MAX_MULTIPLE}")
    stake = base * bid_multiple * bet_multiple
    if stake > MAX_STAKE:
        raise ValueError(f"base x bid_multiple x bet_multiple is {stake}, over the stake bound {MAX_STAKE}")
    return stake


def settle_one(dealer: Scored, player: Scored, stake: int, rules: Rules, bet: str = DEFAULT_BET) -> PlayerResult:
    """Settle one player against the dealer (RULES.md sections 6, 6.1 and 6.2).

    - both hands of a category that pushes (Five Dukes): push, whatever the tie rule;
    - player stronger: the dealer pays the bet's win (:meth:`~service.engine.bets.Bet.win`
      on the player's payout);
    - otherwise the player pays the bet's loss on the dealer's payout, except that equal
      hands push under the ``push`` tie rule and under ``high_card`` when the high cards
      are equal too;
    - a win pays ``commission_bps`` of the gross to the house, rounded down (at least
      ``min_commission``, at most the gross).

    :raises ValueError: ``stake`` is not an integer from 1 to :data:`MAX_STAKE`, or ``bet``
        is not a bet type.

    >>> from service.engine.cards import parse_hand
    >>> from service.engine.rules import PROFILES
    >>> from service.engine.tables import evaluate
    >>> bb = PROFILES["bull-bull"].rules
    >>> dealer = evaluate(parse_hand("KH QS 10D 4C AC".split()), bb)     # Bull 5
    >>> r = settle_one(dealer, evaluate(parse_hand("7S 3H JH 8C 10C".split()), bb), 1000, bb, "equal")
    >>> r.outcome, r.gross, r.commission, r.amount
    ('win', 1000, 50, 950)
    """
    # The hot path of every settlement: plain branches (``bool`` is not ``int`` by type, so
    # ``True`` is refused as a stake).
    if type(stake) is not int or not 1 <= stake <= MAX_STAKE:
        raise ValueError(f"stake must be an integer from 1 to {MAX_STAKE}")
    kind = BETS.get(bet)
    if kind is None:
        raise ValueError("bet must be one of " + ", ".join(BETS))
    category = player.category
    if category == dealer.category and category in rules.pushing:
        return PlayerResult(player, stake, "push", 0, bet, 0, 0)
    order = compare(player, dealer, rules)
    if order > 0:
        gross = kind.win(stake, player.payout)
        bps = rules.commission_bps
        if bps and gross > 0:
            taken = commission(gross, bps, rules.min_commission)
            return PlayerResult(player, stake, "win", gross - taken, bet, gross, taken)
        return PlayerResult(player, stake, "win", gross, bet, gross, 0)
    if order == 0:
        if rules.ties != "dealer":
            return PlayerResult(player, stake, "push", 0, bet, 0, 0)
        gross = -rules.tie_cost.loss(kind, stake, dealer.payout)  # tie_payout (RULES.md 6.4)
    else:
        gross = -kind.loss(stake, dealer.payout)
    return PlayerResult(player, stake, "lose", gross, bet, gross, 0)


def settle(dealer: Scored, players: Sequence[tuple[Scored, int]], rules: Rules,
           bets: Sequence[str] | None = None, balances: Sequence[int] | None = None,
           dealer_balance: int | None = None) -> Settlement:
    """Settle every player against the dealer (RULES.md section 6; caps 6.5).

    :param dealer: the dealer's evaluated hand.
    :param players: ``(evaluation, stake)`` per player, in table order.
    :param rules: the rules (``ties``, ``tie_payout``, ``balance_caps``, the commission
        knobs, and the payouts carried by the evaluations).
    :param bets: each player's bet type, same order; ``None`` for the default throughout.
    :param balances: each player's balance, same order: required under ``balance_caps``
        ``players`` or ``table``, refused under ``none``.
    :param dealer_balance: the dealer's balance: required under ``table``, refused otherwise.
    :return: the settlement: ``dealer_gross == -sum(gross)``, the dealer's commission
        taken from a positive ``dealer_gross``, ``sum(amounts) + dealer_net + house == 0``.
        Under caps each player's ``gross`` is capped (:func:`~service.engine.caps.cap_round`)
        and its commission taken from the capped gross; ``gross_uncapped`` and ``cap`` say
        what the caps did.
    :raises ValueError: a stake out of range, an unknown bet, ``bets`` or ``balances`` of
        another length, or balances given or missing against ``balance_caps``.

    >>> from service.engine.cards import parse_hand
    >>> from service.engine.rules import PROFILES, apply_overrides
    >>> from service.engine.tables import evaluate
    >>> std = PROFILES["standard"].rules
    >>> d8 = evaluate(parse_hand("3S 6H 8D 4C 8H".split()), std)       # Double-Ox 8
    >>> no_ox = evaluate(parse_hand("10S 9H 7D 4C 5H".split()), std)
    >>> settle(d8, [(no_ox, 250)], std).players[0].amount
    -500
    >>> s = settle(d8, [(no_ox, 250)], apply_overrides(std, {"dealer_commission_bps": 1000}))
    >>> s.dealer_gross, s.dealer_commission, s.dealer_net, s.house
    (500, 50, 450, 50)
    >>> capped = settle(d8, [(no_ox, 250)], apply_overrides(std, {"balance_caps": "table"}), None, [400], 300)
    >>> p = capped.players[0]
    >>> p.gross, p.gross_uncapped, p.cap, capped.dealer_gross
    (-300, -500, 'dealer_balance', 300)
    """
    if bets is None:
        results = tuple([settle_one(dealer, e, stake, rules) for e, stake in players])
    else:
        if len(bets) != len(players):
            raise ValueError("give one bet per player")
        results = tuple([settle_one(dealer, e, stake, rules, bet)
                         for (e, stake), bet in zip(players, bets, strict=True)])
    if rules.balance_caps != "none" or balances is not None or dealer_balance is not None:
        results = _capped(results, rules, balances, dealer_balance)
    dealer_gross = 0
    players_commission = 0
    for r in results:
        dealer_gross -= r.gross
        players_commission += r.commission
    dealer_commission = commission(dealer_gross, rules.dealer_commission_bps, rules.min_commission)
    return Settlement(dealer, dealer_gross - dealer_commission, results, dealer_gross, dealer_commission,
                      players_commission + dealer_commission)


def _capped(results: tuple[PlayerResult, ...], rules: Rules, balances: Sequence[int] | None,
            dealer_balance: int | None) -> tuple[PlayerResult, ...]:
    """The results with their gross capped by the balances (RULES.md 6.5), commission taken
    from the capped gross.

    :raises ValueError: balances given or missing against ``rules.balance_caps``.
    """
    caps = rules.balance_caps
    if caps == "none":
        raise ValueError("balances are taken only under balance_caps players or table")
    if balances is None:
        raise ValueError(f"balance_caps {caps} needs every player's balance")
    if (dealer_balance is None) == (caps == "table"):
        raise ValueError("the dealer gives a balance under balance_caps table, and only then")
    bps = rules.commission_bps
    out: list[PlayerResult] = []
    capped = cap_round([r.gross for r in results], balances, dealer_balance, rules.dealer_shortfall)
    for r, (gross, uncapped, cap) in zip(results, capped, strict=True):
        taken = commission(gross, bps, rules.min_commission)
        out.append(PlayerResult(r.evaluation, r.stake, r.outcome, gross - taken, r.bet, gross, taken, uncapped, cap))
    return tuple(out)


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
