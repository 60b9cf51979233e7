"""Sweeps (search.sweep.runner, ``emissary sweep``): hand classes, values, chunk files, resume,
executors and bad input. The full sweep is not run here (see README, "Sweeps")."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import pytest

from advisor.sweep_tables import overall_entries
from search.game.cards import FULL_MASK
from search.sweep.handclasses import (
    canonical_hands,
    permute_masks,
    random_hand,
    role_preserving_permutations,
)
from search.sweep.runner import (
    MANIFEST,
    SUMMARY,
    SweepError,
    SweepSpec,
    chunk_path,
    load_rows,
    make_plan,
    open_executor,
    read_chunk,
    run_sweep,
    write_atomically,
)
from search.sweep.summary import summarise
from search.visit.solvers import make_solver
from tests.conftest import assert_one_line_error, process_fields, run_in_process

TOLERANCE = 1e-12
SPADES = 3


def _fixed_hands(perm: tuple[int, ...], ranks: int, hand_size: int) -> int:
    """Hands a suit permutation maps to themselves: every suit of a cycle holds the same
    ranks, so count the ways per cycle (a polynomial in the hand size)."""
    seen, ways = set(), [1] + [0] * hand_size
    for start in range(4):
        if start in seen:
            continue
        length, suit = 0, start
        while suit not in seen:
            seen.add(suit)
            suit, length = perm[suit], length + 1
        step = [0] * (hand_size + 1)
        for k in range(ranks + 1):
            if k * length <= hand_size:
                step[k * length] = comb(ranks, k)
        ways = [sum(ways[i] * step[n - i] for i in range(n + 1)) for n in range(hand_size + 1)]
    return ways[hand_size]


@pytest.mark.parametrize("fixed", [(), (0,)], ids=["no Military", "Military"])
def test_classes_cover_every_hand_once(fixed):
    """Class sizes add up to C(32, 8) and the class count is Burnside's: the mean number
    of hands each role-keeping suit permutation fixes."""
    group = role_preserving_permutations(SPADES, fixed)
    masks, weights = canonical_hands(group)
    assert int(weights.sum()) == comb(32, 8) == 10_518_300
    burnside = sum(_fixed_hands(perm, 8, 8) for perm in group) // len(group)
    assert len(masks) == burnside
    assert np.all(np.diff(masks.astype(np.int64)) > 0), "representatives sorted and distinct"
    if not fixed:
        assert len(masks) == 1_820_803


@pytest.mark.parametrize("fixed", [(), (0,), (0, 1, 2)], ids=["S3", "S2", "identity"])
def test_classes_match_brute_force_on_a_small_deck(fixed):
    """On a deck of 3 ranks a suit and 4-card hands, the classes are exactly the orbits
    found by applying every permutation to every hand."""
    group = role_preserving_permutations(SPADES, fixed)
    orbits = {}
    for cards in combinations(range(12), 4):
        hand = np.array([sum(1 << c for c in cards)], dtype=np.uint64)
        orbit = {int(permute_masks(hand, perm, ranks=3)[0]) for perm in group}
        orbits[min(orbit)] = len(orbit)
    masks, weights = canonical_hands(group, ranks=3, hand_size=4)
    assert dict(zip(masks.tolist(), weights.tolist())) == orbits


@pytest.mark.parametrize(
    "abilities", [(0, 0, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)], ids=["none", "H", "S"]
)
def test_role_keeping_permutations_keep_every_chance(abilities):
    """Renaming the non-trump suits changes no chance (no Military; Politics with the
    standard pool): the symmetry the classes rely on."""
    pool = (0, 0, 1, 1, 2, 2, 3) if abilities[3] else ()
    group = role_preserving_permutations(SPADES)
    for index in range(4):
        hand = random_hand(11, index)
        values = []
        for perm in group:
            image = int(permute_masks(np.array([hand], dtype=np.uint64), perm)[0])
            values.append(
                make_solver().decide(image, FULL_MASK & ~image, 0, SPADES, abilities, pool)
            )
        assert np.allclose(values, values[0], rtol=0, atol=TOLERANCE)


def test_politics_pool_is_every_other_ruler():
    """Politics may bring any other ruler of a first visit: two a suit less the visited
    one, or the 3 other Kings in a short tour (docs/rules.md §4, §6)."""
    assert SweepSpec(jacks="S").pool(2) == (0, 0, 1, 1, 2, 3, 3)
    assert SweepSpec(jacks="S", short=True).pool(2) == (0, 1, 3)
    assert SweepSpec(jacks="H").pool(2) == ()
    assert SweepSpec(short=True).targets == (2, 4, 6, 8)


def test_summary_weights_rows_by_class_size():
    """Means, shares and histograms count a row as many times as its weight."""
    spec = SweepSpec(chunk_size=2)
    rows = {
        "mask": np.array([1, 2], dtype=np.uint32),
        "trump": np.array([3, 3], dtype=np.uint8),
        "weight": np.array([1, 3]),
        "sample": np.array([-1, -1]),
        "chance": np.array([[0.0] * 8, [1.0] * 8]),
        "capped": np.array([False, False]),
        "seconds": np.array([0.0]),
    }
    entry = summarise(spec, rows, 4)["results"][0]
    assert entry["mean"] == 0.75 and entry["share_zero"] == 0.25 and entry["share_one"] == 0.75
    assert entry["histogram"] == [0.25] + [0.0] * 8 + [0.75]


def _run(spec: SweepSpec, out: Path, executor=None, slots: int = 2):
    if executor is None:
        with ThreadPoolExecutor(1) as pool:
            return run_sweep(spec, out, pool, slots)
    return run_sweep(spec, out, executor, slots)


def test_sample_rows_equal_direct_solver_calls(tmp_path):
    """Each sampled hand's chances, solved in chunks by a process pool, are those of a
    fresh solver on that hand (Politics in play, so the pool matters)."""
    spec = SweepSpec(jacks="S", sample=12, seed=5, chunk_size=5)
    with open_executor(2) as (executor, slots):
        _run(spec, tmp_path, executor, slots)
    rows = load_rows(tmp_path, make_plan(spec))
    assert rows["mask"].tolist() == [random_hand(5, i) for i in range(12)]
    assert rows["sample"].tolist() == list(range(12))
    for mask, chance in zip(rows["mask"].tolist(), rows["chance"]):
        needs = make_solver().decide(mask, FULL_MASK & ~mask, 0, SPADES, (0, 0, 0, 1), spec.pool(3))
        assert np.allclose(chance, needs[1:], rtol=0, atol=TOLERANCE)


def test_military_solves_two_trumps_and_caps_long_solves(tmp_path):
    """With Military, ♣ and ♠ (for ♦ ♥ ♠) are solved apart; a solve past the cap is
    flagged, left out of the means, and counted in the summary."""
    spec = SweepSpec(jacks="C", sample=3, chunk_size=4, cap=1e-4)
    summary = _run(spec, tmp_path).summary
    rows = load_rows(tmp_path, make_plan(spec))
    assert rows["trump"].tolist() == [0, 3] * 3
    assert rows["capped"].any()
    assert np.isnan(rows["chance"][rows["capped"]]).all()
    assert {entry["trumps"] for entry in summary["results"]} == {"C", "DHS", "any"}
    assert summary["capped_rows"] == int(rows["capped"].sum())


def test_chunks_are_whole_files_with_the_documented_columns(tmp_path):
    """Every chunk file holds its rows' columns and no temp file is left behind."""
    spec = SweepSpec(sample=7, chunk_size=3)
    _run(spec, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "chunk-000000.npz",
        "chunk-000001.npz",
        "chunk-000002.npz",
        MANIFEST,
        SUMMARY,
    ]
    columns = read_chunk(chunk_path(tmp_path, 2))
    assert {
        "mask",
        "trump",
        "weight",
        "sample",
        "chance",
        "capped",
        "targets",
        "chunk",
        "seconds",
    } <= set(columns)
    assert columns["chance"].shape == (1, 8) and columns["targets"].tolist() == list(range(1, 9))


