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
    """A new temp file beside ``path`` (``.name.PID.XXXXXXXX.tmp``: the writer's process id
    and 8 random characters, created exclusively, so no two writers share one), filled by
    ``write(stream)``, fsynced and readable by all (0o644, as an ordinary file would be);
    removed on failure."""
    try:
        handle, temp = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=TEMP_SUFFIX
        )
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
    return [temp for temp in _temp_files(path.parent) if _temp_parts(temp.name)[0] == path.name]


def leftover_temp_files(folder: Path, path: Path | None = None) -> list[Path]:
    """The temp files in ``folder`` (beside ``path`` only, if given) whose writer has exited:
    what a killed write left. A live writer's file (another process saving now) is not one."""
    found = temp_files_of(path) if path is not None else _temp_files(Path(folder))
    return [temp for temp in found if not _alive(_temp_parts(temp.name)[1])]


def _temp_files(folder: Path) -> list[Path]:
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(
        folder / name
        for name in names
        if _temp_parts(name) is not None
        and (folder / name).is_file()
        and not (folder / name).is_symlink()
    )


def _temp_parts(name: str) -> tuple[str, int] | None:
    """(target name, writer's pid) of a :func:`write_temp` name, else None."""
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
        return None
    parts = name[1 : -len(TEMP_SUFFIX)].rsplit(".", 2)
    if len(parts) != 3:
        return None
    target, pid, random = parts
    if not (
        target
        and pid.isascii()
        and pid.isdigit()
        and len(pid) <= 10
        and len(random) == _TEMP_RANDOM_LENGTH
        and set(random) <= _TEMP_RANDOM
    ):
        return None
    return target, int(pid)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (or may: one we may not signal counts as running)."""
    if pid == os.getpid():
        return True
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: someone else's process
        return True
    return True
