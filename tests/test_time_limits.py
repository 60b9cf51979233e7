"""Every searching command returns within its ``--time-limit`` (issue 14, done when): ``odds``,
``advise``, ``move`` and a coach step, each on a first-visit hand with all four Jacks (and a
Politics pool) whose exact search runs for many seconds, so that the limit decides when it stops
and the answer is a labelled estimate.

These check wall-clock times, which only an unloaded machine keeps: they carry the ``timing``
marker, which CI and the default run skip (``pytest -m timing -n 0`` runs them, one at a time)."""

from __future__ import annotations

import io
import json
import time

import pytest
from rich.console import Console

from advisor import coach_advice
from advisor.session import Session
from search.game.tour import TourConfig
from search.visit import warm_up
from tests.conftest import BIG_HAND, run_in_process, run_subprocess

LIMIT = 1.0  # seconds: small, and far below what the exact searches below need
# Beyond 110% of the limit a command may spend a little on work outside its search budget:
# parsing the options, advise's tour values (computed before the budget starts), starting and
# ending the searches, building and printing the tables. Together they measured 0.0-0.16 s
# over the limit here (2026-12-01, the other core busy); 0.5 s leaves room for a loaded machine. The kernel's own
# load (0.5-1 s from numba's cache, a minute if it compiles) is kept out: it is done once,
# before any timing, as the coach does before its first advice (search.visit.warm_up).
START_UP = 0.5
RULERS = "KC QD KS QS QC KH QH KD"  # every ruler on its kingdom: the first visit of a tour


@pytest.fixture(scope="module", autouse=True)
def kernel_loaded() -> None:
    warm_up()


def timed(function, *args):
    """(the result of ``function(*args)``, seconds it took)."""
    started = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - started


def within_limit(seconds: float) -> bool:
    return seconds <= 1.1 * LIMIT + START_UP


COMMANDS = {
    "odds": ["odds", BIG_HAND, "--trump", "H", "--target", "6", "--pool", "C S D"],
    "advise": ["advise", BIG_HAND, "--rulers", RULERS],
    "move": ["move", "--kingdom", "6", "--rulers", RULERS, "--hand", BIG_HAND],
}


@pytest.mark.timing
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_past_its_exact_search_returns_within_its_time_limit(
    monkeypatch, capsys, command
):
    """odds, advise, move --time-limit 1 --json: an estimate (advise: some cells estimated),
    returned within 110% of the limit plus the start-up allowance."""
    args = [*COMMANDS[command], "--time-limit", f"{LIMIT:g}", "--json"]
    (code, out, err), seconds = timed(run_in_process, monkeypatch, capsys, args)
    assert code == 0, err
    assert "estimate" in out  # odds and move: "estimate": true; advise: estimated cells
    if command != "advise":
        assert json.loads(out)["estimate"] is True
    assert within_limit(seconds), f"{command} took {seconds:.2f} s at --time-limit {LIMIT:g}"


def _first_visit(seed: int, kingdom: int):
    """A seeded coach session at its first decision in ``kingdom``, all four Jacks unused."""
    session = Session.new(TourConfig(), mode="seeded", seed=seed)
    session = session.append({"type": "hand", "cards": session.next_hand()})
    before = session.replay()
    session = session.append({"type": "kingdom", "position": kingdom})
    return before, session.replay()


@pytest.mark.timing
@pytest.mark.parametrize("step", ["kingdom", "move"])
def test_a_coach_step_returns_within_its_time_limit(step):
    """coach --time-limit 1, deal 5's first hand (A♣ 8♣ 7♦ 8♦ 4♠ 6♠ 7♠ 8♠): the kingdom table,
    and the first decision in kingdom 6 (target 6, every Jack open), each advised within the
    limit; the move ranking is an estimate."""
    before, during = _first_visit(5, 6)
    assert len(during.visit.jacks) == 4
    adviser = coach_advice.Adviser(
        Console(file=io.StringIO(), width=80), time_limit=LIMIT, ascii=True
    )
    if step == "kingdom":
        advised, seconds = timed(adviser.kingdom_advice, before.tour, before.hand)
        assert advised.default.isdigit()
    else:
        advised, seconds = timed(adviser.move_advice, during)
        assert advised.record(None)["estimate"] is True
    assert within_limit(seconds), f"coach {step} step took {seconds:.2f} s at a {LIMIT:g} s limit"


@pytest.mark.timing
def test_advise_through_the_console_script_answers_within_its_limit_start_up_included() -> None:
    """emissary advise --time-limit 2 as a user runs it: from launching the process to its
    exit, the interpreter, the imports and the kernel's load included, within 110% of the
    limit plus 0.3 s (the interpreter before the clock starts, the table after it stops)."""
    limit = 2.0
    args = [*COMMANDS["advise"], "--time-limit", f"{limit:g}", "--json"]
    started = time.perf_counter()
    done = run_subprocess(args)
    seconds = time.perf_counter() - started
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)["kingdoms"]
    assert seconds <= 1.1 * limit + 0.3, f"advise took {seconds:.2f} s at --time-limit {limit:g}"


def test_a_time_limit_counts_from_the_console_scripts_start_only() -> None:
    """In process (main called by a test or a program) a limit counts from the search; once
    the console script has started the clock, from the script's start."""
    from advisor import options

    assert options.CommandClock().deadline(3.0) is None
    clock = options.CommandClock(100.0)
    assert clock.deadline(3.0) == 103.0 and clock.deadline(None) is None