def test_a_write_cut_short_leaves_no_file(tmp_path):
    """A chunk whose write fails midway leaves neither the chunk nor a temp file."""
    target = tmp_path / "chunk-000000.npz"

    def write_half(stream):
        stream.write(b"PK\x03\x04 half a zip")
        raise OSError("disk full")

    with pytest.raises(OSError):
        write_atomically(target, write_half)
    assert list(tmp_path.iterdir()) == []


def _cli(args: list[str]) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR",)}
    env.update(NO_COLOR="1", COLUMNS="100", PYTHONIOENCODING="utf-8")
    return [sys.executable, "-m", "advisor", *args], env


def _start_in_background(args: list[str]) -> subprocess.Popen:
    """``emissary ARGS`` as a process of its own session, output discarded."""
    command, env = _cli(args)
    return subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


@pytest.mark.slow  # 13 s; the default run keeps test_robust_edges' killed sweep with damaged chunks (5 s)
def test_killed_sweep_resumes_without_losing_or_repeating_a_hand(tmp_path):
    """SIGKILL mid-sweep, then --resume: every hand is solved once and the summary equals
    an uninterrupted run's."""
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    args = ["sweep", "--sample", "6000", "--seed", "9", "--chunk-size", "20", "--workers", "1"]
    process = _start_in_background([*args, "--out", str(killed)])
    deadline = time.monotonic() + 60
    while len(list(killed.glob("chunk-*.npz"))) < 4 and time.monotonic() < deadline:
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGKILL)  # the sweep and its workers
    process.wait()
    saved = len(list(killed.glob("chunk-*.npz")))
    assert 4 <= saved < 300 and not (killed / SUMMARY).exists()

    command, env = _cli([*args, "--out", str(killed), "--resume"])
    resumed = subprocess.run(command, env=env, capture_output=True, timeout=120, check=False)
    assert resumed.returncode == 0, resumed.stderr.decode()
    assert f"solved {300 - saved} chunks" in " ".join(resumed.stdout.decode().split())

    spec = SweepSpec(sample=6000, seed=9, chunk_size=20)
    expected = _run(spec, whole).summary
    rows = load_rows(killed, make_plan(spec))
    assert sorted(rows["sample"].tolist()) == list(range(6000))
    assert np.allclose(rows["chance"], load_rows(whole, make_plan(spec))["chance"], atol=TOLERANCE)
    summary = json.loads((killed / SUMMARY).read_text())
    for got, want in zip(summary["results"], expected["results"], strict=True):
        assert got["target"] == want["target"]
        assert np.allclose(got["mean"], want["mean"], atol=TOLERANCE)
        assert np.allclose(got["histogram"], want["histogram"], atol=TOLERANCE)


