"""One test per rule of docs/rules.md §1–5 and rulings R1–R4 (visit and tour engine)."""

from __future__ import annotations

import pytest

from search.game.cards import CARDS, KINGS, RULERS, Card, CardSet, Ruler, Suit
from search.game.deal import Deal
from search.game.rules import (
    Answer,
    Debate,
    Discard,
    IllegalActionError,
    Phase,
    UseAbility,
    apply_action,
    apply_chance,
    chance_outcomes,
    legal_actions,
    legal_answers,
    wins_debate,
)
from search.game.tour import Supporter, TourConfig, finish_visit, new_tour, start_visit
from tests.conftest import STANDARD_LAYOUT, cards, visit

C, D, H, S = Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES


def card(text: str) -> Card:
    return Card.parse(text)


def debate(state, ruler_card: str, answer: str):
    state = apply_action(state, Debate())
    state = apply_chance(state, card(ruler_card))
    return apply_action(state, Answer(card(answer)))


# --- §1 components ---------------------------------------------------------------


def test_rule_1_deck_is_ace_to_8_in_four_suits():
    """§1: the deck has 32 cards, Ace (1) to 8 in each of ♣ ♦ ♥ ♠."""
    assert len(CARDS) == 32
    assert {c.rank for c in CARDS} == set(range(1, 9))
    assert {c.suit for c in CARDS} == set(Suit)


def test_rule_1_nines_tens_and_court_cards_never_enter_play():
    """§1: 9s, 10s, Jacks, Queens and Kings are not deck cards."""
    for rank in (0, 9, 10, 11, 12, 13):
        with pytest.raises(ValueError):
            Card(Suit.HEARTS, rank)


def test_rule_1_aces_are_low():
    """§1: an Ace loses to every other card of its suit."""
    assert not wins_debate(card("2S"), card("AS"), trump=H)
    assert wins_debate(card("AS"), card("2S"), trump=H)


def test_rule_1_eight_rulers_are_the_kings_and_queens():
    """§1: the rulers are the 4 Kings and 4 Queens, one per kingdom."""
    assert len(set(RULERS)) == 8
    tour = new_tour(STANDARD_LAYOUT)
    assert tour.unvisited == tuple(range(1, 9))
    with pytest.raises(IllegalActionError):
        new_tour(STANDARD_LAYOUT[:7] + (STANDARD_LAYOUT[0],))


def test_rule_1_kingdom_n_needs_exactly_n_wins():
    """§1: the target of kingdom N is N."""
    config = TourConfig()
    assert [config.target(n) for n in range(1, 9)] == list(range(1, 9))


def test_rule_1_ruler_suit_is_trump():
    """§1: visiting a kingdom makes its ruler's suit trump."""
    tour = new_tour(STANDARD_LAYOUT)
    state = start_visit(tour, cards("AC 2C 3C 4C 5C 6C 7C 8C"), 2)
    assert state.trump == H  # Q♥ lies on kingdom 2


def test_rule_1_king_and_queen_of_a_suit_play_alike():
    """§1: a King and a Queen of one suit give the same trump and target."""
    hand = cards("AC 2D 3H 4S 5C 6D 7H 8S")
    layout_k = (Ruler("K", C),) + STANDARD_LAYOUT[1:5] + (Ruler("Q", C),) + STANDARD_LAYOUT[6:]
    layout_q = (Ruler("Q", C),) + STANDARD_LAYOUT[1:5] + (Ruler("K", C),) + STANDARD_LAYOUT[6:]
    a = start_visit(new_tour(layout_k), hand, 1)
    b = start_visit(new_tour(layout_q), hand, 1)
    assert (a.trump, a.target, legal_actions(a)) == (b.trump, b.target, legal_actions(b))


def test_rule_1_jacks_are_face_up_at_every_visit():
    """§1, §2.7: all four Jacks are available when a visit starts."""
    tour = new_tour(STANDARD_LAYOUT)
    assert start_visit(tour, Deal(3).hand(1), 1).jacks == frozenset(Suit)


# --- §2 a visit --------------------------------------------------------------------


