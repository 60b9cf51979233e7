"""The ``emissary`` console script's entry point, light enough to import before anything else.

Loading the command line (numpy, numba, ortools, the kernels) takes a second or so; a Ctrl-C
in that second would show a traceback. Here it is one line and exit 130, like any interrupt.

An interrupted command ends at once, once its line is written: what it saves is on disk by
then (checkpoints, coach sessions and tables are written whole, atomically), and the
interpreter's teardown could otherwise wait forever on a process pool's helper threads whose
workers were just killed (seen once in CI: the line printed, the process hung).
"""

# The first statements are the SIGINT handler's: only built-in modules before it, no
# ``from __future__`` (itself an import of a few milliseconds).
import _signal  # the C module: ``signal`` imports enum and functools, milliseconds of start-up
import sys

try:
    from posix import _exit
except ImportError:  # not a POSIX system
    from os import _exit


def _interrupted_while_loading(signum, frame) -> None:
    try:
        sys.stderr.write("emissary: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # AttributeError: stderr closed (None)
        pass
    _exit(130)


# From here until the command line is loaded, Ctrl-C ends the process at once with its one
# line. A KeyboardInterrupt raised inside an import can surface as another error (a
# RuntimeError from a half-made class) or a traceback; nothing is saved yet.
try:
    _LOADING_HANDLER = _signal.signal(_signal.SIGINT, _interrupted_while_loading)
except ValueError:  # not the main thread (imported by a library user): leave signals alone
    _LOADING_HANDLER = None

import os  # after the handler, as every import below

from . import INTERRUPTED
from .streams import guard_standard_streams


def run() -> None:
    """Load the command line and run it (:func:`advisor.cli.run`)."""
    guard_standard_streams()
    try:
        from .cli import run as run_command_line

        if _LOADING_HANDLER is not None:  # loaded: commands handle Ctrl-C themselves
            _signal.signal(_signal.SIGINT, _LOADING_HANDLER)
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
    except (OSError, ValueError, AttributeError):  # AttributeError: stderr closed (None)
        pass
    exit_now(INTERRUPTED)


def exit_now(code: int) -> None:
    """Flush what is written and end the process with ``code``, skipping the interpreter's
    teardown."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # AttributeError: a closed stream, None
            pass
    os._exit(code)
