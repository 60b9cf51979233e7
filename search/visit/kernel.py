"""Compiled fast path of the kingdom solver: the expectimax of :mod:`search.visit.reference` in numba.

:class:`FastKingdomSolver` answers ``decide`` in float vector mode (``need=None``,
canonical keys) from one self-recursive ``@njit`` kernel that walks exactly the
game tree of :class:`~search.visit.reference.KingdomSolver`: the same options in the same
order, the same chance outcomes and equivalent choices, the same canonical memo
keys and the same order of summation, so its values agree with the reference to
rounding (in practice bit for bit). Every other mode defers to the reference.

State. Card sets are int64 masks (``suit * 8 + rank - 1``, one byte a suit);
ability counts are packed 4 bits a suit (♣ ♦ ♥ ♠ at bits 0, 4, 8, 12), and the
Politics pool as 4-bit counts of each suit at the same places.

Key. A suit's *code* is its pile statuses, two bits a rank (0 out of play,
1 hand, 2 deck, 3 discard); ``SIG_IDS`` maps it to a dense id of the
interleaving with the out-of-play cards dropped (0..9840, one per reference
:func:`~search.visit.suitpatterns.signature`). A suit's *part* is
``military << 18 | pool count << 14 | signature id`` (military: the ♣ suit while
Military is left; pool counts only while Politics is left), the role and
signature of the reference ``_key``. The key is two words: ``k0 = trump part |
abilities << 19`` and ``k1`` = the three other parts sorted ascending, 19 bits
each (suit symmetry). Once no Military, Commerce or Politics is left the key is
the reference ``_plain_key``: suits the hand is void in (and trump while none is
held) enter only by their counts of deck and discarded cards, ``k1 = sorted
signature ids of the other suits (0 if absent), 14 bits each | void deck << 42 |
void discards << 48 | 1 << 62``. A lone last card in such a state is valued in
closed form (``KingdomSolver.last_card_value``) and, as in the reference, not memoised.

Memo. An open-addressing hash table ``table: int64[2**bits, 2]`` holds
``(k0 | row << 35, k1)``, -1 marking an empty slot (linear probing,
multiplicative hash, load at most ``LOAD``; 16-byte slots, four to a cache
line); ``row`` indexes the append-only value arena ``vals: float64[rows, 9]``,
whose row 0 is the terminal vector (1, 0, ..., 0). The recursion returns arena
rows, never arrays. Parents look children up before recursing, since most
children are already known.

Work stack. A node pushes one option at a time on a shared int64 stack and then
evaluates it: per chance outcome a header ``(weight numerator, choices)`` and per
choice ``(hand, deck, discard, won)``; the option's weight denominator is
returned beside it (deck size, number of draws, or 1). Children push above.

Growth and limits. When the table, arena, stack or depth runs out, the kernel
unwinds with a negative status; the wrapper grows what ran out and calls again.
Finished states stay memoised, so the retry only re-walks the interrupted path.
Every ``CLOCK_EVERY`` lookups the kernel reads the clock and the signal pipe (by libc calls,
:mod:`search.infra.jit`; through ``numba.objmode`` where a test replaced the clock)
and unwinds past the solver's deadline, or after a Ctrl-C; the wrapper then raises
:class:`~search.infra.TimeLimitExceeded` or ``KeyboardInterrupt``. The arrays count
against the process's memory cap (:mod:`search.infra.budget`): a growth past it raises
:class:`~search.infra.MemoryLimitExceeded`, and what is memoised stays usable.

Equivalent choices (runs of cards, :mod:`search.visit.suitpatterns`) are merged only
while no reshuffle is possible (``_reshuffle_possible``), and then successors
forget the discard pile, exactly as in the reference.

Cost. Almost all time goes to *lookups*, one per choice of every outcome
(``lookups``: about 10 a state with no drawing ability, 12 with Military, 26
with Commerce): normalise, key, probe, fold the child's vector. Many of an option's
choices lead to one key (a debate's ~12 choices to ~8, a Commerce node's ~1,400 to ~500),
so an option's children are keyed once each and merged by key, and each distinct child is
probed once (``probes``: about half the lookups with Commerce, 0.7 with Military); the
outcomes are then folded in their order from those rows (``_expect_outcomes``). While the
memo fits in the caches a probe costs ~40 ns; beyond, two dependent random reads (slot,
then value row) make it more. So once the table has ``2**PREFETCH_BITS`` slots the kernel
asks the memory for each distinct child's slot as it keys it, then for the rows the slots
name (hints that do not block), and those reads overlap (``examples/bench_memo.py``).
(Looking a whole option's children up first, which blocks on each read, measured 20%
slower.) Measured against the kernel before (``examples/bench_kernel_speed.py``, same run,
values equal bit for bit) the merging and the folding in registers gained about 1.1-1.15x
on Commerce and Military: the time is spread over keying, probing and folding, not in the
probes alone. The kernel sees its arrays through
raw addresses (``numba.carray``) because arrays passed as arguments cost atomic
reference counting on every call (removing it cut a lookup from ~105 to ~60 ns).
The static tables are module globals, which numba freezes into the compiled code.

Why one piece, over 600 lines: numba compiles the self-recursive ``_decide`` together with
every helper it inlines, and freezes the module's tables into that code; split across
modules, the helpers would cross module boundaries that numba's on-disk cache keys
separately, and the layout of the work stack that they share would be stated in two places.
The copies of the rules here (who wins a debate, R1's reshuffle test) are checked case by
case against :mod:`search.game.rulebook` in ``tests/test_rulebook.py``.
"""

from __future__ import annotations

import time
import weakref
from itertools import combinations
from math import comb

import numba
import numpy as np
from numba import njit

from ..infra import (
    POOL,
    MemoryLimitExceeded,
    TimeLimitExceeded,
    WorkLimitExceeded,
    guard_interrupts,
    interrupt_pending,
    kernel_poll,
    kernel_running,
    lowbit_index,
    monotonic_seconds,
    pointer,
    popcount,
    prefetch,
    release,
    reserve,
    sigint_in_pipe,
)
from .reference import MAX_NEED, TIE, KingdomSolver

WIDTH = MAX_NEED + 1
assert WIDTH == 9, "_expect_outcomes folds a value vector in nine named registers"
LOAD = 0.6
MAX_DEPTH = 160  # a visit has at most ~60 debates and 12 ability uses
PREFETCH_BITS = 17  # from tables of 2 MiB, children's slots and rows are prefetched
CLOCK_EVERY = 1 << 16  # lookups between clock reads (a read costs ~1 µs, 2**16 lookups ~5 ms)
GROW_SECONDS_PER_BYTE = 2e-9
"""A memo's doubling costs about this per byte of its new arrays (measured 1.1-1.2 ns a byte
with an empty table, 1.7 with a full one: 0.40 s for 236 MB, 1.3 s for 2.3 GB): a doubling
that would end past the solver's deadline is a time-out instead, not an unbounded pause."""

# Statuses the kernel unwinds with; each names what the wrapper must do.
FULL = -1  # table or arena full: grow both
STACK_FULL = -2  # work stack full: grow it
TIMEOUT = -3  # past the deadline: raise TimeLimitExceeded
TOO_DEEP = -4  # scratch depth exhausted: grow it
INTERRUPTED = -5  # Ctrl-C came: raise KeyboardInterrupt
DIST_FULL = -6  # distribution table or arena full: grow both
UNUSABLE = -7  # (not a status) an option that cannot be taken at this node

# Fields of the meta array shared by the wrapper and the kernel.
(
    ROWS,
    EXPANSIONS,
    BITS,
    ROW_LIMIT,
    TOP,
    LOOKUPS,
    NEXT_CLOCK,
    DROWS,
    DBITS,
    DROW_LIMIT,
    WORK_LIMIT,
    DFREE,
    PREFETCH_FROM,
    PROBES,
    NATIVE_POLL,
    WAKEUP_FD,
) = range(16)
META_SIZE = 16

# Options in the reference's order (``KingdomSolver.options``); Politics to suit s is
# option POLITICS + s.
DEBATE, DIPLOMACY, POLITICS, MILITARY, COMMERCE = 0, 1, 2, 6, 7

TERMINAL_ROW = 0
CHANGES_SUITS = 0xF0FF  # Military, Commerce or Politics left (ability bits)
PLAIN_FLAG = 1 << 62  # in k1 of the keys of states without them
K0_BITS = 35  # k0 fills 35 bits of a slot's first word, the arena row the rest
K0_MASK = (1 << K0_BITS) - 1
CHOICE = 4  # words of a choice on the work stack: hand, deck, discard, won
ENTRY = 5  # words of a distinct child while an option is valued (``_expect_outcomes``)
LONE, NO_CARDS = -1, -2  # a choice's child valued in closed form, or the visit's end
TERMINAL = (1.0,) + (0.0,) * MAX_NEED
DIST_WIDTH = 33  # P(j more wins), j = 0..32: a visit plays at most the deck's 32 cards
DIST_ENTRIES = 8  # the distribution arena's first size, in entries a row (most rows are short)
NEED_SHIFT = (
    58  # the distribution memo keys need + 1 into k1's bits 58..61 (free in both key forms)
)


# --- static tables ------------------------------------------------------------------


def _spread_table() -> np.ndarray:
    """Bit i of a byte moved to bit 2i: the two-bit status code of a pile."""
    spread = np.zeros(256, dtype=np.int64)
    for byte in range(256):
        spread[byte] = sum(1 << (2 * i) for i in range(8) if byte >> i & 1)
    return spread


def _signature_ids() -> np.ndarray:
    """Dense id of a suit code's interleaving: strings over {hand, deck, discard} of
    length L numbered after all shorter ones, digits lowest rank first."""
    codes = np.arange(1 << 16, dtype=np.int64)
    value = np.zeros_like(codes)
    length = np.zeros_like(codes)
    for i in range(8):
        status = (codes >> (2 * i)) & 3
        present = status > 0
        value = np.where(present, value * 3 + status - 1, value)
        length += present
    offsets = np.cumsum([0] + [3**k for k in range(8)])
    return (offsets[length] + value).astype(np.int32)


def _run_tables() -> tuple[np.ndarray, np.ndarray]:
    """For index ``mine << 8 | others``: the lowest bit of each maximal run of ``mine``
    with no ``others`` bit inside (:func:`~search.visit.suitpatterns.hand_runs` as a mask), and
    the second bit of each run of two or more."""
    index = np.arange(1 << 16, dtype=np.int64)
    mine, others = index >> 8, index & 0xFF
    in_run = np.zeros(1 << 16, dtype=bool)
    run_len = np.zeros(1 << 16, dtype=np.int64)
    firsts = np.zeros(1 << 16, dtype=np.int64)
    seconds = np.zeros(1 << 16, dtype=np.int64)
    for b in range(8):
        m = (mine >> b & 1).astype(bool)
        o = (others >> b & 1).astype(bool)
        firsts |= (m & ~in_run).astype(np.int64) << b
        seconds |= (m & in_run & (run_len == 1)).astype(np.int64) << b
        run_len = np.where(m, np.where(in_run, run_len + 1, 1), np.where(o, 0, run_len))
        in_run = np.where(m, True, np.where(o, False, in_run))
    return firsts.astype(np.uint8), seconds.astype(np.uint8)


def _subset_tables() -> tuple[np.ndarray, np.ndarray]:
    """Every subset of each byte ordered by size, then as ``itertools.combinations``
    lists them; ``starts[byte, m]`` is where the subsets of size m begin."""
    subsets = np.zeros((256, 256), dtype=np.uint8)
    starts = np.zeros((256, 10), dtype=np.int32)
    for byte in range(256):
        bits = [1 << b for b in range(8) if byte >> b & 1]
        j = 0
        for m in range(10):
            starts[byte, m] = j
            for chosen in combinations(bits, m):
                subsets[byte, j] = sum(chosen)
                j += 1
    return subsets, starts


SPREAD = _spread_table()
SIG_IDS = _signature_ids()
FIRSTS, SECONDS = _run_tables()
SUBSETS, STARTS = _subset_tables()
BINOMIAL = np.array([[comb(n, k) for k in range(33)] for n in range(33)], dtype=np.int64)


# --- small kernels ------------------------------------------------------------------


@njit(cache=True, inline="always")
def _views(mem):
    """The solver's arrays from ``mem`` = (table address, slots, arena address, rows,
    meta address, scratch address, depth, stack address, stack size)."""
    table = numba.carray(pointer(mem[0]), (mem[1], 2), np.int64)
    vals = numba.carray(pointer(mem[2]), (mem[3], WIDTH), np.float64)
    meta = numba.carray(pointer(mem[4]), META_SIZE, np.int64)
    scratch = numba.carray(pointer(mem[5]), (mem[6], 3, WIDTH), np.float64)
    stack = numba.carray(pointer(mem[7]), mem[8], np.int64)
    return table, vals, meta, scratch, stack


@njit(cache=True, inline="always")
def _firsts(mine, others):
    return np.int64(FIRSTS[(mine << 8) | others])


@njit(cache=True, inline="always")
def _seconds(mine, others):
    return np.int64(SECONDS[(mine << 8) | others])


@njit(cache=True, inline="always")
def _mix(k0, k1):
    """A key's 64-bit hash: the memo's slot is its top ``bits`` bits, and an option's
    children are told apart (``_expect_outcomes``) by its top bits too."""
    h = np.uint64(k0) * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(k1) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(31)
    h *= np.uint64(0xD6E8FEB86659FD93)
    return h


@njit(cache=True, inline="always")
def _slot_hash(k0, k1, bits):
    return np.int64(_mix(k0, k1) >> np.uint64(64 - bits))


