"""The solver a query gets: the compiled kernel for floats, the reference for fractions."""

from __future__ import annotations

from .reference import KingdomSolver

HAND_MEMO_BITS = 21
"""The size (2**bits slots) a compiled memo starts at where it is to solve a whole hand with a
drawing Jack (:func:`make_solver` with ``whole_hand``: the tour planner's hand chances, a
simulated visit's restrictions, ``odds``): about what such a memo reaches, so it never grows by
doubling. Growing is not only the copies (0.8 s of Military's 3.1 s on deal 4's column): the
kernel unwinds to the root each time and walks back down. The values and states are the same,
after 0.2% fewer lookups. Measured: 6 advisor tours of seed 777 (``simulate --workers 1``, the
same JSON byte for byte) 196.8 -> 182.4 s of CPU (7%); a column of ``advise`` solved whole,
Military on deal 4 3.1 -> 2.1-2.5 s, Commerce on deal 7 1.4-1.9 -> 1.3 s. ``advise`` starts
only Commerce's column memo big (:data:`search.tours.exact_cells.BIG_MEMOS`)."""


def make_solver(exact: bool = False, whole_hand: bool = False) -> KingdomSolver:
    """A fresh solver for one query: the compiled kernel for floats, the reference kernel for
    exact fractions (both give the same values; tests/test_fastkernel.py). ``whole_hand``: its
    memo starts at :data:`HAND_MEMO_BITS` (for a hand of six cards or more with Military or
    Commerce; the same values, found quicker and after slightly fewer lookups) where the memory
    cap has room for it."""
    if exact:
        return KingdomSolver(exact=True)
    from .kernel import FastKingdomSolver

    if whole_hand and _room_for_a_whole_memo():
        return FastKingdomSolver(initial_bits=HAND_MEMO_BITS)
    return FastKingdomSolver()


def _room_for_a_whole_memo() -> bool:
    """Whether a memo of :data:`HAND_MEMO_BITS` takes at most a quarter of what the memory cap
    has left (else it grows from small, as a search under ``--max-memory`` must)."""
    from ..infra import memory_limit, reserved_memory
    from .kernel import memo_bytes

    return 4 * memo_bytes(HAND_MEMO_BITS) <= memory_limit() - reserved_memory()


def needs_whole_memo(cards: int, abilities) -> bool:
    """Whether a solve of ``cards`` held with ability counts ``abilities`` (♣ ♦ ♥ ♠) is a
    whole hand's with a drawing Jack: its memo had better start at :data:`HAND_MEMO_BITS`."""
    return cards >= 6 and bool(abilities[0] or abilities[1])


def warm_up() -> None:
    """Load the compiled kernel now (from numba's cache, or compiling it), so that time
    limits measure search rather than loading."""
    make_solver().decide(1, 2, 0, 0, (1, 1, 1, 1), (1,))


def kernel_needs_compile() -> bool | None:
    """Whether loading the compiled kernel means compiling it (numba's cache has no usable
    copy, as on the first run after install); None where the cache cannot tell."""
    from ..infra import needs_compile
    from .kernel import ENTRY_POINTS

    return needs_compile(ENTRY_POINTS)
