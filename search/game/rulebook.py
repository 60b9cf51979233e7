"""Each rule of a visit stated once, on card indices and 32-bit masks (docs/rules.md §2-4).

A card's index is ``suit * 8 + rank - 1`` (Ace = 0; suits ♣ ♦ ♥ ♠ are 0..3), its bit is
``1 << index``, and a set of cards is the OR of their bits (:mod:`.cards`). The rules
engine (:mod:`.rules`) and the reference solvers call these functions. The compiled
kernels keep their own copies for speed; ``tests/test_rulebook.py`` checks those copies
against these on every case.

>>> debate_won(revealed=3, answer=5, trump=2)   # 4♣ answered by 6♣: higher, same suit
True
>>> debate_won(revealed=3, answer=16, trump=2)  # 4♣ answered by A♥, hearts trump
True
>>> debate_won(revealed=16, answer=3, trump=0)  # A♥ answered by 4♣ while clubs are trump
True
"""

from __future__ import annotations

SUIT_BITS = 0xFF  # the 8 ranks of one suit, at the suit's byte
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
COMMERCE_DRAWS = 2
COMMERCE_DISCARDS = 2


def suit_mask(suit: int) -> int:
    """The bits of every card of ``suit``."""
    return SUIT_BITS << (8 * suit)


def debate_won(revealed: int, answer: int, trump: int) -> bool:
    """Who wins a debate (§2.3): a higher card of the revealed suit wins; so does a trump on
    a card that is not trump. Everything else loses, a trump revealed and none answered too."""
    if revealed >> 3 == answer >> 3:
        return answer > revealed
    return answer >> 3 == trump


def legal_answer_mask(hand: int, revealed: int) -> int:
    """The cards that may answer (§2.3): those of the revealed suit if the hand holds any,
    otherwise the whole hand."""
    same = hand & suit_mask(revealed >> 3)
    return same if same else hand


def beaten_count(card: int, unseen: int, trump: int) -> int:
    """How many of the ``unseen`` cards the lone card ``card`` (a bit) beats when one of them
    is revealed: the lower ones of its suit, and every other card if it is trump."""
    suit = (card.bit_length() - 1) >> 3
    beaten = (unseen & suit_mask(suit) & (card - 1)).bit_count()
    if suit == trump:
        beaten += (unseen & ~suit_mask(suit)).bit_count()
    return beaten


def refill(deck: int, discard: int) -> tuple[int, int]:
    """R1: a card must be revealed or drawn and the deck is empty, so the discard pile is
    shuffled into a new deck. Returns (deck, discard pile); unchanged if the deck has cards."""
    if deck:
        return deck, discard
    return discard, 0


def card_available(deck: int, discard: int) -> bool:
    """R2: whether a card can be revealed or drawn at all (deck or discard pile holds one).
    If not, a draw draws nothing and a debate cannot be held: the visit ends as it stands."""
    return bool(deck or discard)


def commerce_discard_count(hand_size: int) -> int:
    """R3: Commerce discards 2 cards after its draws, or the whole hand if it holds fewer."""
    return min(COMMERCE_DISCARDS, hand_size)


def diplomacy_usable(hand: int, trump: int) -> bool:
    """Diplomacy (♥) needs a trump in hand; it discards every one (§4)."""
    return bool(hand & suit_mask(trump))


def military_draws(hand: int) -> int:
    """Military (♣) draws one card per club in hand, counted when it is used (§4)."""
    return (hand & suit_mask(CLUBS)).bit_count()


def military_usable(hand: int, deck: int, discard: int) -> bool:
    """Military (♣) needs a club in hand and a card left in the deck or discard pile (§4)."""
    return military_draws(hand) > 0 and card_available(deck, discard)


def politics_usable(new_trump: int, trump: int) -> bool:
    """Politics (♠) swaps with a ruler whose suit differs from the current trump (§4)."""
    return new_trump != trump


def commerce_usable() -> bool:
    """Commerce (♦) is always usable (§4, R3)."""
    return True
