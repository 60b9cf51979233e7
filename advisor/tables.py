"""Rich renderables for the command line; builders return them and never print."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
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
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from search.game import CardSet, Ruler, Suit, TourState, wins_debate
from search.tours import COLUMNS, Chance, Move, MoveAdvice, SimulationResult, VisitAdvice
from search.visit import KingdomResult, Position

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


def deal_view(
    seed: int, layout: Sequence[Ruler], targets: Sequence[int], hand: CardSet, ascii: bool
) -> Group:
    """The ruler layout as a row of kingdoms, then the first hand."""
    table = Table(title=f"Deal {seed}", show_header=True)
    table.add_column("kingdom", justify="right")
    for position in range(1, len(layout) + 1):
        table.add_column(str(position), justify="center")
    table.add_row("ruler", *(ruler_text(r, ascii) for r in layout))
    table.add_row("target", *(str(t) for t in targets))
    return Group(table, Text.assemble("First hand: ", cards_text(hand, ascii)))


def simulation_view(result: SimulationResult) -> Group:
    """The score distribution, mean score and perfect-tour rate with 95% CIs."""
    mean, mean_low, mean_high = result.mean_score
    rate, rate_low, rate_high = result.perfect_rate
    tour = "short tour" if result.config.short else "standard tour"
    table = Table(title=f"{result.tours} {tour}s, policy {result.policy}, seed {result.seed}")
    table.add_column("score", justify="right")
    table.add_column("tours", justify="right")
    table.add_column("share", justify="right")
    table.add_column("", justify="left")
    top = max(result.scores) or 1
    for score, count in enumerate(result.scores):
        share = count / result.tours
        table.add_row(str(score), str(count), f"{100 * share:.1f}%", "█" * round(20 * count / top))
    summary = Text(
        f"mean score {mean:.3f} (95% CI {mean_low:.3f}–{mean_high:.3f})\n"
        f"perfect tours {result.perfect} = {100 * rate:.2f}% "
        f"(95% Wilson CI {100 * rate_low:.2f}–{100 * rate_high:.2f}%)"
    )
    return Group(table, summary)


def comparison_view(results: list[SimulationResult]) -> Group:
    """Several policies on the same seeded tours, side by side: mean score and perfect rate
    with their 95% intervals, then the score distributions."""
    first = results[0]
    tour = "short tour" if first.config.short else "standard tour"
    summary = Table(title=f"{first.tours} {tour}s a policy, seed {first.seed}")
    for column in ("policy", "mean score", "95% CI", "perfect tours", "95% Wilson CI"):
        summary.add_column(column, justify="left" if column == "policy" else "right")
    for result in results:
        mean, mean_low, mean_high = result.mean_score
        rate, rate_low, rate_high = result.perfect_rate
        summary.add_row(
            result.policy, f"{mean:.3f}", f"{mean_low:.3f}–{mean_high:.3f}",
            f"{100 * rate:.2f}%", f"{100 * rate_low:.2f}–{100 * rate_high:.2f}%",
        )
    spread = Table(title="Tours by score")
    spread.add_column("score", justify="right")
    for result in results:
        spread.add_column(result.policy, justify="right")
    for score in range(first.config.perfect_score + 1):
        spread.add_row(str(score), *(str(r.scores[score]) for r in results))
    return Group(summary, spread)


@contextmanager
def progress_bar(total: int, label: str, enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on stderr, if a terminal; yields a callback taking the count done."""
    console = Console(stderr=True)
    if not enabled or not console.is_terminal:  # piped: not even the blank line it leaves
        yield lambda done: None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=True, console=console) as progress:
        task = progress.add_task(label, total=total)
        yield lambda done: progress.update(task, completed=done)


@contextmanager
def spinner(label: str, enabled: bool = True, ascii: bool = False) -> Iterator[None]:
    """A transient rich spinner on stderr, if a terminal, while a computation runs (drawn
    with ``-\\|/`` with ``ascii``)."""
    console = Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield
        return
    with console.status(label, spinner="line" if ascii else "dots"):
        yield


def _percent(p: float) -> str:
    return f"{100 * p:6.2f}%"


def _bar(p: float, width: int = 20) -> str:
    return "█" * round(width * p)