@njit(cache=True, inline="always")
def _probe(table, slot, k0, k1, bits):
    """The arena row of (k0, k1), searched from its hash slot ``slot``, else -1."""
    mask = (1 << bits) - 1
    while True:
        word = table[slot, 0]
        if word == -1:
            return -1
        if (word & K0_MASK) == k0 and table[slot, 1] == k1:
            return word >> K0_BITS
        slot = (slot + 1) & mask


@njit(cache=True, inline="always")
def _find(table, k0, k1, bits):
    """The slot holding (k0, k1), or the empty slot where it would go."""
    mask = (1 << bits) - 1
    slot = _slot_hash(k0, k1, bits)
    while True:
        word = table[slot, 0]
        if word == -1 or ((word & K0_MASK) == k0 and table[slot, 1] == k1):
            return slot
        slot = (slot + 1) & mask


@njit(cache=True)
def _rehash(old, new, bits):
    """Insert every entry of ``old`` into the empty table ``new``."""
    for slot in range(old.shape[0]):
        if old[slot, 0] != -1:
            dest = _find(new, old[slot, 0] & K0_MASK, old[slot, 1], bits)
            new[dest, 0] = old[slot, 0]
            new[dest, 1] = old[slot, 1]


@njit(cache=True, inline="always")
def _reshuffle_possible(hand, deck, disc, abil):
    """Whether the deck can run out before the visit ends (R1), so that discarded cards
    may come back (``KingdomSolver.reshuffle_possible``): a card per debate and per
    draw; Commerce nets no debates, Military draws at most the clubs reachable."""
    clubs_in_play = popcount((hand | deck | disc) & 0xFF)
    commerce = (abil >> 4) & 15
    reachable = popcount(hand & 0xFF) + 2 * commerce
    military_draws = 0
    for _ in range(abil & 15):
        military_draws += min(clubs_in_play, reachable + military_draws)
    return popcount(hand) + 2 * military_draws + 2 * commerce > popcount(deck)


@njit(cache=True, inline="always")
def _sig_id(hand, deck, disc, shift):
    """Dense signature id of one suit's interleaving."""
    code = (
        SPREAD[(hand >> shift) & 0xFF]
        + 2 * SPREAD[(deck >> shift) & 0xFF]
        + 3 * SPREAD[(disc >> shift) & 0xFF]
    )
    return np.int64(SIG_IDS[code])


@njit(cache=True, inline="always")
def _sort3(a, b, c):
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return a, b, c


@njit(cache=True, inline="always")
def _key(hand, deck, disc, trump, abil, pool):
    """The canonical key (k0, k1) of a normalised state (see the module docstring)."""
    if abil & CHANGES_SUITS == 0:
        return _plain_key(hand, deck, disc, trump, abil)
    military = (abil & 15) > 0
    trump_part = 0
    a = b = c = 0
    n = 0
    for s in range(4):
        part = _sig_id(hand, deck, disc, 8 * s) | (((pool >> (4 * s)) & 15) << 14)
        if military and s == 0:
            part |= 1 << 18
        if s == trump:
            trump_part = part
        elif n == 0:
            a = part
            n = 1
        elif n == 1:
            b = part
            n = 2
        else:
            c = part
    a, b, c = _sort3(a, b, c)  # suits of equal role are interchangeable
    return trump_part | (abil << 19), a | (b << 19) | (c << 38)


@njit(cache=True, inline="always")
def _plain_key(hand, deck, disc, trump, abil):
    """The key once no ability can change the suits held or trump (``_plain_key``): a
    suit the hand is void in, and trump while none is held, enters only by its counts
    of deck and discarded cards; the other suits by signature, absent ones as 0."""
    holds_trump = (hand >> (8 * trump)) & 0xFF != 0
    void_deck = void_disc = 0
    trump_part = 0
    a = b = c = 0
    n = 0
    for s in range(4):
        shift = 8 * s
        if (hand >> shift) & 0xFF == 0 and (s != trump or not holds_trump):
            void_deck += popcount((deck >> shift) & 0xFF)
            void_disc += popcount((disc >> shift) & 0xFF)
            continue
        part = _sig_id(hand, deck, disc, shift)  # >= 1: the hand holds a card
        if s == trump:
            trump_part = part
        elif n == 0:
            a = part
            n = 1
        elif n == 1:
            b = part
            n = 2
        else:
            c = part
    a, b, c = _sort3(a, b, c)
    k1 = a | (b << 14) | (c << 28) | (void_deck << 42) | (void_disc << 48) | PLAIN_FLAG
    return trump_part | (abil << 19), k1


@njit(cache=True, inline="always")
def _normalise(hand, deck, disc, abil, pool):
    """Drop what cannot matter, as the reference ``decide`` does before keying."""
    if disc != 0 and not _reshuffle_possible(hand, deck, disc, abil):
        disc = 0  # the deck cannot run out: the discard pile never returns
    if (abil >> 12) & 15 == 0:
        pool = 0
    return disc, pool


@njit(cache=True, inline="always")
def _state_key(hand, deck, disc, trump, abil, pool):
    """The memo key of a state as stored: normalised (``_normalise``), then canonical."""
    disc, pool = _normalise(hand, deck, disc, abil, pool)
    return _key(hand, deck, disc, trump, abil, pool)


@njit(cache=True, inline="always")
def _lone_last_card(hand, abil):
    """Whether a state is one card held with no ability that changes suits: its value is in
    closed form (``_fold_last_card``) and never memoised."""
    return abil & CHANGES_SUITS == 0 and hand != 0 and hand & (hand - 1) == 0


@njit(cache=True, inline="always")
def _known(hand, deck, disc, trump, abil, pool, table, bits):
    """The arena row of a state already memoised (row 0 for an empty hand), else -1."""
    if hand == 0:
        return TERMINAL_ROW
    k0, k1 = _state_key(hand, deck, disc, trump, abil, pool)
    slot = _find(table, k0, k1, bits)
    if table[slot, 0] == -1:
        return -1
    return table[slot, 0] >> K0_BITS


@njit(cache=True, inline="always")
def _last_card(hand, deck, disc, trump, abil):
    """(lose, win): the value of a lone last card (``KingdomSolver.last_card_value``): it wins
    against the share of unseen cards it beats; Diplomacy may throw a last trump away instead."""
    if deck == 0:
        deck = disc  # R1; with no card at all (R2) the visit ends: lose = 1, win = 0
    lose, win = 1.0, 0.0
    if deck != 0:
        suit_mask = 0xFF << (8 * (lowbit_index(hand) >> 3))
        beaten = popcount(deck & suit_mask & (hand - 1))
        if suit_mask == 0xFF << (8 * trump):
            beaten += popcount(deck & ~suit_mask)
        win = beaten / popcount(deck)
        lose = 1.0 - win
        if (abil >> 8) & 15 and hand & (0xFF << (8 * trump)):
            lose = 1.0
    return lose, win


@njit(cache=True, inline="always")
def _fold_last_card(target, hand, deck, disc, trump, abil, won):
    """target = max(target, value of a lone last card), shifted by one win if ``won``."""
    lose, win = _last_card(hand, deck, disc, trump, abil)
    shift = 1 if won else 0
    target[shift] = max(target[shift], lose)
    target[shift + 1] = max(target[shift + 1], win)


# --- options as outcomes on the work stack ------------------------------------------


@njit(cache=True, inline="always")
def _push_choice(stack, n, hand, deck, disc, won):
    stack[n] = hand
    stack[n + 1] = deck
    stack[n + 2] = disc
    stack[n + 3] = won
    return n + CHOICE


@njit(cache=True)
def _push_single_reveals(hand, deck, disc, trump, stack, n):
    """Push every revealed card with every legal answer, nothing grouped
    (``_single_reveals``); return the top, -1 if the stack is full."""
    cards = deck
    while cards:
        card = cards & -cards
        cards ^= card
        suit = lowbit_index(card) >> 3
        same = hand & (0xFF << (8 * suit))
        answers = same if same else hand
        if n + 2 + CHOICE * popcount(answers) > len(stack):
            return -1
        stack[n] = 1
        stack[n + 1] = popcount(answers)
        n += 2
        trumps = hand & (0xFF << (8 * trump)) if suit != trump else 0
        while answers:
            answer = answers & -answers
            answers ^= answer
            won = answer > card if same else (answer & trumps) != 0
            x2 = disc | card if won else disc | card | answer
            n = _push_choice(stack, n, hand & ~answer, deck & ~card, x2, won)
    return n


@njit(cache=True)
def _push_debate(hand, deck, disc, trump, merge, stack, n):
    """Push the next debate (``debate_outcomes``): each class of revealed card with its
    answers; without ``merge`` every card and answer apart. Return (top, weight
    denominator), top -1 if the stack is full."""
    d, x = deck, disc
    if d == 0:
        if x == 0:  # R2: no card to reveal, the visit ends as it stands
            if n + 2 + CHOICE > len(stack):
                return -1, 1
            stack[n] = 1
            stack[n + 1] = 1
            return _push_choice(stack, n + 2, 0, 0, 0, 0), 1
        d, x = x, 0  # R1: the discard pile becomes the deck
    size = popcount(d)
    if not merge:
        return _push_single_reveals(hand, d, x, trump, stack, n), size
    # merged: the deck cannot run out, so the successors forget the discard pile
    for s in range(4):
        shift = 8 * s
        db = (d >> shift) & 0xFF
        if db == 0:
            continue
        hb = (hand >> shift) & 0xFF
        if hb != 0:
            # must follow suit: each run of deck cards between hand cards is one class;
            # the hand runs above its lowest card win, those below lose
            reps = _firsts(hb, db)
            lows = _firsts(db, hb)
            k = popcount(reps)
            while lows:
                low = lowbit_index(lows)
                lows &= lows - 1
                above = hb & ~((2 << low) - 1)
                span = (above & -above if above else 0x100) - (1 << low)
                if n + 2 + CHOICE * k > len(stack):
                    return -1, 1
                stack[n] = popcount(db & span)
                stack[n + 1] = k
                n += 2
                card = 1 << (shift + low)
                d2 = d & ~card
                above_low = -(2 << low)  # the winning runs first, as the reference lists them
                for answers in (reps & above_low, reps & ~above_low):
                    while answers:
                        bit = answers & -answers
                        answers ^= bit
                        answer = bit << shift
                        won = bit > (1 << low)
                        n = _push_choice(stack, n, hand & ~answer, d2, 0, won)
        else:
            # void: one class; a run of any suit answers, a trump wins on a non-trump
            k = 0
            for t in range(4):
                tshift = 8 * t
                k += popcount(_firsts((hand >> tshift) & 0xFF, (d >> tshift) & 0xFF))
            if n + 2 + CHOICE * k > len(stack):
                return -1, 1
            stack[n] = popcount(db)
            stack[n + 1] = k
            n += 2
            card = 1 << (shift + lowbit_index(db))
            d2 = d & ~card
            for t in range(4):
                tshift = 8 * t
                ht = (hand >> tshift) & 0xFF
                if ht == 0:
                    continue
                won = t == trump and s != trump
                answers = _firsts(ht, (d >> tshift) & 0xFF)
                while answers:
                    bit = answers & -answers
                    answers ^= bit
                    answer = bit << tshift
                    n = _push_choice(stack, n, hand & ~answer, d2, 0, won)
    return n, size


@njit(cache=True)
def _push_drawn(hand, deck, disc, commerce, merge, stack, n):
    """Push one draw outcome: the state as drawn (Military), or every two-card discard
    after it (Commerce; up to equivalence with ``merge``; the whole hand if it holds
    two or fewer, R3)."""
    if not commerce:
        if n + 2 + CHOICE > len(stack):
            return -1
        stack[n] = 1
        stack[n + 1] = 1
        return _push_choice(stack, n + 2, hand, deck, disc, 0)
    keep = 0 if merge else -1  # merged: the successors forget the discard pile
    if popcount(hand) <= 2:
        if n + 2 + CHOICE > len(stack):
            return -1
        stack[n] = 1
        stack[n + 1] = 1
        return _push_choice(stack, n + 2, 0, deck, (disc | hand) & keep, 0)
    if not merge:  # every pair (``_all_pairs``)
        k = popcount(hand)
        k = k * (k - 1) // 2
        if n + 2 + CHOICE * k > len(stack):
            return -1
        stack[n] = 1
        stack[n + 1] = k
        n += 2
        a_bits = hand
        while a_bits:
            a = a_bits & -a_bits
            a_bits ^= a
            b_bits = a_bits
            while b_bits:
                b = b_bits & -b_bits
                b_bits ^= b
                n = _push_choice(stack, n, hand & ~(a | b), deck, (disc | a | b) & keep, 0)
        return n
    # two runs (of one suit or two), or the two lowest cards of one run, in the
    # reference's order (``discard_pairs``): suit by suit the runs' two lowest cards, then
    # pairs of runs; then pairs across two suits
    others = deck | disc
    reps = 0
    seconds = 0
    for s in range(4):
        shift = 8 * s
        mine, other = (hand >> shift) & 0xFF, (others >> shift) & 0xFF
        reps |= _firsts(mine, other) << shift
        seconds |= _seconds(mine, other) << shift
    r = popcount(reps)
    k = r * (r - 1) // 2 + popcount(seconds)
    if n + 2 + CHOICE * k > len(stack):
        return -1
    stack[n] = 1
    stack[n + 1] = k
    n += 2
    for s in range(4):
        suit = 0xFF << (8 * s)
        twos = seconds & suit
        while twos:
            second = twos & -twos
            twos ^= second
            first = second >> 1  # the run's first card: the nearest run start below
            while not first & reps:
                first >>= 1
            pair = first | second
            n = _push_choice(stack, n, hand & ~pair, deck, (disc | pair) & keep, 0)
        a_bits = reps & suit
        while a_bits:
            a = a_bits & -a_bits
            a_bits ^= a
            b_bits = a_bits
            while b_bits:
                b = b_bits & -b_bits
                b_bits ^= b
                n = _push_choice(stack, n, hand & ~(a | b), deck, (disc | a | b) & keep, 0)
    for s in range(4):
        for t in range(s + 1, 4):
            a_bits = reps & (0xFF << (8 * s))
            while a_bits:
                a = a_bits & -a_bits
                a_bits ^= a
                b_bits = reps & (0xFF << (8 * t))
                while b_bits:
                    b = b_bits & -b_bits
                    b_bits ^= b
                    n = _push_choice(stack, n, hand & ~(a | b), deck, (disc | a | b) & keep, 0)
    return n


