"""Hindsight analysis of a seeded deal: blind play, hands known, every card known.

A seeded deal fixes every card that will turn up (:mod:`search.game.deal`): the eight hands, and
for each visit the deck order and every reshuffle, whatever the player does. So a deal can
be played three ways, each knowing more:

- *blind*: the advisor (:class:`~search.tours.planning_policy.PlanningPolicy`) sees one hand at a time;
- *hands known*: :class:`HindsightPolicy` knows the eight hands before the first visit and
  assigns them to kingdoms for the best expected score under the planning chances (a dynamic
  programme over kingdom sets; for the best chance of a perfect tour, the CP-SAT model of
  :mod:`search.tours.assign`), then plays each visit like the advisor;
- *clairvoyant*: every card order is known too, as a double-dummy solver knows the cards
  in bridge. A visit then either can or cannot end on its target: a deterministic search
  over every legal play (:func:`can_hit_target`). The best tour is the longest run of first
  hands that can be matched to distinct kingdoms they can win (CP-SAT again), 2 points a
  kingdom (its pledge and its supporter, never spent).

All three spend only the Jacks, never a supporter, and the clairvoyant bound keeps every
ruler where it lies at the start (Politics inside a visit changes its trump, not the layout
the matching sees). On average blind <= hands known <= clairvoyant; a single deal can go
the other way between the first two, since both still face the cards as they fall.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..game import (
    CardSet,
    Deal,
    Phase,
    Stream,
    Suit,
    TourConfig,
    TourState,
    VisitState,
    apply_action_unchecked,
    apply_chance_unchecked,
    legal_actions,
    start_visit,
    wins_debate,
)
from .assign import AssignObjective, NoAssignmentError, Play, assign
from .planning import QUICK_SETS, Objective, TourPlanner, shipped_uplift
from .planning_policy import PlanningPolicy
from .policies import PolicyName
from .simulate import play_tour

ASSIGN_SECONDS = 10.0
"""CP-SAT's time limit for one plan."""


def planning_plays(
    deal: Deal, tour: TourState, planner: TourPlanner | None = None
) -> dict[Play, float]:
    """The planning chance of every hand of ``deal`` still to come (hand 0 is the next
    visit's) at every unvisited kingdom of ``tour``, with its rulers as they lie now
    (Politics may bring the suit of any other unvisited ruler): from ``planner``'s table,
    calibrated as it is (default: the quick model)."""
    planner = planner or TourPlanner(sets=QUICK_SETS)
    plays = {}
    for index, hand in enumerate(deal.hands()[tour.visits :]):
        for position in tour.unvisited:
            ruler = tour.rulers[position - 1]
            others = frozenset(
                r.suit.value
                for p, r in enumerate(tour.rulers, 1)
                if r is not None and p != position
            )
            target = tour.config.target(position)
            chance = planner.calibrated_chance(
                planner.table.chance(hand, ruler.suit.value, others)[target], target
            )
            plays[Play(index, position, ruler)] = min(
                1.0, max(float(chance), 1e-9)
            )  # 0 would forbid it; sums may round past 1
    return plays


def best_expected_score(plays: dict[Play, float], visits: int) -> dict[int, int]:
    """The plan (visit -> kingdom) with the highest expected score, 2 points a kingdom won
    before the first miss: a dynamic programme over the sets of kingdoms still to visit."""
    positions = sorted({play.position for play in plays})
    chance = {(play.hand, play.position): c for play, c in plays.items()}
    best: dict[frozenset, tuple[float, int | None]] = {}

    def value(left: frozenset) -> float:
        if left in best:
            return best[left][0]
        visit = len(positions) - len(left)
        result = (0.0, None)
        if visit < visits:
            for position in sorted(left):
                worth = chance[visit, position] * (2 + value(left - {position}))
                if result[1] is None or worth > result[0]:
                    result = (worth, position)
        best[left] = result
        return result[0]

    left, plan = frozenset(positions), {}
    value(left)
    for visit in range(min(visits, len(positions))):
        plan[visit] = best[left][1]
        left = left - {plan[visit]}
    return plan


