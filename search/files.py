"""Files written whole or not at all: a temp file beside the target, fsync, then rename."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO


class CannotCreateError(OSError):
    """The temp file could not be made: the folder is missing or not writable."""


def write_atomically(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write ``path`` through ``write(stream)``: a reader sees the old file or the new one,
    never a part; a crash leaves at most a ``.tmp`` file beside it. The file is readable by
    all (0o644), as an ordinary file would be."""
    try:
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise CannotCreateError(error.errno, error.strerror, str(path.parent)) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
