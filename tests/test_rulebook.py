"""The rules stated once (search/game/rulebook.py), and the compiled kernels' copies of them
checked against that one statement on every case."""

from __future__ import annotations

import random

import numpy as np
import pytest

from search.game import Card, Suit, wins_debate
from search.game.rulebook import (
    beaten_count,
    card_available,
    commerce_discard_count,
    debate_won,
    diplomacy_usable,
    legal_answer_mask,
    military_draws,
    military_usable,
    politics_usable,
    refill,
    suit_mask,
)
from search.visit.reference import KingdomSolver

CASES = [(r, a, t) for r in range(32) for a in range(32) if r != a for t in range(4)]


def _card(text: str) -> int:
    return Card.parse(text).index


def test_higher_card_of_the_revealed_suit_wins():
    """§2.3: same suit, higher wins, lower loses (Aces are low)."""
    assert debate_won(_card("4C"), _card("6C"), trump=2)
    assert not debate_won(_card("6C"), _card("4C"), trump=2)
    assert debate_won(_card("AD"), _card("2D"), trump=1)


def test_trump_wins_on_a_card_that_is_not_trump():
    """§2.3: a trump answer to a non-trump card wins, a non-trump off-suit answer loses."""
    assert debate_won(_card("8C"), _card("AH"), trump=2)
    assert not debate_won(_card("2C"), _card("8D"), trump=2)


def test_revealed_trump_without_a_trump_in_answer_loses():
    """§2.3: the ruler shows trump and you answer another suit: you lose."""
    assert not debate_won(_card("AH"), _card("8S"), trump=2)


def test_engine_and_rulebook_agree_on_every_debate():
    """rules.wins_debate (on cards) says what debate_won (on indices) says, every case."""
    for revealed, answer, trump in CASES:
        expected = debate_won(revealed, answer, trump)
        got = wins_debate(Card.from_index(revealed), Card.from_index(answer), Suit(trump))
        assert got == expected


def test_follow_suit_if_possible():
    """§2.3: the answers are the cards of the revealed suit, or the whole hand if none."""
    mask = sum(1 << _card(c) for c in ("2C", "5C", "3H"))
    assert legal_answer_mask(mask, _card("7C")) == mask & suit_mask(0)
    assert legal_answer_mask(mask, _card("7S")) == mask


def test_r1_refills_the_deck_from_the_discard_pile():
    """R1: an empty deck takes the discard pile when a card is needed; otherwise unchanged."""
    assert refill(0, 0b1010) == (0b1010, 0)
    assert refill(0b1, 0b1010) == (0b1, 0b1010)


def test_r2_no_card_left_anywhere():
    """R2: with deck and discard pile empty no card can be revealed or drawn."""
    assert not card_available(0, 0)
    assert card_available(0, 1) and card_available(1, 0)


def test_r3_commerce_discards_two_or_the_whole_hand():
    """R3: Commerce discards 2 cards, or the whole hand when it holds fewer."""
    assert [commerce_discard_count(n) for n in range(5)] == [0, 1, 2, 2, 2]


def test_ability_conditions():
    """§4: Diplomacy needs a trump in hand; Military a club and a card left; Politics a
    ruler of another suit."""
    clubs = 1 << _card("3C")
    assert diplomacy_usable(clubs, 0) and not diplomacy_usable(clubs, 2)
    assert military_usable(clubs, 0, 1) and not military_usable(clubs, 0, 0)
    assert not military_usable(1 << _card("3H"), 1, 0)
    assert military_draws(clubs | 1 << _card("5C") | 1 << _card("5H")) == 2
    assert politics_usable(1, 2) and not politics_usable(2, 2)


def test_beaten_count_by_brute_force():
    """A lone card beats exactly the unseen cards debate_won says it beats."""
    rng = random.Random(7)
    for _ in range(300):
        card = rng.randrange(32)
        unseen = rng.getrandbits(32) & ~(1 << card)
        trump = rng.randrange(4)
        brute = sum(debate_won(r, card, trump) for r in range(32) if unseen >> r & 1)
        assert beaten_count(1 << card, unseen, trump) == brute


# --- the compiled copies --------------------------------------------------------------


