"""Batches of seeded tours for several policies: in chunks, on a process pool, resumable.

Tour *i* of a batch plays the deal ``derive_seed(seed, i)`` whatever the policy, chunk or
worker (see :mod:`search.tours.simulate`), so chunks can run in any order and anywhere and the
batch's result is the same. A *checkpoint* file (JSON) records the finished chunks: it is
rewritten atomically (temp file, fsync, rename) after each one, so a batch killed at any
moment resumes with ``resume=True`` and neither loses nor repeats a tour. It also records
the batch's parameters; resuming with others is refused. Beside each chunk's scores it keeps
each tour's visits, (kingdom, hit its target) in order; a checkpoint saved before they were
recorded still resumes, and its results then have none. A tour's visits are saved as a
string, a kingdom's number and ``+`` (hit) or ``-`` a visit, then the planning chance the
policy chose it by if it has one: ``"3+5-"``, ``"3+0.9312 5-0.4071"`` without the space.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from concurrent.futures import as_completed
from pathlib import Path

from ..game import Deal, Stream, TourConfig, derive_seed
from ..infra import UnreadableFileError, process_pool, read_json, write_atomically
from .registry import make_policy
from .simulate import SimulationResult, play_tour

CHUNK_TOURS = 25
"""Tours a chunk plays: the unit of work, of progress and of the checkpoint."""

FORMAT = "emissary-simulation"
MAX_CHECKPOINT_BYTES = 256 * 1024 * 1024  # ten million tours take about 30 MB


class BatchError(ValueError):
    """A checkpoint that cannot be used for this batch; the message is one line."""


class BatchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a batch: ``saved`` of its ``total`` tours are in the checkpoint (none
    without one)."""

    def __init__(self, saved: int, total: int) -> None:
        super().__init__(saved, total)
        self.saved, self.total = saved, total


def play_chunk(
    policy: str, config: TourConfig, seed: int, start: int, stop: int
) -> tuple[list[int], list[str]]:
    """Scores of tours ``start .. stop - 1`` of the batch ``seed`` played by ``policy``, and
    each tour's visits in order, as the checkpoint saves them (``"3+5-"``)."""
    player = make_policy(policy, config.first_edition)
    scores, visits = [], []
    for index in range(start, stop):
        deal = Deal(derive_seed(seed, index), config)
        visited, hits, chances = [], [], []
        scores.append(
            play_tour(deal, player, Stream(seed, "policy", index), visited, hits, chances).score
        )
        visits.append(
            "".join(
                f"{position}{'+' if hit else '-'}{'' if chance is None else f'{chance:.4f}'}"
                for position, hit, chance in zip(visited, hits, chances)
            )
        )
    return scores, visits


