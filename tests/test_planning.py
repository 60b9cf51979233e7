"""Tour planning (search/planning.py) and batches of tours (search/batch.py), docs/rules.md §5, §7."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from search.game.cards import CARDS, KINGS, QUEENS, CardSet, Suit
from search.game.deal import Deal, Stream, derive_seed
from search.game.rules import UseAbility, apply_action, apply_chance, legal_actions
from search.game.tour import TourConfig, TourState, finish_visit, start_visit, tour_between_visits
from search.tours.batch import CHUNK_TOURS, BatchError, decoded_visits, run_batch
from search.tours.planning import (
    PLANNING_SETS,
    QUICK_SETS,
    WIN_POINTS,
    PlanningTable,
    TourPlanner,
    shipped_uplift,
)
from search.tours.planning_policy import PlanningPolicy
from search.visit.position import make_position
from search.visit.solve import solve_kingdom
from tests.conftest import assert_one_line_error, run_in_process

SWEEP = Path(__file__).resolve().parents[1] / "sweeps" / "none-summary.json"
NO_JACKS = (0, 0, 0, 0)


def _exact_means() -> dict[int, float]:
    """The exact mean chance of each target over all C(32,8) hands, no ability: the
    committed summary of the full sweep (README, *Exhaustive sweep*)."""
    data = json.loads(SWEEP.read_text())
    return {row["target"]: row["mean"] for row in data["results"] if row["abilities"] == "none"}


@pytest.mark.parametrize("position", [1, 2, 3, 4])
def test_tour_value_of_a_last_kingdom_holds_the_exact_value_in_its_interval(position: int) -> None:
    """Short tour, one kingdom left, no ability: the tour value is 2 points times the mean
    chance over all hands. The estimate from 256 sampled hands carries a 95% bootstrap
    interval that holds the exact value from the exhaustive sweep."""
    layout = [None] * 4
    layout[position - 1] = KINGS[position % 4]
    won = [k for k in KINGS if k not in layout]
    tour = tour_between_visits(layout, used=[], unused=won, config=TourConfig(short=True))
    planner = TourPlanner(PlanningTable(hands=256, seed=position, sets=(NO_JACKS,)))
    value = planner.value(planner.kingdoms_of(tour), score=tour.score)
    exact = tour.score + WIN_POINTS * _exact_means()[tour.config.target(position)]
    assert value.low <= exact <= value.high
    assert value.high - value.low < 0.2  # the interval is informative, not a blanket


def test_the_value_is_the_dynamic_programme_over_sampled_hands() -> None:
    """V of two kingdoms, written out from the table: each hand takes the better of 'a then
    b' and 'b then a'; the perfect objective multiplies chances."""
    table = PlanningTable(hands=64, seed=3, sets=QUICK_SETS)
    a, b = (int(Suit.CLUBS), 2), (int(Suit.HEARTS), 5)
    ca = table.chances(a[0], frozenset({b[0]}))[:, a[1]]
    cb = table.chances(b[0], frozenset({a[0]}))[:, b[1]]
    va = WIN_POINTS * table.chances(a[0], frozenset())[:, a[1]].mean()
    vb = WIN_POINTS * table.chances(b[0], frozenset())[:, b[1]].mean()
    expected = np.maximum(ca * (WIN_POINTS + vb), cb * (WIN_POINTS + va)).mean()
    assert TourPlanner(table).value((a, b)).value == pytest.approx(expected, abs=1e-12)
    pa, pb = (
        table.chances(a[0], frozenset())[:, a[1]].mean(),
        table.chances(b[0], frozenset())[:, b[1]].mean(),
    )
    perfect = np.maximum(ca * pb, cb * pa).mean()
    assert TourPlanner(table, "perfect").value((a, b)).value == pytest.approx(perfect, abs=1e-12)


