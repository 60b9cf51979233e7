"""Exact chance of a kingdom: expectimax over one visit with memoisation (docs/rules.md §7).

The solver decides which card answers each ruler card and, before the first
debate and between any two, whether to use an ability and how; chance turns
the unseen cards up in a uniformly random order, refilling the deck from the
discard pile per R1/R2. It returns the probability of ending the visit with
exactly the target.

Three savings make it fast, each can be switched off for comparison:

- *Canonical keys* (``canonical``): a state is keyed by each suit's
  interleaving of hand and deck cards (see :mod:`search.visit.suitpatterns`), suits
  of equal role sorted (suit symmetry); the discard pile enters the key only
  when the deck could still run out.
- *Target vectors* (``vectorise``): a state's value is the vector over
  "wins still needed" 0..8 with componentwise maxima, so one solve serves
  every kingdom with that trump.
- *Equivalent choices*: adjacent cards of one pile are one choice.

Values are floats, or exact ``Fraction`` with ``exact=True``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb

from ..game import (
    COMMERCE_DRAWS,
    Suit,
    beaten_count,
    card_available,
    commerce_discard_count,
    debate_won,
    diplomacy_usable,
    legal_answer_mask,
    military_draws,
    military_usable,
    politics_usable,
    refill,
)
from ..infra import MemoryLimitExceeded, TimeLimitExceeded, memory_limit, reserved_memory
from .suitpatterns import (
    bits_of,
    draw_combinations,
    hand_run_pairs,
    hand_runs,
    reveal_classes,
    signature,
    signature_table,
)

TIE = 1e-12
"""Float values this close are ties for the policies (see ``KingdomSolver.tie``)."""
MAX_NEED = 8
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
BYTE = 0xFF
FULL = (1 << 32) - 1
SUIT_MASKS = tuple(BYTE << (8 * s) for s in range(4))
# What a memoised state costs in Python objects (key tuple, value tuple, dict slot),
# as an estimate (not measured): floats, and exact fractions.
STATE_BYTES = 600
STATE_BYTES_EXACT = 1500


@dataclass(frozen=True)
class Abilities:
    """How many uses of each suit's ability are left (Jacks plus supporters), and the
    suits Politics may bring (the other unvisited rulers)."""

    counts: tuple[int, int, int, int] = (0, 0, 0, 0)  # ♣ ♦ ♥ ♠
    pool: tuple[int, ...] = ()

    @classmethod
    def of(cls, jacks: str | set = "", supporters: list | tuple = (), pool=()) -> Abilities:
        """Counts from Jack suits and supporter suits (Suit values or letters)."""
        counts = [0, 0, 0, 0]
        for suit in list(jacks) + list(supporters):
            counts[_suit_index(suit)] += 1
        return cls(tuple(counts), tuple(sorted(_suit_index(s) for s in pool)))


def _suit_index(suit) -> int:
    if isinstance(suit, str):
        return Suit.from_letter(suit).value
    return int(suit)


@dataclass
class SolverStats:
    """Work done by a solver: memo entries and node expansions."""

    states: int = 0
    expansions: int = 0


class KingdomSolver:
    """Expectimax over one visit; owns its memo so repeated queries share work. Past its
    ``deadline`` (a ``time.perf_counter()`` reading, set for a block by
    :func:`search.visit.budget.clock_stops`) a search raises TimeLimitExceeded."""

    deadline: float | None = None

    def __init__(
        self,
        *,
        exact: bool = False,
        canonical: bool = True,
        vectorise: bool = True,
    ) -> None:
        self.exact = exact
        self.canonical = canonical
        self.vectorise = vectorise
        self.scratch: KingdomSolver | None = None  # quick restrictions' solver beside this one
        self.known_roots: dict = {}  # (state, waiting) -> the restrictions solved for it
        self.one = Fraction(1) if exact else 1.0
        self.zero = Fraction(0) if exact else 0.0
        self.memo: dict = {}
        self.dist_memo: dict = {}
        # policies break ties to the first option or choice; with floats, values within
        # rounding of each other are ties (the compiled kernel sums some in another order)
        self.tie = 0 if exact else TIE
        self.signatures = signature_table()
        self.stats = SolverStats()

    def reset(self) -> None:
        """Forget every memoised state (after MemoryLimitExceeded)."""
        self.memo.clear()
        self.dist_memo.clear()

    def state_count(self) -> int:
        """How many states the memo holds."""
        return len(self.memo)

    # --- value vectors ------------------------------------------------------------

    def terminal_value(self, need: int | None, abil=None) -> tuple:
        """The value of an ended visit (``abil``: the abilities left; payoffs may use it)."""
        if need is None:
            return (self.one,) + (self.zero,) * MAX_NEED
        return (self.one if need == 0 else self.zero,)

    def child_value(self, won: bool, hand, deck, disc, trump, abil, pool, need):
        """Value of a successor DECIDE node, shifted by a win."""
        if need is None:
            value = self.decide(hand, deck, disc, trump, abil, pool, None)
            return (self.zero,) + value[:-1] if won else value
        need -= won
        if need < 0:
            return self.overshot_value(abil)
        return self.decide(hand, deck, disc, trump, abil, pool, need)

    def overshot_value(self, abil) -> tuple:
        """The value once more debates are won than needed: the visit has failed."""
        return (self.zero,)

    # --- keys -----------------------------------------------------------------------

    def last_card_value(self, hand, deck, disc, trump, abil, need):
        """One card left and no ability that draws or swaps: the chance it wins is the share
        of unseen cards it beats; Diplomacy may instead throw a last trump away."""
        if not card_available(deck, disc):
            return self.terminal_value(need, abil)  # R2: no debate can be held
        deck, disc = refill(deck, disc)  # R1
        beaten = beaten_count(hand, deck, trump)
        size = deck.bit_count()
        win = Fraction(beaten, size) if self.exact else beaten / size
        lose = self.one - win
        if abil[HEARTS] and diplomacy_usable(hand, trump):
            lose = self.one  # Diplomacy discards the trump: the visit ends with no more wins
        if need is None:
            return (lose, win) + (self.zero,) * (MAX_NEED - 1)
        return ((lose, win)[need] if need <= 1 else self.zero,)

    def reshuffle_possible(self, hand, deck, disc, abil) -> bool:
        """Whether the deck can run out before the visit ends (R1): then discarded cards come
        back, so the discard pile matters and played cards are no longer interchangeable.

        The deck must supply a card per debate and per draw. Commerce draws 2 and discards 2
        (debates unchanged); each Military use draws at most the clubs then in hand, which
        are bounded by the clubs held, drawn before, or still in play.
        """
        clubs_in_play = ((hand | deck | disc) & SUIT_MASKS[CLUBS]).bit_count()
        reachable = (hand & SUIT_MASKS[CLUBS]).bit_count() + 2 * abil[DIAMONDS]
        military_draws = 0
        for _ in range(abil[CLUBS]):
            military_draws += min(clubs_in_play, reachable + military_draws)
        needed = hand.bit_count() + 2 * military_draws + 2 * abil[DIAMONDS]
        return needed > deck.bit_count()

    def _key(self, hand, deck, disc, trump, abil, pool, need):
        """The memo key: what decides the rest of the visit, and nothing else.

        Each suit enters as its interleaving signature; suits of equal role are sorted.
        Once no ability can change which suits the hand holds or which suit is trump
        (no Military, Commerce or Politics left), a suit the hand is void in matters only
        by how many of its cards are unseen (they lose to any answer but a trump), so such
        suits are pooled; so is the trump suit while the hand holds no trump, since
        nothing then wins against a void.
        """
        if not self.canonical:
            return (hand, deck, disc, trump, abil, pool, need)
        if not (abil[CLUBS] or abil[DIAMONDS] or abil[SPADES]):
            return self._plain_key(hand, deck, disc, trump, abil, need)
        military = abil[CLUBS] > 0
        politics = abil[SPADES] > 0
        sigs = []
        trump_sig = 0
        for s in range(4):
            shift = 8 * s
            sig = signature((hand >> shift) & BYTE, (deck >> shift) & BYTE, (disc >> shift) & BYTE)
            role = (military and s == CLUBS, pool.count(s) if politics else 0)
            if s == trump:
                trump_sig = (role, sig)
            else:
                sigs.append((role, sig))
        sigs.sort()
        return (trump_sig, tuple(sigs), abil, need)

    def _plain_key(self, hand, deck, disc, trump, abil, need):
        if not disc:
            return self._plainest_key(hand, deck, trump, abil, need)
        holds_trump = bool(hand & SUIT_MASKS[trump])
        void_deck = void_disc = 0
        sigs = []
        trump_sig = 0
        for s in range(4):
            shift = 8 * s
            hand_byte = (hand >> shift) & BYTE
            deck_byte = (deck >> shift) & BYTE
            disc_byte = (disc >> shift) & BYTE
            if not hand_byte and (s != trump or not holds_trump):
                void_deck += deck_byte.bit_count()
                void_disc += disc_byte.bit_count()
                continue
            sig = signature(hand_byte, deck_byte, disc_byte)
            if s == trump:
                trump_sig = sig
            else:
                sigs.append(sig)
        sigs.sort()
        return (trump_sig, tuple(sigs), void_deck, void_disc, abil[HEARTS], need)

    def _plainest_key(self, hand, deck, trump, abil, need):
        """:meth:`_plain_key` without a discard pile, from the precomputed table."""
        table = self.signatures
        void = 0
        sigs = []
        trump_sig = 0
        holds_trump = hand & SUIT_MASKS[trump]
        for s in range(4):
            shift = 8 * s
            hand_byte = (hand >> shift) & BYTE
            deck_byte = (deck >> shift) & BYTE
            if not hand_byte and (s != trump or not holds_trump):
                void += deck_byte.bit_count()
            elif s == trump:
                trump_sig = table[hand_byte << 8 | deck_byte]
            else:
                sigs.append(table[hand_byte << 8 | deck_byte])
        sigs.sort()
        return (trump_sig, *sigs, void, abil[HEARTS], need)

    # --- the game tree ----------------------------------------------------------------

    def decide(self, hand, deck, disc, trump, abil, pool, need=None):
        """Value of a DECIDE node: the best option, each an expectation over chance of the
        best choice."""
        if not hand:
            return self.terminal_value(need, abil)
        if not (abil[CLUBS] or abil[DIAMONDS] or abil[SPADES]) and not hand & (hand - 1):
            return self.last_card_value(hand, deck, disc, trump, abil, need)
        if disc and not self.reshuffle_possible(hand, deck, disc, abil):
            disc = 0
        if not abil[SPADES]:
            pool = ()
        key = self._key(hand, deck, disc, trump, abil, pool, need)
        memo = self.memo
        value = memo.get(key)
        if value is not None:
            return value
        self.stats.expansions += 1
        if self.stats.expansions % 256 == 0:
            self._check_budget()
        best = None
        for _, outcomes in self.options(hand, deck, disc, trump, abil, pool):
            value = self.option_value(outcomes, need)
            best = value if best is None else tuple(map(max, best, value))
        memo[key] = best
        return best

    def _check_budget(self) -> None:
        """Raise past the deadline, or once the memos would pass the memory cap (their
        Python objects are counted at an estimate a state)."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise TimeLimitExceeded
        size = (len(self.memo) + len(self.dist_memo)) * (
            STATE_BYTES_EXACT if self.exact else STATE_BYTES
        )
        if size > memory_limit() - reserved_memory():
            raise MemoryLimitExceeded(f"the reference memo would pass {memory_limit() >> 20} MiB")

    def distribution(self, hand, deck, disc, trump, abil, pool, need):
        """P(j more wins) for j = 0, 1, … under the policy that is optimal for ``need`` more
        wins (ties go to the first option listed by :meth:`options`)."""
        if not hand:
            return (self.one,)
        if disc and not self.reshuffle_possible(hand, deck, disc, abil):
            disc = 0
        if not abil[SPADES]:
            pool = ()
        key = (self._key(hand, deck, disc, trump, abil, pool, None), need)
        cached = self.dist_memo.get(key)
        if cached is not None:
            return cached
        if len(self.dist_memo) % 256 == 255:
            self._check_budget()
        chosen, best = None, None
        for _, outcomes in self.options(hand, deck, disc, trump, abil, pool):
            score = self.component(self.option_value(outcomes, None), need)
            if best is None or score > best + self.tie:
                chosen, best = outcomes, score
        total: list = []
        for weight, choices in chosen:
            won, state = self.best_choice(choices, need)
            part = self.distribution(*state, need - won)
            if won:
                part = (self.zero,) + part
            if len(total) < len(part):
                total.extend([self.zero] * (len(part) - len(total)))
            for j, p in enumerate(part):
                total[j] += weight * p
        result = tuple(total)
        self.dist_memo[key] = result
        return result

    def best_choice(self, choices, need):
        """The choice ``(won, state)`` with the highest chance of ``need`` more wins."""
        best_choice, best = None, None
        for won, state in choices:
            score = self.component(self.decide(*state), need - won)
            if best is None or score > best + self.tie:
                best_choice, best = (won, state), score
        return best_choice

    def component(self, vector, need):
        """The entry of a value vector for ``need`` more wins (0 past its end or below 0)."""
        return vector[need] if 0 <= need < len(vector) else self.zero

    def worth(self, need, hand, deck, disc, trump, abil, pool):
        """What a DECIDE node is worth for ``need`` more wins (below 0: the target is
        overshot), the one question the policy helpers of :mod:`search.visit.estimate` ask."""
        return self.component(self.decide(hand, deck, disc, trump, abil, pool), need)

    def option_worth(self, outcomes, need):
        """What an option is worth for ``need`` more wins."""
        return self.component(self.option_value(outcomes, None), need)

    def option_value(self, outcomes, need):
        """Expectation over ``outcomes`` of the best choice in each."""
        acc = None
        child = self.child_value
        for weight, choices in outcomes:
            if len(choices) == 1:
                won, state = choices[0]
                best = child(won, *state, need)
            else:
                best = tuple(map(max, *(child(won, *state, need) for won, state in choices)))
            if acc is None:
                acc = [weight * v for v in best]
            else:
                acc = [a + weight * v for a, v in zip(acc, best)]
        return tuple(acc)

    def option_worths(self, need, hand, deck, disc, trump, abil, pool) -> list[tuple]:
        """Every option at a DECIDE node as ``(label, what it is worth for need more wins)``,
        in the order of :meth:`options` (the policy helpers of :mod:`search.visit.estimate`)."""
        return [
            (label, self.option_worth(outcomes, need))
            for label, outcomes in self.options(hand, deck, disc, trump, abil, pool)
        ]

    def option_values(self, hand, deck, disc, trump, abil, pool, kinds=None):
        """Every option at a DECIDE node as ``(label, value vector)``, in the order of
        :meth:`options` (with ``kinds``, only options whose label starts with one of them)."""
        if disc and not self.reshuffle_possible(hand, deck, disc, abil):
            disc = 0
        if not abil[SPADES]:
            pool = ()
        return [
            (label, self.option_value(outcomes, None))
            for label, outcomes in self.options(hand, deck, disc, trump, abil, pool)
            if kinds is None or label[0] in kinds
        ]

    def option_labels(self, hand, deck, disc, trump, abil, pool) -> list[tuple]:
        """The options open at a DECIDE node, in order: ``("debate",)``, ``("H",)``,
        ``("S", new trump)`` for each pooled suit, ``("C",)``, ``("D",)``."""
        labels = [("debate",)]
        if abil[HEARTS] and diplomacy_usable(hand, trump):
            labels.append(("H",))
        if abil[SPADES]:
            labels.extend(("S", suit) for suit in sorted(set(pool)) if politics_usable(suit, trump))
        if abil[CLUBS] and military_usable(hand, deck, disc):
            labels.append(("C",))
        if abil[DIAMONDS]:
            labels.append(("D",))
        return labels

    def options(self, hand, deck, disc, trump, abil, pool):
        """Every option at a DECIDE node as ``(label, outcomes)`` (labels as
        :meth:`option_labels`); outcomes are ``(probability, choices)`` and choices
        ``(won, successor state)``."""
        merge = not self.reshuffle_possible(hand, deck, disc, abil)
        # Once the deck cannot run out it never can again, so successors forget the discards.
        keep = 0 if merge else FULL
        disc &= keep
        result = []
        for label in self.option_labels(hand, deck, disc, trump, abil, pool):
            kind = label[0]
            if kind == "debate":
                outcomes = self.debate_outcomes(hand, deck, disc, trump, abil, pool, merge)
            elif kind == "H":
                trumps = hand & SUIT_MASKS[trump]
                state = (
                    hand & ~trumps,
                    deck,
                    (disc | trumps) & keep,
                    trump,
                    _less(abil, HEARTS),
                    pool,
                )
                outcomes = [(self.one, [(False, state)])]
            elif kind == "S":
                suit = label[1]
                new_pool = list(pool)
                new_pool.remove(suit)
                new_pool = tuple(sorted(new_pool + [trump]))
                state = (hand, deck, disc, suit, _less(abil, SPADES), new_pool)
                outcomes = [(self.one, [(False, state)])]
            elif kind == "C":
                rest = _less(abil, CLUBS)
                outcomes = [
                    (w, [(False, (h, d, x, trump, rest, pool))])
                    for w, h, d, x in self.draws(hand, deck, disc, military_draws(hand))
                ]
            else:
                outcomes = self._commerce_outcomes(
                    hand, deck, disc, trump, _less(abil, DIAMONDS), pool, merge, keep
                )
            result.append((label, outcomes))
        return result

    def _commerce_outcomes(self, hand, deck, disc, trump, rest, pool, merge, keep):
        """Commerce: each draw of two, with every two-card discard after it (R3)."""
        outcomes = []
        for w, h, d, x in self.draws(hand, deck, disc, COMMERCE_DRAWS):
            if commerce_discard_count(h.bit_count()) == h.bit_count():  # R3: the whole hand
                choices = [(False, (0, d, (x | h) & keep, trump, rest, pool))]
            else:
                choices = [
                    (False, (h & ~pair, d, (x | pair) & keep, trump, rest, pool))
                    for pair in (discard_pairs(h, d | x) if merge else all_pairs(h))
                ]
            outcomes.append((w, choices))
        return outcomes

    def draws(self, hand, deck, disc, count):
        """Outcomes of drawing ``count`` cards: (probability, hand, deck, discard); R1
        refills an empty deck from the discard pile, R2 stops the draws."""
        size = deck.bit_count()
        if count > size:
            hand, deck, disc, count = hand | deck, disc, 0, count - size
            size = deck.bit_count()
            if size == 0:
                return [(self.one, hand, deck, disc)]
            count = min(count, size)
        total = comb(size, count)
        outcomes = []
        for drawn, ways in draw_combinations(hand, deck, disc, count):
            weight = Fraction(ways, total) if self.exact else ways / total
            outcomes.append((weight, hand | drawn, deck & ~drawn, disc))
        return outcomes

    def debate_outcomes(self, hand, deck, disc, trump, abil, pool, merge=True):
        """The next debate: each class of revealed card with its answers; ``merge`` groups
        interchangeable cards (never when played cards may come back, R1)."""
        if not card_available(deck, disc):  # R2: no card to reveal, the visit ends as it stands
            return [(self.one, [(False, (0, 0, 0, trump, abil, pool))])]
        deck, disc = refill(deck, disc)  # R1
        size = deck.bit_count()
        outcomes = []
        if merge:
            classes = self.reveals(hand, deck, trump)
        else:
            classes = _single_reveals(hand, deck, trump)
        for card, count, answers in classes:
            weight = Fraction(count, size) if self.exact else count / size
            deck2 = deck & ~card
            if merge:  # the discard pile no longer matters (see options)
                choices = [
                    (won, (hand & ~answer, deck2, 0, trump, abil, pool)) for answer, won in answers
                ]
            else:
                choices = [
                    (
                        won,
                        (
                            hand & ~answer,
                            deck2,
                            disc | card | (0 if won else answer),
                            trump,
                            abil,
                            pool,
                        ),
                    )
                    for answer, won in answers
                ]
            outcomes.append((weight, choices))
        return outcomes

    def reveals(self, hand, deck, trump):
        """Classes of revealed cards: (card bit, how many deck cards alike, [(answer bit,
        wins)])."""
        out = []
        for s in range(4):
            shift = 8 * s
            deck_byte = (deck >> shift) & BYTE
            if not deck_byte:
                continue
            hand_byte = (hand >> shift) & BYTE
            if hand_byte:  # must follow suit: higher wins, lower loses
                for low, count, above, below in reveal_classes(hand_byte, deck_byte):
                    answers = [(a << shift, True) for a in above]
                    answers.extend((b << shift, False) for b in below)
                    out.append((low << shift, count, answers))
            else:  # void: a trump wins on a non-trump card, anything else loses
                answers = void_answers(hand, deck, trump, s)
                for low, count, _, _ in reveal_classes(0, deck_byte):
                    out.append((low << shift, count, answers))
        return out


