"""One visit played out on card masks, the cards turning up from a seeded stream (R1, R2):
the board the Monte Carlo policies of :mod:`.estimate` and :mod:`.lookahead` play on."""

from __future__ import annotations

from collections.abc import Callable

from ..game import SUIT_MASK, Stream, card_available, debate_won, iter_bits, military_draws, refill

SPADES = 3  # the Politics count's place in the ability counts (♣ ♦ ♥ ♠)


class Playout:
    """One visit played to its end on card masks, cards turning up from a seeded stream."""

    def __init__(self, state: tuple, stream: Stream) -> None:
        self.hand, self.deck, self.disc, self.trump, abil, pool = state
        self.abil = list(abil)
        self.pool = list(pool)
        self.stream = stream
        self.order = stream.shuffle(list(iter_bits(self.deck)))
        self.wins = 0

    @classmethod
    def at(cls, state: tuple, wins: int = 0) -> Playout:
        """A board at ``state`` to decide on, from which no card turns up (no stream)."""
        board = cls.__new__(cls)
        board.hand, board.deck, board.disc, board.trump, abil, pool = state
        board.abil, board.pool, board.wins = list(abil), list(pool), wins
        board.stream, board.order = None, []
        return board

    def use(self, label: tuple, discard: Callable[[], int]) -> None:
        """Use the ability of the option ``label`` (docs/rules.md §4): Diplomacy discards the trumps
        held, Politics brings the pooled suit ``label[1]``, Military draws a card per club held,
        Commerce draws two and then discards the cards ``discard()`` picks (R3)."""
        kind = label[0]
        self.abil["CDHS".index(kind)] -= 1
        if kind == "H":
            trumps = self.hand & (SUIT_MASK << (8 * self.trump))
            self.hand &= ~trumps
            self.disc |= trumps
        elif kind == "S":
            self.pool.remove(label[1])
            self.pool.append(self.trump)
            self.trump = label[1]
        elif kind == "C":
            self.draw(military_draws(self.hand))
        else:
            self.draw(2)
            pair = discard()
            self.hand &= ~pair
            self.disc |= pair

    def next_card(self) -> int | None:
        """The deck's top card (index), refilling from the discard pile per R1; None per R2."""
        if not card_available(self.deck, self.disc):
            return None  # R2
        if not self.deck:
            self.deck, self.disc = refill(self.deck, self.disc)  # R1
            self.order = self.stream.shuffle(list(iter_bits(self.deck)))
        card = self.order.pop()
        self.deck &= ~(1 << card)
        return card

    def draw(self, count: int) -> None:
        """Draw up to ``count`` cards into the hand (R2: fewer if none are left)."""
        for _ in range(count):
            card = self.next_card()
            if card is None:
                return
            self.hand |= 1 << card

    def state(self) -> tuple:
        """The solver's view of the current state."""
        pool = tuple(sorted(self.pool)) if self.abil[SPADES] else ()
        return (self.hand, self.deck, self.disc, self.trump, tuple(self.abil), pool)

    def answer(self, card: int, answer: int) -> None:
        """Answer the revealed ``card`` with the hand's card ``answer`` (indices)."""
        won = debate_won(card, answer, self.trump)
        self.hand &= ~(1 << answer)
        self.disc |= 1 << card
        if not won:
            self.disc |= 1 << answer
        self.wins += won
