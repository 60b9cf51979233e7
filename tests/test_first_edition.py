"""The first edition (2019) rules engine: rulings R5-R7 (docs/rules.md §6), one test each part.

The engine, the baseline simulations, the visit solver (search/firstedition.py and its
compiled kernel) and the advisor that plays by it (search/firsteditionplay.py).
"""

from __future__ import annotations

import pytest

from search.game.cards import KINGS, QUEENS, Card, CardSet, Suit
from search.game.rules import (
    Answer,
    Debate,
    Discard,
    IllegalActionError,
    Phase,
    UseAbility,
    apply_action,
    apply_chance,
    legal_actions,
    new_visit,
)
from search.game.tour import (
    Supporter,
    TourConfig,
    finish_visit,
    new_tour,
    start_visit,
    turn_down_choices,
)
from search.tours.batch import run_batch
from tests.conftest import STANDARD_LAYOUT, assert_one_line_error, run_in_process

C, D, H, S = Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES
FIRST = TourConfig(first_edition=True)
HAND = CardSet.parse("AC 2C 3D 4D 5H 6H 7S 8S")


def card(text: str) -> Card:
    return Card.parse(text)


def _tour(**changes):
    from dataclasses import replace

    return replace(new_tour(STANDARD_LAYOUT, FIRST), **changes)


def _reveal(state, text: str):
    return apply_chance(apply_action(state, Debate()), card(text))


def _play_out(state, answers: list[tuple[str, str]]):
    """Debate each (ruler card, answer) in turn."""
    for ruler_card, answer in answers:
        state = apply_action(_reveal(state, ruler_card), Answer(card(answer)))
    return state


def test_r5_reputation_is_the_face_up_jacks_and_supporters() -> None:
    """R5: reputation counts face-up Jacks and unused (face-up) supporters."""
    tour = _tour(
        supporters=(Supporter(KINGS[0]), Supporter(QUEENS[1], used=True)), jacks=frozenset({C, H})
    )
    assert tour.reputation == 3


def test_r5_a_jack_turned_down_stays_down_at_the_next_visit() -> None:
    """R5: never refreshed. A Jack used in visit 1 is still face down in visit 2 (in the
    standard game every Jack is face up again, §2.7)."""
    tour = _tour()
    position = 2  # QH, target 2
    state = start_visit(tour, HAND, position)
    state = apply_action(state, UseAbility(D))  # Commerce: draw 2, discard 2
    state = apply_chance(apply_chance(state, card("AD")), card("2D"))
    state = apply_action(state, Discard(CardSet.parse("AD 2D")))
    assert D not in state.jacks
    state = _finish_exactly(state)
    after = finish_visit(tour, state)
    assert after.jacks == frozenset({C, H, S}) and after.reputation == 3 + 1  # + the new supporter
    assert start_visit(after, HAND, 1).jacks == frozenset({C, H, S})


def _finish_exactly(state):
    """Win the target's number of debates and lose the rest, with hearts trump (QH)."""
    plays = [
        ("AH", "5H"),
        ("2H", "6H"),
        ("8C", "AC"),
        ("7C", "2C"),
        ("8D", "3D"),
        ("7D", "4D"),
        ("8H", "7S"),
        ("4H", "8S"),
    ]
    for ruler_card, answer in plays:
        if state.over:
            break
        state = apply_action(_reveal(state, ruler_card), Answer(card(answer)))
    assert state.over and state.wins == state.target
    return state


def test_r6_clubs_wins_the_waiting_debate_with_any_legal_card() -> None:
    """R6 ♣: used while the ruler's card waits; the debate counts as won though the card
    played (a legal one: follow suit) is lower; the answer still goes to the scoring pile."""
    state = _reveal(start_visit(_tour(), HAND, 4), "8D")  # QD, trump diamonds
    assert UseAbility(C) in legal_actions(state)
    state = apply_action(state, UseAbility(C))
    assert state.phase is Phase.ANSWER and C not in state.jacks
    with pytest.raises(IllegalActionError, match="follow suit"):
        apply_action(state, Answer(card("AC")))
    state = apply_action(state, Answer(card("3D")))
    assert state.wins == 1 and card("3D") in state.scoring


