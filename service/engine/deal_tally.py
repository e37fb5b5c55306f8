"""How the deals of partial odds are counted and settled (RULES.md sections 5-6; issue 14).

A **deal** is one completion of the caller's known cards and one opponent hand of five from
the cards left. :mod:`service.engine.partial_classes` and :mod:`service.engine.partial_walk`
count deals in different groupings; both add into one :class:`Tally` and settle ties with
:func:`tie_sides`, and :func:`net` is the one place where outcomes become money.

>>> from service.engine.rules import PROFILES
>>> t = Tally(completions=2, wins=3, losses=1, deals=5, paid_in=6, paid_out=2)
>>> net(t.paid_in, t.paid_out), tie_sides(PROFILES["standard"].rules, "player")
(4, (False, True))
"""

from __future__ import annotations

from dataclasses import dataclass

from service.engine.rules import Rules

__all__ = ["Tally", "net", "tie_sides"]


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


def net(wins_paid: int, losses_paid: int) -> int:
    """The caller's net from what its wins collect and its losses pay (``double`` bet,
    RULES.md section 6). A bet type (issue 13) changes the amounts here.

    >>> net(7, 9)
    -2
    """
    return wins_paid - losses_paid


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
