"""Rich renderables for the command line; builders return them and never print."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from rich.console import Console, Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from search.cards import CardSet, Ruler
from search.odds import KingdomResult, Position
from search.simulate import SimulationResult

from .notation import cards_text, ruler_text, suit_text


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


@contextmanager
def progress_bar(total: int, label: str, enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on stderr; yields a callback taking the count done so far."""
    if not enabled:
        yield lambda done: None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=True, console=Console(stderr=True)) as progress:
        task = progress.add_task(label, total=total)
        yield lambda done: progress.update(task, completed=done)


@contextmanager
def spinner(label: str, enabled: bool = True) -> Iterator[None]:
    """A transient rich spinner on stderr while a computation runs."""
    if not enabled:
        yield
        return
    with Console(stderr=True).status(label):
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
            "the exact search ran out of time. The fallback policy never beats optimal play.",
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
    table = Table(title="Wins at the end (best play for the target)", title_justify="left")
    table.add_column("wins", justify="right")
    table.add_column("chance", justify="right")
    table.add_column("")
    for wins, p in enumerate(result.distribution):
        table.add_row(str(wins), _percent(p), _bar(p))
    return table