def odds_view(position: Position, result: KingdomResult, ascii: bool) -> Group:
    """The chance, the options ranked best first with their loss, and the wins distribution."""
    trump = suit_text(position.trump, ascii)
    head = Text.assemble(
        "Hand ", cards_text(position.hand, ascii), "  trump ", trump,
        f"  target {position.target}",
        f"  (wins so far {position.wins})" if position.wins else "",
    )
    if result.estimate:
        low, high = result.interval
        verdict = Text(
            f"Chance ≈ {_percent(result.chance).strip()} — ESTIMATE from {result.playouts} "
            f"Monte Carlo playouts (95% CI {_percent(low).strip()}–{_percent(high).strip()}); "
            "the exact search ran out of time or memory. The fallback policy never beats optimal play.",
            style="yellow",
        )
        return Group(head, verdict, _distribution_table(result))
    verdict = Text.assemble(
        ("Chance ", "bold"),
        (_percent(result.chance).strip(), "bold green"),
        f" = {result.chance_exact}" if result.chance_exact is not None else "",
        "  best: ",
        (result.best.describe(ascii), "bold"),
    )
    options = Table(title="Options", title_justify="left")
    options.add_column("option")
    options.add_column("chance", justify="right")
    options.add_column("loss", justify="right")
    options.add_column("")
    ranked = sorted(result.options, key=lambda item: -item[1])
    for option, chance in ranked:
        options.add_row(
            option.describe(ascii),
            _percent(chance),
            "" if chance == result.chance else _percent(result.chance - chance),
            _bar(chance),
        )
    footer = Text(f"{result.states:,} states, {result.seconds:.3f} s", style="dim")
    return Group(head, verdict, options, _distribution_table(result), footer)


def _distribution_table(result: KingdomResult) -> Table:
    how = "fallback playouts" if result.estimate else "best play for the target"
    table = Table(title="Wins at the end", caption=how, title_justify="left")
    table.add_column("wins", justify="right")
    table.add_column("chance", justify="right")
    table.add_column("")
    for wins, p in enumerate(result.distribution):
        table.add_row(str(wins), _percent(p), _bar(p))
    return table


# --- advise: which kingdom ---------------------------------------------------------------

COLUMN_TITLES = {"none": "none", "jacks": "Jacks", "all": "all"}
ASCII_SIMPLE_HEAD = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)
"""rich's SIMPLE_HEAD drawn in ASCII: a rule under the header, no other lines."""
_EIGHTHS = " ▏▎▍▌▋▊▉"
BEST_STYLE = "bold green"


def _column_title(column: str, ascii: bool) -> str:
    if column in COLUMN_TITLES:
        return COLUMN_TITLES[column]
    suit = Suit.from_letter(column)
    return f"{suit_str(suit, ascii)} {suit.ability[:3]}"


def _column_name(column: str) -> str:
    if column in COLUMN_TITLES:
        return {"none": "no ability", "jacks": "all four Jacks", "all": "every ability"}[column]
    if len(column) > 1:  # a subset solved only as a lower bound
        return " and ".join(Suit.from_letter(letter).ability for letter in column)
    suit = Suit.from_letter(column)
    return f"{suit.ability} alone"


def percent_text(p: float, estimate: bool = False, ascii: bool = False) -> str:
    """A whole percentage that never rounds a chance to a certainty or to nothing; ``≈`` (or
    ``~``) marks an estimate.

    >>> percent_text(0.4149), percent_text(0.996), percent_text(0.001, estimate=True, ascii=True)
    ('41%', '>99%', '~<1%')
    """
    if p <= 0:
        text = "0%"
    elif p < 0.005:
        text = "<1%"
    elif p >= 1 - 1e-9:
        text = "100%"
    elif p >= 0.995:
        text = ">99%"
    else:
        text = f"{round(100 * p)}%"
    return ("~" if ascii else "≈") + text if estimate else text


def chance_text(chance: Chance, ascii: bool = False) -> str:
    """A chance with the mark of its kind: none if exact, ``≈`` (``~``) for an estimate,
    ``≥`` (``>=``) for a proven lower bound.

    >>> chance_text(Chance(0.92, bound=True, floor=0.92)), chance_text(Chance(0.997, bound=True))
    ('≥92%', '≥99%')
    """
    if chance.kind != "bound" or chance.value >= 1 - 1e-9:  # a bound of 1 is the chance
        return percent_text(chance.value, chance.estimate, ascii)
    text = "99%" if 0.995 <= chance.value < 1 - 1e-9 else percent_text(chance.value)
    return (">=" if ascii else "≥") + text


