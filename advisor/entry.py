"""The ``emissary`` console script's entry point, light enough to import before anything else.

Loading the command line (numpy, numba, ortools, the kernels) takes a second or so; a Ctrl-C
in that second would show a traceback. Here it is one line and exit 130, like any interrupt.

An interrupted command ends at once, once its line is written: what it saves is on disk by
then (checkpoints, coach sessions and tables are written whole, atomically), and the
interpreter's teardown could otherwise wait forever on a process pool's helper threads whose
workers were just killed (seen once in CI: the line printed, the process hung).
"""

from __future__ import annotations

import os
import sys

from . import INTERRUPTED
from .streams import guard_standard_streams


def run() -> None:
    """Load the command line and run it (:func:`advisor.cli.run`)."""
    guard_standard_streams()
    try:
        from .cli import run as run_command_line

        run_command_line()
    except KeyboardInterrupt:  # while loading; a running command reports its own
        interrupted()
    except SystemExit as done:
        if done.code == INTERRUPTED:  # the command wrote its line; end without the teardown
            exit_now(INTERRUPTED)
        raise


def interrupted() -> None:
    """Write ``emissary: interrupted`` to stderr and end the process at once with exit 130."""
    try:
        sys.stderr.write("emissary: interrupted\n")
    except (OSError, ValueError):
        pass
    exit_now(INTERRUPTED)


def exit_now(code: int) -> None:
    """Flush what is written and end the process with ``code``, skipping the interpreter's
    teardown."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