def test_rule_2_1_visit_starts_with_eight_cards_and_24_in_the_deck():
    """§2.1: draw 8 of the 32 cards; the other 24 form the deck."""
    hand = Deal(7).hand(1)
    state = start_visit(new_tour(STANDARD_LAYOUT), hand, 5)
    assert len(state.hand) == 8 and len(state.deck) == 24 and state.card_count() == 32
    with pytest.raises(IllegalActionError):
        start_visit(new_tour(STANDARD_LAYOUT), cards("AC 2C"), 5)


def test_rule_2_1_only_unvisited_kingdoms_can_be_chosen():
    """§2.1: choose an unvisited kingdom; each is visited once."""
    tour = new_tour(STANDARD_LAYOUT)
    state = start_visit(tour, cards("AC 2C 3C 4C 5C 6C 7C 8C"), 1)
    state = state.__class__(**{**_fields(state), "phase": Phase.OVER, "scoring": cards("AH")})
    tour = finish_visit(tour, state)
    with pytest.raises(IllegalActionError, match="cannot be chosen"):
        start_visit(tour, cards("AD 2D 3D 4D 5D 6D 7D 8D"), 1)


def _fields(state):
    return {name: getattr(state, name) for name in state.__dataclass_fields__}


def test_rule_2_2_abilities_before_first_debate_and_between_debates():
    """§2.2: abilities may be used before the first debate and between debates."""
    state = visit("AH 2H 3C 4D 5S 6S 7S 8S", position=2)  # trump ♥
    assert any(isinstance(a, UseAbility) for a in legal_actions(state))
    state = debate(state, "AS", "5S")
    assert state.phase is Phase.DECIDE
    assert any(isinstance(a, UseAbility) for a in legal_actions(state))


def test_rule_2_3_must_follow_suit_when_possible():
    """§2.3: answer with the ruler card's suit if you hold it."""
    hand = cards("AC 5H 8H 3S")
    assert legal_answers(hand, card("6H")) == cards("5H 8H")
    state = apply_chance(apply_action(visit("AC 5H 8H 3S"), Debate()), card("6H"))
    with pytest.raises(IllegalActionError, match="does not follow suit"):
        apply_action(state, Answer(card("AC")))


def test_rule_2_3_void_may_answer_with_any_card():
    """§2.3: with no card of the ruler's suit, any card may answer."""
    assert legal_answers(cards("AC 5H 3S"), card("6D")) == cards("AC 5H 3S")


def test_rule_2_3_higher_card_of_same_suit_wins():
    """§2.3: the same suit and higher wins; the same suit and lower loses."""
    assert wins_debate(card("6H"), card("8H"), trump=C)
    assert not wins_debate(card("6H"), card("5H"), trump=C)


def test_rule_2_3_trump_beats_a_non_trump_card():
    """§2.3: a trump answer wins when the ruler's card is not trump."""
    assert wins_debate(card("8D"), card("AC"), trump=C)


def test_rule_2_3_off_suit_non_trump_loses():
    """§2.3: a card of another, non-trump suit always loses."""
    assert not wins_debate(card("AD"), card("8S"), trump=C)


def test_rule_2_3_ruler_trump_and_you_hold_none_loses():
    """§2.3: when the ruler shows trump and you hold none, you lose whatever you play."""
    assert not any(wins_debate(card("AC"), c, trump=C) for c in cards("8D 8H 8S"))


def test_rule_2_4_winning_card_to_scoring_pile_ruler_card_to_discard():
    """§2.4: a winning card goes to the scoring pile, the ruler's card to the discard pile."""
    state = debate(visit("8H 2C 3C", position=2), "6H", "8H")
    assert state.scoring == cards("8H") and state.discard == cards("6H")
    assert state.wins == 1


def test_rule_2_4_losing_card_and_ruler_card_to_discard():
    """§2.4: a losing card and the ruler's card both go to the discard pile."""
    state = debate(visit("5H 2C 3C", position=2), "6H", "5H")
    assert state.scoring == CardSet() and state.discard == cards("5H 6H")


def test_rule_2_5_visit_ends_when_hand_is_empty_after_a_debate():
    """§2.5: the visit ends when the last card has been played."""
    state = debate(visit("8H", position=1, target=1), "6H", "8H")
    assert state.over and state.succeeded


