"""Helpers shared by the tests: states written as short card strings, the command line run in
process or as a user runs it, and the reference values kept in ``tests/data``."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
from pathlib import Path

from advisor import cli
from search.game.cards import FULL_MASK, CardSet, Ruler, Suit
from search.game.deal import Stream
from search.game.rules import VisitState


def pytest_configure(config) -> None:
    """A run started in the background of a script (``cmd &``, ``nohup``) ignores Ctrl-C, and
    every process it starts inherits that; the Ctrl-C tests send SIGINT to their processes as
    a terminal would, so the run restores Python's own handler first (in each xdist worker
    too). Without it those tests fail for the way the run was started, not for a bug."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


KERNEL_LOADS = (
    "from search.visit import warm_up; warm_up()",
    "from advisor.warmup import load_first_edition_kernel; load_first_edition_kernel()",
)
"""What loads the two compiled kernels (the visit's and the first edition's; the commands
load them the same way, :mod:`advisor.warmup`)."""


def pytest_sessionstart(session) -> None:
    """Before the test workers start, load the two kernels once, side by side, each in a
    process of its own. On a fresh clone that compiles them into numba's cache, each on a core,
    and the workers then load them in a fraction of a second; otherwise every worker compiled
    both in turn (the visit kernel alone takes about 100 s). Runs before xdist starts its
    workers (its own hook runs last); a worker does nothing here."""
    if hasattr(session.config, "workerinput"):
        return
    root = Path(__file__).resolve().parents[1]
    loads = [subprocess.Popen([sys.executable, "-c", code], cwd=root) for code in KERNEL_LOADS]
    for load in loads:
        load.wait()  # a failed load shows again, with its cause, in the tests that need it


DATA = Path(__file__).resolve().parent / "data"
"""The reference values the tests compare with (see ``tests/data/README.md``)."""

STANDARD_LAYOUT = tuple(
    Ruler(kind, suit)
    for kind, suit in [
        ("K", Suit.CLUBS),
        ("Q", Suit.HEARTS),
        ("K", Suit.SPADES),
        ("Q", Suit.DIAMONDS),
        ("K", Suit.HEARTS),
        ("Q", Suit.CLUBS),
        ("K", Suit.DIAMONDS),
        ("Q", Suit.SPADES),
    ]
)

# All four Jacks and a Politics pool: an exact search of many seconds and hundreds of MiB.
BIG_HAND = "3C 3D 2H 3H 6H AS 7S 8S"

ERROR_PREFIX = "emissary: error:"
SUIT_SYMBOLS = "♣♦♥♠"
CONSOLE_SCRIPT = Path(sys.executable).with_name("emissary")


def reference_file(name: str) -> Path:
    """A file of reference values in ``tests/data``."""
    return DATA / name


def reference_cases() -> list[dict]:
    """The independent solver's exact single-visit chances (``tests/data/kingdom_cases.json``)."""
    return json.loads(reference_file("kingdom_cases.json").read_text(encoding="utf-8"))


def textbook_wilson(successes: int, trials: int) -> tuple[float, float]:
    """Wilson's 95% score interval of a rate, written out here from the textbook formula (apart
    from the project's own, to check it)."""
    z = statistics.NormalDist().inv_cdf(0.975)
    rate = successes / trials
    shrink = 1 + z * z / trials
    centre = (rate + z * z / (2 * trials)) / shrink
    spread = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials)) / shrink
    return max(0.0, centre - spread), min(1.0, centre + spread)


