"""Robust at the table (issue 15): the coach's session file, resumed, linked and left over."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.session import Session, load, save
from search.game import TourConfig
from tests.conftest import assert_one_line_error, run_in_process


def _coach_process(folder: Path, args: list[str]) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "advisor", "coach", "--no-advice", "--ascii", *args]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        command,
        cwd=folder,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--seed", "4"], "--seed 4, but it holds seed 3"),
        (["--short"], "--short, but it holds a full tour"),
        (["--variant", "first-edition"], "--variant first-edition, but it holds standard rules"),
        (["--published-rules"], "--published-rules, but it holds the rules as ruled"),
        (["--seed", "3", "--short"], "--short"),
    ],
)
def test_resuming_with_options_that_contradict_the_saved_game_is_refused(
    monkeypatch, capsys, tmp_path, options: list[str], said: str
) -> None:
    """coach: resuming a seed-3 full standard tour with another seed, --short, another
    variant or --published-rules says so in one line (exit 2) and leaves the file as it was."""
    path = tmp_path / "game.json"
    save(Session.new(mode="seeded", seed=3), path)
    before = path.read_bytes()
    code, out, err = run_in_process(
        monkeypatch, capsys, ["coach", "--session", str(path), *options]
    )
    assert_one_line_error(code, out, err)
    assert code == 2 and said in err and str(path) in err
    assert path.read_bytes() == before


def test_resuming_a_game_of_real_cards_with_a_seed_is_refused(
    monkeypatch, capsys, tmp_path
) -> None:
    """coach: --seed against a session of physical cards is a contradiction."""
    path = tmp_path / "game.json"
    rulers = ("KC", "QH", "KS", "QD", "KH", "QC", "KD", "QS")
    save(Session.new(TourConfig(), "physical", None, rulers), path)
    code, out, err = run_in_process(
        monkeypatch, capsys, ["coach", "--session", str(path), "--seed", "3"]
    )
    assert_one_line_error(code, out, err)
    assert code == 2 and "real cards" in err


@pytest.mark.parametrize(
    "options", [[], ["--seed", "3"], ["--variant", "standard", "--seed", "3"]], ids=str
)
def test_resuming_with_the_saved_options_or_none_goes_on(tmp_path, options: list[str]) -> None:
    """coach: options equal to the saved ones, or none, resume the game."""
    save(Session.new(TourConfig(short=True), mode="seeded", seed=3), tmp_path / "game.json")
    if options:
        options = [*options, "--short"]
    done = _coach_process(tmp_path, ["--session", "game.json", *options])
    assert done.returncode == 0, done.stderr.decode()
    assert "Resuming game.json" in done.stdout.decode()
    assert load(tmp_path / "game.json").events, "the resumed game went on"


def test_a_dangling_symlink_as_the_session_is_refused_and_kept(
    monkeypatch, capsys, tmp_path
) -> None:
    """coach: a --session symlink to nothing is one line (exit 1); the link is not replaced."""
    link = tmp_path / "game.json"
    link.symlink_to(tmp_path / "nowhere" / "x.json")
    code, out, err = run_in_process(
        monkeypatch, capsys, ["coach", "--session", str(link), "--seed", "3", "--no-advice"]
    )
    assert_one_line_error(code, out, err)
    assert code == 1 and "symlink" in err and "does not exist" in err
    assert link.is_symlink() and os.readlink(link) == str(tmp_path / "nowhere" / "x.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


# --- sweep summaries: no NaN or Infinity reaches a table --------------------------------

SUMMARY_EXAMPLE = Path(__file__).resolve().parent.parent / "sweeps" / "c-1000-summary.json"


def _summary_with(change) -> str:
    import json

    data = json.loads(SUMMARY_EXAMPLE.read_text())
    if change == "no seed":  # found by the slow fuzz: a KeyError in sweep_tables
        del data["parameters"]["seed"]
    elif change == "seed null":
        data["parameters"]["seed"] = None
    else:
        change(data["results"][0])
    return json.dumps(data)  # writes NaN and Infinity as Python's json does


@pytest.mark.parametrize(
    "change",
    [
        lambda e: e.update(mean_ci95=[float("nan"), float("nan")]),
        lambda e: e.update(share_zero_ci95=[float("nan"), 0.5]),
        lambda e: e.update(share_one_ci95=[0.0, float("inf")]),
        lambda e: e.update(mean=float("nan")),
        lambda e: e.update(capped_share=float("-inf")),
        lambda e: e.update(mean_ci95=None),
        lambda e: e.update(mean_ci95=[0.6, 0.4]),
        lambda e: e.update(mean_ci95=[None, 0.4]),
        "no seed",
        "seed null",
    ],
    ids=[
        "ci NaN",
        "ci one NaN",
        "ci Infinity",
        "mean NaN",
        "capped -Infinity",
        "ci null",
        "ci reversed",
        "ci one null",
        "sample without a seed",
        "sample of seed null",
    ],
)
def test_sweep_report_refuses_a_summary_with_nan_or_infinity(
    monkeypatch, capsys, tmp_path, change
) -> None:
    """sweep-report: NaN, Infinity or a broken interval in a summary is one line naming the
    file (exit 1); 'nan' is never printed as a figure."""
    (tmp_path / "summary.json").write_text(_summary_with(change))
    code, out, err = run_in_process(monkeypatch, capsys, ["sweep-report", str(tmp_path)])
    assert_one_line_error(code, out, err)
    assert code == 1 and "summary.json" in err
    assert "nan" not in out.lower()


def test_session_and_sweep_files_share_one_bounded_reader(tmp_path) -> None:
    """The session loader and the sweep summary reader both go through search.infra.read_json."""
    from advisor.session import load
    from advisor.session_events import SessionError
    from search.sweep import SweepError, read_summary

    (tmp_path / "summary.json").write_bytes(b"[" * 50 + b"]" * 50)
    with pytest.raises(SweepError, match="nested too deeply"):
        read_summary(tmp_path)
    (tmp_path / "game.json").write_bytes(b'{"seed": NaN}')
    with pytest.raises(SessionError, match="NaN"):
        load(tmp_path / "game.json")


# --- the remaining tracebacks ----------------------------------------------------


@pytest.mark.parametrize("special", ["/dev/zero", "folder"])
def test_coach_on_a_device_or_a_folder_is_one_line(monkeypatch, capsys, tmp_path, special) -> None:
    """coach --session /dev/zero (or a folder): one line, exit 1, nothing written."""
    path = Path("/dev/zero") if special == "/dev/zero" else tmp_path
    if not path.exists():
        pytest.skip("needs /dev/zero")
    code, out, err = run_in_process(
        monkeypatch, capsys, ["coach", "--session", str(path), "--seed", "3", "--no-advice"]
    )
    assert_one_line_error(code, out, err)
    assert code == 1 and str(path) in err
    if special == "folder":
        assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "content",
    [b"", b"{}", b'{"parameters": {}}', b'{"results": [1]}'],
    ids=["empty", "no fields", "parameters empty", "results of numbers"],
)
def test_sweep_report_with_plots_of_a_broken_summary_is_one_line(
    monkeypatch, capsys, tmp_path, content: bytes
) -> None:
    """sweep-report DIR --plots out: a broken summary is one line (exit 1), no plot written."""
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    (sweep / "summary.json").write_bytes(content)
    plots = tmp_path / "plots"
    code, out, err = run_in_process(
        monkeypatch, capsys, ["sweep-report", str(sweep), "--plots", str(plots)]
    )
    assert_one_line_error(code, out, err)
    assert code == 1 and "summary.json" in err
    assert not plots.exists() or list(plots.iterdir()) == []


# --- simulate checkpoints ------------------------------------------------------------------


def _checkpoint_corruptions(good: str) -> dict[str, bytes]:
    import json

    data = json.loads(good)
    key = next(iter(data["chunks"]))

    def changed(change) -> bytes:
        copy = json.loads(good)
        change(copy)
        return json.dumps(copy).encode()

    return {
        "empty": b"",
        "truncated": good[: len(good) // 2].encode(),
        "NaN score": changed(lambda d: d["chunks"].update({key: [float("nan")] * 25})),
        "score 99": changed(lambda d: d["chunks"].update({key: [99] * 25})),
        "score a string": changed(lambda d: d["chunks"].update({key: ["3"] * 25})),
        "too few scores": changed(lambda d: d["chunks"].update({key: [3]})),
        "unknown policy": changed(lambda d: d.update(chunks={"nobody:0-25": [3] * 25})),
        "key garbled": changed(lambda d: d.update(chunks={"greedy:x-y": [3] * 25})),
        "past the batch": changed(lambda d: d.update(chunks={"greedy:50-75": [3] * 25})),
        "deep nesting": b"[" * 100_000,
        "visits garbled": changed(lambda d: d["visits"].update({key: ["9+"] * 25})),
        "a kingdom visited twice": changed(lambda d: d["visits"].update({key: ["1+1+"] * 25})),
        "visits not a table": changed(lambda d: d.update(visits=[1, 2])),
    }


@pytest.mark.parametrize(
    "case",
    [
        "empty",
        "truncated",
        "NaN score",
        "score 99",
        "score a string",
        "too few scores",
        "unknown policy",
        "key garbled",
        "past the batch",
        "deep nesting",
        "visits garbled",
        "a kingdom visited twice",
        "visits not a table",
    ],
)
def test_a_damaged_checkpoint_is_refused_in_one_line_and_kept(
    monkeypatch, capsys, tmp_path, case: str
) -> None:
    """simulate --resume: a damaged checkpoint is one line naming it, exit 2, left unchanged
    (never an IndexError from a score out of range)."""
    checkpoint = tmp_path / "batch.json"
    args = [
        "simulate",
        "--tours",
        "50",
        "--seed",
        "3",
        "--policy",
        "greedy",
        "--checkpoint",
        str(checkpoint),
        "--json",
    ]
    code, _out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 0, err
    content = _checkpoint_corruptions(checkpoint.read_text())[case]
    checkpoint.write_bytes(content)
    code, out, err = run_in_process(monkeypatch, capsys, [*args, "--resume"])
    assert_one_line_error(code, out, err)
    assert code == 2 and str(checkpoint) in err
    assert checkpoint.read_bytes() == content
