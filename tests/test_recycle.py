"""Freed memos' arrays are pooled for the next memo (search.infra.recycle): the values and the
work a solve counts are the same as from fresh memory, and the pool stays under the memory cap."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from search.game import CardSet, Suit
from search.infra import memory_limit, release, reserve, reserved_memory, set_memory_limit
from search.infra.recycle import POOL, SMALLEST, ArrayPool
from search.visit import make_position
from search.visit.kernel import FastKingdomSolver
from search.visit.position import root_state

# Commerce alone: a tenth of a second, a memo grown to 2**18 slots (arrays of 4 and 11 MiB).
STATE = root_state(
    make_position(CardSet.parse("3C 3D 2H 3H 6H AS 7S 8S"), Suit.HEARTS, 4, jacks=(Suit.DIAMONDS,))
)


def solve_once() -> tuple:
    solver = FastKingdomSolver()
    values = solver.decide(*STATE)
    return values, solver.lookups, solver.state_count()


def test_a_pooled_array_comes_back_refilled() -> None:
    pool = ArrayPool()
    array = np.zeros((SMALLEST // 8, 2), dtype=np.int64)
    array[5] = 7
    pool.give(array)
    assert pool.nbytes == array.nbytes
    again = pool.take((SMALLEST // 8, 2), np.int64, -1)
    assert again is array and (again == -1).all()
    assert pool.nbytes == 0
    fresh = pool.take((SMALLEST // 8, 2), np.int64, -1)
    assert fresh is not array and (fresh == -1).all()


def test_small_arrays_and_views_are_not_held() -> None:
    pool = ArrayPool()
    pool.give(np.zeros(16))
    pool.give(np.zeros(SMALLEST)[1:])  # a view: its memory belongs to another array
    assert pool.nbytes == 0


def test_the_pool_keeps_its_share_of_the_cap_dropping_the_oldest() -> None:
    before = memory_limit()
    set_memory_limit(reserved_memory() + 8 * SMALLEST)  # room for 8 MiB beside the memos alive
    try:
        pool = ArrayPool(share=4 * SMALLEST / memory_limit())  # 4 MiB at most
        first, second, third = (np.zeros(SMALLEST // 8 * 3 // 2) for _ in range(3))
        for array in (first, second, third):
            pool.give(array)
        assert pool.nbytes <= 4 * SMALLEST
        assert pool.take(first.shape, first.dtype, 0.0) is not first  # the oldest went
        assert pool.take(third.shape, third.dtype, 0.0) is third
    finally:
        set_memory_limit(before)


def test_a_memo_grown_into_pooled_arrays_computes_the_same_with_the_same_work() -> None:
    POOL.clear()
    fresh = solve_once()
    gc.collect()
    assert POOL.nbytes > 0  # the freed solver's arrays
    held = POOL.nbytes
    assert solve_once() == fresh
    gc.collect()
    assert POOL.nbytes == held  # taken while growing, given back when freed


def test_spare_arrays_go_before_a_memo_would_pass_the_cap() -> None:
    POOL.clear()
    solve_once()
    gc.collect()
    assert POOL.nbytes > 0
    room = memory_limit() - reserved_memory()
    reserve(room)  # memos alone fit; with the pool they would not
    try:
        assert POOL.nbytes == 0
    finally:
        release(room)
    with pytest.raises(Exception, match="would need"):
        reserve(room + 1)
