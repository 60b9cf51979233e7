"""Seeded fuzzing of the command line (issue 15): no input, however mangled, gives a traceback.

Each case is a command (deal, odds, review, sweep-report, simulate, move, advise, coach with a
scripted or closed stdin, analyse) with valid, near-valid (mutated) or garbage arguments, run
in process through ``advisor.cli.main``. Every run must end with exit code 0, 1 or 2, at most
3 lines on stderr, no traceback and no internal error; the files it was given (session files,
sweep folders) must be left byte for byte; an input certainly bad (a control character, NaN,
an infinite time, a truncated file...) must not exit 0; and a search must end within its
``--time-limit`` + 10% and a start-up allowance. The run prints its counts of each.
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from advisor import cli
from advisor.session import Session
from advisor.session_events import encode_action
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


def mutate_json(rng: random.Random, text: str) -> tuple[bytes, bool]:
    """The JSON ``text`` with a value swapped or a key dropped somewhere, or its bytes hurt;
    and whether the result is certainly no valid file (cut short, empty, not UTF-8)."""
    if rng.random() < 0.3:
        raw = text.encode()
        at = rng.randrange(len(raw) + 1)
        choice = rng.randrange(4)
        if choice == 0:
            return raw[:at], at < len(raw)
        if choice == 1:
            return raw[:at] + bytes([rng.randrange(256)]) + raw[at + 1 :], False
        if choice == 2:
            extra = rng.choice([b"NaN", b"Infinity", b"\xff\xfe", b"[" * 5000, b"}"])
            return raw[:at] + extra + raw[at:], extra == b"\xff\xfe"
        return b"", True
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
    return json.dumps(data).encode(), False


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


RULER_ROWS = ["KS QH QS QD KD KC KH QC", "K♠ Q♥ Q♠ Q♦ K♦ K♣ K♥ Q♣", "- QH QS - KD KC KH QC"]
SHORT_ROWS = ["KS KD KC KH", "- KD KC -"]
SECONDS = ["0.2"] * 12 + ["0.1"]
BAD_SECONDS = ["abc", "-1", "nan", "inf", "0", "1e400", "-inf"]
CONTROLS = ["\r", "\x00", "\x1b", "\x7f", "\x85"]
COACH_LINES = [
    "",
    "",
    "d",
    "1",
    "4",
    "quit",
    "undo",
    "state",
    "help",
    "x" * 200,
    "\x1b[31m",
    "[/red]",
    "JH",
    "7H",
    "AC 2D",
    "9",
    "-1",
]


@dataclass
class Case:
    """One fuzz case: the command line, the coach's stdin, and what to expect of it."""

    args: list[str]
    stdin: str = ""
    bad: bool = False  # an input certainly wrong: it must not exit 0
    budget: float | None = None  # the seconds of search it may take (its time limits)
    writes: Path | None = None  # a file it may rewrite when it succeeds (a resumed session)


