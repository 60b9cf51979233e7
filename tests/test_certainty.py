"""The certainty search (search.visit.certain): 100% and 0% exactly, for any ability set.

A verdict is checked against exact chances computed otherwise: the reference expectimax in
fractions on small positions, the compiled expectimax on first-visit hands, the independent
and earlier exact values of ``tests/data``. ``sure`` must mean exactly 1 and ``impossible``
exactly 0 (soundness), and with no work limit every 1 must be ``sure`` and every 0
``impossible`` (completeness). With all four Jacks, where no exact chance can be had, a sure
verdict is played out in the rules engine (:mod:`search.game.rules`) by a policy that keeps to
sure moves, and an impossible one is met by a player who knows the deck order.
"""

from __future__ import annotations

import json
import random
import time

import pytest

from search.game import (
    Answer,
    CardSet,
    Deal,
    Debate,
    Suit,
    TourConfig,
    apply_action,
    apply_chance,
    legal_actions,
    start_visit,
)
from search.game.rules import chance_outcomes
from search.visit import (
    Abilities,
    KingdomSolver,
    Position,
    make_position,
    position_from_visit,
    root_state,
    solve_exact,
)
from search.visit.certain import (
    ALL_NEEDS,
    IMPOSSIBLE,
    OPEN,
    SURE,
    UNKNOWN,
    CertaintySearch,
    ReferenceCertainty,
    certainty,
    root_choices,
)
from search.visit.kernel import FastKingdomSolver
from tests.conftest import fixed_work, reference_file

TOLERANCE = 1e-12
JACKS = tuple(Suit)


def verdict_of(chance) -> str:
    """What a certainty search must say of an exact chance."""
    if chance >= 1 - TOLERANCE:
        return SURE
    return IMPOSSIBLE if chance <= 0 else OPEN


def masks_of(vector) -> tuple[int, int]:
    """(sure, possible) bits of a value vector over wins still needed."""
    sure = sum(1 << k for k, v in enumerate(vector) if v >= 1 - TOLERANCE)
    possible = sum(1 << k for k, v in enumerate(vector) if v > 0)
    return sure, possible


def random_position(rng: random.Random, cheap: bool) -> Position:
    """A position mid-visit with the Jacks of a random subset (supporters too, a Politics
    pool): 2-4 cards held (2-3 and at most one drawing ability if ``cheap``), enough unseen that
    the deck cannot run out (so the exact search in fractions stays small), at most 8 won, the
    rest discarded; a ruler card waiting a third of the time."""
    counts = [rng.choice((0, 0, 1)) for _ in range(4)]
    if cheap and counts[0] and counts[1]:
        counts[rng.randrange(2)] = 0
    counts = tuple(counts)
    hand_size = rng.randrange(2, 4 if cheap else 5)
    deck_size = hand_size + 2 * (counts[0] * hand_size + counts[1]) + rng.randrange(1, 3)
    cards = rng.sample(range(32), 32)
    hand = cards[:hand_size]
    deck = cards[hand_size : hand_size + deck_size]
    seen = cards[hand_size + deck_size :]
    waiting = None
    if rng.random() < 0.33:
        waiting = deck.pop()
    won = rng.randrange(0, 9)
    scoring, discard = seen[:won], seen[won:]
    pool = tuple(sorted(rng.randrange(4) for _ in range(rng.randrange(1, 4))))
    return Position(
        hand=CardSet(sum(1 << c for c in hand)),
        trump=Suit(rng.randrange(4)),
        target=rng.randrange(max(1, won), 9),
        abilities=Abilities(counts, pool),
        discard=CardSet(sum(1 << c for c in discard)),
        scoring=CardSet(sum(1 << c for c in scoring)),
        waiting=None if waiting is None else next(iter(CardSet(1 << waiting))),
    )


