"""Issue 38: the first run after install compiles the kernels before the time limit starts,
says so, and answers exactly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from advisor import options

ROOT = Path(__file__).resolve().parents[1]


def test_the_compile_is_left_out_of_the_command_clock() -> None:
    """CommandClock.delay moves every command deadline later by the seconds it is given, and
    does nothing when no console script started the clock."""
    clock = options.CommandClock(100.0)
    clock.delay(42.5)
    assert clock.deadline(3.0) == pytest.approx(145.5)
    unstarted = options.CommandClock()
    unstarted.delay(42.5)
    assert unstarted.deadline(3.0) is None


@pytest.mark.slow
def test_the_first_run_after_install_is_exact(tmp_path) -> None:
    """With an empty kernel cache (as straight after install) the README's first example, as
    written, announces the compile on stderr and prints the exact 51.06% (0.510622, the
    reference value), not an estimate from the few playouts a budget eaten by the compile
    left."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "advisor",
            "odds",
            "AC 6C 3H 8H 2D 5D 4S 7S",
            "--trump",
            "C",
            "--target",
            "4",
            "--abilities",
            "none",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Chance 51.06%" in done.stdout and "ESTIMATE" not in done.stdout
    assert "compiling the search kernels" in done.stderr