def test_first_edition_kernel_debate_rule_matches_on_every_case():
    """The first-edition kernel's compiled ``_wins`` agrees with debate_won on every case."""
    from search.firstedition import kernel

    for revealed, answer, trump in CASES:
        assert kernel._wins(revealed, answer, trump) == debate_won(revealed, answer, trump)


def _pushed_debate(hand: int, deck: int, disc: int, trump: int, merge: bool):
    """Decode the visit kernel's pushed debate: [(revealed-class size, [(answer, won)])]."""
    from search.visit import kernel

    stack = np.zeros(1 << 14, dtype=np.int64)
    top, _ = kernel._push_debate(hand, deck, disc, trump, merge, stack, 0)
    assert top >= 0
    outcomes, i = [], 0
    while i < top:
        count, choices = int(stack[i]), int(stack[i + 1])
        i += 2
        answers = []
        for _ in range(choices):
            after, won = int(stack[i]), bool(stack[i + 3])
            answers.append((hand & ~after, won))
            i += kernel.CHOICE
        outcomes.append((count, answers))
    return outcomes


@pytest.mark.parametrize("merge", [False, True])
def test_visit_kernel_debate_rule_matches_on_every_case(merge):
    """A lone answer against a lone unseen card: the compiled debate says who wins exactly
    as debate_won does, for every (revealed, answer, trump), merged or not."""
    for revealed, answer, trump in CASES:
        outcomes = _pushed_debate(1 << answer, 1 << revealed, 0, trump, merge)
        assert outcomes == [(1, [(1 << answer, debate_won(revealed, answer, trump))])]


def test_visit_kernel_answers_are_legal_and_scored_by_the_rule():
    """On random positions every pushed answer is legal and its win is debate_won's."""
    rng = random.Random(3)
    for _ in range(400):
        cards = rng.sample(range(32), rng.randrange(2, 14))
        split = rng.randrange(1, len(cards))
        hand = sum(1 << c for c in cards[:split])
        deck = sum(1 << c for c in cards[split:])
        trump = rng.randrange(4)
        for count, answers in _pushed_debate(hand, deck, 0, trump, merge=False):
            assert count == 1
            for answer, won in answers:
                index = answer.bit_length() - 1
                candidates = [
                    r
                    for r in range(32)
                    if deck >> r & 1 and legal_answer_mask(hand, r) >> index & 1
                ]
                assert candidates
                assert any(debate_won(r, index, trump) == won for r in candidates)


def test_visit_kernel_r1_test_matches_the_reference():
    """The compiled reshuffle test (R1: can the deck run out?) equals the reference's."""
    from search.visit import kernel

    reference = KingdomSolver()
    rng = random.Random(11)
    for _ in range(2000):
        cards = rng.sample(range(32), rng.randrange(1, 32))
        cut1, cut2 = sorted(rng.sample(range(len(cards) + 1), 2))
        hand = sum(1 << c for c in cards[:cut1])
        deck = sum(1 << c for c in cards[cut1:cut2])
        disc = sum(1 << c for c in cards[cut2:])
        abil = tuple(rng.randrange(3) for _ in range(4))
        packed = abil[0] | abil[1] << 4 | abil[2] << 8 | abil[3] << 12
        assert kernel._reshuffle_possible(hand, deck, disc, packed) == reference.reshuffle_possible(
            hand, deck, disc, abil
        )


def test_visit_kernel_last_card_matches_beaten_count():
    """The compiled lone-last-card value is the share of unseen cards it beats (and R1)."""
    from search.visit import kernel

    rng = random.Random(5)
    for _ in range(500):
        card = rng.randrange(32)
        unseen = rng.getrandbits(32) & ~(1 << card)
        if not unseen:
            continue
        trump = rng.randrange(4)
        in_deck = rng.random() < 0.5
        deck, disc = (unseen, 0) if in_deck else (0, unseen)
        target = np.zeros(kernel.WIDTH)
        kernel._fold_last_card(target, 1 << card, deck, disc, trump, 0, False)
        win = beaten_count(1 << card, unseen, trump) / unseen.bit_count()
        assert target[1] == pytest.approx(win)
        assert target[0] == pytest.approx(1 - win)
