"""The ``deal`` and ``simulate`` commands: seeded deals, and tours played by policies."""

from __future__ import annotations

from typing import Annotated

import typer

from search.game import Deal, TourConfig
from search.tours import FIRST_EDITION_POLICIES, POLICIES

from . import tables
from .notation import quote
from .options import (
    AsciiOption,
    Interrupted,
    JsonOption,
    PublishedOption,
    ShortOption,
    VariantOption,
    check_path,
    check_plotting,
    check_seed,
    check_variant,
    check_workers,
    new_console,
    print_json,
)


def register(app: typer.Typer) -> None:
    """Add ``deal`` and ``simulate`` to the ``emissary`` app."""
    app.command("deal")(deal)
    app.command("simulate")(simulate_command)


def deal(
    seed: Annotated[int, typer.Option("--seed", help="The deal's seed.")],
    short: ShortOption = False,
    variant: VariantOption = "standard",
    as_json: JsonOption = False,
    ascii: AsciiOption = False,
) -> None:
    """Show a seeded deal: the ruler layout and the 8 cards of the first visit (the same
    cards in either variant)."""
    check_seed(seed)
    first_edition = check_variant(variant)
    the_deal = Deal(seed, TourConfig(short=short, first_edition=first_edition))
    layout = the_deal.layout()
    hand = the_deal.hand(1)
    if as_json:
        print_json(
            {
                "seed": seed,
                "short": short,
                "variant": variant,
                "rulers": [r.ascii() for r in layout],
                "targets": list(the_deal.config.targets),
                "hand": [c.ascii() for c in hand],
            }
        )
        return
    new_console().print(tables.deal_view(seed, layout, the_deal.config.targets, hand, ascii))


MAX_TOURS = 10_000_000  # about a day for one policy on one core; beyond, a typo more likely
STANDARD_ONLY_POLICIES = tuple(sorted(set(POLICIES) - set(FIRST_EDITION_POLICIES)))


def simulate_command(
    tours: Annotated[int, typer.Option("--tours", help="How many tours each policy plays.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the batch.")] = 1,
    policy: Annotated[
        str,
        typer.Option(
            "--policy",
            help=f"Who plays, one or several separated by commas: {', '.join(sorted(POLICIES))}.",
        ),
    ] = "greedy",
    short: ShortOption = False,
    published_rules: PublishedOption = False,
    variant: VariantOption = "standard",
    workers: Annotated[
        int, typer.Option("--workers", help="Processes playing chunks of tours at once.")
    ] = 1,
    checkpoint: Annotated[
        str | None,
        typer.Option("--checkpoint", help="File saving finished chunks, to resume after a stop."),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the batch saved in --checkpoint.")
    ] = False,
    plot: Annotated[
        str | None, typer.Option("--plot", help="Write a PNG histogram of scores per policy.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Play seeded tours with one or more policies; scores, mean and perfect rate with 95% CIs."""
    from pathlib import Path

    from search.tours import BatchError, BatchInterrupted, run_batch

    if tours < 1:
        raise typer.BadParameter("play at least 1 tour", param_hint="--tours")
    if tours > MAX_TOURS:
        raise typer.BadParameter(
            f"at most {MAX_TOURS:,} tours a run; split a bigger batch by --seed",
            param_hint="--tours",
        )
    check_seed(seed)
    check_workers(workers)
    check_path(checkpoint, "--checkpoint")
    if resume and checkpoint is None:
        raise typer.BadParameter("--resume needs the --checkpoint file", param_hint="--resume")
    names = [name.strip() for name in policy.split(",") if name.strip()]
    if not names or len(set(names)) != len(names):
        raise typer.BadParameter(
            "name each policy once, e.g. greedy,advisor", param_hint="--policy"
        )
    for name in names:
        if name not in POLICIES:
            known = ", ".join(sorted(POLICIES))
            raise typer.BadParameter(
                f"unknown policy {quote(name)}: choose from {known}", param_hint="--policy"
            )
    first_edition = check_variant(variant)
    if first_edition and set(names) & set(STANDARD_ONLY_POLICIES):
        raise typer.BadParameter(
            f"{', '.join(sorted(set(names) & set(STANDARD_ONLY_POLICIES)))}: standard rules only; "
            f"the first edition has {', '.join(FIRST_EDITION_POLICIES)}",
            param_hint="--policy",
        )
    if plot is not None:
        check_plotting(plot)
    if checkpoint is not None and not Path(checkpoint).parent.is_dir():
        # Said before any tour is played, not when the first chunk is saved.
        raise BatchError(f"{checkpoint}: no such folder {str(Path(checkpoint).parent)!r}")
    config = TourConfig(short=short, published_rules=published_rules, first_edition=first_edition)
    total = tours * len(names)
    with tables.progress_bar(
        total, f"{policy} tours", enabled=not as_json and total >= 100
    ) as tick:
        try:
            results = run_batch(
                names,
                tours,
                seed,
                config,
                workers,
                Path(checkpoint) if checkpoint else None,
                resume,
                progress=lambda done, _: tick(done),
            )
        except BatchError as error:
            raise typer.BadParameter(str(error), param_hint="--checkpoint") from None
        except BatchInterrupted as stop:
            if checkpoint is None:
                said = "nothing saved (no --checkpoint)"
            else:
                said = (
                    f"{stop.saved:,} of {stop.total:,} tours saved in {checkpoint}; continue "
                    "with the same command and --resume"
                )
            raise Interrupted(f"interrupted: {said}") from None
    if plot is not None:
        from .plots import score_histograms

        score_histograms(results, Path(plot))
    if as_json:
        data = [result.to_json() for result in results]
        print_json(data[0] if len(data) == 1 else {"policies": data})
        return
    console = new_console()
    if len(results) == 1:
        console.print(tables.simulation_view(results[0]))
    else:
        console.print(tables.comparison_view(results))
    if plot is not None:
        console.print(f"Histogram written to {plot}")
