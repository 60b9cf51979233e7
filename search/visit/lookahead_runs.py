"""Runs of the lookahead policy's playouts (:mod:`.lookahead`) for an estimate: its
restrictions solved, then seeded playouts in batches, each beside its base on the same deck
order, compiled where the solver is (:mod:`.fastplay`), else in Python."""

from __future__ import annotations

import time

from ..infra import BudgetExceeded, MemoryLimitExceeded
from .budget import clock_stops, known_roots, scratch_of
from .fastplay import SplitMixStream, compiled_playouts, playout_seed
from .lookahead import LookaheadPolicy, play_lookahead, solve_roots
from .reference import KingdomSolver


class LookaheadRun:
    """What :func:`lookahead_playouts` played: each playout's wins, (policy hit, base hit)
    pairs where a base was played beside it, and the base's exact chance."""

    def __init__(
        self,
        wins: list[int],
        pairs: list[tuple[bool, bool]],
        base_value: float,
        roots: list[tuple],
        clock_cut: bool = False,
    ) -> None:
        self.wins, self.pairs, self.base_value, self.roots = wins, pairs, base_value, roots
        self.clock_cut = clock_cut  # the clock, not the work asked for, ended something


def compiled(solver: KingdomSolver) -> bool:
    """Whether ``solver`` (and so its scratch) is the compiled kernel's, which plays whole
    playouts compiled (:mod:`.fastplay`)."""
    return hasattr(solver, "play")


def _compiled_batch(policy, base, state, need, seed, first, count, waiting, forced, suits, end):
    """Playouts ``first ..`` of ``policy`` and ``base`` on the same deck orders, compiled."""
    return compiled_playouts(
        policy, base, state, need, seed, first, count, waiting, forced, suits, deadline=end
    )


def _python_batch(policy, base, state, need, seed, first, count, waiting, forced, suits, end):
    """Playouts ``first ..`` of ``policy`` and ``base`` on the same deck orders, in Python
    (the reference solver's); the solvers' deadline is ``end``."""
    made, hits = [], []
    for i in range(first, first + count):
        made.append(
            play_lookahead(
                policy, state, need, SplitMixStream(playout_seed(seed, i)), waiting, forced, suits
            )
        )
        if base is not None:
            hits.append(
                play_lookahead(
                    base, state, need, SplitMixStream(playout_seed(seed, i)), waiting, forced, suits
                )
            )
    return made, hits


def lookahead_playouts(
    solver: KingdomSolver,
    state: tuple,
    need: int,
    seed: int,
    budget_end: float,
    roots_end: float,
    waiting: int | None = None,
    forced: tuple | None = None,
    batch: int = 64,
    roots_work: int | None = None,
    playouts: int | None = None,
    first: int = 0,
) -> LookaheadRun:
    """Seeded playouts of the lookahead policy from ``state`` until ``budget_end`` (its
    restrictions solved before ``roots_end``), compiled with the compiled solver
    (:mod:`.fastplay`), in whole batches of 1, 2, 4, ... up to ``batch`` playouts (fixed by
    index, so that which playouts are kept does not depend on their cards, and a run cut short
    keeps most of what it played), each beside its base on the same deck order: exact play of
    the best solved restriction (:meth:`LookaheadPolicy.base`), or with ``forced``, of the one
    best after the forced decision (:meth:`~LookaheadPolicy.option_base`). Playout i sees the
    deck order of :func:`~.fastplay.playout_seed` (seed, i) (i from ``first``), so options
    forced on the same seed compare on the same cards, and a second run from ``first`` = the
    first run's count continues it.

    With ``roots_work`` and ``playouts`` the work is fixed instead (kernel lookups per
    restriction, a number of playouts) and the times are only backstops, so that the result
    repeats on any machine fast enough; the run says where the clock ended it instead."""
    cuts: list = []
    roots = known_roots(solver, state, waiting)
    if roots is None:
        roots = solve_roots(solver, state, waiting, roots_end, work=roots_work, cuts=cuts)
    policy = LookaheadPolicy(solver, roots, seed=seed, scratch=scratch_of(solver))
    wins: list[int] = []
    pairs: list[tuple[bool, bool]] = []
    wanted = float("inf") if playouts is None else playouts
    with clock_stops(budget_end, solver, policy.scratch):
        try:
            try:
                if forced is None:
                    suits, base_value = policy.base(state, need, waiting)
                else:
                    suits, base_value = policy.option_base(state, need, forced, waiting)
            except BudgetExceeded:  # no time or room left to value the bases: no base, no playout
                return LookaheadRun([], [], 0.0, roots, True)
            base = None
            if base_value >= 0:  # else no exact chance to pair with: the plain success rate
                base = LookaheadPolicy(
                    solver, [suits], seed=seed, scratch=policy.scratch, fixed=True
                )
            base_value = max(base_value, 0.0)
            play = _compiled_batch if compiled(solver) else _python_batch
            size = 1
            while len(wins) < wanted and time.perf_counter() < budget_end:
                size = int(min(size, wanted - len(wins)))
                policy.tidy()
                made, hits = play(
                    policy,
                    base,
                    state,
                    need,
                    seed,
                    first + len(wins),
                    size,
                    waiting,
                    forced,
                    suits,
                    budget_end,
                )
                wins.extend(made)
                pairs.extend((won == need, hit == need) for won, hit in zip(made, hits))
                size = min(2 * size, batch)  # 1, 2, 4, ... batch: a cut batch costs little
        except BudgetExceeded as error:  # the batch cut off is dropped whole
            if isinstance(error, MemoryLimitExceeded):
                policy.scratch.reset()
    return LookaheadRun(
        wins, pairs, base_value, roots, bool(cuts) or len(wins) < wanted < float("inf")
    )
