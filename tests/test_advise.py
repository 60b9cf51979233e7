"""`emissary advise`: each unvisited kingdom's chance under every ability set (docs/rules.md §7).

The exact solves run for real. Drawing abilities (Military, Commerce, all Jacks) are slow in the
pure-Python solver, so the hands here are one-card what-ifs: small trees, the same code paths.
"""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from advisor.advice_tables import advise_view
from advisor.tables import percent_text
from search.game.cards import KINGS, QUEENS, CardSet
from search.game.rules import IllegalActionError
from search.game.tour import TourConfig, tour_between_visits
from search.tours import exact_cells
from search.tours.advice import (
    BOUND_COLUMNS,
    COLUMNS,
    Chance,
    KingdomAdvice,
    VisitAdvice,
    advise_visit,
    column_abilities,
)
from search.tours.planning import TourValue
from search.visit.position import make_position
from search.visit.solve import solve_kingdom
from tests.conftest import SUIT_SYMBOLS, assert_one_line_error, fixed_work, run_in_process

KC, KD, KH, KS = KINGS
QC, QD, QH, QS = QUEENS
STANDARD = "K♣ Q♥ K♠ Q♦ K♥ Q♣ K♦ Q♠"

# Two kingdoms of one trump (K♣ and Q♣ share their Politics pool and so one solve), one more,
# five won; one unused supporter (Q♠) so that "all" differs from "jacks".
SHARED = ["K♣ Q♣ K♥ - - - - -", ["--used-supporters", "Q♥ K♠ Q♦ K♦"]]
# The short tour with kingdoms 2 and 4 won (given as a full list plus --visited).
SHORT = ["KC KD KH KS", ["--short", "--visited", "2,4", "--used-supporters", "KD"]]


def _advise_json(monkeypatch, capsys, hand: str, rulers: str, extra: list[str]) -> dict:
    args = ["advise", hand, "--rulers", rulers, *extra, "--time-limit", "600", "--json"]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(("rulers", "extra"), [SHARED, SHORT], ids=["shared-trump", "short"])
def test_advise_json_equals_solve_kingdom_for_every_kingdom_and_ability_set(
    monkeypatch, capsys, rulers, extra
) -> None:
    """advise --json: every chance is solve_kingdom's for that kingdom, ability set and pool."""
    data = _advise_json(monkeypatch, capsys, "8H", rulers, extra)
    short = "--short" in extra
    layout = [KC, KD, KH, KS] if short else [KC, QC, KH]
    unvisited = {k["position"]: k for k in data["kingdoms"]}
    assert len(unvisited) == (2 if short else 3)
    unused = [QS] if not short else [KS]
    hand = CardSet.parse("8H")
    for kingdom in data["kingdoms"]:
        position = kingdom["position"]
        ruler = layout[position - 1]
        assert kingdom["ruler"] == ruler.ascii() and kingdom["trump"] == ruler.suit.letter
        assert kingdom["target"] == TourConfig(short=short).target(position)
        pool = [
            layout[p - 1].suit for p in unvisited if p != position
        ]  # the other unvisited rulers
        for column in COLUMNS:
            jacks, supporters = column_abilities(column, unused)
            direct = solve_kingdom(
                make_position(hand, ruler.suit, kingdom["target"], jacks, supporters, pool)
            )
            assert not direct.estimate
            assert kingdom["chance"][column] == pytest.approx(direct.chance, abs=1e-12), column
            if column == "all":
                expected = {str(j): p for j, p in enumerate(direct.distribution)}
                assert kingdom["distribution"] == pytest.approx(expected, abs=1e-12)
        assert kingdom["estimates"] == {}


def test_kingdoms_of_one_trump_share_their_solves(monkeypatch, capsys) -> None:
    """advise: K♣ and Q♣ share one solve per ability set: 11 sets (the 7 columns and the 4
    bounding subsets) x 2 trumps = 22 solves."""
    data = _advise_json(monkeypatch, capsys, "8H", *SHARED)
    assert data["solves"] == 22 and data["estimates"] == 0


