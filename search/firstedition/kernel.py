"""Compiled first-edition visit search: the expectimax of :mod:`search.firstedition.reference` in numba.

:class:`FastFirstEditionSolver` keeps the reference's interface (``value``, ``options``,
``answers``, ``solve``) and its results, but computes values and the miss distribution
in two self-recursive ``@njit`` functions over int64 card masks (``suit * 8 + rank - 1``).

State key (one int64). A suit's *code* is its in-play ranks, low to high, one bit each
(1 hand, 0 deck) below a leading 1: cards out of play never come back in this edition,
so only the interleaving of hand and deck matters (9 bits). The key holds the trump
suit's code, the code of spades while ♠ can still make them trump, the other codes
sorted (suit symmetry), the ability counts (2 bits a suit) and a flag for the moment
after a Commerce draw, before its discard. Values are rows of an append-only arena of
17-wide vectors (need -8..8), found through an open-addressing hash table of int64 pairs
(key, row); the wrapper doubles either when the kernel reports it full.

Work saved over the reference: a reveal is taken once per run of deck cards with no hand
card between them (revealing any of them leads to the same state), weighted by the run's
length; the best discard after a Commerce draw is memoised by its own key. Sums are in a
different order, so values agree with the reference to rounding; decisions that tie
(within ``EPS``) go to the first option in the reference's order in both.

Why one piece: the two recursive kernels share the key layout, the memo's hash and the
clock poll with their inlined helpers, and numba's on-disk cache keys each module
separately, so splitting them would state that layout twice.
"""

from __future__ import annotations

import time
import weakref

import numba
import numpy as np
from numba import njit

from ..infra import (
    TimeLimitExceeded,
    guard_interrupts,
    interrupt_pending,
    kernel_poll,
    kernel_running,
    monotonic_seconds,
    popcount,
    release,
    reserve,
    sigint_in_pipe,
)
from .reference import EPS, OFFSET, WIDTH, FirstEditionSolver, VisitCost

CLOCK_EVERY = 4096  # new states between reads of the clock
SPADES = 3
POST_DRAW = np.int64(1) << 53  # key flag: Commerce has drawn, the discard is next
NEED_SHIFT = 54  # miss keys: need + 8 above the state key
STATES, ROWS, STATUS, NEXT_CLOCK, USED, NATIVE_POLL, WAKEUP_FD = range(7)
META_SIZE = 7
UNSOLVED = 2  # meta[STATUS]: the miss walk met a state whose value was not solved (a bug)
INTERRUPTED = 3  # meta[STATUS]: Ctrl-C came (search.infra.budget.guard_interrupts)
GROW = -2  # status: the memo is full; the wrapper grows it and calls again
LOAD = 0.6
HASH = np.int64(-7046029254386353131)  # 2**64 / golden ratio, as a signed word
DECIDE, AFTER_DRAW, ANSWER = range(3)  # kinds of node
TIMEOUT = -1
PAIRS = 32 * 31 // 2  # two-card subsets of the deck at most


def _code_table() -> np.ndarray:
    """A suit's code for every (hand byte, deck byte), indexed ``hand << 8 | deck``."""
    table = np.zeros(1 << 16, np.int64)
    for hand in range(256):
        for deck in range(256):
            if hand & deck:
                continue
            code = 1
            for bit in range(8):
                if hand >> bit & 1:
                    code = code * 2 + 1
                elif deck >> bit & 1:
                    code *= 2
            table[hand << 8 | deck] = code
    return table


CODES = _code_table()


@njit(cache=True, inline="always")
def _count(abil, suit):
    return (abil >> (2 * suit)) & 3


@njit(cache=True, inline="always")
def _normal(abil, trump):
    """Abilities that can still change the visit: ♠ once, and only while spades are not trump."""
    if trump == SPADES:
        return abil & 0x3F
    if _count(abil, SPADES) > 1:
        return (abil & 0x3F) | (1 << 6)
    return abil


@njit(cache=True)
def _key(hand, deck, trump, abil):
    special = SPADES if _count(abil, SPADES) > 0 else -1
    fixed = CODES[((hand >> (8 * trump)) & 0xFF) << 8 | ((deck >> (8 * trump)) & 0xFF)]
    spade = np.int64(0)
    others = np.zeros(3, np.int64)
    n = 0
    for s in range(4):
        if s == trump:
            continue
        code = CODES[((hand >> (8 * s)) & 0xFF) << 8 | ((deck >> (8 * s)) & 0xFF)]
        if s == special:
            spade = code
        else:
            others[n] = code
            n += 1
    a, b, c = others[0], others[1], others[2]
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return fixed | spade << 9 | a << 18 | b << 27 | c << 36 | np.int64(abil) << 45


