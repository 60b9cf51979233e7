"""Robust at the table (issue 15): every failure ends in one line on stderr, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from advisor import tour_cli
from advisor.notation import (
    QUOTE_LIMIT,
    NotationError,
    parse_card,
    parse_cards,
    parse_hand,
)

from .test_cli import ERROR_PREFIX, assert_one_line_error, run_in_process, run_subprocess


def _explode(*_args, **_kwargs):
    raise KeyError("no such thing")


def test_unexpected_error_is_one_line_naming_its_type_and_logs_the_traceback(
    monkeypatch, capsys, tmp_path
) -> None:
    """main(): an unexpected exception prints its type on one line, exits 1, logs the traceback."""
    monkeypatch.delenv("EMISSARY_DEBUG", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(tour_cli, "Deal", _explode)
    code, out, err = run_in_process(monkeypatch, capsys, ["deal", "--seed", "3"])
    assert_one_line_error(code, out, err)
    assert code == 1
    assert "KeyError" in err and "--debug" in err
    log = tmp_path / "emissary" / "last-error.log"
    assert str(log) in err
    assert "Traceback" in log.read_text() and "_explode" in log.read_text()


def test_unwritable_error_log_is_said_on_the_same_line(monkeypatch, capsys, tmp_path) -> None:
    """main(): when the traceback log cannot be written the one line says so."""
    monkeypatch.delenv("EMISSARY_DEBUG", raising=False)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker / "state"))
    monkeypatch.setattr(tour_cli, "Deal", _explode)
    code, out, err = run_in_process(monkeypatch, capsys, ["deal", "--seed", "3"])
    assert_one_line_error(code, out, err)
    assert "could not write the traceback" in err


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_debug_shows_the_traceback(monkeypatch, capsys, tmp_path, how: str) -> None:
    """main(): `--debug` first, or EMISSARY_DEBUG=1, lets the unexpected exception through."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(tour_cli, "Deal", _explode)
    args = ["deal", "--seed", "3"]
    if how == "flag":
        monkeypatch.delenv("EMISSARY_DEBUG", raising=False)
        args = ["--debug", *args]
    else:
        monkeypatch.setenv("EMISSARY_DEBUG", "1")
    with pytest.raises(KeyError):
        run_in_process(monkeypatch, capsys, args)


def test_debug_flag_is_stripped_before_typer_sees_it(monkeypatch, capsys) -> None:
    """main(): `--debug deal --seed 3` runs the deal as usual."""
    code, out, err = run_in_process(monkeypatch, capsys, ["--debug", "deal", "--seed", "3"])
    assert code == 0 and err == "" and out


def test_keyboard_interrupt_is_one_line_and_exit_130(monkeypatch, capsys) -> None:
    """main(): Ctrl-C prints 'interrupted' on one line and exits 130."""

    def interrupt(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tour_cli, "Deal", interrupt)
    code, out, err = run_in_process(monkeypatch, capsys, ["deal", "--seed", "3"])
    assert code == 130
    assert err.strip().splitlines() == ["emissary: interrupted"]
    assert "Traceback" not in out + err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_disk_on_stdout_is_one_line(tmp_path) -> None:
    """main(): writing the output to a full device (ENOSPC) is one line, exit 1."""
    command = [sys.executable, "-m", "advisor", "deal", "--seed", "3"]
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            command, stdout=full, stderr=subprocess.PIPE, timeout=120, check=False
        )
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert len(err.splitlines()) == 1 and err.startswith(ERROR_PREFIX), err
    assert "No space left" in err


def test_closed_pipe_exits_quietly() -> None:
    """main(): a reader that went away (BrokenPipeError) ends the command without a word."""
    command = [sys.executable, "-m", "advisor", "deal", "--seed", "3"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as child:
        child.stdout.close()  # before the child has imported anything, let alone printed
        err = child.stderr.read().decode()
        code = child.wait(timeout=120)
    assert err == "", err
    assert code != 0


def test_missing_folder_is_one_line() -> None:
    """main(): a checkpoint in a folder that does not exist is one line, exit 1."""
    done = run_subprocess(["simulate", "--tours", "2", "--checkpoint", "nodir/x.json"])
    assert_one_line_error(done.returncode, done.stdout.decode(), done.stderr.decode())
    assert done.returncode == 1
    assert "nodir" in done.stderr.decode()


# --- notation: what error messages quote, and control characters ---------------------


@pytest.mark.parametrize(
    "text",
    ["1" * 130 + "C", "x" * 200, "AC " + "♥" * 300, "K" * 80],
    ids=["130-digit rank", "200 letters", "300 hearts", "80 Ks"],
)
def test_errors_quote_at_most_forty_characters_of_the_input(text: str) -> None:
    """Notation errors quote the offending text cut to 40 characters with '…'."""
    with pytest.raises(NotationError) as caught:
        parse_cards(text)
    message = str(caught.value)
    assert "…" in message
    assert len(message) < 40 + 120, message
    quoted = message.split("'")[1]
    assert len(quoted) == QUOTE_LIMIT


def test_long_hand_on_the_command_line_is_one_short_line(monkeypatch, capsys) -> None:
    """CLI: a 200-character token in --hand gives one short error line."""
    code, out, err = run_in_process(
        monkeypatch, capsys, ["odds", "--hand", "Z" * 200, "--abilities", "none"]
    )
    assert_one_line_error(code, out, err)
    assert len(err) < 200


@pytest.mark.parametrize(
    ("text", "escape"),
    [
        ("2D,4C,6H,7C,AD,AC\r", r"'\r'"),
        ("2D 4C\x00 6H", r"'\x00'"),
        ("\x1b[31m2D 4C 6H", r"'\x1b'"),
        ("2D 4C\x85 6H", r"'\x85'"),
        ("2D 4C\x7f", r"'\x7f'"),
    ],
    ids=["carriage return", "NUL", "escape", "C1 NEL", "DEL"],
)
def test_control_characters_are_refused_by_their_escape(text: str, escape: str) -> None:
    """Notation: a control character other than tab and newline is refused, named by escape."""
    with pytest.raises(NotationError) as caught:
        parse_cards(text)
    message = str(caught.value)
    assert escape in message and "control character" in message
    assert "\n" not in message and "\r" not in message and "\x1b" not in message


def test_tabs_and_newlines_separate_cards() -> None:
    """Notation: tabs and newlines are separators like spaces and commas."""
    assert parse_cards("AC\t7H\n3S") == parse_cards("AC 7H 3S")


def test_emoji_presentation_selector_after_a_suit_is_accepted() -> None:
    """Notation: '♥️' (heart + U+FE0F) reads as '♥', as the README says."""
    assert parse_card("7♥\ufe0f") == parse_card("7♥")
    assert parse_hand("A♥️ 2♣️ 3♠ 4♠ 5♠ 6♠ 7♠ 8♠") == parse_hand("AH 2C 3S 4S 5S 6S 7S 8S")
