"""What the commands share: option types, checks of their values and parsing of the tour
and the piles. Each check refuses a bad value with a one-line reason naming its option."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Annotated

import typer
from rich.console import Console

from search.game import Card, CardSet, Suit, TourConfig, TourState, tour_between_visits
from search.tours import AmbiguousPilesError, place_seen

from .notation import parse_cards, parse_layout, parse_positions, parse_rulers, parse_suits
from .streams import OutputPipeClosed

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
PublishedOption = Annotated[
    bool, typer.Option("--published-rules", help="Allow abilities that do nothing (R4).")
]
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
        help='Unused supporters, e.g. "Q♥ K♦". Default: every won ruler not in '
        "--used-supporters (the won rulers are those lying on no kingdom).",
    ),
]
UsedSupportersOption = Annotated[
    str, typer.Option("--used-supporters", help='Supporters whose ability is spent, e.g. "K♠".')
]
ObjectiveOption = Annotated[
    str,
    typer.Option(
        "--objective",
        help="What the tour value measures: score (expected final score) or perfect (its chance).",
    ),
]


@dataclass
class CommandClock:
    """The command's clock: when the console script started (a ``time.perf_counter()``
    reading; None when ``main`` is called in-process), moved later by what must not count
    against a time limit. The console script hands it to the command through typer's context
    (:func:`command_clock`)."""

    started: float | None = None

    def delay(self, seconds: float) -> None:
        """Leave ``seconds`` out of every time limit: the first run's compile of the kernels
        (:mod:`advisor.warmup`) is not the search's time."""
        if self.started is not None:
            self.started += seconds

    def deadline(self, seconds: float | None) -> float | None:
        """``seconds`` after the start, the moment a command with that time limit must answer
        by, start-up included; None without a limit or without a start."""
        if seconds is None or self.started is None:
            return None
        return self.started + seconds


def command_clock(context: typer.Context) -> CommandClock:
    """The clock :func:`advisor.cli.main` gave the command (a clock with no start if none)."""
    clock = context.find_object(CommandClock)
    return clock if clock is not None else CommandClock()


TimeLimitOption = Annotated[
    float | None,
    typer.Option(
        "--time-limit",
        help="Seconds for the ranking: the exact search gets half; past it, every option is "
        "estimated in the rest.",
    ),
]


class Interrupted(Exception):
    """Ctrl-C stopped a command; the message says what was saved (exit 130, one line).

    Not a ``KeyboardInterrupt``: typer turns those into a bare exit code, message lost."""


def caused_by_interrupt(error: BaseException | None) -> bool:
    """Whether ``error`` is, or was raised while handling, a Ctrl-C (``KeyboardInterrupt``)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def check_seed(seed: int) -> None:
    """Refuse a negative seed."""
    if seed < 0:
        raise typer.BadParameter("the seed must be 0 or more", param_hint="--seed")


MAX_WORKERS = 256  # processes on one machine; more is a typo (and past 2**31 an overflow)


def check_workers(workers: int | None) -> None:
    """Refuse fewer than one worker, or more than :data:`MAX_WORKERS`."""
    if workers is not None and workers < 1:
        raise typer.BadParameter("give at least 1 worker", param_hint="--workers")
    if workers is not None and workers > MAX_WORKERS:
        raise typer.BadParameter(
            f"at most {MAX_WORKERS} workers (this machine has {os.cpu_count() or 1} cores)",
            param_hint="--workers",
        )


def check_path(text: str | None, option: str) -> None:
    """Refuse an empty path (``--out ''`` would mean the current folder, unasked)."""
    if text is not None and not str(text).strip():
        raise typer.BadParameter("give a file or folder name, not an empty one", param_hint=option)


MAX_SECONDS = 7 * 24 * 3600.0  # a week: longer is a typo, and inf or 1e400 would never end


def check_seconds(seconds: float | None, option: str) -> None:
    """Refuse a time that is not a finite positive number of seconds (inf, nan, 1e400, 0)."""
    if seconds is not None and not 0 < seconds <= MAX_SECONDS:
        raise typer.BadParameter(
            f"give a positive number of seconds, at most {MAX_SECONDS:,.0f} (a week)",
            param_hint=option,
        )


class CommandConsole(Console):
    """A rich console whose broken pipe (``| head -1``) ends the command with exit 141
    (:class:`~advisor.streams.OutputPipeClosed`), not rich's own exit 1."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise OutputPipeClosed


def new_console() -> Console:
    """A console for the commands' output (no automatic highlighting)."""
    return CommandConsole(highlight=False)


def print_json(data: object) -> None:
    """Print ``data`` as indented JSON on stdout."""
    try:
        sys.stdout.write(json.dumps(data, indent=2, sort_keys=False) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise OutputPipeClosed from None


def check_variant(variant: str) -> bool:
    """Whether ``variant`` names the first edition; refuses unknown names."""
    if variant not in VARIANTS:
        raise typer.BadParameter(f"choose {' or '.join(VARIANTS)}", param_hint="--variant")
    return variant == "first-edition"


def check_plotting(plot: str) -> None:
    """A PNG path in a writable folder, and matplotlib installed."""
    import importlib.util
    from pathlib import Path

    if not plot.lower().endswith(".png"):
        raise typer.BadParameter(
            "the plot is a PNG file: give a name ending in .png", param_hint="--plot"
        )
    folder = Path(plot).resolve().parent
    if not folder.is_dir():
        raise typer.BadParameter(f"no folder {folder} to write the plot in", param_hint="--plot")
    if importlib.util.find_spec("matplotlib") is None:
        raise typer.BadParameter(
            "plots need matplotlib: pip install 'emissary[plots]'", param_hint="--plot"
        )


def optional_rulers(text: str | None) -> list | None:
    """Rulers from text; None when not given, [] for 'none' or nothing."""
    if text is None:
        return None
    if text.strip().lower() in ("", "none"):
        return []
    return parse_rulers(text)


def tour_state(
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
        raise typer.BadParameter(
            "Jacks turn face down for good only in the first edition (--variant first-edition)",
            param_hint="--jacks-down",
        )
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
        used=optional_rulers(used_supporters) or [],
        unused=optional_rulers(supporters),
        config=config,
        jacks=frozenset(Suit) - down,
    )


HAND_LIMIT = 8  # cards a hand holds, but for the 2 Commerce draws before its discard


def visit_hand(text: str, commerce: bool = False, option: str = "HAND") -> CardSet:
    """The cards in hand: at most 8 (fewer mid-visit or for a what-if), or 10 while
    Commerce's discard waits (``commerce``)."""
    cards = CardSet(parse_cards(text))
    most = HAND_LIMIT + 2 if commerce else HAND_LIMIT
    if len(cards) > most:
        why = " while Commerce discards (8 and the 2 drawn)" if commerce else ""
        raise typer.BadParameter(
            f"a hand holds at most {most} cards{why}, got {len(cards)}", param_hint=option
        )
    return cards


def optional_cards(text: str | None) -> CardSet | None:
    """Cards from text; None when not given, an empty set for 'none' or nothing."""
    if text is None:
        return None
    if text.strip().lower() in ("", "none"):
        return CardSet()
    return CardSet(parse_cards(text))


def piles(
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
            return place_seen(hand, optional_cards(seen), wins or 0, abilities, waiting)
        except AmbiguousPilesError as error:
            message = f"{error}: give --discard and --won-cards, not --seen"
            raise AmbiguousPilesError(message) from None
    scoring = optional_cards(won_cards)
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
    return optional_cards(discard) or CardSet(), scoring