@pytest.mark.parametrize("objective", ["score", "perfect"])
def test_recommendation_is_the_best_tour_value(monkeypatch, capsys, objective) -> None:
    """advise: the recommended kingdom has the best tour value (with its interval), and the
    reason gives it beside this visit's chance with every ability."""
    data = _advise_json(
        monkeypatch, capsys, "8H", SHARED[0], [*SHARED[1], "--objective", objective]
    )
    best = max(data["kingdoms"], key=lambda k: k["tour_value"]["value"])
    recommendation = data["recommendation"]
    assert recommendation["position"] == best["position"]
    assert recommendation["tour_value"] == best["tour_value"]
    assert recommendation["chance"] == best["chance"]["all"]
    for kingdom in data["kingdoms"]:
        value = kingdom["tour_value"]
        assert value["objective"] == objective
        assert value["ci"][0] <= value["value"] <= value["ci"][1]
        assert value["spend"] in (None, "H", "S") and (
            objective == "score" or value["spend"] is None
        )
    name = "expected final score" if objective == "score" else "chance of a perfect tour"
    assert (
        name in recommendation["reason"] and "every Jack and supporter" in recommendation["reason"]
    )


def test_tour_value_weighs_the_rest_of_the_tour() -> None:
    """Deal 5's first hand wins kingdom 5 (target 5) a shade more often than kingdom 6
    (target 6), but a hand for six wins is rarer: the tour value sends it to kingdom 6."""
    from search.game.deal import Deal
    from search.tours.planning import TourPlanner

    deal = Deal(5)
    choices = TourPlanner().after_choice(deal.tour(), deal.hand(1))
    by_chance = max(choices, key=lambda p: choices[p][0])
    by_value = max(choices, key=lambda p: choices[p][1].value)
    assert (by_chance, by_value) == (5, 6)
    assert choices[6][1].low > choices[5][1].high  # not a coin flip: the intervals are apart


def test_advise_visit_reports_progress_to_the_end() -> None:
    """advise_visit: progress runs from 0 to the total, one step per kingdom and ability set."""
    tour = tour_between_visits([KC, None, None, KS], used=[KD, KH], config=TourConfig(short=True))
    steps = []
    advise_visit(tour, CardSet.parse("3H"), progress=lambda *step: steps.append(step))
    total = 2 * (len(COLUMNS) + len(BOUND_COLUMNS))
    assert [s[0] for s in steps] == list(range(total + 1))
    assert all(s[1] == total for s in steps)


def test_a_solve_past_the_time_limit_gives_flagged_estimates(monkeypatch, capsys) -> None:
    """advise --time-limit: a drawing solve past it becomes a Monte Carlo estimate, with its CI
    in JSON and '≈' in the table."""
    args = ["advise", "8D 2H", "--rulers", "K♣ - - - - - - -", "--time-limit", "0.000001"]
    args += ["--used-supporters", "Q♣ Q♥ K♠ Q♦ K♥ K♦ Q♠"]
    code, out, err = run_in_process(monkeypatch, capsys, [*args, "--json"])
    assert code == 0, err
    kingdom = json.loads(out)["kingdoms"][0]
    # All four Jacks search far past the first clock reading of either kernel: the cell is
    # the estimate or, where an exact subset chance beats it, that proven bound.
    assert {kingdom["kind"]["jacks"], kingdom["kind"]["all"]} <= {"estimate", "bound"}
    assert set(kingdom["estimates"]) == {c for c, k in kingdom["kind"].items() if k == "estimate"}
    # Against the exact chances (no time limit): a bound never above best play, an estimate's
    # interval never wholly above it (no policy beats best play), an exact cell equal to it.
    code, out, err = run_in_process(monkeypatch, capsys, [*args[:4], *args[6:], "--json"])
    assert code == 0, err
    exact = json.loads(out)["kingdoms"][0]
    assert set(exact["kind"].values()) == {"exact"}
    for column, kind in kingdom["kind"].items():
        chance, best = kingdom["chance"][column], exact["chance"][column]
        if kind == "exact":
            assert chance == pytest.approx(best, abs=1e-12), column
        elif kind == "bound":
            assert exact["chance"]["none"] - 1e-12 <= chance <= best + 1e-12, column
        else:
            estimate = kingdom["estimates"][column]
            assert estimate["playouts"] >= 1 and estimate["ci"][0] <= best + 1e-12, column
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 0, err
    assert ("≈" in out and "Monte Carlo" in out) or ("≥" in out and "lower bound" in out)


