"""Robust at the table (issue 15): Ctrl-C stops within a second, says what was saved, exit 130."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from advisor import tour_cli
from tests.conftest import process_fields, run_in_process

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="process groups, /proc"
)


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(child) for child in text.split()]


def _interrupt(args: list[str], cwd: Path, ready) -> tuple[int, float, str, str]:
    """Run ``emissary args`` in its own process group, send SIGINT to the group once
    ``ready(pid)`` holds (or after 60 s), and return (exit code, seconds it took to end
    after the signal, stdout, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    child = subprocess.Popen(
        [sys.executable, "-m", "advisor", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not ready(child.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        os.killpg(child.pid, signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=60)
        return child.returncode, time.monotonic() - sent, out.decode(), err.decode()
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def test_simulate_on_two_workers_stops_and_says_what_it_saved(tmp_path) -> None:
    """simulate --workers 2: Ctrl-C (SIGINT to the process group) ends the run, the workers
    with it, with one line giving the tours saved in the checkpoint (how fast: the timing test
    below)."""
    checkpoint = tmp_path / "batch.json"
    args = [
        "simulate",
        "--tours",
        "1000000",
        "--policy",
        "greedy",
        "--workers",
        "2",
        "--checkpoint",
        str(checkpoint),
    ]
    workers: list[int] = []

    def ready(pid: int) -> bool:  # both workers started, and a chunk saved
        workers[:] = _children(pid)
        return len(workers) >= 2 and checkpoint.exists()

    code, _, _, err = _interrupt(args, tmp_path, ready)
    assert code == 130, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    saved = re.fullmatch(
        r"emissary: interrupted: ([\d,]+) of 1,000,000 tours saved in (.+); continue with the "
        r"same command and --resume\n",
        err,
    )
    assert saved, err
    assert saved.group(2) == str(checkpoint)
    chunks = json.loads(checkpoint.read_text())["chunks"]
    assert sum(map(len, chunks.values())) == int(saved.group(1).replace(",", ""))
    deadline = time.monotonic() + 60  # a backstop: the loop ends once the workers are gone
    while any(process_fields(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [w for w in workers if process_fields(w) and process_fields(w)[0] != "Z"]


def test_simulate_without_a_checkpoint_says_nothing_was_saved(tmp_path) -> None:
    """simulate --workers 2 without --checkpoint: Ctrl-C says nothing was saved."""
    args = ["simulate", "--tours", "1000000", "--policy", "greedy", "--workers", "2", "--json"]
    code, _, _, err = _interrupt(args, tmp_path, lambda pid: len(_children(pid)) >= 2)
    assert code == 130, err
    assert err == "emissary: interrupted: nothing saved (no --checkpoint)\n"


def test_coach_interrupted_at_a_prompt_says_the_game_is_saved(tmp_path) -> None:
    """coach: Ctrl-C at a prompt is one line saying the game is saved and how to resume."""
    session = tmp_path / "game.json"
    args = ["coach", "--session", "game.json", "--seed", "3", "--no-advice", "--ascii"]
    code, _, _, err = _interrupt(args, tmp_path, lambda pid: session.exists())
    assert code == 130, err
    assert err == (
        "emissary: interrupted: every step so far is saved in game.json; resume with: "
        "emissary coach --session game.json\n"
    )


@pytest.mark.timing
@pytest.mark.parametrize("command", ["simulate", "coach"])
def test_ctrl_c_ends_a_command_within_two_seconds(tmp_path, command) -> None:
    """Wall clock (an unloaded machine): simulate on two workers and coach at a prompt end
    within 2 s of Ctrl-C."""
    if command == "simulate":
        args = ["simulate", "--tours", "1000000", "--policy", "greedy", "--workers", "2", "--json"]
        ready = lambda pid: len(_children(pid)) >= 2
    else:
        args = ["coach", "--session", "game.json", "--seed", "3", "--no-advice", "--ascii"]
        ready = lambda pid: (tmp_path / "game.json").exists()
    code, seconds, _, err = _interrupt(args, tmp_path, ready)
    assert code == 130 and seconds < 2.0, (code, seconds, err)


def test_interrupt_surfacing_as_a_system_error_is_an_interrupt(monkeypatch, capsys) -> None:
    """main(): Ctrl-C inside compiled code (a SystemError whose cause is KeyboardInterrupt) is
    'interrupted', exit 130, not an internal error."""

    def compiled(*_args, **_kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as error:
            raise SystemError("_decide returned a result with an exception set") from error

    monkeypatch.setattr(tour_cli, "Deal", compiled)
    code, out, err = run_in_process(monkeypatch, capsys, ["deal", "--seed", "3"])
    assert code == 130 and err == "emissary: interrupted\n" and out == ""


def test_a_ctrl_c_held_while_the_pool_forks_is_raised_after() -> None:
    """A Ctrl-C while a pool submits (and forks its workers) is held, not lost in a fork hook
    that drops exceptions: the block runs to its end, then the interrupt is raised. In its own
    process: a SIGINT sent to the test runner would end the whole run."""
    script = (
        "import os, signal\n"
        "from search.infra.workers import interrupts_held\n"
        "finished = False\n"
        "try:\n"
        "    with interrupts_held():\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "        for _ in range(1000):\n"  # Python runs the handler here, between bytecodes
        "            pass\n"
        "        finished = True\n"
        "except KeyboardInterrupt:\n"
        "    print('raised after the block' if finished else 'raised inside the block')\n"
        "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n"
    )
    done = _python(script)
    assert done.returncode == 0 and done.stdout == b"raised after the block\nTrue\n", done


def test_a_ctrl_c_while_the_command_line_loads_is_one_line() -> None:
    """Ctrl-C in the second the command line takes to import: one line, exit 130."""
    script = (
        "import sys, types\n"
        "cli = types.ModuleType('advisor.cli')\n"
        "def run():\n"
        "    raise KeyboardInterrupt\n"
        "cli.run = run\n"
        "sys.modules['advisor.cli'] = cli\n"
        "from advisor.entry import run as entry\n"
        "entry()\n"
    )
    done = _python(script)
    assert done.returncode == 130 and done.stderr == b"emissary: interrupted\n", done.stderr


def _python(script: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, env=env, timeout=60, check=False
    )
