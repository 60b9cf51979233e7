"""Sweeps: the exact chance of every 8-card hand at every kingdom (issue 6).

**What is solved.** For each hand, the chance of exactly N wins from a visit's
start (docs/rules.md §7) for each target N: 1..8, or 2 4 6 8 for the short tour
(§6). The Jacks in play are the sweep's ability set (none by default); with
Politics, the pool is every other ruler of a first visit: two rulers a suit
less the visited one, or the three other Kings in a short tour.

**Symmetry.** The solver is blind to suit names except the trump and, with
Military, clubs (:mod:`search.sweep.handclasses`). Without Military every trump gives
the same chances, so one trump, ♠, stands for all four; with Military, ♣
stands for itself and ♠ for ♦ ♥ ♠. At its trump a full sweep solves one hand
a class, weighted by the class size, so weights add up to C(32, 8) at every
trump: 1,820,803 classes with no ability. ``sample`` instead solves a seeded
uniform sample (:func:`search.sweep.handclasses.random_hand`), each hand at every
trump of the ability set.

**Work.** The rows are cut into chunks solved through any
``concurrent.futures.Executor`` (a local process pool, or a Dask cluster's).
Each finished chunk is written atomically (a temp file beside it, then
``os.replace``), so a sweep killed at any moment keeps whole chunks only;
resuming redoes exactly the missing ones. ``manifest.json`` holds the
parameters and a digest of the rows, and a resume with other parameters is
refused. A solve past ``cap`` seconds is abandoned and its row flagged capped.

**Files.** ``chunk-NNNNNN.npz``, NumPy's zip of ``.npy`` arrays: NumPy is
already a dependency (Parquet would add pyarrow, about 100 MB installed, for
column pruning and cross-language queries that 2 million rows do not need),
a chunk writes and reads in milliseconds, and the ``.npy`` format is a
documented, versioned header over raw arrays, readable since 2006 and simple
to read without NumPy. Columns, one row a hand at a trump:

- ``mask`` (uint32): the hand; card bit ``suit * 8 + rank - 1``, suits ♣ ♦ ♥ ♠ = 0..3;
- ``trump`` (uint8): the trump solved at;
- ``weight`` (int64): hands the row stands for at that trump (class size; 1 in a sample);
- ``sample`` (int64): index in the seeded sample, -1 in a full sweep;
- ``chance`` (float64, rows x targets): chance of exactly each target, NaN if capped;
- ``capped`` (bool): the solve ran past ``cap`` seconds;
- ``targets`` (int8): the targets of the ``chance`` columns;
- ``chunk`` and ``seconds``: the chunk's number and its solving time in a worker.

``summary.json`` (:mod:`search.sweep.summary`) is written when every chunk is done.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import contextmanager
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import IO

import numpy as np

from ..game import FULL_MASK
from ..infra import (
    CannotCreateError,
    UnreadableFileError,
    leftover_temp_files,
    process_pool,
    read_json,
)
from ..infra import write_atomically as write_whole_file
from ..visit import BudgetExceeded, clock_stops, make_solver
from .chunks import read_chunk
from .handclasses import HAND_SIZE, canonical_hands, random_hand, role_preserving_permutations
from .summary import summarise

SCHEME = 1  # bump when rows, columns or files change meaning
SUIT_LETTERS = "CDHS"
CLUBS, SPADES = 0, 3
MILITARY, POLITICS = 0, 3
TARGETS = tuple(range(1, 9))
SHORT_TARGETS = (2, 4, 6, 8)
DEFAULT_CHUNK_SIZE = 20_000
# A chunk keeps its solver (and memo) across hands until the memo holds this many states:
# about 400 MB a worker. Measured on the no-ability classes in sweep order: 0.009 ms a class
# with one solver for 400k classes, 0.011 ms renewing every 20k (a chunk's solver).
MAX_STATES = 1_000_000
MANIFEST = "manifest.json"
SUMMARY = "summary.json"


class SweepError(ValueError):
    """A sweep that cannot start, go on or serve lookups; the message is one line."""


class MissingExtraError(SweepError):
    """An optional dependency is not installed."""


@dataclass(frozen=True)
class TrumpCase:
    """A trump a sweep solves at, and the trumps it stands for by symmetry."""

    trump: int
    stands_for: str  # letters, e.g. "CDHS"

    @property
    def share(self) -> float:
        """The share of deals whose trump this case stands for."""
        return len(self.stands_for) / len(SUIT_LETTERS)


@dataclass(frozen=True)
class SweepSpec:
    """What a sweep solves: the Jacks in play, the tour, every hand or a seeded sample."""

    jacks: str = ""  # Jack suits as letters in CDHS order, "" for none
    short: bool = False
    sample: int | None = None
    seed: int = 1
    chunk_size: int = DEFAULT_CHUNK_SIZE
    cap: float | None = None  # seconds a solve may take

    def __post_init__(self) -> None:
        if self.jacks != "".join(letter for letter in SUIT_LETTERS if letter in self.jacks):
            raise SweepError(f"jacks {self.jacks!r} must be distinct letters of CDHS in that order")
        if self.sample is not None and self.sample < 1:
            raise SweepError(f"a sample needs at least 1 hand, got {self.sample}")
        if self.seed < 0:
            raise SweepError(f"the seed must be 0 or more, got {self.seed}")
        if self.chunk_size < 1:
            raise SweepError(f"a chunk needs at least 1 row, got {self.chunk_size}")
        if self.cap is not None and not self.cap > 0:
            raise SweepError(f"the cap must be a positive number of seconds, got {self.cap}")

    @property
    def label(self) -> str:
        """The ability set as written on the command line: ``none`` or letters."""
        return self.jacks or "none"

    @property
    def abilities(self) -> tuple[int, int, int, int]:
        """Uses of each suit's ability (♣ ♦ ♥ ♠): one per Jack."""
        return tuple(int(letter in self.jacks) for letter in SUIT_LETTERS)

    @property
    def targets(self) -> tuple[int, ...]:
        """The kingdoms' targets: 1..8, or 2 4 6 8 in a short tour."""
        return SHORT_TARGETS if self.short else TARGETS

    def trump_cases(self) -> tuple[TrumpCase, ...]:
        """The trumps to solve at: ♠ for all four, or ♣ and ♠ apart with Military."""
        if self.abilities[MILITARY]:
            return (TrumpCase(CLUBS, "C"), TrumpCase(SPADES, "DHS"))
        return (TrumpCase(SPADES, SUIT_LETTERS),)

    def pool(self, trump: int) -> tuple[int, ...]:
        """The suits Politics can bring at a first visit to a kingdom of ``trump``."""
        if not self.abilities[POLITICS]:
            return ()
        if self.short:  # the three other Kings
            return tuple(suit for suit in range(4) if suit != trump)
        rulers = [suit for suit in range(4) for _ in range(2)]
        rulers.remove(trump)  # the visited ruler; its twin stays in the pool
        return tuple(rulers)

    def parameters(self) -> dict:
        """The parameters that fix a sweep's rows and values (the manifest's)."""
        return {
            "abilities": self.label,
            "short": self.short,
            "sample": self.sample,
            "seed": self.seed if self.sample is not None else None,
            "chunk_size": self.chunk_size,
            "cap": self.cap,
        }


