"""The CP-SAT plan of hands to kingdoms (search.tours.assign) against hand-worked optima and an
independent brute force over every sequence of plays."""

from __future__ import annotations

import math
import random

import pytest

from search.game.cards import CardSet, Ruler, Suit
from search.tours.assign import (
    SCALE,
    AssignmentInputError,
    NoAssignmentError,
    Option,
    Play,
    assign,
    expected_score,
)

KC, KD, KH, KS = (Ruler("K", s) for s in Suit)
QC, QH = Ruler("Q", Suit.CLUBS), Ruler("Q", Suit.HEARTS)
NONE = Option()


def hands(n: int) -> list[CardSet]:
    """``n`` placeholder hands: the model sees only their order."""
    return [CardSet(0xFF << (8 * (i % 4))) for i in range(n)]


def brute_force(hand_count, kingdoms, chances, objective):
    """The best objective value over every legal sequence of plays, or None if none is legal."""
    visits = min(hand_count, len(kingdoms))
    by_hand = {t: [(p, c) for p, c in chances.items() if p.hand == t] for t in range(visits)}
    best = None

    def value(plan):
        probs = [c for _, c in plan]
        if objective == "score":
            return (
                2 * visits
                - sum(2 * (visits - t) * (1 - c) for t, c in enumerate(probs))
                - sum(len(p.option.supporters) for p, _ in plan)
            )
        return math.prod(probs)

    def walk(t, layout, won, spent, plan):
        nonlocal best
        if t == visits:
            v = value(plan)
            best = v if best is None else max(best, v)
            return
        for play, chance in by_hand[t]:
            swap, supporters = play.option.swap, play.option.supporters
            source = play.position if swap is None else swap
            if chance == 0 or play.position not in layout or layout.get(source) != play.ruler:
                continue
            if swap is not None and layout[play.position].suit == play.ruler.suit:
                continue
            if not supporters <= won - spent or (objective == "perfect" and supporters):
                continue
            after = dict(layout)
            if swap is not None:
                after[swap] = layout[play.position]
            del after[play.position]
            walk(t + 1, after, won | {play.ruler}, spent | supporters, plan + [(play, chance)])

    walk(0, dict(kingdoms), frozenset(), frozenset(), [])
    return best


def check_optimal(hand_count, kingdoms, chances, objective):
    """Solve, and compare with the brute force; return the assignment."""
    result = assign(hands(hand_count), kingdoms, chances, objective)
    best = brute_force(hand_count, kingdoms, chances, objective)
    assert result.status == "OPTIMAL"
    if objective == "score":
        assert result.value == pytest.approx(best, abs=len(result.visits) / SCALE)
    else:
        assert result.chance == pytest.approx(best, rel=1e-5)
        assert result.value == pytest.approx(math.log(best), abs=len(result.visits) / SCALE)
    return result


def test_greedy_first_hand_is_worse():
    """Giving hand 1 its best kingdom can leave hand 2 a poor one; the plan looks ahead."""
    kingdoms = {1: KC, 2: KH}
    chances = {Play(0, 1, KC): 0.9, Play(0, 2, KH): 0.8, Play(1, 1, KC): 0.9, Play(1, 2, KH): 0.1}
    result = check_optimal(2, kingdoms, chances, "perfect")
    assert result.kingdoms == {0: 2, 1: 1}  # greedy: {0: 1, 1: 2}, 0.09
    assert result.chance == pytest.approx(0.72)


def test_supporter_must_be_won_before_it_is_spent():
    """A visit spends only a supporter won by an earlier visit (§2.6, §4)."""
    kingdoms = {1: KC, 2: KH}
    chances = {
        Play(0, 1, KC): 0.3,
        Play(0, 1, KC, Option({KH})): 1.0,  # K♥ not won yet: never legal
        Play(0, 2, KH): 0.6,
        Play(1, 1, KC): 0.2,
        Play(1, 1, KC, Option({KH})): 0.9,
        Play(1, 2, KH): 0.6,
    }
    result = check_optimal(2, kingdoms, chances, "all_won")
    assert result.kingdoms == {0: 2, 1: 1}
    assert result.supporters == {0: frozenset(), 1: frozenset({KH})}
    assert result.chance == pytest.approx(0.54)  # the illegal plan would give 0.6


