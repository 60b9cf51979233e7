"""The solver a query gets: the compiled kernel for floats, the reference for fractions."""

from __future__ import annotations

from .reference import KingdomSolver


def make_solver(exact: bool = False) -> KingdomSolver:
    """A fresh solver for one query: the compiled kernel for floats, the reference kernel for
    exact fractions (both give the same values; tests/test_fastkernel.py)."""
    if exact:
        return KingdomSolver(exact=True)
    from .kernel import FastKingdomSolver

    return FastKingdomSolver()


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