@njit(cache=True)
def _push_draws(hand, deck, disc, count, commerce, merge, stack, n):
    """Push the outcomes of drawing ``count`` cards (``KingdomSolver.draws``): every
    subset of the deck, suit by suit, fewer cards of a suit first, then in
    ``combinations`` order. R1: a short deck is taken whole and refilled from the
    discard pile; R2: with no card left the draws stop. Return (top, denominator)."""
    size = popcount(deck)
    if count > size:
        hand, deck, disc, count = hand | deck, disc, 0, count - size
        size = popcount(deck)
        if size == 0:
            return _push_drawn(hand, deck, disc, commerce, merge, stack, n), 1
        count = min(count, size)
    q0, q1, q2, q3 = deck & 0xFF, (deck >> 8) & 0xFF, (deck >> 16) & 0xFF, (deck >> 24) & 0xFF
    c0, c1, c2, c3 = popcount(q0), popcount(q1), popcount(q2), popcount(q3)
    for j0 in range(STARTS[q0, min(count, c0) + 1]):
        s0 = np.int64(SUBSETS[q0, j0])
        left1 = count - popcount(s0)
        for j1 in range(STARTS[q1, min(left1, c1) + 1]):
            s1 = np.int64(SUBSETS[q1, j1])
            left2 = left1 - popcount(s1)
            for j2 in range(STARTS[q2, min(left2, c2) + 1]):
                s2 = np.int64(SUBSETS[q2, j2])
                left3 = left2 - popcount(s2)
                if left3 > c3:
                    continue
                for j3 in range(STARTS[q3, left3], STARTS[q3, left3 + 1]):
                    drawn = s0 | (s1 << 8) | (s2 << 16) | (np.int64(SUBSETS[q3, j3]) << 24)
                    n = _push_drawn(hand | drawn, deck & ~drawn, disc, commerce, merge, stack, n)
                    if n < 0:
                        return -1, 1
    return n, BINOMIAL[size, count]


@njit(cache=True, inline="always")
def _push_option(option, hand, deck, disc, trump, abil, pool, merge, keep, stack, base):
    """Push one option's outcomes at ``base`` (``KingdomSolver.options``, in its order).
    Return (top, weight denominator, trump, abilities and pool after it); top is
    UNUSABLE when the option cannot be taken here, -1 when the stack is full."""
    new_trump, rest, new_pool = trump, abil, pool
    top, denominator = UNUSABLE, 1
    if option == DEBATE:
        top, denominator = _push_debate(hand, deck, disc, trump, merge, stack, base)
    elif option == DIPLOMACY:  # ♥: discard every trump in hand
        trumps = hand & (0xFF << (8 * trump))
        if (abil >> 8) & 15 and trumps:
            rest = abil - (1 << 8)
            top = _push_drawn(
                hand & ~trumps, deck, (disc | trumps) & keep, False, merge, stack, base
            )
    elif option < MILITARY:  # ♠: a pooled suit becomes trump, the old trump joins the pool
        suit = option - POLITICS
        if (abil >> 12) & 15 and suit != trump and (pool >> (4 * suit)) & 15:
            new_trump, rest = suit, abil - (1 << 12)
            new_pool = pool - (1 << (4 * suit)) + (1 << (4 * trump))
            top = _push_drawn(hand, deck, disc, False, merge, stack, base)
    elif option == MILITARY:  # ♣: draw one card per ♣ in hand
        clubs = hand & 0xFF
        if abil & 15 and clubs and (deck | disc):
            rest = abil - 1
            top, denominator = _push_draws(
                hand, deck, disc, popcount(clubs), False, merge, stack, base
            )
    elif (abil >> 4) & 15:  # ♦: draw 2, then discard 2
        rest = abil - (1 << 4)
        top, denominator = _push_draws(hand, deck, disc, 2, True, merge, stack, base)
    return top, denominator, new_trump, rest, new_pool


# --- the game tree ------------------------------------------------------------------


@njit(cache=True)
def _poll(meta, deadline):
    """Every ``CLOCK_EVERY`` lookups: TIMEOUT past the deadline or past the work limit
    (lookups, when positive: a budget that does not depend on the machine's speed),
    INTERRUPTED after Ctrl-C (:func:`search.infra.budget.guard_interrupts`), else 0."""
    meta[NEXT_CLOCK] = meta[LOOKUPS] + CLOCK_EVERY
    if meta[WORK_LIMIT] > 0 and meta[LOOKUPS] >= meta[WORK_LIMIT]:
        return TIMEOUT
    if meta[NATIVE_POLL]:  # libc's clock and the wakeup pipe, read here
        now = monotonic_seconds()
        stop = sigint_in_pipe(meta[WAKEUP_FD])
    else:  # a replaced clock (tests): object mode, ~50 ms the first time in a process
        with numba.objmode(now="float64", stop="boolean"):
            now = time.perf_counter()
            stop = interrupt_pending()
    if stop:
        return INTERRUPTED
    if deadline > 0.0 and now > deadline:
        return TIMEOUT
    return 0


@njit(cache=True, inline="always")
def _expect_outcomes(
    acc, choice, stack, base, top, denominator, trump, abil, pool, depth, mem, deadline
):
    """``acc`` = an option's value vector: over its outcomes on the stack (``base .. top``),
    weighted, the best of each outcome's choices, each child looked up or searched at
    ``depth + 1`` (a lone last card in closed form, not memoised). 0, or a child's negative
    status to unwind with. ``choice`` is scratch for one outcome.

    Many of an option's choices lead to states of one key (a debate's ~12 choices to ~8
    keys, a Commerce node's ~1,400 to ~500). So the children are keyed once each, in three
    passes over the stack: (1) every choice's key, children of equal keys merged into one
    *entry* (a small hash table above ``top``); (2) each entry looked up, and searched if
    unknown, in order of first appearance (the order the choices would search them in);
    (3) the outcomes folded as before, choice by choice, from the entries' rows, so that
    the maxima and the sums are the same operations in the same order and the value is
    unchanged bit for bit. ``meta[LOOKUPS]`` still counts every choice, and reaches each
    child's search at the same count as choice by choice, so work limits stop alike.

    Above ``top``: a word a choice (its entry, LONE or NO_CARDS), then ENTRY words an entry
    (k0, k1, stack index of its first choice, slot then row, lookups counted before its
    first choice's outcome and during it), then the hash table, which children reuse."""
    table, vals, meta, _, _ = _views(mem)
    bits = meta[BITS]
    total = 0
    i = base
    while i < top:
        total += stack[i + 1]
        i += 2 + CHOICE * stack[i + 1]
    local_bits = 1
    while (1 << local_bits) < 2 * total:
        local_bits += 1
    refs = top
    entries = refs + total
    hashed = entries + ENTRY * total
    if hashed + (1 << local_bits) > stack.shape[0]:
        return STACK_FULL
    for j in range(1 << local_bits):
        stack[hashed + j] = -1
    local_mask = (1 << local_bits) - 1
    prefetching = bits >= meta[PREFETCH_FROM]
    # (1) key every choice once; equal keys share an entry
    n = 0
    c = refs
    counted = 0
    i = base
    while i < top:
        end = i + 2 + CHOICE * stack[i + 1]
        counted += stack[i + 1]
        i += 2
        while i < end:
            h = stack[i]
            if h == 0:
                stack[c] = NO_CARDS
            elif _lone_last_card(h, abil):
                stack[c] = LONE
            else:
                k0, k1 = _state_key(h, stack[i + 1], stack[i + 2], trump, abil, pool)
                mixed = _mix(k0, k1)
                j = np.int64(mixed >> np.uint64(64 - local_bits))
                while True:
                    e = stack[hashed + j]
                    if e == -1:
                        e = n
                        n += 1
                        stack[hashed + j] = e
                        p = entries + ENTRY * e
                        slot = np.int64(mixed >> np.uint64(64 - bits))
                        stack[p] = k0
                        stack[p + 1] = k1
                        stack[p + 2] = i
                        stack[p + 3] = slot
                        stack[p + 4] = counted
                        if prefetching:  # a hint: past the caches the slot's read overlaps
                            prefetch(mem[0] + 16 * slot)
                        break
                    p = entries + ENTRY * e
                    if stack[p] == k0 and stack[p + 1] == k1:
                        break
                    j = (j + 1) & local_mask
                stack[c] = e
            c += 1
            i += CHOICE
    meta[TOP] = entries + ENTRY * n  # children push above the entries
    meta[PROBES] += n
    if prefetching:  # then the rows the slots name (a neighbour's if absent: a hint either way)
        for e in range(n):
            word = table[stack[entries + ENTRY * e + 3], 0]
            if word != -1:
                address = mem[2] + 8 * WIDTH * (word >> K0_BITS)
                prefetch(address)
                prefetch(address + 8 * WIDTH - 8)
    # (2) each entry's row, searched if unknown, in the choices' order
    counted = 0
    for e in range(n):
        p = entries + ENTRY * e
        row = _probe(table, stack[p + 3], stack[p], stack[p + 1], bits)
        if row < 0:
            meta[LOOKUPS] += stack[p + 4] - counted
            counted = stack[p + 4]
            q = stack[p + 2]
            row = _decide(
                stack[q], stack[q + 1], stack[q + 2], trump, abil, pool, depth + 1, mem, deadline
            )
            if row < 0:
                return row
        stack[p + 3] = row
        stack[p + 4] = -1  # from here: the outcome and win it was last folded in (pass 3)
    meta[LOOKUPS] += total - counted
    # (3) fold the outcomes in order, an outcome's maxima in registers; a choice whose entry
    # and win this outcome has folded already would fold the same numbers again: skipped
    acc[:] = 0.0
    c = refs
    i = base
    outcome = 0
    while i < top:
        weight = stack[i] / denominator
        end = i + 2 + CHOICE * stack[i + 1]
        i += 2
        c0 = c1 = c2 = c3 = c4 = c5 = c6 = c7 = c8 = 0.0
        while i < end:
            e = stack[c]
            c += 1
            won = stack[i + 3]
            if e == LONE:
                lose, win = _last_card(stack[i], stack[i + 1], stack[i + 2], trump, abil)
                if won:
                    c1 = max(c1, lose)
                    c2 = max(c2, win)
                else:
                    c0 = max(c0, lose)
                    c1 = max(c1, win)
                i += CHOICE
                continue
            row = TERMINAL_ROW
            if e != NO_CARDS:
                p = entries + ENTRY * e
                folded = 2 * outcome + won
                if stack[p + 4] == folded:
                    i += CHOICE
                    continue
                stack[p + 4] = folded
                row = stack[p + 3]
            if won:
                c1 = max(c1, vals[row, 0])
                c2 = max(c2, vals[row, 1])
                c3 = max(c3, vals[row, 2])
                c4 = max(c4, vals[row, 3])
                c5 = max(c5, vals[row, 4])
                c6 = max(c6, vals[row, 5])
                c7 = max(c7, vals[row, 6])
                c8 = max(c8, vals[row, 7])
            else:
                c0 = max(c0, vals[row, 0])
                c1 = max(c1, vals[row, 1])
                c2 = max(c2, vals[row, 2])
                c3 = max(c3, vals[row, 3])
                c4 = max(c4, vals[row, 4])
                c5 = max(c5, vals[row, 5])
                c6 = max(c6, vals[row, 6])
                c7 = max(c7, vals[row, 7])
                c8 = max(c8, vals[row, 8])
            i += CHOICE
        acc[0] += weight * c0
        acc[1] += weight * c1
        acc[2] += weight * c2
        acc[3] += weight * c3
        acc[4] += weight * c4
        acc[5] += weight * c5
        acc[6] += weight * c6
        acc[7] += weight * c7
        acc[8] += weight * c8
        outcome += 1
    return 0