# The README's worked example (issue 16): kingdom 6 showed all Jacks below its own exact
# Politics column. A combined cell may be estimated, but never below an exact subset chance.
EXAMPLE = ("3C 3D 2H 3H 6H AS 7S 8S", "KC QD KS QS QC KH QH KD")


@pytest.mark.parametrize("seconds", ["2", "6"])
def test_combined_cells_are_never_below_an_exact_subset_cell(monkeypatch, capsys, seconds):
    """advise --json: the all-Jacks and all cells are at least every exact cell of a subset
    of their abilities in the same row, and each says whether it is exact, a bound or an
    estimate; an estimate keeps its interval and its proven floor."""
    hand, rulers = EXAMPLE
    args = ["advise", hand, "--rulers", rulers, "--time-limit", seconds, "--json"]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 0, err
    for kingdom in json.loads(out)["kingdoms"]:
        chance, kind = kingdom["chance"], kingdom["kind"]
        exact = [chance[c] for c in ("none", "H", "C", "S", "D") if kind[c] == "exact"]
        for column in ("jacks", "all"):
            assert chance[column] >= max(exact) - 1e-12, (kingdom["position"], column)
            if kind[column] == "estimate":
                estimate = kingdom["estimates"][column]
                assert estimate["floor"] <= chance[column]
                assert estimate["ci"][0] - 1e-12 <= chance[column] <= estimate["ci"][1] + 1e-12
        assert chance["all"] >= chance["jacks"] - 1e-12 or kind["jacks"] == "estimate"


# --- the table ---------------------------------------------------------------------------------


def _synthetic_advice() -> tuple[VisitAdvice, object]:
    """Eight kingdoms minus two won, with extreme and estimated chances (no solving)."""
    layout = [KC, QH, None, QD, KH, QC, None, QS]
    tour = tour_between_visits(layout, used=[KD])
    values = [0.0, 0.004, 0.5, 0.996, 1.0, 0.123456]
    kingdoms = []
    for row, position in enumerate(tour.unvisited):
        chances = tuple(
            Chance(values[(row + i) % len(values)], i >= 5, (0.0, 1.0), 200)
            for i in range(len(COLUMNS))
        )
        ruler = layout[position - 1]
        value = TourValue(10.0 - row / 3, 9.5 - row / 3, 10.5 - row / 3, "score")
        kingdoms.append(KingdomAdvice(position, ruler, position, chances, (0.5, 0.5), value))
    hand = CardSet.parse("AC 6C 3H 8H 2D 5D 4S 7S")
    return VisitAdvice(hand, tuple(kingdoms), kingdoms[3], 12, 4, 3.0), tour


@pytest.mark.parametrize("ascii", [False, True], ids=["symbols", "ascii"])
def test_advise_table_fits_80_columns_one_line_per_kingdom(ascii: bool) -> None:
    """advise: the table renders within 80 columns, each kingdom on one line."""
    advice, tour = _synthetic_advice()
    console = Console(width=80, record=True)
    console.print(advise_view(advice, tour, ascii))
    text = console.export_text()
    lines = text.splitlines()
    assert max(map(len, lines)) <= 80
    for kingdom in advice.kingdoms:
        ruler = kingdom.ruler.ascii() if ascii else str(kingdom.ruler)
        row = [
            line
            for line in lines
            if line.lstrip().startswith(f"{kingdom.position}") and ruler in line
        ]
        assert len(row) == 1, (ruler, text)
        assert row[0].count("%") == len(COLUMNS)
    assert "Visit kingdom 5" in text  # kingdoms[3] sits on position 5
    if ascii:
        assert text.isascii() and not any(s in text for s in SUIT_SYMBOLS)
        assert "~" in text and "*" in text  # estimates and best cells marked without colour
    else:
        assert "≈" in text


def test_percentages_never_round_to_certainty_or_nothing() -> None:
    """advise: 99.6% shows as '>99%' and 0.4% as '<1%'; only 0 and 1 show as 0% and 100%."""
    assert [percent_text(p) for p in (0.0, 0.004, 0.996, 1.0, 0.5)] == [
        "0%",
        "<1%",
        ">99%",
        "100%",
        "50%",
    ]
    assert percent_text(0.41, estimate=True) == "≈41%"
    # an estimate near 0 or 1 takes one decimal, never two marks (issue 18)
    assert [percent_text(p, estimate=True, ascii=True) for p in (0.997, 0.9999, 0.003, 0.0001)] == [
        "~99.7%",
        "~99.9%",
        "~0.3%",
        "~0.1%",
    ]