@njit(cache=True, inline="always")
def _wins(revealed, answer, trump):
    if revealed >> 3 == answer >> 3:
        return answer > revealed
    return answer >> 3 == trump


@njit(cache=True, inline="always")
def _index(bit):
    return popcount(bit - 1)


@njit(cache=True, inline="always")
def _fold(best, source, won, add, first):
    """best = min(best, source shifted by a win and plus ``add``), componentwise."""
    for i in range(WIDTH - 1, -1, -1):
        if won:
            v = (source[i - 1] if i > 0 else source[0] + 1.0) + add
        else:
            v = source[i] + add
        if first or v < best[i]:
            best[i] = v


@njit(cache=True)
def _reveal_runs(hand, deck, reps, lengths):
    """One deck card per run of deck cards with no hand card between them (revealing any of
    a run leads to the same state) into ``reps``, its run's length into ``lengths``, suit by
    suit, low to high; returns how many."""
    n = 0
    for s in range(4):
        hs = (hand >> (8 * s)) & 0xFF
        ds = (deck >> (8 * s)) & 0xFF
        run = 0
        for bit in range(9):
            if bit < 8 and (ds >> bit) & 1:
                if run == 0:
                    reps[n] = 8 * s + bit
                run += 1
            elif run and (bit == 8 or (hs >> bit) & 1):
                lengths[n] = run
                n += 1
                run = 0
    return n


@njit(cache=True)
def _pairs(mask, out):
    """Every two-card subset of ``mask`` as a mask into ``out`` (lower card first, in
    order); returns how many."""
    n = 0
    first_bits = mask
    while first_bits:
        x = first_bits & -first_bits
        first_bits ^= x
        second_bits = first_bits
        while second_bits:
            y = second_bits & -second_bits
            second_bits ^= y
            out[n] = x | y
            n += 1
    return n


@njit(cache=True)
def _slot(table, key):
    """The slot holding ``key``, or the empty slot where it belongs (linear probing)."""
    mask = table.shape[0] - 1
    slot = ((key * HASH) >> 17) & mask
    while table[slot, 0] != key and table[slot, 0] != -1:
        slot = (slot + 1) & mask
    return slot


@njit(cache=True)
def _lookup(table, key):
    """Arena row of ``key``, or -1."""
    slot = _slot(table, key)
    return table[slot, 1] if table[slot, 0] == key else -1


@njit(cache=True)
def _store(table, vals, meta, key, vector):
    """Memoise ``vector`` under ``key``: its arena row, or ``GROW`` when table or arena is full."""
    row = meta[ROWS]
    if row >= vals.shape[0] or (meta[USED] + 1) > LOAD * table.shape[0]:
        return GROW
    vals[row, :] = vector
    slot = _slot(table, key)
    table[slot, 0] = key
    table[slot, 1] = row
    meta[ROWS] = row + 1
    meta[USED] += 1
    return row


@njit(cache=True)
def _rehash(old, new):
    for i in range(old.shape[0]):
        if old[i, 0] != -1:
            slot = _slot(new, old[i, 0])
            new[slot, 0] = old[i, 0]
            new[slot, 1] = old[i, 1]


@njit(cache=True)
def _late(meta, deadline):
    """Whether the deadline has passed or Ctrl-C came (read every ``CLOCK_EVERY`` new
    states; ``meta[STATUS]`` says which)."""
    meta[STATES] += 1
    if meta[STATES] < meta[NEXT_CLOCK]:
        return False
    meta[NEXT_CLOCK] = meta[STATES] + CLOCK_EVERY
    if meta[NATIVE_POLL]:  # libc's clock and the wakeup pipe (search.infra.jit)
        now = monotonic_seconds()
        stop = sigint_in_pipe(meta[WAKEUP_FD])
    else:  # a replaced clock (tests): object mode
        with numba.objmode(now="float64", stop="boolean"):
            now = time.perf_counter()
            stop = interrupt_pending()
    if stop:
        meta[STATUS] = INTERRUPTED
        return True
    if deadline > 0.0 and now > deadline:
        meta[STATUS] = 1
        return True
    return False


