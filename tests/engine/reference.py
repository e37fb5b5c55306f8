"""A deliberately simple Gnau evaluator: the literal reading of RULES.md sections 2-4, 4.1 and
section 7's ``run_ox``.

Independent of the engine's code (it shares only the :class:`Rules` data): cards are
plain strings, every one of the ten triples and every 3/6 value assignment is tried, and
the best (category, strength) under ``rules.ranking`` wins. Among equally strong results a
Nenku is preferred (the service's documented choice). It returns only what RULES.md
decides: the category, the label and the Nenku flag.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, product

from service.engine.rules import Rules

ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
POINTS = {"A": 1, "10": 10, "J": 10, "Q": 10, "K": 10} | {str(n): n for n in range(2, 10)}


def _values(rank: str, rules: Rules) -> list[int]:
    if rules.three_six_swap and rank in ("3", "6"):
        return [3, 6]
    return [POINTS[rank]]


def _duke(rank: str, rules: Rules) -> bool:
    return rank in ("J", "Q", "K") or (rules.tens_are_dukes and rank == "10")


def reference_evaluate(cards: list[str], rules: Rules) -> tuple[str, str, bool]:
    """Evaluate five canonical cards such as ``['10S', 'AH', ...]``.

    :return: ``(category, label, nenku)``.
    """
    ranks = [c[:-1] for c in cards]
    results: list[tuple[str, int, str, bool]] = [("no_ox", 0, "No Ox", False)]
    if rules.five_dukes and all(_duke(r, rules) for r in ranks):
        results.append(("five_dukes", 0, "Five Dukes", False))
    limit = rules.five_small_max_points
    top = rules.five_small_max_rank
    small = top is None or all(ORDER.index(r) + 1 <= top for r in ranks)
    lowest = sum(min(_values(r, rules)) for r in ranks)
    if rules.five_small and small and (limit is None or lowest <= limit):
        results.append(("five_small", 0, "Five Small", False))
    results += _poker_shapes(cards, rules)
    if rules.bomb:
        for rank, n in Counter(ranks).items():
            if n >= 4:
                results.append(("bomb", ORDER.index(rank), f"Bomb {rank}", False))
    if rules.four_dukes and sum(r in ("J", "Q", "K") for r in ranks) == 4 and "10" in ranks:
        results.append(("four_dukes", 0, "Four Dukes", False))
    for triple in combinations(range(5), 3):
        sums = {sum(v) % 10 for v in product(*(_values(ranks[i], rules) for i in triple))}
        same_rank = len({ranks[i] for i in triple}) == 1
        if 0 not in sums and not (rules.triple_ox and same_rank) and not (rules.run_ox and _run(
                [ranks[i] for i in triple])):
            continue
        a, b = (cards[i] for i in range(5) if i not in triple)
        ra, rb = a[:-1], b[:-1]
        ace_duke = (ra == "A" and _duke(rb, rules)) or (rb == "A" and _duke(ra, rules))
        spade_ace = "AS" in (a, b)
        if rules.ngau_tonku and ace_duke and spade_ace:
            results.append(("ngau_tonku", 0, "Ngau Tonku", False))
        nenku = ace_duke and not (spade_ace and rules.ngau_tonku)
        if rules.double_ox:
            if rules.three_six_pair and ra in ("3", "6") and rb in ("3", "6"):
                results.append(("double_ox", 6, "Double-Ox 6", False))
            elif ra == rb:
                strength = 14 if ra == "A" and rules.double_ox_order == "ace_high" else ORDER.index(ra) + 1
                results.append(("double_ox", strength, f"Double-Ox {ra}", False))
        for va, vb in product(_values(ra, rules), _values(rb, rules)):
            points = (va + vb) % 10
            results.append(("single_ox", points or 10, f"Single-Ox {points}", nenku))

    def best_first(r: tuple[str, int, str, bool]) -> tuple[int, int, bool]:
        return (-rules.ranking.index(r[0]), r[1], r[3])

    category, _, label, nenku = max((r for r in results if rules.enabled(r[0])), key=best_first)
    return category, label, nenku


#: ``run_ox``'s runs (RULES.md 7): three consecutive ranks as printed, A-2-3 up to J-Q-K, and Q-K-A.
RUNS = frozenset({*(frozenset(ORDER[n:n + 3]) for n in range(11)), frozenset({"Q", "K", "A"})})


def _run(ranks: list[str]) -> bool:
    return len(set(ranks)) == 3 and frozenset(ranks) in RUNS


def _poker_shapes(cards: list[str], rules: Rules) -> list[tuple[str, int, str, bool]]:
    """RULES.md 4.1: straight, flush, full house, straight flush, dragon, by their cards alone."""
    ranks = [c[:-1] for c in cards]
    orders = sorted(ORDER.index(r) + 1 for r in ranks)
    top: str | None = None
    if len(set(orders)) == 5 and orders[4] - orders[0] == 4:
        top = ORDER[orders[4] - 1]
    elif orders == [1, 10, 11, 12, 13] and rules.straight_ace_high:
        top = "A"
    strength = 0 if top is None else 14 if top == "A" else ORDER.index(top) + 1
    one_suit = len({c[-1] for c in cards}) == 1
    counts = sorted(Counter(ranks).values())
    found: list[tuple[str, int, str, bool]] = []
    if top is not None:
        found.append(("straight", strength, f"Straight {top}", False))
        if one_suit:
            found.append(("straight_flush", strength, f"Straight Flush {top}", False))
    if one_suit:
        found.append(("flush", 0, "Flush", False))
    if counts == [2, 3]:
        three = next(r for r in ranks if ranks.count(r) == 3)
        found.append(("full_house", ORDER.index(three) + 1, f"Full House {three}", False))
    if orders == [1, 2, 3, 4, 5]:
        found.append(("dragon", 0, "Dragon", False))
    return found
