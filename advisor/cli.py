"""The ``emissary`` command line: thin typer commands over the ``search`` package.

Every command turns its text input into ``search`` values at the edge
(:mod:`advisor.notation`), calls plain functions, and renders the results.
Bad input ends with one line on stderr and exit code 1 (our checks) or 2
(usage errors), never a traceback.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Console

from search.cards import CardSet
from search.deal import Deal
from search.odds import make_position, solve_kingdom
from search.policies import POLICIES, make_policy
from search.simulate import simulate
from search.tour import TourConfig

from . import tables
from .notation import parse_cards, parse_suit, parse_suits

app = typer.Typer(
    name="emissary",
    help="Exact odds, advice and deal analysis for the solo card game The Emissary.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

AsciiOption = Annotated[bool, typer.Option("--ascii", help="Print suits as letters C D H S.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
ShortOption = Annotated[bool, typer.Option("--short", help="Short tour: 4 Kings, targets 2 4 6 8.")]
PublishedOption = Annotated[
    bool,
    typer.Option("--published-rules", help="Allow abilities that do nothing (R4)."),
]


def _console() -> Console:
    return Console(highlight=False)


def _print_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False) + "\n")


@app.command()
def deal(
    seed: Annotated[int, typer.Option("--seed", help="The deal's seed.")],
    short: ShortOption = False,
    as_json: JsonOption = False,
    ascii: AsciiOption = False,
) -> None:
    """Show a seeded deal: the ruler layout and the 8 cards of the first visit."""
    if seed < 0:
        raise typer.BadParameter("the seed must be 0 or more", param_hint="--seed")
    the_deal = Deal(seed, TourConfig(short=short))
    layout = the_deal.layout()
    hand = the_deal.hand(1)
    if as_json:
        _print_json(
            {
                "seed": seed,
                "short": short,
                "rulers": [r.ascii() for r in layout],
                "targets": list(the_deal.config.targets),
                "hand": [c.ascii() for c in hand],
            }
        )
        return
    _console().print(tables.deal_view(seed, layout, the_deal.config.targets, hand, ascii))


@app.command("simulate")
def simulate_command(
    tours: Annotated[int, typer.Option("--tours", help="How many tours to play.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the batch.")] = 1,
    policy: Annotated[
        str, typer.Option("--policy", help=f"Who plays: {', '.join(sorted(POLICIES))}.")
    ] = "greedy",
    short: ShortOption = False,
    published_rules: PublishedOption = False,
    as_json: JsonOption = False,
) -> None:
    """Play seeded tours with a policy; print the score distribution with 95% CIs."""
    if tours < 1:
        raise typer.BadParameter("play at least 1 tour", param_hint="--tours")
    if seed < 0:
        raise typer.BadParameter("the seed must be 0 or more", param_hint="--seed")
    try:
        player = make_policy(policy)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--policy") from None
    config = TourConfig(short=short, published_rules=published_rules)
    with tables.progress_bar(
        tours, f"{policy} tours", enabled=not as_json and tours >= 200
    ) as tick:
        result = simulate(tours, seed, player, config, progress=tick)
    if as_json:
        _print_json(result.to_json())
        return
    _console().print(tables.simulation_view(result))


@app.command()
def odds(
    hand: Annotated[str, typer.Argument(help='The 8 cards (or fewer mid-visit), e.g. "AC 6C 3H 8H".')],
    trump: Annotated[str, typer.Option("--trump", help="Suit of the ruler visited: C D H S or ♣ ♦ ♥ ♠.")],
    target: Annotated[int, typer.Option("--target", help="Wins needed: the kingdom's number, 1..8.")],
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
        float | None,
        typer.Option("--time-limit", help="Seconds for the exact search; then a Monte Carlo estimate."),
    ] = None,
    as_json: JsonOption = False,
    ascii: AsciiOption = False,
) -> None:
    """Exact chance of winning exactly TARGET debates with HAND, and the best first action."""
    cards = CardSet(parse_cards(hand))
    if len(cards) > 8:
        raise typer.BadParameter(
            f"a hand holds at most 8 cards at the start of a visit, got {len(cards)}",
            param_hint="HAND",
        )
    if not 1 <= target <= 8:
        raise typer.BadParameter(f"{target} is not a kingdom: use 1..8", param_hint="--target")
    if time_limit is not None and time_limit <= 0:
        raise typer.BadParameter("give a positive number of seconds", param_hint="--time-limit")
    position = make_position(
        cards,
        parse_suit(trump),
        target,
        jacks=parse_suits(abilities),
        supporters=parse_suits(supporters),
        pool=parse_suits(pool),
    )
    with tables.spinner("solving", enabled=not as_json):
        result = solve_kingdom(position, exact=exact, time_limit=time_limit)
    if as_json:
        _print_json(result.to_json())
        return
    _console().print(tables.odds_view(position, result, ascii))


def main() -> None:
    """Console-script entry: run the app, turning every input error into one line."""
    try:
        code = app(standalone_mode=False)
    except ValueError as error:  # our own checks: notation, rules, options
        _fail(str(error), 1)
    except typer.Abort:
        _fail("aborted", 1)
    except Exception as error:
        if hasattr(error, "format_message") and hasattr(error, "exit_code"):
            message = error.format_message()
            if not message:  # no arguments: typer has printed the help
                sys.exit(error.exit_code)
            _fail(message, error.exit_code)  # click usage errors
        raise
    if isinstance(code, int) and code:
        sys.exit(code)


def _fail(message: str, code: int) -> None:
    first_line = " ".join(message.split())
    sys.stderr.write(f"emissary: error: {first_line}\n")
    sys.exit(code)
