"""JSON files a user hands the tool, read with care: a regular UTF-8 file of bounded size
holding plain JSON (no NaN or Infinity, bounded nesting), or one line saying what is wrong."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

BRIEF = 40  # characters of a file's text an error message quotes


class UnreadableFileError(ValueError):
    """A file that is not the JSON it should be; the message is one line naming it."""


def read_json(path: str | os.PathLike, what: str, max_bytes: int, max_depth: int) -> Any:
    """The JSON data in ``path`` (a ``what``, e.g. "session file"), checked as above."""
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UnreadableFileError(f"{path}: no such {what}") from None
    except (OSError, ValueError) as error:
        raise UnreadableFileError(f"{path}: cannot be read: {_reason(error)}") from None
    if not stat.S_ISREG(info.st_mode):
        raise UnreadableFileError(f"{path}: not a {what} (not a regular file)")
    if info.st_size > max_bytes:
        raise UnreadableFileError(f"{path}: too large for a {what} ({info.st_size:,} bytes)")
    try:
        with path.open("rb") as stream:
            raw = stream.read(max_bytes + 1)
    except OSError as error:
        raise UnreadableFileError(f"{path}: cannot be read: {_reason(error)}") from None
    if len(raw) > max_bytes:
        raise UnreadableFileError(f"{path}: too large for a {what}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnreadableFileError(f"{path}: not UTF-8 text (byte {error.start})") from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise UnreadableFileError(
            f"{path}: not valid JSON ({error}); the file may be truncated"
        ) from None
    except RecursionError:
        raise UnreadableFileError(f"{path}: not a {what} (JSON nested too deeply)") from None
    except ValueError as error:  # NaN or Infinity, or an integer of thousands of digits
        raise UnreadableFileError(f"{path}: not valid JSON ({_clip(str(error))})") from None
    if _depth(data, max_depth) > max_depth:
        raise UnreadableFileError(f"{path}: not a {what} (JSON nested too deeply)")
    return data


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number such a file holds")


def _reason(error: BaseException) -> str:
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


def _clip(text: str) -> str:
    return text if len(text) <= 2 * BRIEF else text[: 2 * BRIEF - 1] + "…"


def _depth(data: Any, max_depth: int) -> int:
    """How deep lists and objects nest in ``data`` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, level)
            if level > max_depth:
                break
            stack.extend((item, level + 1) for item in value)
    return deepest