def test_perfect_spends_no_supporter():
    """A spent supporter scores 0, so a perfect tour spends none (§5)."""
    kingdoms = {1: KC, 2: KH}
    chances = {
        Play(0, 1, KC): 0.3,
        Play(0, 2, KH): 0.6,
        Play(1, 1, KC): 0.2,
        Play(1, 1, KC, Option({KH})): 0.9,
        Play(1, 2, KH): 0.6,
    }
    result = check_optimal(2, kingdoms, chances, "perfect")
    assert result.kingdoms == {0: 1, 1: 2}
    assert all(not s for s in result.supporters.values())
    assert result.chance == pytest.approx(0.18)


def test_supporter_is_spent_once():
    """Each supporter is spent at most once in the tour (§4)."""
    kingdoms = {1: KC, 2: KH, 3: KD}
    chances = {
        Play(0, 1, KC): 0.9,
        Play(1, 2, KH): 0.2,
        Play(1, 2, KH, Option({KC})): 0.8,
        Play(2, 3, KD): 0.3,
        Play(2, 3, KD, Option({KC})): 0.9,
    }
    result = check_optimal(3, kingdoms, chances, "all_won")
    assert result.chance == pytest.approx(0.9 * 0.8 * 0.3)
    assert result.supporters[1] == frozenset({KC})


def test_politics_swap_moves_both_rulers():
    """A swap plays this visit under the other ruler and leaves this ruler there (§4)."""
    kingdoms = {1: KC, 2: KH}
    chances = {
        Play(0, 1, KC): 0.1,
        Play(0, 1, KH, Option(swap=2)): 0.9,  # brings K♥ here, sends K♣ to kingdom 2
        Play(0, 2, KH): 0.2,
        Play(0, 2, KC, Option(swap=1)): 0.1,
        Play(1, 1, KC): 0.1,
        Play(1, 1, KH): 0.1,
        Play(1, 2, KC): 0.8,  # reachable only after the swap
        Play(1, 2, KH): 0.1,
    }
    result = check_optimal(2, kingdoms, chances, "perfect")
    assert result.swaps == {0: (1, 2)}
    assert result.visits[0].play.ruler == KH and result.visits[0].sent == KC
    assert result.visits[1].play == Play(1, 2, KC)
    assert result.chance == pytest.approx(0.72)


def test_politics_needs_another_suit():
    """Politics cannot swap in a ruler of the current trump's suit (§4)."""
    kingdoms = {1: KC, 2: QC}
    chances = {
        Play(0, 1, KC): 0.5,
        Play(0, 1, QC, Option(swap=2)): 1.0,  # same suit: never legal
        Play(1, 2, QC): 0.5,
        Play(1, 2, KC): 1.0,
    }
    result = check_optimal(2, kingdoms, chances, "perfect")
    assert result.swaps == {}
    assert result.chance == pytest.approx(0.25)


def test_zero_chance_is_never_chosen():
    """A chance of 0 makes its play impossible, even where it would fit best otherwise."""
    kingdoms = {1: KC, 2: KH}
    chances = {Play(0, 1, KC): 0.0, Play(0, 2, KH): 0.1, Play(1, 1, KC): 0.2, Play(1, 2, KH): 1.0}
    result = check_optimal(2, kingdoms, chances, "score")
    assert result.kingdoms == {0: 2, 1: 1}
    assert all(v.chance > 0 for v in result.visits)


def test_fewer_hands_than_kingdoms():
    """With fewer hands than kingdoms, each hand visits one kingdom and the rest wait."""
    kingdoms = {2: KC, 4: KD, 6: KH, 8: KS}  # the short tour's positions
    rng = random.Random(4)
    chances = {
        Play(t, p, r): round(rng.uniform(0.05, 1.0), 2)
        for t in range(2)
        for p, r in kingdoms.items()
    }
    result = check_optimal(2, kingdoms, chances, "perfect")
    assert len(result.visits) == 2
    assert len(set(result.kingdoms.values())) == 2


