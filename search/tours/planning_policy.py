"""The advisor's play of a whole tour (the ``advisor``, ``advisor-rule`` and ``advisor-spend``
policies).

:class:`PlanningPolicy` takes the kingdom with the best tour value for the hand drawn
(:mod:`search.tours.planning`), then plays the visit with the Jacks: by the lookahead policy
of :mod:`search.visit.lookahead` (``advisor``, as ``advise`` and the coach play), its
restrictions solved within a budget of kernel lookups so that a seed's tours repeat on any
machine; or by the rule-of-thumb fallback policy of :mod:`search.visit.estimate`
(``advisor-rule``, ``advisor-spend``: about 20 times faster, the baseline of big tables).
"""

from __future__ import annotations

from ..game import (
    CARDS,
    Answer,
    CardSet,
    Debate,
    Discard,
    Phase,
    Stream,
    Suit,
    TourState,
    UseAbility,
    VisitState,
)
from ..visit import (
    LookaheadPolicy,
    Playout,
    action_of_label,
    best_answer,
    best_discard,
    choose_option,
    make_solver,
    needs_whole_memo,
    solve_roots,
)
from .planning import HAND_LIMIT, WIN_POINTS, TourPlanner, advisor_planner
from .policies import PolicyName
from .supporters import BudgetedPayoffSolver, payoff_action, payoffs_for

TOUR_RESTRICTIONS = ((1, 2, 3), (0,))
"""The lookahead policy's restrictions in a simulated tour: ♦♥♠ and ♣ alone."""
TOUR_WORK = 100_000_000
"""Kernel lookups the restrictions may take in all in a simulated tour (about 5-10 s on this
machine); one past them is left out, the same on any machine."""


class PlanningPolicy:
    """Plays by the tour planner: the kingdom with the best tour value for the hand drawn,
    then, with ``lookahead``, the lookahead policy, or else the fallback policy
    (:mod:`search.visit.estimate`), with the Jacks, never spending a supporter. With
    ``spend_supporters`` (the ``advisor-spend`` policy), late in a visit
    (:mod:`search.tours.supporters`) it plays for the expected payoff with the supporters too,
    spending one only where it is worth its point."""

    name = PolicyName.ADVISOR

    def __init__(
        self,
        planner: TourPlanner | None = None,
        spend_supporters: bool = False,
        lookahead: bool = False,
    ) -> None:
        self.planner = planner or advisor_planner()
        self.spend_supporters = spend_supporters
        self.lookahead = lookahead
        self._policy: LookaheadPolicy | None = None
        self._solver = None
        self._first = True
        self._payoffs: tuple[float, float] = (0.0, 0.0)
        self._payoff_solver = None
        self._spend: int | None = None  # the suit of the supporter the visit counts on

    def reset_visit(self) -> None:
        """Forget the last visit: each visit plays from a fresh memo, so its choices depend
        on it alone."""
        self._first = True
        self._solver = None
        self._payoff_solver = None
        self._policy = None

    def choose_kingdom(self, tour: TourState, hand: CardSet, rng: Stream) -> int:
        choices = self.planner.after_choice(tour, hand, prune=True)
        self.reset_visit()
        position = max(tour.unvisited, key=lambda p: (choices[p][1].value, -p))
        self.chosen_chance = choices[position][0]  # the planning chance it chose by (calibration)
        self._spend = choices[position][1].spend
        kingdoms = self.planner.kingdoms_of(tour)
        index = tour.unvisited.index(position)
        rest = self.planner.value(kingdoms[:index] + kingdoms[index + 1 :]).value
        self._payoffs = (tour.score + WIN_POINTS + rest, float(tour.score))  # success, failure
        return position

    def choose_action(self, visit: VisitState, actions: list, rng: Stream):
        action = self._plain_action(visit, actions)
        drawing = isinstance(action, UseAbility) and action.suit in (Suit.CLUBS, Suit.DIAMONDS)
        if (
            self.spend_supporters
            and visit.supporters
            and len(visit.hand) <= HAND_LIMIT
            and not drawing
        ):
            if self._payoff_solver is None:
                self._payoff_solver = BudgetedPayoffSolver(payoffs_for(*self._payoffs, visit))
            better = payoff_action(self._payoff_solver, visit)
            if better is not None and better in actions:
                action = better
        if isinstance(action, Debate):
            self._first = False
        return action

    def _plain_action(self, visit: VisitState, actions: list):
        """The fallback policy's action with the Jacks (:mod:`search.visit.estimate`)."""
        state = _jack_state(visit, self._spend)
        solver = self._solver_now(state)
        still = visit.target - visit.wins
        if self.lookahead:
            return self._lookahead_action(visit, actions, solver, state, still)
        if visit.phase is Phase.ANSWER:
            index = best_answer(solver, state, visit.waiting.index, still)
            return Answer(CARDS[index])
        if visit.phase is Phase.DISCARD:
            return Discard(CardSet(best_discard(solver, state, still)))
        action = action_of_label(visit, choose_option(solver, state, still, self._first))
        return action if action in actions else Debate()

    def _lookahead_action(self, visit: VisitState, actions: list, solver, state: tuple, still: int):
        """The lookahead policy's action with the Jacks (:mod:`search.visit.lookahead`)."""
        board = Playout.at(state, visit.wins)
        if self._policy is None:  # the visit's first decision: solve its restrictions
            waiting = visit.waiting.index if visit.phase is Phase.ANSWER else None
            roots = solve_roots(solver, state, waiting, None, TOUR_RESTRICTIONS, TOUR_WORK)
            self._policy = LookaheadPolicy(solver, roots, seed=visit.position)
            self._policy.start(state, still, waiting)
        policy = self._policy
        if visit.phase is Phase.ANSWER:
            return Answer(CARDS[policy.answer(board, visit.waiting.index, still)])
        if visit.phase is Phase.DISCARD:
            return Discard(CardSet(policy.discard(board, still)))
        action = action_of_label(visit, policy.option(board, still))
        return action if action in actions else Debate()

    def _solver_now(self, state: tuple):
        """The visit's solver, made at its first decision (sized for the hand then)."""
        if self._solver is None:
            self._solver = make_solver(whole_hand=needs_whole_memo(state[0].bit_count(), state[4]))
        return self._solver


def _jack_state(visit: VisitState, spend: int | None = None) -> tuple:
    """The visit as card masks with the Jacks still face up, and the supporter of suit
    ``spend`` while it is unused (the others left out). The engine lends a Jack before a
    supporter (:func:`~search.visit.action_of_label`), so the point goes only on a second use."""
    backer = spend is not None and any(ruler.suit.value == spend for ruler in visit.supporters)
    abil = tuple(int(Suit(s) in visit.jacks) + int(backer and s == spend) for s in range(4))
    pool = tuple(
        sorted(
            ruler.suit.value
            for p, ruler in enumerate(visit.rulers, 1)
            if ruler is not None and p != visit.position
        )
    )
    return (
        visit.hand.mask,
        visit.deck.mask,
        visit.discard.mask,
        int(visit.trump),
        abil,
        pool if abil[3] else (),
    )