def test_advise_cli_ascii_prints_no_suit_symbols_within_80_columns(monkeypatch, capsys) -> None:
    """advise --ascii: letters for suits, every line within 80 columns."""
    monkeypatch.setenv("COLUMNS", "80")
    args = ["advise", "8H", "--rulers", SHARED[0], *SHARED[1], "--ascii"]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 0 and err == ""
    assert not any(symbol in out for symbol in SUIT_SYMBOLS)
    assert max(map(len, out.splitlines())) <= 80
    assert "KC" in out and "QC" in out and "KH" in out and "Visit kingdom" in out


def test_advise_symbols_by_default(monkeypatch, capsys) -> None:
    """advise: rulers print with suit symbols unless --ascii."""
    monkeypatch.setenv("COLUMNS", "80")
    args = ["advise", "8H", "--rulers", SHARED[0], *SHARED[1]]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 0 and err == ""
    assert "K♣" in out and "Q♣" in out and max(map(len, out.splitlines())) <= 80


# --- the tour state ---------------------------------------------------------------------------


def test_won_rulers_are_those_lying_on_no_kingdom() -> None:
    """§2.6: a won ruler leaves its kingdom as a supporter; unlisted ones default to unused."""
    tour = tour_between_visits([None, QH, KS, QD, KH, QC, None, QS], used=[KD])
    assert tour.visited == {1, 7} and tour.unused_supporters == (KC,)
    assert [s.ruler for s in tour.supporters if s.used] == [KD]


@pytest.mark.parametrize(
    ("layout", "used", "unused", "fragment"),
    [
        ([KC, QH, KS, QD, KH, QC, KD, QS], [KC], None, "lies on kingdom 1"),
        ([None, QH, KS, QD, KH, QC, KD, QS], [], [], "KC lies on no kingdom"),
        ([None, QH, KS, QD, KH, QC, KD, QS], [KC], [KC], "both"),
        ([None] * 8, [], None, "tour is over"),
        ([KC, KC, None, None, None, None, None, None], [], None, "only one kingdom"),
    ],
)
def test_inconsistent_tours_are_refused(layout, used, unused, fragment) -> None:
    """tour_between_visits: every ruler lies once or is a supporter, used or unused, never both."""
    with pytest.raises(IllegalActionError, match=fragment):
        tour_between_visits(layout, used=used, unused=unused)


# --- bad input -----------------------------------------------------------------------------------

R = STANDARD
MALFORMED = [
    (["advise", "AC", "--rulers", "KC QH"], 1, "expected 8 kingdoms"),
    (["advise", "AC", "--rulers", ""], 1, "no rulers"),
    (["advise", "AC", "--rulers", "KC KC - - - - - -"], 1, "two kingdoms"),
    (["advise", "AC", "--rulers", "AC QH KS QD KH QC KD QS"], 1, "'AC'"),
    (["advise", "AC", "--rulers", "JC QH KS QD KH QC KD QS"], 1, "'JC'"),
    (["advise", "AC", "--rulers", "KX QH KS QD KH QC KD QS"], 1, "'KX'"),
    (["advise", "AC", "--rulers", "- - - - - - - -"], 1, "tour is over"),
    (["advise", "AC", "--rulers", "KC QH - -", "--short"], 1, "only Kings"),
    (["advise", "AC", "--rulers", R, "--short"], 1, "expected 4 kingdoms"),
    (["advise", "AC", "--rulers", R, "--visited", "9"], 1, "not a kingdom"),
    (["advise", "AC", "--rulers", R, "--visited", "x"], 1, "'x'"),
    (["advise", "AC", "--rulers", R, "--visited", "1,1"], 1, "twice"),
    (["advise", "AC", "--rulers", R, "--visited", "1 2 3 4 5 6 7 8"], 1, "tour is over"),
    (["advise", "AC", "--rulers", "- " + R[3:], "--visited", "2"], 2, "--visited"),
    (["advise", "AC", "--rulers", R, "--supporters", "QH"], 1, "lies on kingdom 2"),
    (["advise", "AC", "--rulers", R, "--used-supporters", "KS"], 1, "lies on kingdom 3"),
    (["advise", "AC", "--rulers", R, "--visited", "1", "--supporters", "none"], 1, "no kingdom"),
    (
        [
            "advise",
            "AC",
            "--rulers",
            R,
            "--visited",
            "1",
            "--supporters",
            "KC",
            "--used-supporters",
            "KC",
        ],
        1,
        "both",
    ),
    (["advise", "AC", "--rulers", R, "--visited", "1", "--supporters", "KC KC"], 1, "twice"),
    (["advise", "AC", "--rulers", R, "--visited", "1", "--used-supporters", "K"], 1, "'K'"),
    (["advise", "AC 9C", "--rulers", R], 1, "9C"),
    (["advise", "", "--rulers", R], 1, "no cards"),
    (["advise", "AC 2C 3C 4C 5C 6C 7C 8C AH", "--rulers", R], 2, "8 cards"),
    (["advise", "AC", "--rulers", R, "--time-limit", "0"], 2, "positive"),
    (["advise", "AC", "--rulers", R, "--time-limit", "-3"], 2, "positive"),
    (["advise", "AC", "--rulers", R, "--time-limit", "soon"], 2, "--time-limit"),
    (["advise", "AC", "--rulers", R, "--time-limit", "nan"], 2, "positive"),
    (["advise", "AC"], 2, "--rulers"),
    (["advise", "--rulers", R], 2, "hand"),
    (["advise", "AC", "--rulers", R, "--kingdom", "1"], 2, "--kingdom"),
]


