"""One coach a session file: a lock held, while a coach plays, on a side file beside it.

Two coaches on one file would each save their own game over the other's (the last writer
wins, an undo silently reverted, steps dropped after "Saved"). The lock is an ``flock`` on
``.NAME.lock`` beside the session (its target, for a symlink), not on the session itself,
which every save replaces by a rename. The side file holds the holder's process id, for the
message a second coach gets; the lock ends with the process however it ends (``kill -9``
included), and the side file is left in place: removing it would let a third coach lock a
new file while the second still holds the old one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .session_events import SessionError

try:
    import fcntl
except ImportError:  # no flock (Windows): one coach a file is then the player's care
    fcntl = None


class SessionInUseError(SessionError):
    """Another coach holds the session file."""


def lock_path(path: str | os.PathLike) -> Path:
    """The side file whose lock stands for the session at ``path``."""
    real = Path(os.path.realpath(path))
    return real.with_name(f".{real.name}.lock")


@contextmanager
def hold(path: str | os.PathLike) -> Iterator[None]:
    """Hold the session at ``path`` for this process, or raise :class:`SessionInUseError`
    naming the process that holds it; the session file itself is not touched. Where no
    side file can be made (a missing or read-only folder) nothing is locked."""
    if fcntl is None:
        yield
        return
    side = lock_path(path)
    try:
        fd = os.open(side, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:  # no folder, or one we may not write in: no coach can save there either,
        yield  # and the coach's own checks say so in their words
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            raise SessionInUseError(
                f"{path}: another coach ({holder}) is playing this session; quit it first, "
                "or choose another --session"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # releases the lock


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    return f"process {text}" if text.isdigit() else "a process starting up"