def test_a_choice_is_valued_with_the_best_exact_chance_of_the_planning_sets() -> None:
    """after_choice: each kingdom's chance is the best of the exact solves with Diplomacy and
    Politics (the other unvisited rulers' suits), Commerce alone and Military alone, a proven
    lower bound on the chance with every Jack; its tour value adds what the rest is worth."""
    deal = Deal(5)
    tour, hand = deal.tour(), deal.hand(1)
    planner = TourPlanner(PlanningTable(hands=2, seed=1))
    choices = planner.after_choice(tour, hand)
    sets = {
        (0, 0, 1, 1): (Suit.HEARTS, Suit.SPADES),
        (0, 1, 0, 0): (Suit.DIAMONDS,),
        (1, 0, 0, 0): (Suit.CLUBS,),
    }
    assert set(sets) == set(PLANNING_SETS)
    for position in (1, 4, 8):
        ruler = tour.rulers[position - 1]
        pool = [r.suit for i, r in enumerate(tour.rulers, 1) if i != position]
        exact = max(
            solve_kingdom(make_position(hand, ruler.suit, position, jacks=jacks, pool=pool)).chance
            for jacks in sets.values()
        )
        chance, value = choices[position]
        assert chance == pytest.approx(exact, abs=1e-9)
        assert value.low <= value.value <= value.high
        assert value.value <= chance * (WIN_POINTS + 14) + 1e-9
    quick = TourPlanner(PlanningTable(hands=2, seed=1, sets=QUICK_SETS)).after_choice(tour, hand)
    assert all(
        quick[p][0] <= choices[p][0] + 1e-12 for p in tour.unvisited
    )  # more Jacks, never less
    known = planner.after_choice(tour, hand, {1: 0.25})
    assert known[1][0] == 0.25 and known[4] == choices[4]


def _short_tour_with_supporters() -> TourState:
    """A short tour with kingdoms 2 (K♣, target 4) and 3 (K♦, target 6) left, the K♥ and K♠
    won and unused."""
    clubs, diamonds, hearts, spades = KINGS
    return tour_between_visits(
        [None, clubs, diamonds, None],
        used=[],
        unused=[hearts, spades],
        config=TourConfig(short=True),
    )


def test_a_choice_may_count_on_a_supporter_at_the_cost_of_its_point() -> None:
    """Beside each kingdom's plain value, after_choice weighs counting on an unused ♥ or ♠
    supporter: its chance is the exact Diplomacy-and-Politics chance with the supporter
    beside the Jacks, its value that chance times (2 + the rest of the tour) less the point,
    and a kingdom takes the better of them, naming the supporter (R4 off, §5). The perfect
    objective never counts on one: a point spent rules a perfect tour out."""
    tour = _short_tour_with_supporters()
    table = PlanningTable(hands=4, seed=1, sets=QUICK_SETS)
    planner, plain = TourPlanner(table, supporter_options=(2, 3)), TourPlanner(table)
    kingdoms = planner.kingdoms_of(tour)
    for index in range(3):
        hand = CardSet(Stream(5, "supporters", index).shuffle(CARDS)[:8])
        choices, bases = planner.after_choice(tour, hand), plain.after_choice(tour, hand)
        for rank, position in enumerate(tour.unvisited):
            ruler, target = tour.rulers[position - 1], tour.config.target(position)
            pool = [r.suit for p, r in enumerate(tour.rulers, 1) if r is not None and p != position]
            rest = plain.value(kingdoms[:rank] + kingdoms[rank + 1 :]).value
            options = {None: bases[position][1].value}
            for suit in (Suit.HEARTS, Suit.SPADES):
                exact = solve_kingdom(
                    make_position(
                        hand,
                        ruler.suit,
                        target,
                        jacks=(Suit.HEARTS, Suit.SPADES),
                        supporters=(suit,),
                        pool=pool,
                    )
                ).chance
                chance, value = planner.supporter_option(tour, hand, position, int(suit))
                assert chance == pytest.approx(exact, abs=1e-9)
                assert value.value == pytest.approx(
                    tour.score + exact * (WIN_POINTS + rest) - 1, abs=1e-9
                )
                assert value.spend == int(suit) and value.low <= value.value <= value.high
                options[int(suit)] = value.value
            best = max(options.values())
            assert choices[position][1].value == pytest.approx(best, abs=1e-12)
            assert options[choices[position][1].spend] == best
    perfect = TourPlanner(table, "perfect", supporter_options=(2, 3)).after_choice(tour, hand)
    assert all(value.spend is None for _, value in perfect.values())