@pytest.mark.parametrize(
    ("args", "code", "fragment"), MALFORMED, ids=[" ".join(c[0]) for c in MALFORMED]
)
def test_bad_advise_input_ends_with_one_error_line(
    monkeypatch, capsys, args, code, fragment
) -> None:
    """advise: bad input exits 1 (our checks) or 2 (usage) with one line and no traceback."""
    got, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(got, out, err)
    assert got == code
    assert fragment in err
    assert out == ""


def test_work_not_the_clock_decides_the_table_so_it_repeats(monkeypatch) -> None:
    """Issue 18: advise_visit turns its time limit into fixed work (kernel lookups for the
    exact solves, playouts for the estimates; the clock only a backstop), so two runs give the
    same table. The work of a 3 s limit, the clock's backstop far off: it cuts nothing."""
    tour = tour_between_visits([KC, QD, KS, QS, QC, KH, QH, KD])
    hand = CardSet.parse("3C 3D 2H 3H 6H AS 7S 8S")
    limit = fixed_work(monkeypatch, 3.0)
    runs = [advise_visit(tour, hand, time_limit=limit) for _ in range(2)]
    assert [run.clock_cuts for run in runs] == [0, 0]

    def table(run) -> list:
        return [
            (k.position, [(c.value, c.kind, c.interval) for c in k.chances]) for k in run.kingdoms
        ]

    assert table(runs[0]) == table(runs[1])
    assert runs[0].recommended.position == runs[1].recommended.position


def test_the_two_lanes_of_exact_solves_give_the_same_table_side_by_side_or_in_turn(
    monkeypatch,
) -> None:
    """Issue 14: advise_visit solves Commerce's column in a second process beside
    the others; each lane's work is fixed, so one core (the lanes in turn) gives the same table.
    The work of a 2 s limit, the clock's backstop far off: it cuts nothing."""
    tour = tour_between_visits([KC, QD, KS, QS, QC, KH, QH, KD])
    hand = CardSet.parse("3C 3D 2H 3H 6H AS 7S 8S")
    limit = fixed_work(monkeypatch, 2.0)
    side_by_side = advise_visit(tour, hand, time_limit=limit)
    monkeypatch.setattr(exact_cells, "SIDE_BY_SIDE", False)
    in_turn = advise_visit(tour, hand, time_limit=limit)
    assert (side_by_side.clock_cuts, in_turn.clock_cuts) == (0, 0)

    def table(run) -> list:
        return [
            (k.position, [(c.value, c.kind, c.interval) for c in k.chances]) for k in run.kingdoms
        ]

    assert table(side_by_side) == table(in_turn)
    assert side_by_side.solves == in_turn.solves


