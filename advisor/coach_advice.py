"""The coach's advice, once a position: computed the first time the tour reaches it (after
loading the compiled search), shown, kept for a typo, 'help', 'state' or an undo back to it,
and saved with the play chosen (:attr:`Advised.record`)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape

from search.firstedition import VisitSearch, advise_first_edition, net_losses, rank_first_edition
from search.game import (
    Answer,
    Debate,
    Discard,
    Suit,
    UseAbility,
    VisitState,
    legal_actions,
    supporters_spent,
)
from search.tours import (
    Column,
    advise_visit,
    fewest_playouts_above,
    free_first,
    leader_margin,
    rank_moves,
    score_best_action,
    visit_stake,
)
from search.visit import Budget, Memos, Search, position_from_visit

from . import advice_tables, firstedition_views, move_tables, tables
from .notation import ruler_str
from .plays import default_play, describe
from .session import Session
from .warmup import load_kernels

WARM_UP = "Loading the compiled search (the first run after install compiles it: about a minute)..."


@dataclass
class Advised:
    """Advice computed for one position, kept for it: what to show, the default, and the
    advice a chosen play is saved with (``record(choice)``)."""

    view: object
    default: str
    record: Callable[[object], dict]
    lines: tuple[str, ...] = ()


class Adviser:
    """The advice at each position of one coached tour, computed once and kept."""

    def __init__(self, console: Console, time_limit: float = 5.0, ascii: bool = False) -> None:
        self.console = console
        self.time_limit = time_limit
        self.ascii = ascii
        self._advised: dict[str, Advised] = {}  # advice by position: computed once, kept
        self._visit_search = None  # first edition: (visit, kingdom) and its shared solvers
        self._warm = False
        self._stake_at: tuple = (None, 0.0)  # (visit key, its stake): see _stake
        self._tour_budget = Budget(time_limit, memos=Memos())  # its memos: every step's

    def advise(
        self, session: Session, label: str | None, compute: Callable[[], Advised]
    ) -> Advised:
        """The advice for the position ``session`` stands at: computed the first time, with
        a spinner, then kept (a typo, 'help', 'state' or an undo back here reuse it)."""
        key = _position_key(session)
        advised = self._advised.get(key)
        if advised is None:
            self._warm_up(session.config.first_edition)
            if label is None:  # the computation shows its own progress
                advised = compute()
            else:
                with tables.spinner(label, ascii=self.ascii):
                    advised = compute()
            if len(self._advised) >= 64:  # a tour has a few hundred positions; keep the latest
                self._advised.pop(next(iter(self._advised)))
            self._advised[key] = advised
        self.console.print(advised.view)
        for line in advised.lines:
            self._say(escape(line))
        return advised

    def _warm_up(self, first_edition: bool) -> None:
        """Load the compiled search before the first piece of advice, and say so, once: the
        first run after install compiles it (search.infra.jitcache), which takes a while."""
        if self._warm:
            return
        self._warm = True
        self._say(WARM_UP)
        started = time.perf_counter()
        with tables.spinner("loading the compiled search", ascii=self.ascii):
            load_kernels(first_edition)
        self._say(f"The search is ready ({time.perf_counter() - started:.1f} s).")

    def kingdom_advice(self, tour, hand) -> Advised:
        """Which kingdom to visit with ``hand``: a chance per kingdom (first edition: the
        expected reputation spent), the recommended one the default."""
        if tour.config.first_edition:
            result = advise_first_edition(tour, hand, self.time_limit)
            view = firstedition_views.advise_view(result, tour, hand, self.ascii)
            best = result.recommended
            costs = {str(p): c for p, c in net_losses(tour, result.kingdoms).items()}
            return Advised(
                view,
                str(best),
                lambda position: {
                    "best": best,
                    "default": best,
                    "costs": costs,
                    "played": costs.get(str(position)),
                },
                (f"Advice: kingdom {best}.",),
            )
        with advice_tables.advise_progress(
            tour, self.ascii
        ) as progress:  # a bar, as `advise` shows
            result = advise_visit(tour, hand, progress=progress, budget=self._budget(Search.TABLE))
        view = advice_tables.advise_view(result, tour, self.ascii)
        best = result.recommended.position
        chances = {str(k.position): k.chance(Column.ALL).value for k in result.kingdoms}
        estimated = [str(k.position) for k in result.kingdoms if k.chance(Column.ALL).estimate]
        bounded = [str(k.position) for k in result.kingdoms if k.chance(Column.ALL).kind == "bound"]
        # The choice is made by tour value, so the review prices it by tour value too.
        values = {
            str(k.position): k.tour_value.value for k in result.kingdoms if k.tour_value is not None
        }
        objective = result.recommended.tour_value.objective if values else None

        def record(position: int) -> dict:
            return {
                "best": best,
                "default": best,
                "chances": chances,
                "estimated": estimated,
                "bounded": bounded,
                "played": chances.get(str(position)),
                "tour_values": values,
                "objective": objective,
            }

        return Advised(view, str(best), record, (f"Advice: kingdom {best}.",))

    def move_advice(self, state) -> Advised:
        """The options ranked (chance first; a supporter only where its gain is worth more
        than its point of final score, issues 18 and 38),
        and, where it differs for the point a supporter costs, the play best for the final
        score put first; the first option is the default."""
        visit: VisitState = state.visit
        tour = _tour_for(state)
        jacks_used = [s for s in Suit if s not in visit.jacks]
        advice = rank_moves(
            tour,
            visit.position,
            position_from_visit(visit),
            jacks_used,
            budget=self._budget(Search.RANKING),
        )
        stake = self._stake(tour, visit)
        moves = list(free_first(advice.moves, stake))
        note = _supporter_kept_note(advice.moves, moves, stake, self.ascii)
        by_score_first = False
        by_score = score_best_action(tour, visit)
        first = moves[0]
        # The payoff search knows Diplomacy and Politics only (search.tours.supporters): where
        # the likeliest play spends a supporter on one of them and it would keep the point
        # instead, that is its reason. Any other difference is the smaller model's, not a reason.
        if (
            by_score is not None
            and first.source is not None
            and getattr(by_score, "source", None) is None
            and first.option.suit in (Suit.HEARTS, Suit.SPADES)
        ):
            keep = next(
                (m for m in moves if _same_play(_action_of(m, visit), by_score, visit)), None
            )
            if keep is not None and keep is not first:
                moves.remove(keep)
                moves.insert(0, keep)
                by_score_first = True
                gain = first.chance - keep.chance
                mark = tables.estimate_mark(self.ascii) if first.estimate or keep.estimate else ""
                note = (
                    f"Best for the final score: {move_tables.play_text(keep)}, not "
                    f"{move_tables.play_text(first)} (the likeliest to win this visit): "
                    f"{ruler_str(first.source, self.ascii)} would spend its point for only "
                    f"{mark}+{100 * gain:.1f}% chance here, worth less to the whole tour."
                )
        view = move_tables.coach_move_view(advice, moves, tour, self.ascii, note)
        best = moves[0]
        free = next((m for m in moves if m.source is None), None)

        fewest = fewest_playouts_above(moves)
        margin = leader_margin(moves)

        def record(action) -> dict:
            played = next((m for m in moves if _action_of(m, visit) == action), None)
            return {
                "best": move_tables.play_text(best),
                "default": move_tables.play_text(best),
                "chance": best.chance,
                "played": None if played is None else played.chance,
                "estimate": best.estimate or bool(played is not None and played.estimate),
                "interval": None if best.interval is None else list(best.interval),
                "played_interval": None
                if played is None or played.interval is None
                else list(played.interval),
                "by_score": by_score_first,
                # for the review in final-score terms: a win's worth over a loss, and who pays
                "stake": stake,
                "spends": best.source is not None,
                "played_spends": played is not None and played.source is not None,
                # the best free option's chance: what a supporter's point is weighed against
                "free_chance": None if free is None else free.chance,
                # the screen's headline, which the next screen is checked against (issue 38)
                "position_chance": advice.chance.value,
                # what the ranking rests on (issue 37): the leader's playouts, the fewest behind
                # an estimate ranked above another, the leader's paired lead over the next
                "playouts": best.playouts,
                "fewest_playouts_above": fewest,
                "leader_margin": None if margin is None else list(margin),
            }

        return Advised(view, move_tables.play_text(best), record)

    def _budget(self, search: Search) -> Budget:
        """This step's budget: the time limit from now, the memos of the steps before."""
        return self._tour_budget.step(self.time_limit, search)

    def _stake(self, tour, visit: VisitState) -> float:
        """What winning this visit adds to the expected final score (:func:`visit_stake`),
        once a visit."""
        key = (visit.position, tour.score, tour.unvisited)
        if self._stake_at[0] != key:
            self._stake_at = (key, visit_stake(tour, visit.position))
        return self._stake_at[1]

    def first_edition_advice(self, state) -> Advised:
        """A decision advised by expected reputation spent (R5-R7)."""
        visit = state.visit
        if self._visit_search is None or self._visit_search[0] != (
            state.visit_number,
            visit.position,
        ):
            self._visit_search = ((state.visit_number, visit.position), VisitSearch())
        ranked, searched = rank_first_edition(visit, self.time_limit, self._visit_search[1])
        view = firstedition_views.move_view(ranked, searched, visit, self.ascii)
        default = describe(
            ranked[0].action if ranked else default_play(visit, legal_actions(visit))
        )

        def record(action) -> dict:
            if not ranked:
                return {}
            played = next((r.cost for r in ranked if r.action == action), None)
            best = describe(ranked[0].action)
            return {"best": best, "default": best, "cost": ranked[0].cost, "played": played}

        return Advised(view, default, record, (f"Advice: {default}.",) if ranked else ())

    def _say(self, text: str) -> None:
        self.console.print(text, highlight=False)