def test_rule_2_5_diplomacy_can_empty_the_hand_and_end_the_visit():
    """§2.5: an ability that empties the hand ends the visit."""
    state = visit("2H 5H", position=2, target=2)
    state = apply_action(state, UseAbility(H))
    assert state.over and state.wins == 0 and not state.succeeded


def test_rule_2_5_success_only_with_exactly_the_target():
    """§2.5: one win too many fails as surely as one too few."""
    state = debate(visit("8H 7H", position=1, target=1), "6H", "8H")
    state = debate(state, "AH", "7H")
    assert state.over and state.wins == 2 and not state.succeeded


def test_rule_2_6_success_makes_the_ruler_an_unused_supporter():
    """§2.6: a won kingdom's ruler joins as an unused supporter; its kingdom is visited."""
    tour = new_tour(STANDARD_LAYOUT)
    state = debate(visit("AC", position=1, target=1, trump=C), "6H", "AC")
    tour = finish_visit(tour, state)
    assert tour.supporters == (Supporter(Ruler("K", C)),)
    assert tour.visited == {1} and not tour.over and tour.score == 2


def test_rule_2_6_failure_ends_the_tour():
    """§2.6: a missed target ends the tour at once."""
    tour = new_tour(STANDARD_LAYOUT)
    state = debate(visit("2H", position=1, target=1, trump=C), "6H", "2H")
    tour = finish_visit(tour, state)
    assert tour.over and tour.failed and tour.score == 0


def test_rule_2_6_the_ruler_there_after_politics_becomes_the_supporter():
    """§2.6: after a Politics swap, the ruler on the kingdom at the end joins you."""
    tour = new_tour(STANDARD_LAYOUT)
    state = start_visit(tour, cards("AC 2C 3C 4C 5C 6C 7C 8D"), 1)  # K♣ on kingdom 1
    state = apply_action(state, UseAbility(S, target=2))  # swap with Q♥
    assert state.trump == H and state.ruler == Ruler("Q", H)
    for reveal, answer in zip(
        ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H"],
        ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8D"],
    ):
        state = debate(state, reveal, answer)
    assert state.wins == 0  # no trumps played, no suit followed: all lost
    state2 = start_visit(tour, cards("AC 2C 3C 4C 5C 6C 7C 8H"), 1)
    state2 = apply_action(state2, UseAbility(S, target=2))
    for reveal, answer in zip(
        ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D"],
        ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8H"],
    ):
        state2 = debate(state2, reveal, answer)
    assert state2.succeeded  # 8♥ was trump after the swap: one win
    tour = finish_visit(tour, state2)
    assert tour.supporters[0].ruler == Ruler("Q", H)
    assert tour.rulers[1] == Ruler("K", C)  # K♣ now lies on kingdom 2


def test_rule_2_7_next_visit_reshuffles_and_jacks_turn_face_up():
    """§2.7: a new visit starts from all 32 cards with every Jack face up."""
    tour = new_tour(STANDARD_LAYOUT)
    state = apply_action(visit("8H AD", position=1, target=1, trump=C), UseAbility(D))
    state = apply_chance(apply_chance(state, card("2D")), card("3D"))
    state = apply_action(state, Discard(cards("AD 2D")))
    assert D not in state.jacks
    state = debate(debate(state, "4D", "3D"), "AH", "8H")
    assert state.succeeded
    tour = finish_visit(tour, state)
    nxt = start_visit(tour, Deal(5).hand(2), 2)
    assert nxt.jacks == frozenset(Suit) and nxt.card_count() == 32 and len(nxt.deck) == 24


# --- §3 running out: R1, R2 -----------------------------------------------------------


def test_R1_empty_deck_refills_from_discard_pile_when_a_card_is_needed():
    """R1: revealing with an empty deck first shuffles the discard pile into a new deck."""
    state = visit("8H 7H", position=2, deck="", discard="AS 2S", scoring="")
    state = state.__class__(**{**_fields(state), "scoring": CardSet.full() - cards("8H 7H AS 2S")})
    state = apply_action(state, Debate())
    assert state.reshuffles == 1 and state.deck == cards("AS 2S") and state.discard == CardSet()
    assert {c for c, _ in chance_outcomes(state)} == set(cards("AS 2S"))


