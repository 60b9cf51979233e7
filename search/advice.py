"""Advice from a tour under way: which kingdom to visit, and what to do mid-visit (RULINGS.md §7).

Which kingdom. :func:`advise_visit` takes the tour between visits and the cards just drawn
and gives every unvisited kingdom's chance of hitting its target under seven ability sets
(:data:`COLUMNS`): none, each Jack alone, all four Jacks, and all Jacks with the unused
supporters. It recommends the kingdom with the best chance when every ability is available.
That looks at this visit only: what a choice leaves for the later visits is tour planning.

Solves are shared. A solve gives the chance of every target at once (its vector over wins
still needed), and a kingdom's Politics pool is the suits of the *other* unvisited rulers,
the same for two kingdoms whose rulers share a suit (K♣ and Q♣). So one solver serves every
kingdom with the same trump, ability counts and pool, and keeps its memo for all of them.
Past the time limit an exact solve gives way to a Monte Carlo estimate (flagged, with a 95%
interval, see :mod:`search.montecarlo`); the other kingdoms that solve serves are then
estimated directly rather than searched again.

What now. :func:`rank_moves` takes a visit as the player sees it (:func:`visit_position`)
and ranks every option open now: each legal answer while a ruler's card waits, each choice of
Commerce's discards once its cards are drawn (R3), otherwise debating now or each usable
ability (Politics once per kingdom it can swap with).

Seen cards. An exact answer needs the cards out of the deck, and which of them may come back:
the discard pile is shuffled into a new deck when the deck runs out (R1), the scoring pile
never is. A player who kept the piles together knows only how many cards were won;
:func:`place_seen` splits such cards, which is exact whenever the deck cannot run out.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .cards import Card, CardSet, Ruler, Suit
from .kingdom import Abilities, KingdomSolver, TimeLimitExceeded
from .montecarlo import estimate_kingdom
from .odds import (
    InvalidPositionError,
    KingdomResult,
    Option,
    Position,
    make_position,
    make_solver,
    root_options,
    solve_kingdom,
)
from .tour import TourState

COLUMNS = ("none", "H", "C", "S", "D", "jacks", "all")
"""The ability sets of :func:`advise_visit`: none, each Jack alone (by suit letter), all four
Jacks, and all Jacks with the unused supporters."""

# Cheap ability sets first, so that early progress is quick. "all" before "jacks": with no
# unused supporter they are one solve, and "all" needs the full result (its distribution).
_ORDER = ("none", "H", "S", "C", "D", "all", "jacks")

_ALL_JACKS = (1, 1, 1, 1)

Progress = Callable[[int, int, str, int], None]
"""Called as ``progress(done, total, column, position)`` before each step and once at the end."""


class AmbiguousPilesError(InvalidPositionError):
    """Seen cards that must be told apart, since the deck may run out (R1)."""


@dataclass(frozen=True)
class Chance:
    """A chance, exact or a Monte Carlo estimate with its 95% interval."""

    value: float
    estimate: bool = False
    interval: tuple[float, float] | None = None
    playouts: int = 0

    @classmethod
    def of(cls, result: KingdomResult) -> Chance:
        """The chance a solve reports."""
        return cls(result.chance, result.estimate, result.interval, result.playouts)


@dataclass(frozen=True)
class KingdomAdvice:
    """One unvisited kingdom: its chance under each ability set of :data:`COLUMNS`."""

    position: int
    ruler: Ruler
    target: int
    chances: tuple[Chance, ...]  # in the order of COLUMNS
    distribution: tuple[float, ...]  # P(wins = j) under best play with every ability

    @property
    def trump(self) -> Suit:
        """The ruler's suit."""
        return self.ruler.suit

    def chance(self, column: str) -> Chance:
        """The chance under one ability set, named as in :data:`COLUMNS`."""
        return self.chances[COLUMNS.index(column)]


@dataclass(frozen=True)
class VisitAdvice:
    """Every unvisited kingdom, left to right, and the one with the best chance with every
    ability."""

    hand: CardSet
    kingdoms: tuple[KingdomAdvice, ...]
    recommended: KingdomAdvice
    solves: int  # exact solves run (each serves every kingdom of its trump)
    estimates: int  # Monte Carlo estimates run
    seconds: float


