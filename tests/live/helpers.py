"""What the tests that drive real gunicorn servers share, besides the harness itself
(:mod:`bench.harness`, which starts and stops them) and the ``serve`` fixture
(tests/conftest.py): a long-lived server for a module, a bounded wait, metrics and hands.

Every loop is bounded in count and time, and only loopback is used.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.harness import READY_PROBE, Metrics, running

__all__ = ["DECK", "TONKU", "live_server", "metric", "random_hands", "wait_until"]

TONKU = ["AS", "KH", "QD", "JC", "10S"]
DECK = [rank + suit for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
        for suit in "SHDC"]


@contextmanager
def live_server(folder: Path, *, workers: int = 1, env: dict[str, str] | None = None) -> Iterator[str]:
    """A quick-stopping server (no drain, 5 s graceful) for the ``with`` block, for tests
    that drive the service from outside (browsers, generated clients, the schemathesis CLI).

    :param folder: where its logs go (``stdout.log``, ``stderr.log``: read them when something fails).
    :param workers: gunicorn workers (``GNAU_WORKERS``).
    :param env: more settings for the server (``GNAU_*``).
    :return: the base URL, e.g. ``http://127.0.0.1:41234``.
    :raises bench.harness.ServerError: the server exited or was not ready in time (with its log).
    """
    settings = {"GNAU_WORKERS": str(workers), "GNAU_DRAIN_SECONDS": "0", "GNAU_GRACEFUL_TIMEOUT": "5"}
    with running(folder, probe=READY_PROBE, **(settings | (env or {}))) as server:
        yield server.base_url


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``predicate`` every 0.05 s; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def metric(values: Metrics, name: str, **labels: str) -> float:
    """One sample of a ``/metrics`` scrape (:meth:`bench.harness.Server.metrics`); 0 when absent."""
    return values.get((name, frozenset(labels.items())), 0.0)


def random_hands(n: int, seed: int) -> list[list[str]]:
    """``n`` random one-deck hands, reproducible from ``seed``."""
    rng = random.Random(seed)
    return [rng.sample(DECK, 5) for _ in range(n)]
