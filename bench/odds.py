"""Timings of the exact analyses (issue 5): ``python -m bench.odds``.

Prints one markdown table: per built-in profile, the median time of ``POST /v1/odds``
(one deck, no dead cards; in-process Flask test client, so parsing and JSON included) and
of the engine call alone over the same random hands, and the time of the first
house-edge and distribution computation in a fresh process (later calls are cached).
The issue's goal: odds under 100 ms at the median.

A second table (issue 14): the median engine time of odds from 4 and 3 known cards
(:func:`service.engine.analysis.partial.partial_odds`, one deck, no dead cards) as player and as
dealer, over random known cards, after one warm-up call per profile (which builds what a
profile's first request builds). The goals: 4 known cards under 100 ms, 3 under 1 s. The
same medians in process CPU time follow (steadier than wall time on a shared machine).
Every built-in profile (``bull-bull``'s commission only changes the bets' arithmetic).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from service.engine.analysis.distribution import distribution
from service.engine.analysis.house_edge import house_edge
from service.engine.analysis.odds import odds
from service.engine.analysis.partial import partial_odds
from service.engine.cards import CARDS
from service.engine.rules import PROFILES
from service.http.app import create_app

__all__ = ["main"]

HANDS = 25
#: Random known-card sets per (profile, known cards, role) in the partial-odds table.
PARTIAL_HANDS = {4: 15, 3: 9}


def _seconds(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _both(call: Callable[[], object]) -> tuple[float, float]:
    """Wall and process CPU seconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    """Run every measurement and print the table."""
    started = time.perf_counter()
    app = create_app({"TESTING": True, "PROFILES_FILE": None})
    client = app.test_client()
    boot = time.perf_counter() - started
    rng = random.Random(5)
    hands = [rng.sample(range(52), 5) for _ in range(HANDS)]
    print(f"app start (tables built): {boot:.2f} s; {HANDS} random hands per profile\n")
    print("| profile | method | POST /v1/odds median | engine median | first house edge | first distribution |")
    print("|---|---|---|---|---|---|")
    for name, profile in PROFILES.items():
        rules = profile.rules
        first_edge = _seconds(partial(house_edge, rules))
        first_dist = _seconds(partial(distribution, rules))
        http: list[float] = []
        engine: list[float] = []
        method = ""
        for hand in hands:
            body = {"hand": [CARDS[c].text for c in hand]}
            http.append(_seconds(partial(client.post, f"/v1/odds?profile={name}", json=body)))
            cards = [CARDS[c] for c in hand]
            engine.append(_seconds(partial(odds, cards, rules)))
            method = odds(cards, rules).method
        print(f"| `{name}` | {method} | {statistics.median(http) * 1000:.1f} ms | "
              f"{statistics.median(engine) * 1000:.1f} ms | {first_edge:.2f} s | {first_dist:.2f} s |")
    partial_table(rng)


def partial_table(rng: random.Random) -> None:
    """The issue-14 table: median engine time from 4 and 3 known cards, per role (wall
    time, then the same in process CPU time)."""
    header = ("| profile | method | 4 known, player | 4 known, dealer | 3 known, player | 3 known, dealer |\n"
              "|---|---|---|---|---|---|")
    wall_rows: list[str] = []
    cpu_rows: list[str] = []
    for name, profile in PROFILES.items():
        rules = profile.rules
        warm = [CARDS[c] for c in rng.sample(range(52), 3)]
        method = partial_odds(warm, rules).method
        wall_cells: list[str] = []
        cpu_cells: list[str] = []
        for known in (4, 3):
            for role in ("player", "dealer"):
                times = [_both(partial(partial_odds, [CARDS[c] for c in rng.sample(range(52), known)], rules,
                                       role=role)) for _ in range(PARTIAL_HANDS[known])]
                wall_cells.append(f"{statistics.median(t for t, _ in times) * 1000:.0f} ms")
                cpu_cells.append(f"{statistics.median(c for _, c in times) * 1000:.0f} ms")
        wall_rows.append(f"| `{name}` | {method} | {' | '.join(wall_cells)} |")
        cpu_rows.append(f"| `{name}` | {method} | {' | '.join(cpu_cells)} |")
    print("\nPartial odds, engine medians, wall time:\n")
    print("\n".join([header, *wall_rows]))
    print("\nThe same, process CPU time:\n")
    print("\n".join([header, *cpu_rows]))


if __name__ == "__main__":
    main()
