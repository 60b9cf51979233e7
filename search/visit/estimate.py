"""Monte Carlo estimates of a kingdom's chance, and playouts of a solver's own policy.

Used when the exact search runs out of its time budget: the estimate is the
success rate of a *fallback policy* over seeded random deck orders, with a 95%
interval of that rate. The fallbacks (``fallback=``):

- ``"lookahead"`` (:data:`LOOKAHEAD`, the default): the lookahead policy of
  :mod:`.lookahead`, whose chance is at least that of every restriction it solved exactly;
  its estimate is paired with exact play of its base restriction.
- ``"rule"`` (``True``, :data:`RULE`): best play with Diplomacy and Politics; Military when
  more wins are needed than cards remain in hand; Commerce before the first debate when
  the chance without drawing abilities is below one half. Cheap, and a poorer player: the
  lookahead policy's fall-back when its restrictions do not fit, and ``advisor-rule``'s play.
- ``"plain"`` (:data:`PLAIN`): after the first decision, no ability and no search: every
  answer by rule of thumb (the lowest card that wins while wins are wanted, else the lowest
  that loses). Only for the one playout an estimate makes when no other fits in its time.

Each is one particular policy: its success rate never exceeds the optimal chance.
"""

from __future__ import annotations

import time
from dataclasses import replace
from enum import StrEnum

from ..game import Stream, debate_won, iter_bits, legal_answer_mask, military_usable
from ..infra import BudgetExceeded, MemoryLimitExceeded, wilson_interval
from .budget import LOOKUPS_PER_SECOND, clock_stops
from .lookahead import paired_estimate
from .lookahead_runs import lookahead_playouts
from .playout import Playout
from .position import KingdomResult, root_state
from .reference import CLUBS, DIAMONDS, HEARTS, SPADES, KingdomSolver, all_pairs, discard_pairs
from .solvers import make_solver


class Fallback(StrEnum):
    """The policies an estimate plays (see the module docstring)."""

    RULE = "rule"
    PLAIN = "plain"
    LOOKAHEAD = "lookahead"


RULE, PLAIN, LOOKAHEAD = Fallback.RULE, Fallback.PLAIN, Fallback.LOOKAHEAD
PLAYOUTS_PER_SECOND = 80
"""Lookahead playouts (each beside its base) a second of budget buys where work decides
(bench_jacks: about 170 playouts a second, 85 pairs)."""
ROOTS_SHARE = 0.5
"""The share of an estimate's time the lookahead policy may spend solving its restrictions."""


def _mode(fallback: bool | str) -> str | None:
    """The fallback policy named by ``fallback``: None (best play), RULE or PLAIN."""
    if fallback is False or fallback is None:
        return None
    return RULE if fallback is True else fallback


def play_policy(
    solver: KingdomSolver,
    state: tuple,
    need: int,
    stream: Stream,
    waiting: int | None = None,
    fallback: bool | str = True,
    forced: tuple | None = None,
) -> int:
    """Play one visit to its end; returns the wins made.

    With ``fallback`` the drawing abilities follow the rules in the module
    docstring; without it every decision is the solver's optimal one, so the
    playouts sample the very policy whose value the solver reports. ``forced``
    is the first decision, made whatever the policy says: an option label of
    ``KingdomSolver.options`` or, while ``waiting``, ``("answer", card index)``.
    """
    game = Playout(state, stream)
    first = True
    if waiting is not None:
        answer = forced[1] if forced else None
        if answer is None:
            answer = best_answer(solver, game.state(), waiting, need, fallback)
        game.answer(waiting, answer)
        first, forced = False, None
    while game.hand:
        still = need - game.wins
        if forced is not None:
            label, forced = forced, None
        else:
            label = choose_option(solver, game.state(), still, first, fallback)
        first = False
        kind = label[0]
        if kind == "debate":
            card = game.next_card()
            if card is None:
                break  # R2: no debate can be held
            game.answer(card, best_answer(solver, game.state(), card, still, fallback))
            continue
        game.use(label, lambda: best_discard(solver, game.state(), still, fallback))  # noqa: B023 - called now
    return game.wins


def planning_state(state: tuple, fallback: bool | str = True) -> tuple:
    """The state the solver plans with: every ability left, or for a fallback policy those
    it plays by search (the module docstring: the rule's, nothing that draws)."""
    hand, deck, disc, trump, abil, pool = state
    mode = _mode(fallback)
    if mode == RULE:
        abil = (0, 0, abil[HEARTS], abil[SPADES])
    elif mode == PLAIN:
        abil = (0, 0, 0, 0)
    return (hand, deck, disc, trump, abil, pool if abil[SPADES] else ())


