"""Properties of the visit engine, whole tours and seeded deals, checked on many random cases.

Hypothesis runs derandomized with no example database, so every run checks the same cases.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from search.game.cards import CARDS, KINGS, RULERS, CardSet, Suit
from search.game.deal import DEAL_SCHEME, Deal, Stream
from search.game.rules import (
    Answer,
    Debate,
    Discard,
    IllegalActionError,
    Phase,
    UseAbility,
    VisitState,
    apply_action,
    apply_action_unchecked,
    apply_chance,
    apply_chance_unchecked,
    chance_outcomes,
    legal_actions,
    new_visit,
)
from search.game.tour import HAND_SIZE, TourConfig, start_visit
from search.tours.registry import POLICIES, make_policy
from search.tours.simulate import play_tour

PROPERTY = settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
CHEAP = settings(PROPERTY, max_examples=100)

SEEDS = st.integers(min_value=0, max_value=2**64)
EIGHT_CARDS = st.sets(st.sampled_from(CARDS), min_size=HAND_SIZE, max_size=HAND_SIZE).map(CardSet)


# --- strategies -------------------------------------------------------------------


def small_or_any(most: int) -> st.SearchStrategy[int]:
    """A pile size up to ``most``, often tiny so that the deck runs out (R1, R2)."""
    return st.one_of(st.integers(0, min(2, most)), st.integers(0, most))


@st.composite
def start_visits(draw: st.DrawFn) -> VisitState:
    """A visit as it starts, on a random layout with some kingdoms won and some supporters.

    Half the time the 24 cards outside the hand are also spread over the discard and scoring
    piles and some Jacks are spent, so that small decks exercise R1 and R2.
    """
    config = TourConfig(short=draw(st.booleans()), published_rules=draw(st.booleans()))
    layout = draw(st.permutations(config.ruler_cards))
    kingdoms = config.kingdoms
    position = draw(st.integers(1, kingdoms))
    won = {p for p in range(1, kingdoms + 1) if p != position and draw(st.booleans())}
    rulers = tuple(None if p in won else ruler for p, ruler in enumerate(layout, 1))
    supporters = tuple(layout[p - 1] for p in sorted(won) if draw(st.booleans()))
    hand = draw(st.one_of(SEEDS.map(lambda seed: Deal(seed).hand(1)), EIGHT_CARDS))
    state = new_visit(
        hand, position, config.target(position), rulers, supporters, config.published_rules
    )
    if draw(st.booleans()):
        rest = draw(st.permutations(list(CardSet.full() - hand)))
        in_deck = draw(small_or_any(len(rest)))
        in_discard = draw(small_or_any(len(rest) - in_deck))
        deck, rest = rest[:in_deck], rest[in_deck:]
        discard, scoring = rest[:in_discard], rest[in_discard:]
        jacks = frozenset(draw(st.sets(st.sampled_from(list(Suit)))))
        state = replace(
            state,
            deck=CardSet(deck),
            discard=CardSet(discard),
            scoring=CardSet(scoring),
            jacks=jacks,
        )
    return state


ANY_ACTION = st.one_of(
    st.just(Debate()),
    st.builds(Answer, st.sampled_from(CARDS)),
    st.builds(
        UseAbility,
        st.sampled_from(list(Suit)),
        st.sampled_from([None, *RULERS]),
        st.one_of(st.none(), st.integers(0, 9)),
    ),
    st.sets(st.sampled_from(CARDS), max_size=3).map(lambda cs: Discard(CardSet(cs))),
)


def any_action(data: st.DataObject, state: VisitState) -> object:
    """Any action of the right shape, legal or not; half the discards are of hand cards."""
    if state.hand and data.draw(st.booleans()):
        picked = data.draw(st.sets(st.sampled_from(list(state.hand)), max_size=3))
        return Discard(CardSet(picked))
    return data.draw(ANY_ACTION)


# --- invariants -------------------------------------------------------------------


def assert_invariants(state: VisitState) -> None:
    waiting = CardSet([state.waiting]) if state.waiting is not None else CardSet()
    piles = [state.hand, state.deck, state.discard, state.scoring, waiting]
    assert sum(len(pile) for pile in piles) == 32, "a card is missing or counted twice"
    assert state.card_count() == 32
    assert state.all_cards() == CardSet.full()
    assert state.wins == len(state.scoring)
    assert (state.waiting is not None) == (state.phase is Phase.ANSWER)
    assert (state.pending_draws > 0) == (state.phase is Phase.DRAW)
    assert not state.commerce_pending or state.phase is Phase.DRAW
    if state.is_chance:
        outcomes = chance_outcomes(state)
        assert outcomes and sum(p for _, p in outcomes) == 1
        assert {card for card, _ in outcomes} == set(state.deck)
    elif not state.over:
        assert state.hand, "a decision with an empty hand: the visit should have ended"
        assert legal_actions(state)
    else:
        assert not state.hand or not (state.deck or state.discard)


def random_step(data: st.DataObject, state: VisitState) -> tuple[str, object]:
    if state.is_chance:
        return "chance", data.draw(st.sampled_from([card for card, _ in chance_outcomes(state)]))
    return "action", data.draw(st.sampled_from(legal_actions(state)))


MAX_STEPS = 400  # far above any visit: 32 cards, four Jacks and at most eight supporters


# --- the visit engine ---------------------------------------------------------------


@CHEAP
@given(start=start_visits(), data=st.data())
def test_cards_are_conserved_through_any_visit(start: VisitState, data: st.DataObject) -> None:
    """§2–4, R1–R3: every step keeps all 32 cards in exactly one pile, wins = scoring pile."""
    state = start
    assert_invariants(state)
    for _ in range(MAX_STEPS):
        if state.over:
            break
        kind, choice = random_step(data, state)
        if kind == "chance":
            state = apply_chance_unchecked(state, choice)
        else:
            state = apply_action_unchecked(state, choice)
        assert_invariants(state)
    assert state.over


@CHEAP
@given(start=start_visits(), data=st.data())
def test_checked_door_agrees_with_fast_door_and_rejects_only_illegal_moves(
    start: VisitState, data: st.DataObject
) -> None:
    """§2–4: the checked door gives the fast door's state for legal moves and refuses all others."""
    state = start
    for _ in range(MAX_STEPS):
        if state.over:
            break
        candidate = any_action(data, state)
        if state.is_chance or candidate not in legal_actions(state):
            with pytest.raises(IllegalActionError):
                apply_action(state, candidate)
        probe = data.draw(st.sampled_from(CARDS))
        if not (state.is_chance and probe in state.deck):
            with pytest.raises(IllegalActionError):
                apply_chance(state, probe)
        kind, choice = random_step(data, state)
        if kind == "chance":
            checked = apply_chance(state, choice)
            assert checked == apply_chance_unchecked(state, choice)
        else:
            checked = apply_action(state, choice)
            assert checked == apply_action_unchecked(state, choice)
        state = checked
    assert state.over