def _session_members(session: int) -> list[int]:
    """Pids of the live processes of a session (from /proc; Linux)."""
    members = []
    for entry in Path("/proc").glob("[0-9]*"):
        fields = process_fields(int(entry.name))  # None: ended while we looked
        if fields is not None and fields[0] != "Z" and int(fields[3]) == session:
            members.append(int(entry.name))
    return members


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killing_the_sweep_ends_its_busy_workers(tmp_path):
    """SIGKILL to the sweep's own process only (not its group): the worker busy on a long
    chunk goes too, instead of solving on for nobody."""
    args = ["sweep", "--abilities", "C", "--sample", "40", "--chunk-size", "40", "--workers", "1"]
    process = _start_in_background([*args, "--out", str(tmp_path / "sweep")])
    try:
        deadline = time.monotonic() + 60
        while len(_session_members(process.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)  # the sweep, its resource tracker and its worker
        time.sleep(3)  # the worker is deep in its chunk of Military solves
        assert not list((tmp_path / "sweep").glob("chunk-*.npz"))
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 60  # a backstop: the loop ends once they are gone
        while _session_members(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _session_members(process.pid) == []
    finally:
        for pid in _session_members(process.pid):
            os.kill(pid, signal.SIGKILL)


def test_dask_cluster_gives_the_process_pool_results(tmp_path):
    """The same sweep through a Dask LocalCluster's executor and a local process pool."""
    from distributed import LocalCluster

    spec = SweepSpec(jacks="H", sample=40, seed=2, chunk_size=10)
    with open_executor(2) as (executor, slots):
        _run(spec, tmp_path / "pool", executor, slots)
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        open_executor(1, cluster.scheduler_address) as (executor, slots),
    ):
        _run(spec, tmp_path / "dask", executor, slots)
    plan = make_plan(spec)
    local, remote = load_rows(tmp_path / "pool", plan), load_rows(tmp_path / "dask", plan)
    assert np.array_equal(local["mask"], remote["mask"])
    assert np.allclose(local["chance"], remote["chance"], rtol=0, atol=TOLERANCE)


@pytest.fixture
def small_sweep(tmp_path) -> Path:
    out = tmp_path / "small"
    _run(SweepSpec(sample=5, seed=4, chunk_size=2), out)
    return out


def test_report_prints_tables_and_writes_plots(monkeypatch, capsys, small_sweep, tmp_path):
    """sweep-report prints each target's mean chance and writes two PNG plots."""
    plots = tmp_path / "plots"
    code, out, err = run_in_process(
        monkeypatch, capsys, ["sweep-report", str(small_sweep), "--plots", str(plots)]
    )
    assert code == 0, err
    assert "mean chance" in out and "5 sampled hands" in out
    assert sorted(p.name for p in plots.iterdir()) == ["histograms.png", "mean-chance.png"]
    code, out, err = run_in_process(
        monkeypatch, capsys, ["sweep-report", str(small_sweep), "--ascii"]
    )
    assert code == 0, err
    histograms = [line for line in out.splitlines() if line.count("|") == 2]
    assert len(histograms) == 8, "an ASCII histogram on each target's row"


def test_report_compares_several_sweeps(monkeypatch, capsys, small_sweep, tmp_path):
    """Several summaries: one table, a column each, the mean of a kingdom of any trump
    (Military's mixed ``any`` entries); a Jack never lowers the same hands' mean."""
    _run(SweepSpec(jacks="H", sample=5, seed=4, chunk_size=5), tmp_path / "h")
    _run(SweepSpec(jacks="C", sample=2, seed=4, chunk_size=2), tmp_path / "c")
    paths = [str(small_sweep), str(tmp_path / "h"), str(tmp_path / "c" / SUMMARY)]
    code, out, err = run_in_process(monkeypatch, capsys, ["sweep-report", *paths])
    assert code == 0, err
    assert "mean chance by target" in out and out.count("5 hands") == 2
    none, hearts, clubs = (
        json.loads(Path(p, SUMMARY).read_text()) for p in paths[:2] + [tmp_path / "c"]
    )
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if line.count("│") == 5}
    for target in range(1, 9):
        plain, with_h = (
            next(e for e in summary["results"] if e["target"] == target)
            for summary in (none, hearts)
        )
        mixed = next(e for e in clubs["results"] if e["target"] == target and e["trumps"] == "any")
        assert with_h["mean"] >= plain["mean"] - TOLERANCE
        for entry in (plain, with_h, mixed):
            assert f"{100 * entry['mean']:.2f}%" in rows[str(target)]


