"""Rich renderables for the command line; builders return them and never print."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from rich.console import Console, Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from search.cards import CardSet, Ruler
from search.simulate import SimulationResult

from .notation import cards_text, ruler_text


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
