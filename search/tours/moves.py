"""What now, mid-visit (docs/rules.md §7): :func:`rank_moves` takes a visit as the player sees
it (:func:`visit_position`) and ranks every option open now: each legal answer while a
ruler's card waits, each choice of Commerce's discards once its cards are drawn (R3),
otherwise debating now or each usable ability (Politics once per kingdom it can swap with).

Seen cards. An exact answer needs the cards out of the deck, and which of them may come back:
the discard pile is shuffled into a new deck when the deck runs out (R1), the scoring pile
never is. A player who kept the piles together knows only how many cards were won;
:func:`place_seen` splits such cards, which is exact whenever the deck cannot run out.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..game import Card, CardSet, Ruler, Suit, TourState, legal_answers
from ..infra import wilson_interval
from ..visit import (
    Abilities,
    Budget,
    BudgetExceeded,
    InvalidPositionError,
    Option,
    Position,
    Search,
    clock_stops,
    make_solver,
    paired_difference,
    solve_exact,
)
from .advice import FORCED_SECONDS, MIN_PLAYOUTS, Chance, politics_pool
from .estimates import estimate_options, solve_shared_roots

HOPELESS_HAND = 6
"""Cards in hand from which a search with Military and Commerce both left is hopeless in
seconds (:data:`~search.visit.budget.EXACT_FRACTIONS`)."""

RANKING_ROOTS_SHARE = 0.4
"""The share of an estimated ranking's time spent solving the lookahead policy's restrictions
once, before the options are estimated from them (:func:`solve_shared_roots`)."""


class AmbiguousPilesError(InvalidPositionError):
    """Seen cards that must be told apart, since the deck may run out (R1)."""


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
    hand: CardSet, seen: CardSet, wins: int, abilities: Abilities, waiting: Card | None = None
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
        if make_solver().reshuffle_possible(hand.mask, deck.mask, returns, abilities.counts):
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
    interval: tuple[float, float] | None = None  # the 95% interval of an estimated chance
    versus_best: tuple[float, float] | None = None  # estimates: 95% interval of (this - first)
    proven: bool = False  # chance is a proven lower bound (a restriction's exact chance after it)
    playouts: int = 0  # estimates: the playouts behind the chance (paired: the same deck orders)

    @property
    def estimate(self) -> bool:
        """Whether the chance is a Monte Carlo estimate."""
        return self.interval is not None


@dataclass(frozen=True)
class MoveAdvice:
    """Every option open now, best first, and the chance with best play."""

    kingdom: int
    ruler: Ruler
    position: Position
    chance: Chance
    moves: tuple[Move, ...]
    distribution: tuple[float, ...]
    seconds: float


def rank_moves(
    tour: TourState,
    kingdom: int,
    position: Position,
    jacks_used: Sequence[Suit] = (),
    time_limit: float | None = None,
    budget: Budget | None = None,
) -> MoveAdvice:
    """Every option at ``position``, in a visit to ``kingdom``, ranked best first: the legal
    answers while a ruler's card waits, Commerce's discards while they are due, otherwise
    debating now or each usable ability.

    An ability is lent by its Jack while the Jack is unused, else by a supporter: within the
    visit they are alike, but a used supporter no longer scores (§5). Politics is listed once
    per kingdom it can swap with; kingdoms whose rulers share a suit give the same chance.
    ``budget`` is the ranking's (else ``time_limit`` seconds from now). The exact search gets
    its share of it (:data:`~search.visit.budget.EXACT_FRACTIONS`: less with both drawing
    abilities on a big hand) and the memory cap (:func:`_rank_exactly`); past either, the lookahead policy's
    restrictions are solved once and every option, Commerce's discards too, is estimated in the
    rest (:func:`_rank_by_estimates`), ranked by its estimate or its proven floor
    (:func:`_rank_key`); the first one's stands for the position's chance.
    """
    _check_kingdom(tour, kingdom)
    budget = budget or Budget(time_limit, Search.RANKING)
    if budget.limit is not None and _one_legal_answer(position):
        budget = replace(budget, limit=min(budget.limit, FORCED_SECONDS))  # nothing to rank
    counts = position.abilities.counts
    if counts[Suit.CLUBS] and counts[Suit.DIAMONDS] and len(position.hand) >= HOPELESS_HAND:
        budget = replace(budget, search=Search.HOPELESS)
    try:
        ranked, chance, distribution = _rank_exactly(position, budget)
    except BudgetExceeded:
        ranked, chance, distribution = _rank_by_estimates(position, budget)
    return MoveAdvice(
        kingdom=kingdom,
        ruler=tour.rulers[kingdom - 1],
        position=position,
        chance=chance,
        moves=_ranked(_moves(tour, kingdom, jacks_used, ranked, chance)),
        distribution=distribution,
        seconds=time.perf_counter() - budget.started,
    )


def _rank_exactly(position: Position, budget: Budget) -> tuple[list, Chance, tuple]:
    """Every option's exact chance, the position's and its distribution of wins, within the
    exact search's share of ``budget``; raises BudgetExceeded past it."""
    solver = make_solver()
    try:
        with clock_stops(budget.exact_end(), solver):
            result = solve_exact(solver, position, budget.started)
    except BudgetExceeded:
        solver.reset()  # give its memory to the estimates
        raise
    ranked = [(option, chance, None, None, False, 0) for option, chance in result.options]
    return ranked, Chance.of(result), result.distribution