class Fuzzer:
    """Builds one case at a time: the arguments and the files they name."""

    KINDS = (
        "deal",
        "odds",
        "odds",
        "review",
        "sweep-report",
        "simulate",
        "move",
        "move",
        "advise",
        "coach",
        "analyse",
    )

    def __init__(self, rng: random.Random, folder: Path, light: bool = False) -> None:
        self.rng = rng
        self.folder = folder
        self.light = light  # CI: most searches (advise, coach's advice, analyse) turned away
        self.session = played_session_text()
        self.summary = SUMMARY_EXAMPLE.read_text()
        self.count = 0

    def case(self) -> Case:
        self.count += 1
        kind = self.rng.choice(self.KINDS)
        case = getattr(self, kind.replace("-", "_"))()
        if isinstance(case, list):
            case = Case(case, bad=self._bad)
        self._bad = False
        if self.rng.random() < 0.05:  # an option dropped, doubled or mangled
            at = self.rng.randrange(len(case.args))
            mangled = mutate_text(self.rng, case.args[at])
            if at and case.args[at - 1] == "--time-limit" and case.budget is not None:
                # the budget follows the limit typed: "0.2" mangled to "02" allows 2 s
                old = _seconds(case.args[at])
                case.budget = case.budget * _seconds(mangled) / old if old else None
            case.args = case.args[:at] + [mangled] + case.args[at + 1 :]
            case.bad = False  # a mangled bad value may have turned good
        return case

    _bad = False

    def mark(self, value: str, bad_values) -> str:
        """``value``, noting the case as certainly bad if it is one of ``bad_values``."""
        if value in bad_values:
            self._bad = True
        return value

    def seconds(self) -> str:
        return self.mark(
            self.rng.choice(SECONDS + BAD_SECONDS[: self.rng.randrange(2)]), BAD_SECONDS
        )

    def hand_text(self, cards: list[str]) -> str:
        hand = self.rng.choice([" ", ",", ", "]).join(cards)
        roll = self.rng.random()
        if roll < 0.05:  # a control character pasted in: refused, never read past
            at = self.rng.randrange(len(hand) + 1)
            self._bad = True
            return hand[:at] + self.rng.choice(CONTROLS) + hand[at:]
        return mutate_text(self.rng, hand) if roll < 0.3 else hand

    def deal(self) -> list[str]:
        args = ["deal", "--seed", some(self.rng, ["0", "3", "20261130", str(2**62)])]
        args += self.flags(["--short", "--json", "--ascii"])
        if self.rng.random() < 0.3:
            args += ["--variant", some(self.rng, ["standard", "first-edition"])]
        return args

    def odds(self) -> Case:
        count = self.rng.randrange(1, 10) if self.rng.random() < 0.1 else self.rng.randrange(1, 9)
        cards = self.rng.sample(CARDS, count)
        self._bad |= count > 8
        args = ["odds", self.hand_text(cards), "--trump", some(self.rng, SUITS)]
        args += ["--target", some(self.rng, [str(t) for t in range(1, 9)])]
        args += ["--abilities", some(self.rng, ["none", "H"], near=0.2, garbage=0.05)]
        seconds = self.seconds()
        args += ["--time-limit", seconds]
        if self.rng.random() < 0.1:
            payoffs = ["12.4,7,1", "1,0,0", "nan,nan,nan", "inf,0,1", "1,2", "1e400,0,0"]
            args += ["--payoffs", self.mark(self.rng.choice(payoffs), payoffs[2:])]
        args += self.flags(["--json", "--ascii"])
        # odds: the exact search, then an estimate of about as long (its --help)
        return Case(args, bad=self._bad, budget=2 * _seconds(seconds))

    def move(self) -> Case:
        count = (
            self.rng.choice([*range(1, 9), 9, 11])
            if self.rng.random() < 0.1
            else self.rng.randrange(1, 9)
        )
        commerce = self.rng.random() < 0.1
        self._bad |= count > (10 if commerce else 8)
        if commerce and count <= 10:
            # A pending Commerce discard is solved exactly whatever --time-limit (rank_moves):
            # with abilities left that can run for minutes (reported, issue 15); fuzz it with
            # every Jack spent and a smaller hand.
            count = min(count, 6)
        cards = self.rng.sample(CARDS, count + 4)
        hand, seen = cards[:count], cards[count:]
        short = self.rng.random() < 0.15
        rows = SHORT_ROWS if short else RULER_ROWS
        args = [
            "move",
            "--kingdom",
            some(self.rng, ["1", "2", "3", "4"] if short else ["1", "4", "6", "8"]),
        ]
        args += [
            "--hand",
            self.hand_text(hand),
            "--rulers",
            some(self.rng, rows, near=0.1, garbage=0.05),
        ]
        seconds = self.seconds()
        args += ["--time-limit", seconds]
        roll = self.rng.random()
        if roll < 0.3:
            args += ["--discard", " ".join(seen[:2]), "--won-cards", seen[2], "--wins", "1"]
        elif roll < 0.4:
            args += ["--ruler-card", some(self.rng, seen[:1], near=0.1, garbage=0.05)]
        if self.rng.random() < 0.15 and not commerce:
            args += [
                "--jacks-used",
                some(self.rng, ["H", "C", "S", "D", "HC"], near=0.1, garbage=0.05),
            ]
        if commerce:
            args += ["--commerce-discard", "--jacks-used", "HCSD"]
        if self.rng.random() < 0.1:
            args += ["--variant", "first-edition"]
        args += self.flags(["--json", "--ascii"] + (["--short"] if short else []))
        return Case(args, bad=self._bad, budget=_seconds(seconds))

    def advise(self) -> Case:
        count = 8 if self.rng.random() < 0.8 else self.rng.randrange(1, 10)
        self._bad |= count > 8
        short = self.rng.random() < 0.3
        rows = SHORT_ROWS if short else RULER_ROWS
        args = ["advise", self.hand_text(self.rng.sample(CARDS, count))]
        args += ["--rulers", some(self.rng, rows, near=0.1, garbage=0.05)]
        seconds = self.seconds()
        if self.light and self.rng.random() < 0.75:
            seconds = self.mark(self.rng.choice(BAD_SECONDS), BAD_SECONDS)
        args += ["--time-limit", seconds]
        if self.rng.random() < 0.2:
            args += ["--objective", some(self.rng, ["score", "perfect"])]
        if self.rng.random() < 0.1:
            args += ["--variant", "first-edition"]
        args += self.flags(["--json", "--ascii"] + (["--short"] if short else []))
        return Case(args, bad=self._bad, budget=_seconds(seconds))

    def coach(self) -> Case:
        path = self.folder / f"coach-{self.count}[x].json"
        writes = None
        if self.rng.random() < 0.3:  # resume a saved game, or try to
            content, self._bad = (
                mutate_json(self.rng, self.session)
                if self.rng.random() < 0.7
                else (self.session.encode(), False)
            )
            path.write_bytes(content)
            writes = path
        args = ["coach", "--session", str(path)]
        if writes is None or self.rng.random() < 0.2:
            args += ["--seed", some(self.rng, ["3", "11", "20261130"])]
        seconds = self.seconds()
        args += ["--time-limit", seconds]
        args += self.flags(["--no-advice", "--ascii", "--short"])
        if self.light and "--no-advice" not in args and self.rng.random() < 0.9:
            args.append("--no-advice")
        lines = [self.rng.choice(COACH_LINES) for _ in range(self.rng.randrange(4))]
        # each answer may bring one more piece of advice, within the time limit
        return Case(args, "\n".join(lines), self._bad, (len(lines) + 1) * _seconds(seconds), writes)

    def analyse(self) -> list[str]:
        args = ["analyse", "--seed", some(self.rng, ["1", "5", "77"]), "--short"]
        if self.rng.random() < (0.8 if self.light else 0.3):
            deals = ["1", "2", "0", "-1", "100001", "abc"]
            args += ["--deals", self.mark(self.rng.choice(deals), deals[2:])]
        if self.rng.random() < 0.2:
            workers = ["1", "2", "0", "-3"]
            args += ["--workers", self.mark(self.rng.choice(workers), workers[2:])]
        if (
            self.light or self.rng.random() < 0.3
        ):  # CI: the rule of thumb, seconds not a minute a deal
            plays = (
                ["rule", "rule", "advisor", "best"]
                if not self.light
                else ["rule", "rule", "rule", "best"]
            )
            args += ["--play", self.mark(self.rng.choice(plays), plays[3:])]
        return args + self.flags(["--json"])

    def review(self) -> list[str]:
        path = self.folder / f"session-{self.count}[x].json"
        roll = self.rng.random()
        content, self._bad = (
            (self.session.encode(), False) if roll < 0.15 else mutate_json(self.rng, self.session)
        )
        path.write_bytes(content)
        return ["review", str(path), *self.flags(["--ascii"])]

    def sweep_report(self) -> list[str]:
        folder = self.folder / f"sweep-{self.count}"
        folder.mkdir()
        roll = self.rng.random()
        if roll < 0.7:
            content, self._bad = mutate_json(self.rng, self.summary)
            (folder / "summary.json").write_bytes(content)
        elif roll < 0.9:
            manifest = json.dumps({"chunks": 3, "parameters": {}})
            (folder / "manifest.json").write_bytes(mutate_json(self.rng, manifest)[0])
            self._bad = True  # no summary: the sweep is unfinished, whatever the manifest says
        else:
            self._bad = True
        return ["sweep-report", str(folder), *self.flags(["--ascii"])]

    def simulate(self) -> list[str]:
        tours = ["0", "-2", "abc", "9" * 20]
        args = ["simulate", "--tours", self.mark(self.rng.choice(["2"] * 6 + tours), tours)]
        args += ["--seed", some(self.rng, ["1", "7", "123456789"])]
        args += ["--policy", some(self.rng, ["greedy", "random", "greedy,random"])]
        if self.rng.random() < 0.2:
            args += ["--variant", some(self.rng, ["standard", "first-edition"])]
        return args + self.flags(["--json", "--short"])

    def flags(self, options: list[str]) -> list[str]:
        return [option for option in options if self.rng.random() < 0.3]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return 0.0
    return value if 0 < value < 1e6 else 0.0


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run(args: list[str], stdin: str = "") -> tuple[int, str, str]:
    """``emissary args`` in process, ``stdin`` its input (then end of input);
    (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    sys.argv = ["emissary", *args]
    sys.stdin = io.StringIO(stdin)
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli.main()
        except SystemExit as done:
            code = 0 if done.code is None else done.code
    return code, out.getvalue(), err.getvalue()


HANG_SECONDS = 300  # a case still running after this is a hang: the run stops
START_UP = 1.0  # seconds a search command may take beyond its time limits: kernel load, pool
CHECKS = {
    "traceback": "tracebacks or internal errors",
    "exit code": "exit codes outside 0, 1, 2",
    "bad input accepted": "exit 0 on bad input",
    "long error": "errors over 3 lines",
    "file changed": "given files changed",
    "past time limit": f"runs past time limit + 10% + {START_UP:g} s",
}


def fuzz(
    seed: int, cases: int, folder: Path, monkeypatch, light: bool = False, progress=None
) -> tuple[Counter, dict]:
    """Run ``cases`` seeded cases; returns the count of each failed check (and of cases) and
    the first few examples of each. ``progress(counts)`` hears the counts every 500 cases."""
    monkeypatch.delenv("EMISSARY_DEBUG", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(folder / "state"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(sys, "argv", ["emissary"])
    monkeypatch.setattr(sys, "stdin", io.StringIO())
    monkeypatch.chdir(folder)
    fuzzer = Fuzzer(random.Random(seed), folder, light)
    counts: Counter = Counter()
    examples: dict[str, list[str]] = {}
    slowest = (0.0, "")
    # A case that hangs (in compiled code, deaf to signals) ends the run, naming the case here.
    watchdog = (folder.parent / f"{folder.name}-watchdog.log").open("w")
    for number in range(cases):
        case = fuzzer.case()
        before = snapshot(folder)
        watchdog.seek(0)
        watchdog.truncate()
        watchdog.write(f"case {number}: emissary {case.args!r} stdin={case.stdin!r}\n")
        watchdog.flush()
        faulthandler.dump_traceback_later(HANG_SECONDS, exit=True, file=watchdog)
        started = time.perf_counter()
        try:
            code, out, err = run(case.args, case.stdin)
        finally:
            faulthandler.cancel_dump_traceback_later()
        seconds = time.perf_counter() - started
        shown = f"case {number}: emissary {case.args!r} stdin={case.stdin!r} exit {code} in {seconds:.2f} s; stderr: {err[:300]!r}"
        after = snapshot(folder)
        changed = sorted(
            k
            for k, v in before.items()
            if after.get(k) != v and not (code == 0 and k == str(case.writes))
        )
        if changed:
            shown += f"; changed: {changed}"
        failed = {
            "traceback": "Traceback" in out + err or "internal error" in err,
            "exit code": code not in (0, 1, 2),
            "bad input accepted": case.bad and code == 0,
            "long error": len(err.splitlines()) > 3,
            "file changed": bool(changed),
            "past time limit": case.budget is not None and seconds > 1.1 * case.budget + START_UP,
        }
        counts["cases"] += 1
        for check, bad in failed.items():
            if bad:
                counts[check] += 1
                examples.setdefault(check, []).append(shown)
        if progress is not None and counts["cases"] % 500 == 0:
            progress(counts)
        if case.budget is not None and seconds - 1.1 * case.budget > slowest[0]:
            slowest = (seconds - 1.1 * case.budget, shown)
    watchdog.close()
    examples["slowest"] = [f"{slowest[0]:.2f} s over 110% of its time limit: {slowest[1]}"]
    return counts, examples


def report(counts: Counter, examples: dict) -> str:
    """The counts on one line, then up to 3 examples of each failed check."""
    lines = [
        f"fuzz: {counts['cases']:,} cases; "
        + "; ".join(f"{what} {counts[check]}" for check, what in CHECKS.items())
    ]
    for check, shown in examples.items():
        lines += [f"  {check}: {example}" for example in shown[:3]]
    return "\n".join(lines)


def test_fuzzed_command_lines_never_give_a_traceback(tmp_path, monkeypatch, capsys) -> None:
    """CLI: 40 seeded fuzz cases over nine commands end in exit 0/1/2, one short error, bad
    input refused; time overruns are printed but never fail CI (timing on a shared machine).
    The slow run plays 10,000."""
    counts, examples = fuzz(15, 40, tmp_path, monkeypatch, light=True)
    with capsys.disabled():
        print("\n" + report(counts, examples))
    assert all(counts[check] == 0 for check in CHECKS if check != "past time limit"), report(
        counts, examples
    )


@pytest.mark.slow
def test_fuzzed_command_lines_at_length(tmp_path, monkeypatch, capsys) -> None:
    """CLI: the same checks over 10,000 cases, and none past its time limit (slow; run with
    `pytest -m slow`). The CI mix (``light``): with every search allowed the run takes over
    two hours on two cores, this one about half an hour."""

    def progress(counts: Counter) -> None:
        with capsys.disabled():
            print("\n" + report(counts, {}), flush=True)

    counts, examples = fuzz(1515, 10_000, tmp_path, monkeypatch, light=True, progress=progress)
    with capsys.disabled():
        print("\n" + report(counts, examples))
    assert all(counts[check] == 0 for check in CHECKS), report(counts, examples)


# --- real processes: closed, full and broken streams, damaged sweep files (issue 40) --------

ROOT_ENV = {"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8", "COLUMNS": "100"}
SWEEP_ARGS = ["--sample", "20", "--abilities", "none", "--chunk-size", "5", "--workers", "1"]
MEMORY_VALUES = {
    "800M": False,
    "1.5G": False,
    "2000000000": False,
    "": False,
    "abc": True,
    "0": True,
    "-1": True,
    "1K": True,
    "nan": True,
    "1e400": True,
    "\x1b": True,
}
STDOUTS = ["pipe"] * 3 + ["closed", "full", "broken"]
STDERRS = ["pipe"] * 3 + ["closed", "full"]
STDINS = ["text"] * 3 + ["closed", "null", "zero"]
PROCESS_CHECKS = {
    "traceback": "tracebacks",
    "internal error": "internal errors",
    "exit code": "exit codes outside 0, 1, 2, 141",
    "bad input accepted": "exit 0 on invalid input",
    "file changed": "changed protected files",
    "wrong summary": "resumed sweeps not matching the undamaged summary",
}


@dataclass
class ProcessCase:
    """One real-process case: the command, its environment and standard streams, the files it
    must leave alone (all in its folder but ``may_change``, which it may rewrite when it
    succeeds, or a coach whose output failed after saving what was typed), and whether it is
    certainly bad."""

    args: list[str]
    folder: Path
    stdin_text: str = ""
    bad: bool = False
    env: dict | None = None
    stdout: str = "pipe"
    stderr: str = "pipe"
    stdin: str = "text"
    may_change: tuple[str, ...] = ()  # file names it may rewrite when it succeeds
    sweep: bool = False  # a resumed sweep: on success its summary must be the undamaged one


class ProcessFuzzer:
    """Real-process cases over the light commands (the in-process :class:`Fuzzer`'s) and
    resumed sweeps with damaged chunks and manifests, each under seeded stream states."""

    KINDS = (
        "deal",
        "review",
        "sweep_report",
        "simulate",
        "odds",
        "coach",
        "sweep",
        "sweep",
        "sweep",
        "memory",
    )

    def __init__(self, rng: random.Random, folder: Path, pristine: Path) -> None:
        self.rng = rng
        self.folder = folder
        self.pristine = pristine  # a finished sweep of SWEEP_ARGS
        self.inner = Fuzzer(rng, folder, light=True)
        self.count = 0

    def case(self) -> ProcessCase:
        self.count += 1
        folder = self.folder / f"case-{self.count}"
        folder.mkdir()
        self.inner.folder = folder
        kind = self.rng.choice(self.KINDS)
        if kind == "sweep":
            case = self.sweep(folder)
        elif kind == "memory":
            value = self.rng.choice(sorted(MEMORY_VALUES))
            case = ProcessCase(
                ["deal", "--seed", "1"],
                folder,
                bad=MEMORY_VALUES[value],
                env={"EMISSARY_MAX_MEMORY": value},
            )
        else:
            made = getattr(self.inner, kind)()
            if isinstance(made, list):
                made = Case(made, bad=self.inner._bad)
            self.inner._bad = False
            # A process's arguments cannot hold NUL: another control character stands in.
            args = [arg.replace("\x00", "\x01") for arg in made.args]
            args += ["--no-advice"] if kind == "coach" else []
            writes = (made.writes.name,) if made.writes is not None else ()
            case = ProcessCase(args, folder, made.stdin, made.bad, may_change=writes)
            if kind == "coach" and made.writes is None:  # a new session file, named in args
                case.may_change = (Path(args[args.index("--session") + 1]).name,)
        case.stdout = self.rng.choice(STDOUTS)
        case.stderr = self.rng.choice(STDERRS)
        case.stdin = self.rng.choice(STDINS)
        if case.stdin == "zero" and case.args[0] == "coach":
            case.bad = True  # an endless line is no answer
        return case

    def sweep(self, folder: Path) -> ProcessCase:
        """A copy of the finished sweep with its chunks or manifest damaged, resumed."""
        out = folder / "sweep"
        out.mkdir()
        for path in self.pristine.iterdir():
            if path.is_file():
                (out / path.name).write_bytes(path.read_bytes())
        (out / "summary.json").unlink()
        chunks = sorted(out.glob("chunk-*.npz"))
        bad = False
        for chunk in self.rng.sample(chunks, self.rng.randrange(0, len(chunks) + 1)):
            raw = chunk.read_bytes()
            choice = self.rng.randrange(6)
            if choice == 0:  # a flipped byte
                at = self.rng.randrange(len(raw))
                raw = raw[:at] + bytes([raw[at] ^ (1 << self.rng.randrange(8))]) + raw[at + 1 :]
            elif choice == 1:  # cut short
                raw = raw[: self.rng.randrange(len(raw))]
            elif choice == 2:  # garbage
                raw = bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(1, 400)))
            elif choice == 3:  # another chunk's bytes
                raw = (self.pristine / self.rng.choice(chunks).name).read_bytes()
            elif choice == 4:  # gone
                chunk.unlink()
                continue
            else:  # a few bytes overwritten in the middle
                at = self.rng.randrange(len(raw))
                raw = raw[:at] + b"\xff" * 8 + raw[at + 8 :]
            chunk.write_bytes(raw)
        manifest = out / "manifest.json"
        if self.rng.random() < 0.3:
            original = manifest.read_text()
            if self.rng.random() < 0.2:
                content = b"[" * 100_000
            else:
                content = mutate_json(self.rng, original)[0]
            manifest.write_bytes(content)
            try:
                bad = json.loads(content) != json.loads(original)
            except (ValueError, RecursionError):
                bad = True
        args = ["sweep", "--out", str(out), *SWEEP_ARGS, "--resume"]
        if self.rng.random() < 0.1:
            args += ["--workers", self.rng.choice(["0", "-1", "2147483647", "9" * 30])]
            bad = True
        names = tuple(path.name for path in chunks) + ("summary.json",)
        return ProcessCase(args, folder, bad=bad, may_change=names, sweep=True)


def _loads_as_session(path: Path) -> bool:
    from advisor.session import load

    try:
        load(path)
    except (ValueError, OSError):
        return False
    return True


def _summary_results(folder: Path) -> dict | None:
    try:
        data = json.loads((folder / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    data.pop("timing", None)
    return data


def run_process_case(case: ProcessCase, state: Path) -> tuple[int, str, str]:
    """Run ``case`` as a real process; (exit code, stdout, stderr), each stream's text only
    where it was a pipe."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith("EMISSARY_")}
    env.update(ROOT_ENV, XDG_STATE_HOME=str(state), **(case.env or {}))
    closed = [
        fd for fd, kind in ((0, case.stdin), (1, case.stdout), (2, case.stderr)) if kind == "closed"
    ]

    def prepare() -> None:
        for fd in closed:
            os.close(fd)

    with contextlib.ExitStack() as files:

        def stream(kind: str):
            if kind == "text":  # given as input=
                return None
            if kind == "pipe":
                return subprocess.PIPE
            if kind in ("null", "closed"):  # closed: /dev/null until prepare() closes it
                return subprocess.DEVNULL
            if kind == "zero":
                return files.enter_context(open("/dev/zero", "rb"))
            if kind == "full":
                return files.enter_context(open("/dev/full", "wb"))
            reader, writer = os.pipe()  # broken: its reader is gone before the command starts
            os.close(reader)
            return files.enter_context(os.fdopen(writer, "wb"))

        done = subprocess.run(
            [sys.executable, "-m", "advisor", *case.args],
            cwd=case.folder,
            env=env,
            stdin=stream(case.stdin),
            stdout=stream(case.stdout),
            stderr=stream(case.stderr),
            input=case.stdin_text.encode("utf-8", "surrogateescape")
            if case.stdin == "text"
            else None,
            preexec_fn=prepare,
            timeout=HANG_SECONDS,
            check=False,
        )
    return done.returncode, _text(done.stdout), _text(done.stderr)


def _text(raw: bytes | None) -> str:
    return (raw or b"").decode("utf-8", "replace")


def process_fuzz(
    seed: int, cases: int, folder: Path, threads: int = 2, progress=None
) -> tuple[Counter, dict]:
    """Run ``cases`` seeded real-process cases, ``threads`` at a time; the count of each
    failed check (and of cases and stream states) and the first examples of each."""
    import os
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    pristine = folder / "pristine"
    made = subprocess.run(
        [sys.executable, "-m", "advisor", "sweep", "--out", str(pristine), *SWEEP_ARGS],
        env={**os.environ, **ROOT_ENV},
        capture_output=True,
        timeout=HANG_SECONDS,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    whole = _summary_results(pristine)
    fuzzer = ProcessFuzzer(random.Random(seed), folder, pristine)
    batch = [fuzzer.case() for _ in range(cases)]
    counts: Counter = Counter()
    examples: dict[str, list[str]] = {}

    def one(case: ProcessCase) -> tuple[ProcessCase, dict, str]:
        state = case.folder / ".state"
        before = snapshot(case.folder)
        code, out, err = run_process_case(case, state)
        after = snapshot(case.folder)
        # A file it may rewrite may change when it succeeds; a coach's session also when its
        # output failed (what was typed before is saved), and then it must load as a session.
        rewrote = code == 0 or case.sweep or case.stdout != "pipe"
        changed = sorted(
            k
            for k, v in before.items()
            if after.get(k) != v
            and not (
                Path(k).name in case.may_change
                and rewrote
                and (case.sweep or _loads_as_session(Path(k)))
            )
        )
        logged = (state / "emissary" / "last-error.log").exists()
        failed = {
            "traceback": "Traceback" in out + err,
            "internal error": "internal error" in err or logged,
            "exit code": code not in (0, 1, 2, 141) or (code == 141 and case.stdout != "broken"),
            "bad input accepted": case.bad and code == 0,
            "file changed": bool(changed),
            "wrong summary": case.sweep
            and code == 0
            and _summary_results(case.folder / "sweep") != whole,
        }
        shown = (
            f"emissary {case.args!r} env={case.env} stdin={case.stdin} stdout={case.stdout} "
            f"stderr={case.stderr} exit {code}; stderr: {err[:300]!r}; changed: {changed}"
        )
        return case, failed, shown

    with ThreadPoolExecutor(threads) as pool:
        for case, failed, shown in pool.map(one, batch):
            counts["cases"] += 1
            counts[f"stdout {case.stdout}"] += 1
            counts[f"stderr {case.stderr}"] += 1
            counts[f"stdin {case.stdin}"] += 1
            counts["sweep cases"] += case.sweep
            for check, bad in failed.items():
                if bad:
                    counts[check] += 1
                    examples.setdefault(check, []).append(shown)
            if progress is not None and counts["cases"] % 250 == 0:
                progress(counts)
    return counts, examples


def process_report(counts: Counter, examples: dict) -> str:
    """The counts on one line, the stream states on another, then up to 3 examples of each
    failed check."""
    lines = [
        f"process fuzz: {counts['cases']:,} cases ({counts['sweep cases']:,} resumed sweeps); "
        + "; ".join(f"{what} {counts[check]}" for check, what in PROCESS_CHECKS.items()),
        "  streams: "
        + ", ".join(
            f"{key} {value}"
            for key, value in sorted(counts.items())
            if key.startswith(("stdout ", "stderr ", "stdin "))
        ),
    ]
    for check, shown in examples.items():
        lines += [f"  {check}: {example}" for example in shown[:3]]
    return "\n".join(lines)


def test_fuzzed_processes_with_hurt_streams_and_files(tmp_path, capsys) -> None:
    """Real processes (issue 40): 8 seeded cases with closed, full or broken standard streams
    and damaged sweep files end without a traceback or internal error, in exit 0/1/2/141, bad
    input refused, protected files unchanged, a resumed sweep's summary the undamaged one."""
    counts, examples = process_fuzz(40, 8, tmp_path)
    with capsys.disabled():
        print("\n" + process_report(counts, examples))
    assert all(counts[check] == 0 for check in PROCESS_CHECKS), process_report(counts, examples)


@pytest.mark.slow
def test_fuzzed_processes_at_length(tmp_path, capsys) -> None:
    """Real processes: the same checks over 2,000 cases (slow; run with `pytest -m slow`)."""

    def progress(counts: Counter) -> None:
        with capsys.disabled():
            print("\n" + process_report(counts, {}), flush=True)

    counts, examples = process_fuzz(4040, 2_000, tmp_path, progress=progress)
    with capsys.disabled():
        print("\n" + process_report(counts, examples))
    assert all(counts[check] == 0 for check in PROCESS_CHECKS), process_report(counts, examples)