@njit(cache=True)
def _decide(hand, deck, disc, trump, abil, pool, depth, mem, deadline):
    """Arena row of the value of a DECIDE node (``KingdomSolver.decide``), or a
    negative status to unwind with."""
    if hand == 0:
        return TERMINAL_ROW
    table, vals, meta, scratch, stack = _views(mem)
    disc, pool = _normalise(hand, deck, disc, abil, pool)
    bits = meta[BITS]
    k0, k1 = _key(hand, deck, disc, trump, abil, pool)
    slot = _find(table, k0, k1, bits)
    if table[slot, 0] != -1:
        return table[slot, 0] >> K0_BITS
    if depth >= scratch.shape[0]:
        return TOO_DEEP
    meta[EXPANSIONS] += 1
    if meta[LOOKUPS] >= meta[NEXT_CLOCK]:
        status = _poll(meta, deadline)
        if status < 0:
            return status

    # equivalent cards are one choice only while played cards cannot come back
    merge = not _reshuffle_possible(hand, deck, disc, abil)
    keep = 0 if merge else -1  # once the deck cannot run out, successors forget the discards
    best = scratch[depth, 0]  # componentwise max over options
    acc = scratch[depth, 1]  # an option's expectation over outcomes
    choice = scratch[depth, 2]  # an outcome's max over choices
    best[:] = 0.0  # values are >= 0, so 0 is the identity of max
    base = meta[TOP]
    for option in range(COMMERCE + 1):
        top, denominator, new_trump, rest, new_pool = _push_option(
            option, hand, deck, disc, trump, abil, pool, merge, keep, stack, base
        )
        if top == UNUSABLE:
            continue
        if top < 0:
            return STACK_FULL
        meta[TOP] = top  # children push above this option's outcomes
        status = _expect_outcomes(
            acc,
            choice,
            stack,
            base,
            top,
            denominator,
            new_trump,
            rest,
            new_pool,
            depth,
            mem,
            deadline,
        )
        if status < 0:
            return status
        meta[TOP] = base
        for k in range(WIDTH):
            best[k] = max(best[k], acc[k])

    # store; the children may have taken the empty slot found above
    row = meta[ROWS]
    if row >= meta[ROW_LIMIT]:
        return FULL
    slot = _find(table, k0, k1, bits)
    table[slot, 0] = k0 | (row << K0_BITS)
    table[slot, 1] = k1
    vals[row, :] = best
    meta[ROWS] = row + 1
    return row


@njit(cache=True, inline="always")
def _dist_views(mem):
    """The distribution memo from ``mem`` (after the arrays of :func:`_views`), and the
    distribution walk's scratch: a row of partial totals a depth."""
    dtable = numba.carray(pointer(mem[9]), (mem[10], 2), np.int64)
    dvals = numba.carray(pointer(mem[11]), mem[12], np.float64)  # rows of _span entries, packed
    totals = numba.carray(pointer(mem[13]), (mem[6], DIST_WIDTH), np.float64)
    return dtable, dvals, totals


@njit(cache=True)
def _option_score(base, top, denominator, trump, rest, pool, need, depth, mem, deadline):
    """The chance of ``need`` more wins of the option pushed at ``base``..``top``
    (the ``need`` entry of ``KingdomSolver.option_value``, summed in its order), or a
    negative status."""
    table, vals, meta, scratch, stack = _views(mem)
    bits = meta[BITS]
    lone = scratch[depth, 0]
    score = 0.0
    i = base
    while i < top:
        weight = stack[i] / denominator
        end = i + 2 + CHOICE * stack[i + 1]
        meta[LOOKUPS] += stack[i + 1]
        i += 2
        best = 0.0
        while i < end:
            h, d, x, won = stack[i], stack[i + 1], stack[i + 2], stack[i + 3]
            i += CHOICE
            k = need - won
            if k < 0:
                continue
            if _lone_last_card(h, rest):
                lone[:] = 0.0
                _fold_last_card(lone, h, d, x, trump, rest, 0)
                best = max(best, lone[k])
                continue
            row = _known(h, d, x, trump, rest, pool, table, bits)
            if row < 0:
                row = _decide(h, d, x, trump, rest, pool, depth + 1, mem, deadline)
                if row < 0:
                    return float(row)
            best = max(best, vals[row, k])
        score += weight * best
    return score


@njit(cache=True)
def _dist(hand, deck, disc, trump, abil, pool, need, depth, mem, deadline):
    """Row of the distribution arena holding P(j more wins) under the policy optimal for
    ``need`` more wins (``KingdomSolver.distribution``: ties to the first option and the
    first choice), or a negative status. Every need below 0 plays alike (nothing scores),
    so they share the key of -1."""
    if hand == 0:
        return TERMINAL_ROW
    table, vals, meta, scratch, stack = _views(mem)
    dtable, dvals, totals = _dist_views(mem)
    disc, pool = _normalise(hand, deck, disc, abil, pool)
    need = max(need, -1)
    k0, k1 = _key(hand, deck, disc, trump, abil, pool)
    k1 |= (need + 1) << NEED_SHIFT
    dbits = meta[DBITS]
    slot = _find(dtable, k0, k1, dbits)
    if dtable[slot, 0] != -1:
        return dtable[slot, 0] >> K0_BITS
    if depth + 1 >= scratch.shape[0]:
        return TOO_DEEP
    if meta[LOOKUPS] >= meta[NEXT_CLOCK]:
        status = _poll(meta, deadline)
        if status < 0:
            return status
    merge = not _reshuffle_possible(hand, deck, disc, abil)
    keep = 0 if merge else -1
    base = meta[TOP]
    chosen, best = DEBATE, -1.0
    # below 0 no option scores, and with no ability a debate is the only option: either way the
    # first option (a debate) is played, and scoring the options would only repeat lookups
    if need >= 0 and abil != 0:
        for option in range(COMMERCE + 1):
            top, denominator, new_trump, rest, new_pool = _push_option(
                option, hand, deck, disc, trump, abil, pool, merge, keep, stack, base
            )
            if top == UNUSABLE:
                continue
            if top < 0:
                return STACK_FULL
            meta[TOP] = top
            score = _option_score(
                base, top, denominator, new_trump, rest, new_pool, need, depth, mem, deadline
            )
            meta[TOP] = base
            if score < 0.0:
                return np.int64(score)
            if score > best + TIE:  # ties (within rounding) to the first, as the reference
                chosen, best = option, score
    top, denominator, new_trump, rest, new_pool = _push_option(
        chosen, hand, deck, disc, trump, abil, pool, merge, keep, stack, base
    )
    if top < 0:
        return STACK_FULL
    meta[TOP] = top
    bits = meta[BITS]
    lone = scratch[depth, 0]
    total = totals[depth]  # this node's row of the scratch, not an allocation per node
    span = _span(hand, abil)
    total[:span] = 0.0
    i = base
    while i < top:
        weight = stack[i] / denominator
        end = i + 2 + CHOICE * stack[i + 1]
        meta[LOOKUPS] += stack[i + 1]
        i += 2
        pick, pick_score = i, -1.0  # the best choice for ``need``, the first on ties
        if need >= 0 and end - i > CHOICE:  # a lone choice is the pick: no lookup needed
            j = i
            while j < end:
                h, d, x, won = stack[j], stack[j + 1], stack[j + 2], stack[j + 3]
                k = need - won
                value = 0.0
                if k >= 0:
                    if _lone_last_card(h, rest):
                        lone[:] = 0.0
                        _fold_last_card(lone, h, d, x, new_trump, rest, 0)
                        value = lone[k]
                    else:
                        row = _known(h, d, x, new_trump, rest, new_pool, table, bits)
                        if row < 0:
                            row = _decide(
                                h, d, x, new_trump, rest, new_pool, depth + 1, mem, deadline
                            )
                            if row < 0:
                                return row
                        value = vals[row, k]
                if value > pick_score + TIE:
                    pick, pick_score = j, value
                j += CHOICE
        h, d, x, won = stack[pick], stack[pick + 1], stack[pick + 2], stack[pick + 3]
        i = end
        if rest == 0 and h != 0 and h & (h - 1) == 0:
            # a lone last card and no ability: it wins with the share of the deck it beats,
            # in closed form as in the values (not memoised, no debate walked)
            lone[:] = 0.0
            _fold_last_card(lone, h, d, x, new_trump, rest, 0)
            total[won] += weight * lone[0]
            total[won + 1] += weight * lone[1]
            continue
        row = _dist(h, d, x, new_trump, rest, new_pool, need - won, depth + 1, mem, deadline)
        if row < 0:
            return row
        for j in range(min(_span(h, rest), DIST_WIDTH - won)):
            total[j + won] += weight * dvals[row + j]
    meta[TOP] = base
    row = meta[DFREE]  # a row is the offset of its first entry in the packed arena
    if meta[DROWS] >= meta[DROW_LIMIT] or row + span > dvals.shape[0]:
        return DIST_FULL
    slot = _find(dtable, k0, k1, dbits)
    dtable[slot, 0] = k0 | (row << K0_BITS)
    dtable[slot, 1] = k1
    dvals[row : row + span] = total[:span]
    meta[DFREE] = row + span
    meta[DROWS] += 1
    return row


@njit(cache=True, inline="always")
def _span(hand, abil):
    """The entries of a state's distribution row (P(j more wins) for j below it): with neither
    Military nor Commerce left the hand only shrinks, a card a debate, so at most its size more
    wins; else up to the deck's 32. The memo stores each row in its span alone."""
    if abil & 0xFF and hand:
        return DIST_WIDTH
    return popcount(hand) + 1


@njit(cache=True)
def _option_vector(option, hand, deck, disc, trump, abil, pool, depth, mem, deadline, acc):
    """``acc`` = the value vector of one option at a DECIDE node (``KingdomSolver.option_value``,
    summed in its order): 0, UNUSABLE where the option cannot be taken, or a negative
    status. The root's options, asked once each, without walking their outcomes in Python."""
    _, _, meta, scratch, stack = _views(mem)
    disc, pool = _normalise(hand, deck, disc, abil, pool)
    merge = not _reshuffle_possible(hand, deck, disc, abil)
    keep = 0 if merge else -1
    base = meta[TOP]
    top, denominator, new_trump, rest, new_pool = _push_option(
        option, hand, deck, disc, trump, abil, pool, merge, keep, stack, base
    )
    if top == UNUSABLE:
        return UNUSABLE
    if top < 0:
        return STACK_FULL
    meta[TOP] = top
    status = _expect_outcomes(
        acc,
        scratch[depth, 2],
        stack,
        base,
        top,
        denominator,
        new_trump,
        rest,
        new_pool,
        depth,
        mem,
        deadline,
    )
    if status < 0:
        return status
    meta[TOP] = base
    return 0


# --- the certainty search (search.visit.certain) ----------------------------------
# Yes/no questions on the same game tree, for ability sets too large to solve: which numbers of
# wins still needed some policy hits against every deck order (SURE: the chance is exactly 1),
# and which some deck order and some play can hit at all (POSSIBLE: the chance is above 0). A
# value is a mask over wins still needed, bit k for k = 0..8: the options and the choices of an
# outcome are or-ed; an option's chance outcomes are and-ed (SURE) or or-ed (POSSIBLE). A node
# asks its children only for the bits still open (``wanted``) and stops once they are settled.
# A memo slot holds ``(k0 | info << 35, k1)``, ``info`` = the bits decided | their answers << 9:
# a state asked again for other bits searches for those alone. The work stack, the keys, the
# options and the clock are the expectimax's above.

SURE_MODE, POSSIBLE_MODE = 0, 1
TARGET_BITS = (1 << WIDTH) - 1


@njit(cache=True, inline="always")
def _certain_views(mem):
    """The certainty memo's table, its meta array and the work stack from ``mem`` (laid out as
    for :func:`_views`; ``mem[6]`` is the depth allowed)."""
    table = numba.carray(pointer(mem[0]), (mem[1], 2), np.int64)
    meta = numba.carray(pointer(mem[4]), META_SIZE, np.int64)
    stack = numba.carray(pointer(mem[7]), mem[8], np.int64)
    return table, meta, stack


@njit(cache=True, inline="always")
def _last_card_mask(hand, deck, disc, trump, abil, mode):
    """The wins still needed (bits 0 and 1) that a lone last card hits for sure (SURE) or can
    hit (POSSIBLE), from the share of unseen cards it beats as in ``_fold_last_card``:
    Diplomacy may throw a last trump away, a sure loss."""
    if deck == 0:
        deck = disc  # R1
    if deck == 0:
        return 1  # R2: no debate can be held, no more wins
    suit_mask = 0xFF << (8 * (lowbit_index(hand) >> 3))
    beaten = popcount(deck & suit_mask & (hand - 1))
    if suit_mask == 0xFF << (8 * trump):
        beaten += popcount(deck & ~suit_mask)
    size = popcount(deck)
    diplomacy = ((abil >> 8) & 15) != 0 and (hand & (0xFF << (8 * trump))) != 0
    if mode == SURE_MODE:
        lose, win = beaten == 0 or diplomacy, beaten == size
    else:
        lose, win = beaten < size or diplomacy, beaten > 0
    return (1 if lose else 0) | (2 if win else 0)


@njit(cache=True, inline="always")
def _certain_outcomes(base, top, wanted, mode, trump, abil, pool, depth, mem, deadline):
    """The bits of ``wanted`` an option pushed at ``base``..``top`` settles as true: those every
    outcome hits with its best choice (SURE), or some outcome hits (POSSIBLE); or a child's
    negative status. Stops once the answer is known."""
    _, meta, stack = _certain_views(mem)
    alive = wanted  # SURE: the bits every outcome so far hits
    found = 0  # POSSIBLE: the bits some outcome hits
    i = base
    while i < top:
        end = i + 2 + CHOICE * stack[i + 1]
        i += 2
        ask = alive if mode == SURE_MODE else wanted & ~found
        got = 0
        while i < end and ask & ~got != 0:
            h, d, x, won = stack[i], stack[i + 1], stack[i + 2], stack[i + 3]
            i += CHOICE
            meta[LOOKUPS] += 1
            child = (ask & ~got) >> won  # a win leaves one fewer to need
            if child == 0:
                continue
            answer = _certain(h, d, x, trump, abil, pool, child, mode, depth + 1, mem, deadline)
            if answer < 0:
                return answer
            got |= answer << won
        i = end
        if mode == SURE_MODE:
            alive &= got
            if alive == 0:
                return 0
        else:
            found |= got
            if found == wanted:
                return found
    return alive if mode == SURE_MODE else found