@njit(cache=True)
def _known(hand, deck, trump, abil, table, meta):
    """Arena row of a solved state between debates (the miss walk only looks values up);
    flags ``UNSOLVED`` and gives row 0 if it is not solved."""
    if hand == 0:
        return 0
    row = _lookup(table, _key(hand, deck, trump, _normal(abil, trump)))
    if row < 0:
        meta[STATUS] = UNSOLVED
        return 0
    return row


@njit(cache=True)
def _known_after_draw(grown, deck, trump, abil, table, meta):
    """Arena row of a solved moment after a Commerce draw (see :func:`_known`)."""
    row = _lookup(table, _key(grown, deck, trump, _normal(abil, trump)) | POST_DRAW)
    if row < 0:
        meta[STATUS] = UNSOLVED
        return 0
    return row


@njit(cache=True, inline="always")
def as_int(constant):
    """``constant`` as a plain int64: a literal argument to a recursive call compiles a
    second version that numba's cache cannot link when it reloads the first."""
    return np.int64(constant)


# One signature each for the recursive functions: a second compiled version (a literal
# argument, say) would make numba's cache reload a call it cannot resolve.
NODE_SIGNATURE = "int64(int64, int64, int64, int64, int64, int64, float64[::1], int64[:, ::1], float64[:, ::1], int64[::1], float64)"
MISS_SIGNATURE = (
    "int64(int64, int64, int64, int64, int64, int64[:, ::1], float64[:, ::1], int64[::1],"
    " int64[:, ::1], float64[:, ::1], int64[::1])"
)


@njit(NODE_SIGNATURE, cache=True)
def _node(kind, hand, deck, trump, abil, revealed, out, table, vals, meta, deadline):
    """One self-recursive function for the three kinds of node (numba cannot cache mutual
    recursion): DECIDE and AFTER_DRAW return an arena row, ANSWER fills ``out`` and
    returns 0; all return ``TIMEOUT`` past the deadline."""
    if kind == ANSWER:
        suit_mask = np.int64(0xFF) << (8 * (revealed >> 3))
        legal = hand & suit_mask
        if legal == 0:
            legal = hand
        first = True
        while legal:
            bit = legal & -legal
            legal ^= bit
            answer = _index(bit)
            child_hand = hand & ~bit
            won = _wins(revealed, answer, trump)
            r = _node(
                as_int(DECIDE),
                child_hand,
                deck,
                trump,
                abil,
                as_int(0),
                out,
                table,
                vals,
                meta,
                deadline,
            )
            if r < 0:
                return r
            _fold(out, vals[r], won, 0.0, first)
            first = False
            if _count(abil, 0) > 0:  # ♣: this debate counts as won
                r = _node(
                    as_int(DECIDE),
                    child_hand,
                    deck,
                    trump,
                    abil - 1,
                    as_int(0),
                    out,
                    table,
                    vals,
                    meta,
                    deadline,
                )
                if r < 0:
                    return r
                _fold(out, vals[r], True, 1.0, False)
            if _count(abil, 2) > 0:  # ♥: this debate counts as lost
                r = _node(
                    as_int(DECIDE),
                    child_hand,
                    deck,
                    trump,
                    abil - (1 << 4),
                    as_int(0),
                    out,
                    table,
                    vals,
                    meta,
                    deadline,
                )
                if r < 0:
                    return r
                _fold(out, vals[r], False, 1.0, False)
        return 0
    if kind == AFTER_DRAW:
        abil = _normal(abil, trump)
        key = _key(hand, deck, trump, abil) | POST_DRAW
        row = _lookup(table, key)
        if row >= 0:
            return row
        best = np.empty(WIDTH)
        discards = np.empty(45, np.int64)
        for j in range(_pairs(hand, discards)):
            r = _node(
                as_int(DECIDE),
                hand & ~discards[j],
                deck,
                trump,
                abil,
                as_int(0),
                out,
                table,
                vals,
                meta,
                deadline,
            )
            if r < 0:
                return r
            _fold(best, vals[r], False, 0.0, j == 0)
        return _store(table, vals, meta, key, best)
    if hand == 0:
        return 0
    abil = _normal(abil, trump)
    key = _key(hand, deck, trump, abil)
    row = _lookup(table, key)
    if row >= 0:
        return row
    if _late(meta, deadline):
        return TIMEOUT
    best = np.empty(WIDTH)
    # the debate: every reveal run, every legal answer, alone or with ♣ (won) or ♥ (lost)
    size = popcount(deck)
    acc = np.zeros(WIDTH)
    answer_best = np.empty(WIDTH)
    reps = np.empty(32, np.int64)
    lengths = np.empty(32, np.int64)
    for j in range(_reveal_runs(hand, deck, reps, lengths)):
        status = _node(
            as_int(ANSWER),
            hand,
            deck & ~(np.int64(1) << reps[j]),
            trump,
            abil,
            reps[j],
            answer_best,
            table,
            vals,
            meta,
            deadline,
        )
        if status < 0:
            return status
        for i in range(WIDTH):
            acc[i] += lengths[j] * answer_best[i]
    for i in range(WIDTH):
        best[i] = acc[i] / size
    # Commerce: draw 2, then the best discard of 2
    if _count(abil, 1) > 0:
        rest = abil - (1 << 2)
        pairs = size * (size - 1) // 2
        acc[:] = 0.0
        draws = np.empty(PAIRS, np.int64)
        for j in range(_pairs(deck, draws)):
            grown = hand | draws[j]
            if popcount(grown) <= 2:
                child = vals[0]
            else:
                r = _node(
                    as_int(AFTER_DRAW),
                    grown,
                    deck & ~draws[j],
                    trump,
                    rest,
                    as_int(0),
                    out,
                    table,
                    vals,
                    meta,
                    deadline,
                )
                if r < 0:
                    return r
                child = vals[r]
            for i in range(WIDTH):
                acc[i] += child[i]
        for i in range(WIDTH):
            v = 1.0 + acc[i] / pairs
            best[i] = min(best[i], v)
    # Politics (first edition): spades are trump for the rest of the visit
    if _count(abil, SPADES) > 0 and trump != SPADES:
        r = _node(
            as_int(DECIDE),
            hand,
            deck,
            as_int(SPADES),
            abil - (1 << 6),
            as_int(0),
            out,
            table,
            vals,
            meta,
            deadline,
        )
        if r < 0:
            return r
        _fold(best, vals[r], False, 1.0, False)
    return _store(table, vals, meta, key, best)


