"""Files written whole or not at all: a temp file beside the target, fsync, then rename."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO


class CannotCreateError(OSError):
    """The temp file could not be made: the folder is missing or not writable."""


TEMP_SUFFIX = ".tmp"
# tempfile.mkstemp's names: 8 characters from this alphabet between our prefix and suffix.
_TEMP_RANDOM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
_TEMP_RANDOM_LENGTH = 8


def write_temp(path: Path, write: Callable[[IO[bytes]], None]) -> Path:
    """A new temp file beside ``path`` (``.name.XXXXXXXX.tmp``), filled by ``write(stream)``,
    fsynced and readable by all (0o644, as an ordinary file would be); removed on failure."""
    try:
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    except OSError as error:
        raise CannotCreateError(error.errno, error.strerror, str(path.parent)) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temp, 0o644)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return Path(temp)


def write_atomically(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write ``path`` through ``write(stream)``: a reader sees the old file or the new one,
    never a part; a crash leaves at most a ``.tmp`` file beside it. The folder is fsynced
    too, so the rename itself survives a power cut. A symlink is followed: the file it
    points to is replaced, and the link stays."""
    path = Path(os.path.realpath(path))
    temp = write_temp(path, write)
    try:
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)


def fsync_directory(directory: Path) -> None:
    """Flush a folder's entries (best effort: some systems cannot open a folder)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def temp_files_of(path: Path) -> list[Path]:
    """The temp files :func:`write_temp` may have left beside ``path``, matched by exact name.

    Names are compared as strings, never as a glob pattern, so a ``path`` holding ``*`` or
    ``[`` matches only its own temp files; symlinks and folders are never listed.
    """
    path = Path(path)
    prefix = f".{path.name}."
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    found = []
    for name in names:
        middle = name[len(prefix) : -len(TEMP_SUFFIX)]
        if (
            name.startswith(prefix)
            and name.endswith(TEMP_SUFFIX)
            and len(name) == len(prefix) + _TEMP_RANDOM_LENGTH + len(TEMP_SUFFIX)
            and set(middle) <= _TEMP_RANDOM
            and (path.parent / name).is_file()
            and not (path.parent / name).is_symlink()
        ):
            found.append(path.parent / name)
    return sorted(found)
