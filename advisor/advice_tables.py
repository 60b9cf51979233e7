"""The tables of ``advise``: which kingdom to visit, a chance per kingdom and ability set,
the tour values, the reason, and the progress bar of the search."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich import box
from rich.console import Console, Group
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from search.game import Suit, TourState
from search.tours import COLUMNS, Chance, Column, VisitAdvice

from .notation import cards_text, ruler_str, ruler_text, suit_str
from .tables import BEST_STYLE, chance_text, mini_bar

COLUMN_TITLES = {Column.NONE: "none", Column.JACKS: "Jacks", Column.ALL: "all"}
ASCII_SIMPLE_HEAD = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)
"""rich's SIMPLE_HEAD drawn in ASCII: a rule under the header, no other lines."""


def _column_title(column: str, ascii: bool) -> str:
    if column in COLUMN_TITLES:
        return COLUMN_TITLES[column]
    suit = Suit.from_letter(column)
    return f"{suit_str(suit, ascii)} {suit.ability[:3]}"


def _column_name(column: str) -> str:
    if column in COLUMN_TITLES:
        return {
            Column.NONE: "no ability",
            Column.JACKS: "all four Jacks",
            Column.ALL: "every ability",
        }[column]
    if len(column) > 1:  # a subset solved only as a lower bound
        return " and ".join(Suit.from_letter(letter).ability for letter in column)
    suit = Suit.from_letter(column)
    return f"{suit.ability} alone"


def _chance_cell(chance: Chance, best: bool, ascii: bool) -> Text:
    # Colour is not always seen (no colour, colour blindness): the best cell carries a '*'.
    text = chance_text(chance, ascii)
    style = BEST_STYLE if best else ("yellow" if chance.kind != "exact" else "")
    mark = "*" if best else " "
    return Text.assemble(
        (f"{text:>4}", style), mark, (mini_bar(chance.value, width=2, ascii=ascii), "cyan")
    )


def advice_reason(advice: VisitAdvice, ascii: bool = False) -> str:
    """One line: the recommended kingdom and why."""
    best = advice.recommended
    chance = best.chance(Column.ALL)
    value = best.tour_value
    return (
        f"Visit kingdom {best.position} ({ruler_str(best.ruler, ascii)}, target {best.target}): "
        f"the best {tour_value_name(value)}, {tour_value_text(value, interval=True)}"
        f"{spend_text(value, ascii)}; this visit's chance {chance_text(chance, ascii)} "
        "with every Jack and supporter."
    )


def _cuts_text(advice: VisitAdvice) -> str:
    """What the clock cut short, each in its own unit: exact solves (beside the finished ones
    counted first) and estimates (of those counted)."""
    solves = advice.clock_cuts - advice.estimate_cuts
    parts = []
    if solves:
        parts.append(f"{solves} more solve{'s' if solves != 1 else ''}")
    if advice.estimate_cuts:
        parts.append(f"{advice.estimate_cuts} of the {advice.estimates} estimates")
    return " and ".join(parts)


def too_close_text(advice: VisitAdvice) -> str:
    """The kingdoms the budget cannot separate from the recommended one, and what would."""
    kingdoms = sorted((advice.recommended.position, *advice.too_close))
    names = ", ".join(str(k) for k in kingdoms[:-1]) + f" or {kingdoms[-1]}"
    spent = "" if advice.time_limit is None else f" in {advice.time_limit:g} s"
    longer = max(15.0, 5 * (advice.time_limit or 3.0))
    return (
        f"Kingdom {names}: too close to call{spent} (cells left to estimates could "
        f"change the order); --time-limit {longer:g} decides."
    )


def spend_text(value, ascii: bool = False) -> str:
    """What a tour value counts on: a supporter whose point it spends, if any."""
    if value.spend is None:
        return ""
    suit = Suit(value.spend)
    return f", counting on the {suit.letter if ascii else suit.symbol} supporter ({suit.ability}; its point spent)"


def tour_value_name(value) -> str:
    """What a tour value measures."""
    return "chance of a perfect tour" if value.objective == "perfect" else "expected final score"


def tour_value_text(value, interval: bool = False) -> str:
    """A tour value (a score, or a percentage for a perfect tour), with its 95% interval."""
    if value.objective == "perfect":
        show = lambda v: f"{100 * v:.1f}%"
    else:
        show = lambda v: f"{v:.2f}"
    text = show(value.value)
    if interval:
        text += f" (95% CI {show(value.low)}-{show(value.high)})"
    return text


