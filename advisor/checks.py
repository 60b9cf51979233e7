"""Checks of command-line values shared by the commands: each refuses a bad value with a
one-line reason naming its option."""

from __future__ import annotations

import typer


def check_seed(seed: int) -> None:
    if seed < 0:
        raise typer.BadParameter("the seed must be 0 or more", param_hint="--seed")


def check_workers(workers: int | None) -> None:
    if workers is not None and workers < 1:
        raise typer.BadParameter("give at least 1 worker", param_hint="--workers")


def check_seconds(seconds: float | None, option: str) -> None:
    if seconds is not None and not seconds > 0:
        raise typer.BadParameter("give a positive number of seconds", param_hint=option)