def test_a_single_jacks_estimate_is_never_shown_below_the_exact_chance_with_no_ability() -> None:
    """A player may always leave a Jack unused, so a Jack's column is at least the column with
    none. Seen at the table (seed 8, --time-limit 0.5, a busy machine): Military's cells were
    estimates of ~0% beside an exact 56% with no ability. Such a cell is now that proven bound;
    so is one whose estimate says little (advise of deal 5 at --time-limit 2.5: ≈85% from 4
    playouts, 95% interval 1-100%, where the exact chance is 60%)."""
    from search.tours.advice import _row_chances
    from search.visit.position import KingdomResult

    def estimate(value: float, interval: tuple = (0.6, 0.8), playouts: int = 400) -> KingdomResult:
        return KingdomResult(
            value,
            None,
            (),
            None,
            (),
            (1.0,),
            0,
            0.0,
            estimate=True,
            interval=interval,
            playouts=playouts,
        )

    found = {(column, 2): 0.56 for column in ("none", "H", "S", "HS", "DHS")}
    found["C", 2] = estimate(0.0, (0.0, 0.1))  # below the exact chance with no ability
    found["D", 2] = estimate(0.7)  # above it: stays an estimate, with the bound as its floor
    found["H", 2] = estimate(0.85, (0.01, 1.0), 4)  # 4 playouts: an interval that says little
    found["S", 2] = estimate(0.7, playouts=40)  # too few playouts to head a cell (issue 38)
    found["jacks", 2] = found["all", 2] = estimate(0.5)
    chances = dict(zip(COLUMNS, _row_chances(found, 2)))
    assert (chances["C"].value, chances["C"].kind) == (0.56, "bound")
    assert (chances["D"].value, chances["D"].kind, chances["D"].floor) == (0.7, "estimate", 0.56)
    assert (chances["H"].value, chances["H"].kind) == (0.56, "bound")
    assert (chances["S"].value, chances["S"].kind) == (0.56, "bound")
    assert all(chances[c].value >= chances["none"].value for c in COLUMNS)


def test_a_tour_value_that_counts_on_a_supporter_says_so() -> None:
    """The reason line names a supporter the value counts on, and that its point is spent;
    a value that keeps every supporter adds nothing."""
    from advisor.advice_tables import spend_text
    from search.tours.planning import TourValue

    assert spend_text(TourValue(5.0, 4.9, 5.1, "score")) == ""
    assert (
        spend_text(TourValue(5.0, 4.9, 5.1, "score", spend=2))
        == ", counting on the ♥ supporter (Diplomacy; its point spent)"
    )
    assert "the S supporter (Politics" in spend_text(
        TourValue(5.0, 4.9, 5.1, "score", spend=3), ascii=True
    )


def _planned(tour, hand, chances: dict[int, float]):
    """Each kingdom as advise would hold it, valued by the planner with these chances."""
    from types import SimpleNamespace

    from search.tours.planning import advisor_planner

    planner = advisor_planner("score")
    values = planner.after_choice(tour, hand, chances)
    kingdoms = [SimpleNamespace(position=p, tour_value=values[p][1]) for p in tour.unvisited]
    best = max(kingdoms, key=lambda k: k.tour_value.value)
    return planner, kingdoms, best


