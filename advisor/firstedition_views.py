"""Tables and JSON for the first edition's advice: costs in reputation, not chances (R5-R7)."""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from search.firstedition import FirstEditionAdvice, RankedAction, net_losses
from search.game import Answer, Debate, Discard, TourState, UseAbility, VisitState

from .notation import card_str, cards_str, ruler_str

MISS_COLUMNS = 3  # misses 0 (a hit), 1, 2 and "3+"
SCORING = (
    "Scored by expected reputation spent (abilities used plus the miss); the kingdom by net "
    "loss: that cost, less the chance of a hit (a new supporter), plus each later kingdom "
    "times the chance the miss ends the tour."
)
UPPER_BOUND = "† ♦ not searched within the time limit: the cost is an upper bound."


def face_up_text(tour: TourState, ascii: bool) -> str:
    """The face-up Jacks and supporters, e.g. 'JC JH K♠'."""
    jacks = [f"J{s.letter}" for s in sorted(tour.jacks)]
    supporters = [ruler_str(r, ascii) for r in tour.unused_supporters]
    return " ".join(jacks + supporters) or "none"


def advise_view(advice: FirstEditionAdvice, tour: TourState, hand, ascii: bool = False) -> Group:
    table = Table(
        title=f"Hand {cards_str(hand, ascii)} · reputation {advice.reputation} "
        f"({face_up_text(tour, ascii)}) · first edition",
        title_justify="left",
        box=box.ASCII if ascii else box.SIMPLE_HEAD,
    )
    for name in ("#", "ruler", "target", "cost", "hit"):
        table.add_column(name, justify="right")
    for m in range(1, MISS_COLUMNS):
        table.add_column(f"miss {m}", justify="right")
    table.add_column(f"{MISS_COLUMNS}+", justify="right")
    table.add_column("ends", justify="right")
    table.add_column("net", justify="right")
    losses = net_losses(tour, advice.kingdoms)
    for position in sorted(advice.kingdoms):
        k = advice.kingdoms[position]
        misses = list(k.miss) + [0.0] * MISS_COLUMNS
        table.add_row(
            str(position),
            ruler_str(tour.rulers[position - 1], ascii),
            str(tour.config.target(position)),
            f"{k.cost:.3f}{'' if k.commerce else '†'}",
            *(f"{100 * p:.1f}%" for p in misses[:MISS_COLUMNS]),
            f"{100 * sum(k.miss[MISS_COLUMNS:]):.1f}%",
            f"{100 * k.ending(advice.reputation):.1f}%",
            f"{losses[position]:.3f}",
            style="bold" if position == advice.recommended else None,
        )
    best = advice.kingdoms[advice.recommended]
    lines = [
        table,
        Text(
            f"Visit kingdom {advice.recommended}: expected reputation spent {best.cost:.3f}, "
            f"exact target {100 * best.chance:.1f}% ({advice.seconds:.1f} s)."
        ),
        Text(
            "hit: P(exact target); miss m: P(missing it by m); ends: P(the miss ends the tour, R7); "
            "net: the net loss.",
            style="dim",
        ),
        Text(SCORING, style="dim"),
    ]
    if not advice.exact:
        lines.append(Text(UPPER_BOUND, style="dim"))
    return Group(*lines)


def advise_json(advice: FirstEditionAdvice, tour: TourState) -> dict:
    losses = net_losses(tour, advice.kingdoms)
    return {
        "variant": "first-edition",
        "reputation": advice.reputation,
        "kingdoms": [
            {
                "position": p,
                "ruler": tour.rulers[p - 1].ascii(),
                "target": tour.config.target(p),
                "expected_cost": k.cost,
                "chance": k.chance,
                "miss": list(k.miss),
                "ends_tour": k.ending(advice.reputation),
                "net_loss": losses[p],
                "commerce_searched": k.commerce,
            }
            for p, k in sorted(advice.kingdoms.items())
        ],
        "recommendation": advice.recommended,
        "scoring": SCORING,
        "seconds": round(advice.seconds, 3),
    }


def action_text(ranked: RankedAction, ascii: bool = False) -> str:
    """How a ranked action reads: 'debate', '5♥', 'JC, then 5♥', 'discard 2♦ 3♣'."""
    action = ranked.action
    if isinstance(action, Debate):
        return "debate"
    if isinstance(action, Answer):
        return card_str(action.card, ascii)
    if isinstance(action, Discard):
        return "discard " + cards_str(action.cards, ascii)
    source = f"J{action.suit.letter}" if action.source is None else ruler_str(action.source, ascii)
    text = f"{action.suit.ability} ({source})"
    if ranked.then is not None:
        text += f", then {card_str(ranked.then.card, ascii)}"
    return text


def move_view(
    ranked: list[RankedAction], searched: bool, visit: VisitState, ascii: bool = False
) -> Group:
    waiting = f" · ruler's card {card_str(visit.waiting, ascii)}" if visit.waiting else ""
    table = Table(
        title=f"Kingdom {visit.position} · {visit.wins} won of {visit.target}{waiting} · first edition",
        title_justify="left",
        box=box.ASCII if ascii else box.SIMPLE_HEAD,
    )
    table.add_column("option")
    table.add_column("expected cost", justify="right")
    table.add_column("loss", justify="right")
    best = ranked[0].cost if ranked else 0.0
    mark = "" if searched else "†"
    for index, entry in enumerate(ranked):
        loss = entry.cost - best
        table.add_row(
            action_text(entry, ascii),
            f"{entry.cost:.4f}{mark}",
            "" if loss <= 1e-12 else f"+{loss:.4f}",
            style="bold" if index == 0 else None,
        )
    lines = [table, Text(SCORING.split(";")[0] + ".", style="dim")]
    if not searched:
        lines.append(Text(UPPER_BOUND + " Commerce is not listed.", style="dim"))
    return Group(*lines)


def move_json(ranked: list[RankedAction], searched: bool, visit: VisitState) -> dict:
    options = []
    for entry in ranked:
        action = entry.action
        option: dict = {"option": action_text(entry, ascii=True), "expected_cost": entry.cost}
        if isinstance(action, UseAbility):
            option["suit"] = action.suit.letter
            option["source"] = action.source.ascii() if action.source else "jack"
            if entry.then is not None:
                option["then"] = entry.then.card.ascii()
        options.append(option)
    return {
        "variant": "first-edition",
        "kingdom": visit.position,
        "target": visit.target,
        "wins": visit.wins,
        "hand": [card.ascii() for card in visit.hand],
        "ruler_card": visit.waiting.ascii() if visit.waiting else None,
        "best": options[0]["option"] if options else None,
        "options": options,
        "commerce_searched": searched,
    }
