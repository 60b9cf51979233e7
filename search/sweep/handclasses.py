"""Hands up to suit symmetry: the classes a sweep solves, each with its size.

Renaming suits changes no chance as long as every suit keeps its role
(docs/rules.md §2-§4): the trump stays the trump, and while Military is in play
clubs stay clubs, since Military counts ♣ cards. Commerce and Diplomacy name
no suit but the trump, and the standard Politics pool (every other ruler)
treats the non-trump suits alike. So the suit permutations that fix the trump
(and ♣ with Military) map a hand to one with the same chances.

A *class* is an orbit of hands under those permutations. Its representative
is the smallest mask in it and its weight the number of hands in it, so the
weights of all classes add up to C(32, 8) = 10,518,300. With the trump fixed
and no Military, the 3 other suits are interchangeable: 1,820,803 classes.

The deck can be shrunk (fewer ranks a suit, a smaller hand) so that tests can
check the classes against brute force; masks then use ``ranks`` bits a suit.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import permutations, product

import numpy as np

from ..game import Stream

SUIT_COUNT = 4
RANK_COUNT = 8
HAND_SIZE = 8

Permutation = tuple[int, ...]  # perm[s] is the suit that suit s becomes


def role_preserving_permutations(trump: int, fixed: Iterable[int] = ()) -> tuple[Permutation, ...]:
    """The suit permutations that keep ``trump`` and each suit in ``fixed`` in place.

    >>> len(role_preserving_permutations(3)), len(role_preserving_permutations(3, fixed=[0]))
    (6, 2)
    """
    kept = {trump, *fixed}
    return tuple(
        perm for perm in permutations(range(SUIT_COUNT)) if all(perm[suit] == suit for suit in kept)
    )


def permute_masks(masks: np.ndarray, perm: Permutation, ranks: int = RANK_COUNT) -> np.ndarray:
    """The hands ``masks`` with suit ``s`` renamed ``perm[s]``."""
    suit_bits = np.uint64((1 << ranks) - 1)
    result = np.zeros_like(masks)
    for suit, image in enumerate(perm):
        cards = (masks >> np.uint64(ranks * suit)) & suit_bits
        result |= cards << np.uint64(ranks * image)
    return result


def canonical_hands(
    group: Iterable[Permutation], ranks: int = RANK_COUNT, hand_size: int = HAND_SIZE
) -> tuple[np.ndarray, np.ndarray]:
    """Every class under ``group`` (which holds the identity): its smallest mask and its
    size, sorted by mask (uint64 and int64 arrays)."""
    group = tuple(group)
    by_count = [
        np.array([b for b in range(1 << ranks) if b.bit_count() == k], dtype=np.uint64)
        for k in range(ranks + 1)
    ]
    representatives, weights = [], []
    for counts in _suit_counts(hand_size, ranks):
        grids = np.meshgrid(*(by_count[c] for c in counts), indexing="ij")
        masks = np.zeros(grids[0].size, dtype=np.uint64)
        for suit, grid in enumerate(grids):
            masks |= grid.ravel() << np.uint64(ranks * suit)
        images = np.stack([permute_masks(masks, perm, ranks) for perm in group])
        smallest = (images >= masks).all(axis=0)
        orbit = np.sort(images[:, smallest], axis=0)
        representatives.append(masks[smallest])
        weights.append(1 + (np.diff(orbit, axis=0) != 0).sum(axis=0))
    masks = np.concatenate(representatives)
    order = np.argsort(masks, kind="stable")
    return masks[order], np.concatenate(weights).astype(np.int64)[order]


def _suit_counts(hand_size: int, ranks: int) -> Iterator[tuple[int, ...]]:
    """How many cards of each suit a hand can hold."""
    for counts in product(range(min(ranks, hand_size) + 1), repeat=SUIT_COUNT):
        if sum(counts) == hand_size:
            yield counts


def random_hand(seed: int, index: int, ranks: int = RANK_COUNT, hand_size: int = HAND_SIZE) -> int:
    """The ``index``-th hand of a seeded uniform sample (its own stream, so any slice of
    the sample can be dealt alone)."""
    stream = Stream(seed, "sweep", index)
    cards = list(range(SUIT_COUNT * ranks))
    mask = 0
    for i in range(hand_size):  # Fisher–Yates, stopped after the hand
        j = i + stream.below(len(cards) - i)
        cards[i], cards[j] = cards[j], cards[i]
        mask |= 1 << cards[i]
    return mask
