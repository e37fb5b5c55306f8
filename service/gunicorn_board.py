"""The board the gunicorn master and its workers share: one row of counts per worker slot.

The master makes it (an anonymous shared mapping, :data:`BOARD`, made as this module is
first imported: in the master, by gunicorn.conf.py, before any fork), so every worker it
forks writes and reads the same memory. Each slot holds four numbers:

- the connections its worker has open (balanced accepting: a worker ahead of the least
  loaded other live worker holds off accepting, :mod:`service.gunicorn_worker`);
- whether a live worker sits in it (the master sets this before the fork, clears it when
  the worker has exited);
- whether that worker has booted (past its own set-up: the master's readiness counts it);
- the ``time.monotonic()`` of its last heartbeat, which the master's probe listener
  (:mod:`service.gunicorn_probes`) reads, never a request.

Each number is one aligned 64-bit word written by one process at a time (a slot's
connections by its worker, the rest as above), so no lock is needed.
"""

from __future__ import annotations

import ctypes
import mmap
import time
from collections.abc import Callable, Iterable

__all__ = ["BOARD", "MAX_SLOTS", "Board"]

#: The most workers one master runs with balanced accepting (GNAU_WORKERS is at most 64).
MAX_SLOTS = 64

_Row = ctypes.c_int64 * MAX_SLOTS


class _Rows(ctypes.Structure):
    """The board's memory: four rows of :data:`MAX_SLOTS` int64."""

    _fields_ = [("connections", _Row), ("live", _Row), ("booted", _Row), ("beat_us", _Row)]


class Board:
    """Per-slot connection counts, liveness, boot flags and heartbeats, in shared memory.

    :param clock: ``time.monotonic`` (tests pass their own); heartbeats are kept in
        microseconds of it.

    >>> board = Board(clock=lambda: 12.5)
    >>> slot = board.take(taken=[0]); slot
    1
    >>> board.connected(slot); board.connections(slot)
    1
    >>> board.beats()                      # live but not booted, no heartbeat yet
    [(False, 0.0)]
    >>> board.mark_booted(slot); board.beats()
    [(True, 12.5)]
    >>> board.free(slot); board.beats()
    []
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._memory = mmap.mmap(-1, ctypes.sizeof(_Rows))  # anonymous and shared: forks see one board
        rows = _Rows.from_buffer(self._memory)
        # Each row once, as an array over the shared memory (a field read makes a new one).
        self._connections, self._live, self._booted, self._beat_us = (
            rows.connections, rows.live, rows.booted, rows.beat_us)
        self.clock = clock

    def take(self, taken: Iterable[int | None]) -> int:
        """The lowest slot not in ``taken`` (the slots of the other live workers), now live
        with nothing counted on it (in the master, before the worker forks).

        :raises StopIteration: all :data:`MAX_SLOTS` slots are taken.
        """
        held = set(taken)
        slot = next(i for i in range(MAX_SLOTS) if i not in held)
        self._connections[slot] = self._booted[slot] = self._beat_us[slot] = 0
        self._live[slot] = 1
        return slot

    def free(self, slot: int) -> None:
        """Mark ``slot``'s worker gone (in the master, once it has exited)."""
        self._live[slot] = self._booted[slot] = self._connections[slot] = 0

    def connected(self, slot: int) -> None:
        """Count one more open connection on ``slot``."""
        self._connections[slot] += 1

    def disconnected(self, slot: int) -> None:
        """Count one connection of ``slot`` closed."""
        self._connections[slot] -= 1

    def connections(self, slot: int) -> int:
        """The connections ``slot``'s worker has open."""
        count: int = self._connections[slot]
        return count

    def ahead(self, slot: int) -> bool:
        """Whether ``slot``'s worker holds more connections than the least loaded other live
        worker (``False`` when it is the only one)."""
        connections, live = self._connections, self._live
        others = [connections[i] for i in range(MAX_SLOTS) if i != slot and live[i]]
        return bool(others) and connections[slot] > min(others)

    def beat(self, slot: int) -> None:
        """Note a heartbeat of ``slot``'s worker, now."""
        self._beat_us[slot] = int(self.clock() * 1e6)

    def mark_booted(self, slot: int) -> None:
        """Note that ``slot``'s worker has booted, and beat once."""
        self.beat(slot)
        self._booted[slot] = 1

    def beats(self) -> list[tuple[bool, float]]:
        """Every live worker's ``(booted, time of its last heartbeat)``, by slot (the master's
        probe listener reads these)."""
        booted, beat_us, live = self._booted, self._beat_us, self._live
        return [(bool(booted[i]), beat_us[i] / 1e6) for i in range(MAX_SLOTS) if live[i]]


#: The board of this master and its workers (made at import, before any fork).
BOARD = Board()