@dataclass
class _Solve:
    """One solver for a (trump, abilities, pool), with what it has found."""

    solver: KingdomSolver | None  # None once no later query can use its memo
    needs: tuple[float, ...] | None = None
    timed_out: bool = False
    results: dict[int, KingdomResult] = field(default_factory=dict)  # by target


def column_abilities(
    column: str, unused: Sequence[Ruler]
) -> tuple[tuple[Suit, ...], tuple[Suit, ...]]:
    """The Jacks and supporter suits of one ability set of :data:`COLUMNS`."""
    if column == "none":
        return (), ()
    if column == "jacks":
        return tuple(Suit), ()
    if column == "all":
        return tuple(Suit), tuple(r.suit for r in unused)
    return (Suit.from_letter(column),), ()


def politics_pool(tour: TourState, position: int) -> tuple[Suit, ...]:
    """The suits Politics may bring to kingdom ``position``: the other unvisited rulers'."""
    return tuple(
        ruler.suit
        for index, ruler in enumerate(tour.rulers)
        if ruler is not None and index + 1 != position
    )


def advise_visit(
    tour: TourState,
    hand: CardSet,
    time_limit: float | None = None,
    progress: Progress | None = None,
) -> VisitAdvice:
    """Each unvisited kingdom's chance with ``hand`` under every ability set, and the best.

    ``time_limit`` bounds each exact solve, and each estimate that replaces one, in seconds.
    """
    started = time.perf_counter()
    if tour.over:
        raise InvalidPositionError("the tour is over: no kingdom is left to visit")
    positions = tour.unvisited
    unused = tour.unused_supporters
    solves: dict[tuple, _Solve] = {}
    cells: dict[tuple[str, int], Chance] = {}
    distributions: dict[int, tuple[float, ...]] = {}
    counts = {"solves": 0, "estimates": 0}
    total = len(_ORDER) * len(positions)
    done = 0
    for column in _ORDER:
        jacks, supporters = column_abilities(column, unused)
        used_here = set()
        for position in positions:
            if progress:
                progress(done, total, column, position)
            ruler = tour.rulers[position - 1]
            state = make_position(
                hand,
                ruler.suit,
                tour.config.target(position),
                jacks=jacks,
                supporters=supporters,
                pool=politics_pool(tour, position),
            )
            key = _solve_key(state)
            used_here.add(key)
            solve = solves.get(key)
            if solve is None:
                solve = solves[key] = _Solve(make_solver())
            if column == "all":
                result = _full_result(solve, state, time_limit, counts)
                cells[column, position] = Chance.of(result)
                distributions[position] = result.distribution
            else:
                cells[column, position] = _chance(solve, state, time_limit, counts)
            done += 1
        for key in used_here:
            # Done with its memo, the results stay; only "jacks" can share a solve of another
            # column: that of "all" when no supporter is unused (the same ability counts).
            if column != "all" or key[1] != _ALL_JACKS:
                solves[key].solver = None
    if progress:
        progress(total, total, "", 0)
    kingdoms = tuple(
        KingdomAdvice(
            position=p,
            ruler=tour.rulers[p - 1],
            target=tour.config.target(p),
            chances=tuple(cells[c, p] for c in COLUMNS),
            distribution=distributions[p],
        )
        for p in positions
    )
    best = kingdoms[0]
    for kingdom in kingdoms[1:]:  # ties go to the leftmost kingdom
        if kingdom.chance("all").value > best.chance("all").value:
            best = kingdom
    return VisitAdvice(
        hand=hand,
        kingdoms=kingdoms,
        recommended=best,
        solves=counts["solves"],
        estimates=counts["estimates"],
        seconds=time.perf_counter() - started,
    )


def _solve_key(position: Position) -> tuple:
    abilities = position.abilities
    pool = abilities.pool if abilities.counts[Suit.SPADES] else ()
    return (position.trump, abilities.counts, pool)


def _estimate(
    solve: _Solve, position: Position, time_limit: float | None, counts: dict
) -> KingdomResult:
    counts["estimates"] += 1
    result = estimate_kingdom(position, seconds=time_limit, started=time.perf_counter())
    solve.results[position.target] = result
    return result