class HindsightPolicy(PlanningPolicy):
    """The advisor's play, with the kingdoms planned once all eight hands are known: for the
    best expected score (a dynamic programme), or with ``objective="perfect"`` for the best
    chance of a perfect tour (the CP-SAT model of :mod:`search.tours.assign`)."""

    def __init__(
        self,
        planner: TourPlanner | None = None,
        objective: Objective | str = Objective.SCORE,
        lookahead: bool = False,
    ) -> None:
        """``planner``: the chances the plan is made from (default: the quick model, see
        :func:`planning_plays`); ``lookahead``: the visits played as ``advisor`` plays them,
        else as ``advisor-rule`` does."""
        super().__init__(planner or TourPlanner(sets=QUICK_SETS), lookahead=lookahead)
        self.objective = objective = Objective(objective)
        self.name = (
            PolicyName.HINDSIGHT if objective is Objective.SCORE else PolicyName.HINDSIGHT_PERFECT
        )
        self.plan: dict[int, int] = {}
        self.deal: Deal | None = None

    def start_tour(self, deal: Deal) -> None:
        """Remember the deal: its hands are known from the start."""
        self.deal = deal
        self.plan = self.plan_from(deal.tour())

    def plan_from(self, tour: TourState) -> dict[int, int]:
        """The plan for the hands still to come (0: the next visit) from ``tour`` as it
        stands: rulers moved by Politics are where they lie now."""
        plays = planning_plays(self.deal, tour, self.planner)
        visits = len(self.deal.hands()) - tour.visits
        if self.objective is Objective.SCORE:
            return best_expected_score(plays, visits)
        kingdoms = {p: tour.rulers[p - 1] for p in tour.unvisited}
        hands = self.deal.hands()[tour.visits :]
        return assign(
            hands, kingdoms, plays, AssignObjective.PERFECT, time_limit=ASSIGN_SECONDS
        ).kingdoms

    def choose_kingdom(self, tour: TourState, hand: CardSet, rng: Stream) -> int:
        """The first kingdom of the plan made again now, for the hands still to come."""
        self.reset_visit()
        if tour.visits:
            self.plan = self.plan_from(tour)
        return self.plan[0]


def can_hit_target(deal: Deal, visit_number: int, tour: TourState, position: int) -> bool:
    """Whether visit ``visit_number`` of ``deal``, at kingdom ``position``, can end with
    exactly its target when every card to come is known (Jacks only)."""
    visit = start_visit(tour, deal.hand(visit_number), position)
    visit = _without_supporters(visit)
    order = deal.visit_order(visit_number)[8:]
    return _search(visit, deal.seed, visit_number, (0, tuple(order)), {})


def _without_supporters(visit: VisitState) -> VisitState:
    from dataclasses import replace

    return replace(visit, supporters=())


def _search(visit: VisitState, seed: int, number: int, order: tuple, memo: dict) -> bool:
    """Depth-first over the player's choices; chance steps turn up the known top card."""
    if visit.over:
        return visit.wins == visit.target
    if visit.wins > visit.target or visit.wins + _most_cards_to_play(visit) < visit.target:
        return False
    key = _key(visit, order)
    known = memo.get(key)
    if known is not None:
        return known
    if visit.is_chance:
        count, cards = order
        if visit.reshuffles != count:  # R1: the refilled deck has its own seeded order
            count = visit.reshuffles
            cards = tuple(Stream(seed, "reshuffle", number, count).shuffle(list(visit.deck)))
        card = next(c for c in cards if c in visit.deck)
        found = _search(apply_chance_unchecked(visit, card), seed, number, (count, cards), memo)
    else:
        found = any(
            _search(apply_action_unchecked(visit, action), seed, number, order, memo)
            for action in _ordered(visit, legal_actions(visit))
        )
    memo[key] = found
    return found


def _key(visit: VisitState, order: tuple) -> tuple:
    """What decides the rest of the visit: not the history (abilities used, which cards
    won), since won cards never come back (R1)."""
    return (
        visit.hand.mask,
        visit.deck.mask,
        visit.discard.mask,
        visit.wins,
        visit.waiting,
        visit.phase,
        visit.jacks,
        visit.trump,
        visit.rulers,
        visit.pending_draws,
        visit.commerce_pending,
        visit.reshuffles,
        order[0] and order[1],
    )