def void_answers(hand, deck, trump, revealed_suit):
    """Answers when void in the revealed suit: one per run of equivalent hand cards."""
    answers = []
    for t in range(4):
        shift = 8 * t
        hand_byte = (hand >> shift) & BYTE
        if not hand_byte:
            continue
        won = debate_won(8 * revealed_suit, 8 * t, trump)  # t differs from the revealed suit
        others = (deck >> shift) & BYTE
        answers.extend((r << shift, won) for r in hand_runs(hand_byte, others))
    return answers


def discard_pairs(hand, others):
    """Two-card discards up to equivalence: within one suit, or one run from each of two."""
    pairs = []
    reps = []
    for s in range(4):
        shift = 8 * s
        hand_byte = (hand >> shift) & BYTE
        if not hand_byte:
            continue
        other_byte = (others >> shift) & BYTE
        pairs.extend(p << shift for p in hand_run_pairs(hand_byte, other_byte))
        reps.append([r << shift for r in hand_runs(hand_byte, other_byte)])
    for a, b in combinations(range(len(reps)), 2):
        pairs.extend(x | y for x in reps[a] for y in reps[b])
    return pairs


def _single_reveals(hand, deck, trump):
    """Every revealed card with every legal answer, nothing grouped."""
    out = []
    for card in bits_of(deck):
        index = card.bit_length() - 1
        legal = legal_answer_mask(hand, index)
        answers = [(a, debate_won(index, a.bit_length() - 1, trump)) for a in bits_of(legal)]
        out.append((card, 1, answers))
    return out


def all_pairs(hand):
    """Every two-card subset of ``hand`` (a mask each): Commerce's discards, none merged."""
    return [a | b for a, b in combinations(bits_of(hand), 2)]


def _less(abil, suit):
    counts = list(abil)
    counts[suit] -= 1
    return tuple(counts)