def mini_bar(p: float, width: int = 3, ascii: bool = False) -> str:
    """A bar ``width`` characters wide, in eighths of a block (``#`` per whole cell in ASCII)."""
    p = min(max(p, 0.0), 1.0)
    if ascii:
        return ("#" * round(width * p)).ljust(width)
    eighths = round(8 * width * p)
    bar = "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")
    return bar.ljust(width)


def _chance_cell(chance: Chance, best: bool, ascii: bool) -> Text:
    # Colour is not always seen (no colour, colour blindness): the best cell carries a '*'.
    text = chance_text(chance, ascii)
    style = BEST_STYLE if best else ("yellow" if chance.kind != "exact" else "")
    mark = "*" if best else " "
    return Text.assemble((f"{text:>4}", style), mark, (mini_bar(chance.value, width=2, ascii=ascii), "cyan"))


def advice_reason(advice: VisitAdvice, ascii: bool = False) -> str:
    """One line: the recommended kingdom and why."""
    best = advice.recommended
    chance = best.chance("all")
    value = best.tour_value
    return (
        f"Visit kingdom {best.position} ({ruler_str(best.ruler, ascii)}, target {best.target}): "
        f"the best {tour_value_name(value)}, {tour_value_text(value, interval=True)}; "
        f"this visit's chance {chance_text(chance, ascii)} "
        "with every Jack and supporter."
    )


def tour_value_name(value) -> str:
    """What a tour value measures."""
    return "chance of a perfect tour" if value.objective == "perfect" else "expected final score"


