"""Cards, suits, rulers and card sets (docs/rules.md §1).

The deck holds 32 cards: Ace (rank 1) to 8 in four suits. A card's index is
``suit * 8 + rank - 1``, so a set of cards fits one 32-bit integer mask and a
suit's cards are one byte of it. Jacks, 9s and 10s never enter play; the
Kings and Queens are rulers, kept apart as :class:`Ruler` values.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum

RANKS = range(1, 9)
DECK_SIZE = 32
FULL_MASK = (1 << DECK_SIZE) - 1
SUIT_MASK = 0xFF


class Suit(IntEnum):
    """A suit; the value orders suits as in bridge: ♣ ♦ ♥ ♠."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """The ASCII letter: C, D, H or S."""
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        """The Unicode symbol: ♣ ♦ ♥ ♠."""
        return "♣♦♥♠"[self]

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds are red."""
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @property
    def ability(self) -> str:
        """The name of the suit's ability (docs/rules.md §4)."""
        return ("Military", "Commerce", "Diplomacy", "Politics")[self]

    @property
    def mask(self) -> int:
        """The card-set mask of all 8 cards of this suit."""
        return SUIT_MASK << (8 * self)

    @classmethod
    def from_letter(cls, letter: str) -> Suit:
        """The suit for an ASCII letter (either case)."""
        return cls("CDHS".index(letter.upper()))

    def __str__(self) -> str:
        return self.symbol


SUITS = tuple(Suit)


def rank_text(rank: int) -> str:
    """The printed rank: ``A`` for the Ace, digits otherwise."""
    return "A" if rank == 1 else str(rank)


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One deck card; prints as ``A♣`` (or ``AC`` with :meth:`ascii`)."""

    suit: Suit
    rank: int

    def __post_init__(self) -> None:
        if self.rank not in RANKS:
            raise ValueError(f"rank {self.rank!r} is not in the deck (Ace..8)")

    @property
    def index(self) -> int:
        """Position 0..31 in a card-set mask."""
        return 8 * self.suit + self.rank - 1

    @property
    def bit(self) -> int:
        """The single-card mask."""
        return 1 << self.index

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card at mask position ``index``."""
        return CARDS[index]

    def ascii(self) -> str:
        """ASCII form, e.g. ``AC`` or ``7H``."""
        return rank_text(self.rank) + self.suit.letter

    def __str__(self) -> str:
        return rank_text(self.rank) + self.suit.symbol

    def __repr__(self) -> str:
        return f"Card.parse({self.ascii()!r})"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse the form this class prints: ``A`` or a digit 2-8, then a suit letter (either
        case) or symbol; anything else is not a deck card and raises ValueError quoting it.

        >>> Card.parse("AC"), Card.parse("7♥")
        (Card.parse('AC'), Card.parse('7H'))
        """
        rank_part, suit_part = text[:-1], text[-1:]
        if len(text) < 2:
            raise ValueError(f"{text!r} is not a deck card: a card is its rank, then its suit")
        if rank_part in ("A", "a"):
            rank = 1
        elif len(rank_part) == 1 and rank_part in "2345678":
            rank = int(rank_part)
        else:
            raise ValueError(f"{text!r} is not a deck card: its rank must be A or 2-8")
        if suit_part and suit_part in "♣♦♥♠":
            suit = Suit("♣♦♥♠".index(suit_part))
        elif suit_part and suit_part in "CDHScdhs":
            suit = Suit.from_letter(suit_part)
        else:
            raise ValueError(f"{text!r} is not a deck card: its suit must be C, D, H, S or ♣♦♥♠")
        return CARDS[8 * suit + rank - 1]


CARDS: tuple[Card, ...] = tuple(Card(s, r) for s in SUITS for r in RANKS)


@dataclass(frozen=True, slots=True)
class Ruler:
    """A King or Queen on a kingdom; its suit is the kingdom's trump."""

    kind: str  # "K" or "Q"
    suit: Suit

    def __post_init__(self) -> None:
        if self.kind not in ("K", "Q"):
            raise ValueError(f"ruler kind {self.kind!r} is neither K nor Q")

    def ascii(self) -> str:
        """ASCII form, e.g. ``KC``."""
        return self.kind + self.suit.letter

    def __str__(self) -> str:
        return self.kind + self.suit.symbol

    def __repr__(self) -> str:
        return f"Ruler({self.kind!r}, Suit.{self.suit.name})"


KINGS = tuple(Ruler("K", s) for s in SUITS)
QUEENS = tuple(Ruler("Q", s) for s in SUITS)
RULERS = KINGS + QUEENS


def iter_bits(mask: int) -> Iterator[int]:
    """Yield the indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class CardSet:
    """An immutable set of deck cards stored as a 32-bit mask."""

    __slots__ = ("mask",)

    def __init__(self, cards: Iterable[Card] | int = 0) -> None:
        if isinstance(cards, int):
            mask = cards
        else:
            mask = 0
            for card in cards:
                mask |= card.bit
        object.__setattr__(self, "mask", mask & FULL_MASK)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __reduce__(self) -> tuple:
        return (CardSet, (self.mask,))  # pickled by its mask (process pools)

    @classmethod
    def full(cls) -> CardSet:
        """All 32 deck cards."""
        return cls(FULL_MASK)

    def __iter__(self) -> Iterator[Card]:
        return (CARDS[i] for i in iter_bits(self.mask))

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and bool(self.mask & card.bit)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def add(self, card: Card) -> CardSet:
        """A new set with ``card`` added."""
        return CardSet(self.mask | card.bit)

    def remove(self, card: Card) -> CardSet:
        """A new set without ``card``."""
        return CardSet(self.mask & ~card.bit)

    def of_suit(self, suit: Suit) -> CardSet:
        """The cards of one suit."""
        return CardSet(self.mask & suit.mask)

    def has_suit(self, suit: Suit) -> bool:
        """Whether any card of ``suit`` is in the set."""
        return bool(self.mask & suit.mask)

    def isdisjoint(self, other: CardSet) -> bool:
        """Whether the sets share no card."""
        return not self.mask & other.mask

    def issubset(self, other: CardSet) -> bool:
        """Whether every card here is also in ``other``."""
        return not self.mask & ~other.mask

    def ascii(self) -> str:
        """Space-separated ASCII form, lowest suit and rank first."""
        return " ".join(card.ascii() for card in self)

    def __str__(self) -> str:
        return " ".join(str(card) for card in self)

    def __repr__(self) -> str:
        return f"CardSet.parse({self.ascii()!r})"

    @classmethod
    def parse(cls, text: str) -> CardSet:
        """Parse space-separated cards in the form :class:`Card` prints."""
        return cls(Card.parse(token) for token in text.split())