def process_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first, session id
    fourth), or None once the process is gone (Linux)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def dead_pid() -> int:
    """The process id of a process that has just exited (a leftover temp file's writer)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def cards(text: str) -> CardSet:
    """Cards written like ``'AC 7H 3S'``."""
    return CardSet.parse(text)


def visit(
    hand: str,
    *,
    position: int = 4,
    target: int | None = None,
    trump: Suit | None = None,
    deck: str | None = None,
    discard: str = "",
    scoring: str = "",
    jacks: str = "CDHS",
    supporters: tuple[Ruler, ...] = (),
    rulers: tuple[Ruler | None, ...] = STANDARD_LAYOUT,
    published_rules: bool = False,
) -> VisitState:
    """A visit state in DECIDE; the deck defaults to every card not placed elsewhere."""
    hand_set, discard_set, scoring_set = cards(hand), cards(discard), cards(scoring)
    deck_set = (
        cards(deck) if deck is not None else CardSet.full() - hand_set - discard_set - scoring_set
    )
    ruler = rulers[position - 1]
    return VisitState(
        position=position,
        target=target if target is not None else position,
        trump=trump if trump is not None else ruler.suit,
        hand=hand_set,
        deck=deck_set,
        discard=discard_set,
        scoring=scoring_set,
        jacks=frozenset(Suit.from_letter(c) for c in jacks),
        supporters=supporters,
        rulers=rulers,
        published_rules=published_rules,
    )


def engine_state(hand, deck, disc, trump, jacks, supporters, pool, need) -> VisitState:
    """A VisitState for a small position; cards not in hand/deck/discard sit in the scoring
    pile, so the target is their count plus ``need``."""
    scoring = FULL_MASK & ~(hand | deck | disc)
    taken = {trump: 1}
    rulers = [Ruler("K", Suit(trump))]
    for suit in pool:
        kind = "Q" if taken.get(suit) else "K"
        taken[suit] = taken.get(suit, 0) + 1
        rulers.append(Ruler(kind, Suit(suit)))
    supporter_rulers = []
    for suit in supporters:
        kind = "Q" if taken.get(suit) else "K"
        taken[suit] = taken.get(suit, 0) + 1
        supporter_rulers.append(Ruler(kind, Suit(suit)))
    return VisitState(
        position=1,
        target=scoring.bit_count() + need,
        trump=Suit(trump),
        hand=CardSet(hand),
        deck=CardSet(deck),
        discard=CardSet(disc),
        scoring=CardSet(scoring),
        jacks=frozenset(Suit(j) for j in jacks),
        supporters=tuple(supporter_rulers),
        rulers=tuple(rulers),
    )


def small_states(count: int, seed: int, max_deck: int = 4):
    """Random small positions: 1-3 cards in hand, 2..max_deck in the deck, 0-3 discarded."""
    for index in range(count):
        stream = Stream(seed, "small", index)
        order = [c.index for c in stream.shuffle(list(CardSet.full()))]
        h, d, x = 1 + stream.below(3), 2 + stream.below(max_deck - 1), stream.below(4)
        hand = sum(1 << c for c in order[:h])
        deck = sum(1 << c for c in order[h : h + d])
        disc = sum(1 << c for c in order[h + d : h + d + x])
        trump = stream.below(4)
        jacks = [s for s in range(4) if stream.below(2)]
        supporters = [stream.below(4)] if stream.below(3) == 0 else []
        pool = [s for s in (stream.below(4), stream.below(4)) if s != trump][: stream.below(3)]
        if supporters and supporters[0] == trump:
            supporters = []
        yield hand, deck, disc, trump, jacks, supporters, pool


def big_state() -> tuple:
    """:data:`BIG_HAND` at K♥, target 6, every Jack, Politics may bring ♣ ♠ ♦: (position, root state)."""
    from search.visit import make_position
    from search.visit.position import root_state

    position = make_position(
        CardSet.parse(BIG_HAND), Suit.HEARTS, 6, pool=[Suit.CLUBS, Suit.SPADES, Suit.DIAMONDS]
    )
    return position, root_state(position)


def midway_every_jack(need: int = 5):
    """A visit three wins in with 4 cards in hand and 14 unseen (trump ♥, every Jack, Politics
    may bring ♣ ♦ ♠), needing ``need`` more: small enough for the exact search with every Jack
    (about a second, 30 MB), big enough to need an estimate under a smaller cap or less work."""
    from search.visit.position import Position
    from search.visit.reference import Abilities

    hand = CardSet.parse("2C 6C 4D 7H")
    unseen = CardSet.parse("AC 3C 8C AD 2D 3D AH 2H 3H 5H AS 2S 3S 4S")
    won = CardSet.parse("4C 5C 7C")
    abilities = Abilities.of(list(Suit), (), [Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES])
    return Position(
        hand,
        Suit.HEARTS,
        len(won) + need,
        abilities,
        discard=CardSet.full() - hand - unseen - won,
        scoring=won,
    )


def restriction_chances(position, need: int) -> dict[tuple, float]:
    """The exact chance of ``need`` more wins from ``position`` with only some of its Jacks:
    ♥♠, ♦♥♠, ♣, ♦ and ♣♥♠ (suit numbers), each solved afresh."""
    from search.visit import make_solver
    from search.visit.lookahead import restricted
    from search.visit.position import root_state

    state = root_state(position)
    return {
        suits: make_solver().decide(*state[:4], restricted(state[4], suits), state[5])[need]
        for suits in ((2, 3), (1, 2, 3), (0,), (1,), (0, 2, 3))
    }


def fixed_work(monkeypatch, seconds: float, backstop: float = 600.0) -> float:
    """Let a search told ``backstop`` seconds do the work that the fixed rates give ``seconds``
    (kernel lookups, lookahead playouts: search.visit.estimate), so that the work, never the
    clock, ends it on a busy machine; returns ``backstop``, the time limit to pass."""
    from search.visit import budget, estimate

    scale = seconds / backstop
    monkeypatch.setattr(budget, "LOOKUPS_PER_SECOND", budget.LOOKUPS_PER_SECOND * scale)
    monkeypatch.setattr(estimate, "LOOKUPS_PER_SECOND", estimate.LOOKUPS_PER_SECOND * scale)
    monkeypatch.setattr(estimate, "PLAYOUTS_PER_SECOND", estimate.PLAYOUTS_PER_SECOND * scale)
    return backstop


def run_in_process(monkeypatch, capsys, args: list[str]) -> tuple[int, str, str]:
    """Run ``main()`` with ``args`` as the command line; returns (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["emissary", *args])
    code = 0
    try:
        cli.main()
    except SystemExit as done:
        code = 0 if done.code is None else done.code
    out, err = capsys.readouterr()
    return code, out, err