def test_r6_hearts_loses_the_waiting_debate() -> None:
    """R6 ♥: the debate counts as lost though the card played would win."""
    state = apply_action(_reveal(start_visit(_tour(), HAND, 4), "AD"), UseAbility(H))
    state = apply_action(state, Answer(card("4D")))
    assert state.wins == 0 and card("4D") in state.discard


def test_r6_clubs_and_hearts_only_while_a_ruler_card_waits_and_once_a_debate() -> None:
    state = start_visit(_tour(), HAND, 4)
    assert UseAbility(C) not in legal_actions(state) and UseAbility(H) not in legal_actions(state)
    with pytest.raises(IllegalActionError, match="only while a ruler's card waits"):
        apply_action(state, UseAbility(C))
    state = apply_action(_reveal(state, "8D"), UseAbility(C))
    assert UseAbility(H) not in legal_actions(state)  # settled already


def test_r6_diamonds_draws_two_and_discards_two_between_debates() -> None:
    state = start_visit(_tour(), HAND, 4)
    state = apply_action(state, UseAbility(D))
    state = apply_chance(apply_chance(state, card("8C")), card("7C"))
    assert state.phase is Phase.DISCARD and len(state.hand) == 10
    state = apply_action(state, Discard(CardSet.parse("AC 2C")))
    assert len(state.hand) == 8 and D not in state.jacks
    assert UseAbility(D) not in legal_actions(_reveal(start_visit(_tour(), HAND, 4), "8D"))


def test_r6_spades_makes_spades_trump_for_the_rest_of_the_visit() -> None:
    """R6 ♠: no swap of rulers; spades are trump from now on, and the layout stays."""
    tour = _tour()
    state = apply_action(start_visit(tour, HAND, 4), UseAbility(S))
    assert state.trump is S and state.rulers == tour.rulers and S not in state.jacks
    state = apply_action(_reveal(state, "8D"), Answer(card("3D")))  # must follow suit: lost
    state = apply_action(_reveal(state, "8H"), Answer(card("5H")))
    state = apply_action(_reveal(state, "8C"), Answer(card("AC")))
    state = apply_action(_reveal(state, "5C"), Answer(card("2C")))
    state = apply_action(_reveal(state, "7H"), Answer(card("6H")))
    state = apply_action(_reveal(state, "5D"), Answer(card("4D")))
    state = apply_action(_reveal(state, "6C"), Answer(card("7S")))  # void in clubs: a spade wins
    assert state.wins == 1
    assert UseAbility(S) not in legal_actions(state)  # spades are trump already


def test_r6_a_supporter_turns_face_down_when_used() -> None:
    tour = _tour(supporters=(Supporter(KINGS[1]),), jacks=frozenset())
    state = apply_action(start_visit(tour, HAND, 4), UseAbility(D, KINGS[1]))
    assert state.used_supporters == (KINGS[1],)


@pytest.mark.parametrize(("face_up", "ends"), [(4, False), (3, False), (2, True)])
def test_r7_a_miss_by_m_turns_m_cards_down_or_ends_the_tour(face_up: int, ends: bool) -> None:
    """R7: missing kingdom 2 (QH) by 2 with more than 2 cards face up turns 2 of them down
    (the player's choice) and completes the kingdom without a supporter; with 2 or fewer
    face up the tour ends. Score: kingdoms completed."""
    jacks = frozenset(list(Suit)[:face_up])
    tour = _tour(jacks=jacks)
    state = start_visit(tour, HAND, 2)
    plays = [
        ("AS", "7S"),
        ("AD", "3D"),
        ("2D", "4D"),
        ("AH", "5H"),  # four wins
        ("7H", "6H"),
        ("3C", "AC"),
        ("4C", "2C"),
        ("8H", "8S"),
    ]  # then four losses
    state = _play_out(state, plays)
    assert state.over and state.wins == 4  # target 2: a miss by 2
    choices = turn_down_choices(tour, state)
    if ends:
        assert choices == []
        after = finish_visit(tour, state)
        assert after.over and after.score == 0
        return
    assert len(choices[0]) == 2 and all(len(set(c)) == 2 for c in choices)
    with pytest.raises(IllegalActionError, match="exactly 2"):
        finish_visit(tour, state, choices[0][:1])
    after = finish_visit(tour, state, choices[-1])
    assert not after.over and after.score == 1 and 2 in after.visited
    assert after.reputation == face_up - 2 and after.unused_supporters == ()


