"""What the player sees of a visit: positions, options and results (docs/rules.md §7).

A :class:`Position` is a visit as the player sees it: hand, trump, target, the
cards seen in the discard and scoring piles, a ruler card waiting or not, and
the abilities left. A :class:`KingdomResult` is a solver's answer for one
position: its chance, every option's chance and the distribution of wins, or an
estimate with its interval. Options translate between the solver's labels and
the rules engine's actions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import NamedTuple

from ..game import Card, CardSet, Debate, Phase, Suit, UseAbility, VisitState, ability_sources
from .reference import MAX_NEED, Abilities


class InvalidPositionError(ValueError):
    """A position that cannot arise in a visit."""


@dataclass(frozen=True)
class Position:
    """A visit as the player sees it; ``scoring`` holds the cards won so far."""

    hand: CardSet
    trump: Suit
    target: int
    abilities: Abilities = field(default_factory=Abilities)
    discard: CardSet = CardSet()
    scoring: CardSet = CardSet()
    waiting: Card | None = None
    discarding: bool = False  # Commerce has drawn: choose the cards to discard (R3)

    @property
    def wins(self) -> int:
        """Debates won so far."""
        return len(self.scoring)

    @property
    def need(self) -> int:
        """Wins still needed to hit the target exactly."""
        return self.target - self.wins

    @property
    def deck(self) -> CardSet:
        """The unseen cards: everything not in hand, in a pile, or waiting."""
        waiting = CardSet([self.waiting]) if self.waiting else CardSet()
        return CardSet.full() - self.hand - self.discard - self.scoring - waiting

    def validate(self) -> None:
        """Raise :class:`InvalidPositionError` with a one-line reason if impossible."""
        if not 1 <= self.target <= MAX_NEED:
            raise InvalidPositionError(f"target {self.target} is outside 1..8")
        if not self.hand:
            raise InvalidPositionError("the hand is empty: the visit is over")
        piles = {"discard pile": self.discard, "scoring pile": self.scoring}
        for name, pile in piles.items():
            both = self.hand & pile
            if both:
                raise InvalidPositionError(
                    f"{both.ascii()} cannot be both in your hand and in the {name}"
                )
        if self.discard & self.scoring:
            raise InvalidPositionError(
                f"{(self.discard & self.scoring).ascii()} cannot be in both piles"
            )
        if self.waiting is not None and self.discarding:
            raise InvalidPositionError("a ruler card cannot wait while Commerce discards")
        if self.waiting is not None and self.waiting.bit & (
            self.hand.mask | self.discard.mask | self.scoring.mask
        ):
            raise InvalidPositionError(f"the waiting card {self.waiting.ascii()} is already placed")
        counts = self.abilities.counts
        if min(counts) < 0 or max(counts) > 3:
            raise InvalidPositionError(
                "impossible ability counts: at most a Jack and 2 supporters a suit"
            )


@dataclass(frozen=True)
class Option:
    """One choice open to the player now."""

    kind: str  # "debate", "answer", "ability" or "discard"
    card: Card | None = None  # the answering card
    cards: CardSet | None = None  # Commerce's discards
    suit: Suit | None = None  # the ability's suit
    new_trump: Suit | None = None  # Politics: the trump it brings

    def describe(self, ascii: bool = True) -> str:
        """A short text such as ``answer 7H`` or ``Politics -> trump D``."""

        def suit_text(s: Suit) -> str:
            return s.letter if ascii else s.symbol

        if self.kind == "debate":
            return "debate now"
        if self.kind == "answer":
            return "answer " + (self.card.ascii() if ascii else str(self.card))
        if self.kind == "discard":
            return "discard " + (self.cards.ascii() if ascii else str(self.cards))
        name = f"{self.suit.ability} ({suit_text(self.suit)})"
        if self.new_trump is not None:
            return f"{name} -> trump {suit_text(self.new_trump)}"
        return name


@dataclass(frozen=True)
class KingdomResult:
    """The solver's answer for one position."""

    chance: float
    chance_exact: Fraction | None
    needs: tuple  # chance of exactly j more wins, j = 0..8, each under its own best policy
    best: Option | None  # None for an estimate
    options: tuple[tuple[Option, float], ...]  # every option with its chance, as listed
    distribution: tuple[float, ...]  # P(final wins = j) under the policy best for the target
    states: int
    seconds: float
    estimate: bool = False
    interval: tuple[float, float] | None = None  # 95% CI when ``estimate``
    playouts: int = 0
    policy: str = ""  # the fallback policy an estimate played (search.visit.estimate)
    bound: float = 0.0  # an estimate's proven lower bound: the exact chance of a restriction
    hits: tuple[bool, ...] = ()  # an estimate's playouts, in seeded order: did each hit the target
    clock_cut: bool = False  # the clock, not a fixed amount of work, decided how much was done

    def to_json(self) -> dict:
        """Plain JSON-ready figures."""
        data = {
            "chance": self.chance,
            "estimate": self.estimate,
            "distribution": list(self.distribution),
            "best_action": self.best.describe() if self.best else None,
            "actions": [{"action": o.describe(), "chance": v} for o, v in self.options],
            "states": self.states,
            "seconds": round(self.seconds, 6),
        }
        if self.chance_exact is not None:
            data["chance_exact"] = f"{self.chance_exact.numerator}/{self.chance_exact.denominator}"
        if self.estimate:
            data["chance_ci"] = list(self.interval)
            data["playouts"] = self.playouts
            data["policy"] = self.policy
            if self.bound:
                data["bound"] = self.bound  # proven: the exact chance of a subset of the abilities
        return data


