"""Exact no-ability chances of any hand, looked up in a full sweep instead of solved.

A full no-ability sweep (``emissary sweep --abilities none``) stores one row per hand class:
trump ♠, the other three suits interchangeable, the class named by its smallest mask
(:mod:`search.sweep.handclasses`). Any hand with any trump maps onto such a class: rename its
trump ♠ (swapping the two suits), then take the smallest mask over the six orders of the
other suits. :class:`SweepLookup` does that with numpy for many hands at once and reads the
chances by binary search, so a planning table (:mod:`search.tours.planning`) for the no-ability
model costs lookups instead of solves.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .chunks import read_chunk
from .handclasses import permute_masks, role_preserving_permutations
from .runner import SweepError

SWEEP_TRUMP = 3  # the sweep solves every class with trump ♠


def canonical_masks(masks: np.ndarray, trump: int) -> np.ndarray:
    """The class (smallest mask, trump ♠) of each hand in ``masks`` (uint64) with ``trump``."""
    masks = masks.astype(np.uint64)
    if trump != SWEEP_TRUMP:
        swap = list(range(4))
        swap[trump], swap[SWEEP_TRUMP] = SWEEP_TRUMP, trump
        masks = permute_masks(masks, tuple(swap))
    images = np.stack(
        [permute_masks(masks, perm) for perm in role_preserving_permutations(SWEEP_TRUMP)]
    )
    return images.min(axis=0)


class SweepLookup:
    """The chances of a finished full no-ability sweep, by hand and trump."""

    def __init__(self, folder: Path) -> None:
        paths = sorted(Path(folder).glob("chunk-*.npz"))
        if not paths:
            raise SweepError(
                f"{folder}: no sweep chunks (run: emissary sweep --abilities none --out {folder})"
            )
        masks, chances = [], []
        for path in paths:
            columns = read_chunk(path)
            if not (columns["trump"] == SWEEP_TRUMP).all() or (columns["sample"] != -1).any():
                raise SweepError(f"{path}: not a chunk of a full no-ability sweep")
            masks.append(columns["mask"].astype(np.uint64))
            chances.append(columns["chance"])
            self.targets = [int(t) for t in columns["targets"]]
        order = np.argsort(np.concatenate(masks), kind="stable")
        self.masks = np.concatenate(masks)[order]
        self.chances_by_class = np.concatenate(chances)[order]
        if len(np.unique(self.masks)) != len(self.masks):
            raise SweepError(
                f"{folder}: a class appears twice; the chunks come from different sweeps"
            )

    def chances(self, masks: np.ndarray, trump: int) -> np.ndarray:
        """Array ``[hand, target index]`` of exact chances (targets as in :attr:`targets`)."""
        classes = canonical_masks(np.asarray(masks), trump)
        rows = np.searchsorted(self.masks, classes)
        rows = np.minimum(rows, len(self.masks) - 1)
        if not (self.masks[rows] == classes).all():
            raise SweepError("the sweep lacks some hand classes: it is not finished (use --resume)")
        return self.chances_by_class[rows]