def test_R1_scoring_pile_never_returns_during_a_visit():
    """R1: cards in the scoring pile are not reshuffled into the deck."""
    scoring = CardSet.full() - cards("8H 7H AS")
    state = visit("8H 7H", position=2, deck="", discard="AS", scoring=scoring.ascii())
    state = apply_action(state, Debate())
    assert state.deck == cards("AS") and state.scoring == scoring


def test_R2_no_card_to_reveal_ends_the_visit_as_it_stands():
    """R2: with deck and discard pile empty, a debate cannot be held and the visit ends."""
    scoring = CardSet.full() - cards("8H 7H")
    state = visit("8H 7H", position=8, target=8, deck="", scoring=scoring.ascii())
    state = apply_action(state, Debate())
    assert state.over and state.wins == 30 and state.hand == cards("8H 7H")


def test_R2_draw_with_nothing_left_draws_nothing_rest_of_ability_happens():
    """R2, R3: Commerce with no card left draws nothing, then still discards 2."""
    scoring = CardSet.full() - cards("8H 7H 6H")
    state = visit("8H 7H 6H", position=2, deck="", scoring=scoring.ascii())
    state = apply_action(state, UseAbility(D))
    assert state.phase is Phase.DISCARD and len(state.hand) == 3
    state = apply_action(state, Discard(cards("8H 7H")))
    assert state.hand == cards("6H") and state.discard == cards("8H 7H")


# --- §4 abilities -------------------------------------------------------------------


def test_rule_4_each_jack_once_per_visit():
    """§4: a Jack used in a visit cannot be used again in that visit."""
    state = apply_action(visit("AH 2C 3C", position=2), UseAbility(D))
    state = apply_chance(apply_chance(state, card("4D")), card("5D"))
    state = apply_action(state, Discard(cards("4D 5D")))
    assert not any(isinstance(a, UseAbility) and a.suit is D for a in legal_actions(state))
    with pytest.raises(IllegalActionError, match="no unused Jack"):
        apply_action(state, UseAbility(D))


def test_rule_4_supporter_once_per_tour():
    """§4: a supporter's ability is used once, then it is spent for the rest of the tour."""
    tour = new_tour(STANDARD_LAYOUT)
    win = debate(visit("AC", position=7, target=1, trump=C), "6H", "AC")  # K♦ on kingdom 7
    win = win.__class__(**{**_fields(win), "position": 7, "target": 1})
    tour = finish_visit(tour, win)
    state = start_visit(tour, cards("AC 2C 3C 4C 5C 6C 7C 8C"), 1)
    uses = [a for a in legal_actions(state) if isinstance(a, UseAbility) and a.suit is D]
    assert {a.source for a in uses} == {None, Ruler("K", D)}
    state = apply_action(state, UseAbility(D, source=Ruler("K", D)))
    assert state.supporters == () and state.used_supporters == (Ruler("K", D),)


def test_rule_4_no_ability_while_a_ruler_card_waits():
    """§4: abilities are never used while the ruler's card waits for an answer."""
    state = apply_chance(apply_action(visit("AH 2C 3C", position=2), Debate()), card("4C"))
    assert all(isinstance(a, Answer) for a in legal_actions(state))
    with pytest.raises(IllegalActionError, match="cannot be used while"):
        apply_action(state, UseAbility(H))


def test_rule_4_diplomacy_discards_every_trump_in_hand():
    """§4 ♥: Diplomacy discards all trumps from the hand."""
    state = apply_action(visit("AH 5H 2C 3S", position=2), UseAbility(H))
    assert state.hand == cards("2C 3S") and state.discard == cards("AH 5H")


def test_rule_4_diplomacy_needs_a_trump_in_hand():
    """§4 ♥: without a trump in hand, Diplomacy cannot be used (this version)."""
    state = visit("2C 3S", position=2)
    assert not any(isinstance(a, UseAbility) and a.suit is H for a in legal_actions(state))


def test_rule_4_military_draws_one_card_per_club_in_hand():
    """§4 ♣: Military draws as many cards as clubs held when it is used."""
    state = apply_action(visit("AC 2C 3H", position=2), UseAbility(C))
    assert state.phase is Phase.DRAW and state.pending_draws == 2
    state = apply_chance(state, card("4C"))
    assert state.phase is Phase.DRAW  # the third club drawn does not add a draw
    state = apply_chance(state, card("5D"))
    assert state.phase is Phase.DECIDE and state.hand == cards("AC 2C 4C 3H 5D")


