"""The ``emissary`` command line through its real entry point: errors, determinism, output."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys

import pytest

from advisor.notation import parse_card, parse_ruler
from search.game.cards import RULERS
from search.game.deal import Deal
from search.tours.registry import make_policy
from search.tours.simulate import simulate
from tests.conftest import (
    CONSOLE_SCRIPT,
    ERROR_PREFIX,
    SUIT_SYMBOLS,
    assert_one_line_error,
    run_in_process,
    run_subprocess,
    textbook_wilson,
)

# (arguments, expected exit code, a fragment the one-line message must contain)
MALFORMED = [
    # deal: the seed
    (["deal"], 2, "--seed"),
    (["deal", "--seed"], 2, "--seed"),
    (["deal", "--seed", "-1"], 2, "0 or more"),
    (["deal", "--seed", " -3"], 2, "0 or more"),
    (["deal", "--seed", "-99999999999999999999"], 2, "0 or more"),
    (["deal", "--seed", "x"], 2, "--seed"),
    (["deal", "--seed", "1.5"], 2, "--seed"),
    (["deal", "--seed", ""], 2, "--seed"),
    (["deal", "--seed", "0x10"], 2, "--seed"),
    (["deal", "--seed", "1e3"], 2, "--seed"),
    (["deal", "--seed", "nan"], 2, "--seed"),
    (["deal", "--seed", "inf"], 2, "--seed"),
    (["deal", "--seed", "True"], 2, "--seed"),
    (["deal", "--seed", "１"], 2, "--seed"),  # a full-width digit
    (["deal", "--seed=abc"], 2, "--seed"),
    (["deal", "--seed", "2", "--seed", "x"], 2, "--seed"),
    # deal: options and arguments it does not take
    (["deal", "--seed", "1", "extra"], 2, "extra"),
    (["deal", "--seed", "1", "--tours", "5"], 2, "--tours"),
    (["deal", "--seed", "1", "--policy", "random"], 2, "--policy"),
    (["deal", "--seed", "1", "--json=yes"], 2, "--json"),
    (["deal", "--seed", "1", "--ascii=1"], 2, "--ascii"),
    (["deal", "-s", "1"], 2, "-s"),
    # simulate: the number of tours
    (["simulate", "--tours", "0"], 2, "--tours"),
    (["simulate", "--tours", "-5"], 2, "--tours"),
    (["simulate", "--tours", "abc"], 2, "--tours"),
    (["simulate", "--tours", "1.5"], 2, "--tours"),
    (["simulate", "--tours", ""], 2, "--tours"),
    (["simulate", "--tours"], 2, "--tours"),
    (["simulate", "--tours", "-5", "--policy", "nobody"], 2, "--tours"),
    # simulate: seed and policy
    (["simulate", "--tours", "1", "--seed", "-1"], 2, "0 or more"),
    (["simulate", "--tours", "1", "--seed", "x"], 2, "--seed"),
    (["simulate", "--tours", "1", "--policy", "nobody"], 2, "nobody"),
    (["simulate", "--tours", "1", "--policy", "RANDOM"], 2, "RANDOM"),
    (["simulate", "--tours", "1", "--policy", ""], 2, "name each policy once"),
    (["simulate", "--tours", "1", "--policy"], 2, "--policy"),
    # simulate: options and arguments it does not take
    (["simulate", "--bogus"], 2, "--bogus"),
    (["simulate", "--tours", "1", "extra"], 2, "extra"),
    (["simulate", "--tours", "1", "--ascii"], 2, "--ascii"),
    (["simulate", "--tours", "1", "--short=yes"], 2, "--short"),
    (["simulate", "--tours", "1", "--published-rules=no"], 2, "--published-rules"),
    # odds: the hand
    (["odds", "AC 9C 3H", "--trump", "C", "--target", "2"], 1, "9C"),
    (["odds", "AC 10C 3H", "--trump", "C", "--target", "2"], 1, "10C"),
    (["odds", "AC JH 3H", "--trump", "C", "--target", "2"], 1, "JH"),
    (["odds", "AC KH 3H", "--trump", "C", "--target", "2"], 1, "KH"),
    (["odds", "AC AC 3H", "--trump", "C", "--target", "2"], 1, "AC"),
    (["odds", "", "--trump", "C", "--target", "2"], 1, "no cards"),
    (["odds", " , ,", "--trump", "C", "--target", "2"], 1, "no cards"),
    (["odds", "AC 2C 3C 4C 5C 6C 7C 8C AH", "--trump", "C", "--target", "2"], 2, "at most 8"),
    (["odds", "AX 3H", "--trump", "C", "--target", "2"], 1, "AX"),
    (["odds", "AC7H", "--trump", "C", "--target", "2"], 1, "AC7H"),
    (["odds", "--trump", "C", "--target", "2"], 2, "hand"),
    # odds: trump, target and abilities
    (["odds", "AC 3H", "--trump", "X", "--target", "2"], 1, "'X'"),
    (["odds", "AC 3H", "--trump", "K", "--target", "2"], 1, "ambiguous"),
    (["odds", "AC 3H", "--target", "2"], 2, "--trump"),
    (["odds", "AC 3H", "--trump", "C"], 2, "--target"),
    (["odds", "AC 3H", "--trump", "C", "--target", "0"], 2, "1..8"),
    (["odds", "AC 3H", "--trump", "C", "--target", "9"], 2, "1..8"),
    (["odds", "AC 3H", "--trump", "C", "--target", "x"], 2, "--target"),
    (["odds", "AC 3H", "--trump", "C", "--target", "2", "--abilities", "HX"], 1, "X"),
    (["odds", "AC 3H", "--trump", "C", "--target", "2", "--abilities", "HH"], 1, "once"),
    (["odds", "AC 3H", "--trump", "C", "--target", "2", "--pool", "CC"], 1, "too many C rulers"),
    (
        ["odds", "AC 3H", "--trump", "C", "--target", "2", "--supporters", "HH", "--pool", "H"],
        1,
        "too many H",
    ),
    (["odds", "AC 3H", "--trump", "C", "--target", "2", "--pool", "DDHHSSD"], 1, "too many D"),
    (["odds", "AC 3H", "--trump", "C", "--target", "2", "--time-limit", "0"], 2, "positive"),
    (["odds", "AC 3H", "--trump", "C", "--target", "2", "--time-limit", "-1"], 2, "positive"),
    (["odds", "AC 3H", "--trump", "C", "--target", "2", "--time-limit", "soon"], 2, "--time-limit"),
    # the command itself
    (["frobnicate"], 2, "frobnicate"),
    (["Deal", "--seed", "1"], 2, "Deal"),
    (["--bogus"], 2, "--bogus"),
    (["--seed", "1", "deal"], 2, "--seed"),
]


def _case_id(case: tuple[list[str], int, str]) -> str:
    return " ".join(case[0]) or "(none)"


@pytest.mark.parametrize(("args", "code", "fragment"), MALFORMED, ids=map(_case_id, MALFORMED))
def test_malformed_input_ends_with_one_error_line_and_no_traceback(
    monkeypatch, capsys, args: list[str], code: int, fragment: str
) -> None:
    """CLI: bad input exits 1 (our checks) or 2 (usage) with one 'emissary: error:' line."""
    got, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(got, out, err)
    assert got == code
    assert fragment in err
    assert out == ""


SUBPROCESS_CASES = [
    (["deal"], False),
    (["deal", "--seed", "-1"], True),
    (["simulate", "--tours", "abc"], False),
    (["simulate", "--tours", "1", "--policy", "nobody"], True),
    (["frobnicate"], False),
]


@pytest.mark.parametrize(
    ("args", "module"), SUBPROCESS_CASES, ids=[" ".join(a) for a, _ in SUBPROCESS_CASES]
)
def test_malformed_input_through_the_installed_command(args: list[str], module: bool) -> None:
    """CLI: the console script and ``python -m advisor`` report bad input in one line."""
    done = run_subprocess(args, module=module)
    assert_one_line_error(done.returncode, done.stdout.decode(), done.stderr.decode())
    assert done.stdout == b""


def test_bare_command_shows_help_without_an_empty_error_line(monkeypatch, capsys) -> None:
    """CLI: `emissary` with no arguments shows the help and no empty error message."""
    _, out, err = run_in_process(monkeypatch, capsys, [])
    assert "Usage" in out and "Traceback" not in out + err
    assert ERROR_PREFIX not in err or err[len(ERROR_PREFIX) :].strip()


# --- simulate ----------------------------------------------------------------------

SIMULATE_ARGS = ["simulate", "--tours", "1000", "--seed", "1", "--policy", "random", "--json"]


def test_simulate_json_is_byte_identical_across_runs_and_well_formed() -> None:
    """simulate: a seeded batch prints the same JSON every run, with consistent figures."""
    first, second = run_subprocess(SIMULATE_ARGS), run_subprocess(SIMULATE_ARGS)
    assert first.returncode == 0 and second.returncode == 0, first.stderr.decode()
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert {
        "tours",
        "policy",
        "seed",
        "mean_score",
        "mean_score_ci",
        "perfect_rate",
        "perfect_rate_ci",
        "scores",
    } <= data.keys()
    assert (data["tours"], data["policy"], data["seed"]) == (1000, "random", 1)
    assert list(data["scores"]) == [str(k) for k in range(17)]
    assert sum(data["scores"].values()) == data["tours"]
    mean = sum(int(k) * n for k, n in data["scores"].items()) / data["tours"]
    assert data["mean_score"] == pytest.approx(mean, abs=1e-6)
    # The intervals, recomputed here from the score counts by the textbook formulas: the
    # normal interval of a mean (sample deviation), and Wilson's interval of a rate.
    scores = [int(k) for k, n in data["scores"].items() for _ in range(n)]
    z = statistics.NormalDist().inv_cdf(0.975)
    half = z * statistics.stdev(scores) / math.sqrt(len(scores))
    assert data["mean_score_ci"] == pytest.approx([mean - half, mean + half], abs=1e-6)
    wilson = textbook_wilson(data["scores"]["16"], data["tours"])
    assert data["perfect_rate_ci"] == pytest.approx(list(wilson), abs=1e-6)
    assert data["perfect_rate"] == data["scores"]["16"] / data["tours"]
    in_process = simulate(1000, 1, make_policy("random")).to_json()
    assert json.loads(json.dumps(in_process)) == data


def test_greedy_beats_random_with_non_overlapping_95_percent_intervals() -> None:
    """simulate: over 1000 tours (seed 1) greedy's mean score CI lies wholly above random's."""
    greedy = simulate(1000, 1, make_policy("greedy"))
    random = simulate(1000, 1, make_policy("random"))
    g_mean, g_low, _ = greedy.mean_score
    r_mean, _, r_high = random.mean_score
    assert g_mean > r_mean
    assert g_low > r_high


# --- deal -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 7, 2**40, 99999999999999999999999])
def test_deal_json_has_eight_distinct_rulers_targets_and_a_hand(monkeypatch, capsys, seed) -> None:
    """deal --json: 8 distinct rulers, targets 1..8 and the first hand of 8 distinct cards."""
    code, out, err = run_in_process(monkeypatch, capsys, ["deal", "--seed", str(seed), "--json"])
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["seed"] == seed
    rulers = [parse_ruler(text) for text in data["rulers"]]
    assert len(rulers) == 8 and set(rulers) == set(RULERS)
    assert data["targets"] == list(range(1, 9))
    hand = [parse_card(text) for text in data["hand"]]
    assert len(hand) == 8 and len(set(hand)) == 8
    assert set(hand) == set(Deal(seed).hand(1))
    assert tuple(rulers) == Deal(seed).layout()


def test_deal_shows_the_hand_with_suit_symbols(monkeypatch, capsys) -> None:
    """deal: the human view prints every card of the first hand with its suit symbol."""
    code, out, err = run_in_process(monkeypatch, capsys, ["deal", "--seed", "5"])
    assert code == 0 and err == ""
    hand = Deal(5).hand(1)
    for card in hand:
        assert str(card) in out
    assert "First hand: " + str(hand) in out


def test_deal_ascii_prints_no_suit_symbols(monkeypatch, capsys) -> None:
    """deal --ascii: suits print as letters C D H S and no ♣ ♦ ♥ ♠ appears."""
    code, out, err = run_in_process(monkeypatch, capsys, ["deal", "--seed", "5", "--ascii"])
    assert code == 0 and err == ""
    assert not any(symbol in out for symbol in SUIT_SYMBOLS)
    assert "First hand: " + Deal(5).hand(1).ascii() in out
    for ruler in Deal(5).layout():
        assert ruler.ascii() in out


def test_deal_through_the_installed_command_prints_symbols_and_ascii() -> None:
    """deal: the installed command prints the same hand in symbols and, with --ascii, letters."""
    hand = Deal(3).hand(1)
    fancy = run_subprocess(["deal", "--seed", "3"]).stdout.decode("utf-8")
    plain = run_subprocess(["deal", "--seed", "3", "--ascii"], module=True).stdout.decode("utf-8")
    assert all(str(card) in fancy for card in hand)
    assert all(card.ascii() in plain for card in hand)
    assert not any(symbol in plain for symbol in SUIT_SYMBOLS)


def test_odds_json_reports_chance_distribution_best_action_states_and_seconds(monkeypatch, capsys):
    """odds --json --exact: the documented fields, with the exact fraction."""
    args = ["odds", "AC 6C 3H 8H 2D 5D 4S 7S", "--trump", "C", "--target", "4"]
    code, out, err = run_in_process(
        monkeypatch, capsys, [*args, "--abilities", "none", "--json", "--exact"]
    )
    assert code == 0, err
    data = json.loads(out)
    assert abs(data["chance"] - 0.510622) < 1e-6  # tests/data/README.md
    assert data["chance_exact"] == "946380887/1853386920"
    assert abs(sum(data["distribution"]) - 1) < 1e-12
    assert data["best_action"] == "debate now" and data["states"] > 0 and data["seconds"] >= 0


def test_the_quick_exit_after_a_search_keeps_the_whole_output_and_the_exit_code(tmp_path) -> None:
    """run(): the console script ends with os._exit after a search (numba's teardown skipped),
    and the answer written to a file is whole; an error still exits the usual way, with 1."""
    args = [
        "odds",
        "AC 6C 3H 8H 2D 5D 4S 7S",
        "--trump",
        "C",
        "--target",
        "4",
        "--abilities",
        "none",
        "--json",
        "--exact",
    ]
    for module in (False, True):
        with open(tmp_path / "answer.json", "w", encoding="utf-8") as answer:
            command = (
                [sys.executable, "-m", "advisor"]
                if module or not CONSOLE_SCRIPT.exists()
                else [str(CONSOLE_SCRIPT)]
            )
            done = subprocess.run(
                [*command, *args], stdout=answer, stderr=subprocess.PIPE, timeout=120, check=False
            )
        assert done.returncode == 0, done.stderr.decode()
        data = json.loads((tmp_path / "answer.json").read_text(encoding="utf-8"))
        assert data["chance_exact"] == "946380887/1853386920"  # tests/data/README.md
    failed = run_subprocess(["odds", "AC 9C", "--trump", "C", "--target", "4"])
    assert failed.returncode == 1 and failed.stderr.decode().startswith(ERROR_PREFIX)


def test_odds_table_ranks_options_and_fits_ascii(monkeypatch, capsys):
    """odds: the human view shows the chance and each option; --ascii has no suit symbols."""
    args = ["odds", "A♣ 6♣ 3♥ 8♥ 2♦ 5♦ 4♠ 7♠", "--trump", "♣", "--target", "4", "--abilities", "H"]
    code, out, _ = run_in_process(monkeypatch, capsys, [*args, "--ascii"])
    assert code == 0
    assert "66.15%" in out and "Diplomacy (H)" in out  # 0.661538: tests/data/README.md
    assert not any(symbol in out for symbol in SUIT_SYMBOLS)