def test_a_visit_that_counts_on_a_supporter_turns_its_jack_first() -> None:
    """The advisor's play of a visit that counts on the ♥ supporter: the kernel state holds
    two Diplomacy uses while both are up, every move is legal through the checked engine, and
    the supporter is turned only after the Jack (a Jack is free, §5)."""
    from search.tours.planning_policy import _jack_state

    tour = _short_tour_with_supporters()
    policy = PlanningPolicy(TourPlanner(PlanningTable(hands=4, seed=1, sets=QUICK_SETS)))
    both = 0
    for index in range(8):
        deal = Deal(derive_seed(12, index), TourConfig(short=True))
        hand = CardSet(Stream(12, "hand", index).shuffle(CARDS)[:8])
        visit = start_visit(
            tour, hand, policy.choose_kingdom(tour, hand, Stream(12, "policy", index))
        )
        policy._spend = int(Suit.HEARTS)
        assert _jack_state(visit, policy._spend)[4] == (1, 1, 2, 1)
        assert _jack_state(visit)[4] == (1, 1, 1, 1)
        dealer, hearts = deal.dealer(1), []
        while not visit.over:
            if visit.is_chance:
                visit = apply_chance(visit, dealer.next_card(visit))
                continue
            action = policy.choose_action(visit, legal_actions(visit), Stream(12, "policy", index))
            assert action in legal_actions(visit)
            if isinstance(action, UseAbility) and action.suit is Suit.HEARTS:
                hearts.append(action.source)
            visit = apply_action(visit, action)
        assert hearts in ([], [None], [None, KINGS[2]])
        both += len(hearts) == 2
    assert both  # the supporter's turn is played too (hand 6)


def test_pruning_skips_drawing_solves_but_keeps_the_best_kingdom_and_its_value() -> None:
    """after_choice(prune=True), as the advisor policy chooses: the drawing Jacks' solves are
    skipped where even a sure win could not beat the best value known, so the best kingdom,
    its chance and its value are those of the full pass; every other kingdom's value is a
    lower bound on its full one."""
    planner = TourPlanner(PlanningTable(hands=2, seed=1), uplift=shipped_uplift())
    skipped = 0
    rulers = [*KINGS, *QUEENS]
    for index in range(3):  # tours part-way: 1-8 kingdoms left, the others won
        rng = Stream(78, "state", index)
        layout = list(rng.shuffle(rulers))
        for won in rng.shuffle(list(range(8)))[: 7 - rng.below(8)]:
            layout[won] = None
        tour = tour_between_visits(layout, used=[], unused=[r for r in rulers if r not in layout])
        hand = CardSet(Stream(78, "hand", index).shuffle(CARDS)[:8])
        solves = []
        for prune in (False, True):
            planner.table.hand_chances.cache_clear()  # count the hand's solves afresh
            choices = planner.after_choice(tour, hand, prune=prune)
            solves.append(planner.table.hand_chances.cache_info().misses)
        full, pruned = planner.after_choice(tour, hand), choices
        skipped += solves[0] - solves[1]
        best = max(tour.unvisited, key=lambda p: (full[p][1].value, -p))
        assert best == max(tour.unvisited, key=lambda p: (pruned[p][1].value, -p))
        assert pruned[best] == full[best]
        for position in tour.unvisited:
            assert pruned[position][1].value <= full[position][1].value + 1e-12
            skipped += pruned[position][0] < full[position][0]
    assert skipped  # it does skip some


