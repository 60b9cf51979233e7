"""The ``odds`` command: one visit's exact chance, its payoff (--payoffs) or, in the first
edition, its expected reputation spent."""

from __future__ import annotations

from typing import Annotated

import typer

from search.game import FULL_MASK
from search.visit import Abilities, Budget, Search, make_position, solve_kingdom

from . import tables
from .notation import parse_suit, parse_suits
from .options import (
    AsciiOption,
    JsonOption,
    VariantOption,
    check_seconds,
    check_variant,
    new_console,
    print_json,
    visit_hand,
)
from .warmup import prepare_search


def register(app: typer.Typer) -> None:
    """Add ``odds`` to the ``emissary`` app."""
    app.command("odds")(odds)


def odds(
    hand: Annotated[
        str, typer.Argument(help='The 8 cards (or fewer mid-visit), e.g. "AC 6C 3H 8H".')
    ],
    trump: Annotated[
        str, typer.Option("--trump", help="Suit of the ruler visited: C D H S or ♣ ♦ ♥ ♠.")
    ],
    target: Annotated[
        int, typer.Option("--target", help="Wins needed: the kingdom's number, 1..8.")
    ],
    abilities: Annotated[
        str, typer.Option("--abilities", help="Jacks available, e.g. HC; 'none' for none.")
    ] = "HCSD",
    supporters: Annotated[
        str, typer.Option("--supporters", help="Suits of unused supporters, e.g. HS.")
    ] = "",
    pool: Annotated[
        str, typer.Option("--pool", help="Suits of the other unvisited rulers (for Politics).")
    ] = "",
    exact: Annotated[bool, typer.Option("--exact", help="Exact fractions (slower).")] = False,
    time_limit: Annotated[
        float,
        typer.Option(
            "--time-limit",
            help="Seconds for the exact search, then a Monte Carlo estimate (bounds time and memory).",
        ),
    ] = 20.0,
    variant: VariantOption = "standard",
    payoffs: Annotated[
        str | None,
        typer.Option(
            "--payoffs",
            help="Value the visit by payoffs instead of its chance: success,failure,cost per "
            "supporter used (e.g. 12.4,7,1, from the tour value).",
        ),
    ] = None,
    as_json: JsonOption = False,
    ascii: AsciiOption = False,
) -> None:
    """Exact chance of winning exactly TARGET debates with HAND, and the best first action."""
    cards = visit_hand(hand)
    if not 1 <= target <= 8:
        raise typer.BadParameter(f"{target} is not a kingdom: use 1..8", param_hint="--target")
    check_seconds(time_limit, "--time-limit")
    if check_variant(variant):
        _first_edition_odds(cards, trump, target, abilities, supporters, time_limit, as_json)
        return
    if payoffs is not None:
        _payoff_odds(
            cards, trump, target, abilities, supporters, pool, payoffs, time_limit, as_json
        )
        return
    position = make_position(
        cards,
        parse_suit(trump),
        target,
        jacks=parse_suits(abilities),
        supporters=parse_suits(supporters),
        pool=parse_suits(pool),
    )
    if not exact:
        prepare_search()  # the first run's compile is not the search's time (issue 38)
    with tables.spinner("solving", enabled=not as_json):
        budget = Budget(time_limit, Search.SOLVE)
        result = solve_kingdom(position, exact=exact, budget=budget)
    if as_json:
        print_json(result.to_json())
        return
    new_console().print(tables.odds_view(position, result, ascii))


MAX_PAYOFF = 1e6  # a tour scores at most 16 points; far beyond that the sums lose their digits