def small_state(rng: random.Random, most: int) -> tuple:
    """A small mid-visit state whose deck may run out (R1, R2): 3-4 cards held, 1-6 unseen,
    0-4 discarded, the rest out of play; ability counts up to ``most`` each, smaller piles when
    both drawing abilities are left (the exact search in fractions must stay quick)."""
    counts = tuple(rng.choice((0, 1, 1, 2)[: most + 2]) for _ in range(4))
    drawing = counts[0] > 0 and counts[1] > 0
    order = rng.sample(range(32), 32)
    h = 3 + (0 if drawing else rng.randrange(2))
    d = 1 + rng.randrange(3 if drawing else 6)
    x = rng.randrange(3 if drawing else 5)
    hand = sum(1 << c for c in order[:h])
    deck = sum(1 << c for c in order[h : h + d])
    disc = sum(1 << c for c in order[h + d : h + d + x])
    pool = tuple(sorted(rng.randrange(4) for _ in range(1 + rng.randrange(3)))) if counts[3] else ()
    return hand, deck, disc, rng.randrange(4), counts, pool


def check_positions(seed: int, cases: int, cheap: bool) -> None:
    rng = random.Random(seed)
    search = CertaintySearch()
    seen = {SURE: 0, IMPOSSIBLE: 0, OPEN: 0}
    for _ in range(cases):
        position = random_position(rng, cheap)
        exact = solve_exact(KingdomSolver(exact=True), position, time.perf_counter()).chance_exact
        expected = verdict_of(exact)
        assert certainty(position, search=search).verdict == expected, position
        assert ReferenceCertainty().verdict(position) == expected, position
        seen[expected] += 1
    assert min(seen.values()) >= cases // 15, seen  # every verdict was met


def test_positions_agree_with_exact_fractions() -> None:
    """On seeded positions, any abilities, a ruler card waiting or not: the compiled verdict, the
    pure-Python one and the exact chance in fractions (the reference solver) say the same."""
    check_positions(37, 80, cheap=True)


@pytest.mark.slow
def test_larger_positions_agree_with_exact_fractions() -> None:
    """As above on larger positions, both drawing abilities at once among them (minutes)."""
    check_positions(38, 150, cheap=False)


def check_small_states(seed: int, cases: int, most: int, exact: bool) -> None:
    rng = random.Random(seed)
    search = CertaintySearch()
    for _ in range(cases):
        state = small_state(rng, most)
        solver = KingdomSolver(exact=True) if exact else FastKingdomSolver()
        expected = masks_of(solver.decide(*state))
        assert search.masks([(0, state)], ALL_NEEDS) == expected, state
        if exact:
            assert ReferenceCertainty().masks(*state) == expected, state


def test_small_states_agree_with_exact_fractions() -> None:
    """Small states where the deck runs out (R1 reshuffles, R2 ends), at most one use of each
    ability: the masks over every number of wins still needed, compiled and pure Python, are
    those of the exact value vector in fractions."""
    check_small_states(3737, 30, 1, exact=True)


def test_small_states_agree_with_the_compiled_solver() -> None:
    """The same with up to two uses of each ability (supporters), against the compiled
    expectimax's value vectors."""
    check_small_states(3738, 400, 2, exact=False)


@pytest.mark.slow
def test_more_small_states_agree_with_exact_fractions() -> None:
    """Up to two uses of each ability against the fractions (minutes)."""
    check_small_states(3739, 200, 2, exact=True)


FIRST_VISIT_SETS = {"none": "", "H": "H", "S": "S", "HS": "HS"}


@pytest.mark.parametrize("seed", range(1, 7))
def test_first_visits_agree_with_the_compiled_solver(seed: int) -> None:
    """First-visit hands of seeded deals, every kingdom's trump and pool, the ability sets whose
    exact solve is quick: the verdict of every target 0..8 is the compiled expectimax's."""
    deal = Deal(seed, TourConfig())
    layout, hand = deal.layout(), deal.hand(1)
    search = CertaintySearch()
    for place, ruler in enumerate(layout, 1):
        pool = [r.suit for i, r in enumerate(layout, 1) if i != place]
        for jacks in FIRST_VISIT_SETS.values():
            position = make_position(
                hand, ruler.suit, place, jacks=[Suit.from_letter(j) for j in jacks], pool=pool
            )
            vector = FastKingdomSolver().decide(*root_state(position))
            assert search.masks(root_choices(position), ALL_NEEDS) == masks_of(vector)


