"""The ``emissary`` console script's entry point, light enough to import before anything else.

Loading the command line (numpy, numba, ortools, the kernels) takes a second or so; a Ctrl-C
in that second would show a traceback. Here it is one line and exit 130, like any interrupt.
"""

from __future__ import annotations

import os
import sys

INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C


def run() -> None:
    """Load the command line and run it (:func:`advisor.cli.run`)."""
    try:
        from .cli import run as run_command_line

        run_command_line()
    except KeyboardInterrupt:  # while loading; a running command reports its own
        interrupted()


def interrupted(line: str = "interrupted") -> None:
    """Write ``emissary: <line>`` to stderr and end the process at once with exit 130."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is sys.stderr:
                stream.write(f"emissary: {line}\n")
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(INTERRUPTED)
