"""Warming: every profile's evaluation table and analyses, computed once, before they are asked for.

The gunicorn master calls :func:`warm` once, before it forks the workers (gunicorn.conf.py,
``on_starting``), so every worker shares what it built (copy-on-write pages) and no request
ever pays for a profile's table or analyses; the app factory does not (it stays cheap), and
tests that need warm tables call it. It is idempotent: what is built is kept for the life
of the process, and a second call finds it all.

What a profile's warming builds: its evaluation table, its one-deck distribution, the house
edge of both bets (the commission's winnings included: seconds each; a combination the
engine does not compute is left out, as a request for it is refused), and, under rules that
use suits, the card-multiset walk and the suited hands (:func:`service.engine.analysis.cost.prepare`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from service.engine.analysis.cost import prepare
from service.engine.analysis.house_edge import pinned_house_edge
from service.engine.analysis.odds import OddsError
from service.engine.bets import BETS
from service.engine.rules import Rules
from service.engine.tables import pin_table
from service.profiles import ProfileRegistry

__all__ = ["Warmed", "warm", "warm_rules"]


@dataclass(frozen=True)
class Warmed:
    """What :func:`warm` did: seconds per profile, in registry order, and in all."""

    seconds: dict[str, float]

    @property
    def total(self) -> float:
        """Seconds for every profile together."""
        return sum(self.seconds.values())


def warm_rules(rules: Rules) -> None:
    """Build and keep for good everything a profile with ``rules`` serves: the table, the
    one-deck analyses, the house edge of every bet (a bet the engine refuses under these
    rules is skipped: its request is a 400 whatever is cached). The analyses are those of
    ``rules.analysed``, as the analysis operations ask for them.

    >>> from service.engine.rules import PROFILES
    >>> from service.engine.analysis.cost import analysis_cost
    >>> warm_rules(PROFILES["standard"].rules)
    >>> analysis_cost(PROFILES["standard"].rules, "house_edge", bet="equal")
    0.0
    """
    pin_table(rules)
    analysed = rules.analysed  # the analyses' rules: the round knobs at their defaults (DECISIONS 30)
    prepare(analysed)
    for bet in BETS:
        try:
            pinned_house_edge(analysed, bet)
        except OddsError:
            continue


def warm(profiles: ProfileRegistry, progress: Callable[[int, int], None] | None = None) -> Warmed:
    """Warm every profile of ``profiles`` (:func:`warm_rules`), built-in first.

    :param progress: told ``(profiles done, profiles in all)`` before the first and after each.
    :return: the seconds each took (a second call takes next to none).
    """
    seconds: dict[str, float] = {}
    for name, profile in profiles.items():
        if progress is not None:
            progress(len(seconds), len(profiles))
        started = time.perf_counter()
        warm_rules(profile.rules)
        seconds[name] = time.perf_counter() - started
    if progress is not None:
        progress(len(seconds), len(profiles))
    return Warmed(seconds)
