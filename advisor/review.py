"""The review of a coached tour: every decision, visit by visit, with the advice, the play
and the chance (or, first edition, the reputation) it cost."""

from __future__ import annotations

import math

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


def review_view(session: Session, ascii: bool = False) -> Group:
    """Every decision, visit by visit and numbered within its visit: the advice, what was
    played (as typed) and what it cost (first edition: the expected reputation it spent
    beyond the best); steps played without advice are listed and marked. Costs from
    estimates are marked as estimates; a play equal to the prompt's default costs nothing."""
    state = session.replay()
    tour = state.tour
    if tour.over:
        title = f"Review: final score {tour.score} of {tour.config.perfect_score}"
    else:
        title = (f"Review: tour unfinished (visit {state.visit_number} under way), "
                 f"score so far {tour.score}")
    mark = tables.estimate_mark(ascii)
    parts: list = [Text(title, style="bold")]
    unadvised = 0
    for visit in visit_history(session, ascii):
        where = "kingdom not chosen yet" if visit["position"] is None else (
            f"kingdom {visit['position']} ({visit['ruler']}, target {visit['target']})")
        parts.append(Text(f"Visit {visit['number']}: {where}: {visit['outcome']}", style="bold"))
        table = Table(box=box.ASCII if ascii else box.SIMPLE_HEAD, show_edge=False)
        table.add_column("#", justify="right")
        table.add_column("decision")
        table.add_column("advice")
        table.add_column("played")
        table.add_column("cost", justify="right")
        for number, (_, event, before, _after) in enumerate(visit["decisions"], start=1):
            advice = event.get("advice")
            what = _decision_name(event, before)
            played = _played(event)
            if not isinstance(advice, dict) or not advice:
                unadvised += 1
                table.add_row(str(number), what, "(no advice)", escape(played), "unadvised")
                continue
            best = advice.get("best")
            if event["type"] == "kingdom":
                best_text = "?" if best is None else f"kingdom {best}"
                if "costs" in advice:
                    cost = _extra_reputation(_table_entry(advice["costs"], best), advice.get("played"))
                else:
                    inexact = (*(advice.get("estimated") or ()), *(advice.get("bounded") or ()))
                    estimate = any(str(p) in inexact for p in (best, event.get("position")))
                    if isinstance(advice.get("tour_values"), dict):
                        values = advice["tour_values"]
                        cost = _tour_cost(_table_entry(values, best),
                                          _table_entry(values, event.get("position")),
                                          advice.get("objective"), mark if estimate else "")
                    else:  # saved before kingdom choices carried their tour values
                        cost = _cost(_table_entry(advice.get("chances"), best),
                                     advice.get("played"), mark if estimate else "")
            else:
                best_text = "?" if best is None else str(best)
                if "cost" in advice:
                    cost = _extra_reputation(advice["cost"], advice.get("played"))
                else:
                    cost = _cost(advice.get("chance"), advice.get("played"),
                                 mark if advice.get("estimate") else "",
                                 advice.get("interval"), advice.get("played_interval"))
            default = advice.get("default")
            if default is not None and _same_text(default, played):
                cost = ""  # the coach's own default: never charged for following it
            # Texts come from a file anyone can edit: never read them as rich markup.
            table.add_row(str(number), what, escape(best_text), escape(played), cost)
        parts.append(table)
    notes = []
    if unadvised:
        notes.append(f"{unadvised} step{'s' if unadvised != 1 else ''} played with --no-advice: "
                     "listed, not priced.")
    notes.append("cost: a kingdom choice, the tour value given up (expected final score in "
                 "points, or the chance of a perfect tour); a play, this visit's chance given up. "
                 f"{mark} marks a cost from an "
                 "estimate (Monte Carlo) or a proven lower bound, 'noise' a difference within the "
                 "estimate's 95% interval.")
    parts.append(Text(" ".join(notes), style="dim"))
    return Group(*parts)


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


def _cost(best, played, mark: str = "", interval=None, played_interval=None) -> str:
    if not (_real(best) and _real(played)):
        return "?"
    loss = best - played
    if loss <= 1e-12:
        return ""
    if mark and (_inside(played, interval) or _inside(best, played_interval)):
        return "noise"
    return f"{mark}{100 * loss:.2f}%"


def _tour_cost(best, played, objective, mark: str = "") -> str:
    """A kingdom choice's cost: the tour value it gives up against the recommended kingdom."""
    if not (_real(best) and _real(played)):
        return "?"
    loss = best - played
    if loss <= 1e-12:
        return ""
    if objective == "perfect":
        return f"{mark}{100 * loss:.2f}% perfect"
    return f"{mark}{loss:.2f} pts"


def _inside(value, interval) -> bool:
    return (isinstance(interval, list) and len(interval) == 2 and all(_real(v) for v in interval)
            and interval[0] <= value <= interval[1])


def _extra_reputation(best, played) -> str:
    """First edition: the expected reputation a choice spends beyond the best one."""
    if not (_real(best) and _real(played)):
        return "?"
    extra = played - best
    return "" if extra <= 1e-12 else f"+{extra:.3f} rep"


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