def run_subprocess(args: list[str], module: bool = False) -> subprocess.CompletedProcess:
    """Run the installed console script (or ``python -m advisor``) with ``args``."""
    if module or not CONSOLE_SCRIPT.exists():
        command = [sys.executable, "-m", "advisor", *args]
    else:
        command = [str(CONSOLE_SCRIPT), *args]
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PYTHONWARNINGS")}
    env.update(PYTHONIOENCODING="utf-8", NO_COLOR="1", COLUMNS="100")
    return subprocess.run(command, capture_output=True, env=env, timeout=120, check=False)


def assert_one_line_error(code: int, out: str, err: str) -> None:
    """An error as the CLI must end one: exit 1 or 2, one line on stderr, no traceback."""
    assert code in (1, 2), f"exit code {code}"
    assert "Traceback" not in out and "Traceback" not in err
    err = first_run_lines_dropped(err)
    assert err.endswith("\n") and len(err.splitlines()) == 1, f"stderr: {err!r}"
    assert err.startswith(ERROR_PREFIX)
    assert err[len(ERROR_PREFIX) :].strip(), "the error line says nothing after the prefix"


def first_run_lines_dropped(err: str) -> str:
    """``err`` without the two lines of a first run's compile (advisor.warmup): in a fresh clone
    whichever test first loads the kernels sees them, before the command's own output."""
    from advisor.warmup import ANNOUNCEMENT

    ready = re.compile(r"emissary: the search is ready \(\d+ s\)\.\n")
    return ready.sub("", err.replace(ANNOUNCEMENT + "\n", "", 1), count=1)