def test_score_and_perfect_differ():
    """The score objective favours a sure first visit; perfect favours both visits together."""
    kingdoms = {1: KC, 2: KH}
    chances = {Play(0, 1, KC): 0.9, Play(0, 2, KH): 0.5, Play(1, 2, KH): 0.1, Play(1, 1, KC): 0.3}
    perfect = check_optimal(2, kingdoms, chances, "perfect")
    score = check_optimal(2, kingdoms, chances, "score")
    assert perfect.kingdoms == {0: 2, 1: 1}  # 0.15 against 0.09
    assert score.kingdoms == {0: 1, 1: 2}  # surrogate 1.8 against 0.6
    assert score.expected_score == pytest.approx(2 * 0.9 + 2 * 0.09)
    assert score.value <= score.expected_score  # the surrogate is a lower bound


def test_expected_score_counts_spent_supporters_once_reached():
    """A supporter is lost when spent; a miss ends the tour with what it has (§5)."""
    assert expected_score([1.0, 1.0], [0, 0]) == 4
    assert expected_score([1.0, 1.0], [0, 1]) == 3
    assert expected_score([0.0, 1.0], [0, 1]) == 0  # the tour ends before the spend
    assert expected_score([0.5, 0.5], [0, 0]) == pytest.approx(2 * 0.5 + 2 * 0.25)


def random_instance(rng: random.Random, hand_count: int, size: int):
    """Random chances for every play with at most one supporter and one swap."""
    layout = [KC, QH, KS, KD][:size]
    positions = rng.sample(range(1, 9), size)
    kingdoms = dict(zip(positions, layout))
    chances = {}
    for t in range(hand_count):
        for p in positions:
            for r in layout:
                options = [NONE]
                options += [Option({s}) for s in layout if s != r]
                options += [Option(swap=m) for m in positions if m != p]
                options += [Option({KS}, swap=m) for m in positions if m != p and r != KS]
                for option in options:
                    chances[Play(t, p, r, option)] = rng.choice([0.0, rng.random()])
    return kingdoms, chances


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("objective", ["perfect", "all_won", "score"])
def test_matches_brute_force(seed, objective):
    """On random small instances the plan's value is the brute-force optimum."""
    rng = random.Random(seed)
    hand_count, size = rng.choice([(2, 3), (3, 3), (3, 4), (4, 3)])
    kingdoms, chances = random_instance(rng, hand_count, size)
    if brute_force(hand_count, kingdoms, chances, objective) is None:
        with pytest.raises(NoAssignmentError):
            assign(hands(hand_count), kingdoms, chances, objective)
    else:
        check_optimal(hand_count, kingdoms, chances, objective)


def test_deterministic():
    """Two solves of one instance give the same plan and values."""
    kingdoms, chances = random_instance(random.Random(11), 4, 4)
    first = assign(hands(4), kingdoms, chances, "score", seed=3)
    second = assign(hands(4), kingdoms, chances, "score", seed=3)
    assert first == second


def test_infeasible_raises_clear_error():
    """With no nonzero chance for a hand, the status is checked and named in the error."""
    kingdoms = {1: KC, 2: KH}
    chances = {Play(0, 1, KC): 0.5, Play(1, 2, KH): 0.0}
    with pytest.raises(NoAssignmentError, match="INFEASIBLE") as caught:
        assign(hands(2), kingdoms, chances)
    assert caught.value.status == "INFEASIBLE"


@pytest.mark.parametrize(
    ("play", "chance", "message"),
    [
        (Play(0, 1, KC), 1.5, "not a probability"),
        (Play(2, 1, KC), 0.5, "no hand 2"),
        (Play(0, 3, KC), 0.5, "kingdom 3 is not unvisited"),
        (Play(0, 1, KD), 0.5, "KD rules no unvisited kingdom"),
        (Play(0, 1, KH, Option(swap=1)), 0.5, "not another unvisited kingdom"),
        (Play(1, 1, KC, Option({KC})), 0.5, "another ruler"),
    ],
)
def test_bad_input_is_quoted(play, chance, message):
    """Input the model cannot take raises an error naming the play."""
    with pytest.raises(AssignmentInputError, match=message):
        assign(hands(2), {1: KC, 2: KH}, {play: chance})
