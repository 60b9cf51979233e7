"""The review of a coached tour, graded in final-score terms: every decision, visit by visit,
with the advice, the play and what it cost in expected final score (first edition: in
expected reputation), and a summary (mean loss a decision, the costliest, the share that
followed the advice)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich import box
from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from search.game import Phase

from . import tables
from .coach_texts import visit_history
from .plays import describe
from .session import Session
from .session_events import SessionError, decode_action

COSTLIEST = 3
"""Decisions the summary names as the costliest."""


@dataclass(frozen=True)
class Decision:
    """One decision of the tour as the review grades it."""

    visit: int
    number: int  # within its visit
    kind: str  # kingdom, play, answer, discard, pay a miss
    advice: str | None  # None: played with --no-advice
    played: str
    cost: float | None = None  # given up against the advice: points of expected final score
    unit: str = "pts"  # of cost: pts, perfect (chance of a perfect tour) or rep (first edition)
    chance_cost: float | None = None  # a play's: the visit's chance given up
    estimate: bool = False  # the cost comes from an estimate or a proven bound
    noise: bool = False  # the difference lies within the estimate's 95% interval
    matched: bool = False  # the play was the advice (the prompt's default)
    advice_cost: float | None = None  # what the advice itself gave away: a supporter's point
    # spent for less than a point of expected final score (issue 38)

    @property
    def loss(self) -> float:
        """The cost counted in the summary: the advice's own cost for a match, 0 for noise,
        None-safe."""
        if self.matched:
            return max(0.0, self.advice_cost or 0.0)
        if self.noise or self.cost is None:
            return 0.0
        return max(0.0, self.cost)


@dataclass(frozen=True)
class Review:
    """A tour's decisions, grouped by visit, and its title."""

    title: str
    over: bool
    score: int
    visits: list[tuple[str, list[Decision]]]

    @property
    def decisions(self) -> list[Decision]:
        return [d for _, decisions in self.visits for d in decisions]

    def summary(self) -> dict:
        """Mean loss a priced decision, the share of advised decisions that followed the
        advice, and the costliest decisions."""
        advised = [d for d in self.decisions if d.advice is not None]
        priced = [d for d in advised if d.cost is not None or d.matched]
        units = {d.unit for d in priced if d.cost is not None}
        costliest = sorted((d for d in priced if d.loss > 0), key=lambda d: -d.loss)[:COSTLIEST]
        return {
            "decisions": len(self.decisions),
            "advised": len(advised),
            "priced": len(priced),
            "unit": units.pop() if len(units) == 1 else "pts",
            "mean_loss": sum(d.loss for d in priced) / len(priced) if priced else 0.0,
            "matched_share": sum(d.matched for d in advised) / len(advised) if advised else 0.0,
            # points of expected final score the advice itself gave away, over the tour
            "advice_loss": sum(max(0.0, d.advice_cost or 0.0) for d in advised),
            "costliest": [
                {"visit": d.visit, "number": d.number, "kind": d.kind, "cost": d.loss}
                for d in costliest
            ],
        }


def review_of(session: Session, ascii: bool = False) -> Review:
    """Every decision of ``session`` graded: a kingdom choice by the tour value it gives up
    against the recommended kingdom, a play by the visit's chance it gives up times what
    winning the visit is worth (its ``stake``), plus a point for a supporter spent beyond the
    advice's; sessions saved before stakes were recorded are graded by the chance alone. A
    play equal to the prompt's default costs nothing."""
    state = session.replay()
    tour = state.tour
    if tour.over:
        title = f"Review: final score {tour.score} of {tour.config.perfect_score}"
    else:
        title = (
            f"Review: tour unfinished (visit {state.visit_number} under way), "
            f"score so far {tour.score}"
        )
    visits = []
    for visit in visit_history(session, ascii):
        where = (
            "kingdom not chosen yet"
            if visit["position"] is None
            else (f"kingdom {visit['position']} ({visit['ruler']}, target {visit['target']})")
        )
        header = f"Visit {visit['number']}: {where}: {visit['outcome']}"
        decisions = [
            _graded(visit["number"], number, event, before)
            for number, (_, event, before, _after) in enumerate(visit["decisions"], start=1)
        ]
        visits.append((header, decisions))
    return Review(title, tour.over, tour.score, visits)


