"""Robust at the table (issue 15): the compiled kernels work with no writable cache folder."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from search.infra import jitcache

ROOT = Path(__file__).resolve().parents[1]

# A tiny kernel in a package laid out like search/, and a script that points jitcache at it.
KERNEL = "from numba import njit\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n"
SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from search.infra import jitcache

    jitcache.SEARCH = Path(sys.argv[1]) / "fake"
    if sys.argv[2] == "no temp folder":
        jitcache._private_temp_folder = lambda: None
    print(jitcache.ensure_jit_cache())
    sys.path.insert(0, sys.argv[1])
    from fake.visit.kernel import twice
    print(twice(21))
    """
)


def _unwritable_tree(tmp_path: Path) -> dict[str, str]:
    """A package whose kernel folders cannot hold a __pycache__ (a file stands in its place),
    and an environment whose user cache folder and NUMBA_CACHE_DIR lie under a file."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for folder in jitcache.KERNEL_FOLDERS:
        package = tmp_path / "fake" / folder
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "__pycache__").write_text("not a folder")
        (package / "kernel.py").write_text(KERNEL)
    (tmp_path / "fake" / "__init__.py").write_text("")
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "XDG_CACHE_HOME": str(blocker / "cache"),
        "NUMBA_CACHE_DIR": str(blocker / "numba"),
        "TMPDIR": str(tmp_path / "tmp"),
    }


@pytest.mark.parametrize("case", ["temp folder", "no temp folder"])
def test_kernels_compile_with_no_writable_cache_folder(tmp_path, case: str) -> None:
    """jitcache: with the package, the user cache and NUMBA_CACHE_DIR unwritable, a
    cache=True kernel caches in a private temp folder, or with none compiles uncached;
    never 'RuntimeError: cannot cache function'."""
    env = _unwritable_tree(tmp_path)
    (tmp_path / "tmp").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path), case],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    chosen, answer = done.stdout.split()
    assert answer == "42"
    if case == "temp folder":
        assert Path(chosen).parent == tmp_path / "tmp"
        assert list(Path(chosen).rglob("*.nbi")), "the kernel was cached there"
    else:
        assert chosen == "None"


def test_a_shared_temp_folder_someone_else_could_write_is_not_used(tmp_path, monkeypatch) -> None:
    """jitcache: a group- or world-writable emissary-numba-UID folder is passed over."""
    monkeypatch.setattr(jitcache.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(jitcache.tempfile, "tempdir", str(tmp_path))
    shared = tmp_path / f"emissary-numba-{os.getuid()}"
    shared.mkdir()
    shared.chmod(0o777)
    chosen = jitcache._private_temp_folder()
    assert chosen is not None and chosen != shared and chosen.parent == tmp_path
    shared.chmod(0o700)
    assert jitcache._private_temp_folder() == shared


def test_a_writable_package_leaves_numba_its_own_choice(monkeypatch) -> None:
    """jitcache: when numba can cache beside the sources nothing is changed."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    if not all(jitcache._writable(jitcache.SEARCH / f / "__pycache__") for f in jitcache.KERNEL_FOLDERS):
        pytest.skip("this checkout is read-only")
    assert jitcache.ensure_jit_cache() is None
    assert "NUMBA_CACHE_DIR" not in os.environ


def test_every_cached_kernel_lies_in_a_folder_jitcache_checks() -> None:
    """jitcache.KERNEL_FOLDERS names every subpackage with an @njit(cache=True) kernel."""
    for path in (ROOT / "search").rglob("*.py"):
        if re.search(r"^\s*@(numba\.)?n?jit\(.*cache=True", path.read_text(encoding="utf-8"), re.M):
            folder = path.relative_to(ROOT / "search").parts[0]
            assert folder in jitcache.KERNEL_FOLDERS, path


@pytest.mark.slow
def test_odds_works_from_a_read_only_copy_with_no_cache_folder(tmp_path) -> None:
    """odds: a copy of the package that cannot cache, and no user cache folder, still answers
    (the issue's 'RuntimeError: cannot cache function'); compiling takes about a minute."""
    copy = tmp_path / "copy"
    for package in ("search", "advisor"):
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in jitcache.KERNEL_FOLDERS:
        (copy / "search" / folder / "__pycache__").write_text("not a folder")
    env = _unwritable_tree(tmp_path)
    env["PYTHONPATH"] = str(copy)
    (tmp_path / "tmp").mkdir()
    args = ["odds", "AC 6C 3H 8H", "--trump", "C", "--target", "2", "--abilities", "H"]
    done = subprocess.run(
        [sys.executable, "-m", "advisor", *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Chance" in done.stdout
