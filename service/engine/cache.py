"""The engine's one cache policy: entries pinned for the life of the process, plus a
bounded least-recently-used set, behind one lock.

The evaluation tables, the per-rules hand counters and the analysis results all use it.
Workers serve several requests at once (greenlets, or threads elsewhere), so every read
and write takes the lock; building a missing value happens outside it (two callers may
build the same value at once; both get an equal one and the cache keeps one).

>>> cache: BoundedCache[str, int] = BoundedCache(2)
>>> cache.pin("standard", 0)
0
>>> for key, value in [("a", 1), ("b", 2), ("c", 3)]:
...     _ = cache.put(key, value)
>>> cache.get("a"), cache.get("c"), cache.get("standard"), len(cache)
(None, 3, 0, 3)
>>> cache.get_or_build("d", lambda: 4), sorted(cache.keys())
(4, ['c', 'd', 'standard'])
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["BoundedCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """Pinned entries (never evicted) and at most ``size`` others, least recently used
    evicted first; every method is safe to call from several threads.

    :param size: how many unpinned entries are kept (at least 1).
    :raises ValueError: ``size`` is below 1.
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a cache holds at least one entry")
        self.size = size
        self._pinned: dict[K, V] = {}
        self._recent: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value for ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            found = self._pinned.get(key)
            if found is not None:
                return found
            found = self._recent.get(key)
            if found is not None:
                self._recent.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` for ``key`` (a pinned value stays); returns the value kept."""
        with self._lock:
            pinned = self._pinned.get(key)
            if pinned is not None:
                return pinned
            self._recent[key] = value
            self._recent.move_to_end(key)
            while len(self._recent) > self.size:
                self._recent.popitem(last=False)
            return value

    def pin(self, key: K, value: V) -> V:
        """Keep ``value`` for ``key`` for good (an existing pinned value stays)."""
        with self._lock:
            self._recent.pop(key, None)
            return self._pinned.setdefault(key, value)

    def pop(self, key: K) -> V | None:
        """Remove and return the unpinned value for ``key`` (``None`` when there is none)."""
        with self._lock:
            return self._recent.pop(key, None)

    def get_or_build(self, key: K, build: Callable[[], V]) -> V:
        """The value for ``key``, built (outside the lock) and kept when missing."""
        found = self.get(key)
        if found is not None:
            return found
        return self.put(key, build())

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._pinned or key in self._recent

    def __len__(self) -> int:
        with self._lock:
            return len(self._pinned) + len(self._recent)

    def keys(self) -> list[K]:
        """Every key, pinned first."""
        with self._lock:
            return [*self._pinned, *self._recent]