def test_a_kingdom_an_open_cell_could_raise_past_the_recommended_one_is_too_close_to_call() -> None:
    """Issue 38: where the budget left a kingdom's planning cells to estimates, advise says it
    could still pass the recommended kingdom when the top of what is known of those cells
    (an estimate's 95% interval, else the top of the cell with every ability, else 1) would
    carry its tour value past the recommended one's; exact cells, or an estimate whose interval
    stays low, separate the kingdoms."""
    from search.tours.advice import PLANNING_COLUMNS, could_pass
    from search.visit.position import KingdomResult

    tour = tour_between_visits(
        [KINGS[3], QUEENS[2], QUEENS[3], QUEENS[1], KINGS[1], KINGS[0], KINGS[2], QUEENS[0]]
    )  # deal 5's layout: K♠ Q♥ Q♠ Q♦ K♦ K♣ K♥ Q♣
    hand = CardSet.parse("AC 8C 7D 8D 4S 6S 7S 8S")
    chances = {1: 0.64, 2: 0.65, 3: 0.96, 4: 0.97, 5: 0.99, 6: 0.99, 7: 0.63, 8: 0.1}
    planner, kingdoms, best = _planned(tour, hand, chances)
    exact = {(c, p): chance for p, chance in chances.items() for c in (*PLANNING_COLUMNS, "all")}
    assert could_pass(planner, tour, hand, exact, kingdoms, best) == ()

    def estimated(low: float, high: float, playouts: int = 400) -> KingdomResult:
        return KingdomResult(
            (low + high) / 2,
            None,
            (),
            None,
            (),
            (),
            0,
            0.0,
            estimate=True,
            interval=(low, high),
            playouts=playouts,
        )

    open_eight = {
        **exact,
        **{(c, 8): estimated(0.05, 0.15) for c in PLANNING_COLUMNS},
        ("all", 8): estimated(0.1, 0.2),
    }
    assert could_pass(planner, tour, hand, open_eight, kingdoms, best) == ()  # surely low
    high = {**open_eight, ("D", 8): estimated(0.9, 1.0)}
    assert _planned(tour, hand, {**chances, 8: 1.0})[2].position == 8  # a sure 8 would lead
    assert could_pass(planner, tour, hand, high, kingdoms, best) == (8,)
    # An estimate from few playouts says little: the cell may be up to what the cell with every
    # ability may be (no subset does better), here at most 0.2; and up to 1 where that says
    # little too.
    few = {**open_eight, ("D", 8): estimated(0.05, 0.15, playouts=4)}
    assert could_pass(planner, tour, hand, few, kingdoms, best) == ()
    none_known = {**few, ("all", 8): estimated(0.1, 0.2, playouts=4)}
    assert could_pass(planner, tour, hand, none_known, kingdoms, best) == (8,)


def test_the_table_says_which_kingdoms_are_too_close_to_call_and_what_decides() -> None:
    """Issue 38: a recommendation the budget cannot separate from another kingdom is named as
    too close to call, with the longer limit that decides."""
    from dataclasses import replace

    advice, tour = _synthetic_advice()
    advice = replace(advice, too_close=(6,), time_limit=3.0)
    console = Console(width=80, record=True)
    console.print(advise_view(advice, tour, ascii=True))
    flat = " ".join(console.export_text().split())
    assert "Kingdom 5 or 6: too close to call in 3 s" in flat and "--time-limit 15 decides" in flat


LONG_PICK = (3, 7)
"""Deal 3's first hand: ``emissary advise`` at ``--time-limit 60`` recommends kingdom 7
(examples/advise_stability.py, 2026-12-05)."""


def test_a_table_too_short_to_decide_names_the_long_budgets_kingdom_as_too_close(
    monkeypatch,
) -> None:
    """Issue 38, on a real hand: with the work of a 0.01 s table (the clock far off) deal 3's
    first hand recommends kingdom 5, where a 60 s table recommends kingdom 7; the short table
    must say that 7 is too close to call rather than name 5 alone."""
    from search.game import Deal

    deal = Deal(LONG_PICK[0], TourConfig())
    advice = advise_visit(deal.tour(), deal.hand(1), time_limit=fixed_work(monkeypatch, 0.01))
    assert advice.recommended.position != LONG_PICK[1]  # the case covered: the budgets differ
    assert LONG_PICK[1] in advice.too_close


def test_the_status_line_counts_what_the_clock_cut_in_the_tables_units() -> None:
    """Issue 38: 'the clock stopped 47' did not say 47 of what: solves and estimates are
    counted apart, estimates out of those the table ran."""
    from dataclasses import replace

    advice, tour = _synthetic_advice()  # 12 solves, 4 estimates
    advice = replace(advice, clock_cuts=7, estimate_cuts=3)
    console = Console(width=200, record=True)
    console.print(advise_view(advice, tour, ascii=True))
    text = console.export_text()
    assert "12 solves, 4 estimates" in text
    assert "the clock stopped 4 more solves and 3 of the 4 estimates before" in text


