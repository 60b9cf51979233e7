"""The ``analyse`` command: a seeded deal played blind, with the hands known, and clairvoyant
(:mod:`search.tours.hindsight`)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Group
from rich.table import Table
from rich.text import Text

from search.game import TourConfig
from search.infra import mean_interval, process_pool

from .options import check_seed, check_workers, new_console
from .tables import progress_bar

if TYPE_CHECKING:  # hindsight loads CP-SAT (ortools), which only this command's run needs
    from search.tours import DealAnalysis

WAYS = (("blind", "blind"), ("known", "hands known"), ("clairvoyant", "clairvoyant"))
PLAYERS = {"advisor": "advisor", "rule": "advisor-rule"}
"""The policy each ``--play`` plays as (hindsight's PLAYS; not imported here: it loads CP-SAT)."""


MAX_DEALS = 100_000  # each deal is solved three ways; beyond this, a typo is more likely


def register(app: typer.Typer) -> None:
    """Add ``analyse`` to the ``emissary`` app."""
    app.command("analyse")(analyse)


def analyse(
    seed: Annotated[int, typer.Option("--seed", help="The deal (the first one with --deals).")],
    deals: Annotated[
        int, typer.Option("--deals", help="Analyse this many deals: seed, seed+1, ...")
    ] = 1,
    short: Annotated[
        bool, typer.Option("--short", help="Short tour: 4 Kings, targets 2 4 6 8.")
    ] = False,
    workers: Annotated[int, typer.Option("--workers", help="Processes for a batch of deals.")] = 1,
    play: Annotated[
        str,
        typer.Option(
            "--play",
            help="How blind and hands-known play: advisor (as it ships) or rule (advisor-rule's rule of thumb, quick planning).",
        ),
    ] = "advisor",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """A seeded deal three ways: blind play, all 8 hands known, every card known."""
    check_seed(seed)
    if deals < 1:
        raise typer.BadParameter("analyse at least 1 deal", param_hint="--deals")
    if deals > MAX_DEALS:
        raise typer.BadParameter(f"at most {MAX_DEALS:,} deals a run", param_hint="--deals")
    check_workers(workers)
    if play not in PLAYERS:
        raise typer.BadParameter(f"{play!r}: choose advisor or rule", param_hint="--play")
    config = TourConfig(short=short)
    seeds = list(range(seed, seed + deals))
    from search.tours import analyse_deal  # loads CP-SAT (ortools): only this command needs it

    results: list[DealAnalysis] = []
    with progress_bar(deals, "deals", enabled=not as_json and deals > 1) as tick:
        if workers == 1 or deals == 1:
            for one in seeds:
                results.append(analyse_deal(one, config, play))
                tick(len(results))
        else:
            with process_pool(workers) as pool:
                for result in pool.map(analyse_deal, seeds, [config] * deals, [play] * deals):
                    results.append(result)
                    tick(len(results))
    if as_json:
        data = {"deals": [_deal_json(r) for r in results], "summary": _summary_json(results)}
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return
    console = new_console()
    console.print(deal_view(results[0], config) if deals == 1 else batch_view(results, config))


def _deal_json(result: DealAnalysis) -> dict:
    return {
        "seed": result.seed,
        "play": PLAYERS[result.play],
        "blind": {"score": result.blind, "kingdoms": list(result.blind_kingdoms)},
        "known": {"score": result.known, "kingdoms": list(result.known_kingdoms)},
        "clairvoyant": {"score": result.clairvoyant, "kingdoms": list(result.clairvoyant_kingdoms)},
        "winnable": [list(w) for w in result.winnable],
    }


def _summary_json(results: list[DealAnalysis]) -> dict:
    summary = {}
    for way, _ in WAYS:
        mean, low, high = mean_interval([getattr(r, way) for r in results])
        summary[way] = {"mean": mean, "ci": [low, high]}
    summary["ordered"] = sum(r.blind <= r.known <= r.clairvoyant for r in results)
    summary["deals"] = len(results)
    return summary


def deal_view(result: DealAnalysis, config: TourConfig) -> Group:
    """One deal: each visit's kingdom three ways, and the scores."""
    table = Table(title=f"Deal {result.seed}: which kingdom each hand visits")
    table.add_column("visit", justify="right")
    for _, title in _titles(result.play):
        table.add_column(title, justify="right")
    table.add_column("kingdoms it can win, cards known", justify="left")
    plans = (result.blind_kingdoms, result.known_kingdoms, result.clairvoyant_kingdoms)
    for visit in range(config.kingdoms):
        cells = [str(plan[visit]) if visit < len(plan) else "" for plan in plans]
        table.add_row(str(visit + 1), *cells, " ".join(map(str, result.winnable[visit])) or "none")
    table.add_row("score", *(str(getattr(result, way)) for way, _ in WAYS), "", style="bold")
    player = PLAYERS[result.play]
    note = Text(
        f"Blind: {player} sees one hand at a time. Hands known: every hand assigned to a kingdom "
        f"in advance (a dynamic programme over its planning chances), then {player}'s play. "
        "Clairvoyant: every card known; the longest run of first hands matched to kingdoms they "
        "can win (2 points each), the Jacks alone.",
        style="dim",
    )
    return Group(table, note)


def _titles(play: str) -> tuple[tuple[str, str], ...]:
    """The three ways, blind and hands known named by the policy that played them."""
    player = PLAYERS[play]
    return tuple(
        (way, f"{title} ({player})" if way != "clairvoyant" else title) for way, title in WAYS
    )


def batch_view(results: list[DealAnalysis], config: TourConfig) -> Group:
    """Many deals: the mean score three ways with 95% intervals."""
    tour = "short tours" if config.short else "standard tours"
    table = Table(
        title=f"{len(results)} deals ({tour}), seeds {results[0].seed}-{results[-1].seed}"
    )
    table.add_column("play")
    table.add_column("mean score", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("perfect", justify="right")
    perfect = config.perfect_score
    for way, title in _titles(results[0].play):
        scores = [getattr(r, way) for r in results]
        mean, low, high = mean_interval(scores)
        share = sum(s == perfect for s in scores) / len(scores)
        table.add_row(title, f"{mean:.3f}", f"{low:.3f}-{high:.3f}", f"{100 * share:.1f}%")
    ordered = sum(r.blind <= r.known <= r.clairvoyant for r in results)
    note = Text(f"blind <= hands known <= clairvoyant on {ordered} of {len(results)} deals.")
    return Group(table, note)
