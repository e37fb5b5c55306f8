"""The board the master and its workers share (service/gunicorn_board.py), in process:
slots, connection counts, who is ahead, heartbeats, and that a forked process writes the
same memory."""

from __future__ import annotations

import os

import pytest

from service.gunicorn_board import MAX_SLOTS, Board


def test_slots_are_taken_lowest_free_first_and_start_empty() -> None:
    board = Board(clock=lambda: 1.0)
    first = board.take([])
    board.connected(first)
    board.mark_booted(first)
    board.free(first)
    assert board.take([None, 1]) == 0  # free again; a worker without a slot takes none
    assert board.connections(0) == 0  # a slot is taken with nothing counted on it ...
    assert board.beats() == [(False, 0.0)]  # ... not booted, no heartbeat
    assert board.take([0, 1]) == 2


def test_all_slots_taken() -> None:
    with pytest.raises(StopIteration):
        Board().take(range(MAX_SLOTS))


def test_a_worker_is_ahead_of_the_least_loaded_other_live_worker() -> None:
    board = Board()
    a, b, c = board.take([]), board.take([0]), board.take([0, 1])
    assert not board.ahead(a)  # all at 0
    board.connected(a)
    assert board.ahead(a)
    board.connected(b)
    assert board.ahead(a)  # c still holds none
    board.free(c)  # gone: only live workers count
    assert not board.ahead(a)
    assert not board.ahead(b)
    board.disconnected(b)
    assert board.ahead(a)
    board.free(b)
    assert not board.ahead(a), "the only live worker is never ahead"


def test_beats_are_of_live_workers_in_slot_order() -> None:
    now = [5.25]
    board = Board(clock=lambda: now[0])
    slots = [board.take(range(i)) for i in range(3)]
    board.mark_booted(slots[2])
    now[0] = 7.5
    board.beat(slots[0])
    board.free(slots[1])
    assert board.beats() == [(False, 7.5), (True, 5.25)]


def test_a_forked_worker_writes_on_the_masters_board() -> None:
    board = Board(clock=lambda: 3.0)
    slot = board.take([])
    pid = os.fork()
    if pid == 0:  # the worker: count a connection and boot, then leave at once
        board.connected(slot)
        board.mark_booted(slot)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert board.connections(slot) == 1
    assert board.beats() == [(True, 3.0)]