def test_report_comparison_errors_give_one_line(monkeypatch, capsys, small_sweep, tmp_path):
    """--plots with several sweeps, and a short tour beside a standard one, are refused."""
    args = ["sweep-report", str(small_sweep), str(small_sweep), "--plots", str(tmp_path / "p")]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(code, out, err)
    assert "--plots" in err
    _run(SweepSpec(short=True, sample=2, seed=4, chunk_size=2), tmp_path / "short")
    args = ["sweep-report", str(small_sweep), str(tmp_path / "short")]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(code, out, err)
    assert "short" in err


COMMITTED = Path(__file__).resolve().parents[1] / "sweeps"


def _means(name: str) -> dict[int, dict]:
    """Target -> entry for a kingdom of any trump, from a committed summary."""
    summary = json.loads((COMMITTED / f"{name}-summary.json").read_text())
    assert summary["capped_rows"] == 0
    return overall_entries(summary)


def test_committed_summaries_agree_with_each_other():
    """The per-Jack summaries in README: over all hands an ability never lowers the mean
    chance (a hand may ignore it) and ♥♠ is at least either alone; each sampled sweep's
    interval reaches the no-ability mean or above, and its hands were all solved."""
    none, hearts, spades, both = (_means(name) for name in ("none", "h", "s", "hs"))
    for target in range(1, 9):
        assert hearts[target]["mean"] >= none[target]["mean"] - TOLERANCE
        assert spades[target]["mean"] >= none[target]["mean"] - TOLERANCE
        assert (
            both[target]["mean"] >= max(hearts[target]["mean"], spades[target]["mean"]) - TOLERANCE
        )
        assert both[target]["share_zero"] <= none[target]["share_zero"] + TOLERANCE
    for name in ("d-2000", "c-1000", "dhs-1000"):
        for target, entry in _means(name).items():
            low, high = entry["mean_ci95"]
            assert low <= entry["mean"] <= high and high >= none[target]["mean"]


