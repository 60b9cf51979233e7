"""Play with every ability at once: the best exactly solved restrictions, re-chosen at every
decision, and Military by sampled lookahead (docs/rules.md §4, §7).

An exact search with all four Jacks rarely finishes on a fresh hand, but searches with some
abilities left out (*restrictions*: ♦♥♠, ♣ alone, ...) often do. With every Jack a player can
play as if some were absent, so each solved restriction's exact chance is a lower bound. The
*lookahead policy* does better than the best of them, and provably never worse:

- It keeps a *justification*: the restriction whose exact play it is at least as good as from
  here (at the start, the best solved restriction for the target).
- At every decision it values each option under every restriction it can query cheaply: the
  justification, each solved restriction whose tree the visit has stayed in (every ability used
  so far belongs to it, so its values are memo hits), and Diplomacy with Politics (fast to solve
  anywhere). It takes the best option over all of them, and the restriction that valued it
  becomes the justification.
- Military, where no such restriction holds it, is valued by a seeded sample of its draws, each
  continued by exact play with Diplomacy and Politics, and used only where the sample's mean
  less two standard errors beats the best exact option. The sampling stops as soon as no
  draws still to sample could make it pay (:func:`military_ceiling`), with the answer the
  last stage would give.

Why never worse (for the exactly valued choices): if option a is best under restriction R, the
justification's value here is at most R's value of a, and after a the policy is again at least
as good as R's own continuation (R less the ability used), which it still holds. By induction
over the rest of the visit the policy's chance is at least every solved restriction's exact
chance. The sampled Military lookahead is the one step not covered; its margin keeps the risk
small, and every estimate of this policy is measured against the exact base it improves on
(:func:`paired_estimate`), so a loss would show.

Everything is seeded: the same seed, restrictions and position give the same play.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from ..game import Stream, debate_won, iter_bits, legal_answer_mask, military_draws, military_usable
from ..infra import BudgetExceeded, MemoryLimitExceeded, WorkLimitExceeded, wilson_interval
from .budget import clock_stops
from .playout import Playout
from .reference import CLUBS, DIAMONDS, HEARTS, SPADES, TIE, KingdomSolver, all_pairs, discard_pairs

MILITARY_STAGES = (4, 8, 16)
"""Draws sampled to value Military where no solved restriction holds it, in stages."""
MILITARY_FLOOR = 0.05
"""The least standard error assumed when deciding from a stage that Military does not pay."""
MILITARY_MARGIN = 2.0
"""Standard errors by which the sampled Military value must beat the best exact option."""
MILITARY_SLACK = 1e-7
"""How far below the best exact option the most the test could still reach must fall for the
sampling to stop early (:func:`military_ceiling`): rounding never decides it."""
SCRATCH_STATES = 2_000_000
"""States the scratch solver may hold between playouts before it is emptied."""
SWAP = (HEARTS, SPADES)
"""The abilities that draw nothing: a restriction to them is quick to solve anywhere."""


def restricted(abil: tuple, suits: Iterable[int]) -> tuple:
    """The ability counts ``abil`` with every suit outside ``suits`` set to 0."""
    keep = set(suits)
    return tuple(count if suit in keep else 0 for suit, count in enumerate(abil))


def _with(state: tuple, abil: tuple) -> tuple:
    """``state`` with ability counts ``abil`` (the pool dropped once Politics is not left)."""
    hand, deck, disc, trump, _, pool = state
    return (hand, deck, disc, trump, abil, pool if abil[SPADES] else ())


def swap_state(state: tuple) -> tuple:
    """``state`` with only Diplomacy and Politics left: the quick restriction every decision
    is also valued by."""
    return _with(state, restricted(state[4], SWAP))


def military_stream_key(game: Playout) -> tuple:
    """What seeds Military's sampled draws at a position: the same in every playout, and for
    every number of wins still needed (so that runs for other targets find them memoised)."""
    return game.hand, game.deck, game.disc, game.trump


def spent(abil: tuple, kind: str) -> tuple:
    """``abil`` after using the ability ``kind`` (an option label's first element)."""
    if kind == "debate":
        return abil
    suit = "CDHS".index(kind)
    return tuple(count - (i == suit) for i, count in enumerate(abil))


class LookaheadPolicy:
    """The lookahead policy of one visit (the module docstring). ``roots``: the solved
    restrictions, as suit sets; ``solver`` holds their memos. Call :meth:`start` before each
    playout."""

    def __init__(
        self,
        solver: KingdomSolver,
        roots: Iterable[Iterable[int]],
        seed: int = 0,
        scratch: KingdomSolver | None = None,
        fixed: bool = False,
    ) -> None:
        self.solver = solver
        self.fixed = fixed  # play the base restriction exactly, never another
        self.scratch = scratch or type(solver)()
        self.roots = [frozenset(r) for r in roots]
        self.seed = seed
        self._decisions: dict = {}  # (state, need, justification, used) -> (option, justification)
        self.used: set[int] = set()
        self.justification: tuple | None = None

    def base(self, state: tuple, need: int, waiting: int | None = None) -> tuple[frozenset, float]:
        """The solved restriction (or ♥♠) best for ``need`` more wins at ``state`` (``waiting``:
        a revealed card to answer first), and its exact chance."""
        return self._best_restriction(
            state,
            lambda solver, counts: max(
                solver.worth(need - won, *_with(child, counts))
                for won, child in _children(state, waiting)
            ),
        )

    def option_base(
        self, state: tuple, need: int, forced: tuple, waiting: int | None = None
    ) -> tuple[frozenset, float]:
        """The solved restriction (or ♥♠) best for ``need`` more wins after the ``forced``
        first decision (an option label, or ``("answer", card)`` while ``waiting``), and its
        exact chance: a proven lower bound on that decision's chance with every ability; -1
        where no solved restriction holds the decision (a drawing ability whose restriction
        did not finish): the base then has no exact chance to pair with."""
        if waiting is not None:

            def value(solver: KingdomSolver, counts: tuple) -> float | None:
                return next(
                    (
                        solver.worth(need - won, *_with(child, counts))
                        for won, child, answer in _answers(state, waiting)
                        if answer == forced[1]
                    ),
                    None,
                )
        else:

            def value(solver: KingdomSolver, counts: tuple) -> float | None:
                return dict(solver.option_worths(need, *_with(state, counts))).get(forced)

        return self._best_restriction(state, value)

    def _best_restriction(self, state: tuple, value) -> tuple[frozenset, float]:
        """Of ♥♠ and the solved restrictions, the one whose ``value(solver, counts)`` is highest
        (None: the decision valued is not open to it), and that value (-1 if none)."""
        best, best_value = frozenset(SWAP), -1.0
        for suits in (frozenset(SWAP), *self.roots):
            counts = restricted(state[4], suits)
            found = value(self._solver(counts), counts)
            if found is not None and found > best_value + TIE:
                best, best_value = suits, found
        return best, best_value

    def start(self, state: tuple, need: int, waiting: int | None = None) -> None:
        """Begin a playout from ``state`` (no ability used yet in it), justified by the best
        solved restriction."""
        suits, _ = self.base(state, need, waiting)
        self.used = set()
        self.justification = restricted(state[4], suits)

    def _solver(self, counts: tuple) -> KingdomSolver:
        """Who answers for a restriction: the solved restrictions' own solver while a drawing
        ability is left in it (the visit has stayed in its tree, so its memo holds the answer),
        else the scratch solver (quick anywhere, and emptied when it grows large)."""
        return self.solver if counts[CLUBS] or counts[DIAMONDS] else self.scratch

    def tidy(self, states: int = SCRATCH_STATES) -> None:
        """Empty the scratch solver's memo once it holds more than ``states`` states."""
        if self.scratch.state_count() > states:
            self.scratch.reset()

    def _family(self, abil: tuple) -> list[tuple]:
        """The restrictions (ability counts) valued at a decision: the justification first."""
        family = [self.justification]
        if self.fixed:
            return family
        for suits in self.roots:
            if self.used <= suits:
                family.append(restricted(abil, suits))
        family.append(restricted(abil, SWAP))
        unique = []
        for counts in family:
            if counts not in unique:
                unique.append(counts)
        return unique

    def option(self, game: Playout, still: int) -> tuple:
        """The option to take between debates (a label of ``KingdomSolver.options``)."""
        state = game.state()
        key = (state, still, self.justification, frozenset(self.used))
        known = self._decisions.get(key)
        if known is None:
            known = self._decisions[key] = self._choose(game, state, still)
        best, self.justification = known
        if best[0] != "debate":
            self.used.add("CDHS".index(best[0]))
        return best

    def _choose(self, game: Playout, state: tuple, still: int) -> tuple[tuple, tuple]:
        """The option and the justification after it (the module docstring)."""
        abil = state[4]
        best, best_value, best_counts = ("debate",), -1.0, self.justification
        for counts in self._family(abil):
            for label, value in self._solver(counts).option_worths(still, *_with(state, counts)):
                if value > best_value + TIE:
                    best, best_value, best_counts = label, value, counts
        if (
            not self.fixed
            and abil[CLUBS]
            and best[0] != "C"
            and best_value < 1 - 1e-9
            and still > 0
            and military_usable(game.hand, game.deck, game.disc)
            and self._military_pays(game, still, (0, 0, abil[HEARTS], 0), best_value)
        ):
            best, best_counts = ("C",), (1, 0, abil[HEARTS], 0)
        return best, spent(best_counts, best[0])

    def military_stream(self, game: Playout, still: int):
        """The seeded stream Military's sampled draws come from at this position."""
        return Stream(self.seed, "military-lookahead", *military_stream_key(game))

    def _military_pays(self, game: Playout, still: int, after: tuple, best_value: float) -> bool:
        """Whether Military now, followed by exact play with ``after``'s abilities, beats
        ``best_value`` by :data:`MILITARY_MARGIN` standard errors over seeded sampled draws.
        Sampled in stages, stopping as soon as it clearly does not pay."""
        stream = self.military_stream(game, still)
        values: list[float] = []
        for stage in MILITARY_STAGES:
            while len(values) < stage:
                copy = Playout(
                    (game.hand, game.deck, game.disc, game.trump, after, game.pool), stream
                )
                copy.draw(military_draws(game.hand))
                values.append(float(self.scratch.worth(still, *copy.state())))
                if (
                    len(values) < MILITARY_STAGES[-1]
                    and military_ceiling(values) < best_value + TIE - MILITARY_SLACK
                ):
                    return False  # no draws still to sample can make it pay: the same answer
            mean = sum(values) / len(values)
            spread = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
            error = math.sqrt(spread / len(values))
            if mean + MILITARY_MARGIN * max(error, MILITARY_FLOOR) < best_value:
                return False  # clearly worse: stop sampling
        return mean - MILITARY_MARGIN * error > best_value + TIE

    def answer(self, game: Playout, card: int, still: int) -> int:
        """The answer (a card index) to the revealed ``card``."""
        hand, deck, disc, trump, abil, pool = game.state()
        best, best_value, best_counts = None, -1.0, self.justification
        family = self._family(abil)
        for answer in iter_bits(legal_answer_mask(hand, card)):
            won = debate_won(card, answer, trump)
            child = (
                hand & ~(1 << answer),
                deck,
                disc | (1 << card) | (0 if won else 1 << answer),
                trump,
                abil,
                pool,
            )
            for counts in family:
                value = self._solver(counts).worth(still - won, *_with(child, counts))
                if value > best_value + TIE:
                    best, best_value, best_counts = answer, value, counts
        self.justification = best_counts
        return best

    def discard(self, game: Playout, still: int) -> int:
        """Commerce's two discards (a mask; the whole hand if it holds two or fewer)."""
        hand, deck, disc, trump, abil, pool = game.state()
        if hand.bit_count() <= 2:
            return hand
        family = self._family(abil)
        best, best_value, best_counts = None, -1.0, self.justification
        reshuffle = any(self.solver.reshuffle_possible(hand, deck, disc, c) for c in family)
        for pair in all_pairs(hand) if reshuffle else discard_pairs(hand, deck | disc):
            after = (hand & ~pair, deck, disc | pair, trump, abil, pool)
            for counts in family:
                value = self._solver(counts).worth(still, *_with(after, counts))
                if value > best_value + TIE:
                    best, best_value, best_counts = pair, value, counts
        self.justification = best_counts
        return best


def military_ceiling(values: Sequence[float]) -> float:
    """The most the Military test's final statistic (the mean less :data:`MILITARY_MARGIN`
    standard errors over all the draws of the last stage) can reach, whatever the draws not
    yet sampled are worth (each in [0, 1]), given the first ``values``.

    For a given sum of the values to come the statistic is highest when they are equal (their
    spread is least), and as a function of that common value ``x`` it is concave (a linear mean
    less a norm of an affine map), so a ternary search over ``x`` finds its maximum; a
    test that cannot reach ``best + TIE`` stops sampling with the answer the last stage would
    give. The compiled policy computes the same (``kernel._military_ceiling``).

    >>> military_ceiling([1.0] * 15) > 0.99
    True
    >>> military_ceiling([0.0] * 4) < 0.75
    True
    """
    total = MILITARY_STAGES[-1]
    count = len(values)
    known = sum(values)
    squares = sum(v * v for v in values)

    def statistic(x: float) -> float:
        rest = total - count
        mean = (known + rest * x) / total
        spread = max(0.0, squares + rest * x * x - total * mean * mean)
        return mean - MILITARY_MARGIN * math.sqrt(spread / (total - 1) / total)

    low, high = 0.0, 1.0
    for _ in range(60):
        a = low + (high - low) / 3
        b = high - (high - low) / 3
        if statistic(a) < statistic(b):
            low = a
        else:
            high = b
    return max(statistic(low), statistic(1.0))


def play_lookahead(
    policy: LookaheadPolicy,
    state: tuple,
    need: int,
    stream: Stream,
    waiting: int | None = None,
    forced: tuple | None = None,
    forced_suits: Iterable[int] = SWAP,
) -> int:
    """Play one visit to its end with ``policy`` from ``state`` (``need`` wins wanted); returns
    the wins made. ``waiting``: a revealed card to answer first; ``forced``: the first decision
    (an option label, or ``("answer", card index)`` while ``waiting``), whatever the policy
    says; what follows it is justified by the restriction ``forced_suits``
    (:meth:`LookaheadPolicy.option_base`), so that the policy does at least as well as that
    restriction's exact play after the forced decision."""
    game = Playout(state, stream)
    policy.tidy()
    policy.start(state, need, waiting)
    if waiting is not None:
        answer = forced[1] if forced else policy.answer(game, waiting, need)
        if forced:
            policy.justification = restricted(tuple(game.abil), forced_suits)
        game.answer(waiting, answer)
        forced = None
    while game.hand:
        still = need - game.wins
        if forced is not None:
            label, forced = forced, None
            # A forced first option: what follows is justified by the restriction that valued
            # it best (and by the solved ones it stays within, at the next decision).
            policy.justification = restricted(spent(tuple(game.abil), label[0]), forced_suits)
            if label[0] != "debate":
                policy.used.add("CDHS".index(label[0]))
        else:
            label = policy.option(game, still)
        kind = label[0]
        if kind == "debate":
            card = game.next_card()
            if card is None:
                break  # R2: no debate can be held
            game.answer(card, policy.answer(game, card, still))
            continue
        game.use(label, lambda: policy.discard(game, still))  # noqa: B023 - called now
    return game.wins


def paired_difference(
    first: Sequence[bool], second: Sequence[bool]
) -> tuple[float, tuple[float, float]]:
    """The mean difference of successes of two policies played on the same deck orders
    (the first ``min(len)`` playouts of each), with a 95% interval. The interval bounds the
    two discordance rates separately (Wilson each), so it stays honest when few disagree."""
    n = min(len(first), len(second))
    gains = sum(1 for a, b in zip(first[:n], second[:n]) if a and not b)
    losses = sum(1 for a, b in zip(first[:n], second[:n]) if b and not a)
    gain_low, gain_high = wilson_interval(gains, n)
    loss_low, loss_high = wilson_interval(losses, n)
    return (gains - losses) / n, (gain_low - loss_high, gain_high - loss_low)


def paired_estimate(
    exact_base: float, pairs: list[tuple[bool, bool]]
) -> tuple[float, tuple[float, float]]:
    """The policy's chance from playouts paired with its base's on the same deck orders:
    the base's exact chance plus the mean difference of successes (a control variate), and a
    95% interval of that chance (:func:`paired_difference`). ``pairs``: (policy hit, base hit)
    per deck order."""
    difference, (low, high) = paired_difference([a for a, _ in pairs], [b for _, b in pairs])
    value = min(1.0, max(0.0, exact_base + difference))
    return value, (max(0.0, exact_base + low), min(1.0, exact_base + high))


def _answers(state: tuple, waiting: int) -> list[tuple[bool, tuple, int]]:
    """Each legal answer to ``waiting``: (whether it wins, the DECIDE state after it, the card)."""
    hand, deck, disc, trump, abil, pool = state
    answers = []
    for answer in iter_bits(legal_answer_mask(hand, waiting)):
        won = debate_won(waiting, answer, trump)
        lost = 0 if won else 1 << answer
        answers.append(
            (
                won,
                (hand & ~(1 << answer), deck, disc | (1 << waiting) | lost, trump, abil, pool),
                answer,
            )
        )
    return answers


def _children(state: tuple, waiting: int | None) -> list[tuple[bool, tuple]]:
    """The DECIDE states to value ``state`` by: itself, or with ``waiting`` revealed, the state
    after each legal answer (with whether it won)."""
    if waiting is None:
        return [(False, state)]
    return [(won, child) for won, child, _ in _answers(state, waiting)]


ROOT_RESTRICTIONS = (
    (DIAMONDS, HEARTS, SPADES),
    (CLUBS,),
    (DIAMONDS,),
    (CLUBS, HEARTS, SPADES),
    (CLUBS, DIAMONDS, HEARTS, SPADES),
)
"""The restrictions solved for the policy, in order: ♦ alone only where ♦♥♠ did not finish,
♣♥♠ where it is cheap (:data:`CHEAP_ONLY`), and last every ability (where that finishes, the
policy is best play). ♣♥♠ values Military exactly after Politics has changed the trump, where
the policy otherwise samples Military's draws (docs/speed.md)."""
CHEAP_ONLY = ((CLUBS, HEARTS, SPADES),)
"""Restrictions solved only within as many kernel lookups as those before them took (at least
:data:`CHEAP_FLOOR`): where they cost more, the time is the playouts'. ♣♥♠ made the playouts
of ``examples/bench_jacks.py`` 3.1 times faster at the median, but took 0.1-24 s more to solve
(2 of 20 hands past 60 s), and solved at any cost it left the coach fewer playouts."""
CHEAP_FLOOR = 2_000_000


def solve_roots(
    solver: KingdomSolver,
    state: tuple,
    waiting: int | None,
    deadline: float | None,
    restrictions: tuple = ROOT_RESTRICTIONS,
    work: int | None = None,
    cuts: list | None = None,
) -> list[tuple]:
    """Solve the restrictions of :data:`ROOT_RESTRICTIONS` that hold a drawing ability of
    ``state`` exactly, before ``deadline`` (and, with ``work``, within that many kernel
    lookups in all: a limit that does not depend on the machine); returns those solved (suit sets).
    A restriction the clock stopped before its work limit is appended to ``cuts``. A solve that
    does not finish is dropped (each state it memoised is exact all the same; past the memory
    cap the memo is rebuilt from those that did). Restrictions already in ``solver``'s memo
    cost one lookup, so estimates that share a solver share their roots."""
    abil = state[4]
    solved: list[tuple] = []

    def solve(suits: tuple) -> None:
        counts = restricted(abil, suits)
        for _, child in _children(state, waiting):
            if child[0]:
                solver.decide(*_with(child, counts))

    limit_work = getattr(solver, "limit_work", lambda lookups: None)  # the compiled solver's
    start = getattr(solver, "lookups", 0)
    for suits in restrictions:
        counts = restricted(abil, suits)
        if not (counts[CLUBS] or counts[DIAMONDS]):
            continue
        if suits == (DIAMONDS,) and any(DIAMONDS in s for s in solved):
            continue  # ♦ alone only where ♦♥♠ did not finish
        if any(restricted(abil, done) == counts for done in solved):
            continue  # the same restriction of this position's abilities
        used = getattr(solver, "lookups", 0) - start
        left = None
        if work is not None:
            left = work - used
            if left <= 0:
                break
        if suits in CHEAP_ONLY:  # (the reference solver has no work limit to set)
            cheap = max(CHEAP_FLOOR, used)
            left = cheap if left is None else min(left, cheap)
        limit_work(left)
        try:
            with clock_stops(deadline, solver):
                solve(suits)
            solved.append(suits)
        except MemoryLimitExceeded:  # make room, and rebuild what did finish
            solver.reset()
            limit_work(None)
            for done in solved:
                solve(done)
        except BudgetExceeded as error:  # out of time: what it memoised is exact; not a root
            if cuts is not None and not isinstance(error, WorkLimitExceeded):
                cuts.append(suits)  # the clock's, not the work's (it may stop a doubling early)
        finally:
            limit_work(None)
    return solved