def test_first_edition_simulations_are_deterministic_and_greedy_beats_random() -> None:
    """simulate --variant first-edition: the same seed gives the same scores; greedy's mean
    is above random's with the 95% intervals apart."""
    first = run_batch(["random", "greedy"], 60, 4, FIRST)
    assert first == run_batch(["random", "greedy"], 60, 4, FIRST)
    random, greedy = first
    assert greedy.mean_score[1] > random.mean_score[2]
    assert len(greedy.scores) == FIRST.perfect_score + 1 == 9


def test_simulate_and_deal_take_the_variant(monkeypatch, capsys) -> None:
    code, out, err = run_in_process(
        monkeypatch, capsys, ["simulate", "--tours", "5", "--variant", "first-edition", "--json"]
    )
    assert code == 0, err
    assert '"first_edition": true' in out
    assert_one_line_error(
        *run_in_process(monkeypatch, capsys, ["simulate", "--tours", "5", "--variant", "2019"])
    )
    code, out, err = run_in_process(
        monkeypatch,
        capsys,
        ["simulate", "--tours", "5", "--variant", "first-edition", "--policy", "hindsight"],
    )
    assert_one_line_error(code, out, err)
    assert "standard" in err


# --- the solver (search/firstedition.py) ---------------------------------------------


def test_one_card_visit_cost_worked_by_hand() -> None:
    """5♠ alone, spades trump, target 1, no ability. Of the 31 unseen cards 6♠ 7♠ 8♠ beat it
    (a miss by 1); the 4 lower spades and the 24 others lose to it. Expected reputation
    spent = 3/31, P(exact) = 28/31, misses (28/31, 3/31). A ♣ Jack changes nothing: using it
    on a lost debate costs the 1 that the miss would (ties go to not using it)."""
    from search.firstedition.reference import FirstEditionSolver

    for jacks in [(0, 0, 0, 0), (1, 0, 0, 0)]:
        result = FirstEditionSolver().solve(CardSet.parse("5S").mask, 3, jacks, 1)
        assert result.cost == pytest.approx(3 / 31, abs=1e-12)
        assert result.chance == pytest.approx(28 / 31, abs=1e-12)
        assert result.miss == pytest.approx((28 / 31, 3 / 31), abs=1e-12)


def test_spades_trump_saves_reputation_when_every_card_would_win() -> None:
    """8♥ 7♥ 6♥ 5♥ with hearts trump win all four debates whatever turns up (each beats the
    lower hearts and every non-trump): target 1 misses by 3, cost exactly 3. Making spades
    trump (cost 1) turns most of those wins into losses, so best play pays far less."""
    from search.firstedition.reference import FirstEditionSolver

    hand = CardSet.parse("8H 7H 6H 5H").mask
    plain = FirstEditionSolver().solve(hand, 2, (0, 0, 0, 0), 1)
    assert plain.cost == pytest.approx(3.0) and plain.miss == pytest.approx((0, 0, 0, 1.0))
    politics = FirstEditionSolver().solve(hand, 2, (0, 0, 0, 1), 1)
    assert 1.0 < politics.cost < 2.0 and politics.chance > 0.5


def _engine_cost(state, target: int, memo: dict) -> float:
    """Independent brute force over the rules engine: least expected reputation spent
    (abilities used plus the final miss), chance nodes by chance_outcomes."""
    from search.game.rules import apply_action_unchecked, apply_chance_unchecked, chance_outcomes

    if state.over:
        return abs(state.wins - target) + len(state.abilities_used)
    key = (
        state.hand,
        state.deck,
        state.wins,
        state.waiting,
        state.phase,
        state.jacks,
        state.trump,
        state.verdict,
        state.pending_draws,
        len(state.abilities_used),
    )
    if key in memo:
        return memo[key]
    if state.is_chance:
        value = sum(
            float(p) * _engine_cost(apply_chance_unchecked(state, c), target, memo)
            for c, p in chance_outcomes(state)
        )
    else:
        value = min(
            _engine_cost(apply_action_unchecked(state, a), target, memo)
            for a in legal_actions(state)
        )
    memo[key] = value
    return value


