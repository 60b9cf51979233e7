"""Where numba keeps the compiled kernels (``@njit(cache=True)``), chosen before it loads.

numba caches a kernel in the ``__pycache__`` beside its source, else in the user's cache
folder (``$XDG_CACHE_HOME/numba``), or in ``$NUMBA_CACHE_DIR`` when set; when none of them
is writable (an installed, read-only package and a read-only home) it refuses to compile
at all: ``RuntimeError: cannot cache function``. :func:`ensure_jit_cache` runs when
``search`` is imported, before any kernel imports numba: if numba would find no writable
folder it names one in the temp folder, and if there is none even there it lets the
kernels compile uncached (every run then compiles them again, which costs seconds).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

SEARCH = Path(__file__).resolve().parents[1]
KERNEL_FOLDERS = ("visit", "firstedition")
"""The subpackages of ``search`` whose modules hold ``@njit(cache=True)`` kernels
(``tests/test_robust_jit.py`` checks that no other one does)."""


def ensure_jit_cache() -> str | None:
    """Make sure numba can cache the kernels, or compile them uncached; returns the cache
    folder this chose (None when numba's own choice is writable, or when there is none)."""
    own = os.environ.get("NUMBA_CACHE_DIR")
    if own and _writable(Path(own)):
        return None
    if all(_writable(SEARCH / folder / "__pycache__") for folder in KERNEL_FOLDERS):
        return None
    user = Path(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")) / "numba"
    if _writable(user):
        return None
    folder = _private_temp_folder()
    if folder is None:
        _compile_uncached()
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba read the environment already: tell it too
        config.CACHE_DIR = str(folder)
    return str(folder)


def _writable(folder: Path) -> bool:
    """What numba checks of a cache folder: it can be made, and a file written in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except (OSError, ValueError):
        return False
    return True


def _private_temp_folder() -> Path | None:
    """``$TMPDIR/emissary-numba-UID``, if it is ours alone (numba's cache files are code, so a
    folder another user could write is no place for them), else a fresh one; None if the
    temp folder takes no files either."""
    try:
        base = Path(tempfile.gettempdir())
    except (OSError, FileNotFoundError):
        return None
    uid = os.getuid() if hasattr(os, "getuid") else 0
    shared = base / f"emissary-numba-{uid}"
    try:
        shared.mkdir(mode=0o700, exist_ok=True)
        info = shared.lstat()
        private = (
            stat.S_ISDIR(info.st_mode)
            and info.st_uid == uid
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        )
        if private and _writable(shared):
            return shared
    except OSError:
        pass
    try:
        return Path(tempfile.mkdtemp(prefix="emissary-numba-"))
    except OSError:
        return None


def _compile_uncached() -> None:
    """Let a kernel whose cache numba cannot place compile without one."""
    from numba.core import dispatcher

    enable = dispatcher.Dispatcher.enable_caching
    if getattr(enable, "_emissary_uncached", False):
        return

    def enable_caching(self) -> None:
        try:
            enable(self)
        except RuntimeError:  # "cannot cache function": no folder anywhere; stay uncached
            pass

    enable_caching._emissary_uncached = True
    dispatcher.Dispatcher.enable_caching = enable_caching


def needs_compile(entry_points) -> bool | None:
    """Whether numba's cache lacks a usable copy of one of ``entry_points`` (none, or one
    older than its source), so that loading it means compiling; None where the cache cannot
    tell (its layout is numba's, not a public interface)."""
    try:
        return any(not entry._cache._cache_file._load_index() for entry in entry_points)
    except Exception:  # noqa: BLE001 - any change in numba's internals: say nothing rather than guess
        return None