def tour_value_text(value, interval: bool = False) -> str:
    """A tour value (a score, or a percentage for a perfect tour), with its 95% interval."""
    if value.objective == "perfect":
        show = lambda v: f"{100 * v:.1f}%"  # noqa: E731
    else:
        show = lambda v: f"{v:.2f}"  # noqa: E731
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
        "Planning model: Diplomacy and Politics only, supporters kept (README, Tour value)."
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
    best = {
        column: max(k.chance(column).value for k in advice.kingdoms) for column in COLUMNS
    }
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
                "(--time-limit), so the cell is a fallback policy's success rate over playouts "
                "(its interval in --json). Best play does at least as well.",
                style="yellow",
            )
        )
    if any(c.kind == "bound" and c.value < 1 - 1e-9 for k in advice.kingdoms for c in k.chances):
        mark = ">=" if ascii else "≥"
        parts.append(
            Text(
                f"{mark} marks a proven lower bound: the exact chance with fewer abilities "
                "(a Jack left unused), which beat the fallback policy's estimate.",
                style="yellow",
            )
        )
    parts.append(Text(tour_values_line(advice), style="dim"))
    parts.append(Text(advice_reason(advice, ascii), style="bold"))
    parts.append(
        Text(
            f"{advice.solves} solves, {advice.estimates} estimates, {advice.seconds:.1f} s",
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


# --- move: what now ------------------------------------------------------------------------


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


def _wins_table(distribution: Sequence[float], ascii: bool) -> Table:
    table = Table(title="Wins at the end", title_justify="left",
                  box=box.ASCII2 if ascii else box.HEAVY_HEAD)
    table.add_column("wins", justify="right")
    table.add_column("chance", justify="right")
    table.add_column("")
    for wins, p in enumerate(distribution):
        table.add_row(str(wins), _percent(p), mini_bar(p, 20, ascii))
    return table


def move_view(advice: MoveAdvice, tour: TourState, ascii: bool = False) -> Group:
    """The visit now, the chance with best play, every option best first with its loss."""
    position = advice.position
    head = Text.assemble(
        f"Kingdom {advice.kingdom}: ", ruler_text(advice.ruler, ascii),
        " rules, trump ", suit_text(position.trump, ascii),
        f", target {position.target}, won so far {position.wins}",
    )
    hand = Text.assemble("Hand ", cards_text(position.hand, ascii))
    if position.waiting is not None:
        hand.append("   ruler's card ")
        hand.append_text(cards_text([position.waiting], ascii))
        hand.append(" waits")
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
    if chance.estimate:
        parts.append(
            Text(
                "ESTIMATES: the exact search ran out of time or memory, so each option's chance comes from "
                f"Monte Carlo playouts ({chance.playouts} for the best) of a fallback policy after "
                "it, in equal time for each option, every option on the same deck orders; "
                "options that draw cards get fewer playouts. Ranked by the estimate; each CI "
                "is the fallback policy's success rate after that option. "
                "Raise --time-limit for exact answers.",
                style="yellow",
            )
        )
    table = Table(title="Options, best first", title_justify="left",
                  box=box.ASCII2 if ascii else box.HEAVY_HEAD)
    table.add_column("option")
    table.add_column("chance", justify="right")
    table.add_column("loss", justify="right")
    table.add_column("95% CI" if chance.estimate else "")
    top = advice.moves[0].chance if advice.moves else None
    for move in advice.moves:
        # only the options level with the first row are styled best (ranked by value)
        style = BEST_STYLE if top is not None and move.chance >= top - 1e-12 else ""
        if move.estimate:
            low, high = move.interval
            last = f"{_percent(low).strip()}-{_percent(high).strip()}"
        else:
            last = mini_bar(move.chance, 12, ascii)
        table.add_row(
            Text(move_text(move, tour, ascii), style=style),
            percent_text(move.chance, move.estimate, ascii),
            "" if move.loss <= 1e-12 else _percent(move.loss),  # negative: less sure, not worse
            last,
        )
    parts.append(table)
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


def estimate_mark(ascii: bool) -> str:
    """The one mark of an estimate: ``≈``, or ``~`` in ASCII."""
    return "~" if ascii else "≈"


def supporter_gain(move: Move, moves: Sequence[Move]) -> float | None:
    """What a supporter's option gains over the best free option (None if none is free)."""
    free = [m.chance for m in moves if m.source is None]
    return move.chance - max(free) if free else None


def _option_gloss(move: Move, moves: Sequence[Move], advice: MoveAdvice, tour: TourState, ascii: bool) -> str:
    option = move.option
    if option.kind == "debate":
        return "debate now"
    if option.kind == "answer":
        waiting = advice.position.waiting
        won = waiting is not None and wins_debate(waiting, option.card, advice.position.trump)
        return f"answer {card_str(option.card, ascii)}: " + ("wins" if won else "loses")
    if option.kind == "discard":
        return "discard " + cards_str(option.cards, ascii)
    who = ruler_str(move.source, ascii) if move.source is not None else "J" + suit_str(option.suit, ascii)
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


def _interval_text(interval: tuple[float, float] | None) -> str:
    """A 95% interval in whole percents, rounded outwards (never narrower than it is)."""
    if interval is None:
        return ""
    low, high = interval
    return f"{math.floor(100 * low + 1e-9)}-{math.ceil(100 * high - 1e-9)}%"


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
    position = advice.position
    head = Text.assemble(
        f"Kingdom {advice.kingdom}: ", ruler_text(advice.ruler, ascii),
        " rules, trump ", suit_text(position.trump, ascii),
        f", target {position.target}, won so far {position.wins}",
    )
    hand = Text.assemble("Hand ", cards_text(position.hand, ascii))
    if position.waiting is not None:
        hand.append("   ruler's card ")
        hand.append_text(card_text(position.waiting, ascii))
        hand.append(" waits")
    first = moves[0]
    estimated = any(m.estimate for m in moves)
    mark = estimate_mark(ascii)
    best = Text.assemble(
        ("Advice: ", "bold"), (play_text(first), BEST_STYLE + " bold"),
        f", {_option_gloss(first, moves, advice, tour, ascii)}, chance ",
        (percent_text(first.chance, first.estimate, ascii), "bold"),
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
            percent_text(move.chance, move.estimate, ascii),
            "" if loss <= 1e-12 else f"{mark if move.estimate or first.estimate else ''}{100 * loss:.1f}%",
        ]
        if estimated:
            cells.append(_interval_text(move.interval))
        if supporters:
            cells.append(_spends(move, moves, ascii))
        table.add_row(*cells)
    parts.append(table)
    if len(moves) > rows:
        parts.append(Text(f"  ... and {len(moves) - rows} more: any legal play can be typed"))
    legend = "* the advice: Enter plays it. loss: its chance less the option's."
    if any(m.source is not None for m in moves):
        legend += " spends: a supporter used loses its point; the gain is over the best free option."
    parts.append(Text(legend, style="dim"))
    if estimated:
        parts.append(
            Text(
                f"{mark} estimate: the exact search ran out of time (--time-limit), so chances come "
                "from playouts of a fallback policy (95% CI); best play does at least as well.",
                style="yellow",
            )
        )
    spread = ", ".join(
        f"{wins}: {percent_text(p, advice.chance.estimate, ascii)}"
        for wins, p in enumerate(advice.distribution) if p >= 0.005
    )
    parts.append(Text(f"Wins at the end with best play: {spread} ({advice.seconds:.2f} s)", style="dim"))
    return Group(*parts)