def lower_bound_positions():
    """The first-visit hands of ``tests/data/jacks_lower_bounds.json`` under each ability set
    with its exact chances (an earlier exact solver's, checked against the independent one)."""
    cases = json.loads(reference_file("jacks_lower_bounds.json").read_text(encoding="utf-8"))
    for case in cases:
        hand = CardSet.parse(case["hand"])
        pool = [Suit.from_letter(s) for s in case["pool"]]
        trump = Suit.from_letter(case["trump"])
        for name, chances in case["chance_by_target"].items():
            jacks = [] if name == "none" else [Suit.from_letter(j) for j in name]
            yield hand, trump, pool, jacks, chances


def test_the_recorded_exact_chances_are_matched() -> None:
    """Every target of the ten recorded hands under none, ♥♠, ♦, ♣ and ♦♥♠: sure where the
    recorded chance is 1, impossible where it is 0, open elsewhere."""
    search = CertaintySearch()
    for hand, trump, pool, jacks, chances in lower_bound_positions():
        for target, chance in enumerate(chances, 1):
            position = make_position(hand, trump, target, jacks=jacks, pool=pool)
            assert certainty(position, search=search).verdict == verdict_of(chance), (
                hand,
                jacks,
                target,
            )


@pytest.mark.parametrize("hands", [1, pytest.param(10, marks=pytest.mark.slow)])
def test_every_jack_keeps_what_a_subset_proves(hands: int) -> None:
    """With all four Jacks a player may leave some unused: a target some recorded subset hits
    for sure is sure, and one that is impossible with all four is impossible for each subset
    (the first ``hands`` recorded hands, every target)."""
    search = CertaintySearch()
    recorded: dict = {}
    for hand, trump, pool, _, chances in list(lower_bound_positions())[: 5 * hands]:
        for target, chance in enumerate(chances, 1):
            recorded.setdefault((hand.mask, trump, tuple(pool), target), []).append(chance)
    for (mask, trump, pool, target), chances in recorded.items():
        position = make_position(CardSet(mask), trump, target, jacks=JACKS, pool=pool)
        verdict = certainty(position, work=20_000_000, search=search).verdict
        assert verdict != UNKNOWN
        if max(chances) == 1.0:
            assert verdict == SURE
        if verdict == IMPOSSIBLE:
            assert max(chances) == 0.0


def test_a_cut_search_says_unknown() -> None:
    """A search stopped by its work limit or its deadline says ``unknown``, not a verdict; a
    longer one then settles the same target."""
    deal = Deal(1, TourConfig())
    pool = [r.suit for r in deal.layout()[1:]]
    position = make_position(deal.hand(1), deal.layout()[0].suit, 1, jacks=JACKS, pool=pool)
    search = CertaintySearch()
    assert certainty(position, work=1000, search=search).verdict == UNKNOWN
    assert certainty(position, deadline=time.perf_counter() - 1, search=search).verdict == UNKNOWN
    settled = certainty(position, search=search)
    assert settled.verdict == OPEN and settled.lookups > 1000


# --- every Jack: no exact chance to compare with -------------------------------------------

SURE_DEAL = (3, 5)
"""Deal 3's first hand at kingdom 5 (K♦, target 5): sure with all four Jacks."""


def engine_sure(visit, search: CertaintySearch, cache: dict) -> bool:
    """Whether the engine's state is sure: an ended visit on its target; at a chance step, every
    card the engine may turn up; at a decision, the certainty search's verdict."""
    if visit.over:
        return visit.succeeded
    if visit in cache:
        return cache[visit]
    if visit.is_chance:
        sure = all(
            engine_sure(apply_chance(visit, card), search, cache)
            for card, _ in chance_outcomes(visit)
        )
    else:
        sure = certainty(position_from_visit(visit), search=search).verdict == SURE
    cache[visit] = sure
    return sure


def play_sure(visit, search: CertaintySearch, rng: random.Random, cache: dict) -> bool:
    """One visit in the rules engine, the cards turned up at random as the engine weighs them,
    each decision the first legal action the engine offers whose result is sure."""
    while not visit.over:
        if visit.is_chance:
            outcomes = chance_outcomes(visit)
            cards = [card for card, _ in outcomes]
            weights = [float(weight) for _, weight in outcomes]
            visit = apply_chance(visit, rng.choices(cards, weights)[0])
            continue
        for action in legal_actions(visit):
            after = apply_action(visit, action)
            if engine_sure(after, search, cache):
                visit = after
                break
        else:
            return False  # the search said sure, but no action the engine offers is
    return visit.succeeded


