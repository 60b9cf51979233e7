"""A finished sweep's summary read back from its file, every field checked before the tables
and plots of ``emissary sweep-report`` use it."""

from __future__ import annotations

import math
from pathlib import Path

from ..infra import UnreadableFileError, read_json
from .runner import MANIFEST, SUMMARY, SweepError, chunk_counts

MAX_SUMMARY_BYTES = 16 * 1024 * 1024  # a summary is a few kilobytes
MAX_SUMMARY_DEPTH = 8  # summary -> results -> an entry -> its histogram; a little to spare


def read_summary(path: Path) -> dict:
    """The summary of a finished sweep; ``path`` is its directory or a summary file.

    Everything the tables and plots read is checked first (:func:`check_summary`), so a
    missing or edited file is one :class:`SweepError` naming it, never a ``KeyError``.
    """
    file = path / SUMMARY if path.is_dir() else path
    if not file.exists():
        if (path / MANIFEST).exists():
            done, planned = chunk_counts(path)
            raise SweepError(
                f"the sweep in {path} is not finished ({done} of {planned} chunks): "
                "continue it with `emissary sweep --resume` and the same parameters"
            )
        raise SweepError(f"{path} holds no sweep summary ({SUMMARY})")
    try:
        summary = read_json(file, "sweep summary", MAX_SUMMARY_BYTES, MAX_SUMMARY_DEPTH)
    except UnreadableFileError as error:  # not a regular file, too large, not plain JSON
        raise SweepError(str(error)) from None
    problem = check_summary(summary)
    if problem:
        raise SweepError(f"{file}: not a sweep summary: {problem}")
    return summary


def _real(value, low: float = 0.0, high: float = 1.0) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and low <= value <= high
    )


def _brief(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def check_summary(summary) -> str | None:
    """What is wrong with a summary read from a file, in a few words; None if it is usable."""
    if not isinstance(summary, dict):
        return "not a JSON object"
    parameters = summary.get("parameters")
    if not isinstance(parameters, dict):
        return "no 'parameters' object"
    abilities = parameters.get("abilities")
    if not isinstance(abilities, str) or not abilities.isalpha() or len(abilities) > 8:
        return f"parameters.abilities is {_brief(abilities)}"
    if not isinstance(parameters.get("short"), bool):
        return f"parameters.short is {_brief(parameters.get('short'))}, not true or false"
    if summary.get("mode") not in ("sample", "all hands"):
        return f"mode is {_brief(summary.get('mode'))}, not 'sample' or 'all hands'"
    seed = parameters.get("seed")
    if (seed is not None or summary["mode"] == "sample") and (
        not isinstance(seed, int) or isinstance(seed, bool)
    ):  # a sample names its seed
        return f"parameters.seed is {_brief(seed)}"
    hands = summary.get("hands_per_trump")
    if not isinstance(hands, int) or isinstance(hands, bool) or hands < 0:
        return f"hands_per_trump is {_brief(hands)}"
    results = summary.get("results")
    if not isinstance(results, list) or not results:
        return "no 'results' list"
    sampled = summary["mode"] == "sample"
    for number, entry in enumerate(results, start=1):
        problem = _check_entry(entry, sampled)
        if problem:
            return f"result {number}: {problem}"
    return None


def _bound(value) -> bool:
    # A normal interval may reach a little past 0..1; NaN and Infinity never get this far
    # (the reader refuses them), and a bound of null is no figure to print.
    return _real(value, -1.0, 2.0)


def _check_entry(entry, sampled: bool) -> str | None:
    if not isinstance(entry, dict):
        return "not an object"
    needed = ["trumps", "target", "mean", "share_zero", "share_one", "histogram", "capped_share"]
    missing = [key for key in (*needed, *(["mean_ci95"] if sampled else [])) if key not in entry]
    if missing:
        return f"no {missing[0]!r}"
    trumps = entry.get("trumps")
    if not isinstance(trumps, str) or not (trumps == "any" or set(trumps) <= set("CDHS")):
        return f"trumps is {_brief(trumps)}"
    target = entry.get("target")
    if not isinstance(target, int) or isinstance(target, bool):
        return f"target is {_brief(target)}"
    for key in ("mean", "share_zero", "share_one", "capped_share"):
        if entry.get(key) is not None and not _real(entry[key]):
            return f"{key} is {_brief(entry[key])}, not a share 0..1 or null"
    for key in ("mean_ci95", "share_zero_ci95", "share_one_ci95"):
        if key not in entry:
            continue
        interval = entry[key]
        if not (
            isinstance(interval, list)
            and len(interval) == 2
            and all(_bound(bound) for bound in interval)
            and interval[0] <= interval[1]
        ):
            return f"{key} is {_brief(interval)}, not [low, high]"
    histogram = entry.get("histogram")
    if histogram is not None and not (
        isinstance(histogram, list) and all(_real(share) for share in histogram)
    ):
        return f"histogram is {_brief(histogram)}, not a list of shares"
    return None
