"""The ``emissary`` command line (:mod:`advisor.cli`) over the ``search`` package."""

import time

STARTED = time.perf_counter()
"""When the package was first imported: for the console script, about when the command started
(the interpreter's own start-up, some 20 ms, comes before)."""

INTERRUPTED = 130
"""The exit code of a command stopped by Ctrl-C: 128 + SIGINT, what a shell reports (and what
typer turns a KeyboardInterrupt into)."""
