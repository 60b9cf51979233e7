"""Files written whole or not at all (a temp file beside the target, fsync, then rename), and
JSON files a user hands the tool, read with care."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


class CannotCreateError(OSError):
    """The temp file could not be made: the folder is missing or not writable."""


_BRIEF = 40  # characters of a file's text an error message quotes


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


# --- reading -----------------------------------------------------------------


class UnreadableFileError(ValueError):
    """A file that is not the JSON it should be; the message is one line naming it."""


def read_json(path: str | os.PathLike, what: str, max_bytes: int, max_depth: int) -> Any:
    """The JSON data in ``path`` (a ``what``, e.g. "session file"): a regular UTF-8 file of at
    most ``max_bytes`` holding plain JSON (no NaN or Infinity, nested at most ``max_depth``
    deep), or :class:`UnreadableFileError` saying in one line, naming the file, what is wrong."""
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
    return text if len(text) <= 2 * _BRIEF else text[: 2 * _BRIEF - 1] + "…"


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


def read_arrays(
    path: str | os.PathLike, what: str, max_bytes: int, columns: dict[str, tuple[str, int]]
) -> dict:
    """The arrays of the ``.npz`` file ``path`` (a ``what``, e.g. "sweep chunk"): a regular
    file of at most ``max_bytes``, every member's CRC-32 checked, no pickled objects, and
    each of ``columns`` present with its dtype kind and number of dimensions
    (``{"mask": ("u", 1)}``: kind ``u``, ``i``, ``f`` or ``b`` as numpy names them);
    otherwise :class:`UnreadableFileError` saying in one line, naming the file, what is wrong."""
    import zipfile

    import numpy as np

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
        with zipfile.ZipFile(path) as archive:
            broken = archive.testzip()  # reads every member through, checking its CRC
        if broken is not None:
            raise UnreadableFileError(f"{path}: damaged {what} (bad checksum in {broken})")
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except UnreadableFileError:
        raise
    except Exception as error:  # noqa: BLE001 - zip, zlib and numpy each raise their own
        reason = _clip(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)
        raise UnreadableFileError(f"{path}: damaged {what} ({reason})") from None
    for name, (kind, ndim) in columns.items():
        array = arrays.get(name)
        if array is None:
            raise UnreadableFileError(f"{path}: damaged {what} (no {name!r} column)")
        if array.dtype.kind != kind or array.ndim != ndim:
            raise UnreadableFileError(
                f"{path}: damaged {what} ({name!r} holds {array.dtype}, {array.ndim}-D)"
            )
    return arrays
