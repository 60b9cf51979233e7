"""A clone is the whole project: no tracked file reads or links outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The folder the reference values and the rules came from, beside the repository. Written in
# pieces so that this file's own text is checked like every other file's.
OUTSIDE = re.compile(r"\.\./+" + "shared" + r"\b|\b" + "shared" + r"/(?:reference|rules)\b")
# Markdown links and images: [text](target) and ![alt](target); the target up to a space or ")".
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)")


def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: no list of tracked files")
    return [ROOT / name for name in listed.decode().split("\0") if name]


def text_of(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
        return None  # binary data (.npz, .png), or deleted in the working tree


def outside_links(path: Path, text: str) -> list[str]:
    """The relative link targets in ``text`` that resolve outside the repository."""
    found = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:|#|/", target):  # a URL, an anchor, or site-absolute
            continue
        resolved = (path.parent / target.split("#")[0]).resolve()
        if not resolved.is_relative_to(ROOT):
            found.append(target)
    return found


def test_the_checks_see_what_they_look_for() -> None:
    """The patterns find a path outside the repository and a link that climbs out of it."""
    assert OUTSIDE.search("from ../" + "shared" + "/reference/x.json")
    assert OUTSIDE.search("see " + "shared" + "/rules/RULINGS.md")
    assert not OUTSIDE.search("the shared solver, _SHARED, shared_memo")
    readme = ROOT / "README.md"
    assert outside_links(readme, "[rules](../elsewhere/RULES.md)") == ["../elsewhere/RULES.md"]
    assert outside_links(readme, "[rules](docs/rules.md#r1) [x](https://example.org/a)") == []


def test_no_tracked_file_reads_or_links_outside_the_repository() -> None:
    """Every tracked text file (code, tests, README.md, docs/): no path into the reference
    folder beside the repository, and no Markdown link that leaves the repository."""
    problems = []
    for path in tracked_files():
        text = text_of(path)
        if text is None:
            continue
        name = path.relative_to(ROOT)
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                problems.append(f"{name}:{number}: {line.strip()[:100]}")
        if path.suffix in (".md", ".markdown"):
            problems += [f"{name}: link to {target}" for target in outside_links(path, text)]
    assert not problems, "outside the repository:\n" + "\n".join(problems)


def test_the_reference_values_are_inside_the_repository() -> None:
    """The reference data the tests compare with lives in tests/data, with its origin."""
    for name in ("kingdom_cases.json", "jacks_lower_bounds.json", "README.md"):
        assert (ROOT / "tests" / "data" / name).is_file(), name