def tour_values_line(advice: VisitAdvice) -> str:
    """Every kingdom's tour value, best first."""
    ranked = sorted(advice.kingdoms, key=lambda k: -k.tour_value.value)
    values = ", ".join(f"#{k.position} {tour_value_text(k.tour_value)}" for k in ranked)
    return (
        f"{tour_value_name(ranked[0].tour_value).capitalize()} if visited now: {values}. "
        "Planning model: the best of Diplomacy with Politics, Commerce alone and Military alone, "
        "calibrated against the advisor's play of every Jack; a Diplomacy or Politics supporter "
        "counted on only where worth its point, else kept (docs/tour-value.md)."
    )


def advise_view(advice: VisitAdvice, tour: TourState, ascii: bool = False) -> Group:
    """One row per unvisited kingdom, a column per ability set, best cells highlighted; then
    the recommended kingdom and the reason."""
    used = [s.ruler for s in tour.supporters if s.used]
    unused = tour.unused_supporters
    head = Text.assemble("Hand ", cards_text(advice.hand, ascii))
    if unused or used:
        head.append("  supporters ")
        head.append(" ".join(ruler_str(r, ascii) for r in unused) or "none")
        if used:
            head.append(" (used " + " ".join(ruler_str(r, ascii) for r in used) + ")")
    table = Table(
        box=ASCII_SIMPLE_HEAD if ascii else box.SIMPLE_HEAD,
        padding=(0, 0),
        pad_edge=False,
        show_edge=False,
        title_justify="left",
    )
    table.add_column("#", justify="right")
    table.add_column("ruler")
    table.add_column("target", justify="right")
    for column in COLUMNS:
        table.add_column(_column_title(column, ascii), justify="left", no_wrap=True)
    best = {column: max(k.chance(column).value for k in advice.kingdoms) for column in COLUMNS}
    for kingdom in advice.kingdoms:
        cells = [
            _chance_cell(kingdom.chance(c), kingdom.chance(c).value >= best[c] - 1e-12, ascii)
            for c in COLUMNS
        ]
        row_style = "bold" if kingdom is advice.recommended else ""
        table.add_row(
            Text(str(kingdom.position), style=row_style),
            ruler_text(kingdom.ruler, ascii),
            str(kingdom.target),
            *cells,
        )
    legend = Text(
        "target: the wins the kingdom needs. Chances of exactly the target with best play: no "
        "ability, each Jack alone, all four Jacks, and all: Jacks and unused supporters. "
        "* marks the best of each column.",
        style="dim",
    )
    parts = [head, table, legend]
    if any(c.estimate for k in advice.kingdoms for c in k.chances):
        mark = "~" if ascii else "≈"
        parts.append(
            Text(
                f"{mark} marks a Monte Carlo estimate: the exact search ran out of time or memory "
                "(--time-limit), so the cell estimates the chance of one policy (with every Jack: "
                "the lookahead policy; its interval in --json). Best play does at least as well.",
                style="yellow",
            )
        )
    if any(c.kind == "bound" and c.value < 1 - 1e-9 for k in advice.kingdoms for c in k.chances):
        mark = ">=" if ascii else "≥"
        parts.append(
            Text(
                f"{mark} marks a proven lower bound: the exact chance with fewer abilities "
                "(a Jack left unused), shown where it beat the fallback policy's estimate "
                "or that estimate's 95% interval spanned over 50 points.",
                style="yellow",
            )
        )
    parts.append(Text(tour_values_line(advice), style="dim"))
    parts.append(Text(advice_reason(advice, ascii), style="bold"))
    if advice.too_close:
        parts.append(Text(too_close_text(advice), style="bold yellow"))
    parts.append(
        Text(
            f"{advice.solves} solves, {advice.estimates} estimates, {advice.seconds:.1f} s"
            + (
                f"; the clock stopped {_cuts_text(advice)} before their work was done, so this "
                "table may differ on another run or machine"
                if advice.clock_cuts
                else "; work decided what is exact, so this table repeats"
            ),
            style="dim",
        )
    )
    return Group(*parts)


@contextmanager
def advise_progress(
    tour: TourState, ascii: bool = False, enabled: bool = True
) -> Iterator[Callable[[int, int, str, int], None]]:
    """A transient progress bar on stderr for :func:`search.tours.advice.advise_visit`, shown only
    when stderr is a terminal (a redirected stderr gets no stray lines)."""
    console = Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield lambda done, total, column, position: None
        return
    bar = () if ascii else (BarColumn(bar_width=20),)  # rich draws its bars in Unicode only
    columns = (
        SpinnerColumn("line" if ascii else "dots"),
        TextColumn("{task.description}"),
        *bar,
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, transient=True, console=console) as progress:
        task = progress.add_task("solving", total=None)

        def update(done: int, total: int, column: str, position: int) -> None:
            label = "solving"
            if position:
                ruler = ruler_str(tour.rulers[position - 1], ascii)
                label = f"{_column_name(column)}: kingdom {position} ({ruler})"
            progress.update(task, completed=done, total=total, description=label)

        yield update