@njit(cache=True)
def _certain(hand, deck, disc, trump, abil, pool, wanted, mode, depth, mem, deadline):
    """The bits of ``wanted`` (wins still needed) that a DECIDE node hits for sure (SURE) or can
    hit (POSSIBLE), or a negative status to unwind with."""
    if abil & 0xFF == 0:  # nothing draws: at most a win a card held
        wanted &= (2 << popcount(hand)) - 1
    if hand == 0 or wanted == 0:
        return wanted & 1
    if _lone_last_card(hand, abil):
        return wanted & _last_card_mask(hand, deck, disc, trump, abil, mode)
    table, meta, stack = _certain_views(mem)
    disc, pool = _normalise(hand, deck, disc, abil, pool)
    bits = meta[BITS]
    k0, k1 = _key(hand, deck, disc, trump, abil, pool)
    slot = _find(table, k0, k1, bits)
    decided = answers = 0
    if table[slot, 0] != -1:
        info = table[slot, 0] >> K0_BITS
        decided, answers = info & TARGET_BITS, info >> WIDTH
        if wanted & ~decided == 0:
            return wanted & answers
    todo = wanted & ~decided
    if depth >= mem[6]:
        return TOO_DEEP
    meta[EXPANSIONS] += 1
    if meta[LOOKUPS] >= meta[NEXT_CLOCK]:
        status = _poll(meta, deadline)
        if status < 0:
            return status
    merge = not _reshuffle_possible(hand, deck, disc, abil)
    keep = 0 if merge else -1
    found = 0
    base = meta[TOP]
    for option in range(COMMERCE + 1):
        top, _, new_trump, rest, new_pool = _push_option(
            option, hand, deck, disc, trump, abil, pool, merge, keep, stack, base
        )
        if top == UNUSABLE:
            continue
        if top < 0:
            return STACK_FULL
        meta[TOP] = top  # children push above this option's outcomes
        got = _certain_outcomes(
            base, top, todo & ~found, mode, new_trump, rest, new_pool, depth, mem, deadline
        )
        if got < 0:
            return got
        meta[TOP] = base
        found |= got
        if todo & ~found == 0:
            break
    # store; the children may have taken the empty slot found above
    slot = _find(table, k0, k1, bits)
    if table[slot, 0] == -1:
        if meta[ROWS] >= meta[ROW_LIMIT]:
            return FULL
        meta[ROWS] += 1
    decided |= todo
    answers |= found
    table[slot, 0] = k0 | ((decided | (answers << WIDTH)) << K0_BITS)
    table[slot, 1] = k1
    return wanted & answers


DECIDE_CALL, DIST_CALL, OPTION_CALL, PLAY_CALL, CERTAIN_CALL = 0, 1, 2, 3, 4


@njit(cache=True)
def _enter(
    call,
    option,
    hand,
    deck,
    disc,
    trump,
    abil,
    pool,
    need,
    depth,
    mem,
    deadline,
    acc,
    scratch_mem,
    ints,
):
    """The one entry from Python: a DECIDE node's row (``_decide``), a distribution's row
    (``_dist``), one option's vector (``_option_vector``), a batch of the lookahead policy's
    playouts (``_play_batch``, with the scratch memo and its arguments in ``ints``) or the
    certainty search's answer (``_certain``, with its own memo as ``mem``). One entry
    point means one compiled library to load from numba's cache (each entry point loads its
    own copy, and a second copy of the recursive ``_decide`` crashed on loading, numba issue
    6061).
    ``depth`` is 0, passed in: a literal argument to a recursive kernel makes numba compile a
    second version of it, whose cached copy crashed on loading."""
    if call == DECIDE_CALL:
        return _decide(hand, deck, disc, trump, abil, pool, depth, mem, deadline)
    if call == DIST_CALL:
        return _dist(hand, deck, disc, trump, abil, pool, need, depth, mem, deadline)
    if call == CERTAIN_CALL:  # option: the mode; need: the bits wanted
        return _certain(hand, deck, disc, trump, abil, pool, need, option, depth, mem, deadline)
    if call == PLAY_CALL:
        return _play_batch(
            hand, deck, disc, trump, abil, pool, need, ints, mem, scratch_mem, deadline, depth
        )
    return _option_vector(option, hand, deck, disc, trump, abil, pool, depth, mem, deadline, acc)


# --- the solver ---------------------------------------------------------------------


NO_INTS = np.zeros(1, dtype=np.int64)  # the playouts' arguments, in calls that are not playouts
_LABELS = {DEBATE: ("debate",), DIPLOMACY: ("H",), MILITARY: ("C",), COMMERCE: ("D",)}
_LABELS.update({POLITICS + suit: ("S", suit) for suit in range(4)})


def pack_abilities(abil, pool) -> tuple[int, int]:
    """Ability counts and the Politics pool as the kernel's 4-bit fields."""
    if max(abil) > 15 or len(pool) > 15:
        raise ValueError(f"abilities {abil} or pool {pool} too large for 4-bit counts")
    packed_pool = 0
    for suit in pool:
        packed_pool += 1 << (4 * suit)
    return abil[0] | abil[1] << 4 | abil[2] << 8 | abil[3] << 12, packed_pool


def memo_bytes(bits: int) -> int:
    """The bytes of a values' memo of ``2**bits`` slots: its table and its arena."""
    return 16 * (1 << bits) + 8 * WIDTH * (int(LOAD * (1 << bits)) + 1)


def _give_back(held: list, arrays: list) -> None:
    """Release a freed solver's bytes from the memory cap's count, and give its memo's
    arrays to the pool for the next solver to grow into."""
    release(held[0])
    held[0] = 0
    for array in arrays:
        POOL.give(array)
    arrays.clear()


def _armed(meta: np.ndarray, deadline: float | None) -> float:
    """``deadline`` as a kernel takes it (-1.0: none), with how the kernel polls noted in
    ``meta``: natively (libc's clock, the wakeup pipe) where it may, else in object mode."""
    meta[NATIVE_POLL], meta[WAKEUP_FD] = kernel_poll()
    return -1.0 if deadline is None else deadline


