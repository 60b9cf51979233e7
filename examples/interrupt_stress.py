"""Press Ctrl-C at random moments of `emissary simulate --workers 2` and count bad endings.

Each run starts the command in its own process group, sends SIGINT to the group after a random
delay (start-up, imports, workers forking, tours running), and waits up to 10 s for it to end.
A good ending is exit 130 with one line on stderr; anything else (a hang, a traceback, another
exit code) is counted and its stderr kept in the folder given by ``--keep``. With
``--busy N`` it runs N CPU-bound loops alongside, as a loaded CI machine would.

    python examples/interrupt_stress.py --runs 100 --busy 2
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ["simulate", "--tours", "1000000", "--policy", "greedy", "--workers", "2", "--json"]


def one_run(delay: float, folder: Path) -> tuple[str, bytes]:
    """('ok' | 'hung' | 'bad', stderr) for one run interrupted after ``delay`` seconds."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PYTHONFAULTHANDLER": "1"}
    child = subprocess.Popen(
        [sys.executable, "-m", "advisor", *COMMAND],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    time.sleep(delay)
    os.killpg(child.pid, signal.SIGINT)
    try:
        _, err = child.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        os.kill(child.pid, signal.SIGABRT)  # faulthandler prints every thread's stack
        time.sleep(1)
        os.killpg(child.pid, signal.SIGKILL)
        return "hung", child.communicate()[1]
    one_line = err.count(b"\n") == 1 and err.startswith(b"emissary: interrupted")
    return ("ok" if child.returncode == 130 and one_line else "bad"), err


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--earliest", type=float, default=0.3, help="shortest delay, seconds")
    parser.add_argument("--latest", type=float, default=1.5, help="longest delay, seconds")
    parser.add_argument("--busy", type=int, default=0, help="CPU-bound loops running alongside")
    parser.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    chance = random.Random(options.seed)
    busy = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(options.busy)
    ]
    counts = {"ok": 0, "hung": 0, "bad": 0}
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory() as folder:
            for run in range(options.runs):
                delay = chance.uniform(options.earliest, options.latest)
                ending, err = one_run(delay, Path(folder))
                counts[ending] += 1
                if ending != "ok":
                    kept = options.keep / f"interrupt-{ending}-{run}.txt"
                    kept.write_bytes(err)
                    print(f"run {run} (Ctrl-C after {delay:.2f} s): {ending}; stderr in {kept}")
    finally:
        for loop in busy:
            loop.kill()
    print(
        f"{options.runs} runs, Ctrl-C after {options.earliest}-{options.latest} s, "
        f"{options.busy} busy loops, {time.monotonic() - started:.0f} s: "
        f"{counts['ok']} ended well, {counts['hung']} hung, {counts['bad']} other endings"
    )
    sys.exit(1 if counts["hung"] or counts["bad"] else 0)


if __name__ == "__main__":
    main()
