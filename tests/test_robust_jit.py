"""Robust at the table (issue 15): the compiled kernels work with no writable cache folder."""

from __future__ import annotations

import ast
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
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
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
    if not all(
        jitcache._writable(jitcache.SEARCH / f / "__pycache__") for f in jitcache.KERNEL_FOLDERS
    ):
        pytest.skip("this checkout is read-only")
    assert jitcache.ensure_jit_cache() is None
    assert "NUMBA_CACHE_DIR" not in os.environ


def test_every_cached_kernel_lies_in_a_folder_jitcache_checks() -> None:
    """jitcache.KERNEL_FOLDERS names every subpackage with an @njit(cache=True) kernel."""
    for path in (ROOT / "search").rglob("*.py"):
        if re.search(
            r"^\s*@(numba\.)?n?jit\(.*cache=True", path.read_text(encoding="utf-8"), re.MULTILINE
        ):
            folder = path.relative_to(ROOT / "search").parts[0]
            assert folder in jitcache.KERNEL_FOLDERS, path


@pytest.mark.slow
def test_odds_works_from_a_read_only_copy_with_no_cache_folder(tmp_path) -> None:
    """odds: a copy of the package that cannot cache, and no user cache folder, still answers
    (the issue's 'RuntimeError: cannot cache function'); compiling takes about a minute."""
    copy = tmp_path / "copy"
    for package in ("search", "advisor"):
        shutil.copytree(
            ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    for folder in jitcache.KERNEL_FOLDERS:
        (copy / "search" / folder / "__pycache__").write_text("not a folder")
    env = _unwritable_tree(tmp_path)
    env["PYTHONPATH"] = str(copy)
    (tmp_path / "tmp").mkdir()
    args = ["odds", "AC 6C 3H 8H", "--trump", "C", "--target", "2", "--abilities", "H"]
    done = subprocess.run(
        [sys.executable, "-m", "advisor", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Chance" in done.stdout


RECURSIVE = {
    "_decide",
    "_worth",
    "_dist",
    "_option_score",
    "_option_vector",
    "_enter",
    "_certain",
}
"""Kernel functions whose compiled code holds the recursive ``_decide`` (or ``_certain``)."""


def _compiled_functions(tree):
    """The functions of a module that numba compiles (decorated with ``njit``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(
            "njit" in ast.unparse(decorator) for decorator in node.decorator_list
        ):
            yield node


def literal_calls_in(source: str) -> list[str]:
    """Calls from compiled code to a recursive kernel function with a literal argument. Calls
    from Python are typed by their values, so only compiled callers matter."""
    return [
        f"line {node.lineno}: {node.func.id}"
        for function in _compiled_functions(ast.parse(source))
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in RECURSIVE
        and any(isinstance(arg, ast.Constant) for arg in node.args)
    ]


def test_no_recursive_kernel_is_called_with_a_literal_number() -> None:
    """numba types a literal argument apart (``Literal[int](0)``), compiling a second copy of
    the recursive ``_decide``; a cache holding two copies segfaults when loaded (numba issue
    6061). Every argument compiled code passes to those functions must be a variable."""
    assert literal_calls_in((ROOT / "search" / "visit" / "kernel.py").read_text()) == []


def test_the_literal_check_finds_a_literal_in_compiled_code() -> None:
    """The check above can fail: a compiled caller passing ``0`` is found, a Python one is not."""
    source = textwrap.dedent(
        """
        @njit(cache=True)
        def _military_pays(after, pool):
            return _worth(after, 0, pool)

        def from_python():
            return _enter(0, 1)
        """
    )
    assert literal_calls_in(source) == ["line 4: _worth"]


@pytest.mark.slow
def test_the_kernel_loads_from_its_own_cache(tmp_path) -> None:
    """Compile the kernel into an empty cache, then play every-Jack playouts in a second
    process that loads it: no crash, the same wins."""
    script = textwrap.dedent(
        """
        from tests.test_fastplay import ROOTS, _compiled_wins
        from search.visit import make_solver
        from search.visit.lookahead import solve_roots
        from tests.test_fastplay import STATE

        solver = make_solver()
        roots = solve_roots(solver, STATE, None, None, ROOTS)
        print(_compiled_wins(solver, roots, 4, 20))
        """
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        for _ in range(2)
    ]
    assert [run.returncode for run in runs] == [0, 0], runs[-1].stderr[-500:]
    assert runs[0].stdout == runs[1].stdout