class FastKingdomSolver(KingdomSolver):
    """KingdomSolver whose float vector values come from the compiled kernel.

    The compiled memo persists across calls, so a root and then its children
    cost one search. Exact values, a scalar ``need`` or ``canonical=False`` go
    to the reference implementation (and its own memo).
    """

    def __init__(
        self,
        *,
        initial_bits: int = 12,
        initial_stack: int = 1 << 16,
        initial_depth: int = MAX_DEPTH,
        initial_dist_bits: int = 10,
        **options,
    ) -> None:
        """Options as for KingdomSolver; the table (2**initial_bits slots), work stack,
        depth and distribution table (2**initial_dist_bits slots) start at these sizes and
        grow on demand."""
        super().__init__(**options)
        limit = int(LOAD * (1 << initial_bits))
        if initial_bits >= PREFETCH_BITS:  # a big memo from the start: held arrays first
            self._table = POOL.take((1 << initial_bits, 2), np.int64, -1)
            self._vals = POOL.take((limit + 1, WIDTH), np.float64, 0.0)
        else:
            self._table = np.full((1 << initial_bits, 2), -1, dtype=np.int64)
            self._vals = np.zeros((limit + 1, WIDTH), dtype=np.float64)
        self._vals[TERMINAL_ROW, 0] = 1.0
        self._meta = np.zeros(META_SIZE, dtype=np.int64)
        self._meta[[ROWS, BITS, ROW_LIMIT]] = 1, initial_bits, limit + 1
        self._meta[NEXT_CLOCK] = CLOCK_EVERY  # small searches never read the clock
        self._meta[PREFETCH_FROM] = PREFETCH_BITS
        self._scratch = np.zeros((initial_depth, 3, WIDTH), dtype=np.float64)
        self._totals = np.zeros((initial_depth, DIST_WIDTH), dtype=np.float64)  # one row a depth
        self._stack = np.zeros(initial_stack, dtype=np.int64)
        self._new_distribution_memo(initial_dist_bits)
        self._acc = np.zeros(WIDTH)  # an option's vector, from the kernel
        self._held = [0]  # bytes counted against the memory cap, given back when freed
        self._arrays: list = []  # the memos' arrays, pooled when the solver is freed
        self._retired: list = []  # arrays a growth replaced, pooled once it is settled
        weakref.finalize(self, _give_back, self._held, self._arrays)
        self._account()
        self._remember_addresses()
        guard_interrupts()

    def reset(self) -> None:
        """Forget every memoised state and give the memory back (after MemoryLimitExceeded)."""
        super().reset()
        self._table = np.full((1 << 12, 2), -1, dtype=np.int64)
        limit = int(LOAD * (1 << 12))
        self._vals = np.zeros((limit + 1, WIDTH), dtype=np.float64)
        self._vals[TERMINAL_ROW, 0] = 1.0
        self._meta[[ROWS, BITS, ROW_LIMIT, TOP]] = 1, 12, limit + 1, 0
        self._new_distribution_memo()
        self._account()
        self._remember_addresses()

    def state_count(self) -> int:
        """How many states the memos hold (the compiled table plus the reference's)."""
        return int(self._meta[ROWS]) - 1 + len(self.memo)

    def _new_distribution_memo(self, bits: int = 10) -> None:
        """An empty memo for :meth:`distribution` (row 0, one entry: no more wins, for sure).
        Its arena packs each row in its span (``_span``), :data:`DIST_ENTRIES` a row to start."""
        self._dtable = np.full((1 << bits, 2), -1, dtype=np.int64)
        limit = int(LOAD * (1 << bits))
        self._dvals = np.zeros(DIST_WIDTH + DIST_ENTRIES * limit, dtype=np.float64)
        self._dvals[TERMINAL_ROW] = 1.0
        self._meta[[DROWS, DBITS, DROW_LIMIT, DFREE]] = 1, bits, limit + 1, 1

    @property
    def probes(self) -> int:
        """How many distinct children the kernel has looked up in the memo (``lookups``
        counts every choice; an option's children of equal keys are looked up once)."""
        return int(self._meta[PROBES])

    @property
    def lookups(self) -> int:
        """How many child values the kernel has looked up (its main cost, see the module)."""
        return int(self._meta[LOOKUPS])

    def prefetch_from(self, bits: int) -> None:
        """Prefetch children's slots and rows once the table has ``2**bits`` slots
        (:data:`PREFETCH_BITS` to start; 64 never): a speed setting, for benchmarks."""
        self._meta[PREFETCH_FROM] = bits

    def _kernel_deadline(self) -> float:
        """The deadline as the kernel takes it, its polling noted (:func:`_armed`)."""
        return _armed(self._meta, self.deadline)

    def limit_work(self, lookups: int | None) -> None:
        """Stop the searches that follow (TimeLimitExceeded) once they have made about
        ``lookups`` more lookups (checked every ``CLOCK_EVERY``), whatever the clock says; None
        lifts the limit. Unlike a deadline, where it stops depends only on the queries asked."""
        self._meta[WORK_LIMIT] = (
            0 if lookups is None else int(self._meta[LOOKUPS]) + max(1, lookups)
        )

    def decide(self, hand, deck, disc, trump, abil, pool, need=None):
        """Value of a DECIDE node; float vector mode runs compiled."""
        if need is not None or self.exact or not self.canonical:
            return super().decide(hand, deck, disc, trump, abil, pool, need)
        if not hand:
            return TERMINAL
        if not (abil[0] or abil[1] or abil[3]) and not hand & (hand - 1):
            return super().decide(hand, deck, disc, trump, abil, pool)  # closed form, no memo
        packed_abil, packed_pool = pack_abilities(
            abil, pool
        )  # trump goes in as an int: a Suit would
        deadline = self._kernel_deadline()  # a float always: None would compile a second kernel
        before = int(self._meta[EXPANSIONS])
        try:
            with kernel_running():
                while True:
                    self._meta[TOP] = 0
                    row = _enter(
                        DECIDE_CALL,
                        0,
                        hand,
                        deck,
                        disc,
                        int(trump),
                        packed_abil,
                        packed_pool,
                        0,
                        0,
                        self._mem,
                        deadline,
                        self._acc,
                        self._mem,
                        NO_INTS,
                    )
                    if row >= 0:
                        return tuple(self._vals[row].tolist())
                    self._raise_or_grow(row)
        finally:
            self.stats.expansions += int(self._meta[EXPANSIONS]) - before
            self.stats.states = self.state_count()

    def distribution(self, hand, deck, disc, trump, abil, pool, need):
        """P(j more wins) under the policy optimal for ``need`` (the reference's
        ``distribution``), compiled in float vector mode."""
        if self.exact or not self.canonical:
            return super().distribution(hand, deck, disc, trump, abil, pool, need)
        if not hand:
            return (self.one,)
        packed_abil, packed_pool = pack_abilities(abil, pool)
        deadline = self._kernel_deadline()
        with kernel_running():
            while True:
                self._meta[TOP] = 0
                row = _enter(
                    DIST_CALL,
                    0,
                    hand,
                    deck,
                    disc,
                    int(trump),
                    packed_abil,
                    packed_pool,
                    need,
                    0,
                    self._mem,
                    deadline,
                    self._acc,
                    self._mem,
                    NO_INTS,
                )
                if row >= 0:
                    break
                self._raise_or_grow(row)
        span = DIST_WIDTH if packed_abil & 0xFF and hand else hand.bit_count() + 1  # _span
        values = self._dvals[row : row + span].tolist()
        while len(values) > 1 and values[-1] == 0.0:
            values.pop()
        return tuple(values)

    def option_values(self, hand, deck, disc, trump, abil, pool, kinds=None):
        """Every option at a DECIDE node as ``(label, value vector)``, in the order of
        ``options`` (with ``kinds``, only options whose label starts with one of them);
        compiled in float vector mode, so that no outcome is walked in Python."""
        if self.exact or not self.canonical:
            return super().option_values(hand, deck, disc, trump, abil, pool, kinds)
        packed_abil, packed_pool = pack_abilities(abil, pool)
        deadline = self._kernel_deadline()
        acc = self._acc
        result = []
        with kernel_running():
            for option in range(COMMERCE + 1):
                if kinds is not None and _LABELS[option][0] not in kinds:
                    continue
                while True:
                    self._meta[TOP] = 0
                    status = _enter(
                        OPTION_CALL,
                        option,
                        hand,
                        deck,
                        disc,
                        int(trump),
                        packed_abil,
                        packed_pool,
                        0,
                        0,
                        self._mem,
                        deadline,
                        acc,
                        self._mem,
                        NO_INTS,
                    )
                    if status >= 0 or status == UNUSABLE:
                        break
                    self._raise_or_grow(status)
                if status == 0:
                    result.append((_LABELS[option], tuple(acc.tolist())))
        return result

    def option_worths(self, need, hand, deck, disc, trump, abil, pool):
        """Every option's worth for ``need`` more wins, from the compiled option values."""
        if self.exact or not self.canonical:
            return super().option_worths(need, hand, deck, disc, trump, abil, pool)
        return [
            (label, self.component(value, need))
            for label, value in self.option_values(hand, deck, disc, trump, abil, pool)
        ]

    def play(self, scratch: FastKingdomSolver, state: tuple, need: int, ints: np.ndarray) -> None:
        """Play the batch of lookahead playouts that ``ints`` describes (``_play_batch``; their
        wins are written into it), with this solver's memo for the restrictions that draw and
        ``scratch``'s for the rest, growing either as they fill; a scratch memo that reaches
        the memory cap is emptied and play goes on. Raises past the deadline (this solver's),
        the memory cap (this solver's memo) or a Ctrl-C; the playouts it finished stay in
        ``ints``."""
        hand, deck, disc, trump, abil, pool = state
        packed_abil, packed_pool = pack_abilities(abil, pool)
        deadline = self._kernel_deadline()
        _armed(scratch._meta, None)  # its searches poll with its own meta
        solvers = (self, scratch)
        emptied_at = -1  # the playout under way when the scratch memo was last emptied
        with kernel_running():
            while True:
                self._meta[TOP] = scratch._meta[TOP] = 0
                _enter(
                    PLAY_CALL,
                    0,
                    hand,
                    deck,
                    disc,
                    int(trump),
                    packed_abil,
                    packed_pool,
                    need,
                    0,
                    self._mem,
                    deadline,
                    self._acc,
                    scratch._mem,
                    ints,
                )
                if not ints[P_STATUS]:
                    return
                which = solvers[int(ints[P_WHICH])]
                try:
                    which._raise_or_grow(int(ints[P_STATUS]))
                except MemoryLimitExceeded:
                    if which is self or ints[P_DONE] == emptied_at:
                        raise  # the root memo, or one playout alone fills the cap
                    # The scratch memo holds exact values only to save work: emptied, the
                    # playout under way starts again (from P_DONE) and plays the same.
                    emptied_at = int(ints[P_DONE])
                    scratch.reset()

    def _raise_or_grow(self, status: int) -> None:
        """Raise for a spent budget or a Ctrl-C, else enlarge what the kernel ran out of."""
        if status == TIMEOUT:
            meta = self._meta
            if meta[WORK_LIMIT] > 0 and meta[LOOKUPS] >= meta[WORK_LIMIT]:
                raise WorkLimitExceeded  # the work, not the clock: the same place on any machine
            raise TimeLimitExceeded
        if status == INTERRUPTED:
            raise KeyboardInterrupt
        self._grow(status)

    def _grow(self, status: int) -> None:
        """Enlarge what the kernel ran out of."""
        if status == FULL:
            self._grow_values()
        elif status == DIST_FULL:
            self._grow_distributions()
        elif status == STACK_FULL:
            self._stack = np.zeros(max(2 * len(self._stack), 1024), dtype=np.int64)
        elif status == TOO_DEEP:
            self._scratch = np.zeros((max(2 * len(self._scratch), 16), 3, WIDTH), dtype=np.float64)
            self._totals = np.zeros((len(self._scratch), DIST_WIDTH), dtype=np.float64)
        else:  # pragma: no cover - the kernel returns no other status
            raise RuntimeError(f"unknown kernel status {status}")
        self._account()
        self._remember_addresses()
        for array in self._retired:
            POOL.give(array)
        self._retired.clear()

    def _grow_values(self) -> None:
        """Double the values' memo: its table rehashed, its arena's rows copied."""
        meta = self._meta
        bits = int(meta[BITS]) + 1
        limit = int(LOAD * (1 << bits))
        if limit >= 1 << (63 - K0_BITS):
            raise MemoryLimitExceeded("the memo would outgrow the arena rows a slot can name")
        self._reserve_growth(memo_bytes(bits))
        table = POOL.take((1 << bits, 2), np.int64, -1)
        _rehash(self._table, table, bits)
        vals = POOL.take((limit + 1, WIDTH), np.float64, 0.0)
        used = int(meta[ROWS])
        vals[:used] = self._vals[:used]
        self._retired += [self._table, self._vals]
        self._table, self._vals = table, vals
        meta[BITS], meta[ROW_LIMIT] = bits, limit + 1

    def _grow_distributions(self) -> None:
        """Double what the distribution memo ran out of: its table (rehashed) once it holds
        its load, its packed arena (copied) once a widest row would not fit."""
        meta = self._meta
        if meta[DROWS] >= meta[DROW_LIMIT]:
            bits = int(meta[DBITS]) + 1
            growth = 16 * (1 << bits)
            self._reserve_growth(growth)
            table = POOL.take((1 << bits, 2), np.int64, -1)
            _rehash(self._dtable, table, bits)
            self._retired.append(self._dtable)
            self._dtable = table
            meta[DBITS], meta[DROW_LIMIT] = bits, int(LOAD * (1 << bits)) + 1
        if int(meta[DFREE]) + DIST_WIDTH > len(self._dvals):
            if 2 * len(self._dvals) >= 1 << (63 - K0_BITS):
                raise MemoryLimitExceeded("the memo would outgrow the arena rows a slot can name")
            self._reserve_growth(16 * len(self._dvals))
            arena = POOL.take((2 * len(self._dvals),), np.float64, 0.0)
            used = int(meta[DFREE])
            arena[:used] = self._dvals[:used]
            self._retired.append(self._dvals)
            self._dvals = arena

    def _reserve_growth(self, growth: int) -> None:
        """Count ``growth`` bytes against the memory cap before allocating them (old and new
        arrays are alive while copying); past the deadline if the copy alone would be."""
        if (
            self.deadline is not None
            and time.perf_counter() + growth * GROW_SECONDS_PER_BYTE > self.deadline
        ):
            raise TimeLimitExceeded  # the copy alone would run past the deadline (issue 15)
        reserve(growth)
        self._held[0] += growth

    def _account(self) -> None:
        """Settle the bytes counted against the memory cap to the arrays held now."""
        size = self._table.nbytes + self._vals.nbytes + self._scratch.nbytes + self._stack.nbytes
        size += self._dtable.nbytes + self._dvals.nbytes + self._totals.nbytes
        if size > self._held[0]:
            reserve(size - self._held[0])
        else:
            release(self._held[0] - size)
        self._held[0] = size

    def _remember_addresses(self) -> None:
        """The kernel's view of the arrays; they must outlive it (they are attributes)."""
        self._arrays[:] = [self._table, self._vals, self._dtable, self._dvals]
        self._mem = (
            self._table.ctypes.data,
            len(self._table),
            self._vals.ctypes.data,
            len(self._vals),
            self._meta.ctypes.data,
            self._scratch.ctypes.data,
            len(self._scratch),
            self._stack.ctypes.data,
            len(self._stack),
            self._dtable.ctypes.data,
            len(self._dtable),
            self._dvals.ctypes.data,
            len(self._dvals),
            self._totals.ctypes.data,  # as deep as the scratch (mem[6])
        )


class CertaintyMemo:
    """The compiled certainty search in one mode (:data:`SURE_MODE` or :data:`POSSIBLE_MODE`,
    see ``_certain``), with its memo: which numbers of wins still needed a state hits for sure,
    or can hit at all. Its own table of ``2**bits`` slots (no value arena: the answers sit in
    the slots), grown on demand, counted against the memory cap; a deadline and a work limit
    (lookups, as :meth:`FastKingdomSolver.limit_work`) stop it with the usual exceptions, and
    what it settled stays memoised."""

    def __init__(self, mode: int, *, initial_bits: int = 12, initial_stack: int = 1 << 14) -> None:
        self.mode = mode
        self.deadline: float | None = None
        self._table = np.full((1 << initial_bits, 2), -1, dtype=np.int64)
        self._meta = np.zeros(META_SIZE, dtype=np.int64)
        self._meta[[BITS, ROW_LIMIT]] = initial_bits, int(LOAD * (1 << initial_bits))
        self._meta[NEXT_CLOCK] = CLOCK_EVERY
        self._stack = np.zeros(initial_stack, dtype=np.int64)
        self._depth = MAX_DEPTH
        self._acc = np.zeros(WIDTH)  # unused by the search; _enter's signature takes it
        self._held = [0]
        self._arrays: list = []
        weakref.finalize(self, _give_back, self._held, self._arrays)
        self._account()
        guard_interrupts()

    @property
    def lookups(self) -> int:
        """How many children the search has asked (its main cost, as the expectimax's)."""
        return int(self._meta[LOOKUPS])

    def state_count(self) -> int:
        """How many states the memo holds."""
        return int(self._meta[ROWS])

    def _kernel_deadline(self) -> float:
        """The deadline as the kernel takes it, its polling noted (:func:`_armed`)."""
        return _armed(self._meta, self.deadline)

    def limit_work(self, lookups: int | None) -> None:
        """Stop the searches that follow once they have made about ``lookups`` more lookups
        (WorkLimitExceeded); None lifts the limit."""
        self._meta[WORK_LIMIT] = (
            0 if lookups is None else int(self._meta[LOOKUPS]) + max(1, lookups)
        )

    def ask(self, state: tuple, wanted: int) -> int:
        """The bits of ``wanted`` (bit k: k more wins) that ``state`` (hand, deck, discard,
        trump, ability counts, Politics pool) hits for sure, or can hit, in this mode."""
        hand, deck, disc, trump, abil, pool = state
        packed_abil, packed_pool = pack_abilities(abil, pool)
        deadline = self._kernel_deadline()
        with kernel_running():
            while True:
                self._meta[TOP] = 0
                answer = _enter(
                    CERTAIN_CALL,
                    self.mode,
                    hand,
                    deck,
                    disc,
                    int(trump),
                    packed_abil,
                    packed_pool,
                    wanted,
                    0,
                    self._mem,
                    deadline,
                    self._acc,
                    self._mem,
                    NO_INTS,
                )
                if answer >= 0:
                    return int(answer)
                self._raise_or_grow(int(answer))

    def _raise_or_grow(self, status: int) -> None:
        meta = self._meta
        if status == TIMEOUT:
            if meta[WORK_LIMIT] > 0 and meta[LOOKUPS] >= meta[WORK_LIMIT]:
                raise WorkLimitExceeded
            raise TimeLimitExceeded
        if status == INTERRUPTED:
            raise KeyboardInterrupt
        if status == FULL:
            bits = int(meta[BITS]) + 1
            if (
                self.deadline is not None
                and time.perf_counter() + 16 * (1 << bits) * GROW_SECONDS_PER_BYTE > self.deadline
            ):
                raise TimeLimitExceeded
            reserve(16 * (1 << bits))
            self._held[0] += 16 * (1 << bits)
            table = POOL.take((1 << bits, 2), np.int64, -1)
            _rehash(self._table, table, bits)
            POOL.give(self._table)
            self._table = table
            meta[BITS], meta[ROW_LIMIT] = bits, int(LOAD * (1 << bits))
        elif status == STACK_FULL:
            self._stack = np.zeros(2 * len(self._stack), dtype=np.int64)
        elif status == TOO_DEEP:
            self._depth *= 2
        else:  # pragma: no cover - the kernel returns no other status
            raise RuntimeError(f"unknown kernel status {status}")
        self._account()

    def _account(self) -> None:
        """Settle the bytes counted against the memory cap; remember the kernel's view."""
        size = self._table.nbytes + self._stack.nbytes
        if size > self._held[0]:
            reserve(size - self._held[0])
        else:
            release(self._held[0] - size)
        self._held[0] = size
        self._arrays[:] = [self._table]
        self._mem = (
            self._table.ctypes.data,
            len(self._table),
            0,
            0,
            self._meta.ctypes.data,
            0,
            self._depth,
            self._stack.ctypes.data,
            len(self._stack),
            0,
            0,
            0,
            0,
            0,
        )


# --- the lookahead policy's playouts (search.visit.fastplay) ---------------------------------
# The lookahead policy of :mod:`search.visit.lookahead` played whole in compiled code; here for
# the reason above (it calls the self-recursive ``_decide``; across modules numba's cache would
# hold a stale or, as measured, a crashing copy). :mod:`search.visit.fastplay` is its front.

