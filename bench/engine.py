"""Engine benchmark: the table-driven fast paths against the reference evaluator.

Everything is timed in the same run, so the ratios hold even on a noisy, shared machine:

* the reference evaluator (:func:`~service.engine.reference.evaluate_reference`) on a fixed
  random sample of one-deck hands (``--sample``, 50,000 by default);
* ``evaluate_many`` (numpy, scores and categories) on all 2,598,960 one-deck hands under
  ``standard``; its rate over the reference's rate is the engine ratio (goal ≥ 100x);
* the per-hand table path, :func:`~service.engine.tables.evaluate` (full ``Evaluation``
  objects) and :func:`~service.serialize.evaluations_json` over :func:`~service.engine.tables.resolved` (the batch endpoint's path,
  straight to response data), on the same sample;
* table build time per built-in profile (goal ≤ 2 s each) and the memory of all built-in
  tables (goal ≤ 50 MB), each measured in a fresh interpreter: build times and the RSS
  growth in one, Python allocations with ``tracemalloc`` in another;
* ``POST /v1/odds`` from 4 known cards under ``niu-niu-plus`` through the app's test client,
  the median of random hands (goal < 100 ms, issue 24).

Run alone with ``python -m bench.engine``.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable
from itertools import chain, combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from bench.common import ROOT, Row, markdown_table, median, rate

if TYPE_CHECKING:
    from service.engine.rules import Rules

__all__ = ["all_hands", "batch_path", "run"]

ALL_HANDS = 2_598_960
SAMPLE = 50_000
SEED = 20_240_4


def all_hands() -> npt.NDArray[np.int8]:
    """Every one-deck hand as card codes, shape ``(2598960, 5)``."""
    flat = np.fromiter(chain.from_iterable(combinations(range(52), 5)), dtype=np.int8, count=ALL_HANDS * 5)
    return flat.reshape(ALL_HANDS, 5)


def _median_of(runs: int, fn: Callable[[], object]) -> float:
    """The median of ``runs`` timings of ``fn``, in seconds."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return median(times)


def batch_path(codes: list[list[int]], rules: Rules) -> None:
    """What the batch view runs: the resolver and the batch writer, with the cyclic collector
    paused."""
    from service.engine.tables import resolved
    from service.http import gc_pause
    from service.serialize import evaluations_json

    with gc_pause.paused():
        evaluations_json(resolved(codes, rules))


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    import resource

    return pages * resource.getpagesize()


def _child(kind: str) -> dict[str, Any]:
    """Run in a fresh interpreter: ``build`` (times, RSS) or ``memory`` (tracemalloc).

    Nothing of the service is imported before the measurement starts, so the tables'
    module-level structures (class list, placements) count too, and so do the rest of
    the engine's modules (a little more than the tables alone).
    """
    import tracemalloc

    if kind == "memory":
        tracemalloc.start()
    before = _rss_bytes()
    from service.engine import tables
    from service.engine.rules import PROFILES

    times: dict[str, float] = {}
    for name, profile in PROFILES.items():
        started = time.perf_counter()
        tables.table_for(profile.rules)
        times[name] = time.perf_counter() - started
    tables.evaluate_many(np.arange(5, dtype=np.int8).reshape(1, 5), PROFILES["standard"].rules)
    out: dict[str, Any] = {"times": times, "rss_delta": _rss_bytes() - before}
    if kind == "memory":
        out["traced"] = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    return out