def make_position(
    hand: CardSet,
    trump: Suit,
    target: int,
    jacks: list[Suit] | tuple[Suit, ...] = tuple(Suit),
    supporters: list[Suit] | tuple[Suit, ...] = (),
    pool: list[Suit] | tuple[Suit, ...] = (),
) -> Position:
    """A visit's start from its parts, checked against the ruler cards that exist: two
    rulers a suit, one of them here."""
    if len(set(jacks)) != len(jacks):
        raise InvalidPositionError("each Jack can be listed once")
    if len(pool) > 7:
        raise InvalidPositionError(f"at most 7 other rulers can be unvisited, got {len(pool)}")
    for suit in Suit:
        rulers = list(supporters).count(suit) + list(pool).count(suit) + (suit == trump)
        if rulers > 2:
            raise InvalidPositionError(
                f"too many {suit.letter} rulers: only a King and a Queen exist "
                f"(one rules here if trump is {suit.letter}; supporters and --pool share the rest)"
            )
    position = Position(hand, trump, target, Abilities.of(jacks, supporters, pool))
    position.validate()
    return position


class SolverState(NamedTuple):
    """A state of the solvers between debates: card sets as 32-bit masks (see
    :mod:`search.game.cards`), the trump suit's number, the ability counts (♣ ♦ ♥ ♠) and the
    Politics pool (the suits it may bring, each once; empty once Politics is spent)."""

    hand: int
    deck: int
    discard: int
    trump: int
    abilities: tuple[int, ...]
    pool: tuple[int, ...]


def root_state(position: Position) -> SolverState:
    """The solvers' state for ``position``'s decision."""
    abilities = position.abilities
    pool = abilities.pool if abilities.counts[3] else ()
    return SolverState(
        hand=position.hand.mask,
        deck=position.deck.mask,
        discard=position.discard.mask,
        trump=int(position.trump),
        abilities=abilities.counts,
        pool=pool,
    )


def option_of_label(label: tuple) -> Option:
    """The option a label of ``KingdomSolver.options`` stands for."""
    if label[0] == "debate":
        return Option("debate")
    if label[0] == "S":
        return Option("ability", suit=Suit.SPADES, new_trump=Suit(label[1]))
    return Option("ability", suit=Suit.from_letter(label[0]))


def action_of_label(visit: VisitState, label: tuple) -> Debate | UseAbility:
    """The engine action of a label of ``KingdomSolver.options`` at ``visit``: the ability
    lent by its Jack if face up, else by a supporter; Politics swaps with the first other
    unvisited kingdom of the new trump."""
    if label[0] == "debate":
        return Debate()
    suit = Suit.from_letter(label[0])
    target = None
    if suit is Suit.SPADES:
        target = next(
            p
            for p, ruler in enumerate(visit.rulers, 1)
            if ruler is not None and p != visit.position and ruler.suit.value == label[1]
        )
    return UseAbility(suit, ability_sources(visit, suit)[0], target)


def legal_discards_of(hand: CardSet) -> list[CardSet]:
    """Commerce's possible discards: every set of ``min(2, len(hand))`` cards (R3)."""
    count = min(2, len(hand))
    return [CardSet(cards) for cards in combinations(hand, count)]


def position_from_visit(visit: VisitState) -> Position:
    """What the player sees in an engine state: abilities from Jacks and supporters, the
    Politics pool from the rulers on the other unvisited kingdoms."""
    if visit.over or visit.is_chance:
        raise InvalidPositionError(f"no decision is due now (phase: {visit.phase.value})")
    pool = [
        ruler.suit
        for index, ruler in enumerate(visit.rulers)
        if ruler is not None and index + 1 != visit.position
    ]
    supporters = [ruler.suit for ruler in visit.supporters]
    return Position(
        hand=visit.hand,
        trump=visit.trump,
        target=visit.target,
        abilities=Abilities.of(sorted(visit.jacks), supporters, pool),
        discard=visit.discard,
        scoring=visit.scoring,
        waiting=visit.waiting,
        discarding=visit.phase is Phase.DISCARD,
    )