@pytest.mark.parametrize(
    ("hand", "trump", "jacks"),
    [
        ("5S AH", S, {C, H}),
        ("3D 7D", D, {S}),
        ("8C 2H", H, {C, H, S}),
        pytest.param("4S 6H 2C", C, {H, S}, marks=pytest.mark.slow),  # 24 s
        pytest.param("7C 2D", S, {D}, marks=pytest.mark.slow),  # Commerce: 2 min
    ],
)
def test_solver_equals_a_brute_force_over_the_engine(hand: str, trump: Suit, jacks: set) -> None:
    """The solver's least expected cost (the reference and the compiled kernel) equals an
    independent brute force over the first-edition rules engine for every target, on small
    hands with every ability."""
    from dataclasses import replace

    from search.firstedition.kernel import FastFirstEditionSolver
    from search.firstedition.reference import FirstEditionSolver
    from search.game.rules import new_visit

    cards = CardSet.parse(hand)
    layout = list(STANDARD_LAYOUT)
    ruler = next(r for r in layout if r.suit == trump)
    position = layout.index(ruler) + 1
    abil = tuple(int(Suit(s) in jacks) for s in range(4))
    solvers = FirstEditionSolver(), FastFirstEditionSolver()
    for target in range(1, 4):
        start = new_visit(
            cards, position, target, tuple(layout), jacks=frozenset(jacks), first_edition=True
        )
        expected = _engine_cost(replace(start, target=target), target, {})
        for solver in solvers:
            assert solver.solve(cards.mask, int(trump), abil, target).cost == pytest.approx(
                expected, abs=1e-12
            )


def test_odds_first_edition_reports_cost_chance_and_misses(monkeypatch, capsys) -> None:
    """odds --variant first-edition --json: the worked one-card case, and a one-line error
    past the time limit (no estimate exists for this variant yet)."""
    import json

    args = [
        "odds",
        "5S",
        "--trump",
        "S",
        "--target",
        "1",
        "--abilities",
        "C",
        "--variant",
        "first-edition",
    ]
    code, out, err = run_in_process(monkeypatch, capsys, [*args, "--json"])
    assert code == 0, err
    data = json.loads(out)
    assert data["expected_cost"] == pytest.approx(3 / 31) and data["chance"] == pytest.approx(
        28 / 31
    )
    assert data["miss"] == pytest.approx([28 / 31, 3 / 31])
    slow = [
        "odds",
        "AC 6C 3H 8H 2D 5D 4S 7S",
        "--trump",
        "C",
        "--target",
        "4",
        "--abilities",
        "D",
        "--variant",
        "first-edition",
        "--time-limit",
        "0.01",
    ]
    code, out, err = run_in_process(monkeypatch, capsys, slow)
    assert_one_line_error(code, out, err)
    assert "time-limit" in err


# --- the compiled kernel (search/fastfirstedition.py) ----------------------------------


@pytest.mark.parametrize(
    ("hand", "trump", "abil"),
    [
        ("5S AH", S, (1, 1, 1, 1)),  # every ability, Commerce included
        ("8D 2D", D, (2, 1, 1, 1)),  # a ♣ Jack and a ♣ supporter
        ("3C 7H 4S 6D 8D", H, (1, 0, 1, 1)),
        ("AC 5C 8H 2S 7S 4D", C, (0, 0, 2, 1)),
        ("6H 7H 3S", S, (0, 1, 0, 2)),  # ♠ while spades are trump: nothing to do
        ("2C 4C 6C 8C 3H 5H 7S 8S", C, (0, 0, 0, 0)),
    ],
)
def test_kernel_equals_the_reference_for_every_target(hand: str, trump: Suit, abil: tuple) -> None:
    """The compiled kernel gives the reference's cost, chance and miss distribution for
    every target (its sums run in another order: equal to rounding)."""
    from search.firstedition.kernel import FastFirstEditionSolver
    from search.firstedition.reference import FirstEditionSolver

    mask = CardSet.parse(hand).mask
    fast, reference = FastFirstEditionSolver(), FirstEditionSolver()
    for target in range(1, 9):
        got, expected = (
            fast.solve(mask, int(trump), abil, target),
            reference.solve(mask, int(trump), abil, target),
        )
        assert got.cost == pytest.approx(expected.cost, abs=1e-12)
        assert got.chance == pytest.approx(expected.chance, abs=1e-12)
        assert got.miss == pytest.approx(expected.miss, abs=1e-12)
    deck = ((1 << 32) - 1) & ~mask
    assert fast.value(mask, deck, int(trump), abil) == pytest.approx(
        reference.value(mask, deck, int(trump), abil), abs=1e-12
    )


