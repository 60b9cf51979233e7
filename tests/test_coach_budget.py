"""The coach on a machine ten times slower (issue 38): a seeded tour followed to its end with the
clock running ten times fast, so that every playout, solve, fork and table costs ten times its
time against the budget. Each step must still keep its time limit (+ 10% + 0.5 s), no estimate
from a handful of playouts may lead a proven option, and no supporter may be advised for less
than the point it costs.

Timing: the clock runs ten times fast, so a busy machine makes it ten times busier; it runs with
``pytest -m timing -n 0`` on an otherwise idle machine, not in CI."""

from __future__ import annotations

import io
import sys
import time

import pytest

from search.tours import MoveAdvice, advice, moves
from tests.conftest import run_in_process

SLOWDOWN = 10.0
TIME_LIMIT = 4.0


@pytest.fixture
def slow_clock(monkeypatch):
    """``time.perf_counter`` running ten times fast from now on (the kernels read it too, and the
    forked workers inherit it)."""
    real = time.perf_counter
    origin = real()
    monkeypatch.setattr(time, "perf_counter", lambda: origin + SLOWDOWN * (real() - origin))


@pytest.mark.timing
def test_a_coach_ten_times_slower_keeps_its_budgets(monkeypatch, capsys, tmp_path, slow_clock):
    ranked: list[MoveAdvice] = []
    tables: list = []
    rank_moves, advise_visit = moves.rank_moves, advice.advise_visit

    def record_ranking(*args, **kwargs):
        ranked.append(rank_moves(*args, **kwargs))
        return ranked[-1]

    def record_table(*args, **kwargs):
        tables.append(advise_visit(*args, **kwargs))
        return tables[-1]

    from advisor import coach_advice

    monkeypatch.setattr(coach_advice, "rank_moves", record_ranking)
    monkeypatch.setattr(coach_advice, "advise_visit", record_table)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n" * 2000))
    session = tmp_path / "slow.json"
    args = ["coach", "--seed", "12", "--short", "--session", str(session), "--ascii"]
    code, out, err = run_in_process(monkeypatch, capsys, [*args, "--time-limit", str(TIME_LIMIT)])
    assert code == 0, err
    assert "Review:" in out
    assert len(ranked) > 10 and len(tables) >= 2

    allowed = 1.1 * TIME_LIMIT + 0.5
    over = [
        (type(a).__name__, round(a.seconds, 2)) for a in [*ranked, *tables] if a.seconds > allowed
    ]
    assert over == []
    for ranking in ranked:
        first = ranking.moves[0]
        if first.estimate and not first.proven:
            assert (
                first.interval[0]
                >= max((m.chance for m in ranking.moves if not m.estimate or m.proven), default=0.0)
                - 1e-12
            ), ranking.moves

    from advisor.session import load

    for event in load(session).events:
        given = event.get("advice") or {}
        if given.get("spends") and given.get("played_spends") and given.get("free_chance"):
            assert given["stake"] * (given["chance"] - given["free_chance"]) > 1.0
