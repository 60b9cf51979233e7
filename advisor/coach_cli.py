"""The ``coach`` and ``review`` commands: a whole tour coached step by step, and its review."""

from __future__ import annotations

from typing import Annotated

import typer

from search.game import TourConfig

from .options import (
    AsciiOption,
    Interrupted,
    JsonOption,
    PublishedOption,
    ShortOption,
    VariantOption,
    caused_by_interrupt,
    check_path,
    check_seconds,
    check_seed,
    check_variant,
    new_console,
    print_json,
)


def register(app: typer.Typer) -> None:
    """Add ``coach`` and ``review`` to the ``emissary`` app."""
    app.command("coach")(coach)
    app.command("review")(review)


def coach(
    ctx: typer.Context,
    session: Annotated[
        str, typer.Option("--session", help="Session file: created if new, resumed if it exists.")
    ] = "emissary-session.json",
    seed: Annotated[
        int | None, typer.Option("--seed", help="Practice on a seeded deal instead of real cards.")
    ] = None,
    short: ShortOption = False,
    published_rules: PublishedOption = False,
    variant: VariantOption = "standard",
    advice: Annotated[
        bool, typer.Option("--advice/--no-advice", help="Show the advice at every decision.")
    ] = True,
    time_limit: Annotated[
        float,
        typer.Option(
            "--time-limit",
            help="Seconds for each piece of advice (a kingdom table or a ranking); past it, estimates.",
        ),
    ] = 5.0,
    ascii: AsciiOption = False,
) -> None:
    """Coach a whole tour step by step; every step is saved to the session file."""
    from pathlib import Path

    from . import coach as coaching
    from .streams import read_answer

    check_seconds(time_limit, "--time-limit")
    check_path(session, "--session")
    first_edition = check_variant(variant)
    if seed is not None:
        check_seed(seed)
    # The options that say which game it is, when typed: a resumed game must agree with them.
    # (By the source's name: typer vendors its own click, whose ParameterSource is not click's.)
    given = {
        name: value
        for name, value in (
            ("seed", seed),
            ("short", short),
            ("published_rules", published_rules),
            ("variant", variant),
        )
        if getattr(ctx.get_parameter_source(name), "name", "DEFAULT") != "DEFAULT"
    }
    console = new_console()
    try:
        coaching.run(
            Path(session),
            seed,
            TourConfig(short=short, published_rules=published_rules, first_edition=first_edition),
            console,
            lambda prompt: read_answer(prompt, console),
            advice=advice,
            time_limit=time_limit,
            ascii=ascii,
            given=given,
        )
    except Exception as error:
        if not caused_by_interrupt(error):  # Ctrl-C inside compiled code: a SystemError
            raise
        raise _interrupted(session) from None
    except KeyboardInterrupt:
        raise _interrupted(session) from None


def _interrupted(session: str) -> Interrupted:
    import shlex

    return Interrupted(
        f"interrupted: every step so far is saved in {session}; resume with: "
        f"emissary coach --session {shlex.quote(session)}"
    )


def review(
    session: Annotated[str, typer.Argument(help="A coach session file.")],
    ascii: AsciiOption = False,
    as_json: JsonOption = False,
) -> None:
    """Review a coached tour: each decision, the advice, what was played and what it cost in
    expected final score, and a summary."""
    from .review import review_json, review_view
    from .session import load

    if as_json:
        print_json(review_json(load(session)))
        return
    new_console().print(review_view(load(session), ascii))