BAD_INPUT = [
    (["--sample", "0"], "--sample"),
    (["--abilities", "HX"], "--abilities"),
    (["--abilities", "HH"], "once"),
    (["--chunk-size", "0"], "--chunk-size"),
    (["--workers", "0"], "--workers"),
    (["--cap", "-1"], "--cap"),
]


@pytest.mark.parametrize("args, fragment", BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_options_give_one_line(monkeypatch, capsys, tmp_path, args, fragment):
    """A bad option ends with one `emissary: error:` line naming it."""
    code, out, err = run_in_process(monkeypatch, capsys, ["sweep", "--out", str(tmp_path), *args])
    assert_one_line_error(code, out, err)
    assert fragment in err


def test_resume_with_other_parameters_is_refused(monkeypatch, capsys, small_sweep):
    """--resume on a sweep made with other parameters names the difference in one line."""
    args = ["sweep", "--out", str(small_sweep), "--sample", "6", "--seed", "4", "--resume"]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(code, out, err)
    assert "other parameters" in err and "sample 5 there, 6 now" in err


def test_a_second_sweep_into_one_directory_needs_resume(monkeypatch, capsys, small_sweep):
    """Starting again in a sweep's directory without --resume is refused."""
    args = ["sweep", "--out", str(small_sweep), "--sample", "5", "--seed", "4"]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(code, out, err)
    assert "--resume" in err


def test_unwritable_out_dir_gives_one_line(monkeypatch, capsys, tmp_path):
    """An --out that cannot be a directory (under a file) ends in one line."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    args = ["sweep", "--out", str(blocker / "sweep"), "--sample", "3"]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(code, out, err)
    assert "cannot create" in err


def test_report_errors_give_one_line(monkeypatch, capsys, small_sweep, tmp_path):
    """sweep-report on no sweep, on an unfinished one, and --plots without matplotlib."""
    code, out, err = run_in_process(monkeypatch, capsys, ["sweep-report", str(tmp_path / "none")])
    assert_one_line_error(code, out, err)
    (small_sweep / SUMMARY).unlink()
    code, out, err = run_in_process(monkeypatch, capsys, ["sweep-report", str(small_sweep)])
    assert_one_line_error(code, out, err)
    assert "not finished" in err or "--resume" in err
    _run(SweepSpec(sample=5, seed=4, chunk_size=2), tmp_path / "again")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails as if not installed
    args = ["sweep-report", str(tmp_path / "again"), "--plots", str(tmp_path / "p")]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(code, out, err)
    assert "matplotlib" in err


def test_spec_rejects_impossible_parameters():
    """The engine's own checks hold without the CLI."""
    for bad in ({"jacks": "HC"}, {"sample": 0}, {"chunk_size": 0}, {"cap": 0.0}):
        with pytest.raises(SweepError):
            SweepSpec(**bad)
