"""One budget a search (issue 39): its shares of the time, the one place a solver's deadline is
set, the solvers it owns, and the forked workers that take it through the fork's memory."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from search.game import CardSet, Suit
from search.infra import WorkerDied, fork_map
from search.visit import Budget, KingdomSolver, Memos, Search, clock_stops, make_position
from search.visit.budget import EXACT_FRACTIONS, MARGINS

ROOT = Path(__file__).resolve().parents[1]


def test_the_shares_are_named_in_the_budget_module_only() -> None:
    """The done-when of issue 39: no other module names an exact share or sets a deadline."""
    pattern = re.compile(r"EXACT_SHARE|\.deadline =")
    found = [
        path.relative_to(ROOT).as_posix()
        for package in ("search", "advisor")
        for path in sorted((ROOT / package).rglob("*.py"))
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert found == ["search/visit/budget.py"]


def test_each_search_shares_its_time_as_stated() -> None:
    budget = Budget(10.0, Search.TABLE, started=100.0)
    assert budget.exact_end() == pytest.approx(100.0 + 10.0 * 0.9 * 0.95)
    assert budget.exact_work() == pytest.approx(0.9 * 0.95 * budget.work(1.0))
    assert budget.search_end() == pytest.approx(109.5)
    assert budget.estimate_seconds() == pytest.approx(10.0 * (0.95 - 0.9 * 0.95))
    # the certainty share after the exact one, never past the searches' end
    assert budget.after_certainty_end() == pytest.approx(109.5)
    short = Budget(10.0, Search.RANKING, started=100.0)
    assert short.after_certainty_end() == pytest.approx(100.0 + 10.0 * (0.5 * 0.95 + 0.1))
    assert Budget().after_certainty_end() is None
    ranking = Budget(4.0, Search.RANKING, started=0.0)
    hopeless = Budget(4.0, Search.HOPELESS, started=0.0)
    assert ranking.exact_end() == pytest.approx(4.0 * 0.5 * 0.95)
    assert hopeless.exact_end() == pytest.approx(4.0 * 0.15 * 0.95)
    solve = Budget(2.0, Search.SOLVE, started=0.0)
    assert solve.exact_end() == pytest.approx(1.0) and solve.search_end() == pytest.approx(2.0)
    assert set(EXACT_FRACTIONS) == set(MARGINS) == set(Search)


def test_a_commands_own_end_cuts_every_share_alike() -> None:
    """A command whose start-up took 1 s of its 10 s ends 1 s sooner at every share."""
    budget = Budget(10.0, Search.TABLE, started=101.0, end_by=110.0)
    assert budget.search_end() == pytest.approx(110.0 - 0.05 * 10.0)
    assert budget.exact_end() == pytest.approx(110.0 - (1 - 0.9 * 0.95) * 10.0)
    assert Budget(10.0, started=100.0, end_by=200.0).end() == pytest.approx(110.0)


def test_no_limit_means_no_clock_and_no_work_limit() -> None:
    budget = Budget()
    assert budget.exact
    assert budget.exact_end() is None and budget.exact_work() is None
    assert budget.left() is None and budget.search_left() is None


def test_clock_stops_sets_each_deadline_for_the_block_only() -> None:
    first, second = KingdomSolver(), KingdomSolver()
    second.deadline = 5.0
    with clock_stops(1.0, first, second):
        assert (first.deadline, second.deadline) == (1.0, 1.0)
    assert (first.deadline, second.deadline) == (None, 5.0)
    with pytest.raises(ZeroDivisionError), clock_stops(2.0, first):
        raise ZeroDivisionError
    assert first.deadline is None


def test_a_coached_games_steps_share_their_memos() -> None:
    memos = Memos()
    first = Budget(5.0, Search.TABLE, memos=memos)
    later = first.step(2.0, Search.RANKING)
    assert later.memos is memos and later.limit == 2.0 and later.search is Search.RANKING
    assert later.started >= first.started
    assert memos.shared() is memos.shared()
    assert memos.for_root(Suit.CLUBS, ()) is memos.shared()
    root = KingdomSolver()
    with memos.sharing_roots({(Suit.CLUBS, ()): root}):
        assert memos.for_root(Suit.CLUBS, ()) is root
    assert memos.for_root(Suit.CLUBS, ()) is memos.shared()


def test_no_module_global_holds_a_solver_after_advice() -> None:
    """The solvers of a ranking and a table live in their budget, not in module globals."""
    from search.game.cards import KINGS, QUEENS
    from search.game.tour import tour_between_visits
    from search.tours import advise_visit, rank_moves, visit_position

    kc, kd, kh, ks = KINGS
    qc, qd, qh, qs = QUEENS
    tour = tour_between_visits([kc, qd, ks, qs, qc, kh, qh, kd])
    budget = Budget(1.0, Search.TABLE)
    advise_visit(tour, CardSet.parse("AC 3C 5D 7D 2H 6H 4S 8S"), budget=budget)
    position = visit_position(tour, 3, CardSet.parse("AC 3C 5D 7D 2H"))
    rank_moves(tour, 3, position, budget=budget.step(1.0, Search.RANKING))
    held = []
    for name, module in list(sys.modules.items()):
        if not name.startswith(("search", "advisor")):
            continue
        for attribute, value in vars(module).items():
            values = [value]
            if isinstance(value, dict):
                values += list(value.values())
            elif isinstance(value, (list, tuple, set)):
                values += list(value)
            if any(isinstance(v, KingdomSolver) for v in values):
                held.append(f"{name}.{attribute}")
    assert held == []


def test_fork_map_runs_a_closure_in_forked_workers() -> None:
    """What a task closes over reaches the workers through the fork, not pickled: a lock (which
    pickle refuses) comes with it."""
    import threading

    lock = threading.Lock()
    parent = os.getpid()

    def task(part: list[int]) -> tuple:
        with lock:
            return os.getpid() != parent, sum(part)

    assert fork_map(task, [[1, 2], [3], []]) == [(True, 3), (True, 3), (True, 0)]


def test_fork_map_raises_what_a_task_raised() -> None:
    def task(part: int) -> int:
        if part == 2:
            raise ValueError("bad part 2")
        return part

    with pytest.raises(ValueError, match="bad part 2"):
        fork_map(task, [1, 2, 3])


def test_fork_map_names_a_worker_that_died() -> None:
    def task(part: int) -> int:
        if part:
            os.kill(os.getpid(), signal.SIGKILL)
        return part

    started = time.perf_counter()
    with pytest.raises(WorkerDied, match="exit code -9"):
        fork_map(task, [0, 1])
    assert time.perf_counter() - started < 60  # not waiting forever on the dead worker


def test_an_estimate_on_forked_workers_uses_the_budgets_memos() -> None:
    """Estimates forked from this process start from the budget's shared solver's memo."""
    from search.tours.estimates import estimate_all, solve_shared_roots

    position = make_position(
        CardSet.parse("2C 6C 4D 7H 8H"),
        Suit.HEARTS,
        3,
        jacks=[Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES],
        pool=[Suit.CLUBS, Suit.DIAMONDS],
    )
    budget = Budget()
    bound, _ = solve_shared_roots(position, 60.0, budget)
    assert budget.memos.shared().state_count() > 0
    results = estimate_all([position, position], 5.0, budget, fixed_work=0.2)
    assert [r.bound for r in results] == [pytest.approx(bound)] * 2
