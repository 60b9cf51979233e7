"""Robust at the table (issue 15): option values that would never end or print nonsense."""

from __future__ import annotations

import pytest

from tests.conftest import assert_one_line_error, run_in_process

RULERS = "KS QH QS QD KD KC KH QC"
ODDS = ["odds", "AC 3H", "--trump", "C", "--target", "1", "--abilities", "none"]
MOVE = ["move", "--kingdom", "4", "--rulers", RULERS]

SECONDS_COMMANDS = {
    "odds": [*ODDS, "--time-limit"],
    "advise": ["advise", "AC 3H", "--rulers", RULERS, "--time-limit"],
    "move": [*MOVE, "--hand", "AC 3H", "--time-limit"],
    "coach": ["coach", "--seed", "3", "--time-limit"],
    "sweep": ["sweep", "--out", "never", "--cap"],
}


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e400", "Infinity", "1e9"])
@pytest.mark.parametrize("command", list(SECONDS_COMMANDS))
def test_seconds_must_be_finite_and_at_most_a_week(
    monkeypatch, capsys, tmp_path, command: str, value: str
) -> None:
    """--time-limit and --cap: inf, nan, 1e400 or a billion seconds are usage errors (exit 2)."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_in_process(monkeypatch, capsys, [*SECONDS_COMMANDS[command], value])
    assert_one_line_error(code, out, err)
    assert code == 2 and "positive number of seconds" in err
    assert list(tmp_path.iterdir()) == [], "nothing written before the check"


@pytest.mark.parametrize(
    ("hand", "extra", "most"),
    [
        ("AC 2C 3C 4C 5C 6C 7C 8C AD", [], 8),
        (" ".join(r + s for s in "CDH" for r in "A2345678")[:-3], [], 8),
        ("AC 2C 3C 4C 5C 6C 7C 8C AD 2D 3D", ["--commerce-discard"], 10),
        ("AC 2C 3C 4C 5C 6C 7C 8C AD", ["--variant", "first-edition"], 8),
    ],
    ids=["9 cards", "23 cards", "11 cards while Commerce discards", "first edition 9 cards"],
)
def test_move_refuses_the_hands_odds_refuses(
    monkeypatch, capsys, hand: str, extra: list[str], most: int
) -> None:
    """move: more than 8 cards in hand (10 while Commerce discards) is a usage error, at once."""
    code, out, err = run_in_process(
        monkeypatch, capsys, [*MOVE, "--hand", hand, "--time-limit", "0.1", *extra]
    )
    assert_one_line_error(code, out, err)
    assert code == 2 and f"a hand holds at most {most} cards" in err and "--hand" in err


def test_odds_and_move_say_the_same_about_a_nine_card_hand(monkeypatch, capsys) -> None:
    """odds and move: the same message for the same 9-card hand."""
    hand = "AC 2C 3C 4C 5C 6C 7C 8C AD"
    _, _, from_odds = run_in_process(
        monkeypatch, capsys, ["odds", hand, "--trump", "C", "--target", "1"]
    )
    _, _, from_move = run_in_process(monkeypatch, capsys, [*MOVE, "--hand", hand])
    assert (
        from_odds.split(": ")[-1]
        == from_move.split(": ")[-1]
        == "a hand holds at most 8 cards, got 9\n"
    )


@pytest.mark.parametrize("payoffs", ["nan,nan,nan", "inf,0,1", "1e400,0,0", "1,0,-inf", "1e7,0,1"])
def test_payoffs_must_be_finite(monkeypatch, capsys, payoffs: str) -> None:
    """odds --payoffs: nan, inf and huge payoffs are usage errors, never 'Expected payoff nan'."""
    args = [
        "odds",
        "3H",
        "--trump",
        "H",
        "--target",
        "1",
        "--supporters",
        "H",
        "--payoffs",
        payoffs,
    ]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(code, out, err)
    assert code == 2 and "--payoffs" in err and "nan" not in out


@pytest.mark.parametrize("payoffs", ["1,2", "1,2,3,4", "a,b,c", ""])
def test_payoffs_are_three_numbers(monkeypatch, capsys, payoffs: str) -> None:
    """odds --payoffs: anything but three numbers is a usage error."""
    args = ["odds", "3H", "--trump", "H", "--target", "1", "--payoffs", payoffs]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(code, out, err)
    assert code == 2 and "three numbers" in err


def test_finite_payoffs_still_work(monkeypatch, capsys) -> None:
    """odds --payoffs 1,0,0 gives the chance, as before (README, Payoffs)."""
    args = [
        "odds",
        "3H",
        "--trump",
        "H",
        "--target",
        "1",
        "--supporters",
        "H",
        "--payoffs",
        "1,0,0",
    ]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 0, err
    assert "Expected payoff 0.8595" in out