def _full_result(
    solve: _Solve, position: Position, time_limit: float | None, counts: dict
) -> KingdomResult:
    """The solve's full result for this target (chance, options, distribution)."""
    known = solve.results.get(position.target)
    if known is not None:
        return known
    if solve.timed_out:
        return _estimate(solve, position, time_limit, counts)
    if solve.needs is None:
        counts["solves"] += 1
    result = solve_kingdom(position, time_limit=time_limit, solver=solve.solver)
    if result.estimate:
        solve.timed_out, solve.solver = True, None  # never searched again: free its memo
        counts["estimates"] += 1
    else:
        solve.needs = result.needs
    solve.results[position.target] = result
    return result


def _chance(solve: _Solve, position: Position, time_limit: float | None, counts: dict) -> Chance:
    """The chance for this target, from the solve's vector over targets when there is one."""
    known = solve.results.get(position.target)
    if known is not None:
        return Chance.of(known)
    if solve.needs is None and not solve.timed_out:
        counts["solves"] += 1
        solve.needs = _needs(solve.solver or make_solver(), position, time_limit)
        if solve.needs is None:
            solve.timed_out, solve.solver = True, None  # never searched again: free its memo
    if solve.needs is not None:
        return Chance(solve.needs[position.need])
    return Chance.of(_estimate(solve, position, time_limit, counts))


def _needs(solver: KingdomSolver, position: Position, time_limit: float | None) -> tuple | None:
    """The chance of exactly j more wins for j = 0..8 (as solve_kingdom's ``needs``), or None
    past the time limit. Unlike solve_kingdom it skips the wins distribution."""
    solver.deadline = time.perf_counter() + time_limit if time_limit is not None else None
    try:
        vectors = [value for _, value, _ in root_options(solver, position)]
    except TimeLimitExceeded:
        return None
    finally:
        solver.deadline = None
    needs = tuple(map(max, *vectors)) if len(vectors) > 1 else vectors[0]
    return tuple(float(v) for v in needs)


# --- mid-visit -----------------------------------------------------------------------------


def visit_abilities(tour: TourState, kingdom: int, jacks_used: Sequence[Suit] = ()) -> Abilities:
    """The abilities left in a visit to ``kingdom``: Jacks not yet used this visit, unused
    supporters, and the other unvisited rulers' suits for Politics."""
    _check_kingdom(tour, kingdom)
    if len(set(jacks_used)) != len(jacks_used):
        raise InvalidPositionError("each Jack can be used once a visit: a suit is listed twice")
    jacks = [s for s in Suit if s not in jacks_used]
    supporters = [r.suit for r in tour.unused_supporters]
    return Abilities.of(jacks, supporters, politics_pool(tour, kingdom))


def _check_kingdom(tour: TourState, kingdom: int) -> None:
    if kingdom not in tour.unvisited:
        left = ", ".join(map(str, tour.unvisited))
        raise InvalidPositionError(f"kingdom {kingdom} is not being visited: unvisited are {left}")


def visit_position(
    tour: TourState,
    kingdom: int,
    hand: CardSet,
    discard: CardSet = CardSet(),
    scoring: CardSet = CardSet(),
    waiting: Card | None = None,
    jacks_used: Sequence[Suit] = (),
    discarding: bool = False,
) -> Position:
    """The visit to ``kingdom`` as the player sees it, with the ruler lying there now (after
    any Politics swap) as trump; ``discarding`` once Commerce has drawn (R3); checked."""
    abilities = visit_abilities(tour, kingdom, jacks_used)
    ruler = tour.rulers[kingdom - 1]
    position = Position(
        hand=hand,
        trump=ruler.suit,
        target=tour.config.target(kingdom),
        abilities=abilities,
        discard=discard,
        scoring=scoring,
        waiting=waiting,
        discarding=discarding,
    )
    position.validate()
    return position


