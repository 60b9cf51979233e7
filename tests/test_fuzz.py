"""Seeded fuzzing of the command line (issue 15): no input, however mangled, gives a traceback.

Each case is a command (deal, odds, review, sweep-report, simulate) with valid, near-valid
(mutated) or garbage arguments, run in process through ``advisor.cli.main``. Every run must
end with exit code 0, 1 or 2, at most 3 lines on stderr, no traceback and no internal error,
and the files it was given (session files, sweep folders) must be left byte for byte.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import sys
from pathlib import Path

import pytest

from advisor import cli
from advisor.session import Session, encode_action
from search.game.rules import legal_actions

ROOT = Path(__file__).resolve().parent.parent
SUMMARY_EXAMPLE = ROOT / "sweeps" / "c-1000-summary.json"
CARDS = [rank + suit for suit in "CDHS" for rank in "A2345678"]
SUITS = ["C", "D", "H", "S", "♣", "♦", "♥", "♠", "Kr", "Ka", "P", "♥\ufe0f"]
# Characters a paste or a slip of the hand brings: separators, controls, markup, lookalikes.
NOISE = [
    " ",
    ",",
    "\t",
    "\n",
    "\r",
    "\x00",
    "\x1b",
    "\x7f",
    "\x85",
    "[",
    "]",
    "[/red]",
    "♥",
    "\ufe0f",
    "\u200b",
    "9",
    "10",
    "J",
    "K",
    "Q",
    "0",
    "-",
    "é",
    "🂡",
    "'",
    '"',
    "\\",
    "%s",
    "{}",
]
GARBAGE = ["", " ", "-", "--", "nan", "inf", "-1", "0", "1e9", "9" * 40, "x" * 200, "\x00", "[b]"]
JSON_VALUES = [
    None,
    True,
    False,
    -1,
    0,
    10**30,
    1.5,
    "x",
    "[/red]",
    "",
    [],
    {},
    [[[[[]]]]],
    "9" * 50,
]


def mutate_text(rng: random.Random, text: str) -> str:
    """``text`` with one slip: a character inserted, dropped or doubled, cut, or padded."""
    choice = rng.randrange(6)
    at = rng.randrange(len(text) + 1)
    if choice == 0:
        return text[:at] + rng.choice(NOISE) + text[at:]
    if choice == 1 and text:
        return text[:at] + text[at + 1 :]
    if choice == 2:
        return text + " " + text
    if choice == 3:
        return text[:at]
    if choice == 4:
        return text[:at] + rng.choice(NOISE) * rng.randrange(1, 300) + text[at:]
    return rng.choice(GARBAGE)


def some(rng: random.Random, valid: list[str], near: float = 0.3, garbage: float = 0.1) -> str:
    """A valid value, a mutated one or garbage."""
    roll = rng.random()
    if roll < garbage:
        return rng.choice(GARBAGE)
    value = rng.choice(valid)
    return mutate_text(rng, value) if roll < garbage + near else value


def mutate_json(rng: random.Random, text: str) -> bytes:
    """The JSON ``text`` with a value swapped or a key dropped somewhere, or its bytes hurt."""
    if rng.random() < 0.3:
        raw = text.encode()
        at = rng.randrange(len(raw) + 1)
        return rng.choice(
            [
                raw[:at],
                raw[:at] + bytes([rng.randrange(256)]) + raw[at + 1 :],
                raw[:at]
                + rng.choice([b"NaN", b"Infinity", b"\xff\xfe", b"[" * 5000, b"}"])
                + raw[at:],
                b"",
            ]
        )
    data = json.loads(text)
    node = data
    for _ in range(rng.randrange(1, 6)):
        if isinstance(node, dict) and node:
            key = rng.choice(list(node))
        elif isinstance(node, list) and node:
            key = rng.randrange(len(node))
        else:
            break
        if rng.random() < 0.4 or not isinstance(node[key], dict | list) or not node[key]:
            if isinstance(node, dict) and rng.random() < 0.3:
                del node[key]
            else:
                node[key] = rng.choice(JSON_VALUES)
            break
        node = node[key]
    return json.dumps(data).encode()


def played_session_text() -> str:
    """A seeded session some steps in, with advice on its decisions, as saved."""
    session = Session.new(mode="seeded", seed=11)
    while len(session.events) < 8 and session.replay().phase != "over":
        state = session.replay()
        if state.phase == "hand":
            event = {"type": "hand", "cards": session.next_hand()}
        elif state.phase == "card":
            event = {"type": "card", "card": session.next_chance_card()}
        elif state.phase == "kingdom":
            best = state.tour.unvisited[0]
            advice = {"best": best, "chances": {str(best): 0.4}, "played": 0.4}
            event = {"type": "kingdom", "position": best, "advice": advice}
        else:
            action = encode_action(legal_actions(state.visit)[0])
            advice = {"best": "d", "chance": 0.5, "played": 0.5}
            event = {"type": "action", "action": action, "advice": advice}
        session = session.append(event)
    return json.dumps(session.to_json(), indent=1)


class Fuzzer:
    """Builds one case at a time: the arguments and the files they name."""

    def __init__(self, rng: random.Random, folder: Path) -> None:
        self.rng = rng
        self.folder = folder
        self.session = played_session_text()
        self.summary = SUMMARY_EXAMPLE.read_text()
        self.count = 0

    def case(self) -> list[str]:
        self.count += 1
        kind = self.rng.choice(["deal", "odds", "odds", "review", "sweep-report", "simulate"])
        args = getattr(self, kind.replace("-", "_"))()
        if self.rng.random() < 0.05:  # an option dropped, doubled or mangled
            at = self.rng.randrange(len(args))
            args = args[:at] + [mutate_text(self.rng, args[at])] + args[at + 1 :]
        return args

    def deal(self) -> list[str]:
        args = ["deal", "--seed", some(self.rng, ["0", "3", "20261130", str(2**62)])]
        args += self.flags(["--short", "--json", "--ascii"])
        if self.rng.random() < 0.3:
            args += ["--variant", some(self.rng, ["standard", "first-edition"])]
        return args

    def odds(self) -> list[str]:
        cards = self.rng.sample(CARDS, self.rng.randrange(1, 9))
        hand = self.rng.choice([" ", ",", ", "]).join(cards)
        if self.rng.random() < 0.4:
            hand = mutate_text(self.rng, hand)
        args = ["odds", hand, "--trump", some(self.rng, SUITS)]
        args += ["--target", some(self.rng, [str(t) for t in range(1, 9)])]
        args += ["--abilities", some(self.rng, ["none", "H"], near=0.2, garbage=0.05)]
        args += ["--time-limit", self.rng.choice(["0.5"] * 8 + ["abc", "-1", "nan"])]
        return args + self.flags(["--json", "--ascii"])

    def review(self) -> list[str]:
        path = self.folder / f"session-{self.count}[x].json"
        roll = self.rng.random()
        content = self.session.encode() if roll < 0.15 else mutate_json(self.rng, self.session)
        path.write_bytes(content)
        return ["review", str(path), *self.flags(["--ascii"])]

    def sweep_report(self) -> list[str]:
        folder = self.folder / f"sweep-{self.count}"
        folder.mkdir()
        roll = self.rng.random()
        if roll < 0.7:
            (folder / "summary.json").write_bytes(mutate_json(self.rng, self.summary))
        elif roll < 0.9:
            manifest = json.dumps({"chunks": 3, "parameters": {}})
            (folder / "manifest.json").write_bytes(mutate_json(self.rng, manifest))
        return ["sweep-report", str(folder), *self.flags(["--ascii"])]

    def simulate(self) -> list[str]:
        args = ["simulate", "--tours", self.rng.choice(["2"] * 6 + ["0", "-2", "abc", "9" * 20])]
        args += ["--seed", some(self.rng, ["1", "7", "123456789"])]
        args += ["--policy", some(self.rng, ["greedy", "random", "greedy,random"])]
        if self.rng.random() < 0.2:
            args += ["--variant", some(self.rng, ["standard", "first-edition"])]
        return args + self.flags(["--json", "--short"])

    def flags(self, options: list[str]) -> list[str]:
        return [option for option in options if self.rng.random() < 0.3]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run(args: list[str]) -> tuple[int, str, str]:
    """``emissary args`` in process; (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    sys.argv = ["emissary", *args]
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli.main()
        except SystemExit as done:
            code = 0 if done.code is None else done.code
    return code, out.getvalue(), err.getvalue()


def fuzz(seed: int, cases: int, folder: Path, monkeypatch) -> None:
    monkeypatch.delenv("EMISSARY_DEBUG", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(folder / "state"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(sys, "argv", ["emissary"])
    monkeypatch.chdir(folder)
    fuzzer = Fuzzer(random.Random(seed), folder)
    for number in range(cases):
        args = fuzzer.case()
        before = snapshot(folder)
        code, out, err = run(args)
        shown = f"case {number}: emissary {args!r}\nstderr: {err!r}"
        assert "Traceback" not in out + err, shown
        assert "internal error" not in err, shown
        assert code in (0, 1, 2), f"exit {code}; {shown}"
        assert len(err.splitlines()) <= 3, shown
        after = snapshot(folder)
        assert {k: v for k, v in after.items() if k in before} == before, f"a file changed; {shown}"


def test_fuzzed_command_lines_never_give_a_traceback(tmp_path, monkeypatch) -> None:
    """CLI: 200 seeded fuzz cases over five commands end in exit 0/1/2, one short error."""
    fuzz(15, 200, tmp_path, monkeypatch)


@pytest.mark.slow
def test_fuzzed_command_lines_at_length(tmp_path, monkeypatch) -> None:
    """CLI: the same checks over 10,000 cases (slow; run with `pytest -m slow`)."""
    fuzz(1515, 10_000, tmp_path, monkeypatch)