def test_kernel_memo_grows_and_keeps_its_values() -> None:
    """A solve far past the first table (4,096 slots) grows it; solving again after that
    only looks the answer up and gives the same vector."""
    from search.firstedition.kernel import FastFirstEditionSolver

    solver = FastFirstEditionSolver()
    mask = CardSet.parse("AC 6C 3H 8H 2D 5D 4S 7S").mask
    deck = ((1 << 32) - 1) & ~mask
    first = solver.value(mask, deck, 0, (1, 0, 1, 1))
    assert solver.states > 4096
    assert solver.value(mask, deck, 0, (1, 0, 1, 1)) == first


def test_kernel_stops_at_its_deadline() -> None:
    """Past the deadline the kernel unwinds and the solver raises TimeLimitExceeded; the
    same solver with no deadline then finishes."""
    import time

    from search.firstedition.kernel import FastFirstEditionSolver
    from search.visit import clock_stops
    from search.visit.reference import TimeLimitExceeded

    mask = CardSet.parse("AC 6C 3H 8H 2D 5D 4S 7S").mask
    solver = FastFirstEditionSolver()
    with pytest.raises(TimeLimitExceeded), clock_stops(time.perf_counter() + 0.05, solver):
        solver.solve(mask, 0, (1, 1, 1, 1), 4)
    assert solver.deadline is None
    assert 0.0 < solver.solve(mask, 0, (0, 0, 1, 0), 4).cost < 4.0


def test_kernel_reads_a_replaced_clock(monkeypatch) -> None:
    """The kernel reads libc's clock, or, where a test replaced ``time.perf_counter``, that
    clock (object mode): one running 1,000 s ahead stops at the first read a search whose
    deadline is 100 s off by the real clock (libc's clock would let it run on)."""
    import time

    from search.firstedition.kernel import FastFirstEditionSolver
    from search.visit import clock_stops
    from search.visit.reference import TimeLimitExceeded

    mask = CardSet.parse("AC 6C 3H 8H 2D 5D 4S 7S").mask
    real = time.perf_counter
    deadline = real() + 100.0
    monkeypatch.setattr(time, "perf_counter", lambda: real() + 1000.0)
    solver = FastFirstEditionSolver()
    with pytest.raises(TimeLimitExceeded), clock_stops(deadline, solver):
        solver.solve(mask, 0, (1, 1, 1, 1), 4)
    assert solver.states < 100_000  # of 5.2 M: stopped at the first read (libc: it finishes)


# --- the advisor (search/firsteditionplay.py) -------------------------------------------


class CheckedAdvisor:
    """The first-edition advisor, checking that every action it takes is legal."""

    name = "checked"

    def __init__(self) -> None:
        from search.firstedition.play import FirstEditionPolicy

        self.inner = FirstEditionPolicy()
        self.actions = 0

    def choose_kingdom(self, tour, hand, rng):
        position = self.inner.choose_kingdom(tour, hand, rng)
        assert position in tour.unvisited
        return position

    def choose_action(self, visit, actions, rng):
        action = self.inner.choose_action(visit, actions, rng)
        assert action in legal_actions(visit)
        self.actions += 1
        return action

    def choose_turn_down(self, tour, visit, choices, rng):
        chosen = self.inner.choose_turn_down(tour, visit, choices, rng)
        assert chosen in choices
        return chosen


