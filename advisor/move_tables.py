"""The tables of a decision: every option best first with its chance, for ``advise move``
(:func:`move_view`) and for the coach, in the order it advises with the play to type
(:func:`coach_move_view`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from search.game import TourState, wins_debate
from search.tours import Chance, Move, MoveAdvice, leader_margin

from .notation import (
    card_str,
    card_text,
    cards_str,
    cards_text,
    ruler_str,
    ruler_text,
    suit_str,
    suit_text,
)
from .tables import BEST_STYLE, chance_text, estimate_mark, mini_bar, percent_cell, percent_text


def move_text(move: Move, tour: TourState, ascii: bool = False) -> str:
    """A move as the player would say it, e.g. ``Politics (J♠) with kingdom 6 (Q♦)``."""
    option = move.option
    if option.kind == "debate":
        return "debate now"
    if option.kind == "answer":
        return "answer " + card_str(option.card, ascii)
    if option.kind == "discard":
        return "discard " + cards_str(option.cards, ascii)
    suit = option.suit
    if move.source is not None:
        who = f"supporter {ruler_str(move.source, ascii)}"
    else:
        who = f"J{suit_str(suit, ascii)}"
    text = f"{suit.ability} ({who})"
    if move.swap_with is not None:
        ruler = tour.rulers[move.swap_with - 1]
        text += f" with kingdom {move.swap_with} ({ruler_str(ruler, ascii)})"
    return text


def versus_text(move: Move) -> str:
    """An estimated option's paired difference from the first option, as an interval in
    percentage points (e.g. ``-7..+1``); empty for the first option or without playouts."""
    if move.versus_best is None or move.versus_best == (0.0, 0.0):
        return ""
    low, high = (round(100 * v) for v in move.versus_best)
    return f"{low:+d}..{high:+d}"


def _wins_table(distribution: Sequence[float], ascii: bool) -> Table:
    table = Table(
        title="Wins at the end", title_justify="left", box=box.ASCII2 if ascii else box.HEAVY_HEAD
    )
    table.add_column("wins", justify="right")
    table.add_column("chance", justify="right")
    table.add_column("")
    for wins, p in enumerate(distribution):
        table.add_row(str(wins), percent_cell(p), mini_bar(p, 20, ascii))
    return table


def _position_lines(advice: MoveAdvice, ascii: bool) -> tuple[Text, Text]:
    """The visit's heading (kingdom, ruler, trump, target, wins) and the hand, with the
    ruler's card waiting if any."""
    position = advice.position
    head = Text.assemble(
        f"Kingdom {advice.kingdom}: ",
        ruler_text(advice.ruler, ascii),
        " rules, trump ",
        suit_text(position.trump, ascii),
        f", target {position.target}, won so far {position.wins}",
    )
    hand = Text.assemble("Hand ", cards_text(position.hand, ascii))
    if position.waiting is not None:
        hand.append("   ruler's card ")
        hand.append_text(card_text(position.waiting, ascii))
        hand.append(" waits")
    return head, hand


def move_view(advice: MoveAdvice, tour: TourState, ascii: bool = False) -> Group:
    """The visit now, the chance with best play, every option best first with its loss."""
    head, hand = _position_lines(advice, ascii)
    parts: list = [head, hand]
    chance = advice.chance
    best = advice.moves[0]
    parts.append(
        Text.assemble(
            ("Chance ", "bold"),
            (percent_text(chance.value, chance.estimate, ascii).strip(), BEST_STYLE),
            " with best play: " if not chance.estimate else " with the best option: ",
            (move_text(best, tour, ascii), "bold"),
        )
    )
    if chance.estimate and chance.floor > chance.value:
        mark = ">=" if ascii else "≥"
        parts.append(
            Text(
                f"Chance {mark} {percent_cell(chance.floor).strip()} is PROVEN: the exact chance with "
                "some abilities left unused (the lookahead policy's base), above the estimates below.",
                style="yellow",
            )
        )
    if chance.estimate:
        parts.append(
            Text(
                "ESTIMATES: the exact search ran out of time or memory, so each option's chance comes from "
                f"Monte Carlo playouts ({chance.playouts} for the best) of the {chance.policy or 'fallback'} "
                "policy after it, in equal time for each option, every option on the same deck orders; "
                "options that draw cards get fewer playouts. Ranked by the estimate; each CI "
                "is that policy's success rate after the option, and 'vs best' the 95% interval "
                "of its difference from the first option on the same deck orders (points; an "
                "interval holding 0 does not tell them apart). "
                "The time, not a fixed amount of work, set the number of playouts, so a re-run "
                "may differ slightly. Raise --time-limit for exact answers.",
                style="yellow",
            )
        )
    table = Table(
        title="Options, best first",
        title_justify="left",
        box=box.ASCII2 if ascii else box.HEAVY_HEAD,
    )
    table.add_column("option")
    table.add_column("chance", justify="right")
    table.add_column("loss", justify="right")
    table.add_column("95% CI, %" if chance.estimate else "")
    if chance.estimate:
        table.add_column("vs best", justify="right")
    top = advice.moves[0].chance if advice.moves else None
    for move in advice.moves:
        # only the options level with the first row are styled best (ranked by value)
        style = BEST_STYLE if top is not None and move.chance >= top - 1e-12 else ""
        if move.proven:
            last = "proven"
        elif move.estimate:
            low, high = move.interval
            last = f"{100 * low:.1f}-{100 * high:.1f}"
        else:
            last = mini_bar(move.chance, 12, ascii)
        cells = [
            Text(move_text(move, tour, ascii), style=style),
            move_chance_text(move, ascii),
            "" if move.loss <= 1e-12 else percent_cell(move.loss),  # negative: less sure, not worse
            last,
        ]
        if chance.estimate:
            cells.append(versus_text(move))
        table.add_row(*cells)
    parts.append(table)
    if advice.distribution:  # none where the first option shows a proven bound
        parts.append(_wins_table(advice.distribution, ascii))
    parts.append(Text(f"{advice.seconds:.2f} s", style="dim"))
    return Group(*parts)


