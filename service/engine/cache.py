"""The engine's one cache policy and the one object that holds every cache of the engine.

**Policy** (:class:`BoundedCache`): entries pinned for the life of the process (the
profiles'), plus a bounded least-recently-used set (custom rules), behind a lock. Workers
serve several requests at once (greenlets, or threads elsewhere), so every write and every
read of the bounded set takes the lock (a pinned entry is never removed or replaced, so
reading one needs none: the profiles' lookups, on every request); building a missing
value happens outside it (two callers may build the same value at once; both get an equal
one and the cache keeps one).

**One object** (:data:`CACHE`, an :class:`EngineCache`): every module of the engine that
keeps per-rules data takes a named *section* of it (the evaluation tables, the per-rules
hand counters, distributions, house edges, suited-bonus masks, interned formations), and
every section shares the object's one lock. Data that depends on no rules (the dense class
index, the card-multiset walk) is a :class:`Constant` of the same object: built on first
use, exactly once, under a lock of its own so that a long build never holds up a lookup.
``CACHE.sections()`` lists them all.

>>> cache: BoundedCache[str, int] = BoundedCache(2)
>>> cache.pin("standard", 0)
0
>>> for key, value in [("a", 1), ("b", 2), ("c", 3)]:
...     _ = cache.put(key, value)
>>> cache.get("a"), cache.get("c"), cache.get("standard"), len(cache)
(None, 3, 0, 3)
>>> cache.get_or_build("d", lambda: 4), sorted(cache.keys())
(4, ['c', 'd', 'standard'])
>>> cache.resize(1), cache.keys()
(2, ['standard', 'd'])
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

__all__ = ["CACHE", "BoundedCache", "Constant", "EngineCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")


class BoundedCache(Generic[K, V]):
    """Pinned entries (never evicted) and at most ``size`` others, least recently used
    evicted first; every method is safe to call from several threads.

    :param size: how many unpinned entries are kept (at least 1).
    :param lock: the lock to take (a section of :class:`EngineCache` shares the object's);
        a new one by default.
    :raises ValueError: ``size`` is below 1.
    """

    def __init__(self, size: int, lock: threading.Lock | None = None) -> None:
        if size < 1:
            raise ValueError("a cache holds at least one entry")
        self.size = size
        self._pinned: dict[K, V] = {}
        self._recent: OrderedDict[K, V] = OrderedDict()
        self._lock = lock or threading.Lock()

    def resize(self, size: int) -> int:
        """Keep at most ``size`` unpinned entries from now on, evicting the least recently
        used ones beyond it now; returns the previous bound.

        :raises ValueError: ``size`` is below 1.
        """
        if size < 1:
            raise ValueError("a cache holds at least one entry")
        with self._lock:
            previous, self.size = self.size, size
            while len(self._recent) > size:
                self._recent.popitem(last=False)
            return previous

    def get(self, key: K) -> V | None:
        """The value for ``key`` (now the most recently used), or ``None``."""
        found = self._pinned.get(key)  # no lock: a pinned entry is never removed or replaced
        if found is not None:
            return found
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
        """Keep ``value`` for ``key`` for good (an existing pinned value stays, and is
        returned: pinning a value to itself interns it)."""
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

    @property
    def unpinned(self) -> int:
        """How many entries may still be evicted (at most ``size``)."""
        with self._lock:
            return len(self._recent)

    def keys(self) -> list[K]:
        """Every key, pinned first."""
        with self._lock:
            return [*self._pinned, *self._recent]


class Constant(Generic[T]):
    """A value that depends on no rules, built on first use exactly once (callers that
    arrive during the build wait for it) and kept for the life of the process.

    :param build: makes the value.

    >>> squares = Constant(lambda: [n * n for n in range(4)])
    >>> squares.ready, squares(), squares.ready
    (False, [0, 1, 4, 9], True)
    """

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: T | None = None
        self._lock = threading.Lock()

    @property
    def ready(self) -> bool:
        """Whether the value is built (callers budgeting time ask)."""
        return self._value is not None

    def __call__(self) -> T:
        """The value, built now when missing."""
        value = self._value
        if value is None:
            with self._lock:
                if self._value is None:
                    self._value = self._build()
                value = self._value
        return value


class EngineCache:
    """Every cache of the engine: named :class:`BoundedCache` sections sharing one lock,
    and named :class:`Constant` values.

    >>> engine = EngineCache()
    >>> hands: BoundedCache[str, int] = engine.section("hands", 2)
    >>> engine.section("hands", 2)
    Traceback (most recent call last):
        ...
    ValueError: the engine already has a cache named 'hands'
    >>> _ = hands.put("a", 1); engine.sections(), engine["hands"] is hands
    ({'hands': (1, 2)}, True)
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sections: dict[str, BoundedCache[Any, Any]] = {}
        self._constants: dict[str, Constant[Any]] = {}

    def _claim(self, name: str) -> None:
        if name in self._sections or name in self._constants:
            raise ValueError(f"the engine already has a cache named {name!r}")

    def section(self, name: str, size: int) -> BoundedCache[Any, Any]:
        """A new section: pinned entries and at most ``size`` others, under the shared lock.

        :raises ValueError: ``name`` is taken, or ``size`` is below 1.
        """
        self._claim(name)
        section: BoundedCache[Any, Any] = BoundedCache(size, self._lock)
        self._sections[name] = section
        return section

    def constant(self, name: str, build: Callable[[], T]) -> Constant[T]:
        """A new :class:`Constant` built by ``build`` on first use.

        :raises ValueError: ``name`` is taken.
        """
        self._claim(name)
        constant = Constant(build)
        self._constants[name] = constant
        return constant

    def __getitem__(self, name: str) -> BoundedCache[Any, Any]:
        """The section named ``name`` (tests shrink one to force evictions).

        :raises KeyError: no such section.
        """
        return self._sections[name]

    def sections(self) -> dict[str, tuple[int, int]]:
        """Per section, ``(entries held, pinned included; unpinned bound)``; per constant,
        ``(1 if built else 0, 1)``."""
        out = {name: (len(section), section.size) for name, section in self._sections.items()}
        out.update({name: (int(c.ready), 1) for name, c in self._constants.items()})
        return out


#: The engine's one cache object (see the module docstring).
CACHE = EngineCache()