def _rank_by_estimates(position: Position, budget: Budget) -> tuple[list, Chance, tuple]:
    """Every option's estimate in what is left of ``budget``, each never shown below its proven
    floor, the leader by what is known (:func:`_paired_leader`) standing for the position; the
    lookahead policy's restrictions solved once first (:func:`solve_shared_roots`)."""
    left = 1.0 if budget.limit is None else budget.search_left()
    bound = 0.0
    if not position.discarding and left >= SECOND_PASS_SECONDS:  # the restrictions once
        spent = time.perf_counter()
        bound, _ = solve_shared_roots(position, RANKING_ROOTS_SHARE * left, budget)
        left = max(0.0, left - (time.perf_counter() - spent))
    estimated = [(option, _floored(r)) for option, r in _estimate_leaders(position, left, budget)]
    best = _paired_leader([r for _, r in estimated])
    ranked = [
        (option, r.chance, r.interval, _shown_versus(r, best), _proven(r), r.playouts)
        for option, r in estimated
    ]
    chance = replace(Chance.of(best), floor=max(bound, best.bound))
    # A leader shown at its proven floor: its playouts' wins do not describe the bound it shows.
    return ranked, chance, () if _proven(best) else best.distribution


def _moves(
    tour: TourState, kingdom: int, jacks_used: Sequence[Suit], ranked: list, chance: Chance
) -> list[Move]:
    """The moves of the ranked options: each ability lent by its Jack or a supporter, Politics
    once per kingdom it can swap with."""
    moves: list[Move] = []
    for option, value, interval, versus, proven, playouts in ranked:
        loss = chance.value - value
        common = {
            "interval": interval,
            "versus_best": versus,
            "proven": proven,
            "playouts": playouts,
        }
        if option.kind != "ability":
            moves.append(Move(option, value, loss, **common))
            continue
        source = None if option.suit not in jacks_used else _supporter(tour, option.suit)
        if option.suit is not Suit.SPADES:
            moves.append(Move(option, value, loss, source=source, **common))
            continue
        for target in _swaps(tour, kingdom, option.new_trump):
            moves.append(Move(option, value, loss, source, target, **common))
    return moves


def fewest_playouts_above(moves: Sequence[Move]) -> int | None:
    """The fewest playouts behind an estimate ranked above another option (issue 37: at least
    :data:`~search.tours.advice.MIN_PLAYOUTS`, since thinner ones rank at their proven floor);
    None where no estimate ranks above another."""
    counts = [m.playouts for m in moves[:-1] if m.estimate and not m.proven]
    return min(counts, default=None)


def leader_margin(moves: Sequence[Move]) -> tuple[float, float] | None:
    """The 95% interval of (first option's chance - second's) on the same deck orders, where
    both are estimates of the ranking's paired leader and the runner-up; None otherwise."""
    if len(moves) < 2 or moves[0].versus_best != (0.0, 0.0) or moves[1].versus_best is None:
        return None
    low, high = moves[1].versus_best
    return (-high, -low)


def _one_legal_answer(position: Position) -> bool:
    """Whether a ruler's card waits and the hand has one legal answer to it (§2.3: follow suit
    if you can)."""
    waiting = position.waiting
    return waiting is not None and len(legal_answers(position.hand, waiting)) == 1


def _estimate_leaders(position: Position, seconds: float, budget: Budget) -> list:
    """Every option's estimate (:func:`estimate_options`) in :data:`FIRST_PASS` of ``seconds``;
    then the options the first pass cannot tell from the leader (their paired difference's
    interval reaches 0) share the rest, continuing on new deck orders, so that the leaders
    get the playouts that separate them."""
    started = time.perf_counter()
    estimated = estimate_options(position, FIRST_PASS * seconds, budget)
    if position.discarding:
        return estimated
    best = max(
        estimated, key=lambda pair: _rank_key(pair[1].chance, pair[1].interval, _proven(pair[1]))
    )[1]
    close = [
        (option, result)
        for option, result in estimated
        if result.hits and (result is best or (_versus(result, best) or (0, 0))[1] >= 0)
    ]
    left = seconds - (time.perf_counter() - started)
    if len(close) < 2 or left < SECOND_PASS_SECONDS:
        return estimated
    more = estimate_options(
        position,
        left,
        budget,
        chosen=[option for option, _ in close],
        first=[len(result.hits) for _, result in close],
    )
    merged = {option: _merged(result, extra) for (option, result), (_, extra) in zip(close, more)}
    return [(option, merged.get(option, result)) for option, result in estimated]


