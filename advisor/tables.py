"""Rich renderables for the command line: deals, simulations, odds, progress bars, and the
chance texts every table shares; builders return them and never print. Advice for a kingdom is
in :mod:`advisor.advice_tables`, the options of a decision in :mod:`advisor.move_tables`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from rich import box
from rich.console import Console, Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from search.game import CardSet, Ruler
from search.tours import Chance, SimulationResult
from search.visit import KingdomResult, Position

from .notation import cards_text, ruler_text, suit_text

BEST_STYLE = "bold green"
_EIGHTHS = " ▏▎▍▌▋▊▉"


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
    return Group(table, summary, *kingdom_views([result]))


def kingdom_views(results: list[SimulationResult]) -> list:
    """Per policy, each kingdom's hit rate when visited (95% Wilson CI) and at which visit the
    tours went there (share of the tours); a note for results saved without visits."""
    views: list = []
    for result in results:
        if result.visits is None:
            views.append(
                Text(f"{result.policy}: no visit records (a checkpoint saved before them)")
            )
            continue
        kingdoms = result.config.kingdoms
        table = Table(
            title=f"{result.policy}: each kingdom when visited, and at which visit",
            box=box.SIMPLE_HEAD,
            padding=(0, 1),
        )
        short = result.config.short  # targets 2 4 6 8; on the standard tour kingdom n needs n
        for column in ("kingdom", *(("target",) if short else ()), "visits", "hit %", "95% CI"):
            table.add_column(column, justify="right")
        for number in range(1, kingdoms + 1):
            table.add_column(f"v{number}", justify="right")
        order = result.visit_order()
        for k, (visits, _, rate, low, high) in enumerate(result.kingdom_rates(), start=1):
            shares = [f"{100 * n / result.tours:.0f}" if n else "" for n in order[k - 1]]
            target = (str(result.config.target(k)),) if short else ()
            rates = (
                (f"{100 * rate:.1f}", f"{100 * low:.1f}–{100 * high:.1f}") if visits else ("–", "")
            )
            table.add_row(str(k), *target, str(visits), *rates, *shares)
        views.append(table)
    if any(result.visits is not None for result in results):
        views.append(
            Text(
                "hit %: the visits that won exactly the target (95% Wilson interval). "
                "vn: the tours whose n-th visit went to the kingdom, in % of all tours."
            )
        )
    return views


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
            result.policy,
            f"{mean:.3f}",
            f"{mean_low:.3f}–{mean_high:.3f}",
            f"{100 * rate:.2f}%",
            f"{100 * rate_low:.2f}–{100 * rate_high:.2f}%",
        )
    spread = Table(title="Tours by score")
    spread.add_column("score", justify="right")
    for result in results:
        spread.add_column(result.policy, justify="right")
    for score in range(first.config.perfect_score + 1):
        spread.add_row(str(score), *(str(r.scores[score]) for r in results))
    return Group(summary, spread, *kingdom_views(results))


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


def percent_cell(p: float) -> str:
    """A percentage with two decimals, right-aligned in 7 characters, for a table column."""
    return f"{100 * p:6.2f}%"


def _bar(p: float, width: int = 20) -> str:
    return "█" * round(width * p)


def estimate_sentence(result: KingdomResult) -> str:
    """What an estimated chance is, in one sentence: the policy's estimate with its interval,
    and the proven lower bound beside it (shown instead where it is higher)."""
    low, high = result.interval
    cut = "the exact search ran out of time or memory"
    if result.policy == "lookahead":
        what = (
            f"ESTIMATE of the lookahead policy's chance, from {result.playouts} Monte Carlo "
            f"playouts paired with exact play of its base (95% CI of that policy's chance "
            f"{percent_cell(low).strip()}–{percent_cell(high).strip()}); {cut}"
        )
    else:
        what = (
            f"ESTIMATE from {result.playouts} Monte Carlo playouts of the {result.policy} "
            f"fallback policy (95% CI of its success rate {percent_cell(low).strip()}–"
            f"{percent_cell(high).strip()}); {cut}"
        )
    if result.bound and result.bound >= result.chance:
        return (
            f"Chance ≥ {percent_cell(result.bound).strip()} — PROVEN lower bound (the exact "
            f"chance with some abilities left unused); the policy's own {what}."
        )
    proven = (
        f" Proven lower bound: {percent_cell(result.bound).strip()} (exact, some abilities "
        "left unused)."
        if result.bound
        else ""
    )
    return f"Chance ≈ {percent_cell(result.chance).strip()} — {what}. Best play does at least as well.{proven}"


def odds_view(position: Position, result: KingdomResult, ascii: bool) -> Group:
    """The chance, the options ranked best first with their loss, and the wins distribution."""
    trump = suit_text(position.trump, ascii)
    head = Text.assemble(
        "Hand ",
        cards_text(position.hand, ascii),
        "  trump ",
        trump,
        f"  target {position.target}",
        f"  (wins so far {position.wins})" if position.wins else "",
    )
    if result.estimate:
        verdict = Text(estimate_sentence(result), style="yellow")
        return Group(head, verdict, _distribution_table(result))
    verdict = Text.assemble(
        ("Chance ", "bold"),
        (percent_cell(result.chance).strip(), "bold green"),
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
            percent_cell(chance),
            "" if chance == result.chance else percent_cell(result.chance - chance),
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
        table.add_row(str(wins), percent_cell(p), _bar(p))
    return table


# --- chances, as every table writes them -------------------------------------------------


def percent_text(p: float, estimate: bool = False, ascii: bool = False) -> str:
    """A whole percentage that never rounds a chance to a certainty or to nothing; ``≈`` (or
    ``~``) marks an estimate. An estimate within half a point of 0 or 1 shows one decimal
    rather than a second mark (issue 18: not ``≈>99%``).

    >>> percent_text(0.4149), percent_text(0.996), percent_text(0.997, estimate=True, ascii=True)
    ('41%', '>99%', '~99.7%')
    """
    if estimate and (0 < p < 0.005 or 0.995 <= p < 1 - 1e-9):
        return ("~" if ascii else "≈") + _one_decimal(p)
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


def _one_decimal(p: float) -> str:
    """A percentage near 0 or 1 with one decimal, never shown as 0.0% or 100.0%."""
    return f"{min(max(100 * p, 0.1), 99.9):.1f}%"


def chance_text(chance: Chance, ascii: bool = False) -> str:
    """A chance with the mark of its kind: none if exact, ``≈`` (``~``) for an estimate,
    ``≥`` (``>=``) for a proven lower bound.

    >>> chance_text(Chance(0.92, bound=True, floor=0.92)), chance_text(Chance(0.997, bound=True))
    ('≥92%', '≥99%')
    >>> chance_text(Chance(0.003, bound=True), ascii=True)  # not '>=<1%'
    '>=0.3%'
    """
    if chance.kind != "bound" or chance.value >= 1 - 1e-9:  # a bound of 1 is the chance
        return percent_text(chance.value, chance.estimate, ascii)
    if 0.995 <= chance.value < 1 - 1e-9:
        text = "99%"
    elif 0 < chance.value < 0.005:
        text = _one_decimal(chance.value)
    else:
        text = percent_text(chance.value)
    return (">=" if ascii else "≥") + text


def mini_bar(p: float, width: int = 3, ascii: bool = False) -> str:
    """A bar ``width`` characters wide, in eighths of a block (``#`` per whole cell in ASCII)."""
    p = min(max(p, 0.0), 1.0)
    if ascii:
        return ("#" * round(width * p)).ljust(width)
    eighths = round(8 * width * p)
    bar = "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")
    return bar.ljust(width)


def estimate_mark(ascii: bool) -> str:
    """The one mark of an estimate: ``≈``, or ``~`` in ASCII."""
    return "~" if ascii else "≈"
