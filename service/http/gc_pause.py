"""Pause Python's cyclic garbage collector around allocation-heavy work (the batch path).

A 10,000-hand batch allocates about 100,000 short-lived lists, dicts and tuples. None of
them form reference cycles, so reference counting frees them all, but the cyclic collector
still runs every 700 allocations and now and then scans everything alive: a third of the
request's time goes there. :func:`paused` switches it off for the duration and back on
after, counting nested and concurrent users (gunicorn threads share the process), so it
is re-enabled only when the last one leaves, and only if it was on to begin with.

Overlapping users must not keep it off for good (clients that loop batches on several
connections always have one inside): once it has been off for :data:`MAX_PAUSE` seconds
in a row, the next user to leave runs a collection of the young generations, so garbage
with cycles never piles up for longer than that. Only work whose garbage has no cycles
belongs inside; a problem raised inside (an exception and its traceback: a cycle) leaves
the block as it is and waits for the next collection.

The worker's compute lane (:mod:`service.http.compute`) runs one heavy request at a time
on a thread of its own, and pauses the collector for each; the collector then runs in the
short gaps between them, and garbage with cycles that outlived a young collection (a
refused request's exception, held while the answer is made) would wait for the oldest
generation's threshold, which such gaps may never reach. So the lane asks for a full
:func:`collect` before each request: cheap, as the master froze everything loaded before
the fork (``gc.freeze``), so only what the worker made since is scanned (under a
millisecond with nothing in flight).

>>> import gc
>>> with paused():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["MAX_PAUSE", "collect", "paused"]

#: The longest the collector stays off in a row, in seconds, however users overlap.
MAX_PAUSE = 0.5

_lock = threading.Lock()
_users = 0
_was_enabled = False
_off_since = 0.0


@contextmanager
def paused() -> Iterator[None]:
    """Keep the cyclic collector off inside the block (reference counting still frees)."""
    global _users, _was_enabled, _off_since
    with _lock:
        if _users == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
            _off_since = time.monotonic()
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0 and _was_enabled:
                gc.enable()
            elif _was_enabled and time.monotonic() - _off_since > MAX_PAUSE:
                gc.collect(1)
                _off_since = time.monotonic()


def collect() -> None:
    """A full collection now, unless the collector is paused (someone is inside
    :func:`paused`) or off for good."""
    with _lock:
        if _users == 0 and gc.isenabled():
            gc.collect()