def test_rule_4_military_needs_a_club_and_a_card_left():
    """§4 ♣: Military needs a club in hand and a card in the deck or discard pile."""
    assert not any(a.suit is C for a in legal_actions(visit("3H 4S")) if isinstance(a, UseAbility))
    rest = (CardSet.full() - cards("AC 3H")).ascii()
    empty = visit("AC 3H", deck="", scoring=rest)
    assert not any(a.suit is C for a in legal_actions(empty) if isinstance(a, UseAbility))


def test_rule_4_politics_swaps_rulers_and_changes_trump_here():
    """§4 ♠: Politics swaps this ruler with another unvisited one; trump changes here."""
    state = apply_action(visit("AC 2C", position=1), UseAbility(S, target=4))
    assert (
        state.trump == D and state.rulers[0] == Ruler("Q", D) and state.rulers[3] == Ruler("K", C)
    )
    assert state.target == 1  # the target stays with the position


def test_rule_4_politics_needs_a_ruler_of_another_suit():
    """§4 ♠: Politics may only swap with an unvisited kingdom whose ruler's suit differs."""
    state = visit("AC 2C", position=1)
    targets = {a.target for a in legal_actions(state) if isinstance(a, UseAbility) and a.suit is S}
    assert targets == {2, 3, 4, 5, 7, 8}  # Q♣ on kingdom 6 shares the suit
    with pytest.raises(IllegalActionError, match="cannot swap"):
        apply_action(state, UseAbility(S, target=6))
    lone = (Ruler("K", C),) + (None,) * 5 + (Ruler("Q", C), None)
    state = visit("AC 2C", position=1, rulers=lone)
    assert not any(isinstance(a, UseAbility) and a.suit is S for a in legal_actions(state))


def test_rule_4_two_politics_uses_in_one_visit():
    """§4 ♠: the Jack and a ♠ supporter may both swap in one visit."""
    state = visit(
        "AC 2C", position=1, supporters=(Ruler("Q", S),), rulers=STANDARD_LAYOUT[:7] + (None,)
    )
    state = apply_action(state, UseAbility(S, target=2))
    state = apply_action(state, UseAbility(S, source=Ruler("Q", S), target=4))
    assert state.trump == D and state.rulers[0] == Ruler("Q", D)


def test_rule_4_commerce_draws_two_then_discards_two():
    """§4 ♦: Commerce draws 2 cards, then any 2 hand cards are discarded."""
    state = apply_action(visit("AH 2C 3S", position=2), UseAbility(D))
    state = apply_chance(apply_chance(state, card("8H")), card("7H"))
    assert state.phase is Phase.DISCARD
    assert all(len(a.cards) == 2 for a in legal_actions(state))
    with pytest.raises(IllegalActionError, match="exactly 2"):
        apply_action(state, Discard(cards("AH")))
    state = apply_action(state, Discard(cards("AH 2C")))
    assert state.hand == cards("3S 7H 8H") and state.discard == cards("AH 2C")


def test_R3_commerce_draws_what_is_left_then_discards_two_or_the_whole_hand():
    """R3: draws stop when no card is left; then 2 are discarded, or the whole smaller hand."""
    rest = (CardSet.full() - cards("AH 5S")).ascii()
    state = apply_action(
        visit("AH", position=2, deck="5S", scoring=rest.replace("5S", "").strip()), UseAbility(D)
    )
    state = apply_chance(state, card("5S"))
    assert state.phase is Phase.DISCARD and len(legal_actions(state)) == 1
    rest = (CardSet.full() - cards("AH")).ascii()
    state = apply_action(visit("AH", position=2, deck="", scoring=rest), UseAbility(D))
    assert [a.cards for a in legal_actions(state)] == [cards("AH")]
    state = apply_action(state, Discard(cards("AH")))
    assert state.over  # the hand is empty: the visit ends


def test_rule_4_draws_change_debates_left_not_the_target():
    """§4: drawing changes the number of debates; the target stays."""
    state = apply_action(visit("AC 2C 3C", position=3), UseAbility(C))
    for c in ("4D", "5D", "6D"):
        state = apply_chance(state, card(c))
    assert len(state.hand) == 6 and state.target == 3