def _in_child(kind: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "bench.engine", "--child", kind], cwd=ROOT,
                          capture_output=True, text=True, check=True, timeout=120)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run(sample: int = SAMPLE, seed: int = SEED) -> list[Row]:
    """Run the engine benchmark and return its rows."""
    from service.engine.cards import CARDS
    from service.engine.categories import CATEGORIES
    from service.engine.reference import evaluate_reference
    from service.engine.rules import PROFILES
    from service.engine.tables import evaluate, evaluate_many, table_for

    rules = PROFILES["standard"].rules
    table_for(rules)
    hands = all_hands()
    rng = random.Random(seed)
    picked = sorted(rng.sample(range(ALL_HANDS), sample))
    codes = [[int(c) for c in hands[i]] for i in picked]
    for row in codes:  # input order should not be sorted: shuffle each hand
        rng.shuffle(row)
    cards = [tuple(CARDS[c] for c in row) for row in codes]

    evaluate_many(hands[:1000], rules)  # dense index, warm caches
    # Like the server (gunicorn.conf.py freezes the preloaded app before forking), keep
    # long-lived data out of the collector's scans, so a timing measures the code under
    # test rather than full collections over the benchmark's own inputs.
    gc.collect()
    gc.freeze()
    fast = _median_of(3, lambda: evaluate_many(hands, rules))
    reference_results: list[Any] = []
    started = time.perf_counter()
    for hand in cards:
        reference_results.append(evaluate_reference(hand, rules))
    reference = time.perf_counter() - started
    gc.freeze()
    scalar = _median_of(3, lambda: [evaluate(hand, rules) for hand in cards])
    dicts = _median_of(3, lambda: batch_path(codes, rules))

    # Sanity (the tests prove it): the fast paths agree with the reference on the sample.
    scores, categories = evaluate_many(np.array(codes, dtype=np.int8), rules)
    expected = [(e.score, e.category) for e in reference_results]
    if [(int(s), CATEGORIES[c]) for s, c in zip(scores, categories, strict=True)] != expected:
        raise SystemExit("evaluate_many disagrees with the reference evaluator")
    if [evaluate(hand, rules) for hand in cards[:2000]] != reference_results[:2000]:
        raise SystemExit("evaluate.evaluate disagrees with the reference evaluator")

    fast_rate = ALL_HANDS / fast
    reference_rate = sample / reference
    ratio = fast_rate / reference_rate
    built = _in_child("build")
    memory = _in_child("memory")
    slowest = max(built["times"], key=built["times"].get)
    traced_mb = memory["traced"] / 1e6
    rss_mb = built["rss_delta"] / 1e6
    rows = [
        Row("Engine", f"reference evaluator, {sample:,}-hand random sample, standard",
            f"{rate(sample, reference, 'hands')}"),
        Row("Engine", f"numpy `evaluate_many`, all {ALL_HANDS:,} hands, standard",
            f"{rate(ALL_HANDS, fast, 'hands')} ({fast:.2f} s)"),
        Row("Engine", "engine ratio: numpy all hands / reference", f"{ratio:,.0f}x", "≥ 100x", ratio >= 100),
        Row("Engine", f"scalar `evaluate.evaluate` (Evaluation objects), same {sample:,} hands",
            f"{rate(sample, scalar, 'hands')} ({reference / scalar:.0f}x reference)"),
        Row("Engine", f"batch path `resolved` + `evaluations_json` (response JSON, collector paused), same {sample:,} hands",
            f"{rate(sample, dicts, 'hands')} ({reference / dicts:.0f}x reference)"),
        Row("Engine", "table build, slowest built-in profile (fresh process)",
            f"{built['times'][slowest]:.2f} s ({slowest}; niu-niu-plus {built['times']['niu-niu-plus']:.2f} s); "
            f"all {len(built['times'])}: {sum(built['times'].values()):.2f} s",
            "≤ 2 s per profile", max(built["times"].values()) <= 2.0),
        Row("Engine", f"memory: engine modules + all {len(built['times'])} built-in tables (tracemalloc from before "
            "import; RSS growth)", f"{traced_mb:.1f} MB (RSS +{rss_mb:.1f} MB)", "≤ 50 MB",
            max(traced_mb, rss_mb) <= 50),
        _partial_odds_row(seed),
    ]
    return rows


#: Random 4-known-card sets timed for the niu-niu-plus odds row.
PARTIAL_SAMPLE = 15


def _partial_odds_row(seed: int) -> Row:
    """``POST /v1/odds`` from 4 known cards under ``niu-niu-plus`` (issue 24), in process
    through the app's test client (parse, engine, answer), median of random hands."""
    from service.engine.cards import CARDS
    from service.http.app import create_app

    client = create_app({"TESTING": True, "PROFILES_FILE": None}).test_client()
    rng = random.Random(seed)
    path = "/v1/odds?profile=niu-niu-plus"
    client.post(path, json={"hand": ["2S", "3S", "4S", "5S"]})  # the table, built once per worker
    times = []
    for _ in range(PARTIAL_SAMPLE):
        body = {"hand": [CARDS[c].text for c in rng.sample(range(52), 4)]}
        started = time.perf_counter()
        response = client.post(path, json=body)
        times.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise SystemExit(f"POST {path} answered {response.status_code}")
    taken = median(times)
    return Row("Engine", f"`POST /v1/odds?profile=niu-niu-plus`, 4 known cards, player, in process (test client), "
               f"median of {PARTIAL_SAMPLE} random hands", f"{taken * 1000:.0f} ms", "< 100 ms", taken < 0.1)


def main() -> None:
    """``python -m bench.engine``: print the engine rows."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=SAMPLE, help="reference sample size (default %(default)s)")
    parser.add_argument("--child", choices=["build", "memory"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child)))
        return
    print(markdown_table(run(args.sample)))


if __name__ == "__main__":
    main()
