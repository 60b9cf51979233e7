"""Every exact search is bounded (issue 15): a memory cap over all memos of the process, and
Ctrl-C honoured inside the compiled kernel."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from search.infra import (
    MemoryLimitExceeded,
    budget,
    memory_limit,
    parse_bytes,
    reserved_memory,
    set_memory_limit,
)
from search.visit import make_solver, solve_kingdom
from search.visit.kernel import FastKingdomSolver
from search.visit.position import root_state
from tests.conftest import BIG_HAND, big_state, midway_every_jack, restriction_chances


@pytest.fixture
def small_cap():
    before = memory_limit()
    set_memory_limit(reserved_memory() + (32 << 20))  # 32 MiB beside memos earlier tests keep
    yield
    set_memory_limit(before)


def test_parse_bytes_reads_suffixes_and_refuses_nonsense() -> None:
    assert parse_bytes("800M") == 800 << 20
    assert parse_bytes("1.5G") == 3 << 29
    assert parse_bytes("4096") == 4096
    for bad in ("", "lots", "-1G", "nan", "inf", "0"):
        with pytest.raises(ValueError):
            parse_bytes(bad)


def test_a_memo_past_the_cap_raises_and_gives_its_bytes_back(small_cap) -> None:
    """The count of reserved bytes is process-wide: solvers of earlier tests that are garbage
    in reference cycles still hold theirs until the cycle collector runs, which it may do at
    any moment of this test. Collect them first, so that only this solver's bytes change."""
    _, state = big_state()
    gc.collect()
    before = reserved_memory()
    solver = FastKingdomSolver()
    raised = False
    try:
        solver.decide(*state)
    except MemoryLimitExceeded:
        raised = True  # not kept: its traceback would hold the solver
    assert raised
    assert reserved_memory() <= memory_limit()
    del solver
    gc.collect()
    assert reserved_memory() == before


def test_solve_past_the_memory_cap_turns_into_a_labelled_estimate(keep_cap) -> None:
    """An exact search with every Jack of about 30 MB under a 16 MiB cap: an estimate, whose
    proven bound is the exact chance of one of its restrictions and whose interval does not
    lie above best play (both solved here without the cap)."""
    position = midway_every_jack(need=5)
    best = make_solver().decide(*root_state(position))[5]
    restrictions = restriction_chances(position, 5)
    gc.collect()
    set_memory_limit(reserved_memory() + (16 << 20))
    result = solve_kingdom(position, time_limit=2.0)
    assert result.estimate
    assert any(result.bound == pytest.approx(v, abs=1e-12) for v in restrictions.values())
    assert result.interval[0] <= best + 1e-12  # no policy beats best play


CTRL_C_SCRIPT = """
import os, signal, threading, time
from search.game import CardSet
from search.infra import interrupt_pending
from search.visit import make_position
from search.visit.kernel import FastKingdomSolver
from search.visit.position import root_state
from tests.conftest import big_state
_, state = big_state()
solver = FastKingdomSolver()
small = root_state(make_position(CardSet.parse("AC 2C 3C 4C 5D 6D 7H 8S"), 0, 2, jacks=()))
solver.decide(*small)
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
started = time.perf_counter()
try:
    solver.decide(*state)
except KeyboardInterrupt:
    print("interrupted after", round(time.perf_counter() - started, 2))
time.sleep(0.05)  # Python's own handler runs too: it must not interrupt what follows
assert not interrupt_pending()
solver.decide(*small)
print("then finished")
"""


def _ctrl_c_in_kernel() -> tuple[float, str]:
    """CTRL_C_SCRIPT in its own process (a SIGINT sent to the test runner would end the whole
    run): (seconds from the signal to KeyboardInterrupt, the line printed after)."""
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_SCRIPT],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first.startswith("interrupted after")
    return float(first.split()[-1]), second


def test_ctrl_c_inside_the_kernel_raises_keyboard_interrupt_and_the_solver_goes_on() -> None:
    """A SIGINT during a compiled search ends it with KeyboardInterrupt; nothing is left
    pending, and the same solver then finishes a search."""
    _, after = _ctrl_c_in_kernel()
    assert after == "then finished"


