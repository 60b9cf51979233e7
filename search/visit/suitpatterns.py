"""Per-suit patterns: what of a suit's cards matters to the rest of a visit.

Within one suit only the relative order of the cards still in play matters
(hand, deck and, when a reshuffle is possible, discard pile); cards that left
play drop out. A suit is described by one byte per pile; this module turns the
bytes into a small integer *signature* of the interleaving and lists the
equivalent choices (runs of adjacent cards of one pile) that search must
distinguish. Everything is cached per byte pattern.
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import combinations

BYTE = 0xFF  # one suit of a 32-card mask: 8 ranks

HAND, DECK, DISCARD = 1, 2, 3


@cache
def signature(hand: int, deck: int, discard: int = 0) -> int:
    """The interleaving of one suit's piles as base-4 digits (lowest rank first), with a
    leading 1 so that lengths differ.

    >>> signature(0b0101, 0b0010) == signature(0b1010_0000, 0b0100_0000)
    True
    """
    sig = 1
    for bit in range(8):
        mask = 1 << bit
        if hand & mask:
            sig = sig * 4 + HAND
        elif deck & mask:
            sig = sig * 4 + DECK
        elif discard & mask:
            sig = sig * 4 + DISCARD
    return sig


@lru_cache(maxsize=1)
def signature_table() -> tuple[int, ...]:
    """``signature(hand, deck)`` for every pair of bytes, indexed by ``hand << 8 | deck``
    (entries where the bytes overlap are unused)."""
    return tuple(signature(index >> 8, index & 0xFF & ~(index >> 8)) for index in range(1 << 16))


def _runs(mine: int, others: int) -> list[list[int]]:
    """Maximal runs of ``mine`` bits with no ``others`` bit between them, lowest first."""
    runs: list[list[int]] = []
    current: list[int] = []
    for bit in range(8):
        mask = 1 << bit
        if mine & mask:
            current.append(mask)
        elif others & mask and current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


@cache
def hand_runs(hand: int, others: int) -> tuple[int, ...]:
    """One representative bit (the lowest) per run of equivalent hand cards."""
    return tuple(run[0] for run in _runs(hand, others))


@cache
def hand_run_pairs(hand: int, others: int) -> tuple[int, ...]:
    """Two-card subsets of the hand up to equivalence, as byte masks."""
    runs = _runs(hand, others)
    pairs = [run[0] | run[1] for run in runs if len(run) >= 2]
    pairs.extend(a[0] | b[0] for a, b in combinations(runs, 2))
    return tuple(pairs)


@cache
def reveal_classes(
    hand: int, deck: int
) -> tuple[tuple[int, int, tuple[int, ...], tuple[int, ...]], ...]:
    """Deck cards of one suit grouped by the hand cards above them.

    Each entry: (representative deck bit, how many deck cards share it, hand
    runs above it (they win when following suit), hand runs below it (they lose)).
    """
    reps = hand_runs(hand, deck)
    classes = []
    for run in _runs(deck, hand):
        low = run[0]
        above = tuple(r for r in reps if r > low)
        below = tuple(r for r in reps if r < low)
        classes.append((low, len(run), above, below))
    return tuple(classes)


@cache
def draw_subsets(hand: int, deck: int, discard: int, count: int) -> tuple[tuple[int, int], ...]:
    """The ``count``-card subsets of this suit's deck grouped by the pattern they leave.

    Each entry: (representative drawn byte, how many subsets give that pattern).
    """
    groups: dict[int, list[int]] = {}
    bits = [1 << b for b in range(8) if deck & (1 << b)]
    for chosen in combinations(bits, count):
        drawn = sum(chosen)
        sig = signature(hand | drawn, deck & ~drawn, discard)
        entry = groups.get(sig)
        if entry is None:
            groups[sig] = [drawn, 1]
        else:
            entry[1] += 1
    return tuple((drawn, n) for drawn, n in groups.values())


def bits_of(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first, each as a one-bit mask."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def draw_combinations(hand, deck, disc, count):
    """Subsets of ``count`` deck cards up to per-suit pattern: (drawn mask, multiplicity)."""
    per_suit = []
    for s in range(4):
        shift = 8 * s
        h, d, x = (hand >> shift) & BYTE, (deck >> shift) & BYTE, (disc >> shift) & BYTE
        options = []
        for m in range(min(count, d.bit_count()) + 1):
            options.append([(drawn << shift, ways) for drawn, ways in draw_subsets(h, d, x, m)])
        per_suit.append(options)

    results = []

    def extend(suit, left, drawn, ways):
        if suit == 4:
            if left == 0:
                results.append((drawn, ways))
            return
        options = per_suit[suit]
        for m in range(min(left, len(options) - 1) + 1):
            for part, n in options[m]:
                extend(suit + 1, left - m, drawn | part, ways * n)

    extend(0, count, 0, 1)
    return results