@pytest.mark.parametrize("seed", [3, 11])
def test_advisor_plays_whole_first_edition_tours_legally(seed: int) -> None:
    """Every kingdom, action and payment the advisor picks is legal, and the tour ends with
    the first edition's score (kingdoms completed, R7)."""
    from search.game.deal import Deal, Stream
    from search.tours.simulate import play_tour

    for config in (FIRST, TourConfig(short=True, first_edition=True)):
        player = CheckedAdvisor()
        tour = play_tour(Deal(seed, config), player, Stream(seed, "policy"))
        assert tour.over and player.actions > 0
        assert tour.score == len(tour.visited) <= config.kingdoms


def test_ranked_actions_follow_the_solver() -> None:
    """rank_actions at a visit's start: the debate and ♠ options carry the solver's costs for
    the target, cheapest first; at a waiting card every legal answer is listed alone and with
    each face-up ♣/♥, and after ♣ only answers, valued with the debate counted as won."""
    from search.firstedition.kernel import FastFirstEditionSolver
    from search.firstedition.play import rank_actions
    from search.game.rules import UseAbility, apply_action, apply_chance

    hand = CardSet.parse("AC 6C 3H 8H 2D 5D 4S 7S")
    layout = list(STANDARD_LAYOUT)
    position = 3
    visit = new_visit(
        hand, position, 3, tuple(layout), jacks=frozenset({C, H, S}), first_edition=True
    )
    solver = FastFirstEditionSolver()
    ranked = rank_actions(solver, visit)
    costs = [r.cost for r in ranked]
    assert costs == sorted(costs)
    whole = solver.value(hand.mask, visit.deck.mask, int(visit.trump), (1, 0, 1, 1))
    assert ranked[0].cost == pytest.approx(whole[3 + 8], abs=1e-12)
    waiting = apply_chance(apply_action(visit, Debate()), Card.parse("5H"))
    answers = rank_actions(solver, waiting)
    assert len(answers) == 3 * len(hand.of_suit(H))  # 3♥ 8♥, each alone, with ♣, with ♥
    assert all(r.then is not None for r in answers if isinstance(r.action, UseAbility))
    after = apply_action(waiting, UseAbility(C))
    settled = rank_actions(solver, after)
    assert {type(r.action) for r in settled} == {Answer}
    with_clubs = min(r.cost for r in answers if r.action == UseAbility(C))
    assert min(r.cost for r in settled) + 1 == pytest.approx(with_clubs, abs=1e-12)


def test_advisor_keeps_the_abilities_worth_most() -> None:
    """Paying a miss of 1 with ♣ ♦ ♥ ♠ face up, the advisor turns down ♦ (R7: its choice)."""
    from search.firstedition.play import FirstEditionPolicy

    visit = new_visit(
        CardSet.parse("AC"), 1, 1, tuple(STANDARD_LAYOUT), jacks=frozenset(Suit), first_edition=True
    )
    choices = [(suit,) for suit in sorted(Suit)]
    assert FirstEditionPolicy().choose_turn_down(None, visit, choices, None) == (D,)


# --- advise and move --variant first-edition -------------------------------------------

FE_HAND = "AC 8C 7D 8D 4S 6S 7S 8S"
FE_RULERS = (
    "- QH QS - KD KC KH QC"  # kingdoms 1 and 4 completed; K♠ won (Q♦'s kingdom was paid for)
)


def test_advise_first_edition_lists_each_kingdoms_cost_and_recommends_the_least_net_loss(
    monkeypatch, capsys
) -> None:
    """advise --variant first-edition --json: every unvisited kingdom with the solver's
    expected cost, hit chance and misses for its trump, target and the face-up cards (J♣ J♥
    J♠ and the K♠ supporter; J♦ down); the recommendation has the least net loss."""
    import json

    from search.firstedition.kernel import FastFirstEditionSolver

    args = [
        "advise",
        FE_HAND,
        "--rulers",
        FE_RULERS,
        "--supporters",
        "KS",
        "--jacks-down",
        "D",
        "--variant",
        "first-edition",
        "--json",
    ]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 0, err
    data = json.loads(out)
    assert data["reputation"] == 4
    rows = {row["position"]: row for row in data["kingdoms"]}
    assert sorted(rows) == [2, 3, 5, 6, 7, 8]
    suits = {2: H, 3: S, 5: D, 6: C, 7: H, 8: C}
    solver = FastFirstEditionSolver()
    for position, row in rows.items():
        expected = solver.solve(
            CardSet.parse(FE_HAND).mask, int(suits[position]), (1, 0, 1, 2), position
        )
        assert row["expected_cost"] == pytest.approx(expected.cost, abs=1e-12)
        assert row["chance"] == pytest.approx(expected.chance, abs=1e-12)
        assert row["miss"] == pytest.approx(list(expected.miss), abs=1e-12)
        assert row["commerce_searched"]
    assert data["recommendation"] == min(rows, key=lambda p: (rows[p]["net_loss"], p))


