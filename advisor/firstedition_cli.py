"""``move --variant first-edition``: the live visit from the command's options, for the
least-reputation ranking (:mod:`search.firsteditionplay`)."""

from __future__ import annotations

from dataclasses import replace

import typer

from search.cards import CardSet, Suit
from search.rules import Phase, VisitState, new_visit
from search.tour import TourState

from .notation import parse_card, parse_cards, parse_suits

VERDICTS = {"won": True, "lost": False}


def visit_from_options(
    tour: TourState,
    kingdom: int,
    hand: CardSet,
    wins: int | None,
    discard: str | None,
    won_cards: str | None,
    seen: str | None,
    jacks_used: str,
    ruler_card: str | None,
    commerce: bool,
    verdict: str | None,
) -> VisitState:
    """The visit as the player describes it. In the first edition cards never return to
    the deck, so only which cards are out of play and how many debates were won matter:
    with --seen and --wins, the won cards are taken to be any ``wins`` of the seen ones."""
    position_ruler = tour.rulers[kingdom - 1]
    if position_ruler is None:
        raise typer.BadParameter(f"kingdom {kingdom} is completed already", param_hint="--kingdom")
    waiting = parse_card(ruler_card) if ruler_card is not None else None
    if commerce and waiting is not None:
        raise typer.BadParameter("Commerce cannot be pending while a ruler's card waits",
                                 param_hint="--commerce-discard")
    if verdict is not None and (verdict not in VERDICTS or waiting is None):
        raise typer.BadParameter("--verdict is won or lost, with the --ruler-card it settles",
                                 param_hint="--verdict")
    scoring, discarded = _piles(wins, discard, won_cards, seen)
    taken = [("--hand", hand), ("--won-cards", scoring), ("--discard", discarded),
             ("--ruler-card", CardSet([waiting]) if waiting else CardSet())]
    for i, (name, cards) in enumerate(taken):
        for other, others in taken[i + 1:]:
            if cards & others:
                raise typer.BadParameter(f"{next(iter(cards & others)).ascii()} is in both {name} and {other}",
                                         param_hint=other)
    used = set(parse_suits(jacks_used))
    face_up = tour.jacks - used
    if used - tour.jacks:
        raise typer.BadParameter(
            f"J{sorted(used - tour.jacks)[0].letter} was turned down before this visit (--jacks-down)",
            param_hint="--jacks-used")
    visit = new_visit(hand, kingdom, tour.config.target(kingdom), tour.rulers,
                      supporters=tour.unused_supporters, jacks=face_up, first_edition=True)
    out = hand | scoring | discarded | (CardSet([waiting]) if waiting else CardSet())
    phase = Phase.ANSWER if waiting else Phase.DISCARD if commerce else Phase.DECIDE
    if Suit.SPADES in used:
        visit = replace(visit, trump=Suit.SPADES)  # R6: ♠ made spades trump for the visit
    return replace(visit, deck=CardSet.full() - out, scoring=scoring, discard=discarded,
                   waiting=waiting, phase=phase, verdict=VERDICTS.get(verdict))


def _piles(wins: int | None, discard: str | None, won_cards: str | None, seen: str | None) -> tuple[CardSet, CardSet]:
    """(scoring pile, discard pile)."""
    if wins is not None and wins < 0:
        raise typer.BadParameter("wins cannot be negative", param_hint="--wins")
    if seen is not None:
        if discard is not None or won_cards is not None:
            raise typer.BadParameter("--seen gives both piles together: use it alone, or --discard "
                                     "and --won-cards", param_hint="--seen")
        cards = sorted(CardSet(parse_cards(seen)))
        count = wins or 0
        if count > len(cards):
            raise typer.BadParameter(f"{count} won but only {len(cards)} cards seen: each win puts "
                                     "one card on the scoring pile", param_hint="--wins")
        return CardSet(cards[:count]), CardSet(cards[count:])
    scoring = CardSet(parse_cards(won_cards)) if won_cards else CardSet()
    if won_cards is None and wins:
        raise typer.BadParameter(f"{wins} won but no won cards given: list them with --won-cards, "
                                 "or give --seen", param_hint="--wins")
    if wins is not None and won_cards is not None and wins != len(scoring):
        raise typer.BadParameter(f"--wins {wins} but --won-cards lists {len(scoring)} cards",
                                 param_hint="--wins")
    return scoring, CardSet(parse_cards(discard)) if discard else CardSet()

