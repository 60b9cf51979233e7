"""The ``advise`` and ``move`` commands: which kingdom to visit, and what to play mid-visit."""

from __future__ import annotations

from typing import Annotated

import typer

from search.game import Suit, TourState
from search.tours import (
    COLUMNS,
    Column,
    MoveAdvice,
    Objective,
    VisitAdvice,
    advise_visit,
    rank_moves,
    visit_abilities,
    visit_position,
)
from search.visit import Abilities, Budget, Search

from . import advice_tables, move_tables, tables
from .notation import parse_card, parse_suits
from .options import (
    AsciiOption,
    JacksDownOption,
    JsonOption,
    ObjectiveOption,
    PublishedOption,
    RulersOption,
    ShortOption,
    SupportersOption,
    TimeLimitOption,
    UsedSupportersOption,
    VariantOption,
    VisitedOption,
    check_seconds,
    check_variant,
    command_clock,
    new_console,
    piles,
    print_json,
    tour_state,
    visit_hand,
)
from .warmup import prepare_search


def register(app: typer.Typer) -> None:
    """Add ``advise`` and ``move`` to the ``emissary`` app."""
    app.command("advise")(advise)
    app.command("move")(move)


def _distribution_json(distribution) -> dict:
    return {str(wins): p for wins, p in enumerate(distribution)}


def _tour_value_json(value) -> dict:
    spend = None if value.spend is None else Suit(value.spend).letter  # a supporter it counts on
    return {
        "value": value.value,
        "ci": [value.low, value.high],
        "objective": value.objective,
        "spend": spend,
    }


def _ci_of(policy: str) -> str:
    """What an estimate's interval describes."""
    if policy == "lookahead":
        return "the lookahead policy's chance (paired with exact play of its base restriction)"
    return f"the {policy} fallback policy's success rate"


def _advice_json(advice: VisitAdvice, tour: TourState) -> dict:
    kingdoms = []
    for kingdom in advice.kingdoms:
        estimates = {
            column: {
                "ci": list(chance.interval),
                "ci_of": _ci_of(chance.policy),
                "playouts": chance.playouts,
                "floor": chance.floor,
            }
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
                "kind": {column: kingdom.chance(column).kind for column in COLUMNS},
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
            "chance": best.chance(Column.ALL).value,
            "estimate": best.chance(Column.ALL).estimate,
            "kind": best.chance(Column.ALL).kind,
            "tour_value": _tour_value_json(best.tour_value),
            "reason": advice_tables.advice_reason(advice, ascii=True),
            # kingdoms the budget's open cells leave able to pass it: a longer limit decides
            "too_close_to_call": list(advice.too_close),
        },
        "solves": advice.solves,
        "estimates": advice.estimates,
        "seconds": round(advice.seconds, 3),
    }


def advise(
    context: typer.Context,
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
    ] = 3.0,
    objective: ObjectiveOption = "score",
    variant: VariantOption = "standard",
    jacks_down: JacksDownOption = "",
    as_json: JsonOption = False,
    ascii: AsciiOption = False,
) -> None:
    """Which kingdom to visit: each one's chance with no ability, each Jack, all Jacks, all.

    First edition: each kingdom's expected reputation spent, exact-target chance and misses."""
    cards = visit_hand(hand)
    check_seconds(time_limit, "--time-limit")
    if objective not in tuple(Objective):
        raise typer.BadParameter("choose score or perfect", param_hint="--objective")
    first_edition = check_variant(variant)
    tour = tour_state(
        rulers,
        visited,
        supporters,
        used_supporters,
        short,
        published_rules,
        first_edition,
        jacks_down,
    )
    clock = command_clock(context)
    prepare_search(clock, first_edition)  # the compile is not the search's time (issue 38)
    if first_edition:
        from search.firstedition import advise_first_edition

        from . import firstedition_views

        with tables.spinner("solving", enabled=not as_json):
            fe_advice = advise_first_edition(tour, cards, time_limit)
        if as_json:
            print_json(firstedition_views.advise_json(fe_advice, tour))
        else:
            new_console().print(firstedition_views.advise_view(fe_advice, tour, cards, ascii))
        return
    with advice_tables.advise_progress(tour, ascii, enabled=not as_json) as progress:
        budget = Budget(time_limit, Search.TABLE, end_by=clock.deadline(time_limit))
        advice = advise_visit(tour, cards, progress=progress, objective=objective, budget=budget)
    if as_json:
        print_json(_advice_json(advice, tour))
        return
    new_console().print(advice_tables.advise_view(advice, tour, ascii))