@pytest.mark.timing
def test_ctrl_c_inside_the_kernel_raises_keyboard_interrupt_quickly() -> None:
    """Wall clock (an unloaded machine): within 1.5 s of the signal."""
    seconds, _ = _ctrl_c_in_kernel()
    assert seconds < 1.5


def _ctrl_c_during_odds() -> tuple[float, int, str]:
    """(seconds from a SIGINT to the exit of odds inside its search, exit code, stderr)."""
    command = [
        sys.executable,
        "-m",
        "advisor",
        "odds",
        BIG_HAND,
        "--trump",
        "H",
        "--target",
        "6",
        "--pool",
        "C S D",
        "--time-limit",
        "60",
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(6)  # past start-up, inside the search
    process.send_signal(signal.SIGINT)
    sent = time.perf_counter()
    _, err = process.communicate(timeout=30)
    return time.perf_counter() - sent, process.returncode, err


def test_ctrl_c_during_odds_is_one_line_and_exit_130() -> None:
    _, code, err = _ctrl_c_during_odds()
    assert code == 130, err
    assert "Error" not in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.timing
def test_ctrl_c_during_odds_ends_it_quickly() -> None:
    """Wall clock (an unloaded machine): odds exits within 1.5 s of the signal."""
    seconds, code, err = _ctrl_c_during_odds()
    assert code == 130 and seconds < 1.5, (code, seconds, err)


@pytest.fixture
def keep_cap():
    before = memory_limit()
    yield
    set_memory_limit(before)


def test_max_memory_option_turns_a_search_into_its_estimate(monkeypatch, capsys, keep_cap) -> None:
    from tests.conftest import run_in_process

    args = [
        "--max-memory",
        "20M",
        "odds",
        BIG_HAND,
        "--trump",
        "H",
        "--target",
        "6",
        "--pool",
        "C S D",
        "--time-limit",
        "2",
        "--json",
    ]
    # Count only this command's memos, as a fresh process would: solvers other tests keep
    # alive hold their reservations.
    monkeypatch.setattr(budget, "_reserved", 0)
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 0, err
    assert json.loads(out)["estimate"] is True
    assert memory_limit() == 20 << 20


@pytest.mark.parametrize("size", ["lots", "0", "-5M", "nan", "inf", "8M"])
def test_max_memory_refuses_what_is_not_a_size(monkeypatch, capsys, keep_cap, size) -> None:
    from tests.conftest import assert_one_line_error, run_in_process

    code, out, err = run_in_process(
        monkeypatch, capsys, ["--max-memory", size, "deal", "--seed", "1"]
    )
    assert_one_line_error(code, out, err)
    assert code == 2 and "--max-memory" in err


def test_a_memo_doubling_that_would_pass_the_deadline_is_a_time_out(monkeypatch) -> None:
    """Issue 15: a doubling near a gigabyte took 1.3 s of a 2 s coach step. A doubling whose
    copy cannot end before the deadline stops the search as the clock would, at once."""
    from search.infra import TimeLimitExceeded, WorkLimitExceeded
    from search.visit import kernel

    monkeypatch.setattr(kernel, "GROW_SECONDS_PER_BYTE", 1.0)  # any doubling: hours
    from search.visit.solvers import warm_up

    warm_up()  # a first run compiles the kernel: not part of what is timed
    _, state = big_state()
    solver = FastKingdomSolver()
    table = solver._table.nbytes
    deadline = solver.deadline = (
        time.perf_counter() + 600.0
    )  # far: only a refused doubling stops it
    with pytest.raises(TimeLimitExceeded) as stopped:
        solver.decide(*state)
    assert not isinstance(stopped.value, WorkLimitExceeded)  # the clock's doing, not the work's
    assert time.perf_counter() < deadline  # the first doubling, not the deadline
    assert solver._table.nbytes == table  # nothing was allocated
    solver.deadline = None  # without a deadline the memo grows as it must
    monkeypatch.setattr(kernel, "GROW_SECONDS_PER_BYTE", 2e-9)
    solver.limit_work(200_000)
    with pytest.raises(WorkLimitExceeded):  # the work limit, after growing
        solver.decide(*state)
    assert solver._table.nbytes > table


@pytest.mark.parametrize("stop", ["doubling", "work"])
def test_an_exact_cell_names_the_clock_when_the_clock_stopped_it(monkeypatch, stop) -> None:
    """advise's exact cells: a cell the clock stopped (also by refusing a doubling before the
    deadline comes) counts as a clock cut, so the table says the clock, not the work, decided
    it; a cell stopped by its work limit does not, as it stops at the same place anywhere."""
    from search.tours.exact_cells import Solve, exact_chance
    from search.visit import kernel, make_solver

    position, _ = big_state()
    solve = Solve(make_solver(), work=200_000, clock_end=time.perf_counter() + 600.0)
    if stop == "doubling":
        monkeypatch.setattr(kernel, "GROW_SECONDS_PER_BYTE", 1.0)  # any doubling: hours
        solve.work = 10**12
    assert exact_chance(solve, position, full=False) is None
    assert solve.timed_out and time.perf_counter() < solve.clock_end
    assert solve.clock_cut == (stop == "doubling")


def test_a_memory_cap_too_small_to_start_a_search_is_one_line(monkeypatch) -> None:
    """EMISSARY_MAX_MEMORY below what a search's first tables take is refused as --max-memory
    would be (issue 40): one line naming the variable, exit 2, not an internal error."""
    from tests.conftest import run_subprocess

    monkeypatch.setenv("EMISSARY_MAX_MEMORY", "2M")
    done = run_subprocess(["odds", BIG_HAND, "--trump", "H", "--target", "6", "--time-limit", "2"])
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode() == (
        "emissary: error: Invalid value for EMISSARY_MAX_MEMORY: at least 16M: a search's first "
        "tables take a few MiB\n"
    )


# --- the kernel's poll: libc's clock and the signal pipe, or object mode ------------------------


def test_the_kernel_reads_the_clock_and_the_signal_pipe_as_python_does() -> None:
    """Issue 37 (e): the kernels read the clock ``time.perf_counter`` reads (Linux's monotonic
    clock) and the wakeup pipe's signal numbers by libc calls, without numba's object mode:
    SIGINT among the bytes waiting is found, the pipe is left empty, other signals are not
    Ctrl-C, and no pipe (-1) is no interrupt."""
    from numba import njit

    from search.infra import kernel_polls_natively, monotonic_seconds, sigint_in_pipe

    @njit
    def clock() -> float:
        return monotonic_seconds()

    @njit
    def interrupted(fd: int) -> bool:
        return sigint_in_pipe(fd)

    assert kernel_polls_natively()
    before = time.perf_counter()
    native = clock()
    after = time.perf_counter()
    assert before <= native <= after
    read, write = os.pipe()
    os.set_blocking(read, False)
    try:
        os.write(write, bytes([17, signal.SIGINT, 255]))
        assert interrupted(read)
        with pytest.raises(BlockingIOError):  # read to its end
            os.read(read, 16)
        os.write(write, bytes([17, signal.SIGTERM]))
        assert not interrupted(read)
        assert not interrupted(read)  # an empty pipe
    finally:
        os.close(read)
        os.close(write)
    assert not interrupted(-1)


def test_a_replaced_clock_is_the_one_the_kernel_reads(monkeypatch) -> None:
    """The slow-clock test replaces ``time.perf_counter``; the kernel then reads that clock (in
    object mode), not libc's: a clock running 1,000 s ahead stops a search at the kernel's
    first poll, although its deadline is 100 s off by the real clock. The memo starts large
    enough (2**21 slots) that no growth, which reads the clock in Python, comes first: the
    search stops with a few of its states, not at the first doubling (about 1.26 M)."""
    from search.infra import TimeLimitExceeded, kernel_polls_natively
    from search.visit.budget import clock_stops

    _, state = big_state()
    real = time.perf_counter
    deadline = real() + 100.0
    monkeypatch.setattr(time, "perf_counter", lambda: real() + 1000.0)
    assert not kernel_polls_natively()
    solver = FastKingdomSolver(initial_bits=21)
    with clock_stops(deadline, solver), pytest.raises(TimeLimitExceeded):
        solver.decide(*state)
    assert solver.state_count() < 100_000