def choose_option(
    solver: KingdomSolver, state: tuple, still: int, first: bool, fallback: bool | str = True
) -> tuple:
    """The policy's option at a decision (a label of ``KingdomSolver.options``), ``still``
    wins wanted; ``first``: no debate held yet this visit."""
    hand, deck, disc, _, abil, _ = state
    mode = _mode(fallback)
    plan = planning_state(state, fallback)
    if (
        mode == RULE
        and abil[CLUBS]
        and military_usable(hand, deck, disc)
        and still > hand.bit_count()
    ):
        return ("C",)
    if mode == PLAIN:
        return ("debate",)
    if (
        mode == RULE
        and first
        and abil[DIAMONDS]
        and 0 <= still <= 8
        and solver.worth(still, *plan) < 0.5
    ):
        return ("D",)
    label, best_value = None, None
    for option, value in solver.option_worths(still, *plan):
        if best_value is None or value > best_value:
            label, best_value = option, value
    return label


def best_answer(
    solver: KingdomSolver, state: tuple, card: int, still: int, fallback: bool | str = True
) -> int:
    """The legal answer (a card index) to the revealed ``card`` best for ``still`` wins."""
    hand, deck, disc, trump, abil, pool = planning_state(state, fallback)
    legal = legal_answer_mask(hand, card)
    if _mode(fallback) == PLAIN:
        return _plain_answer(legal, card, still, trump)
    best, best_value = None, None
    for answer in iter_bits(legal):
        won = debate_won(card, answer, trump)
        rest = hand & ~(1 << answer)
        spent = disc | (1 << card) | (0 if won else 1 << answer)
        value = solver.worth(still - won, rest, deck, spent, trump, abil, pool)
        if best_value is None or value > best_value:
            best, best_value = answer, value
    return best


def best_discard(
    solver: KingdomSolver, state: tuple, still: int, fallback: bool | str = True
) -> int:
    """Commerce's two discards (a mask; the whole hand if it holds two or fewer) best for
    ``still`` wins."""
    hand, deck, disc, trump, abil, pool = planning_state(state, fallback)
    if hand.bit_count() <= 2:
        return hand
    if _mode(fallback) == PLAIN:  # the two lowest cards (of the hand's order)
        low = hand & -hand
        return low | ((hand & ~low) & -(hand & ~low))
    if solver.reshuffle_possible(hand, deck, disc, abil):
        pairs = all_pairs(hand)
    else:  # played cards never come back: one pair per class of equivalent pairs
        pairs = discard_pairs(hand, deck | disc)
    best, best_value = None, None
    for pair in pairs:
        value = solver.worth(still, hand & ~pair, deck, disc | pair, trump, abil, pool)
        if best_value is None or value > best_value:
            best, best_value = pair, value
    return best


def _plain_answer(legal: int, card: int, still: int, trump: int) -> int:
    """The plain policy's answer, by rule of thumb, no search: while wins are wanted the
    lowest legal card that wins (else the lowest), once enough are won the lowest that loses."""
    cards = list(iter_bits(legal))  # lowest first within a suit
    wanted = [a for a in cards if debate_won(card, a, trump) == (still > 0)]
    return (wanted or cards)[0]


