"""Small builders shared by the tests: states written as short card strings."""

from __future__ import annotations

from pathlib import Path

from search.game.cards import CardSet, Ruler, Suit
from search.game.rules import VisitState

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


def process_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first, session id
    fourth), or None once the process is gone (Linux)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def dead_pid() -> int:
    """The process id of a process that has just exited (a leftover temp file's writer)."""
    import subprocess
    import sys

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
    deck_set = cards(deck) if deck is not None else CardSet.full() - hand_set - discard_set - scoring_set
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


def reference_file(name: str) -> Path:
    """A file of the shared reference values: ``shared/reference`` lies beside the repository."""
    for folder in Path(__file__).resolve().parents:
        candidate = folder / "shared" / "reference" / name
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"shared/reference/{name} not found beside the repository")