@dataclass(frozen=True)
class Plan:
    """Every row of a sweep in order: a hand at a trump, standing for ``weight`` hands."""

    masks: np.ndarray  # uint32
    trumps: np.ndarray  # uint8
    weights: np.ndarray  # int64
    samples: np.ndarray  # int64, -1 in a full sweep
    chunk_size: int

    def __len__(self) -> int:
        return len(self.masks)

    @property
    def chunk_count(self) -> int:
        """How many chunks the rows make."""
        return -(-len(self) // self.chunk_size)

    def chunk(self, index: int) -> slice:
        """The rows of chunk ``index``."""
        return slice(index * self.chunk_size, min(len(self), (index + 1) * self.chunk_size))

    def digest(self) -> str:
        """A SHA-256 of the rows, so a resume can tell that they are the same."""
        digest = hashlib.sha256()
        for column in (self.masks, self.trumps, self.weights, self.samples):
            digest.update(np.ascontiguousarray(column).tobytes())
        return digest.hexdigest()


def make_plan(spec: SweepSpec) -> Plan:
    """The rows of ``spec``: every class at every trump case, or each sampled hand at each."""
    cases = spec.trump_cases()
    if spec.sample is not None:
        hands = np.array([random_hand(spec.seed, i) for i in range(spec.sample)], dtype=np.uint32)
        masks = np.repeat(hands, len(cases))
        trumps = np.tile(np.array([case.trump for case in cases], dtype=np.uint8), spec.sample)
        weights = np.ones(len(masks), dtype=np.int64)
        samples = np.repeat(np.arange(spec.sample, dtype=np.int64), len(cases))
        return Plan(masks, trumps, weights, samples, spec.chunk_size)
    columns = []
    for case in cases:
        fixed = (CLUBS,) if spec.abilities[MILITARY] else ()
        masks, weights = canonical_hands(role_preserving_permutations(case.trump, fixed))
        columns.append(
            (masks.astype(np.uint32), np.full(len(masks), case.trump, np.uint8), weights)
        )
    masks, trumps, weights = (np.concatenate(parts) for parts in zip(*columns))
    samples = np.full(len(masks), -1, dtype=np.int64)
    return Plan(masks, trumps, weights, samples, spec.chunk_size)


def hands_per_trump(spec: SweepSpec) -> int:
    """The hands each trump case covers: C(32, 8), or the sample's size."""
    return spec.sample if spec.sample is not None else comb(32, HAND_SIZE)


# --- one chunk, in a worker ----------------------------------------------------------------


@dataclass(frozen=True)
class ChunkTask:
    """One chunk's work as sent to a worker."""

    index: int
    masks: np.ndarray
    trumps: np.ndarray
    abilities: tuple[int, int, int, int]
    pools: tuple[tuple[int, ...], ...]  # the Politics pool, indexed by trump
    targets: tuple[int, ...]
    cap: float | None


@dataclass(frozen=True)
class ChunkResult:
    """A solved chunk: each row's chances (NaN where capped) and the worker's time."""

    index: int
    chance: np.ndarray
    capped: np.ndarray
    seconds: float


def chunk_task(spec: SweepSpec, plan: Plan, index: int) -> ChunkTask:
    """The task of chunk ``index``."""
    rows = plan.chunk(index)
    return ChunkTask(
        index=index,
        masks=plan.masks[rows],
        trumps=plan.trumps[rows],
        abilities=spec.abilities,
        pools=tuple(spec.pool(trump) for trump in range(4)),
        targets=spec.targets,
        cap=spec.cap,
    )


def solve_chunk(task: ChunkTask) -> ChunkResult:
    """Solve every row of ``task`` (runs in a worker) on one solver of its own, its memo serving
    the next hands (rows come in mask order) until it holds :data:`MAX_STATES` states. A chunk's
    values depend on nothing outside it, whichever worker solves it."""
    started = time.perf_counter()
    chance = np.full((len(task.masks), len(task.targets)), np.nan)
    capped = np.zeros(len(task.masks), dtype=bool)
    solver = make_solver()
    for row, (mask, trump) in enumerate(zip(task.masks.tolist(), task.trumps.tolist())):
        if solver.state_count() > MAX_STATES:
            solver = make_solver()
        cap = None if task.cap is None else time.perf_counter() + task.cap
        try:
            with clock_stops(cap, solver):
                needs = solver.decide(
                    mask, FULL_MASK & ~mask, 0, trump, task.abilities, task.pools[trump]
                )
        except BudgetExceeded:
            capped[row] = True
            solver = make_solver()  # an abandoned search may leave its memo half-built
            continue
        chance[row] = [needs[target] for target in task.targets]
    return ChunkResult(task.index, chance, capped, time.perf_counter() - started)


# --- files ---------------------------------------------------------------------------------


def chunk_path(out: Path, index: int) -> Path:
    """Where chunk ``index`` is stored."""
    return out / f"chunk-{index:06d}.npz"


def write_atomically(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write ``path`` whole or not at all (:func:`search.infra.files.write_atomically`)."""
    try:
        write_whole_file(path, write)
    except CannotCreateError as error:
        raise SweepError(f"cannot write in {path.parent}: {error.strerror}") from None


def write_json(path: Path, data: dict) -> None:
    """Write ``data`` as indented JSON, atomically."""
    text = json.dumps(data, indent=2) + "\n"
    write_atomically(path, lambda stream: stream.write(text.encode()))


def write_chunk(out: Path, plan: Plan, result: ChunkResult, targets: tuple[int, ...]) -> None:
    """Store a solved chunk with its rows' columns."""
    rows = plan.chunk(result.index)
    columns = {
        "mask": plan.masks[rows],
        "trump": plan.trumps[rows],
        "weight": plan.weights[rows],
        "sample": plan.samples[rows],
        "chance": result.chance,
        "capped": result.capped,
        "targets": np.array(targets, dtype=np.int8),
        "chunk": np.int64(result.index),
        "seconds": np.float64(result.seconds),
    }
    write_atomically(chunk_path(out, result.index), lambda stream: np.savez(stream, **columns))


MAX_MANIFEST_BYTES, MAX_MANIFEST_DEPTH = 1 << 20, 4


def chunk_damage(out: Path, plan: Plan, index: int, targets: tuple[int, ...]) -> str | None:
    """Why chunk ``index`` in ``out`` cannot be kept (unreadable, or not the planned rows);
    None if it is whole and this sweep's."""
    path = chunk_path(out, index)
    try:
        columns = read_chunk(path)
    except UnreadableFileError as error:
        return str(error)
    rows = plan.chunk(index)
    same = (
        np.array_equal(columns["mask"], plan.masks[rows])
        and np.array_equal(columns["trump"], plan.trumps[rows])
        and np.array_equal(columns["weight"], plan.weights[rows])
        and np.array_equal(columns["sample"], plan.samples[rows])
        and np.array_equal(columns["targets"], np.array(targets))
        and int(columns["chunk"]) == index
    )
    chance = columns["chance"]
    if same and not bool(np.all(np.isnan(chance) | ((chance >= 0) & (chance <= 1)))):
        return f"{path}: damaged sweep chunk (a chance outside 0..1)"
    return None if same else f"{path}: not this sweep's chunk {index} (other rows)"


def load_rows(out: Path, plan: Plan) -> dict[str, np.ndarray]:
    """Every chunk's columns joined in row order, checked against the plan row by row."""
    chunks = [read_chunk(chunk_path(out, k)) for k in range(plan.chunk_count)]
    rows = {
        name: np.concatenate([chunk[name] for chunk in chunks])
        for name in ("mask", "trump", "weight", "sample", "chance", "capped")
    }
    if not (
        np.array_equal(rows["mask"], plan.masks) and np.array_equal(rows["trump"], plan.trumps)
    ):
        raise SweepError(f"the chunks in {out} do not hold the planned rows: start a new sweep")
    rows["seconds"] = np.array([float(chunk["seconds"]) for chunk in chunks])
    return rows


def _manifest(spec: SweepSpec, plan: Plan) -> dict:
    return {
        "scheme": SCHEME,
        "parameters": spec.parameters(),
        "rows": len(plan),
        "chunks": plan.chunk_count,
        "plan_sha256": plan.digest(),
    }


def prepare_directory(
    out: Path,
    spec: SweepSpec,
    plan: Plan,
    resume: bool,
    notice: Callable[[str], None] | None = None,
) -> set[int]:
    """Create or check ``out`` for this sweep; return the chunks already done. A chunk file
    that is damaged or not this sweep's is named to ``notice`` and left to be solved again."""
    manifest = _manifest(spec, plan)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SweepError(f"cannot create the output directory {out}: {error.strerror}") from None
    path = out / MANIFEST
    if path.exists() or path.is_symlink():
        if not resume:
            raise SweepError(
                f"{out} already holds a sweep: add --resume to continue it, or choose another --out"
            )
        try:
            previous = read_manifest(out)
        except SweepError as error:
            raise SweepError(f"{error}: choose another --out") from None
        if previous != manifest:
            raise SweepError(
                f"{out} holds a sweep with other parameters: {_difference(previous, manifest)}"
            )
    else:
        if any(out.glob("chunk-*.npz")):
            raise SweepError(f"{out} holds chunk files but no {MANIFEST}: choose another --out")
        write_json(path, manifest)
    for leftover in leftover_temp_files(out):  # a write cut short by a kill; ours by exact name
        leftover.unlink(missing_ok=True)
    done = set()
    for index in range(plan.chunk_count):
        if not chunk_path(out, index).exists():
            continue
        damage = chunk_damage(out, plan, index, spec.targets)
        if damage is None:
            done.add(index)
        elif notice is not None:
            notice(f"{damage}; solving it again")
    return done


def read_manifest(out: Path) -> dict:
    """The manifest of the sweep in ``out``, read through the checked door; a
    :class:`SweepError` naming the file if it is no manifest."""
    path = out / MANIFEST
    try:
        data = read_json(path, "sweep manifest", MAX_MANIFEST_BYTES, MAX_MANIFEST_DEPTH)
    except UnreadableFileError as error:
        raise SweepError(str(error)) from None
    if not isinstance(data, dict) or not isinstance(data.get("parameters"), dict):
        raise SweepError(f"{path}: not a sweep manifest (no parameters)")
    return data


def _difference(previous: dict, wanted: dict) -> str:
    old, new = previous.get("parameters", {}), wanted["parameters"]
    changes = [
        f"{key} {json.dumps(old.get(key))} there, {json.dumps(new[key])} now"
        for key in new
        if old.get(key) != new[key]
    ]
    if not changes:
        changes = ["its rows differ (another version of the sweep)"]
    return "; ".join(changes) + " (resume with the same parameters, or choose another --out)"


# --- running -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepRun:
    """What one run did: the summary, and the chunks and hands it solved in how long."""

    summary: dict
    chunks: int
    hands: int
    seconds: float


Progress = Callable[[int, int], None]  # (hands done, hands in all)


def run_sweep(
    spec: SweepSpec,
    out: Path,
    executor: Executor,
    slots: int,
    resume: bool = False,
    progress: Progress | None = None,
    notice: Callable[[str], None] | None = None,
) -> SweepRun:
    """Solve the chunks of ``spec`` not yet in ``out`` with ``executor``, keeping ``slots``
    chunks in flight; write each as it finishes, then the summary. ``notice`` hears of each
    chunk file found damaged (and solved again)."""
    started = time.perf_counter()
    plan = make_plan(spec)
    done = prepare_directory(out, spec, plan, resume, notice)
    chunk_hands = [int(plan.weights[plan.chunk(k)].sum()) for k in range(plan.chunk_count)]
    total = sum(chunk_hands)
    hands_done = sum(chunk_hands[k] for k in done)
    report = progress or (lambda done, total: None)
    report(hands_done, total)
    pending = deque(k for k in range(plan.chunk_count) if k not in done)
    running: dict[Future, int] = {}
    solved = 0
    try:
        while pending or running:
            while pending and len(running) < max(1, slots):
                index = pending.popleft()
                running[executor.submit(solve_chunk, chunk_task(spec, plan, index))] = index
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(finished, key=running.get):
                index = running.pop(future)
                write_chunk(out, plan, future.result(), spec.targets)
                solved += 1
                hands_done += chunk_hands[index]
                report(hands_done, total)
    finally:
        for future in running:
            future.cancel()
    seconds = time.perf_counter() - started
    new_hands = sum(chunk_hands[k] for k in range(plan.chunk_count) if k not in done)
    summary = summarise(spec, load_rows(out, plan), hands_per_trump(spec))
    summary["timing"]["last_run"] = {
        "chunks": solved,
        "hands": new_hands,
        "wall_seconds": round(seconds, 3),
    }
    write_json(out / SUMMARY, summary)
    return SweepRun(summary, solved, new_hands, seconds)


def chunk_counts(out: Path) -> tuple[int, int]:
    """(chunk files present, chunks planned) of the sweep in ``out``; (0, 0) before its
    manifest is written."""
    path = out / MANIFEST
    if not (path.exists() or path.is_symlink()):
        return 0, 0
    planned = read_manifest(out).get("chunks")
    if not isinstance(planned, int) or isinstance(planned, bool) or planned < 0:
        raise SweepError(f"{path}: not a sweep manifest (no count of chunks)")
    return len(list(out.glob("chunk-*.npz"))), planned


@contextmanager
def open_executor(workers: int, scheduler: str | None = None) -> Iterator[tuple[Executor, int]]:
    """A process pool of ``workers`` (or the executor of the Dask scheduler at address
    ``scheduler``), with how many chunks to keep in flight on it."""
    if scheduler is None:
        if workers < 1:
            raise SweepError(f"use at least 1 worker, got {workers}")
        # spawn: workers start from a clean process, not a fork of threads (progress bars),
        # and as the sweep's own children they end with it (search.infra.workers)
        pool = process_pool(workers, "spawn")
        try:
            yield pool, 2 * workers
        except BaseException:  # Ctrl-C among them: the workers stop now, not after their chunks
            pool.stop()
            raise
        pool.shutdown(wait=True, cancel_futures=True)
        return
    try:
        from distributed import Client
    except ImportError:
        raise MissingExtraError(
            "--scheduler needs Dask: pip install 'emissary[distributed]'"
        ) from None
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as error:
        message = " ".join(str(error).split()) or type(error).__name__
        raise SweepError(f"cannot reach the Dask scheduler at {scheduler}: {message}") from None
    try:
        threads = sum(client.nthreads().values()) or 1
        executor = client.get_executor()
        try:
            yield executor, 2 * threads
        finally:
            executor.shutdown(wait=True)
    finally:
        client.close()
