"""``move --variant first-edition``: the live visit from the command's options (its piles
come from :func:`advisor.options.piles`, as in the standard game), for the least-reputation ranking
(:mod:`search.firstedition.play`)."""

from __future__ import annotations

from dataclasses import replace

import typer

from search.game import Card, CardSet, Phase, Suit, TourState, VisitState, new_visit

from .notation import parse_suits

VERDICTS = {"won": True, "lost": False}


def visit_from_options(
    tour: TourState,
    kingdom: int,
    hand: CardSet,
    scoring: CardSet,
    discarded: CardSet,
    jacks_used: str,
    waiting: Card | None,
    commerce: bool,
    verdict: str | None,
) -> VisitState:
    """The visit as the player describes it. In the first edition cards never return to
    the deck, so only which cards are out of play and how many debates were won matter."""
    if tour.rulers[kingdom - 1] is None:
        raise typer.BadParameter(f"kingdom {kingdom} is completed already", param_hint="--kingdom")
    if verdict is not None and (verdict not in VERDICTS or waiting is None):
        raise typer.BadParameter(
            "--verdict is won or lost, with the --ruler-card it settles", param_hint="--verdict"
        )
    taken = [
        ("--hand", hand),
        ("--won-cards", scoring),
        ("--discard", discarded),
        ("--ruler-card", CardSet([waiting]) if waiting else CardSet()),
    ]
    for i, (name, cards) in enumerate(taken):
        for other, others in taken[i + 1 :]:
            if cards & others:
                raise typer.BadParameter(
                    f"{next(iter(cards & others)).ascii()} is in both {name} and {other}",
                    param_hint=other,
                )
    used = set(parse_suits(jacks_used))
    if used - tour.jacks:
        raise typer.BadParameter(
            f"J{min(used - tour.jacks).letter} was turned down before this visit (--jacks-down)",
            param_hint="--jacks-used",
        )
    visit = new_visit(
        hand,
        kingdom,
        tour.config.target(kingdom),
        tour.rulers,
        supporters=tour.unused_supporters,
        jacks=tour.jacks - used,
        first_edition=True,
    )
    out = hand | scoring | discarded | (CardSet([waiting]) if waiting else CardSet())
    phase = Phase.ANSWER if waiting else Phase.DISCARD if commerce else Phase.DECIDE
    if Suit.SPADES in used:
        visit = replace(visit, trump=Suit.SPADES)  # R6: ♠ made spades trump for the visit
    return replace(
        visit,
        deck=CardSet.full() - out,
        scoring=scoring,
        discard=discarded,
        waiting=waiting,
        phase=phase,
        verdict=VERDICTS.get(verdict),
    )