GOLDEN = 0x9E3779B97F4A7C15
MIX1, MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
SPREAD_MIX = 0xD6E8FEB86659FD93
MILITARY_TAG = 0x6D696C6974617279  # "military": keeps Military's draws apart from deck orders
MILITARY_STAGES = (4, 8, 16)
MILITARY_FLOOR = 0.05
MILITARY_MARGIN = 2.0
CEILING_STEPS = 60  # ternary steps maximising a concave statistic over [0, 1]: 1e-11 wide
SLACK = 1e-7  # the ceiling must fall this far short: rounding never decides it
MAX_FAMILY = 8  # the justification, the roots (at most 4) and ♥♠
MAIN_MEMO, SCRATCH_MEMO = 0, 1  # which memo a playout's negative status came from

_U_GOLDEN, _U_MIX1, _U_MIX2 = np.uint64(GOLDEN), np.uint64(MIX1), np.uint64(MIX2)
_U_SPREAD = np.uint64(SPREAD_MIX)


@njit(cache=True, inline="always")
def _u_fmix(z):
    z = (z ^ (z >> np.uint64(30))) * _U_MIX1
    z = (z ^ (z >> np.uint64(27))) * _U_MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _u_combine(h, value):
    return _u_fmix(h + _U_GOLDEN + np.uint64(value) * _U_SPREAD)


@njit(cache=True, inline="always")
def _u_next(rng):
    rng[0] += _U_GOLDEN
    return _u_fmix(rng[0])


@njit(cache=True, inline="always")
def _u_below(rng, bound):
    b = np.uint64(bound)
    floor = (np.uint64(0) - b) % b  # 2**64 mod bound
    while True:
        value = _u_next(rng)
        if value >= floor:
            return np.int64(value % b)


@njit(cache=True)
def _shuffle_deck(deck, rng, order):
    """Fill ``order`` with the cards of ``deck`` shuffled (drawn from the end); their count."""
    n = 0
    cards = deck
    while cards:
        order[n] = lowbit_index(cards)
        cards &= cards - 1
        n += 1
    for i in range(n - 1, 0, -1):
        j = _u_below(rng, i + 1)
        order[i], order[j] = order[j], order[i]
    return n


# --- a board: the cards of one playout --------------------------------------------------------

# board fields: hand, deck, discard, trump, abilities (packed), pool (packed), wins, cards left
B_HAND, B_DECK, B_DISC, B_TRUMP, B_ABIL, B_POOL, B_WINS, B_LEFT = range(8)


@njit(cache=True)
def _next_card(board, order, rng):
    """The deck's top card, refilling it from the discard pile (R1); -1 with no card (R2)."""
    if board[B_DECK] == 0:
        if board[B_DISC] == 0:
            return -1
        board[B_DECK], board[B_DISC] = board[B_DISC], 0
        board[B_LEFT] = _shuffle_deck(board[B_DECK], rng, order)
    board[B_LEFT] -= 1
    card = order[board[B_LEFT]]
    board[B_DECK] &= ~(np.int64(1) << card)
    return card


@njit(cache=True)
def _draw(board, order, rng, count):
    """Draw up to ``count`` cards (R2: fewer if none are left)."""
    for _ in range(count):
        card = _next_card(board, order, rng)
        if card < 0:
            return
        board[B_HAND] |= np.int64(1) << card


@njit(cache=True, inline="always")
def _won(card, answer, trump):
    """Who wins a debate (§2.3, as :func:`search.game.rulebook.debate_won`)."""
    if card >> 3 == answer >> 3:
        return answer > card
    return answer >> 3 == trump


@njit(cache=True, inline="always")
def _legal(hand, card):
    same = hand & (np.int64(0xFF) << (8 * (card >> 3)))
    return same if same else hand


# --- values from the memos --------------------------------------------------------------------


@njit(cache=True)
def _worth(need, hand, deck, disc, trump, abil, pool, mem, deadline, lone, depth):
    """What a state is worth for ``need`` more wins (``KingdomSolver.worth``), or the kernel's
    negative status."""
    if need < 0 or need >= WIDTH:
        return 0.0
    if hand == 0:
        return 1.0 if need == 0 else 0.0
    if _lone_last_card(hand, abil):
        lone[:] = 0.0
        _fold_last_card(lone, hand, deck, disc, trump, abil, 0)
        return lone[need]
    _, vals, meta, _, _ = _views(mem)
    meta[TOP] = 0
    row = _decide(hand, deck, disc, trump, abil, pool, depth, mem, deadline)
    if row < 0:
        return float(row)
    return vals[row, need]


@njit(cache=True, inline="always")
def _restricted(abil, suits):
    """``abil`` with the counts of the suits outside the suit mask ``suits`` set to 0."""
    keep = 0
    for s in range(4):
        if suits >> s & 1:
            keep |= 15 << (4 * s)
    return abil & keep


@njit(cache=True, inline="always")
def _draws_more(counts):
    """Whether a restriction holds Military or Commerce (the main memo answers for it)."""
    return counts & 0xFF != 0


@njit(cache=True, inline="always")
def _pool_for(counts, pool):
    return pool if counts >> 12 & 15 else 0


@njit(cache=True, inline="always")
def _in_main(hand, deck, disc, trump, counts, pool, main):
    """Whether the roots' memo answers for restriction ``counts`` at a state, else the scratch
    memo: one that draws, since the visit has stayed in its root's tree; one that draws
    nothing where a root's search memoised the state (after Commerce or Politics within ♦♥♠,
    say), its children memoised with it. The values are the same either way (exact), so
    this saves solving again what a root solved, and changes no choice."""
    if _draws_more(counts):
        return True
    if hand == 0 or _lone_last_card(hand, counts):
        return False
    table, _, meta, _, _ = _views(main)
    return _known(hand, deck, disc, trump, counts, _pool_for(counts, pool), table, meta[BITS]) >= 0


@njit(cache=True)
def _family(justification, used, abil, roots, fixed, family):
    """The restrictions valued at a decision (``LookaheadPolicy._family``): the justification,
    each root the visit has stayed within, then ♥♠; without repeats. Their count."""
    family[0] = justification
    n = 1
    if fixed:
        return n
    for r in range(len(roots) + 1):
        suits = roots[r] if r < len(roots) else 0b1100  # ♥♠ last
        if r < len(roots) and used & ~suits:
            continue
        counts = _restricted(abil, suits)
        seen = False
        for k in range(n):
            if family[k] == counts:
                seen = True
        if not seen:
            family[n] = counts
            n += 1
    return n


# --- the policy's decisions -------------------------------------------------------------------
# Each returns its choice and the justification after it, or a negative status in the first
# place and which memo gave it in the second.


@njit(cache=True)
def _choose_option(
    board,
    still,
    justification,
    used,
    roots,
    fixed,
    seed,
    main,
    scratch,
    deadline,
    family,
    acc,
    lone,
    order2,
    depth,
):
    """The option between debates (``LookaheadPolicy._choose``)."""
    hand, deck, disc, trump, abil, pool = (
        board[B_HAND],
        board[B_DECK],
        board[B_DISC],
        board[B_TRUMP],
        board[B_ABIL],
        board[B_POOL],
    )
    n = _family(justification, used, abil, roots, fixed, family)
    best, best_value, best_counts = DEBATE, -1.0, justification
    for f in range(n):
        counts = family[f]
        in_main = _in_main(hand, deck, disc, trump, counts, pool, main)
        mem = main if in_main else scratch
        _, _, meta, _, _ = _views(mem)
        # The state's value under a restriction is the best of its options' (bit for bit: the
        # same sums), one lookup: while it is no better than the best so far, no option left
        # can be chosen, so the costly ones (an expectation over every draw) are not valued.
        ceiling = _worth(
            still,
            hand,
            deck,
            disc,
            trump,
            counts,
            _pool_for(counts, pool),
            mem,
            deadline,
            acc,
            depth,
        )
        if ceiling < 0:
            return np.int64(ceiling), MAIN_MEMO if in_main else SCRATCH_MEMO
        for option in range(COMMERCE + 1):
            if ceiling <= best_value + TIE:
                break
            meta[TOP] = 0
            status = _option_vector(
                option,
                hand,
                deck,
                disc,
                trump,
                counts,
                _pool_for(counts, pool),
                depth,
                mem,
                deadline,
                acc,
            )
            if status == UNUSABLE:
                continue
            if status < 0:
                return status, MAIN_MEMO if in_main else SCRATCH_MEMO
            value = acc[still] if 0 <= still < WIDTH else 0.0
            if value > best_value + TIE:
                best, best_value, best_counts = option, value, counts
    hearts = abil >> 8 & 15
    if (
        not fixed
        and abil & 15
        and best != MILITARY
        and best_value < 1 - 1e-9
        and still > 0
        and hand & 0xFF
        and (deck | disc)
    ):
        pays = _military_pays(
            board, still, hearts << 8, best_value, seed, scratch, deadline, lone, order2, depth
        )
        if pays < 0:
            return pays, SCRATCH_MEMO
        if pays:
            best, best_counts = MILITARY, 1 | hearts << 8
    return best, _spent(best_counts, best)


@njit(cache=True, inline="always")
def _spent(counts, option):
    """``counts`` after taking ``option`` (its ability's count one less)."""
    if option == DEBATE:
        return counts
    if option == DIPLOMACY:
        return counts - (1 << 8)
    if option < MILITARY:
        return counts - (1 << 12)
    if option == MILITARY:
        return counts - 1
    return counts - (1 << 4)


@njit(cache=True, inline="always")
def _military_statistic(known, squares, count, x):
    """The final test's statistic if every draw not yet sampled were worth ``x``."""
    total = MILITARY_STAGES[-1]
    rest = total - count
    mean = (known + rest * x) / total
    spread = max(0.0, squares + rest * x * x - total * mean * mean)
    return mean - MILITARY_MARGIN * np.sqrt(spread / (total - 1) / total)


@njit(cache=True)
def _military_ceiling(values, count):
    """The most the final test's statistic can reach whatever the draws not yet sampled are
    worth (``military_ceiling``)."""
    known = squares = 0.0
    for k in range(count):
        known += values[k]
        squares += values[k] * values[k]
    low, high = 0.0, 1.0
    for _ in range(CEILING_STEPS):
        a = low + (high - low) / 3
        b = high - (high - low) / 3
        if _military_statistic(known, squares, count, a) < _military_statistic(
            known, squares, count, b
        ):
            low = a
        else:
            high = b
    return max(
        _military_statistic(known, squares, count, low),
        _military_statistic(known, squares, count, 1.0),
    )


@njit(cache=True)
def _military_pays(board, still, after, best_value, seed, scratch, deadline, lone, order, depth):
    """1 if Military now, then exact play with ``after``'s abilities, beats ``best_value`` by
    the margin over sampled draws (``LookaheadPolicy._military_pays``), 0 if not, or a
    negative status."""
    hand, deck, disc, trump = board[B_HAND], board[B_DECK], board[B_DISC], board[B_TRUMP]
    h = _u_combine(seed, np.uint64(MILITARY_TAG))
    h = _u_combine(h, hand)
    h = _u_combine(h, deck)
    h = _u_combine(h, disc)
    h = _u_combine(h, trump)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = h
    copy = np.empty(8, dtype=np.int64)
    values = np.empty(16)
    count = 0
    draws = popcount(hand & 0xFF)
    mean = error = 0.0
    stages_end = MILITARY_STAGES[-1]
    for stage in MILITARY_STAGES:
        while count < stage:
            copy[:] = board
            copy[B_LEFT] = _shuffle_deck(deck, rng, order)
            _draw(copy, order, rng, draws)
            # the pool as a variable: a literal 0 would compile a second, uncacheable _decide
            value = _worth(
                still,
                copy[B_HAND],
                copy[B_DECK],
                copy[B_DISC],
                trump,
                after,
                _pool_for(after, board[B_POOL]),
                scratch,
                deadline,
                lone,
                depth,
            )
            if value < 0:
                return np.int64(value)
            values[count] = value
            count += 1
            if count < stages_end and _military_ceiling(values, count) < best_value + TIE - SLACK:
                return 0  # no draws still to sample can make it pay: the same answer, sooner
        total = 0.0
        for k in range(count):
            total += values[k]
        mean = total / count
        spread = 0.0
        for k in range(count):
            spread += (values[k] - mean) ** 2
        error = np.sqrt(spread / (count - 1) / count)
        if mean + MILITARY_MARGIN * max(error, MILITARY_FLOOR) < best_value:
            return 0
    return 1 if mean - MILITARY_MARGIN * error > best_value + TIE else 0


@njit(cache=True)
def _choose_answer(
    board,
    card,
    still,
    justification,
    used,
    roots,
    fixed,
    main,
    scratch,
    deadline,
    family,
    lone,
    depth,
):
    """The answer to the revealed ``card`` (``LookaheadPolicy.answer``)."""
    hand, deck, disc, trump, abil, pool = (
        board[B_HAND],
        board[B_DECK],
        board[B_DISC],
        board[B_TRUMP],
        board[B_ABIL],
        board[B_POOL],
    )
    n = _family(justification, used, abil, roots, fixed, family)
    best, best_value, best_counts = -1, -1.0, justification
    answers = _legal(hand, card)
    while answers:
        answer = lowbit_index(answers)
        answers &= answers - 1
        won = _won(card, answer, trump)
        child_disc = disc | (np.int64(1) << card) | (0 if won else np.int64(1) << answer)
        child_hand = hand & ~(np.int64(1) << answer)
        for f in range(n):
            counts = family[f]
            in_main = _in_main(child_hand, deck, child_disc, trump, counts, pool, main)
            mem = main if in_main else scratch
            value = _worth(
                still - won,
                child_hand,
                deck,
                child_disc,
                trump,
                counts,
                _pool_for(counts, pool),
                mem,
                deadline,
                lone,
                depth,
            )
            if value < 0:
                return np.int64(value), MAIN_MEMO if in_main else SCRATCH_MEMO
            if value > best_value + TIE:
                best, best_value, best_counts = answer, value, counts
    return best, best_counts