def _move_json(advice: MoveAdvice, tour: TourState) -> dict:
    position = advice.position
    options = []
    for move in advice.moves:
        option = move.option
        entry: dict = {"option": move_tables.move_text(move, tour, ascii=True), "kind": option.kind}
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
        if move.proven:  # chance is a proven lower bound, above the option's estimate
            entry["chance_kind"] = "bound"
        elif move.estimate:
            entry["chance_kind"] = "estimate"
        else:
            entry["chance_kind"] = "exact"
        if move.estimate and not move.proven:
            entry["chance_ci"] = list(move.interval)
        if move.versus_best is not None:  # paired: (this - first) on the same deck orders
            entry["versus_best_ci"] = list(move.versus_best)
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
        if advice.chance.floor:
            data["bound"] = advice.chance.floor  # proven: the exact chance of a restriction
    data["best"] = options[0]["option"] if options else None
    data["options"] = options
    data["distribution"] = _distribution_json(advice.distribution)
    data["seconds"] = round(advice.seconds, 3)
    return data


def move(
    context: typer.Context,
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
        typer.Option(
            "--verdict", help="First edition: ♣ (won) or ♥ (lost) has settled the waiting debate."
        ),
    ] = None,
    time_limit: TimeLimitOption = 5.0,
    as_json: JsonOption = False,
    ascii: AsciiOption = False,
) -> None:
    """What now, mid-visit: every option open, its chance and its loss against the best.

    --rulers: as they lie now, after any Politics swap this visit; trump is the --kingdom's.

    --used-supporters: include those used this visit.

    First edition: options ranked by expected reputation spent (♠ used: give S in --jacks-used).
    """
    check_seconds(time_limit, "--time-limit")
    first_edition = check_variant(variant)
    tour = tour_state(
        rulers,
        visited,
        supporters,
        used_supporters,
        short,
        published_rules,
        first_edition,
        jacks_down,
    )
    if not 1 <= kingdom <= tour.config.kingdoms:
        raise typer.BadParameter(
            f"{kingdom} is not a kingdom: use 1..{tour.config.kingdoms}", param_hint="--kingdom"
        )
    cards = visit_hand(hand, commerce, "--hand")
    waiting = parse_card(ruler_card) if ruler_card is not None else None
    if commerce and waiting is not None:
        raise typer.BadParameter(
            "Commerce cannot be pending while a ruler's card waits", param_hint="--commerce-discard"
        )
    clock = command_clock(context)
    prepare_search(clock, first_edition)  # the compile is not the search's time (issue 38)
    if first_edition:
        # no draws that could empty the deck: any split of --seen is as good (place_seen)
        discard_pile, scoring = piles(cards, wins, discard, won_cards, seen, Abilities(), waiting)
        _first_edition_move(
            tour,
            kingdom,
            cards,
            scoring,
            discard_pile,
            jacks_used,
            waiting,
            commerce,
            verdict,
            time_limit,
            as_json,
            ascii,
        )
        return
    if verdict is not None:
        raise typer.BadParameter(
            "a verdict (♣/♥ settling a debate) exists only in the first edition",
            param_hint="--verdict",
        )
    used = parse_suits(jacks_used)
    abilities = visit_abilities(tour, kingdom, used)
    discard_pile, scoring = piles(cards, wins, discard, won_cards, seen, abilities, waiting)
    position = visit_position(
        tour, kingdom, cards, discard_pile, scoring, waiting, used, discarding=commerce
    )
    with tables.spinner("solving", enabled=not as_json):
        budget = Budget(time_limit, Search.RANKING, end_by=clock.deadline(time_limit))
        advice = rank_moves(tour, kingdom, position, used, budget=budget)
    if as_json:
        print_json(_move_json(advice, tour))
        return
    new_console().print(move_tables.move_view(advice, tour, ascii))


def _first_edition_move(
    tour,
    kingdom,
    cards,
    scoring,
    discard_pile,
    jacks_used,
    waiting,
    commerce,
    verdict,
    time_limit,
    as_json,
    ascii,
) -> None:
    from search.firstedition import rank_first_edition

    from . import firstedition_views
    from .firstedition_cli import visit_from_options

    visit = visit_from_options(
        tour, kingdom, cards, scoring, discard_pile, jacks_used, waiting, commerce, verdict
    )
    with tables.spinner("solving", enabled=not as_json):
        ranked, searched = rank_first_edition(visit, time_limit if time_limit is not None else 5.0)
    if as_json:
        print_json(firstedition_views.move_json(ranked, searched, visit))
    else:
        new_console().print(firstedition_views.move_view(ranked, searched, visit, ascii))
