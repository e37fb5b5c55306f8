"""The engine's caches are one locked object (issue 10): a threaded stress test.

Eight threads call ``evaluate``, ``evaluate_codes``, ``table_for``, ``distribution``,
``house_edge`` and ``odds`` a few hundred times each across more rule sets than every
section of :data:`service.engine.cache.CACHE` holds (sections are shrunk for the test, so
evictions happen all the time), and every answer must equal the one computed beforehand
in a single thread: no exception, no wrong or half-built value.

Building an evaluation table takes about a second of pure Python, so the test builds the
custom rules' tables once beforehand and, during the threaded part, the tables section
"builds" a missing table by handing out that prebuilt one: evictions and rebuilds cost
nothing, and everything the cache does (look-ups, pins, evictions, concurrent builds of
one key) still happens under threads. The table builder itself is tested against the
reference evaluator elsewhere (tests/engine/test_fast_paths.py, tests/engine/test_exhaustive.py).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

from service.engine import tables
from service.engine.analysis.distribution import distribution
from service.engine.analysis.house_edge import house_edge
from service.engine.analysis.odds import odds
from service.engine.cache import CACHE, Constant
from service.engine.cards import CARDS, Card
from service.engine.reference import evaluate_reference
from service.engine.rules import PROFILES, Rules, apply_overrides
from service.engine.tables import evaluate, evaluate_codes

THREADS = 8
CALLS = 250
SMALL_DECK = tuple(range(16))  # house edges with a commission in milliseconds
STANDARD = PROFILES["standard"].rules

#: Custom rules with tables of their own: more than the shrunk tables section holds.
TABLE_RULES = [apply_overrides(STANDARD, {"ties": "push", "payouts": {"single_ox": 2 + i}}) for i in range(3)]
#: Rules that share standard's table (a commission never changes an evaluation) but are
#: distinct keys for distributions and house edges: more than those sections hold.
COMMISSION_RULES = [apply_overrides(STANDARD, {"commission_bps": 100 * k}) for k in range(12)]
#: Rules whose tables are only ever filled class by class here (a few hands each).
TABLELESS_RULES = [apply_overrides(STANDARD, {"bomb": True, "payouts": {"single_ox": 100 + i}}) for i in range(24)]

SHRUNK = {"tables": 2, "distributions": 4, "house edges": 4}


def hands(n: int, seed: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    return [tuple(CARDS[c] for c in rng.sample(range(52), 5)) for _ in range(n)]


HANDS = hands(40, seed=10)


def _table_rules(rules: Rules) -> Rules:
    return tables.table_for(rules).rules


def _evaluate_codes(hand: tuple[Card, ...], rules: Rules) -> Any:
    [evaluation] = evaluate_codes([[c.code for c in hand]], rules)
    return evaluation


def operations() -> list[tuple[str, Callable[[], Any]]]:
    """Every call the threads make, each with a name for failure messages."""
    ops: list[tuple[str, Callable[[], Any]]] = []
    for r in [STANDARD, *TABLE_RULES]:
        ops.extend((f"evaluate {i} {r.digest}", partial(evaluate, hand, r)) for i, hand in enumerate(HANDS[:10]))
        ops.append((f"table_for {r.digest}", partial(_table_rules, r)))
        ops.append((f"distribution {r.digest}", partial(distribution, r)))
        ops.append((f"odds {r.digest}", partial(odds, HANDS[0], r)))
    for r in COMMISSION_RULES:
        ops.append((f"distribution {r.digest}", partial(distribution, r)))
        ops.extend((f"house_edge {bet} {r.digest}", partial(house_edge, r, SMALL_DECK, bet)) for bet in ("double", "equal"))
    for i, r in enumerate(TABLELESS_RULES):
        ops.append((f"evaluate_codes {r.digest}", partial(_evaluate_codes, HANDS[i % len(HANDS)], r)))
    ops.append(("house_edge niu-niu", partial(house_edge, PROFILES["niu-niu"].rules)))
    return ops


@pytest.fixture
def shrunk_sections() -> Iterator[None]:
    """The sections of :data:`SHRUNK` hold that few unpinned entries during the test."""
    previous = {name: CACHE[name].resize(size) for name, size in SHRUNK.items()}
    yield
    for name, size in previous.items():
        CACHE[name].resize(size)


@pytest.fixture
def rebuilds(monkeypatch: pytest.MonkeyPatch) -> list[Rules]:
    """Tables built once; the tables section then "builds" by handing them out, and each
    such rebuild is listed."""
    built = {r: tables.table_for(r) for r in [STANDARD, *TABLE_RULES]}
    real = tables.Table
    listed: list[Rules] = []

    def table(rules: Rules) -> tables.Table:
        listed.append(rules)
        return built.get(rules) or real(rules)

    monkeypatch.setattr(tables, "Table", table)
    return listed


def run_threads(work: Callable[[int], None]) -> list[BaseException]:
    errors: list[BaseException] = []

    def guarded(seed: int) -> None:
        try:
            work(seed)
        except BaseException as exc:  # pragma: no cover - reported by the assertion
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return errors


def test_every_answer_under_threads_equals_the_single_threaded_one(
        rebuilds: list[Rules], request: pytest.FixtureRequest) -> None:
    tables.pin_table(STANDARD)
    ops = operations()
    expected = [fn() for _, fn in ops]
    for i, hand in enumerate(HANDS[:10]):  # the table path agrees with the literal evaluator
        assert expected[i] == evaluate_reference(hand, STANDARD)
    request.getfixturevalue("shrunk_sections")  # from here on, evictions all the time

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(CALLS):
            k = rng.randrange(len(ops))
            name, fn = ops[k]
            assert fn() == expected[k], name

    errors = run_threads(work)
    assert not errors, errors[:3]
    assert len(rebuilds) > len(TABLE_RULES)  # tables were evicted and built again
    # Whatever other tests pinned (profiles of the apps they made), the evictable entries
    # stay within each section's bound.
    for name in ("tables", "distributions", "house edges"):
        assert CACHE[name].unpinned <= SHRUNK[name], name


def test_a_constant_is_built_once_however_many_threads_ask() -> None:
    builds: list[int] = []

    def build() -> list[int]:
        builds.append(1)
        time.sleep(0.05)
        return [len(builds)]

    constant = Constant(build)
    seen: list[list[int]] = []
    errors = run_threads(lambda _: seen.append(constant()))
    assert not errors
    assert len(builds) == 1
    assert len(seen) == THREADS
    assert all(value is seen[0] for value in seen)


def test_every_engine_cache_is_a_section_of_the_one_object() -> None:
    """The caches the engine modules keep, by name (a new one must join CACHE too)."""
    assert set(CACHE.sections()) >= {
        "tables", "formation slots", "distributions", "house edges",
        "suited-bonus ox masks", "dense class index", "class by pseudo-rank counts", "card-multiset walk",
    }