def _most_cards_to_play(visit: VisitState) -> int:
    """A bound on the debates still to answer: the hand, a waiting card's answer, and what
    Military could still draw (the clubs held, plus two Commerce could bring)."""
    cards = len(visit.hand) + visit.pending_draws
    if Suit.CLUBS in visit.jacks:
        cards += len(visit.hand.of_suit(Suit.CLUBS)) + visit.pending_draws
        cards += 2 * (Suit.DIAMONDS in visit.jacks)
    return cards


def _ordered(visit: VisitState, actions: list) -> list:
    """Likely plays first: while wins are needed, winning answers; after, losing ones."""
    if visit.phase is not Phase.ANSWER:
        return actions
    need = visit.wins < visit.target
    return sorted(actions, key=lambda a: wins_debate(visit.waiting, a.card, visit.trump) != need)


@dataclass(frozen=True)
class DealAnalysis:
    """One deal three ways: the scores, and each plan's kingdoms in visit order."""

    seed: int
    blind: int
    blind_kingdoms: tuple[int, ...]
    known: int
    known_kingdoms: tuple[int, ...]
    clairvoyant: int
    clairvoyant_kingdoms: tuple[int, ...]
    winnable: tuple[tuple[int, ...], ...]  # per hand: the kingdoms it can win, all cards known
    play: str = "advisor"  # how blind and hands known played (PLAYS)


def play_deal(deal: Deal, policy: PlanningPolicy) -> tuple[int, tuple[int, ...]]:
    """The policy's score on ``deal`` and the kingdoms it visited, in order."""
    visited: list[int] = []
    final = play_tour(deal, policy, Stream(deal.seed, "policy"), visited)
    return final.score, tuple(visited)


def clairvoyant_tour(deal: Deal) -> tuple[int, tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The best score knowing every card (2 points a kingdom won before the first miss), the
    kingdoms of that plan, and for each hand the kingdoms it can win."""
    tour = deal.tour()
    winnable = tuple(
        tuple(p for p in tour.unvisited if can_hit_target(deal, number, tour, p))
        for number in range(1, tour.config.kingdoms + 1)
    )
    kingdoms = {p: tour.rulers[p - 1] for p in tour.unvisited}
    for visits in range(len(winnable), 0, -1):  # the longest run of first hands that fits
        plays = {Play(t, p, kingdoms[p]): 1.0 for t in range(visits) for p in winnable[t]}
        try:
            plan = assign(
                deal.hands()[:visits], kingdoms, plays, "all_won", time_limit=ASSIGN_SECONDS
            )
        except NoAssignmentError:
            continue
        return 2 * visits, tuple(plan.kingdoms[t] for t in range(visits)), winnable
    return 0, (), winnable


PLAYS = ("advisor", "rule")
"""How :func:`analyse_deal` plays a visit: as the ``advisor`` policy (the lookahead play of every
Jack, the calibrated full planning model) or as ``advisor-rule`` (the rule of thumb, the quick
model)."""


def analysis_policies(play: str) -> tuple[PlanningPolicy, HindsightPolicy]:
    """The blind and the hands-known players of ``play`` (one of :data:`PLAYS`)."""
    if play not in PLAYS:
        raise ValueError(f"unknown play {play!r}: choose one of {', '.join(PLAYS)}")
    if play == "advisor":
        blind = PlanningPolicy(lookahead=True)  # the advisor: planning.advisor_planner
        return blind, HindsightPolicy(TourPlanner(uplift=shipped_uplift()), lookahead=True)
    return PlanningPolicy(TourPlanner(sets=QUICK_SETS)), HindsightPolicy()


def analyse_deal(
    seed: int, config: TourConfig = TourConfig(), play: str = "advisor"
) -> DealAnalysis:
    """Blind play, hands known and the clairvoyant bound for the deal ``seed``, blind and
    hands known played and planned alike (``play``, one of :data:`PLAYS`)."""
    deal = Deal(seed, config)
    blind_policy, known_policy = analysis_policies(play)
    blind, blind_kingdoms = play_deal(deal, blind_policy)
    known, known_kingdoms = play_deal(deal, known_policy)
    best, best_kingdoms, winnable = clairvoyant_tour(deal)
    return DealAnalysis(
        seed, blind, blind_kingdoms, known, known_kingdoms, best, best_kingdoms, winnable, play
    )