@njit(cache=True)
def _pairs(hand, others, reshuffle, pairs):
    """Commerce's two-card discards in the reference's order: every pair where a reshuffle is
    possible (``all_pairs``), else up to equivalence (``discard_pairs``). Their count."""
    n = 0
    if reshuffle:
        a_bits = hand
        while a_bits:
            a = a_bits & -a_bits
            a_bits ^= a
            b_bits = a_bits
            while b_bits:
                b = b_bits & -b_bits
                b_bits ^= b
                pairs[n] = a | b
                n += 1
        return n
    reps = 0
    seconds = 0
    for s in range(4):
        shift = 8 * s
        mine, other = (hand >> shift) & 0xFF, (others >> shift) & 0xFF
        reps |= _firsts(mine, other) << shift
        seconds |= _seconds(mine, other) << shift
    for s in range(4):
        suit = np.int64(0xFF) << (8 * s)
        twos = seconds & suit
        while twos:
            second = twos & -twos
            twos ^= second
            first = second >> 1
            while not first & reps:
                first >>= 1
            pairs[n] = first | second
            n += 1
        a_bits = reps & suit
        while a_bits:
            a = a_bits & -a_bits
            a_bits ^= a
            b_bits = a_bits
            while b_bits:
                b = b_bits & -b_bits
                b_bits ^= b
                pairs[n] = a | b
                n += 1
    for s in range(4):
        for t in range(s + 1, 4):
            a_bits = reps & (np.int64(0xFF) << (8 * s))
            while a_bits:
                a = a_bits & -a_bits
                a_bits ^= a
                b_bits = reps & (np.int64(0xFF) << (8 * t))
                while b_bits:
                    b = b_bits & -b_bits
                    b_bits ^= b
                    pairs[n] = a | b
                    n += 1
    return n


@njit(cache=True)
def _choose_discard(
    board,
    still,
    justification,
    used,
    roots,
    fixed,
    main,
    scratch,
    deadline,
    family,
    lone,
    pairs,
    depth,
):
    """Commerce's two discards (``LookaheadPolicy.discard``; the whole hand if it holds two or
    fewer, R3)."""
    hand, deck, disc, trump, abil, pool = (
        board[B_HAND],
        board[B_DECK],
        board[B_DISC],
        board[B_TRUMP],
        board[B_ABIL],
        board[B_POOL],
    )
    if popcount(hand) <= 2:
        return hand, justification
    n = _family(justification, used, abil, roots, fixed, family)
    reshuffle = False
    for f in range(n):
        if _reshuffle_possible(hand, deck, disc, family[f]):
            reshuffle = True
    count = _pairs(hand, deck | disc, reshuffle, pairs)
    best, best_value, best_counts = -1, -1.0, justification
    for p in range(count):
        pair = pairs[p]
        for f in range(n):
            counts = family[f]
            in_main = _in_main(hand & ~pair, deck, disc | pair, trump, counts, pool, main)
            mem = main if in_main else scratch
            value = _worth(
                still,
                hand & ~pair,
                deck,
                disc | pair,
                trump,
                counts,
                _pool_for(counts, pool),
                mem,
                deadline,
                lone,
                depth,
            )
            if value < 0:
                return np.int64(value), MAIN_MEMO if in_main else SCRATCH_MEMO
            if value > best_value + TIE:
                best, best_value, best_counts = pair, value, counts
    return best, best_counts


# --- a playout --------------------------------------------------------------------------------


@njit(cache=True)
def _use(board, option, order, rng, pair_choice):
    """Use the ability of ``option`` except Commerce's discards (docs/rules.md §4)."""
    if option == DIPLOMACY:
        board[B_ABIL] -= 1 << 8
        trumps = board[B_HAND] & (np.int64(0xFF) << (8 * board[B_TRUMP]))
        board[B_HAND] &= ~trumps
        board[B_DISC] |= trumps
    elif option < MILITARY:
        suit = option - POLITICS
        board[B_ABIL] -= 1 << 12
        board[B_POOL] += (1 << (4 * board[B_TRUMP])) - (1 << (4 * suit))
        board[B_TRUMP] = suit
    elif option == MILITARY:
        board[B_ABIL] -= 1
        _draw(board, order, rng, popcount(board[B_HAND] & 0xFF))
    else:
        board[B_ABIL] -= 1 << 4
        _draw(board, order, rng, 2)


DECISIONS_A_PLAYOUT = 32  # slots of the batch's table of option decisions a playout (about
# 10 decisions a playout: the table is never filled past its load, so a probe ends)


@njit(cache=True, inline="always")
def _decision_slots(count):
    """The slots of a batch's table of option decisions: a power of two, 2**8 to 2**16."""
    slots = 1 << 8
    while slots < DECISIONS_A_PLAYOUT * count and slots < 1 << 16:
        slots <<= 1
    return slots


@njit(cache=True, inline="always")
def _board_rest(board):
    return board[B_TRUMP] | board[B_ABIL] << 2 | board[B_POOL] << 18


@njit(cache=True)
def _recall(decisions, board, tail):
    """The slot of the option decision at ``board`` (``tail``: the wins still needed, the
    justification, the abilities used and whether the policy is fixed) in the batch's table
    of decisions (a power of two slots): where it is kept, or the empty slot where it would go
    (the table is never filled past :data:`LOAD`, so one is found)."""
    rest = _board_rest(board)
    h = _u_combine(np.uint64(board[B_HAND]), board[B_DECK])
    h = _u_combine(h, board[B_DISC])
    h = _u_combine(h, rest)
    h = _u_combine(h, tail)
    mask = decisions.shape[0] - 1
    slot = np.int64(h >> np.uint64(64 - popcount(mask)))
    while decisions[slot, 0] >= 0:
        if (
            decisions[slot, 0] == board[B_HAND]
            and decisions[slot, 1] == board[B_DECK]
            and decisions[slot, 2] == board[B_DISC]
            and decisions[slot, 3] == rest
            and decisions[slot, 4] == tail
        ):
            break
        slot = (slot + 1) & mask
    return slot


@njit(cache=True)
def _play(
    state,
    need,
    waiting,
    forced,
    forced_just,
    start_just,
    roots,
    fixed,
    seed,
    rng,
    main,
    scratch,
    deadline,
    work,
    depth,
):
    """One playout of the policy from ``state`` (``play_lookahead``): its wins, or a negative
    status and which memo gave it. ``waiting``: a revealed card to answer first (-1: none);
    ``forced``: the first decision (an option, or the answer while waiting; -1: none), after
    which the justification is ``forced_just``."""
    board, order, order2, family, acc, lone, pairs, decisions, filled = work
    board[:6] = state
    board[B_WINS] = 0
    board[B_LEFT] = _shuffle_deck(board[B_DECK], rng, order)
    justification = start_just
    used = 0
    if waiting >= 0:
        if forced >= 0:
            answer = forced
            justification = forced_just
        else:
            answer, justification = _choose_answer(
                board,
                waiting,
                need,
                justification,
                used,
                roots,
                fixed,
                main,
                scratch,
                deadline,
                family,
                lone,
                depth,
            )
            if answer < 0:
                return answer, justification
        _answer(board, waiting, answer)
        forced = -1
    while board[B_HAND]:
        still = need - board[B_WINS]
        if forced >= 0:
            option = forced
            forced = -1
            justification = forced_just
        else:
            # what decides the option (the batch's roots and seed aside), as LookaheadPolicy's
            # own cache of decisions keys it
            tail = (still + 64) | justification << 8 | used << 24 | (1 << 28 if fixed else 0)
            slot = _recall(decisions, board, tail)
            if decisions[slot, 0] >= 0:
                option, justification = decisions[slot, 5], decisions[slot, 6]
            else:
                option, justification = _choose_option(
                    board,
                    still,
                    justification,
                    used,
                    roots,
                    fixed,
                    seed,
                    main,
                    scratch,
                    deadline,
                    family,
                    acc,
                    lone,
                    order2,
                    depth,
                )
                if option < 0:
                    return option, justification
                if filled[0] < LOAD * decisions.shape[0]:
                    decisions[slot, 0] = board[B_HAND]
                    decisions[slot, 1] = board[B_DECK]
                    decisions[slot, 2] = board[B_DISC]
                    decisions[slot, 3] = _board_rest(board)
                    decisions[slot, 4] = tail
                    decisions[slot, 5], decisions[slot, 6] = option, justification
                    filled[0] += 1
        if option == DEBATE:
            card = _next_card(board, order, rng)
            if card < 0:
                break  # R2: no debate can be held
            answer, justification = _choose_answer(
                board,
                card,
                still,
                justification,
                used,
                roots,
                fixed,
                main,
                scratch,
                deadline,
                family,
                lone,
                depth,
            )
            if answer < 0:
                return answer, justification
            _answer(board, card, answer)
            continue
        used |= 1 << _suit_of(option)
        _use(board, option, order, rng, 0)
        if option == COMMERCE:
            pair, justification = _choose_discard(
                board,
                still,
                justification,
                used,
                roots,
                fixed,
                main,
                scratch,
                deadline,
                family,
                lone,
                pairs,
                depth,
            )
            if pair < 0:
                return pair, justification
            board[B_HAND] &= ~pair
            board[B_DISC] |= pair
    return board[B_WINS], 0


@njit(cache=True, inline="always")
def _suit_of(option):
    if option == DIPLOMACY:
        return 2
    if option < MILITARY:
        return 3
    if option == MILITARY:
        return 0
    return 1


@njit(cache=True, inline="always")
def _answer(board, card, answer):
    won = _won(card, answer, board[B_TRUMP])
    board[B_HAND] &= ~(np.int64(1) << answer)
    board[B_DISC] |= np.int64(1) << card
    if not won:
        board[B_DISC] |= np.int64(1) << answer
    board[B_WINS] += won


# The int64 array ``ints`` of a batch of playouts: its arguments, then what it returns.
(
    P_WAITING,
    P_FORCED,
    P_POLICY_JUST,
    P_BASE_JUST,
    P_FORCED_JUST,
    P_SEED,
    P_FIRST,
    P_COUNT,
    P_DONE,
    P_STATUS,
    P_WHICH,
    P_ROOTS,
) = range(12)
P_ROOT_SLOTS = 4  # at most this many roots; the wins follow them, then the base's wins


@njit(cache=True)
def _play_batch(hand, deck, disc, trump, abil, pool, need, ints, main, scratch, deadline, depth):
    """Playouts ``first .. first + count - 1`` of the lookahead policy from a state (its roots
    as suit masks, -1 where none), each beside its base (exact play of one restriction) on the
    same deck order, their wins written to ``ints`` (the base is not played where its
    justification is -1), from the first not yet done. ``waiting``: a revealed card to answer
    first (-1: none); ``forced``: the first decision, an option or the answer while waiting
    (-1: none), after which both play from ``forced_just``. Returns the playouts done; when not
    all, the kernel's negative status and which memo gave it are in ``ints`` (the unfinished
    playout is to be played again)."""
    work = (
        np.zeros(8, dtype=np.int64),
        np.zeros(40, dtype=np.int64),
        np.zeros(40, dtype=np.int64),
        np.zeros(MAX_FAMILY, dtype=np.int64),
        np.zeros(WIDTH),
        np.zeros(WIDTH),
        np.zeros(32 * 31 // 2, dtype=np.int64),
        np.full((_decision_slots(ints[P_COUNT]), 7), -1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
    )
    state = np.array([hand, deck, disc, trump, abil, pool], dtype=np.int64)
    n_roots = 0
    while n_roots < P_ROOT_SLOTS and ints[P_ROOTS + n_roots] >= 0:
        n_roots += 1
    roots = ints[P_ROOTS : P_ROOTS + n_roots]
    waiting, forced, forced_just = ints[P_WAITING], ints[P_FORCED], ints[P_FORCED_JUST]
    policy_just, base_just = ints[P_POLICY_JUST], ints[P_BASE_JUST]
    seed = np.uint64(ints[P_SEED])
    first, count = ints[P_FIRST], ints[P_COUNT]
    wins = P_ROOTS + P_ROOT_SLOTS
    rng = np.empty(1, dtype=np.uint64)
    ints[P_STATUS] = 0
    for i in range(ints[P_DONE], count):
        rng[0] = _u_combine(seed, first + i)
        made, which = _play(
            state,
            need,
            waiting,
            forced,
            forced_just,
            policy_just,
            roots,
            False,
            seed,
            rng,
            main,
            scratch,
            deadline,
            work,
            depth,
        )
        if made >= 0 and base_just >= 0:
            ints[wins + i] = made
            rng[0] = _u_combine(seed, first + i)
            made, which = _play(
                state,
                need,
                waiting,
                forced,
                forced_just,
                base_just,
                roots,
                True,
                seed,
                rng,
                main,
                scratch,
                deadline,
                work,
                depth,
            )
            if made >= 0:
                ints[wins + count + i] = made
        elif made >= 0:
            ints[wins + i] = made
        if made < 0:
            ints[P_STATUS], ints[P_WHICH] = made, which
            return i
        ints[P_DONE] = i + 1
    return count


ENTRY_POINTS = (_enter,)
"""The compiled functions Python calls into: numba caches each with the helpers it calls
(:func:`search.infra.jitcache.needs_compile`)."""