# --- coach: what now, at the table ---------------------------------------------------------

COACH_ROWS = 10
"""Options the coach lists; the rest are summed up as "N more"."""


def play_text(move: Move) -> str:
    """A move as the player types it at the coach's prompt, e.g. ``JS 3 KS`` (ASCII)."""
    option = move.option
    if option.kind == "debate":
        return "debate"
    if option.kind == "answer":
        return card_str(option.card, ascii=True)
    if option.kind == "discard":
        return cards_str(option.cards, ascii=True)
    text = "J" + option.suit.letter
    if move.swap_with is not None:
        text += f" {move.swap_with}"
    if move.source is not None:
        text += " " + ruler_str(move.source, ascii=True)
    return text


def supporter_gain(move: Move, moves: Sequence[Move]) -> float | None:
    """What a supporter's option gains over the best free option (None if none is free)."""
    free = [m.chance for m in moves if m.source is None]
    return move.chance - max(free) if free else None


def _option_gloss(
    move: Move, moves: Sequence[Move], advice: MoveAdvice, tour: TourState, ascii: bool
) -> str:
    option = move.option
    if option.kind == "debate":
        return "debate now"
    if option.kind == "answer":
        waiting = advice.position.waiting
        won = waiting is not None and wins_debate(waiting, option.card, advice.position.trump)
        return f"answer {card_str(option.card, ascii)}: " + ("wins" if won else "loses")
    if option.kind == "discard":
        return "discard " + cards_str(option.cards, ascii)
    who = (
        ruler_str(move.source, ascii)
        if move.source is not None
        else "J" + suit_str(option.suit, ascii)
    )
    text = f"{option.suit.ability} ({who})"
    if move.swap_with is not None:
        text += " brings " + ruler_str(tour.rulers[move.swap_with - 1], ascii)
    return text


def _spends(move: Move, moves: Sequence[Move], ascii: bool) -> str:
    """A supporter's option: the point it costs (§5) and its gain over the best free option."""
    if move.source is None:
        return ""
    gain = supporter_gain(move, moves)
    mark = estimate_mark(ascii) if move.estimate else ""
    if gain is None:
        return "1 pt: only way"
    return "1 pt: no gain" if gain <= 1e-9 else f"1 pt: {mark}+{100 * gain:.1f}%"


NO_TIME = "no time"
"""An option's chance where the time allowed too few playouts and nothing above 0 is proven."""


def move_chance_text(move: Move, ascii: bool = False) -> str:
    """An option's chance with the mark of its kind: ``≥`` for a proven lower bound;
    :data:`NO_TIME` where that bound is 0 (a '≥0%' headline would say nothing)."""
    if move.proven and move.chance <= 1e-12:
        return NO_TIME
    if move.proven:
        return chance_text(Chance(move.chance, bound=True, floor=move.chance), ascii)
    return percent_text(move.chance, move.estimate, ascii)


def _interval_text(interval: tuple[float, float] | None) -> str:
    """A 95% interval in whole percents, rounded outwards (never narrower than it is)."""
    if interval is None:
        return ""
    low, high = interval
    return f"{math.floor(100 * low + 1e-9)}-{math.ceil(100 * high - 1e-9)}%"