def test_two_jack_bounds_share_their_drawing_jacks_memo_and_wait_for_the_shown_cells() -> None:
    """♣♠ and ♦♠ (bound-only columns) are solved on ♣'s and ♦'s memos, after every single-Jack
    cell (a later tier), ♦♠ in Commerce's lane."""
    clubs, diamonds = (1, 0, 0, 0), (0, 1, 0, 0)
    assert exact_cells.memo_family((0, (1, 0, 0, 1), ())) == clubs
    assert exact_cells.memo_family((0, (0, 1, 0, 1), ())) == diamonds
    for counts in (clubs, diamonds, (0, 1, 1, 1), (1, 1, 1, 1), (0, 0, 1, 1)):
        assert exact_cells.memo_family((0, counts, ())) == counts
    tiers = {c: exact_cells.tier((0, c, ())) for c in (clubs, diamonds, (1, 0, 0, 1), (0, 1, 0, 1))}
    assert tiers == {clubs: 1, diamonds: 1, (1, 0, 0, 1): 2, (0, 1, 0, 1): 2}
    assert "DS" in exact_cells.SIDE_COLUMNS and "CS" not in exact_cells.SIDE_COLUMNS


def test_the_all_jacks_cell_is_at_least_a_two_jack_bound() -> None:
    """A ♣♠ chance above every single Jack's lifts the all-Jacks cell to it, as a bound."""
    from search.tours.advice import _row_chances
    from search.visit.position import KingdomResult

    found = {(column, 3): 0.2 for column in ("none", "H", "C", "S", "D", "HS", "DS")}
    found["CS", 3] = 0.63
    thin = KingdomResult(0.4, None, (), None, (), (1.0,), 0, 0.0, estimate=True, playouts=4)
    found["jacks", 3] = found["all", 3] = thin  # 4 playouts: it says little
    chances = dict(zip(COLUMNS, _row_chances(found, 3)))
    for column in ("jacks", "all"):
        assert (chances[column].value, chances[column].kind) == (0.63, "bound")


@pytest.mark.parametrize("side_by_side", [True, False])
def test_the_certainty_search_runs_while_commerces_lane_goes_on(monkeypatch, side_by_side) -> None:
    """advise's certainty search runs once this process's lane is done, while Commerce's lane
    (a second process) goes on with the certainty search's time and work on top of its own;
    with one core the lanes run in turn, the side lane with the same work, then the search."""
    from search.tours.advice import _plan_cells

    monkeypatch.setattr(exact_cells, "SIDE_BY_SIDE", side_by_side)
    tour = tour_between_visits([KC, QD, KS, QS, QC, KH, QH, KD])
    plan = _plan_cells(tour, CardSet.parse("3C 3D 2H 3H 6H AS 7S 8S"))
    cells = [cell for cell in plan.cells if cell[0] in ("none", "D")]
    seen = []

    def certainty(found: dict) -> dict:
        seen.append(sorted({column for column, _ in found}))
        return {("jacks", 1): 1.0}

    def solve(extra: float) -> dict:
        meanwhile = exact_cells.Meanwhile(run=certainty, end=None, work=extra)
        found, *_ = exact_cells.solve_cells(
            cells, plan.states, plan.keys, None, 1_000, meanwhile=meanwhile
        )
        return found

    short = solve(0.0)  # 900 lookups: Commerce's column cannot finish
    assert not any(column == "D" for column, _ in short) and short["jacks", 1] == 1.0
    roomy = solve(1e9)  # with the certainty search's work on top, it does
    assert all(cell in roomy for cell in cells) and roomy["jacks", 1] == 1.0
    assert seen[1] == (["none"] if side_by_side else ["D", "none"])


def test_commerces_memo_starts_big_and_finds_the_same_chances(monkeypatch) -> None:
    """Commerce's column memo starts at HAND_MEMO_BITS slots (exact_cells.BIG_MEMOS); a memo's
    size never changes a value, only how soon it is found."""
    from search.tours.advice import _plan_cells

    assert exact_cells.memo_family((0, (0, 1, 0, 0), ())) in exact_cells.BIG_MEMOS
    assert exact_cells.memo_family((0, (1, 0, 0, 0), ())) not in exact_cells.BIG_MEMOS
    tour = tour_between_visits([KC, QD, KS, QS, QC, KH, QH, KD])
    plan = _plan_cells(tour, CardSet.parse("3C 3D 2H 3H 6H AS 7S 8S"))
    cells = [cell for cell in plan.cells if cell[0] == "D" and cell[1] in (1, 5)]  # ♣ K and Q
    big, _ = exact_cells.exact_lane(cells, plan.states, plan.keys, None, None)
    monkeypatch.setattr(exact_cells, "BIG_MEMOS", ())
    small, _ = exact_cells.exact_lane(cells, plan.states, plan.keys, None, None)
    assert set(big) == set(cells) and big == small
