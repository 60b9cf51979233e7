"""One visit played out on card masks, the cards turning up from a seeded stream (R1, R2):
the board the Monte Carlo policies of :mod:`.estimate` and :mod:`.lookahead` play on."""

from __future__ import annotations

from ..game import Stream, card_available, debate_won, iter_bits, refill

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