def parse_payoffs(text: str) -> tuple[float, float, float]:
    """(success, failure, cost) from ``12.4,7,1``: three finite numbers of sensible size."""
    try:
        values = tuple(float(part) for part in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 3:
        raise typer.BadParameter(
            "give three numbers: success,failure,cost, e.g. 12.4,7,1", param_hint="--payoffs"
        )
    if not all(abs(value) <= MAX_PAYOFF for value in values):  # also refuses nan and inf
        raise typer.BadParameter(
            f"each payoff is a number from {-MAX_PAYOFF:,.0f} to {MAX_PAYOFF:,.0f}, not nan or inf",
            param_hint="--payoffs",
        )
    return values


def _payoff_odds(
    cards, trump, target, abilities, supporters, pool, payoffs, time_limit, as_json
) -> None:
    """odds --payoffs: the expected payoff of best play, each option's, and the best."""
    from search.visit import BudgetExceeded, Payoffs, PayoffSolver, clock_stops

    success, failure, cost = parse_payoffs(payoffs)
    jacks, backers = parse_suits(abilities), parse_suits(supporters)
    counts = Abilities.of(jacks, backers, parse_suits(pool))
    backer_counts = tuple(sum(1 for s in backers if int(s) == i) for i in range(4))
    solver = PayoffSolver(Payoffs(success, failure, cost, backer_counts))
    hand, deck, trump_index = cards.mask, FULL_MASK & ~cards.mask, int(parse_suit(trump))
    pool_key = counts.pool if counts.counts[3] else ()
    try:
        with (
            tables.spinner("solving", enabled=not as_json),
            clock_stops(Budget(time_limit).end(), solver),
        ):
            options = [
                (label, solver.option_value(outcomes, target)[0])
                for label, outcomes in solver.options(
                    hand, deck, 0, trump_index, counts.counts, pool_key
                )
            ]
    except BudgetExceeded:
        raise typer.BadParameter(
            f"the payoff search passed {time_limit:g} s: raise it or give fewer abilities",
            param_hint="--time-limit",
        ) from None
    best = max(options, key=lambda o: o[1])  # the first of equals
    names = [
        " ".join(str(part) if not isinstance(part, int) else "CDHS"[part] for part in label)
        for label, _ in options
    ]
    if as_json:
        print_json(
            {
                "payoffs": {"success": success, "failure": failure, "supporter_cost": cost},
                "expected_payoff": best[1],
                "best_action": names[options.index(best)],
                "options": {name: value for name, (_, value) in zip(names, options)},
            }
        )
        return
    console = new_console()
    console.print(
        f"Expected payoff {best[1]:.4f} (success {success:g}, failure {failure:g}, "
        f"{cost:g} a supporter used); best first action: {names[options.index(best)]}"
    )
    for name, (_, value) in zip(names, options):
        console.print(f"  {name:10} {value:.4f}")


def _first_edition_odds(cards, trump, target, abilities, supporters, time_limit, as_json) -> None:
    """odds --variant first-edition: the least expected reputation a visit spends (R5-R7)."""

    from search.firstedition import FastFirstEditionSolver
    from search.visit import Budget, BudgetExceeded, clock_stops

    counts = [0, 0, 0, 0]
    for suit in [*parse_suits(abilities), *parse_suits(supporters)]:
        counts[int(suit)] += 1
    solver = FastFirstEditionSolver()
    try:
        with (
            tables.spinner("solving", enabled=not as_json),
            clock_stops(Budget(time_limit).end(), solver),
        ):
            result = solver.solve(cards.mask, int(parse_suit(trump)), tuple(counts), target)
    except BudgetExceeded:
        raise typer.BadParameter(
            f"the first-edition search passed {time_limit:g} s (it has no estimate yet): "
            "raise it or give fewer abilities",
            param_hint="--time-limit",
        ) from None
    if as_json:
        print_json(
            {
                "variant": "first-edition",
                "expected_cost": result.cost,
                "chance": result.chance,
                "miss": list(result.miss),
                "states": result.states,
                "seconds": round(result.seconds, 3),
            }
        )
        return
    misses = ", ".join(f"{m}: {100 * p:.2f}%" for m, p in enumerate(result.miss) if p > 0)
    new_console().print(
        f"Hand {cards.ascii()}  trump {parse_suit(trump).letter}  target {target}  (first edition)\n"
        f"Expected reputation spent {result.cost:.4f} (abilities used plus the miss), "
        f"chance of exactly {target}: {100 * result.chance:.2f}%\nMiss by: {misses}"
    )
