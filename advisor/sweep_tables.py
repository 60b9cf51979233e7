"""Rich renderables for sweeps: the summary tables and the progress display."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console, Group
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

SUIT_SYMBOLS = dict(zip("CDHS", "♣♦♥♠"))
SPARKS = " ▁▂▃▄▅▆▇█"
ASCII_SPARKS = " .:-=+*#%@"
LOG_EVERY = 10.0  # seconds between progress lines when stderr is not a terminal


def trumps_text(trumps: str, ascii: bool = False) -> str:
    """``any`` or the trump suits, e.g. ``♦♥♠``."""
    if trumps == "any" or ascii:
        return trumps
    return "".join(SUIT_SYMBOLS[letter] for letter in trumps)


def sparkline(shares: list[float], ascii: bool = False) -> str:
    """One character a bin, its height scaled to the tallest bin.

    >>> sparkline([0.0, 0.5, 1.0], ascii=True)
    ' =@'
    """
    sparks = ASCII_SPARKS if ascii else SPARKS
    top = max(shares) or 1.0
    return "".join(sparks[round((len(sparks) - 1) * share / top)] for share in shares)


def _percent(p: float | None) -> str:
    return "—" if p is None else f"{100 * p:.2f}%"


def summary_view(summary: dict, ascii: bool = False) -> Group:
    """One table a trump case: each target's mean chance, shares of 0 and 1, histogram."""
    parameters = summary["parameters"]
    sampled = summary["mode"] == "sample"
    tour = "short tour" if parameters["short"] else "standard tour"
    hands = f"{summary['hands_per_trump']:,} " + (
        f"sampled hands (seed {parameters['seed']})" if sampled else "hands (all)"
    )
    groups: dict[str, list[dict]] = {}
    for entry in summary["results"]:
        groups.setdefault(entry["trumps"], []).append(entry)
    tables = []
    capped = any(entry["capped_share"] for entry in summary["results"])
    for trumps, entries in groups.items():
        table = Table(
            title=f"abilities {parameters['abilities']}, trump {trumps_text(trumps, ascii)}: "
            f"{hands}, {tour}"
        )
        table.add_column("target", justify="right")
        table.add_column("mean chance", justify="right")
        if sampled:
            table.add_column("95% CI", justify="right")
        table.add_column("chance 0", justify="right")
        table.add_column("chance 1", justify="right")
        table.add_column("histogram 0..1", justify="left")
        if capped:
            table.add_column("capped", justify="right")
        for entry in entries:
            cells: list[str | Text] = [str(entry["target"]), _percent(entry["mean"])]
            if sampled:
                low, high = entry["mean_ci95"]
                cells.append(f"{100 * low:.2f}–{100 * high:.2f}%")
            cells += [_percent(entry["share_zero"]), _percent(entry["share_one"])]
            histogram = entry["histogram"]
            cells.append(Text("|" + sparkline(histogram, ascii) + "|") if histogram else "—")
            if capped:
                cells.append(_percent(entry["capped_share"]))
            table.add_row(*cells)
        tables.append(table)
    note = Text(
        "chance = P(exactly `target` wins) with optimal play from the 8 cards drawn; "
        "histogram: hands by chance in 10 bins of 0.1"
    )
    return Group(*tables, note)


def overall_entries(summary: dict) -> dict[int, dict]:
    """Each target's entry for a kingdom of any trump: the mixed ``any`` entries when the
    sweep solved several trump cases (Military), else its one case."""
    entries = summary["results"]
    if any(entry["trumps"] == "any" for entry in entries):
        entries = [entry for entry in entries if entry["trumps"] == "any"]
    return {entry["target"]: entry for entry in entries}


def comparison_view(summaries: list[dict]) -> Group:
    """Mean chance a target, one column a sweep (its abilities; sampled: with 95% CI)."""
    table = Table(title="mean chance by target, kingdom of any trump")
    table.add_column("target", justify="right")
    columns = [overall_entries(summary) for summary in summaries]
    for summary in summaries:
        hands = f"{summary['hands_per_trump']:,}" if summary["mode"] == "sample" else "all"
        table.add_column(f"{summary['parameters']['abilities']}\n{hands} hands", justify="right")
    for target in sorted(columns[0]):
        cells = [str(target)]
        for column in columns:
            entry = column.get(target)
            if entry is None or entry["mean"] is None:
                cells.append("—")
            elif "mean_ci95" in entry:
                low, high = entry["mean_ci95"]
                cells.append(f"{_percent(entry['mean'])}\n{100 * low:.1f}–{100 * high:.1f}")
            else:
                cells.append(_percent(entry["mean"]))
        table.add_row(*cells)
    note = Text(
        "each column one sweep's summary, under a sampled mean its 95% CI; "
        "an ability never lowers a hand's chance"
    )
    return Group(table, note)


class _RateColumn(ProgressColumn):
    """Hands solved a second, over rich's recent window."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.0f} hands/s")


@contextmanager
def sweep_progress(enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A callback taking (hands done, hands in all): a rich bar with rate and ETA on a
    terminal, a log line every few seconds otherwise (e.g. under nohup)."""
    if not enabled:
        yield lambda done, total: None
        return
    console = Console(stderr=True)
    if not console.is_terminal:
        yield _log_lines(console)
        return
    columns = (
        TextColumn("sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        task = None

        def tick(done: int, total: int) -> None:
            nonlocal task
            if task is None:  # the first call gives what a resume has done already
                task = progress.add_task("sweep", total=total, completed=done)
            progress.update(task, completed=done)

        yield tick


def _log_lines(console: Console) -> Callable[[int, int], None]:
    start: list[float | int] = []  # (time, hands done) of the first call
    last = [0.0]

    def tick(done: int, total: int) -> None:
        now = time.monotonic()
        if not start:
            start.extend((now, done))
        if now - last[0] < LOG_EVERY and done < total:
            return
        last[0] = now
        elapsed = now - start[0]
        rate = (done - start[1]) / elapsed if elapsed > 0 else 0.0
        eta = f"{(total - done) / rate:,.0f} s" if rate > 0 else "?"
        console.print(
            f"sweep: {done:,}/{total:,} hands ({100 * done / total:.1f}%), "
            f"{rate:,.0f} hands/s, elapsed {elapsed:,.0f} s, ETA {eta}",
            highlight=False,
        )

    return tick