@PROPERTY
@given(start=start_visits(), data=st.data())
def test_an_ended_visit_has_no_moves_and_refuses_every_action(
    start: VisitState, data: st.DataObject
) -> None:
    """§2.5: once the visit is over, no action is legal and the checked door raises."""
    state = start
    while not state.over:
        kind, choice = random_step(data, state)
        if kind == "chance":
            state = apply_chance_unchecked(state, choice)
        else:
            state = apply_action_unchecked(state, choice)
    assert legal_actions(state) == []
    assert chance_outcomes(state) == []
    for action in (Debate(), any_action(data, state), any_action(data, state)):
        with pytest.raises(IllegalActionError):
            apply_action(state, action)
    with pytest.raises(IllegalActionError):
        apply_chance(state, data.draw(st.sampled_from(CARDS)))


# --- whole tours ---------------------------------------------------------------------


QUICK_POLICIES = sorted(set(POLICIES) - {"advisor", "advisor-uncalibrated", "advisor-quick"})
"""Every policy but the two that play each visit by the lookahead policy (10-30 s a tour on
one core): those play two short tours each in
test_a_deals_hands_do_not_depend_on_play_of_the_solver_policies."""


@settings(CHEAP, max_examples=40)  # a whole tour an example (about 0.2 s)
@given(
    seed=SEEDS,
    policy=st.sampled_from(QUICK_POLICIES),
    short=st.booleans(),
    published_rules=st.booleans(),
)
def test_every_simulated_tour_ends_with_a_legal_score(
    seed: int, policy: str, short: bool, published_rules: bool
) -> None:
    """§5: a played tour ends, scoring kingdoms won plus unused supporters, at most perfect."""
    config = TourConfig(short=short, published_rules=published_rules)
    tour = play_tour(Deal(seed, config), make_policy(policy), Stream(seed, "policy"))
    won = len(tour.visited)
    assert tour.over
    assert 0 <= tour.score <= config.perfect_score
    assert tour.score == won + len(tour.unused_supporters)
    assert won <= tour.visits
    assert tour.visits == won + tour.failed  # only the last visit can miss
    assert tour.failed or won == config.kingdoms
    assert len(tour.supporters) == won