def estimate_kingdom(
    position,
    seconds: float | None,
    started: float,
    seed: int = 0,
    solver: KingdomSolver | None = None,
    forced: tuple | None = None,
    fallback: str = LOOKAHEAD,
    fixed_work: float | None = None,
    first: int = 0,
):
    """Monte Carlo estimate of ``position``'s chance with a fallback policy: runs for about
    ``seconds`` more (None: a second), never past them but for one playout of the cheapest
    policy when nothing else fits (:data:`PLAIN`). With the lookahead fallback, where its
    restrictions leave no time for a playout, the rule fallback plays instead for the rest
    of it (the result names the policy and its number of playouts).
    ``solver`` plans the choices; pass one to share its memo between estimates. ``forced``:
    the first decision (see :func:`play_policy`); playout i sees the same cards whatever it
    is, so estimates of different first decisions compare with common random numbers.
    With ``fixed_work`` (seconds) the lookahead policy's work is set from it by fixed rates
    (:data:`LOOKUPS_PER_SECOND`, :data:`PLAYOUTS_PER_SECOND`) and ``seconds`` is only a
    backstop: the estimate then repeats on any machine fast enough, and says (``clock_cut``)
    where it does not. ``first``: the index of the first playout (a later call from the count
    of an earlier one continues it on new deck orders)."""
    solver = solver or make_solver()
    state = root_state(position)
    waiting = position.waiting.index if position.waiting is not None else None
    budget = 1.0 if seconds is None else seconds
    budget_end = time.perf_counter() + budget

    def playout(index: int, mode: str) -> int:
        stream = Stream(seed, "playout", first + index)
        return position.wins + play_policy(
            solver, state, position.need, stream, waiting, fallback=mode, forced=forced
        )

    if fallback == LOOKAHEAD:
        work = playouts = None
        if fixed_work is not None:
            work = int(ROOTS_SHARE * fixed_work * LOOKUPS_PER_SECOND)
            playouts = max(1, int((1 - ROOTS_SHARE) * fixed_work * PLAYOUTS_PER_SECOND))
        # with fixed work the clock backstops the restrictions only at the estimate's end
        roots_end = (
            budget_end if fixed_work is not None else time.perf_counter() + ROOTS_SHARE * budget
        )
        run = lookahead_playouts(
            solver,
            state,
            position.need,
            seed,
            budget_end,
            roots_end,
            waiting,
            forced,
            roots_work=work,
            playouts=playouts,
            first=first,
        )
        if run.wins:
            result = _lookahead_result(position, run, started, solver.state_count())
            return replace(result, clock_cut=run.clock_cut or fixed_work is None)
        budget_end = max(budget_end, time.perf_counter())
        # No playout fitted: the rule plays instead, and the base's exact chance stays its floor.
        floor = run.base_value
    else:
        floor = 0.0
    wins = _rule_playouts(solver, playout, budget_end)
    if wins:
        return _timed(
            replace(
                estimate_from_wins(position, wins, started, solver.state_count(), RULE), bound=floor
            )
        )
    # Nothing fitted: an estimate needs a playout, so one of the cheapest policy (its
    # interval, from one playout, says how little it knows).
    result = estimate_from_wins(position, [playout(0, PLAIN)], started, solver.state_count(), PLAIN)
    return _timed(replace(result, bound=floor))


def _timed(result: KingdomResult) -> KingdomResult:
    """A result whose amount of work the clock decided."""
    return replace(result, clock_cut=True)


def _rule_playouts(solver, playout, budget_end: float) -> list[int]:
    """Playouts of the rule fallback until ``budget_end`` (perhaps none). A playout cut off
    by the clock is dropped."""
    wins: list[int] = []
    try:
        with clock_stops(budget_end, solver):
            while time.perf_counter() < budget_end:
                wins.append(playout(len(wins), RULE))
    except BudgetExceeded as error:
        if isinstance(error, MemoryLimitExceeded):
            solver.reset()
    return wins


def estimate_from_wins(
    position, wins: list[int], started: float, states: int = 0, policy: str = RULE
):
    """The estimate (a KingdomResult) from the final wins of a list of playouts of ``policy``."""
    histogram: dict[int, int] = {}
    for total in wins:
        histogram[total] = histogram.get(total, 0) + 1
    playouts = len(wins)
    successes = histogram.get(position.target, 0)
    distribution = tuple(histogram.get(j, 0) / playouts for j in range(max(histogram) + 1))
    return KingdomResult(
        chance=successes / playouts,
        chance_exact=None,
        needs=(),
        best=None,
        options=(),
        distribution=distribution,
        states=states,
        seconds=time.perf_counter() - started,
        estimate=True,
        interval=wilson_interval(successes, playouts),
        playouts=playouts,
        policy=policy,
        hits=tuple(total == position.target for total in wins),
    )


def _lookahead_result(position, run, started: float, states: int) -> KingdomResult:
    """The estimate (a KingdomResult) of the lookahead policy's chance: paired with its base
    (the base's exact chance plus the paired difference, :func:`paired_estimate`) where it
    was, else the plain success rate; ``bound`` is the base's exact chance, a proven lower
    bound on the optimal chance (the base's abilities are a subset of the position's; with a
    forced first decision, the base plays it too)."""
    result = estimate_from_wins(
        position, [position.wins + w for w in run.wins], started, states, LOOKAHEAD
    )
    if not run.pairs:
        return result
    chance, interval = paired_estimate(run.base_value, run.pairs)
    return replace(result, chance=chance, interval=interval, bound=run.base_value)
