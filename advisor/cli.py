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

from search.advice import (
    COLUMNS,
    AmbiguousPilesError,
    MoveAdvice,
    VisitAdvice,
    advise_visit,
    place_seen,
    rank_moves,
    visit_abilities,
    visit_position,
)
from search.cards import FULL_MASK, Card, CardSet, Suit
from search.deal import Deal
from search.kingdom import Abilities
from search.odds import make_position, solve_kingdom
from search.policies import FIRST_EDITION_POLICIES, POLICIES, make_policy
from search.tour import TourConfig, TourState, tour_between_visits

from . import tables
from .checks import check_seconds, check_seed, check_workers
from .notation import (
    parse_card,
    parse_cards,
    parse_layout,
    parse_positions,
    parse_rulers,
    parse_suit,
    parse_suits,
)
from .analyse_cli import register as register_analyse_command
from .sweep_cli import register as register_sweep_commands

app = typer.Typer(
    name="emissary",
    help="Exact odds, advice and deal analysis for the solo card game The Emissary.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
register_sweep_commands(app)
register_analyse_command(app)

AsciiOption = Annotated[bool, typer.Option("--ascii", help="Print suits as letters C D H S.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
ShortOption = Annotated[bool, typer.Option("--short", help="Short tour: 4 Kings, targets 2 4 6 8.")]
VariantOption = Annotated[
    str,
    typer.Option(
        "--variant", help="standard, or first-edition (2019: reputation instead of sudden death)."
    ),
]
VARIANTS = ("standard", "first-edition")
JacksDownOption = Annotated[
    str,
    typer.Option(
        "--jacks-down",
        help="First edition: Jacks turned face down in earlier visits, for good (R5), e.g. DS.",
    ),
]
STANDARD_ONLY_POLICIES = tuple(sorted(set(POLICIES) - set(FIRST_EDITION_POLICIES)))
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
    variant: VariantOption = "standard",
    as_json: JsonOption = False,
    ascii: AsciiOption = False,
) -> None:
    """Show a seeded deal: the ruler layout and the 8 cards of the first visit (the same
    cards in either variant)."""
    check_seed(seed)
    first_edition = _check_variant(variant)
    the_deal = Deal(seed, TourConfig(short=short, first_edition=first_edition))
    layout = the_deal.layout()
    hand = the_deal.hand(1)
    if as_json:
        _print_json(
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
    _console().print(tables.deal_view(seed, layout, the_deal.config.targets, hand, ascii))


@app.command("simulate")
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

    from search.batch import BatchError, run_batch

    if tours < 1:
        raise typer.BadParameter("play at least 1 tour", param_hint="--tours")
    check_seed(seed)
    check_workers(workers)
    if resume and checkpoint is None:
        raise typer.BadParameter("--resume needs the --checkpoint file", param_hint="--resume")
    names = [name.strip() for name in policy.split(",") if name.strip()]
    if not names or len(set(names)) != len(names):
        raise typer.BadParameter("name each policy once, e.g. greedy,advisor", param_hint="--policy")
    for name in names:
        if name not in POLICIES:
            known = ", ".join(sorted(POLICIES))
            raise typer.BadParameter(f"unknown policy {name!r}: choose from {known}", param_hint="--policy")
    first_edition = _check_variant(variant)
    if first_edition and set(names) & set(STANDARD_ONLY_POLICIES):
        raise typer.BadParameter(
            f"{', '.join(sorted(set(names) & set(STANDARD_ONLY_POLICIES)))}: standard rules only; "
            f"the first edition has {', '.join(FIRST_EDITION_POLICIES)}",
            param_hint="--policy",
        )
    if plot is not None:
        _check_plotting(plot)
    config = TourConfig(short=short, published_rules=published_rules, first_edition=first_edition)
    total = tours * len(names)
    with tables.progress_bar(total, f"{policy} tours", enabled=not as_json and total >= 100) as tick:
        try:
            results = run_batch(
                names, tours, seed, config, workers,
                Path(checkpoint) if checkpoint else None, resume,
                progress=lambda done, _: tick(done),
            )
        except BatchError as error:
            raise typer.BadParameter(str(error), param_hint="--checkpoint") from None
    if plot is not None:
        from .plots import score_histograms

        score_histograms(results, Path(plot))
    if as_json:
        data = [result.to_json() for result in results]
        _print_json(data[0] if len(data) == 1 else {"policies": data})
        return
    console = _console()
    if len(results) == 1:
        console.print(tables.simulation_view(results[0]))
    else:
        console.print(tables.comparison_view(results))
    if plot is not None:
        console.print(f"Histogram written to {plot}")


def _check_variant(variant: str) -> bool:
    """Whether ``variant`` names the first edition; refuses unknown names."""
    if variant not in VARIANTS:
        raise typer.BadParameter(f"choose {' or '.join(VARIANTS)}", param_hint="--variant")
    return variant == "first-edition"


def _check_plotting(plot: str) -> None:
    """A PNG path in a writable folder, and matplotlib installed."""
    import importlib.util
    from pathlib import Path

    if not plot.lower().endswith(".png"):
        raise typer.BadParameter("the plot is a PNG file: give a name ending in .png", param_hint="--plot")
    folder = Path(plot).resolve().parent
    if not folder.is_dir():
        raise typer.BadParameter(f"no folder {folder} to write the plot in", param_hint="--plot")
    if importlib.util.find_spec("matplotlib") is None:
        raise typer.BadParameter(
            "plots need matplotlib: pip install 'emissary[plots]'", param_hint="--plot"
        )


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
    cards = _visit_hand(hand)
    if not 1 <= target <= 8:
        raise typer.BadParameter(f"{target} is not a kingdom: use 1..8", param_hint="--target")
    check_seconds(time_limit, "--time-limit")
    if _check_variant(variant):
        _first_edition_odds(cards, trump, target, abilities, supporters, time_limit, as_json)
        return
    if payoffs is not None:
        _payoff_odds(cards, trump, target, abilities, supporters, pool, payoffs, time_limit, as_json)
        return
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


def _payoff_odds(cards, trump, target, abilities, supporters, pool, payoffs, time_limit, as_json) -> None:
    """odds --payoffs: the expected payoff of best play, each option's, and the best."""
    import time

    from search.kingdom import TimeLimitExceeded
    from search.payoffs import Payoffs, PayoffSolver

    try:
        success, failure, cost = (float(part) for part in payoffs.split(","))
    except ValueError:
        raise typer.BadParameter("give three numbers: success,failure,cost, e.g. 12.4,7,1",
                                 param_hint="--payoffs") from None
    jacks, backers = parse_suits(abilities), parse_suits(supporters)
    counts = Abilities.of(jacks, backers, parse_suits(pool))
    backer_counts = tuple(sum(1 for s in backers if int(s) == i) for i in range(4))
    solver = PayoffSolver(Payoffs(success, failure, cost, backer_counts),
                          deadline=time.perf_counter() + time_limit)
    hand, deck, trump_index = cards.mask, FULL_MASK & ~cards.mask, int(parse_suit(trump))
    pool_key = counts.pool if counts.counts[3] else ()
    try:
        with tables.spinner("solving", enabled=not as_json):
            options = [(label, solver.option_value(outcomes, target)[0])
                       for label, outcomes in solver.options(hand, deck, 0, trump_index, counts.counts, pool_key)]
    except TimeLimitExceeded:
        raise typer.BadParameter(f"the payoff search passed {time_limit:g} s: raise it or give fewer "
                                 "abilities", param_hint="--time-limit") from None
    best = max(options, key=lambda o: o[1])  # the first of equals
    names = [" ".join(str(part) if not isinstance(part, int) else "CDHS"[part] for part in label)
             for label, _ in options]
    if as_json:
        _print_json({"payoffs": {"success": success, "failure": failure, "supporter_cost": cost},
                     "expected_payoff": best[1], "best_action": names[options.index(best)],
                     "options": {name: value for name, (_, value) in zip(names, options)}})
        return
    console = _console()
    console.print(f"Expected payoff {best[1]:.4f} (success {success:g}, failure {failure:g}, "
                  f"{cost:g} a supporter used); best first action: {names[options.index(best)]}")
    for name, (_, value) in zip(names, options):
        console.print(f"  {name:10} {value:.4f}")


def _first_edition_odds(cards, trump, target, abilities, supporters, time_limit, as_json) -> None:
    """odds --variant first-edition: the least expected reputation a visit spends (R5-R7)."""
    import time

    from search.fastfirstedition import FastFirstEditionSolver
    from search.kingdom import TimeLimitExceeded

    counts = [0, 0, 0, 0]
    for suit in [*parse_suits(abilities), *parse_suits(supporters)]:
        counts[int(suit)] += 1
    solver = FastFirstEditionSolver(deadline=time.perf_counter() + time_limit)
    try:
        with tables.spinner("solving", enabled=not as_json):
            result = solver.solve(cards.mask, int(parse_suit(trump)), tuple(counts), target)
    except TimeLimitExceeded:
        raise typer.BadParameter(
            f"the first-edition search passed {time_limit:g} s (it has no estimate yet): "
            "raise it or give fewer abilities",
            param_hint="--time-limit",
        ) from None
    if as_json:
        _print_json(
            {"variant": "first-edition", "expected_cost": result.cost, "chance": result.chance,
             "miss": list(result.miss), "states": result.states, "seconds": round(result.seconds, 3)}
        )
        return
    misses = ", ".join(f"{m}: {100 * p:.2f}%" for m, p in enumerate(result.miss) if p > 0)
    _console().print(
        f"Hand {cards.ascii()}  trump {parse_suit(trump).letter}  target {target}  (first edition)\n"
        f"Expected reputation spent {result.cost:.4f} (abilities used plus the miss), "
        f"chance of exactly {target}: {100 * result.chance:.2f}%\nMiss by: {misses}"
    )


# --- advise and move: a tour under way ------------------------------------------------------

RulersOption = Annotated[
    str,
    typer.Option(
        "--rulers",
        help="The rulers lying on kingdoms 1..8 now (1..4 with --short), '-' or '.' where a "
        'kingdom is won, e.g. "- Q♥ K♠ - K♥ Q♣ K♦ Q♠". Or list all and give --visited: '
        "the ruler written at a visited kingdom is the one won there.",
    ),
]
VisitedOption = Annotated[
    str | None,
    typer.Option("--visited", help="Kingdoms already won, e.g. 1,4 (also marked '-' in --rulers)."),
]
SupportersOption = Annotated[
    str | None,
    typer.Option(
        "--supporters",
        help="Unused supporters, e.g. \"Q♥ K♦\". Default: every won ruler not in "
        "--used-supporters (the won rulers are those lying on no kingdom).",
    ),
]
UsedSupportersOption = Annotated[
    str,
    typer.Option("--used-supporters", help="Supporters whose ability is spent, e.g. \"K♠\"."),
]
ObjectiveOption = Annotated[
    str,
    typer.Option(
        "--objective",
        help="What the tour value measures: score (expected final score) or perfect (its chance).",
    ),
]

TimeLimitOption = Annotated[
    float | None,
    typer.Option(
        "--time-limit",
        help="Seconds for each exact solve; past it, a Monte Carlo estimate of about as long.",
    ),
]


def _optional_rulers(text: str | None) -> list | None:
    if text is None:
        return None
    if text.strip().lower() in ("", "none"):
        return []
    return parse_rulers(text)


def _tour_state(
    rulers: str,
    visited: str | None,
    supporters: str | None,
    used_supporters: str,
    short: bool,
    published_rules: bool,
    first_edition: bool = False,
    jacks_down: str = "",
) -> TourState:
    """The tour from its options: a ruler or '-' per kingdom, with --visited marking more won."""
    config = TourConfig(short=short, published_rules=published_rules, first_edition=first_edition)
    down = frozenset(parse_suits(jacks_down))
    if down and not first_edition:
        raise typer.BadParameter("Jacks turn face down for good only in the first edition "
                                 "(--variant first-edition)", param_hint="--jacks-down")
    layout = parse_layout(rulers, config.kingdoms)
    if visited is not None:
        won = parse_positions(visited, config.kingdoms)
        for position, ruler in enumerate(layout, start=1):
            if ruler is None and position not in won:
                raise typer.BadParameter(
                    f"kingdom {position} is marked won ('-') in --rulers but is not in --visited",
                    param_hint="--visited",
                )
        layout = [None if p in won else ruler for p, ruler in enumerate(layout, start=1)]
    return tour_between_visits(
        layout,
        used=_optional_rulers(used_supporters) or [],
        unused=_optional_rulers(supporters),
        config=config,
        jacks=frozenset(Suit) - down,
    )


def _visit_hand(text: str) -> CardSet:
    """The cards of a visit's start: 8, or fewer for a what-if."""
    cards = CardSet(parse_cards(text))
    if len(cards) > 8:
        raise typer.BadParameter(
            f"a hand holds at most 8 cards at the start of a visit, got {len(cards)}",
            param_hint="HAND",
        )
    return cards


def _distribution_json(distribution) -> dict:
    return {str(wins): p for wins, p in enumerate(distribution)}


def _tour_value_json(value) -> dict:
    return {"value": value.value, "ci": [value.low, value.high], "objective": value.objective}


def _advice_json(advice: VisitAdvice, tour: TourState) -> dict:
    kingdoms = []
    for kingdom in advice.kingdoms:
        estimates = {
            column: {"ci": list(chance.interval), "playouts": chance.playouts}
            for column, chance in zip(COLUMNS, kingdom.chances)
            if chance.estimate
        }
        kingdoms.append(
            {
                "position": kingdom.position,
                "ruler": kingdom.ruler.ascii(),
                "trump": kingdom.trump.letter,
                "target": kingdom.target,
                "chance": {column: kingdom.chance(column).value for column in COLUMNS},
                "estimates": estimates,
                "tour_value": _tour_value_json(kingdom.tour_value),
                "distribution": _distribution_json(kingdom.distribution),
            }
        )
    best = advice.recommended
    return {
        "hand": [card.ascii() for card in advice.hand],
        "short": tour.config.short,
        "supporters": [r.ascii() for r in tour.unused_supporters],
        "used_supporters": [s.ruler.ascii() for s in tour.supporters if s.used],
        "kingdoms": kingdoms,
        "recommendation": {
            "position": best.position,
            "ruler": best.ruler.ascii(),
            "target": best.target,
            "chance": best.chance("all").value,
            "estimate": best.chance("all").estimate,
            "tour_value": _tour_value_json(best.tour_value),
            "reason": tables.advice_reason(advice, ascii=True),
        },
        "solves": advice.solves,
        "estimates": advice.estimates,
        "seconds": round(advice.seconds, 3),
    }


@app.command()
def advise(
    hand: Annotated[
        str,
        typer.Argument(help='The 8 cards just drawn (fewer for a what-if), e.g. "AC 6C 3H 8H".'),
    ],
    rulers: RulersOption,
    visited: VisitedOption = None,
    supporters: SupportersOption = None,
    used_supporters: UsedSupportersOption = "",
    short: ShortOption = False,
    published_rules: PublishedOption = False,
    time_limit: Annotated[
        float | None,
        typer.Option(
            "--time-limit",
            help="Seconds for the whole table: exact solves first, estimates for what is left.",
        ),
    ] = 5.0,
    objective: ObjectiveOption = "score",
    variant: VariantOption = "standard",
    jacks_down: JacksDownOption = "",
    as_json: JsonOption = False,
    ascii: AsciiOption = False,
) -> None:
    """Which kingdom to visit: each one's chance with no ability, each Jack, all Jacks, all.

    First edition: each kingdom's expected reputation spent, exact-target chance and misses."""
    cards = _visit_hand(hand)
    check_seconds(time_limit, "--time-limit")
    if objective not in ("score", "perfect"):
        raise typer.BadParameter("choose score or perfect", param_hint="--objective")
    first_edition = _check_variant(variant)
    tour = _tour_state(rulers, visited, supporters, used_supporters, short, published_rules,
                       first_edition, jacks_down)
    if first_edition:
        from search.firsteditionplay import advise_first_edition

        from . import firstedition_views

        with tables.spinner("solving", enabled=not as_json):
            fe_advice = advise_first_edition(tour, cards, time_limit)
        if as_json:
            _print_json(firstedition_views.advise_json(fe_advice, tour))
        else:
            _console().print(firstedition_views.advise_view(fe_advice, tour, cards, ascii))
        return
    with tables.advise_progress(tour, ascii, enabled=not as_json) as progress:
        advice = advise_visit(tour, cards, time_limit=time_limit, progress=progress, objective=objective)
    if as_json:
        _print_json(_advice_json(advice, tour))
        return
    _console().print(tables.advise_view(advice, tour, ascii))


def _optional_cards(text: str | None) -> CardSet | None:
    if text is None:
        return None
    if text.strip().lower() in ("", "none"):
        return CardSet()
    return CardSet(parse_cards(text))


def _piles(
    hand: CardSet,
    wins: int | None,
    discard: str | None,
    won_cards: str | None,
    seen: str | None,
    abilities,
    waiting: Card | None,
) -> tuple[CardSet, CardSet]:
    """(discard pile, scoring pile) from --discard/--won-cards, or --seen and --wins."""
    if wins is not None and wins < 0:
        raise typer.BadParameter("wins cannot be negative", param_hint="--wins")
    if seen is not None:
        if discard is not None or won_cards is not None:
            raise typer.BadParameter(
                "--seen gives both piles together: use it alone, or --discard and --won-cards",
                param_hint="--seen",
            )
        try:
            return place_seen(hand, _optional_cards(seen), wins or 0, abilities, waiting)
        except AmbiguousPilesError as error:
            message = f"{error}: give --discard and --won-cards, not --seen"
            raise AmbiguousPilesError(message) from None
    scoring = _optional_cards(won_cards)
    if scoring is None:
        if wins:
            raise typer.BadParameter(
                f"{wins} won but no won cards given: list them with --won-cards, or give both "
                "piles together with --seen",
                param_hint="--wins",
            )
        scoring = CardSet()
    elif wins is not None and wins != len(scoring):
        raise typer.BadParameter(
            f"--wins {wins} but --won-cards lists {len(scoring)} cards: the scoring pile holds "
            "one card per win",
            param_hint="--wins",
        )
    return _optional_cards(discard) or CardSet(), scoring


def _move_json(advice: MoveAdvice, tour: TourState) -> dict:
    position = advice.position
    options = []
    for move in advice.moves:
        option = move.option
        entry: dict = {"option": tables.move_text(move, tour, ascii=True), "kind": option.kind}
        if option.card is not None:
            entry["card"] = option.card.ascii()
        if option.suit is not None:
            entry["suit"] = option.suit.letter
            entry["source"] = move.source.ascii() if move.source else "jack"
        if move.swap_with is not None:
            entry["swap_with"] = move.swap_with
            entry["new_trump"] = option.new_trump.letter
        if option.cards is not None:
            entry["discard"] = [card.ascii() for card in option.cards]
        entry["chance"] = move.chance
        entry["loss"] = move.loss
        if move.estimate:
            entry["chance_ci"] = list(move.interval)
        options.append(entry)
    data = {
        "kingdom": advice.kingdom,
        "ruler": advice.ruler.ascii(),
        "trump": position.trump.letter,
        "target": position.target,
        "wins": position.wins,
        "hand": [card.ascii() for card in position.hand],
        "ruler_card": position.waiting.ascii() if position.waiting else None,
        "chance": advice.chance.value,
        "estimate": advice.chance.estimate,
    }
    if advice.chance.estimate:
        data["chance_ci"] = list(advice.chance.interval)
        data["playouts"] = advice.chance.playouts
    data["best"] = options[0]["option"] if options else None
    data["options"] = options
    data["distribution"] = _distribution_json(advice.distribution)
    data["seconds"] = round(advice.seconds, 3)
    return data


@app.command()
def move(
    kingdom: Annotated[
        int, typer.Option("--kingdom", help="The kingdom being visited (its position).")
    ],
    hand: Annotated[str, typer.Option("--hand", help="The cards in your hand now.")],
    rulers: RulersOption,
    visited: VisitedOption = None,
    supporters: SupportersOption = None,
    used_supporters: UsedSupportersOption = "",
    wins: Annotated[
        int | None,
        typer.Option("--wins", help="Debates won so far (default: the --won-cards count)."),
    ] = None,
    discard: Annotated[str | None, typer.Option("--discard", help="The discard pile.")] = None,
    won_cards: Annotated[
        str | None, typer.Option("--won-cards", help="The scoring pile: one winning card per win.")
    ] = None,
    seen: Annotated[
        str | None,
        typer.Option(
            "--seen",
            help="Both piles together, when not kept apart (with --wins). Exact unless the deck "
            "can run out (R1); then give --discard and --won-cards.",
        ),
    ] = None,
    jacks_used: Annotated[
        str, typer.Option("--jacks-used", help="Jacks turned this visit, e.g. HS.")
    ] = "",
    ruler_card: Annotated[
        str | None, typer.Option("--ruler-card", help="The ruler's card waiting for your answer.")
    ] = None,
    commerce: Annotated[
        bool,
        typer.Option(
            "--commerce-discard",
            help="Commerce has drawn (in --hand): rank the 2 cards to discard (always exact).",
        ),
    ] = False,
    short: ShortOption = False,
    published_rules: PublishedOption = False,
    variant: VariantOption = "standard",
    jacks_down: JacksDownOption = "",
    verdict: Annotated[
        str | None,
        typer.Option("--verdict", help="First edition: ♣ (won) or ♥ (lost) has settled the waiting debate."),
    ] = None,
    time_limit: TimeLimitOption = None,
    as_json: JsonOption = False,
    ascii: AsciiOption = False,
) -> None:
    """What now, mid-visit: every option open, its chance and its loss against the best.

    --rulers: as they lie now, after any Politics swap this visit; trump is the --kingdom's.

    --used-supporters: include those used this visit.

    First edition: options ranked by expected reputation spent (♠ used: give S in --jacks-used).
    """
    check_seconds(time_limit, "--time-limit")
    first_edition = _check_variant(variant)
    tour = _tour_state(rulers, visited, supporters, used_supporters, short, published_rules,
                       first_edition, jacks_down)
    if not 1 <= kingdom <= tour.config.kingdoms:
        raise typer.BadParameter(
            f"{kingdom} is not a kingdom: use 1..{tour.config.kingdoms}", param_hint="--kingdom"
        )
    cards = CardSet(parse_cards(hand))
    waiting = parse_card(ruler_card) if ruler_card is not None else None
    if commerce and waiting is not None:
        raise typer.BadParameter(
            "Commerce cannot be pending while a ruler's card waits", param_hint="--commerce-discard"
        )
    if first_edition:
        # no draws that could empty the deck: any split of --seen is as good (place_seen)
        discard_pile, scoring = _piles(cards, wins, discard, won_cards, seen, Abilities(), waiting)
        _first_edition_move(tour, kingdom, cards, scoring, discard_pile, jacks_used, waiting,
                            commerce, verdict, time_limit, as_json, ascii)
        return
    if verdict is not None:
        raise typer.BadParameter("a verdict (♣/♥ settling a debate) exists only in the first edition",
                                 param_hint="--verdict")
    used = parse_suits(jacks_used)
    abilities = visit_abilities(tour, kingdom, used)
    discard_pile, scoring = _piles(cards, wins, discard, won_cards, seen, abilities, waiting)
    position = visit_position(
        tour, kingdom, cards, discard_pile, scoring, waiting, used, discarding=commerce
    )
    with tables.spinner("solving", enabled=not as_json):
        advice = rank_moves(tour, kingdom, position, used, time_limit=time_limit)
    if as_json:
        _print_json(_move_json(advice, tour))
        return
    _console().print(tables.move_view(advice, tour, ascii))


def _first_edition_move(tour, kingdom, cards, scoring, discard_pile, jacks_used, waiting,
                        commerce, verdict, time_limit, as_json, ascii) -> None:
    from search.firsteditionplay import rank_first_edition

    from . import firstedition_views
    from .firstedition_cli import visit_from_options

    visit = visit_from_options(tour, kingdom, cards, scoring, discard_pile, jacks_used, waiting,
                               commerce, verdict)
    with tables.spinner("solving", enabled=not as_json):
        ranked, searched = rank_first_edition(visit, time_limit if time_limit is not None else 5.0)
    if as_json:
        _print_json(firstedition_views.move_json(ranked, searched, visit))
    else:
        _console().print(firstedition_views.move_view(ranked, searched, visit, ascii))


@app.command()
def coach(
    session: Annotated[
        str, typer.Option("--session", help="Session file: created if new, resumed if it exists.")
    ] = "emissary-session.json",
    seed: Annotated[
        int | None, typer.Option("--seed", help="Practice on a seeded deal instead of real cards.")
    ] = None,
    short: ShortOption = False,
    published_rules: PublishedOption = False,
    variant: VariantOption = "standard",
    advice: Annotated[
        bool, typer.Option("--advice/--no-advice", help="Show the advice at every decision.")
    ] = True,
    time_limit: Annotated[
        float,
        typer.Option(
            "--time-limit",
            help="Seconds for each piece of advice (a kingdom table or a ranking); past it, estimates.",
        ),
    ] = 5.0,
    ascii: AsciiOption = False,
) -> None:
    """Coach a whole tour step by step; every step is saved to the session file."""
    from pathlib import Path

    from . import coach as coaching

    check_seconds(time_limit, "--time-limit")
    first_edition = _check_variant(variant)
    if seed is not None:
        check_seed(seed)
    console = _console()
    coaching.run(
        Path(session),
        seed,
        TourConfig(short=short, published_rules=published_rules, first_edition=first_edition),
        console,
        console.input,
        advice=advice,
        time_limit=time_limit,
        ascii=ascii,
    )


@app.command()
def review(
    session: Annotated[str, typer.Argument(help="A coach session file.")],
    ascii: AsciiOption = False,
) -> None:
    """Review a coached tour: each decision, the advice, what was played and what it cost."""
    from . import coach as coaching
    from .session import load

    _console().print(coaching.review_view(load(session), ascii))


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
