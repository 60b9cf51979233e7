"""The ``emissary`` command line: thin typer commands over the ``search`` package.

Every command turns its text input into ``search`` values at the edge
(:mod:`advisor.notation`), calls plain functions, and renders the results.
Bad input ends with one line on stderr and exit code 1 (our checks) or 2
(usage errors), never a traceback; :func:`main` is the one place that decides.
"""

from __future__ import annotations

import errno
import os
import sys
import threading
import traceback
from pathlib import Path
from typing import Annotated

import typer

from search.infra import MemoryLimitExceeded

from . import (
    INTERRUPTED,
    STARTED,
    advise_cli,
    analyse_cli,
    coach_cli,
    odds_cli,
    sweep_cli,
    tour_cli,
)
from .options import CommandClock, Interrupted, caused_by_interrupt
from .streams import OutputPipeClosed, guard_standard_streams, printable, stdout_was_closed

app = typer.Typer(
    name="emissary",
    help="Exact odds, advice and deal analysis for the solo card game The Emissary.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
for group in (sweep_cli, analyse_cli, tour_cli, odds_cli, advise_cli, coach_cli):
    group.register(app)


SMALLEST_MEMORY_CAP = 16 << 20
"""The least ``--max-memory``: below about 8 MiB ``advise`` could not build its first tables."""
MEMORY_VARIABLE = "EMISSARY_MAX_MEMORY"


@app.callback()
def _options(
    max_memory: Annotated[
        str | None,
        typer.Option(
            "--max-memory",
            help="Cap on the memory exact searches may hold, e.g. 800M or 1.5G (default 1.5G, "
            "or EMISSARY_MAX_MEMORY); past it a search gives way to its labelled estimate.",
        ),
    ] = None,
) -> None:
    """Options for every command."""
    hint = "--max-memory"
    if max_memory is None:  # the environment variable is checked as the option would be
        max_memory, hint = os.environ.get(MEMORY_VARIABLE) or None, MEMORY_VARIABLE
    if max_memory is not None:
        from search.infra import parse_bytes, set_memory_limit

        try:
            size = parse_bytes(max_memory)
        except ValueError as error:
            raise typer.BadParameter(str(error), param_hint=hint) from None
        if size < SMALLEST_MEMORY_CAP:
            raise typer.BadParameter(
                f"at least {SMALLEST_MEMORY_CAP >> 20}M: a search's first tables take a few MiB",
                param_hint=hint,
            )
        set_memory_limit(size)


_DEBUG_FLAG = "--debug"
_BROKEN_PIPE = 141  # what a shell reports for a command killed by SIGPIPE: 128 + 13


def main(started: float | None = None) -> None:
    """Console-script entry: run the app, turning every failure into one line on stderr.
    Time limits count from ``started`` (a ``time.perf_counter()`` reading; None: from each
    search's own start).

    Our own checks (``ValueError`` subclasses) exit 1, usage errors 2, an interrupt
    130; anything unexpected exits 1 with its type on one line and the traceback in
    :func:`error_log_path`. ``--debug`` as the first argument, or ``EMISSARY_DEBUG=1``,
    shows the traceback instead.
    """
    guard_standard_streams()
    args = sys.argv[1:]
    debug = os.environ.get("EMISSARY_DEBUG", "") not in ("", "0")
    if args[:1] == [_DEBUG_FLAG]:
        debug, args = True, args[1:]
    try:
        code = app(
            args=args, prog_name="emissary", standalone_mode=False, obj=CommandClock(started)
        )
    except (BrokenPipeError, OutputPipeClosed):
        _quiet_exit(_BROKEN_PIPE)
    except KeyboardInterrupt:
        _fail("interrupted", INTERRUPTED, prefix="emissary: ")
    except Interrupted as error:  # a command says what it saved: "interrupted: ..."
        _fail(str(error), INTERRUPTED, prefix="emissary: ")
    except ValueError as error:  # our own checks: notation, rules, options, files
        _fail(str(error), 1)
    except typer.Abort as error:
        if isinstance(error.__cause__, EOFError):
            _fail("aborted: end of input", 1)
        _fail("aborted", 1)
    except OSError as error:  # a missing folder, a full disk, a file we may not read
        _fail(_os_message(error), 1)
    except MemoryLimitExceeded as error:  # a cap (EMISSARY_MAX_MEMORY) too small to start
        _fail(f"{error}; raise --max-memory", 1)
    except Exception as error:
        if caused_by_interrupt(error):  # Ctrl-C inside compiled code surfaces as SystemError
            _fail("interrupted", INTERRUPTED, prefix="emissary: ")
        if hasattr(error, "format_message") and hasattr(error, "exit_code"):
            message = error.format_message()
            if not message:  # no arguments: typer has printed the help
                sys.exit(error.exit_code)
            _fail(message, error.exit_code)  # click usage errors
        if debug:
            raise
        _internal_error(error)
    try:
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not at interpreter exit
    except BrokenPipeError:
        _quiet_exit(_BROKEN_PIPE)
    except OSError as error:
        _fail(_os_message(error), 1)
    if stdout_was_closed():
        _fail("cannot write the output: standard output is closed", 1)
    if code == INTERRUPTED:
        _fail("interrupted", INTERRUPTED, prefix="emissary: ")
    if isinstance(code, int) and code:
        sys.exit(code)


def run() -> None:
    """The console script: :func:`main`, then, when it ends well, a quick exit.

    After a search the interpreter's own teardown (numba's and llvmlite's finalisers) takes
    about a quarter of a second the user would wait for. :func:`main` has flushed the output
    by then, so a command that returns with no child process or extra thread left ends at
    once; any other ending, and every error, exits the usual way. A time limit counts from
    the script's start (:class:`~advisor.options.CommandClock`); an interrupt ends at once
    (:func:`advisor.entry.run`).
    """
    main(STARTED)
    threads_left = threading.active_count() > 1
    processes = sys.modules.get("multiprocessing")
    if threads_left or (processes is not None and processes.active_children()):
        return
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(0)


def error_log_path() -> Path:
    """The file that keeps the traceback of the last unexpected error."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(state) / "emissary" / "last-error.log"


def _internal_error(error: BaseException) -> None:
    what = (
        f"{type(error).__name__}: {_clip(str(error), 80)}" if str(error) else type(error).__name__
    )
    log = error_log_path()
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("".join(traceback.format_exception(error)), encoding="utf-8")
        where = f"traceback in {log}"
    except OSError as cannot:
        where = f"could not write the traceback to {log} ({cannot.strerror or cannot})"
    _fail(
        f"internal error ({what}); {where}; rerun with --debug or EMISSARY_DEBUG=1 to see it, "
        "and please report it",
        1,
    )


def _os_message(error: OSError) -> str:
    reason = error.strerror or str(error) or type(error).__name__
    if error.filename is not None:
        return f"{reason}: {_clip(os.fsdecode(error.filename), 120)}"
    if error.errno in (errno.ENOSPC, errno.EFBIG, errno.EIO):  # no file name: it was the output
        return f"cannot write: {reason}"
    return reason


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quiet_exit(code: int) -> None:
    _discard_stdout()
    sys.exit(code)


def _fail(message: str, code: int, prefix: str = "emissary: error: ") -> None:
    first_line = printable(" ".join(message.split()))
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _discard_stdout()
    try:
        sys.stderr.write(f"{prefix}{first_line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    sys.exit(code)


def _discard_stdout() -> None:
    # Send what is still buffered nowhere, so the interpreter's last flush cannot fail again.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