def _position_key(session: Session) -> str:
    """What decides a position: the events so far, without the advice they carry."""
    plain = [{k: v for k, v in event.items() if k != "advice"} for event in session.events]
    return json.dumps([session.mode, session.seed, list(session.rulers), plain], sort_keys=True)


def _tour_for(state):
    """The tour as the advice sees it during a visit: rulers after any Politics swap, and
    the supporters spent in this visit no longer unused (of two of one suit, the other
    lends the ability next)."""
    from dataclasses import replace

    supporters = supporters_spent(state.tour, state.visit)
    return replace(state.tour, rulers=state.visit.rulers, supporters=supporters)


def _action_of(move, visit: VisitState):
    option = move.option
    if option.kind == "debate":
        return Debate()
    if option.kind == "answer":
        return Answer(option.card)
    if option.kind == "discard":
        return Discard(option.cards)
    return UseAbility(option.suit, move.source, move.swap_with)


def _supporter_kept_note(ranked, moves, stake: float, ascii: bool) -> str | None:
    """A line saying what the likeliest option, a supporter's, would add where the free
    option leads because the gain is worth less than the supporter's point (issue 38)."""
    likeliest, first = ranked[0], moves[0]
    if likeliest.source is None or first is likeliest or first.source is not None:
        return None
    gain = likeliest.chance - first.chance
    mark = tables.estimate_mark(ascii) if likeliest.estimate or first.estimate else ""
    return (
        f"{move_tables.play_text(first)} leads: {move_tables.play_text(likeliest)} would add "
        f"{mark}{100 * gain:+.1f}% chance, about {mark}{gain * stake:.2f} pt at a stake of "
        f"{stake:.2f} pt, for the 1 pt {ruler_str(likeliest.source, ascii)} costs."
    )


def _same_play(action, other, visit: VisitState) -> bool:
    """The same play, where a Politics to either of two kingdoms of one suit counts as one."""
    if not (isinstance(action, UseAbility) and isinstance(other, UseAbility)):
        return action == other
    if (action.suit, action.source) != (other.suit, other.source):
        return False
    if action.target is None or other.target is None:
        return action.target == other.target
    return visit.rulers[action.target - 1].suit is visit.rulers[other.target - 1].suit