def _graded(visit: int, number: int, event: dict, before) -> Decision:
    kind = _decision_name(event, before)
    played = _played(event)
    advice = event.get("advice")
    if not isinstance(advice, dict) or not advice:
        return Decision(visit, number, kind, None, played)
    best = advice.get("best")
    default = advice.get("default")
    matched = default is not None and _same_text(default, played)
    if event["type"] == "kingdom":
        shown = "?" if best is None else f"kingdom {best}"
        if "costs" in advice:  # first edition: expected reputation spent beyond the best
            cost = _difference(
                _table_entry(advice["costs"], event.get("position")),
                _table_entry(advice["costs"], best),
            )
            return Decision(visit, number, kind, shown, played, cost, "rep", matched=matched)
        inexact = (*(advice.get("estimated") or ()), *(advice.get("bounded") or ()))
        estimate = any(str(p) in inexact for p in (best, event.get("position")))
        if isinstance(advice.get("tour_values"), dict):
            values = advice["tour_values"]
            cost = _difference(
                _table_entry(values, best), _table_entry(values, event.get("position"))
            )
            unit = "perfect" if advice.get("objective") == "perfect" else "pts"
            return Decision(
                visit, number, kind, shown, played, cost, unit, estimate=estimate, matched=matched
            )
        # saved before kingdom choices carried their tour values: the visit's chance only
        chance = _difference(_table_entry(advice.get("chances"), best), advice.get("played"))
        return Decision(
            visit,
            number,
            kind,
            shown,
            played,
            None,
            chance_cost=chance,
            estimate=estimate,
            matched=matched,
        )
    shown = "?" if best is None else str(best)
    if "cost" in advice:  # first edition
        cost = _difference(advice.get("played"), advice["cost"])
        return Decision(visit, number, kind, shown, played, cost, "rep", matched=matched)
    chance = _difference(advice.get("chance"), advice.get("played"))
    estimate = bool(advice.get("estimate"))
    noise = (
        estimate
        and chance is not None
        and chance > 1e-12
        and (
            _inside(advice.get("played"), advice.get("interval"))
            or _inside(advice.get("chance"), advice.get("played_interval"))
        )
    )
    cost = advice_cost = None
    if _real(advice.get("stake")) and chance is not None:
        spent = int(bool(advice.get("played_spends"))) - int(bool(advice.get("spends")))
        advice_cost = _advice_cost(advice)
        cost = advice["stake"] * chance + spent + (advice_cost or 0.0)
    return Decision(
        visit,
        number,
        kind,
        shown,
        played,
        cost,
        chance_cost=chance,
        estimate=estimate,
        noise=noise,
        matched=matched,
        advice_cost=advice_cost,
    )


def _advice_cost(advice: dict) -> float | None:
    """What advising a supporter's ability gave away in expected final score: its point less
    the chance it added over the best free option times the visit's stake, never below 0
    (issue 38). 0 for free advice; None for sessions saved before the free option's chance
    was recorded."""
    if not advice.get("spends"):
        return 0.0
    free, chance = advice.get("free_chance"), advice.get("chance")
    if not (_real(free) and _real(chance)):
        return None
    return max(0.0, 1.0 - advice["stake"] * (chance - free))


def review_view(session: Session, ascii: bool = False) -> Group:
    """The review as tables, a visit each, then the summary. Costs from estimates are
    marked; steps played without advice are listed and marked."""
    review = review_of(session, ascii)
    mark = tables.estimate_mark(ascii)
    parts: list = [Text(review.title, style="bold")]
    for header, decisions in review.visits:
        parts.append(Text(header, style="bold"))
        table = Table(box=box.ASCII if ascii else box.SIMPLE_HEAD, show_edge=False)
        table.add_column("#", justify="right")
        table.add_column("decision")
        table.add_column("advice")
        table.add_column("played")
        table.add_column("cost", justify="right")
        table.add_column("advice cost", justify="right")
        for decision in decisions:
            # Texts come from a file anyone can edit: never read them as rich markup.
            table.add_row(
                str(decision.number),
                decision.kind,
                "(no advice)" if decision.advice is None else escape(decision.advice),
                escape(decision.played),
                _cost_text(decision, mark),
                _advice_cost_text(decision),
            )
        parts.append(table)
    parts.append(Text(_summary_text(review), style="bold"))
    unadvised = sum(d.advice is None for d in review.decisions)
    notes = []
    if unadvised:
        notes.append(
            f"{unadvised} step{'s' if unadvised != 1 else ''} played with --no-advice: "
            "listed, not priced."
        )
    notes.append(
        "cost: the expected final score given up against the advice, in points (pts): "
        "a kingdom choice by its tour value, a play by the visit's chance it gives up "
        "(in brackets) times what winning the visit is worth, and a point for each "
        f"supporter spent beyond the advice; {mark} marks a cost from an estimate "
        "(Monte Carlo) or a proven lower bound, 'noise' a difference within the "
        "estimate's 95% interval. Following the coach's default costs only its "
        "advice cost: a supporter's point spent for less than a point of expected final "
        "score, charged to the coach's advice and so to the play that followed it."
    )
    parts.append(Text(" ".join(notes), style="dim"))
    return Group(*parts)