@njit(cache=True)
def _pick(values, count):
    """The first of ``values[:count]`` within ``EPS`` of their least."""
    least = values[0]
    for i in range(1, count):
        least = min(least, values[i])
    for i in range(count):
        if values[i] <= least + EPS:
            return i
    return 0


@njit(cache=True)
def _best_answer(hand, deck, trump, abil, revealed, need, table, vals, meta):
    """(card index, ability used: -1, 0 ♣ or 2 ♥, its cost) of the best answer for ``need``."""
    k = need + OFFSET
    suit_mask = np.int64(0xFF) << (8 * (revealed >> 3))
    legal = hand & suit_mask
    if legal == 0:
        legal = hand
    values = np.empty(24)
    cards = np.empty(24, np.int64)
    kinds = np.empty(24, np.int64)
    n = 0
    while legal:
        bit = legal & -legal
        legal ^= bit
        answer = _index(bit)
        won = _wins(revealed, answer, trump)
        for kind, cost in ((-1, 0.0), (0, 1.0), (2, 1.0)):
            if kind >= 0 and _count(abil, kind) == 0:
                continue
            child_abil = abil if kind < 0 else abil - (1 << (2 * kind))
            counted = won if kind < 0 else kind == 0
            row = vals[_known(hand & ~bit, deck, trump, child_abil, table, meta)]
            values[n] = cost + ((row[k - 1] if k > 0 else row[0] + 1.0) if counted else row[k])
            cards[n] = answer
            kinds[n] = kind
            n += 1
    i = _pick(values, n)
    return cards[i], kinds[i], values[:n].min()


@njit(cache=True)
def _best_discard(grown, deck, trump, abil, need, table, vals, meta):
    """The pair (a mask) whose discard after a Commerce draw costs least for ``need``."""
    k = need + OFFSET
    pairs = np.empty(45, np.int64)
    n = _pairs(grown, pairs)
    values = np.empty(n)
    for j in range(n):
        values[j] = vals[_known(grown & ~pairs[j], deck, trump, abil, table, meta), k]
    return pairs[_pick(values, n)]


