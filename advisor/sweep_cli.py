"""The ``sweep`` and ``sweep-report`` commands: thin typer commands over :mod:`search.sweep.runner`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from search.sweep import (
    DEFAULT_CHUNK_SIZE,
    SUMMARY,
    SweepError,
    SweepSpec,
    chunk_counts,
    open_executor,
    read_summary,
    run_sweep,
)

from .notation import parse_suits, quote
from .options import Interrupted, check_path, check_seconds, check_seed, check_workers, new_console
from .streams import printable
from .sweep_tables import comparison_view, summary_view, sweep_progress


def register(app: typer.Typer) -> None:
    """Add ``sweep`` and ``sweep-report`` to the ``emissary`` app."""
    app.command("sweep")(sweep)
    app.command("sweep-report")(sweep_report)


def jacks_letters(text: str) -> str:
    """The Jacks in play as CDHS letters in that order, from e.g. ``HC``; ``none`` for none."""
    try:
        suits = parse_suits(text)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--abilities") from None
    if len(set(suits)) != len(suits):
        raise typer.BadParameter(
            f"each Jack can be listed once, got {quote(text)}", param_hint="--abilities"
        )
    return "".join(suit.letter for suit in sorted(suits))


def sweep(
    out: Annotated[str, typer.Option("--out", help="Directory for the chunks and the summary.")],
    abilities: Annotated[
        str, typer.Option("--abilities", help="Jacks in play: 'none' or letters, e.g. HC or HCSD.")
    ] = "none",
    short: Annotated[
        bool, typer.Option("--short", help="Short tour: targets 2 4 6 8, Politics pool of 3 Kings.")
    ] = False,
    sample: Annotated[
        int | None,
        typer.Option("--sample", help="Solve a seeded uniform sample of N hands, not all hands."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the sample.")] = 1,
    workers: Annotated[
        int | None, typer.Option("--workers", help="Local worker processes (default: all cores).")
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786."),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option("--resume", help="Continue the sweep in --out, skipping finished chunks."),
    ] = False,
    chunk_size: Annotated[
        int, typer.Option("--chunk-size", help="Rows (hand classes) a chunk file holds.")
    ] = DEFAULT_CHUNK_SIZE,
    cap: Annotated[
        float | None,
        typer.Option("--cap", help="Seconds a hand's solve may take; past it the hand is capped."),
    ] = None,
    ascii: Annotated[bool, typer.Option("--ascii", help="Print suits as letters C D H S.")] = False,
) -> None:
    """Exact chance of every 8-card hand (or a sample) at every kingdom; resumable."""
    if sample is not None and sample < 1:
        raise typer.BadParameter("sample at least 1 hand", param_hint="--sample")
    check_seed(seed)
    if chunk_size < 1:
        raise typer.BadParameter("a chunk holds at least 1 row", param_hint="--chunk-size")
    check_seconds(cap, "--cap")
    check_workers(workers)
    check_path(out, "--out")
    out = Path(out)
    spec = SweepSpec(
        jacks=jacks_letters(abilities),
        short=short,
        sample=sample,
        seed=seed,
        chunk_size=chunk_size,
        cap=cap,
    )
    try:
        with (
            open_executor(workers or os.cpu_count() or 1, scheduler) as (executor, slots),
            sweep_progress() as tick,
        ):
            run = run_sweep(
                spec, out, executor, slots, resume=resume, progress=tick, notice=_notice
            )
    except KeyboardInterrupt:
        done, planned = chunk_counts(out)
        raise Interrupted(
            f"interrupted: {done} of {planned} chunks are saved in {out}; continue with --resume"
        ) from None
    console = new_console()
    console.print(summary_view(run.summary, ascii))
    rate = run.hands / run.seconds if run.seconds > 0 else 0.0
    console.print(
        f"solved {run.chunks} chunks, {run.hands:,} hands in {run.seconds:,.1f} s "
        f"({rate:,.0f} hands/s); summary in {out / SUMMARY}"
    )


def _notice(message: str) -> None:
    """A line on stderr about the sweep's files (a damaged chunk solved again)."""
    try:
        sys.stderr.write(f"emissary: {printable(message)}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def sweep_report(
    directories: Annotated[
        list[Path],
        typer.Argument(
            help="A sweep's --out directory or summary file; with several, one table "
            "comparing their mean chances (e.g. one sweep per Jack)."
        ),
    ],
    plots: Annotated[
        Path | None, typer.Option("--plots", help="Also write PNG plots into this directory.")
    ] = None,
    ascii: Annotated[bool, typer.Option("--ascii", help="Print suits as letters C D H S.")] = False,
) -> None:
    """Print a finished sweep's summary as tables (optionally plotted), or compare several."""
    summaries = [read_summary(directory) for directory in directories]
    if plots is not None and len(summaries) > 1:
        raise SweepError("--plots draws one sweep: give one directory")
    if len({summary["parameters"]["short"] for summary in summaries}) > 1:
        raise SweepError("cannot compare a short-tour sweep with a standard one")
    if plots is not None:
        from .sweep_plots import sweep_plots  # matplotlib only when asked for

        written = sweep_plots(summaries[0], plots)
    console = new_console()
    if len(summaries) == 1:
        console.print(summary_view(summaries[0], ascii))
    else:
        console.print(comparison_view(summaries))
    if plots is not None:
        console.print("plots: " + ", ".join(str(path) for path in written))