def review_json(session: Session) -> dict:
    """The review as data: ``decisions`` (each with ``visit``, ``number``, ``kind``,
    ``advice``, ``played``, ``cost`` in expected final score, ``estimate``) and ``summary``
    (``mean_loss``, ``matched_share``, ...)."""
    review = review_of(session, ascii=True)
    decisions = [
        {
            "visit": d.visit,
            "number": d.number,
            "kind": d.kind,
            "advice": d.advice,
            "played": d.played,
            "cost": d.loss if d.matched else d.cost,
            "unit": d.unit,
            "chance_cost": 0.0 if d.matched else d.chance_cost,
            "estimate": d.estimate,
            "noise": d.noise,
            "matched": d.matched,
            "advice_cost": d.advice_cost,
        }
        for d in review.decisions
    ]
    return {
        "title": review.title,
        "over": review.over,
        "score": review.score,
        "decisions": decisions,
        "summary": review.summary(),
    }


def _advice_cost_text(decision: Decision) -> str:
    if decision.advice_cost is None or decision.advice_cost <= 1e-12:
        return ""
    return f"{decision.advice_cost:.2f} pts"


def _cost_text(decision: Decision, mark: str) -> str:
    if decision.advice is None:
        return "unadvised"
    if decision.matched:  # the coach's own default: charged only what the advice gave away
        return f"{decision.loss:.2f} pts" if decision.loss > 1e-12 else ""
    if decision.noise:
        return "noise"
    shown = mark if decision.estimate else ""
    chance = decision.chance_cost
    if decision.cost is None:
        if chance is None:
            return "?"
        return "" if chance <= 1e-12 else f"{shown}{100 * chance:.2f}%"
    if decision.cost <= 1e-12 and (chance is None or chance <= 1e-12):
        return ""
    if decision.unit == "rep":
        return f"+{decision.cost:.3f} rep"
    if decision.unit == "perfect":
        return f"{shown}{100 * decision.cost:.2f}% perfect"
    text = f"{shown}{decision.cost:.2f} pts"
    if chance is not None and chance > 1e-12:
        text += f" ({100 * chance:.1f}%)"
    return text


def _summary_text(review: Review) -> str:
    summary = review.summary()
    if not summary["advised"]:
        return "No advised decision to grade."
    unit = {"pts": "pts", "perfect": "of a perfect tour's chance", "rep": "rep"}[summary["unit"]]
    loss = summary["mean_loss"]
    shown = f"{100 * loss:.2f}%" if summary["unit"] == "perfect" else f"{loss:.3f}"
    text = (
        f"Summary: {summary['advised']} advised decisions, "
        f"{100 * summary['matched_share']:.0f}% as advised; mean loss {shown} {unit} a decision"
    )
    if summary["costliest"]:
        text += "; costliest: " + ", ".join(
            f"visit {c['visit']} #{c['number']} ({c['kind']}, {c['cost']:.2f})"
            for c in summary["costliest"]
        )
    if summary["advice_loss"] > 1e-12:
        text += f"; the advice itself gave away {summary['advice_loss']:.2f} pts"
    return text + "."


def _same_text(default, played: str) -> bool:
    text = str(default).strip().lower()
    return text == played.strip().lower() or text == f"kingdom {played}".lower()


def _decision_name(event: dict, before) -> str:
    kind = event.get("type")
    if kind == "kingdom":
        return "kingdom"
    if kind == "turn_down":
        return "pay a miss"
    visit = getattr(before, "visit", None)
    if visit is None:
        return "play"
    return {Phase.ANSWER: "answer", Phase.DISCARD: "discard"}.get(visit.phase, "play")


def _played(event: dict) -> str:
    """What was played, written as the player types it at the prompt."""
    kind = event.get("type")
    if kind == "kingdom":
        return str(event.get("position"))
    if kind == "turn_down":
        return " ".join(str(card) for card in event.get("cards", ()))
    try:
        return describe(decode_action(event.get("action")))
    except (SessionError, ValueError):
        return _played_text(event.get("action") if isinstance(event.get("action"), dict) else {})


def _table_entry(table, key):
    return table.get(str(key)) if isinstance(table, dict) else None


def _real(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _difference(best, played) -> float | None:
    """``best - played`` where both are numbers (what a choice gave up), else None."""
    if not (_real(best) and _real(played)):
        return None
    return best - played


def _inside(value, interval) -> bool:
    return (
        _real(value)
        and isinstance(interval, list)
        and len(interval) == 2
        and all(_real(v) for v in interval)
        and interval[0] <= value <= interval[1]
    )


def _played_text(action: dict) -> str:
    """A saved action that no longer parses, shown as near the typed form as it can be."""
    kind = action.get("kind")
    if kind == "debate":
        return "debate"
    if kind == "answer":
        return str(action.get("card"))
    if kind == "discard":
        return " ".join(str(card) for card in action.get("cards", ()))
    text = "J" + str(action.get("suit"))
    if action.get("target") is not None:
        text += f" {action['target']}"
    if action.get("source"):
        text += f" {action['source']}"
    return text
