"""A sweep chunk file read back: the columns a chunk holds, each of its type, checked
through the project's one door for its own .npz files (:func:`search.infra.read_arrays`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..infra import UnreadableFileError, read_arrays

CHUNK_COLUMNS = {  # each column's dtype kind and dimensions
    "mask": ("u", 1),
    "trump": ("u", 1),
    "weight": ("i", 1),
    "sample": ("i", 1),
    "chance": ("f", 2),
    "capped": ("b", 1),
    "targets": ("i", 1),
    "chunk": ("i", 0),
    "seconds": ("f", 0),
}
MAX_CHUNK_BYTES = 1 << 30  # a chunk of 20,000 rows takes about 2 MB


def read_chunk(path: Path) -> dict[str, np.ndarray]:
    """The columns of a chunk file, each of its type (:data:`CHUNK_COLUMNS`), every row in
    each; :class:`~search.infra.UnreadableFileError` naming the file if it is damaged."""
    columns = read_arrays(path, "sweep chunk", MAX_CHUNK_BYTES, CHUNK_COLUMNS)
    rows = len(columns["mask"])
    lengths = {
        name: len(columns[name]) for name in ("trump", "weight", "sample", "chance", "capped")
    }
    if any(length != rows for length in lengths.values()):
        raise UnreadableFileError(f"{path}: damaged sweep chunk (columns of unequal length)")
    if columns["chance"].shape[1] != len(columns["targets"]):
        raise UnreadableFileError(f"{path}: damaged sweep chunk (a chance for each target)")
    return columns