def test_advise_first_edition_without_time_for_commerce_flags_upper_bounds(
    monkeypatch, capsys
) -> None:
    """With J♦ face up and no time to search Commerce, the costs are those without ♦
    (upper bounds) and say so; --jacks-down in the standard game is refused in one line."""
    args = [
        "advise",
        FE_HAND,
        "--rulers",
        FE_RULERS,
        "--supporters",
        "KS",
        "--variant",
        "first-edition",
        "--time-limit",
        "0.001",
        "--ascii",
    ]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 0, err
    assert "†" in out and "upper bound" in out
    assert_one_line_error(
        *run_in_process(
            monkeypatch, capsys, ["advise", FE_HAND, "--rulers", FE_RULERS, "--jacks-down", "D"]
        )
    )


def test_move_first_edition_ranks_answers_with_and_without_abilities(monkeypatch, capsys) -> None:
    """move --variant first-edition with 5♦ waiting: each legal answer (7♦ only) alone, with ♣
    and with ♥, cheapest first, costs from the solver; after ♣ (--verdict won) only the answer."""
    import json

    base = [
        "move",
        "--variant",
        "first-edition",
        "--kingdom",
        "5",
        "--hand",
        "AC 8C 7D 4S 6S 7S 8S",
        "--rulers",
        FE_RULERS,
        "--supporters",
        "KS",
        "--jacks-down",
        "D",
        "--won-cards",
        "8D",
        "--ruler-card",
        "5D",
        "--json",
    ]
    code, out, err = run_in_process(monkeypatch, capsys, base)
    assert code == 0, err
    data = json.loads(out)
    assert data["options"][0]["option"] == "7D"
    assert {o.get("then") for o in data["options"]} == {None, "7D"}
    costs = [o["expected_cost"] for o in data["options"]]
    assert costs == sorted(costs) and len(costs) == 3
    code, out, err = run_in_process(
        monkeypatch, capsys, [*base, "--jacks-used", "C", "--verdict", "won"]
    )
    assert code == 0, err
    settled = json.loads(out)["options"]
    assert [o["option"] for o in settled] == ["7D"]


@pytest.mark.parametrize(
    "extra",
    [
        ["--verdict", "maybe"],
        ["--discard", "7D"],  # in the hand
        ["--jacks-used", "D"],  # turned down before this visit
        ["--seen", "2H", "--wins", "2"],
    ],
)
def test_move_first_edition_refuses_bad_positions_in_one_line(
    monkeypatch, capsys, extra: list
) -> None:
    args = [
        "move",
        "--variant",
        "first-edition",
        "--kingdom",
        "5",
        "--hand",
        "AC 8C 7D 4S",
        "--rulers",
        FE_RULERS,
        "--jacks-down",
        "D",
        "--ruler-card",
        "5D",
        *extra,
    ]
    assert_one_line_error(*run_in_process(monkeypatch, capsys, args))


@pytest.mark.slow  # about a minute: 30 advisor tours
def test_first_edition_advisor_beats_greedy() -> None:
    """simulate --variant first-edition --policy greedy,advisor: the advisor's mean score is
    above greedy's with the 95% intervals apart (30 tours; README has 2,000)."""
    greedy, advisor = run_batch(["greedy", "advisor"], 30, 2026, FIRST, workers=2)
    assert advisor.mean_score[1] > greedy.mean_score[2]


@pytest.mark.slow  # 10 s; simulate's repeatability is checked by default in test_cli
def test_first_edition_advisor_repeats() -> None:
    """simulate --variant first-edition --policy advisor: a batch played again gives the same
    scores (the advisor's searches have fixed work)."""
    assert run_batch(["advisor"], 3, 7, FIRST) == run_batch(["advisor"], 3, 7, FIRST)
