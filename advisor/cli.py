"""The ``emissary`` command line: thin typer commands over the ``search`` package.

Every command turns its text input into ``search`` values at the edge
(:mod:`advisor.notation`), calls plain functions, and renders the results.
Bad input ends with one line on stderr and exit code 1 (our checks) or 2
(usage errors), never a traceback.
"""

from __future__ import annotations

import sys

import typer

from . import advise_cli, analyse_cli, coach_cli, odds_cli, sweep_cli, tour_cli

app = typer.Typer(
    name="emissary",
    help="Exact odds, advice and deal analysis for the solo card game The Emissary.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
for group in (sweep_cli, analyse_cli, tour_cli, odds_cli, advise_cli, coach_cli):
    group.register(app)


def main() -> None:
    """Console-script entry: run the app, turning every input error into one line."""
    try:
        code = app(standalone_mode=False)
    except ValueError as error:  # our own checks: notation, rules, options
        _fail(str(error), 1)
    except typer.Abort:
        _fail("aborted", 1)
    except Exception as error:
        if hasattr(error, "format_message") and hasattr(error, "exit_code"):
            message = error.format_message()
            if not message:  # no arguments: typer has printed the help
                sys.exit(error.exit_code)
            _fail(message, error.exit_code)  # click usage errors
        raise
    if isinstance(code, int) and code:
        sys.exit(code)


def _fail(message: str, code: int) -> None:
    first_line = " ".join(message.split())
    sys.stderr.write(f"emissary: error: {first_line}\n")
    sys.exit(code)
