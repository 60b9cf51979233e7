"""Process pools (search.infra.workers): workers end with the process that started them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from search.infra.workers import process_pool
from tests.conftest import process_fields

ROOT = Path(__file__).resolve().parents[1]

PARENT = textwrap.dedent(
    """
    import os, sys, time
    from search.infra.workers import process_pool

    if __name__ == "__main__":
        pool = process_pool(1, sys.argv[1])
        print(pool.submit(os.getpid).result(), flush=True)
        pool.submit(time.sleep, 600)  # the worker is busy for ten minutes
        time.sleep(600)
    """
)


def _alive(pid: int) -> bool:
    fields = process_fields(pid)
    return fields is not None and fields[0] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl and /proc are Linux's")
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_a_busy_worker_ends_when_its_parent_is_killed(tmp_path, start_method):
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    parent = subprocess.Popen(
        [sys.executable, str(script), start_method],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    worker = int(parent.stdout.readline())
    try:
        assert _alive(worker)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 60  # a backstop: the loop ends once they are gone
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(worker)
    finally:
        if _alive(worker):
            os.kill(worker, signal.SIGKILL)


def test_fork_server_pools_are_refused():
    with pytest.raises(ValueError, match="start method"):
        process_pool(1, "forkserver")