# --- seeded deals --------------------------------------------------------------------


class RecordingPolicy:
    """Wraps a policy and records the hand it is shown at each visit."""

    def __init__(self, name: str) -> None:
        self.inner = make_policy(name)
        self.name = name
        self.hands: list[CardSet] = []

    def choose_kingdom(self, tour, hand, rng):
        self.hands.append(hand)
        return self.inner.choose_kingdom(tour, hand, rng)

    def choose_action(self, visit, actions, rng):
        return self.inner.choose_action(visit, actions, rng)

    def start_tour(self, deal):
        if hasattr(self.inner, "start_tour"):
            self.inner.start_tour(deal)


@CHEAP
@given(seed=SEEDS, short=st.booleans())
def test_a_seed_deals_the_same_hands_every_time(seed: int, short: bool) -> None:
    """Deal: one seed fixes every visit's hand; each hand is 8 cards off the top of its shuffle."""
    config = TourConfig(short=short)
    first, second = Deal(seed, config), Deal(seed, config)
    assert first.hands() == second.hands()
    assert first.layout() == second.layout()
    for visit, hand in enumerate(first.hands(), 1):
        order = first.visit_order(visit)
        assert sorted(order) == sorted(CARDS)
        assert len(hand) == HAND_SIZE and hand == CardSet(order[:HAND_SIZE])


@PROPERTY
@given(seed=SEEDS, short=st.booleans())
def test_a_deals_hands_do_not_depend_on_play(seed: int, short: bool) -> None:
    """Deal: visit v's hand is ``deal.hand(v)`` whichever policy plays the tour."""
    _check_hands_do_not_depend_on_play(Deal(seed, TourConfig(short=short)), ("random", "greedy"))


@pytest.mark.slow  # 30-60 s a seed; CI checks random and greedy (the test above)
@pytest.mark.parametrize("seed", [0, 1])
def test_a_deals_hands_do_not_depend_on_play_of_the_solver_policies(seed: int) -> None:
    """The same for the policies that plan with the solver, those that see the deal first
    (hindsight) included: two short tours each (they are slower)."""
    _check_hands_do_not_depend_on_play(Deal(seed, TourConfig(short=True)), sorted(POLICIES))


def _check_hands_do_not_depend_on_play(deal: Deal, names) -> None:
    seed, config = deal.seed, deal.config
    seen = {}
    for name in names:
        recorder = RecordingPolicy(name)
        play_tour(deal, recorder, Stream(seed, "policy", name))
        assert recorder.hands == [deal.hand(v) for v in range(1, len(recorder.hands) + 1)]
        seen[name] = recorder.hands
    shared = min(len(hands) for hands in seen.values())
    assert len({tuple(hands[:shared]) for hands in seen.values()}) == 1
    assert deal.hands() == Deal(seed, config).hands()  # playing consumed nothing


