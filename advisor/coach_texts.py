"""What the coach says about the table: everything on it (the 'state' command), the end of
a visit, the tour in a few lines, and its visits so far (which the review lists)."""

from __future__ import annotations

from search.game import Suit, VisitState

from .notation import card_str, cards_str, ruler_str, suit_str
from .session import Session
from .session_events import DECISION_EVENTS


def _supporters_text(tour, ascii: bool) -> str:
    unused = [ruler_str(s.ruler, ascii) for s in tour.supporters if not s.used]
    used = [ruler_str(s.ruler, ascii) for s in tour.supporters if s.used]
    return f"unused {' '.join(unused) or 'none'}; used {' '.join(used) or 'none'}"


def _score_text(tour) -> str:
    if tour.config.first_edition:
        return f"{tour.score} (kingdoms completed)"
    won, unused = len(tour.visited), len(tour.unused_supporters)
    return f"{tour.score} ({won} kingdom{'s' if won != 1 else ''} + {unused} unused supporter{'s' if unused != 1 else ''})"


def state_text(session: Session, ascii: bool) -> str:
    """Everything on the table: the layout (after any swaps), the score, the supporters
    used and unused, and during a visit the hand, the Jacks used, the piles and the wins
    against the target."""
    state = session.replay()
    tour = state.tour
    visit = state.visit
    rulers = visit.rulers if visit is not None else tour.rulers
    cells = []
    for position, ruler in enumerate(rulers, 1):
        target = tour.config.target(position)
        here = "*" if visit is not None and position == visit.position else ""
        shown = "won" if ruler is None else ruler_str(ruler, ascii)
        cells.append(f"{position}{here} {shown} (target {target})")
    lines = [
        f"Score so far {_score_text(tour)}, of {tour.config.perfect_score}; visits played {tour.visits}.",
        "Kingdoms: " + ", ".join(cells) + (" (* this visit, rulers after swaps)" if visit else ""),
        f"Supporters: {_supporters_text(tour, ascii)}.",
    ]
    if tour.config.first_edition:
        lines.append(f"Reputation: {tour.reputation} face up.")
    if visit is not None:
        used = [s for s in Suit if s not in visit.jacks]
        jacks_up = " ".join("J" + suit_str(s, ascii) for s in Suit if s in visit.jacks) or "none"
        jacks_used = " ".join("J" + suit_str(s, ascii) for s in used) or "none"
        spent = " ".join(ruler_str(r, ascii) for r in visit.used_supporters)
        lines.append(
            f"Visit {state.visit_number}, kingdom {visit.position}: trump {suit_str(visit.trump, ascii)}, "
            f"wins {visit.wins} of target {visit.target}."
        )
        waiting = f"; the ruler's {card_str(visit.waiting, ascii)} waits" if visit.waiting else ""
        lines.append(f"Hand {cards_str(visit.hand, ascii) or 'empty'}{waiting}.")
        lines.append(
            f"Jacks used {jacks_used}; face up {jacks_up}"
            + (f"; supporters spent this visit {spent}." if spent else ".")
        )
        lines.append(
            f"Deck {len(visit.deck)} cards, discard pile {len(visit.discard)}, won cards "
            f"{cards_str(visit.scoring, ascii) or 'none'}."
        )
    elif state.hand is not None:
        lines.append(f"Drawn for visit {state.visit_number}: {cards_str(state.hand, ascii)}.")
    return "\n".join(lines)


def visit_end_text(before, visit: VisitState, after, ascii: bool) -> str:
    """What a partner says when a visit ends: won or lost, the supporter gained (or spent),
    and the score so far."""
    ruler = visit.ruler
    lines = []
    spent = [ruler_str(r, ascii) for r in visit.used_supporters]
    if visit.succeeded:
        lines.append(f"Kingdom {visit.position} won: {visit.wins} debates of {visit.target}.")
        if after.config.first_edition:
            lines.append(f"{ruler_str(ruler, ascii)} joins you as a supporter, face up (R5).")
        else:
            lines.append(
                f"{ruler_str(ruler, ascii)} joins you as a supporter: its {ruler.suit.ability} once, "
                "for the rest of the tour (using it costs its point)."
            )
    else:
        lines.append(
            f"Kingdom {visit.position} lost: {visit.wins} debates won, the target was {visit.target}."
        )
        if after.failed:
            lines.append("The tour ends here.")
        else:
            lines.append(
                "Paid for with face-up cards (R7): the kingdom is completed, with no supporter."
            )
    if spent:
        lines.append(
            f"Supporter{'s' if len(spent) > 1 else ''} spent: {' '.join(spent)} (a point each)."
        )
    lines.append(f"Score so far: {_score_text(after)}.")
    return " ".join(lines)


def summary_text(session: Session, ascii: bool) -> str:
    """The tour in a few lines, before the review: each visit's kingdom and outcome, the
    supporters, the final score."""
    tour = session.replay().tour
    visits = [
        f"{v['number']}. kingdom {v['position']} ({v['ruler']}): {v['outcome']}"
        for v in visit_history(session, ascii)
    ]
    lines = [
        f"Tour over after {tour.visits} visit{'s' if tour.visits != 1 else ''}"
        + (" (perfect)." if tour.perfect else "."),
        *visits,
        f"Supporters: {_supporters_text(tour, ascii)}.",
        f"Final score {_score_text(tour)}, of {tour.config.perfect_score}.",
    ]
    return "\n".join(lines)


def visit_history(session: Session, ascii: bool = True) -> list[dict]:
    """Each visit so far: its number, kingdom, ruler (at the end, after swaps), outcome, and
    its decisions (event index, event, state before)."""
    visits: list[dict] = []
    for index, event, before, after in session.walk():
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        if not visits or (kind == "hand" and visits[-1]["done"]):
            visits.append(
                {
                    "number": len(visits) + 1,
                    "position": None,
                    "ruler": "?",
                    "target": None,
                    "outcome": "under way",
                    "decisions": [],
                    "done": False,
                }
            )
        current = visits[-1]
        if kind in DECISION_EVENTS:
            current["decisions"].append((index, event, before, after))
        if kind == "kingdom" and after is not None and after.visit is not None:
            current["position"] = after.visit.position
            current["target"] = after.visit.target
            current["ruler"] = ruler_str(after.visit.ruler, ascii)
        if after is not None and after.visit is not None:
            current["ruler"] = ruler_str(after.visit.ruler, ascii)
        if (
            after is not None
            and after.tour.visits > before.tour.visits
            and after.last_visit is not None
        ):
            ended = after.last_visit
            current["ruler"] = ruler_str(ended.ruler, ascii)
            current["outcome"] = (
                f"won ({ended.wins} of {ended.target})"
                if ended.succeeded
                else f"lost ({ended.wins} win{'s' if ended.wins != 1 else ''})"
                + ("" if after.tour.failed else ", paid for (R7)")
            )
            current["done"] = True
    return visits