def test_R4_published_rules_allow_abilities_that_do_nothing():
    """R4: with the published rules, a do-nothing ability is a legal move."""
    plain = visit("2C 3S", position=2)
    published = visit("2C 3S", position=2, published_rules=True)
    assert UseAbility(H) not in legal_actions(plain)
    assert UseAbility(H) in legal_actions(published)
    state = apply_action(published, UseAbility(H))
    assert state.hand == cards("2C 3S") and H not in state.jacks


def test_R4_published_rules_supporter_used_for_nothing_loses_its_point():
    """R4: a supporter turned for nothing is spent and no longer scores."""
    tour = new_tour(STANDARD_LAYOUT, TourConfig(published_rules=True))
    won = debate(visit("AC", position=2, target=1, trump=C), "6H", "AC")
    tour = finish_visit(tour, won)  # Q♥ from kingdom 2 joins
    assert tour.score == 2
    hand = cards("AD 2D 3D 4D 5D 6D 7D 8D")
    state = start_visit(tour, hand, 1)  # trump ♣: Diplomacy has nothing to discard
    state = apply_action(state, UseAbility(H, source=Ruler("Q", H)))
    assert state.hand == hand and state.used_supporters == (Ruler("Q", H),)
    lost = debate(state, "AS", "AD")
    lost = state.__class__(**{**_fields(lost), "phase": Phase.OVER})
    assert finish_visit(tour, lost).score == 1  # the kingdom stays, the supporter's point is gone


def test_R4_published_rules_politics_may_swap_a_same_suit_ruler():
    """R4: under the published rules Politics may swap with any other unvisited kingdom."""
    state = visit("AC 2C", position=1, published_rules=True)
    targets = {a.target for a in legal_actions(state) if isinstance(a, UseAbility) and a.suit is S}
    assert 6 in targets


# --- §5 score, §6 short tour ----------------------------------------------------------


def test_rule_5_score_is_kingdoms_plus_unused_supporters():
    """§5: score = kingdoms pledged + supporters never used."""
    tour = new_tour(STANDARD_LAYOUT)
    tour = tour.__class__(
        config=tour.config,
        rulers=(None, None) + STANDARD_LAYOUT[2:],
        supporters=(Supporter(STANDARD_LAYOUT[0], used=True), Supporter(STANDARD_LAYOUT[1])),
        visits=2,
    )
    assert tour.score == 3


def test_rule_5_perfect_tour_scores_16():
    """§5: all 8 kingdoms and 8 unused supporters make 16."""
    tour = new_tour(STANDARD_LAYOUT)
    done = tour.__class__(
        config=tour.config,
        rulers=(None,) * 8,
        supporters=tuple(Supporter(r) for r in STANDARD_LAYOUT),
    )
    assert done.over and done.score == 16 and done.perfect


def test_rule_5_supporter_won_in_last_visit_counts_as_unused():
    """§5: the ruler won in the final visit scores as an unused supporter."""
    tour = new_tour(STANDARD_LAYOUT)
    tour = tour.__class__(
        config=tour.config,
        rulers=(STANDARD_LAYOUT[0],) + (None,) * 7,
        supporters=tuple(Supporter(r) for r in STANDARD_LAYOUT[1:]),
    )
    won = debate(visit("AC", position=1, target=1, rulers=tour.rulers), "6H", "AC")
    tour = finish_visit(tour, won)
    assert tour.over and tour.score == 16


def test_rule_6_short_tour_has_four_kings_with_targets_2_4_6_8():
    """§6: the short tour lays the 4 Kings on kingdoms needing 2, 4, 6, 8; perfect is 8."""
    config = TourConfig(short=True)
    layout = Deal(11, config).layout()
    assert sorted(layout, key=lambda r: r.suit) == list(KINGS)
    assert config.targets == (2, 4, 6, 8) and config.perfect_score == 8
    tour = new_tour(layout, config)
    assert start_visit(tour, Deal(11).hand(1), 3).target == 6
    with pytest.raises(IllegalActionError, match="only Kings"):
        new_tour(STANDARD_LAYOUT[:4], config)
