"""The lookahead policy of :mod:`search.visit.lookahead`, compiled: whole playouts, no Python.

:func:`compiled_playouts` plays as :func:`~search.visit.lookahead.play_lookahead` does (the
compiled code is the last part of :mod:`.kernel`): the same restrictions valued in the same
order, the same options, answers and Commerce discards with the same tie rule, and Military's
sampled lookahead with the same stages and margins. Values come from the solvers' compiled
memos, so a playout costs lookups, not interpreter steps: a restriction that draws nothing
is read from the roots' memo where a root's search holds the state, and a batch keeps its
option decisions, as the Python policy keeps them (neither changes a value or a choice).
``tests/test_fastplay.py`` plays both on shared deck orders and checks that they make the
same plays.

Randomness. Deck orders come from SplitMix64, a 64-bit counter through a fixed mixer (Steele,
Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014), seeded per
playout by :func:`playout_seed`; Military's sampled draws by :func:`military_seed` of the
position (its cards and trump, not the wins still needed), so that a position is valued alike
in every playout that reaches it, for every target, and the subgames sampled are memoised once.
:class:`SplitMixStream` is the same generator in Python, for the Python policy to see the same
cards. A shuffle is Fisher–Yates over the cards lowest first, drawn from the end, as
:class:`~search.visit.playout.Playout` draws.

Memory. A solve that runs out of table, stack or depth ends the batch with the kernel's status;
the caller grows that memo and plays the unfinished playout again (finished states stay
memoised, so the replay is cheap, and the values being exact, it plays the same).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from . import kernel
from .budget import clock_stops
from .kernel import GOLDEN, MILITARY_TAG, MIX1, MIX2, SPREAD_MIX, pack_abilities
from .lookahead import SWAP, LookaheadPolicy, military_stream_key, restricted, spent

MASK64 = (1 << 64) - 1
OPTION_CODES = {
    "debate": kernel.DEBATE,
    "H": kernel.DIPLOMACY,
    "C": kernel.MILITARY,
    "D": kernel.COMMERCE,
}


def _fmix(z: int) -> int:
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


def _combine(h: int, value: int) -> int:
    return _fmix((h + GOLDEN + (value & MASK64) * SPREAD_MIX) & MASK64)


def run_seed(seed: int) -> int:
    """A run's seed (any integer) as the generator's 64-bit seed."""
    return _combine(0, seed & MASK64) ^ _combine(1, (seed >> 64) & MASK64)


def playout_seed(seed: int, index: int) -> int:
    """The generator's state at the start of playout ``index`` of the run seeded ``seed``."""
    return _combine(run_seed(seed), index)


def military_seed(seed: int, hand: int, deck: int, disc: int, trump: int) -> int:
    """The generator's state for Military's sampled draws at a position."""
    h = _combine(run_seed(seed), MILITARY_TAG)
    for value in (hand, deck, disc, trump):
        h = _combine(h, value)
    return h


class SplitMixStream:
    """The compiled generator in Python, with the ``shuffle`` of :class:`~search.game.Stream`."""

    def __init__(self, state: int) -> None:
        self.state = state & MASK64

    def next(self) -> int:
        """The next 64 random bits."""
        self.state = (self.state + GOLDEN) & MASK64
        return _fmix(self.state)

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)`` (draws under 2**64 mod ``bound`` rejected)."""
        floor = (1 << 64) % bound
        while True:
            value = self.next()
            if value >= floor:
                return value % bound

    def shuffle(self, items) -> list:
        """A uniformly shuffled copy of ``items`` (Fisher–Yates, from the top)."""
        items = list(items)
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


class MirroredPolicy(LookaheadPolicy):
    """The Python lookahead policy with Military's draws from the compiled generator: on the
    deck orders of :func:`playout_seed` it plays what :func:`compiled_playouts` plays."""

    def military_stream(self, game, still: int) -> SplitMixStream:
        return SplitMixStream(military_seed(self.seed, *military_stream_key(game)))


def option_code(label: tuple) -> int:
    """The kernel's number of an option label (``("S", suit)``: Politics bringing ``suit``)."""
    if label[0] == "S":
        return kernel.POLITICS + label[1]
    return OPTION_CODES[label[0]]


def _suit_mask(suits: Iterable[int]) -> int:
    return sum(1 << s for s in set(suits))


def _counts(abil: tuple) -> int:
    return pack_abilities(abil, ())[0]


def compiled_playouts(
    policy: LookaheadPolicy,
    base: LookaheadPolicy | None,
    state: tuple,
    need: int,
    seed: int,
    first: int,
    count: int,
    waiting: int | None = None,
    forced: tuple | None = None,
    forced_suits: Iterable[int] = SWAP,
    deadline: float | None = None,
) -> tuple[list[int], list[int]]:
    """Playouts ``first .. first + count - 1`` of ``policy`` from ``state`` (``need`` wins
    wanted), and of ``base`` (a ``fixed`` policy, or None) on the same deck orders, as
    :func:`~search.visit.lookahead.play_lookahead` plays them; ``policy``'s solver and scratch
    must be compiled ones. Returns both lists of wins (the base's empty without one). Raises
    what the solvers raise (the deadline, the memory cap, Ctrl-C), losing the batch."""
    policy.start(state, need, waiting)
    policy_just, base_just = _counts(policy.justification), -1
    if base is not None:
        base.start(state, need, waiting)
        base_just = _counts(base.justification)
    code = forced_just = -1
    if forced is not None:
        abil = state[4] if waiting is not None else spent(state[4], forced[0])
        forced_just = _counts(restricted(abil, forced_suits))
        code = forced[1] if waiting is not None else option_code(forced)
    roots = [_suit_mask(r) for r in policy.roots]
    if len(roots) > kernel.P_ROOT_SLOTS:
        raise ValueError(f"at most {kernel.P_ROOT_SLOTS} restrictions, not {len(roots)}")
    wins = kernel.P_ROOTS + kernel.P_ROOT_SLOTS
    ints = np.full(wins + 2 * count, -1, dtype=np.int64)
    ints[kernel.P_WAITING] = -1 if waiting is None else waiting
    ints[kernel.P_FORCED] = code
    ints[kernel.P_POLICY_JUST], ints[kernel.P_BASE_JUST] = policy_just, base_just
    ints[kernel.P_FORCED_JUST] = forced_just
    ints[kernel.P_SEED] = np.uint64(run_seed(seed)).view(np.int64)
    ints[kernel.P_FIRST], ints[kernel.P_COUNT], ints[kernel.P_DONE] = first, count, 0
    ints[kernel.P_ROOTS : kernel.P_ROOTS + len(roots)] = roots
    solver = policy.solver
    with clock_stops(deadline, solver):
        solver.play(policy.scratch, state, need, ints)
    played = ints[wins : wins + count].tolist()
    return played, ints[wins + count :].tolist() if base is not None else []