def _lead_text(first: Move, margin: tuple[float, float] | None) -> str:
    """What an estimated leader rests on: its playouts and, where the runner-up was played on
    the same deck orders, the 95% interval of its lead (issue 37)."""
    text = f"The advice rests on {first.playouts} playouts"
    if margin is None:
        return text + "."
    low, high = (100 * x for x in margin)
    return (
        text
        + f"; it leads the next option by {low:+.1f} to {high:+.1f} percentage points (paired, 95%)."
    )


def coach_move_view(
    advice: MoveAdvice,
    moves: Sequence[Move],
    tour: TourState,
    ascii: bool = False,
    note: str | None = None,
    rows: int = COACH_ROWS,
) -> Group:
    """The coach's view of a decision: the position, the advice (the first option, which
    is the prompt's default), the options in the coach's order (``moves``) with the play to
    type, the top ``rows`` of them and how many more; ``note`` explains a first option that
    is not the likeliest (best for the final score). Fits 80 columns."""
    head, hand = _position_lines(advice, ascii)
    first = moves[0]
    estimated = any(m.estimate for m in moves)
    mark = estimate_mark(ascii)
    best = Text.assemble(
        ("Advice: ", "bold"),
        (play_text(first), BEST_STYLE + " bold"),
        f", {_option_gloss(first, moves, advice, tour, ascii)}, chance ",
        (move_chance_text(first, ascii), "bold"),
        f", spends {_spends(first, moves, ascii)}" if first.source is not None else "",
    )
    parts: list = [head, hand, best]
    if note:
        parts.append(Text(note))
    table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("")
    table.add_column("play", no_wrap=True)
    table.add_column("option", no_wrap=True)
    table.add_column("chance", justify="right", no_wrap=True)
    table.add_column("loss", justify="right", no_wrap=True)
    if estimated:
        table.add_column("95% CI", no_wrap=True)
    supporters = any(m.source is not None for m in moves[:rows])
    if supporters:
        table.add_column("spends", no_wrap=True)
    top = first.chance
    for index, move in enumerate(moves[:rows]):
        loss = top - move.chance
        cells = [
            "*" if index == 0 else "",
            Text(play_text(move), style=BEST_STYLE if index == 0 else ""),
            _option_gloss(move, moves, advice, tour, ascii),
            move_chance_text(move, ascii),
            ""
            if loss <= 1e-12
            else f"{mark if move.estimate or first.estimate else ''}{100 * loss:.1f}%",
        ]
        if estimated:
            cells.append("proven" if move.proven else _interval_text(move.interval))
        if supporters:
            cells.append(_spends(move, moves, ascii))
        table.add_row(*cells)
    parts.append(table)
    if len(moves) > rows:
        parts.append(Text(f"  ... and {len(moves) - rows} more: any legal play can be typed"))
    if first.estimate and not first.proven:
        parts.append(Text(_lead_text(first, leader_margin(moves))))
    legend = "* the advice: Enter plays it. loss: its chance less the option's."
    if any(m.source is not None for m in moves):
        legend += (
            " spends: a supporter used loses its point; the gain is over the best free option."
        )
    parts.append(Text(legend, style="dim"))
    if estimated:
        parts.append(
            Text(
                f"{mark} estimate: the exact search ran out of time (--time-limit), so chances come "
                "from playouts of the lookahead policy after each option (95% CI; as many as "
                "the time allowed, so a re-run may differ slightly); best play does at least as "
                "well."
                + (
                    f" {'>=' if ascii else '≥'} proven: the exact chance of the option followed by "
                    "best play with some Jacks left unused, above its estimate or shown where "
                    "the estimate had too few playouts."
                    if any(m.proven for m in moves[:rows])
                    else ""
                )
                + (
                    f" {NO_TIME}: too few playouts in the time and nothing above 0 proven; "
                    "a longer --time-limit tells."
                    if any(move_chance_text(m) == NO_TIME for m in moves[:rows])
                    else ""
                ),
                style="yellow",
            )
        )
    spread = ", ".join(
        f"{wins}: {percent_text(p, advice.chance.estimate, ascii)}"
        for wins, p in enumerate(advice.distribution)
        if p >= 0.005
    )
    if not spread:
        spread = "not estimated (the first option's chance is a proven bound)"
    parts.append(
        Text(f"Wins at the end with best play: {spread} ({advice.seconds:.2f} s)", style="dim")
    )
    return Group(*parts)