@PROPERTY
@given(seed=SEEDS, visit=st.integers(1, 8), data=st.data())
def test_dealer_turns_up_the_visit_order_after_the_hand_until_a_reshuffle(
    seed: int, visit: int, data: st.DataObject
) -> None:
    """Deal, R1: cards turn up in ``visit_order`` after the hand until the first reshuffle."""
    deal = Deal(seed)
    tour = deal.tour()
    state = start_visit(tour, deal.hand(visit), data.draw(st.sampled_from(tour.unvisited)))
    dealer = deal.dealer(visit)
    turned = []
    while not state.over:
        if state.is_chance:
            card = dealer.next_card(state)
            assert card in state.deck
            if state.reshuffles == 0:
                turned.append(card)
            state = apply_chance(state, card)
        else:
            state = apply_action(state, data.draw(st.sampled_from(legal_actions(state))))
    order = deal.visit_order(visit)
    assert turned == order[HAND_SIZE : HAND_SIZE + len(turned)]


@CHEAP
@given(seed=SEEDS, short=st.booleans())
def test_layout_is_a_permutation_of_the_rulers(seed: int, short: bool) -> None:
    """§1, §6: the layout places each ruler of the tour exactly once."""
    config = TourConfig(short=short)
    layout = Deal(seed, config).layout()
    assert Counter(layout) == Counter(KINGS if short else RULERS)


@CHEAP
@given(
    seed=st.integers(-(2**80), 2**80),
    path=st.lists(st.one_of(st.integers(), st.text(max_size=4)), max_size=3),
    bounds=st.lists(st.integers(min_value=1, max_value=2**100), min_size=1, max_size=30),
)
def test_stream_below_stays_in_range(seed: int, path: list, bounds: list[int]) -> None:
    """Stream: ``below(n)`` is always in [0, n); ``random()`` in [0, 1)."""
    stream = Stream(seed, *path)
    for bound in bounds:
        assert 0 <= stream.below(bound) < bound
        assert 0.0 <= stream.random() < 1.0


def test_stream_bits_fills_every_bit_asked_for() -> None:
    """Stream: ``bits(600)`` can set bits above the 512th, as ``below(2**600)`` must."""
    # Were the 600 bits uniform, 64 draws all below 2**512 would have probability 2**-5632.
    assert max(Stream(seed).bits(600) for seed in range(64)).bit_length() > 512


@CHEAP
@given(seed=SEEDS, path=st.lists(st.integers(), max_size=3), items=st.lists(st.integers()))
def test_stream_shuffle_is_a_reproducible_permutation(seed: int, path: list, items: list) -> None:
    """Stream: ``shuffle`` returns a permutation, the same one for the same seed and path."""
    shuffled = Stream(seed, *path).shuffle(items)
    assert Counter(shuffled) == Counter(items)
    assert Stream(seed, *path).shuffle(items) == shuffled
    assert shuffled is not items


def test_deal_1_golden_first_hand_and_layout() -> None:
    """Deal: seed 1's layout and first hand are pinned; changing them must bump DEAL_SCHEME."""
    # Computed once with DEAL_SCHEME 1. A change here changes every published deal and every
    # simulated batch: bump search.game.deal.DEAL_SCHEME and update these strings together.
    assert DEAL_SCHEME == 1
    deal = Deal(1)
    assert " ".join(str(ruler) for ruler in deal.layout()) == "Q♥ Q♠ K♥ Q♦ Q♣ K♦ K♠ K♣"
    assert str(deal.hand(1)) == "7♣ 3♦ 7♦ 8♦ 4♥ 6♥ A♠ 5♠"


@settings(PROPERTY, max_examples=500)
@given(trials=st.integers(min_value=1, max_value=10**7), hits=st.integers(min_value=0))
def test_a_wilson_interval_holds_its_own_rate_even_at_0_and_1(trials: int, hits: int) -> None:
    """The observed rate lies in its interval, ends included: at 0 hits the interval starts at
    exactly 0, at every hit it ends at exactly 1 (rounding gave 1 - 2e-16 for 1,543 trial
    counts under 5,000, so an estimate of 100% from 1,500 playouts fell outside its own
    interval and an exact chance of 1 failed a test)."""
    from search.infra import wilson_interval

    hits = hits % (trials + 1)
    low, high = wilson_interval(hits, trials)
    assert 0.0 <= low <= hits / trials <= high <= 1.0
    assert (low == 0.0) == (hits == 0) and (high == 1.0) == (hits == trials)