def test_a_sure_cell_with_every_jack_always_hits_in_the_engine() -> None:
    """Deal 3, kingdom 5, all four Jacks: the search proves 100%; played in the rules engine by
    the sure moves, 30 random deck orders all end on the target."""
    seed, place = SURE_DEAL
    deal = Deal(seed, TourConfig())
    tour = deal.tour()
    visit = start_visit(tour, deal.hand(1), place)
    search = CertaintySearch()
    assert certainty(position_from_visit(visit), search=search).verdict == SURE
    rng = random.Random(2026)
    cache: dict = {}
    assert all(play_sure(visit, search, rng, cache) for _ in range(30))


def losing_line(seed: int, place: int, cards_left: int):
    """Deal ``seed``'s first hand at kingdom ``place``, every Jack kept, played in the engine by
    debates alone, answers and cards turned up drawn by ``random.Random(1)``, until the hand
    holds ``cards_left`` cards before a debate."""
    rng = random.Random(1)
    deal = Deal(seed, TourConfig())
    visit = start_visit(deal.tour(), deal.hand(1), place)
    while visit.is_chance or visit.waiting is not None or len(visit.hand) > cards_left:
        if visit.is_chance:
            visit = apply_chance(visit, rng.choice(chance_outcomes(visit))[0])
        else:
            plays = [a for a in legal_actions(visit) if isinstance(a, (Debate, Answer))]
            visit = apply_action(visit, rng.choice(plays))
    return visit


def clairvoyant_hit(visit, rank: list[int], memo: dict) -> bool:
    """Whether some play ends ``visit`` on its target when the cards turn up in the order
    ``rank`` gives them (lowest first, among those the engine may turn up: a deck order, and
    after an R1 reshuffle the same order over the refilled deck), every card known in advance."""
    if visit.over:
        return visit.succeeded
    if visit not in memo:
        if visit.is_chance:
            card = min((c for c, _ in chance_outcomes(visit)), key=lambda c: rank[c.index])
            memo[visit] = clairvoyant_hit(apply_chance(visit, card), rank, memo)
        else:
            memo[visit] = any(
                clairvoyant_hit(apply_action(visit, action), rank, memo)
                for action in legal_actions(visit)
            )
    return memo[visit]


@pytest.mark.parametrize("orders", [1, pytest.param(50, marks=pytest.mark.slow)])
def test_an_impossible_cell_with_every_jack_is_never_hit(orders: int) -> None:
    """Deal 1 at kingdom 8 after four debates (one won, 4 cards left, every Jack kept): the
    search proves 0%, though Military and Commerce could still bring cards; a player who knows
    the deck order misses the target on every order tried."""
    visit = losing_line(1, 8, 4)
    position = position_from_visit(visit)
    assert (position.hand.ascii(), position.wins, position.target) == ("3D 7D 8D 5S", 1, 8)
    result = certainty(position)
    assert result.verdict == IMPOSSIBLE and result.lookups > 1000
    for seed in range(orders):
        rank = random.Random(seed).sample(range(32), 32)
        assert not clairvoyant_hit(visit, rank, {})


def test_advise_shows_a_proven_cell_as_exact(monkeypatch) -> None:
    """advise with a 3 s table's work: deal 3's kingdom 5, which no exact solve of every Jack
    finishes in it, shows exactly 100% with all four Jacks and with every ability, as an exact
    cell (not as a subset's bound). The clock's backstop far off, so a busy machine cuts
    nothing (it once did: a cut certainty share left the cell a bound)."""
    from search.tours import advise_visit

    deal = Deal(SURE_DEAL[0], TourConfig())
    advice = advise_visit(deal.tour(), deal.hand(1), time_limit=fixed_work(monkeypatch, 3.0))
    kingdom = next(k for k in advice.kingdoms if k.position == SURE_DEAL[1])
    for column in ("jacks", "all"):
        chance = kingdom.chance(column)
        assert (chance.kind, chance.value) == ("exact", 1.0)
