"""The 2019 first edition (R5-R7): the least-reputation expectimax (:mod:`.reference`,
compiled in :mod:`.kernel`) and its advice and tour policy (:mod:`.play`)."""

from __future__ import annotations

# Loaded on first use: these modules import numba, which takes most of a second.
_KERNEL = {"FastFirstEditionSolver", "kernel_needs_compile"}
_PLAY = {
    "advise_first_edition",
    "FirstEditionAdvice",
    "FirstEditionPolicy",
    "net_losses",
    "rank_first_edition",
    "RankedAction",
    "turn_down_choice",
    "VisitSearch",
}


def __getattr__(name: str):
    """A compiled module's name, imported when first asked for."""
    if name in _KERNEL:
        from . import kernel

        return getattr(kernel, name)
    if name in _PLAY:
        from . import play

        return getattr(play, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FastFirstEditionSolver",
    "FirstEditionAdvice",
    "FirstEditionPolicy",
    "RankedAction",
    "VisitSearch",
    "advise_first_edition",
    "kernel_needs_compile",
    "net_losses",
    "rank_first_edition",
    "turn_down_choice",
]