SECOND_PASS_SECONDS = 0.5
"""The least time left worth a second pass (each pass starts a process pool)."""
FIRST_PASS = 0.5
"""The share of an estimated ranking's time that every option gets alike (the rest goes to the
options not yet told apart from the leader)."""


def _merged(first, second):
    """One estimate from two runs of playouts of the same option (the second continuing the
    first's deck orders): their hits together, the chance and interval of all of them."""
    hits = first.hits + second.hits
    count = len(hits)
    weights = (first.playouts / count, second.playouts / count)
    width = max(len(first.distribution), len(second.distribution))
    spread = [
        sum(
            w * (d[j] if j < len(d) else 0.0)
            for w, d in zip(weights, (first.distribution, second.distribution))
        )
        for j in range(width)
    ]
    return replace(
        first,
        chance=sum(hits) / count,
        interval=wilson_interval(sum(hits), count),
        playouts=count,
        hits=hits,
        distribution=tuple(spread),
        seconds=first.seconds + second.seconds,
    )


def _proven(result) -> bool:
    """Whether an estimate shows its proven floor (see :func:`_floored`)."""
    few = result.estimate and result.playouts < MIN_PLAYOUTS
    return (result.bound > 0 or few) and (result.bound >= result.chance or few)


def _floored(result):
    """An option's estimate never shown below its proven floor (``bound``: the exact chance of
    the restriction that plays it best): where the floor is at least the estimate, or the
    estimate rests on fewer than :data:`~search.tours.advice.MIN_PLAYOUTS` playouts, the chance
    is the floor and its interval runs from it to 1 (all that is proven)."""
    if _proven(result) or (result.estimate and result.playouts < MIN_PLAYOUTS):
        return replace(result, chance=result.bound, interval=(result.bound, 1.0))
    return result


def _paired_leader(results: list):
    """The option that leads by what is known (:func:`_rank_key`), unless another beats it on
    the same deck orders beyond doubt (their paired difference's 95% interval above 0): then
    that one, and so on, so that no option is surely better than the one shown first."""
    best = max(results, key=lambda r: _rank_key(r.chance, r.interval, _proven(r)))
    for _ in results:
        better = [
            (versus[0], r)
            for r in results
            if r is not best and (versus := _shown_versus(r, best)) is not None and versus[0] > 0
        ]
        if not better:
            break
        best = max(better, key=lambda pair: pair[0])[1]
    return best


def _versus(result, best) -> tuple[float, float] | None:
    """The 95% interval of (this option's chance - the best's), from playouts on the same
    deck orders; None where either has no playouts (e.g. an exact discard that ends the visit)."""
    if result is best:
        return (0.0, 0.0)
    if not result.hits or not best.hits:
        return None
    return paired_difference(result.hits, best.hits)[1]


def _shown_versus(result, best) -> tuple[float, float] | None:
    """:func:`_versus` as the ranking shows it: none where this option or the best shows its
    proven floor, since the paired playouts then do not compare the chances shown."""
    if result is not best and (_proven(result) or _proven(best)):
        return None
    return _versus(result, best)


def _supporter(tour: TourState, suit: Suit) -> Ruler | None:
    return next((r for r in tour.unused_supporters if r.suit == suit), None)


def _swaps(tour: TourState, kingdom: int, suit: Suit) -> list[int]:
    return [
        index + 1
        for index, ruler in enumerate(tour.rulers)
        if ruler is not None and index + 1 != kingdom and ruler.suit == suit
    ]


def _ranked(moves: list[Move]) -> tuple[Move, ...]:
    """Best first (stable: ties keep their order); see :func:`_rank_key`. An estimated
    ranking's leader (its paired difference with itself is 0, :func:`_paired_leader`) comes
    first."""

    def key(move: Move) -> tuple:
        leads = move.versus_best is not None and move.versus_best == (0.0, 0.0) and move.estimate
        return (leads, *_rank_key(move.chance, move.interval, move.proven))

    return tuple(sorted(moves, key=key, reverse=True))


def _rank_key(
    chance: float, interval: tuple[float, float] | None, proven: bool = False
) -> tuple[float, float, float]:
    """Options rank by what is known of them: an exact chance or a proven bound by its value, an
    estimate by the low end of its 95% interval, so that an estimate leads a proven option only
    where its interval lies above it, never on a lucky run of playouts; then by the chance
    shown, and between equals the narrower interval first."""
    width = 0.0 if interval is None else interval[1] - interval[0]
    known = chance if interval is None or proven else interval[0]
    return (known, chance, -width)
