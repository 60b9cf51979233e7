"""The documentation is plain Markdown, checked here in the ordinary test run: every relative
link and image in README.md and docs/*.md points at a file tracked by git (and, for an
``#anchor``, at a heading of that file), every docs/ page is linked from the README, and the
README stays short enough to read (at most 200 lines)."""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"

# [text](target) and ![alt](target); the target stops at whitespace or ')'. Code spans and
# fenced blocks are removed first, so that example text is not read as a link.
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.DOTALL | re.MULTILINE)
CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _tracked() -> set[str]:
    """The files git tracks; outside a git work tree (an unpacked archive), every file there."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*") if p.is_file()}
    return {name for name in out.stdout.decode().split("\0") if name}


def _pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def _prose(text: str) -> str:
    return CODE.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    """The link and image targets of a Markdown text, outside code."""
    return LINK.findall(_prose(text))


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to '-'."""
    text = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file (repeated headings get -1, -2, ... as on GitHub)."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text())):
        base = anchor(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def broken_links(page: Path, tracked: set[str], text: str | None = None) -> list[str]:
    """The relative links of ``page`` (or of ``text`` as if it were there) that do not resolve,
    each with the reason."""
    broken = []
    for target in links(page.read_text() if text is None else text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):  # http:, https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        try:
            name = file.relative_to(ROOT).as_posix()
        except ValueError:
            broken.append(f"{target}: outside the repository")
            continue
        if path and name not in tracked and not any(t.startswith(name + "/") for t in tracked):
            broken.append(f"{target}: {name} is not a tracked file")
        elif fragment and (file.suffix != ".md" or fragment not in anchors(file)):
            broken.append(f"{target}: no heading #{fragment} in {name}")
    return broken


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_and_image_resolves(page):
    assert broken_links(page, _tracked()) == []


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in links(README.read_text())}
    missing = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert missing == []


def test_readme_is_at_most_200_lines():
    assert len(README.read_text().splitlines()) <= 200


def test_the_readme_test_command_is_the_one_ci_runs():
    command = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest"
    assert command in (ROOT / ".ci" / "run").read_text()
    assert command in README.read_text()


def test_the_link_check_finds_broken_links():
    """The check itself can fail: a missing file, a missing heading, a path outside the tree;
    a good link, a link in code and a web address pass."""
    text = (
        "[a](nowhere.md) [b](rules.md#no-such-heading) ![c](../../outside.png) [d](rules.md)"
        " [e](rules.md#4-abilities) `[f](gone.md)` [g](https://example.org/x)\n"
    )
    found = broken_links(DOCS / "probe.md", _tracked(), text)
    assert [b.split(":")[0] for b in found] == [
        "nowhere.md",
        "rules.md#no-such-heading",
        "../../outside.png",
    ]


def test_anchors_follow_github():
    assert anchor("4. Abilities") == "4-abilities"
    assert anchor("The `advise` command") == "the-advise-command"
    assert anchor("First edition (2019 rules)") == "first-edition-2019-rules"