def test_the_advise_table_prices_the_current_hand_with_the_planning_sets() -> None:
    """advise takes the hand's planning chance from its own exact cells: its columns are the
    planning sets."""
    from search.tours.advice import PLANNING_COLUMNS, column_abilities

    columns = {tuple(int(s in column_abilities(c, ())[0]) for s in Suit) for c in PLANNING_COLUMNS}
    assert columns == set(PLANNING_SETS)


def test_the_advisor_plays_only_legal_moves() -> None:
    """Three seeded tours through the checked rules engine: every choice is legal."""
    policy = PlanningPolicy(TourPlanner(PlanningTable(hands=16, seed=2, sets=QUICK_SETS)))
    for index in range(3):
        deal = Deal(derive_seed(11, index), TourConfig(short=True))
        rng = Stream(11, "policy", index)
        tour = deal.tour()
        while not tour.over:
            number = tour.visits + 1
            hand = deal.hand(number)
            visit = start_visit(tour, hand, policy.choose_kingdom(tour, hand, rng))
            dealer = deal.dealer(number)
            while not visit.over:
                if visit.is_chance:
                    visit = apply_chance(visit, dealer.next_card(visit))
                else:
                    action = policy.choose_action(visit, legal_actions(visit), rng)
                    assert action in legal_actions(visit)
                    visit = apply_action(visit, action)
            tour = finish_visit(tour, visit)


def test_the_advisor_beats_greedy_on_short_tours() -> None:
    """40 seeded short tours each: the advisor's mean score (its quick rule-of-thumb play,
    advisor-rule) is above greedy's, the 95% intervals apart (the published runs are in
    README)."""
    advisor, greedy = run_batch(["advisor-rule", "greedy"], 40, 7, TourConfig(short=True))
    assert advisor.mean_score[1] > greedy.mean_score[2]


def test_a_batch_resumes_from_its_checkpoint_without_losing_or_repeating_a_tour(
    tmp_path: Path,
) -> None:
    """A checkpoint cut back to its first chunk (as a kill after one chunk leaves it) resumes
    to the same result as a batch run whole, in one process or two."""
    tours = 2 * CHUNK_TOURS + 5
    whole = run_batch(["random", "greedy"], tours, 3, TourConfig())
    path = tmp_path / "batch.json"
    run_batch(["random", "greedy"], tours, 3, TourConfig(), checkpoint=path)
    data = json.loads(path.read_text())
    first = min(data["chunks"])
    data["chunks"] = {first: data["chunks"][first]}
    path.write_text(json.dumps(data))
    seen = []
    resumed = run_batch(
        ["random", "greedy"],
        tours,
        3,
        TourConfig(),
        checkpoint=path,
        resume=True,
        progress=lambda done, total: seen.append(done),
    )
    assert resumed == whole and seen[0] == CHUNK_TOURS and seen[-1] == 2 * tours
    assert run_batch(["random", "greedy"], tours, 3, TourConfig(), workers=2) == whole


def test_a_checkpoint_of_another_batch_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "batch.json"
    run_batch(["random"], 5, 3, TourConfig(), checkpoint=path)
    with pytest.raises(BatchError, match="already exists"):
        run_batch(["random"], 5, 3, TourConfig(), checkpoint=path)
    with pytest.raises(BatchError, match="different tours"):
        run_batch(["random"], 6, 3, TourConfig(), checkpoint=path, resume=True)
    path.write_text("{not json")
    with pytest.raises(BatchError, match="batch.json: not valid JSON"):
        run_batch(["random"], 5, 3, TourConfig(), checkpoint=path, resume=True)