def place_seen(
    hand: CardSet,
    seen: CardSet,
    wins: int,
    abilities: Abilities,
    waiting: Card | None = None,
) -> tuple[CardSet, CardSet]:
    """Split cards seen in the discard and scoring piles together into (discard, scoring).

    Only how many were won is known. Which ones matters only if the deck can run out before
    the visit ends, since the discard pile then comes back and the scoring pile does not
    (R1). The won cards are taken from the non-clubs first, which leaves the most clubs to
    come back, the widest case of the solver's test; if even so the deck cannot run out, any
    split gives the same answer. Otherwise :class:`AmbiguousPilesError`.
    """
    if hand & seen:
        raise InvalidPositionError(
            f"{(hand & seen).ascii()} cannot be both in your hand and among the seen cards"
        )
    if waiting is not None and waiting in seen:
        raise InvalidPositionError(f"the waiting card {waiting.ascii()} is among the seen cards")
    if not 0 <= wins <= len(seen):
        cards = "card" if len(seen) == 1 else "cards"
        raise InvalidPositionError(
            f"{wins} debates won but {len(seen)} {cards} seen: each winning card lies in the "
            "scoring pile"
        )
    ordered = sorted(seen, key=lambda card: (card.suit is Suit.CLUBS, card.index))
    scoring = CardSet(ordered[:wins])
    discard = seen - scoring
    if 0 < wins < len(seen):
        waiting_set = CardSet([waiting]) if waiting else CardSet()
        deck = CardSet.full() - hand - seen - waiting_set
        returns = (discard | waiting_set).mask
        if make_solver()._reshuffle_possible(hand.mask, deck.mask, returns, abilities.counts):
            raise AmbiguousPilesError(
                "the deck may run out before the visit ends, and then the discard pile comes "
                "back but won cards do not (R1): the two piles must be given apart"
            )
    return discard, scoring


@dataclass(frozen=True)
class Move:
    """One option open now, with its chance and its loss against the best option."""

    option: Option  # kind "debate", "answer", "ability" or "discard"
    chance: float
    loss: float
    source: Ruler | None = None  # the supporter lending the ability; None: the Jack (or none)
    swap_with: int | None = None  # Politics: the kingdom whose ruler comes here


@dataclass(frozen=True)
class MoveAdvice:
    """Every option open now, best first, and the chance with best play."""

    kingdom: int
    ruler: Ruler
    position: Position
    chance: Chance
    moves: tuple[Move, ...]  # empty when the chance is an estimate
    distribution: tuple[float, ...]
    seconds: float


def rank_moves(
    tour: TourState,
    kingdom: int,
    position: Position,
    jacks_used: Sequence[Suit] = (),
    time_limit: float | None = None,
) -> MoveAdvice:
    """Every option at ``position``, in a visit to ``kingdom``, ranked best first: the legal
    answers while a ruler's card waits, Commerce's discards while they are due, otherwise
    debating now or each usable ability.

    An ability is lent by its Jack while the Jack is unused, else by a supporter: within the
    visit they are alike, but a used supporter no longer scores (§5). Politics is listed once
    per kingdom it can swap with; kingdoms whose rulers share a suit give the same chance.
    Commerce's discards are solved exactly whatever ``time_limit``: the Monte Carlo fallback
    does not model a pending discard.
    """
    _check_kingdom(tour, kingdom)
    if position.discarding:
        time_limit = None
    result = solve_kingdom(position, time_limit=time_limit)
    moves: list[Move] = []
    if not result.estimate:
        for option, chance in result.options:
            loss = result.chance - chance
            if option.kind != "ability":
                moves.append(Move(option, chance, loss))
                continue
            source = None if option.suit not in jacks_used else _supporter(tour, option.suit)
            if option.suit is not Suit.SPADES:
                moves.append(Move(option, chance, loss, source=source))
                continue
            for target in _swaps(tour, kingdom, option.new_trump):
                moves.append(Move(option, chance, loss, source=source, swap_with=target))
    return MoveAdvice(
        kingdom=kingdom,
        ruler=tour.rulers[kingdom - 1],
        position=position,
        chance=Chance.of(result),
        moves=_ranked(moves),
        distribution=result.distribution,
        seconds=result.seconds,
    )


def _supporter(tour: TourState, suit: Suit) -> Ruler | None:
    return next((r for r in tour.unused_supporters if r.suit == suit), None)


def _swaps(tour: TourState, kingdom: int, suit: Suit) -> list[int]:
    return [
        index + 1
        for index, ruler in enumerate(tour.rulers)
        if ruler is not None and index + 1 != kingdom and ruler.suit == suit
    ]


def _ranked(moves: list[Move]) -> tuple[Move, ...]:
    return tuple(sorted(moves, key=lambda move: -move.chance))  # stable: ties keep their order