def run_batch(
    policies: Sequence[str],
    tours: int,
    seed: int,
    config: TourConfig,
    workers: int = 1,
    checkpoint: Path | None = None,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> list[SimulationResult]:
    """Play ``tours`` tours with each policy; one result per policy, in order.

    ``progress(done, total)`` counts tours over all policies. With ``checkpoint`` the finished
    chunks are saved there after each one; ``resume`` continues a batch saved there.
    """
    for name in policies:
        make_policy(name, config.first_edition)  # fails early on an unknown name
    params = {
        "policies": list(policies),
        "tours": tours,
        "seed": seed,
        "short": config.short,
        "published_rules": config.published_rules,
        "first_edition": config.first_edition,
        "chunk": CHUNK_TOURS,
    }
    done, visits = _load(checkpoint, params) if (checkpoint and resume) else ({}, {})
    if checkpoint and not resume and checkpoint.exists():
        raise BatchError(f"{checkpoint}: already exists; pass --resume to continue it")
    chunks = [
        (name, start, min(start + CHUNK_TOURS, tours))
        for name in policies
        for start in range(0, tours, CHUNK_TOURS)
    ]
    total = len(policies) * tours
    finished = sum(len(scores) for scores in done.values())
    if progress:
        progress(finished, total)
    todo = [chunk for chunk in chunks if _key(*chunk) not in done]

    def record(chunk: tuple, played: tuple[list[int], list]) -> None:
        nonlocal finished
        scores, visits[_key(*chunk)] = played
        done[_key(*chunk)] = scores
        if checkpoint:
            _save(checkpoint, params, done, visits)
        finished += len(scores)  # after the save: what an interrupt reports as saved
        if progress:
            progress(finished, total)

    try:
        if workers <= 1 or len(todo) <= 1:
            for chunk in todo:
                record(chunk, play_chunk(chunk[0], config, seed, chunk[1], chunk[2]))
        else:
            with process_pool(workers) as pool:  # left by Ctrl-C, it kills its workers at once
                futures = {
                    pool.submit(play_chunk, name, config, seed, a, b): (name, a, b)
                    for name, a, b in todo
                }
                for future in as_completed(futures):
                    record(futures[future], future.result())
    except KeyboardInterrupt:
        raise BatchInterrupted(_saved_tours(checkpoint, params, finished), total) from None
    results = []
    for name in policies:
        counts = [0] * (config.perfect_score + 1)
        mine = [_key(*c) for c in chunks if c[0] == name]
        for key in mine:
            for score in done[key]:
                counts[score] += 1
        recorded = None  # each tour's visits, if every chunk has them
        if all(key in visits for key in mine):
            recorded = tuple(_decoded(tour) for key in mine for tour in visits[key])
        played = tuple(score for key in mine for score in done[key])
        results.append(SimulationResult(tours, name, seed, config, tuple(counts), recorded, played))
    return results


def _saved_tours(checkpoint: Path | None, params: dict, counted: int) -> int:
    """The tours the checkpoint holds, read back from it: Ctrl-C may land between a save and
    its count (``counted``, the fallback if the file cannot be read)."""
    if not checkpoint:
        return 0
    try:
        return sum(map(len, _load(checkpoint, params)[0].values()))
    except (BatchError, OSError, ValueError):
        return counted


def _key(policy: str, start: int, stop: int) -> str:
    return f"{policy}:{start}-{stop}"


def _load(path: Path, params: dict) -> tuple[dict[str, list[int]], dict[str, list]]:
    """The chunks' scores and the visits of those that recorded them."""
    if not path.exists():
        return {}, {}
    return _checked(path, _read(path), params)


def _read(path: Path):
    """A checkpoint file's JSON, read whole (BatchError if it cannot be)."""
    try:
        return read_json(path, "checkpoint", MAX_CHECKPOINT_BYTES, 4)
    except UnreadableFileError as error:  # not a regular file, too large, not plain JSON
        raise BatchError(str(error)) from None


def _checked(path: Path, data, params: dict) -> tuple[dict[str, list[int]], dict[str, list]]:
    """The chunks' scores and visits of a checkpoint's ``data`` saved for ``params``."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BatchError(f"{path}: not an {FORMAT} checkpoint")
    if data.get("params") != params:
        raise BatchError(
            f"{path}: saved for another batch ({_differences(data.get('params'), params)})"
        )
    chunks = data.get("chunks")
    if not isinstance(chunks, dict) or not all(
        _whole_chunk(key, scores, params) for key, scores in chunks.items()
    ):
        raise BatchError(f"{path}: its chunks are damaged")
    visits = data.get("visits", {})
    if not isinstance(visits, dict):
        raise BatchError(f"{path}: its visit records are damaged")
    visits = {key: tours for key, tours in visits.items() if key in chunks}  # of a chunk kept
    kingdoms = TourConfig(short=params["short"]).kingdoms
    if not all(_whole_visits(tours, len(chunks[key]), kingdoms) for key, tours in visits.items()):
        raise BatchError(f"{path}: its visit records are damaged")
    return chunks, visits


PARAMS = ("policies", "tours", "seed", "short", "published_rules", "first_edition", "chunk")
"""What a checkpoint's parameters name (see :func:`run_batch`)."""


def saved_tours(path: Path) -> tuple[dict, dict[str, dict[int, tuple[int, str | None]]]]:
    """A checkpoint's parameters and, by policy, its finished tours: tour index -> (score,
    its visits as saved, or None if not recorded; :func:`decoded_visits` reads them). It is
    checked as a resume checks it (BatchError if damaged)."""
    data = _read(path)
    params = data.get("params") if isinstance(data, dict) else None
    if not isinstance(params, dict) or not all(key in params for key in PARAMS):
        raise BatchError(f"{path}: not an {FORMAT} checkpoint")
    chunks, visits = _checked(path, data, params)
    tours: dict[str, dict[int, tuple[int, str | None]]] = {name: {} for name in params["policies"]}
    for key, scores in chunks.items():
        name, _, span = key.rpartition(":")
        start = int(span.partition("-")[0])
        recorded = visits.get(key) or [None] * len(scores)
        for offset, (score, tour) in enumerate(zip(scores, recorded)):
            tours[name][start + offset] = (score, tour)
    return params, tours


def _whole_visits(tours, count: int, kingdoms: int) -> bool:
    """A chunk's visits as :func:`play_chunk` gives them: a string a tour, each kingdom once."""
    return (
        isinstance(tours, list)
        and len(tours) == count
        and all(isinstance(tour, str) and _well_formed(tour, kingdoms) for tour in tours)
    )


def _well_formed(tour: str, kingdoms: int) -> bool:
    if re.fullmatch(f"(?:{VISIT.pattern})*", tour) is None:
        return False
    visits = decoded_visits(tour)
    return (
        len({k for k, _, _ in visits}) == len(visits)
        and all(k <= kingdoms for k, _, _ in visits)
        and all(c is None or c <= 1 for _, _, c in visits)
    )


VISIT = re.compile(r"([1-8])([+-])((?:[01]\.\d{4})?)")
"""One visit of a saved tour: the kingdom, + or -, the planning chance if recorded."""


def saved_result(
    params: dict, tours: dict[int, tuple[int, str | None]], policy: str
) -> SimulationResult | None:
    """The result of ``policy``'s saved tours 0 .. n - 1 (:func:`saved_tours`), n the first
    tour not saved; None if none is. Visits are kept when every one of those tours has them."""
    config = TourConfig(
        short=params["short"],
        published_rules=params["published_rules"],
        first_edition=params["first_edition"],
    )
    count = 0
    while count in tours:
        count += 1
    if not count:
        return None
    played = [tours[index] for index in range(count)]
    scores = [0] * (config.perfect_score + 1)
    for score, _ in played:
        scores[score] += 1
    visits = None
    if all(tour is not None for _, tour in played):
        visits = tuple(_decoded(tour) for _, tour in played)
    return SimulationResult(
        count,
        policy,
        params["seed"],
        config,
        tuple(scores),
        visits,
        tuple(score for score, _ in played),
    )


def decoded_visits(tour: str) -> list[tuple[int, bool, float | None]]:
    """A saved tour's visits: (kingdom, hit, the planning chance it was chosen by or None)."""
    return [
        (int(k), hit == "+", float(chance) if chance else None)
        for k, hit, chance in VISIT.findall(tour)
    ]


def _decoded(tour: str) -> tuple[tuple[int, bool], ...]:
    return tuple((k, hit) for k, hit, _ in decoded_visits(tour))


def _whole_chunk(key: str, scores, params: dict) -> bool:
    """A chunk as :func:`run_batch` saves it: ``policy:start-stop`` and a score a tour."""
    policy, _, span = key.rpartition(":")
    start, _, stop = span.partition("-")
    if policy not in params["policies"] or not (start.isdigit() and stop.isdigit()):
        return False
    perfect = TourConfig(short=params["short"], first_edition=params["first_edition"]).perfect_score
    return (
        isinstance(scores, list)
        and len(scores) == int(stop) - int(start) > 0
        and int(stop) <= params["tours"]
        and all(type(score) is int and 0 <= score <= perfect for score in scores)
    )


def _differences(saved, wanted: dict) -> str:
    if not isinstance(saved, dict):
        return "no parameters recorded"
    changed = [k for k in wanted if saved.get(k) != wanted[k]]
    return "different " + ", ".join(changed)


def _save(path: Path, params: dict, chunks: dict, visits: dict) -> None:
    """Write the checkpoint whole or not at all."""
    text = (
        json.dumps({"format": FORMAT, "params": params, "chunks": chunks, "visits": visits}) + "\n"
    )
    write_atomically(path, lambda stream: stream.write(text.encode()))