@njit(MISS_SIGNATURE, cache=True)
def _miss(hand, deck, trump, abil, need, table, vals, meta, miss_table, miss_vals, miss_meta):
    """Arena row (of ``miss_vals``) of P(final miss = m) under the policy that minimises
    the cost for ``need``; values must already be solved for this state."""
    if hand == 0:
        return abs(need)
    abil = _normal(abil, trump)
    key = _key(hand, deck, trump, abil) | np.int64(need + OFFSET) << NEED_SHIFT
    row = _lookup(miss_table, key)
    if row >= 0:
        return row
    k = need + OFFSET
    size = popcount(deck)
    options = np.full(3, np.inf)
    draws = np.empty(PAIRS, np.int64)
    debate = 0.0
    reps = np.empty(32, np.int64)
    lengths = np.empty(32, np.int64)
    runs = _reveal_runs(hand, deck, reps, lengths)
    for j in range(runs):
        rest_deck = deck & ~(np.int64(1) << reps[j])
        debate += (
            lengths[j]
            * _best_answer(hand, rest_deck, trump, abil, reps[j], need, table, vals, meta)[2]
        )
    options[0] = debate / size
    if _count(abil, 1) > 0:
        rest = abil - (1 << 2)
        total = 0.0
        for j in range(_pairs(deck, draws)):
            grown = hand | draws[j]
            if popcount(grown) <= 2:
                total += vals[0][k]
            else:
                total += vals[
                    _known_after_draw(grown, deck & ~draws[j], trump, rest, table, meta), k
                ]
        options[1] = 1.0 + total / (size * (size - 1) // 2)
    if _count(abil, SPADES) > 0 and trump != SPADES:
        options[2] = 1.0 + vals[_known(hand, deck, SPADES, abil - (1 << 6), table, meta), k]
    choice = _pick(options, 3)
    acc = np.zeros(WIDTH)
    if choice == 0:
        for j in range(runs):
            rest_deck = deck & ~(np.int64(1) << reps[j])
            answer, kind, _ = _best_answer(
                hand, rest_deck, trump, abil, reps[j], need, table, vals, meta
            )
            won = kind == 0 or (kind < 0 and _wins(reps[j], answer, trump))
            child_abil = abil if kind < 0 else abil - (1 << (2 * kind))
            r = _miss(
                hand & ~(np.int64(1) << answer),
                rest_deck,
                trump,
                child_abil,
                need - won,
                table,
                vals,
                meta,
                miss_table,
                miss_vals,
                miss_meta,
            )
            if r < 0:
                return r
            part = miss_vals[r]
            for m in range(WIDTH):
                acc[m] += lengths[j] * part[m] / size
    elif choice == 1:
        rest = abil - (1 << 2)
        pairs = size * (size - 1) // 2
        for j in range(_pairs(deck, draws)):
            grown = hand | draws[j]
            if popcount(grown) <= 2:
                r = abs(need)
            else:
                rest_deck = deck & ~draws[j]
                pair = _best_discard(grown, rest_deck, trump, rest, need, table, vals, meta)
                r = _miss(
                    grown & ~pair,
                    rest_deck,
                    trump,
                    rest,
                    need,
                    table,
                    vals,
                    meta,
                    miss_table,
                    miss_vals,
                    miss_meta,
                )
            if r < 0:
                return r
            part = miss_vals[r]
            for m in range(WIDTH):
                acc[m] += part[m] / pairs
    else:
        r = _miss(
            hand,
            deck,
            as_int(SPADES),
            abil - (1 << 6),
            need,
            table,
            vals,
            meta,
            miss_table,
            miss_vals,
            miss_meta,
        )
        if r < 0:
            return r
        acc[:] = miss_vals[r]
    return _store(miss_table, miss_vals, miss_meta, key, acc)


def _pack(abil: tuple) -> int:
    """Ability counts (♣ ♦ ♥ ♠), 2 bits a suit."""
    if any(not 0 <= n <= 3 for n in abil):
        raise ValueError(f"ability counts must be 0..3, got {abil}")
    return abil[0] | abil[1] << 2 | abil[2] << 4 | abil[3] << 6


class FastFirstEditionSolver(FirstEditionSolver):
    """:class:`~search.firstedition.reference.FirstEditionSolver` with values from the compiled kernel."""

    def __init__(self) -> None:
        super().__init__()
        terminal = np.array([abs(n - OFFSET) for n in range(WIDTH)], dtype=float)
        self._values = _Memo(terminal[None, :])  # row 0: the visit is over
        self._misses = _Memo(np.eye(WIDTH))  # row m: a miss of m for sure
        self._scratch = np.empty(WIDTH)
        guard_interrupts()

    @property
    def states(self) -> int:
        """States memoised so far (decisions between debates and after Commerce draws)."""
        return int(self._values.meta[USED])

    def value(self, hand: int, deck: int, trump: int, abil: tuple) -> tuple:
        deadline = self.deadline or 0.0
        memo = self._values
        memo.meta[NATIVE_POLL], memo.meta[WAKEUP_FD] = kernel_poll()
        with kernel_running():
            while True:
                row = _node(
                    DECIDE,
                    hand,
                    deck,
                    trump,
                    _pack(abil),
                    0,
                    self._scratch,
                    memo.table,
                    memo.vals,
                    memo.meta,
                    deadline,
                )
                if row != GROW:
                    break
                memo.grow()
        if row == TIMEOUT:
            status, memo.meta[STATUS] = memo.meta[STATUS], 0
            if status == INTERRUPTED:
                raise KeyboardInterrupt
            raise TimeLimitExceeded
        return tuple(float(v) for v in memo.vals[row])

    def solve(self, hand: int, trump: int, abil: tuple, target: int) -> VisitCost:
        started = time.perf_counter()
        deck = ((1 << 32) - 1) & ~hand
        cost = self.value(hand, deck, trump, abil)[target + OFFSET]
        miss = self.miss(hand, deck, trump, abil, target)
        seconds = time.perf_counter() - started
        return VisitCost(cost, miss[0] if miss else 0.0, miss, self.states, seconds)

    def miss(self, hand: int, deck: int, trump: int, abil: tuple, need: int) -> tuple[float, ...]:
        """P(final miss = m), m = 0, 1, ..., under the cost-minimising policy for ``need``."""
        self.value(hand, deck, trump, abil)
        values, misses = self._values, self._misses
        while True:
            row = _miss(
                hand,
                deck,
                trump,
                _pack(abil),
                need,
                values.table,
                values.vals,
                values.meta,
                misses.table,
                misses.vals,
                misses.meta,
            )
            if row != GROW:
                break
            misses.grow()
        if values.meta[STATUS] == UNSOLVED:
            raise RuntimeError("the miss walk met an unsolved state")
        part = [float(p) for p in misses.vals[row]]
        while part and part[-1] == 0.0:
            part.pop()
        return tuple(part)


def _give_back(held: list) -> None:
    """Release a freed memo's bytes from the memory cap's count."""
    release(held[0])
    held[0] = 0


class _Memo:
    """A hash table of keys to rows of a value arena, grown by the wrapper on ``GROW``."""

    def __init__(self, first_rows: np.ndarray, slots: int = 1 << 12) -> None:
        self.table = np.full((slots, 2), -1, np.int64)
        self.vals = np.zeros((slots, WIDTH))
        self.vals[: len(first_rows)] = first_rows
        self.meta = np.zeros(META_SIZE, np.int64)
        self.meta[ROWS] = len(first_rows)
        self.meta[NEXT_CLOCK] = CLOCK_EVERY
        self._held = [self.table.nbytes + self.vals.nbytes]  # counted against the memory cap
        reserve(self._held[0])
        weakref.finalize(self, _give_back, self._held)

    def grow(self) -> None:
        """Double whichever of table and arena is full (MemoryLimitExceeded past the cap)."""
        if self.meta[ROWS] >= len(self.vals):
            reserve(self.vals.nbytes)
            self._held[0] += self.vals.nbytes
            self.vals = np.concatenate([self.vals, np.zeros_like(self.vals)])
        if self.meta[USED] + 1 > LOAD * len(self.table):
            reserve(2 * self.table.nbytes)
            self._held[0] += self.table.nbytes
            bigger = np.full((2 * len(self.table), 2), -1, np.int64)
            _rehash(self.table, bigger)
            release(self.table.nbytes)
            self.table = bigger


ENTRY_POINTS = (_node, _miss)
"""The compiled functions Python calls into: numba caches each with the helpers it calls
(:func:`search.infra.jitcache.needs_compile`)."""


def kernel_needs_compile() -> bool | None:
    """Whether loading this kernel means compiling it (numba's cache has no usable copy)."""
    from ..infra import needs_compile

    return needs_compile(ENTRY_POINTS)