def test_simulate_several_policies_side_by_side_with_a_plot(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    """simulate --policy random,greedy --plot: one table of both, JSON for each, a PNG."""
    plot = tmp_path / "scores.png"
    args = ["simulate", "--tours", "30", "--policy", "random,greedy", "--plot", str(plot)]
    code, out, err = run_in_process(monkeypatch, capsys, [*args, "--json"])
    assert code == 0, err
    data = json.loads(out)
    assert [p["policy"] for p in data["policies"]] == ["random", "greedy"]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 0 and "random" in out and "greedy" in out and "Tours by score" in out


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--policy", "greedy,nobody"], "nobody"),
        (["--policy", "greedy,greedy"], "once"),
        (["--policy", ","], "once"),
        (["--workers", "0"], "worker"),
        (["--resume"], "--checkpoint"),
        (["--plot", "scores.jpg"], "PNG"),
        (["--plot", "/no/such/folder/scores.png"], "folder"),
    ],
)
def test_bad_simulate_options_end_with_one_error_line(monkeypatch, capsys, extra, fragment) -> None:
    code, out, err = run_in_process(monkeypatch, capsys, ["simulate", "--tours", "3", *extra])
    assert_one_line_error(code, out, err)
    assert fragment in err


def test_resuming_another_batch_ends_with_one_error_line(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    path = tmp_path / "batch.json"
    base = ["simulate", "--tours", "3", "--policy", "random", "--checkpoint", str(path)]
    assert run_in_process(monkeypatch, capsys, base)[0] == 0
    assert_one_line_error(*run_in_process(monkeypatch, capsys, base))
    code, out, err = run_in_process(monkeypatch, capsys, [*base[:2], "4", *base[3:], "--resume"])
    assert_one_line_error(code, out, err)
    assert "another batch" in err


def test_a_batch_records_each_kingdoms_hit_rate_and_the_visit_order(tmp_path: Path) -> None:
    """Issue 17: every tour's visits are kept, (kingdom, hit, the planning chance it was chosen
    by) in order, through a checkpoint and a resume; every visit but a tour's last is a hit (a
    miss ends the tour, §2.6); the per-kingdom counts add up; a checkpoint saved before visits
    were recorded still resumes, without them."""
    tours = CHUNK_TOURS + 5
    path = tmp_path / "batch.json"
    (whole,) = run_batch(["advisor-rule"], tours, 3, TourConfig(short=True), checkpoint=path)
    assert len(whole.visits) == tours
    for tour in whole.visits:
        assert tour and all(hit for _, hit in tour[:-1])
        assert len({k for k, _ in tour}) == len(tour)
    rates = whole.kingdom_rates()
    assert sum(n for n, *_ in rates) == sum(map(len, whole.visits))
    assert all(low <= rate <= high for n, _, rate, low, high in rates if n)
    order = whole.visit_order()
    assert [sum(row[0] for row in order)] == [tours]  # every tour has a first visit
    # advisor-rule never spends a supporter: a tour scores 2 a kingdom won (pledge and supporter)
    by_hits = [0] * len(whole.scores)
    for tour in whole.visits:
        by_hits[2 * sum(hit for _, hit in tour)] += 1
    assert tuple(by_hits) == whole.scores
    data = json.loads(path.read_text())
    saved = [
        visit
        for tours in data["visits"].values()
        for tour in tours
        for visit in decoded_visits(tour)
    ]
    assert saved and all(
        chance is not None and 0 <= chance <= 1 for _, _, chance in saved
    )  # chosen by
    first = min(data["chunks"])
    data["chunks"] = {first: data["chunks"][first]}  # a kill after the first chunk
    path.write_text(json.dumps(data))
    (resumed,) = run_batch(
        ["advisor-rule"], tours, 3, TourConfig(short=True), checkpoint=path, resume=True
    )
    assert resumed == whole
    del data["visits"]  # as an older version saved it
    path.write_text(json.dumps(data))
    (older,) = run_batch(
        ["advisor-rule"], tours, 3, TourConfig(short=True), checkpoint=path, resume=True
    )
    assert older.scores == whole.scores and older.visits is None
    assert older.to_json()["kingdoms"] is None


def test_an_uplift_calibrates_the_chances_and_widens_the_interval_by_its_error() -> None:
    """Issue 17: the planner may take a calibration of its chances against a policy's play,
    chance = c + u (1 - c) by target. u = 0 changes nothing; u = 1 makes every visit a win (a
    short tour then scores 8); a fit whose resamples spread widens the value's interval."""
    from search.tours.planning import BOOTSTRAP, Uplift

    tour = Deal(5, TourConfig(short=True)).tour()
    plain = TourPlanner(sets=QUICK_SETS)
    kingdoms = plain.kingdoms_of(tour)
    base = plain.value(kingdoms)
    none = TourPlanner(sets=QUICK_SETS, uplift=Uplift({t: (0.0,) for t in (2, 4, 6, 8)}))
    assert none.value(kingdoms) == base
    sure = TourPlanner(sets=QUICK_SETS, uplift=Uplift({t: (1.0,) for t in (2, 4, 6, 8)}))
    assert sure.value(kingdoms).value == pytest.approx(8.0)
    spread = tuple([0.2] + [0.1 + 0.2 * (i % 2) for i in range(BOOTSTRAP)])
    fitted = TourPlanner(sets=QUICK_SETS, uplift=Uplift({t: spread for t in (2, 4, 6, 8)})).value(
        kingdoms
    )
    assert fitted.value > base.value
    assert fitted.high - fitted.low > base.high - base.low


def test_the_advisor_plans_with_the_shipped_uplift_of_every_target() -> None:
    """Issue 17: ``advisor`` (and advise, the coach) plans with the full model calibrated
    against the advisor's play (search/data/uplift-advisor.json): a fit for each target 1-8
    with its 40 resamples, every share in [0, 1]; it values a fresh tour above the
    uncalibrated model, which ``advisor-uncalibrated`` keeps."""
    from search.tours.planning import BOOTSTRAP, UPLIFT_FILE, Uplift, advisor_planner
    from search.tours.registry import make_policy

    uplift = Uplift.load(UPLIFT_FILE)
    assert sorted(uplift.shares) == list(range(1, 9))
    assert all(
        len(s) == BOOTSTRAP + 1 and all(0 <= u <= 1 for u in s) for s in uplift.shares.values()
    )
    policy = make_policy("advisor")
    assert policy.name == "advisor" and policy.planner.uplift == uplift
    assert advisor_planner("perfect").uplift == uplift
    assert make_policy("advisor-uncalibrated").planner.uplift is None
    tour = Deal(5, TourConfig()).tour()
    plain = TourPlanner()
    kingdoms = plain.kingdoms_of(tour)
    assert policy.planner.value(kingdoms).value > plain.value(kingdoms).value + 1


def test_a_checkpoint_summary_counts_the_first_tours_it_holds(tmp_path: Path) -> None:
    """examples/checkpoint_summary.py on a checkpoint whose second chunk is missing (a
    stopped run, chunks finished out of order): the figures of tours 0-24 alone, as a batch
    of those 25 tours gives them; a file that is no checkpoint exits 2 with one line."""
    import subprocess
    import sys

    path = tmp_path / "batch.json"
    run_batch(["greedy"], 3 * CHUNK_TOURS, 4, TourConfig(short=True), checkpoint=path)
    data = json.loads(path.read_text())
    second = sorted(data["chunks"], key=lambda key: int(key.rpartition(":")[2].partition("-")[0]))[
        1
    ]
    del data["chunks"][second], data["visits"][second]
    path.write_text(json.dumps(data))
    script = Path(__file__).resolve().parents[1] / "examples" / "checkpoint_summary.py"
    done = subprocess.run(
        [sys.executable, str(script), str(path), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    summary = json.loads(done.stdout)["greedy"]
    first = run_batch(["greedy"], CHUNK_TOURS, 4, TourConfig(short=True))[0].to_json()
    assert summary["tours"] == CHUNK_TOURS
    assert summary["mean_score"] == first["mean_score"] and summary["kingdoms"] == first["kingdoms"]
    (tmp_path / "bad.json").write_text("{}")
    bad = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "bad.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
