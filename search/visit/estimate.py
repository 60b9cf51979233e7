"""Monte Carlo estimates of a kingdom's chance, and playouts of a solver's own policy.

Used when the exact search runs out of its time budget: the estimate is the
success rate of a *fallback policy* over seeded random deck orders, with a 95%
Wilson interval. The fallback plays exactly (by the solver's values) with
Diplomacy and Politics, and uses the drawing abilities by rule:

- Military when more wins are needed than cards remain in hand;
- Commerce before the first debate when the exact chance without drawing
  abilities is below one half, discarding the pair that leaves the best exact
  chance.

Since the fallback is one particular policy, its success rate never exceeds the
optimal chance: the estimate is conservative.
"""

from __future__ import annotations

import time

from ..game import (
    SUIT_MASK,
    Stream,
    card_available,
    debate_won,
    iter_bits,
    legal_answer_mask,
    military_draws,
    military_usable,
    refill,
)
from ..infra import wilson_interval
from .position import KingdomResult, root_state
from .reference import CLUBS, DIAMONDS, HEARTS, SPADES, KingdomSolver, all_pairs, discard_pairs
from .solvers import make_solver

MIN_PLAYOUTS = 200


def _suit(mask: int, suit: int) -> int:
    return mask & (SUIT_MASK << (8 * suit))


class Playout:
    """One visit played to its end on card masks, cards turning up from a seeded stream."""

    def __init__(self, state: tuple, stream: Stream) -> None:
        self.hand, self.deck, self.disc, self.trump, abil, pool = state
        self.abil = list(abil)
        self.pool = list(pool)
        self.stream = stream
        self.order = stream.shuffle(list(iter_bits(self.deck)))
        self.wins = 0

    def next_card(self) -> int | None:
        """The deck's top card (index), refilling from the discard pile per R1; None per R2."""
        if not card_available(self.deck, self.disc):
            return None  # R2
        if not self.deck:
            self.deck, self.disc = refill(self.deck, self.disc)  # R1
            self.order = self.stream.shuffle(list(iter_bits(self.deck)))
        card = self.order.pop()
        self.deck &= ~(1 << card)
        return card

    def draw(self, count: int) -> None:
        """Draw up to ``count`` cards into the hand (R2: fewer if none are left)."""
        for _ in range(count):
            card = self.next_card()
            if card is None:
                return
            self.hand |= 1 << card

    def state(self) -> tuple:
        """The solver's view of the current state."""
        pool = tuple(sorted(self.pool)) if self.abil[SPADES] else ()
        return (self.hand, self.deck, self.disc, self.trump, tuple(self.abil), pool)

    def answer(self, card: int, answer: int) -> None:
        """Answer the revealed ``card`` with the hand's card ``answer`` (indices)."""
        won = debate_won(card, answer, self.trump)
        self.hand &= ~(1 << answer)
        self.disc |= 1 << card
        if not won:
            self.disc |= 1 << answer
        self.wins += won


def play_policy(
    solver: KingdomSolver,
    state: tuple,
    need: int,
    stream: Stream,
    waiting: int | None = None,
    fallback: bool = True,
    forced: tuple | None = None,
) -> int:
    """Play one visit to its end; returns the wins made.

    With ``fallback`` the drawing abilities follow the rules in the module
    docstring; without it every decision is the solver's optimal one, so the
    playouts sample the very policy whose value the solver reports. ``forced``
    is the first decision, made whatever the policy says: an option label of
    ``KingdomSolver.options`` or, while ``waiting``, ``("answer", card index)``.
    """
    game = Playout(state, stream)
    first = True
    if waiting is not None:
        answer = forced[1] if forced else None
        if answer is None:
            answer = best_answer(solver, game.state(), waiting, need, fallback)
        game.answer(waiting, answer)
        first, forced = False, None
    while game.hand:
        still = need - game.wins
        if forced is not None:
            label, forced = forced, None
        else:
            label = choose_option(solver, game.state(), still, first, fallback)
        first = False
        kind = label[0]
        if kind == "debate":
            card = game.next_card()
            if card is None:
                break  # R2: no debate can be held
            game.answer(card, best_answer(solver, game.state(), card, still, fallback))
            continue
        game.abil["CDHS".index(kind)] -= 1
        if kind == "H":
            trumps = _suit(game.hand, game.trump)
            game.hand &= ~trumps
            game.disc |= trumps
        elif kind == "S":
            game.pool.remove(label[1])
            game.pool.append(game.trump)
            game.trump = label[1]
        elif kind == "C":
            game.draw(military_draws(game.hand))
        else:
            game.draw(2)
            pair = best_discard(solver, game.state(), still, fallback)
            game.hand &= ~pair
            game.disc |= pair
    return game.wins


def planning_state(state: tuple, fallback: bool = True) -> tuple:
    """The state the solver plans with: every ability left, or with ``fallback`` none that
    draws (those follow the rules of the module docstring)."""
    hand, deck, disc, trump, abil, pool = state
    if fallback:
        abil = (0, 0, abil[HEARTS], abil[SPADES])
    return (hand, deck, disc, trump, abil, pool if abil[SPADES] else ())


def choose_option(solver: KingdomSolver, state: tuple, still: int, first: bool, fallback: bool = True) -> tuple:
    """The policy's option at a decision (a label of ``KingdomSolver.options``), ``still``
    wins wanted; ``first``: no debate held yet this visit."""
    hand, deck, disc, trump, abil, pool = state
    if fallback and abil[CLUBS] and military_usable(hand, deck, disc) and still > hand.bit_count():
        return ("C",)
    plan = planning_state(state, fallback)
    if fallback and first and abil[DIAMONDS] and 0 <= still <= 8:
        if solver.worth(still, *plan) < 0.5:
            return ("D",)
    label, best_value = None, None
    for option, outcomes in solver.options(*plan):
        value = solver.option_worth(outcomes, still)
        if best_value is None or value > best_value:
            label, best_value = option, value
    return label


def best_answer(solver: KingdomSolver, state: tuple, card: int, still: int, fallback: bool = True) -> int:
    """The legal answer (a card index) to the revealed ``card`` best for ``still`` wins."""
    hand, deck, disc, trump, abil, pool = planning_state(state, fallback)
    legal = legal_answer_mask(hand, card)
    best, best_value = None, None
    for answer in iter_bits(legal):
        won = debate_won(card, answer, trump)
        rest = hand & ~(1 << answer)
        spent = disc | (1 << card) | (0 if won else 1 << answer)
        value = solver.worth(still - won, rest, deck, spent, trump, abil, pool)
        if best_value is None or value > best_value:
            best, best_value = answer, value
    return best


def best_discard(solver: KingdomSolver, state: tuple, still: int, fallback: bool = True) -> int:
    """Commerce's two discards (a mask; the whole hand if it holds two or fewer) best for
    ``still`` wins."""
    hand, deck, disc, trump, abil, pool = planning_state(state, fallback)
    if hand.bit_count() <= 2:
        return hand
    if solver.reshuffle_possible(hand, deck, disc, abil):
        pairs = all_pairs(hand)
    else:  # played cards never come back: one pair per class of equivalent pairs
        pairs = discard_pairs(hand, deck | disc)
    best, best_value = None, None
    for pair in pairs:
        value = solver.worth(still, hand & ~pair, deck, disc | pair, trump, abil, pool)
        if best_value is None or value > best_value:
            best, best_value = pair, value
    return best


def estimate_kingdom(
    position,
    seconds: float | None,
    started: float,
    seed: int = 0,
    solver: KingdomSolver | None = None,
    min_playouts: int = MIN_PLAYOUTS,
    forced: tuple | None = None,
):
    """Monte Carlo estimate of ``position``'s chance with the fallback policy: runs for about
    ``seconds`` more (at least ``min_playouts`` playouts). ``solver`` plans the fallback's
    choices; pass one to share its memo between estimates. ``forced``: the first decision
    (see :func:`play_policy`); playout i sees the same cards whatever it is, so estimates of
    different first decisions compare with common random numbers."""
    solver = solver or make_solver()
    state = root_state(position)
    waiting = position.waiting.index if position.waiting is not None else None
    budget_end = time.perf_counter() + (1.0 if seconds is None else seconds)
    wins: list[int] = []
    while len(wins) < min_playouts or time.perf_counter() < budget_end:
        stream = Stream(seed, "playout", len(wins))
        wins.append(position.wins + play_policy(solver, state, position.need, stream, waiting, forced=forced))
    return estimate_from_wins(position, wins, started, solver.state_count())


def estimate_from_wins(position, wins: list[int], started: float, states: int = 0):
    """The estimate (a KingdomResult) from the final wins of a list of playouts."""
    histogram: dict[int, int] = {}
    for total in wins:
        histogram[total] = histogram.get(total, 0) + 1
    playouts = len(wins)
    successes = histogram.get(position.target, 0)
    distribution = tuple(histogram.get(j, 0) / playouts for j in range(max(histogram) + 1))
    return KingdomResult(
        chance=successes / playouts,
        chance_exact=None,
        needs=(),
        best=None,
        options=(),
        distribution=distribution,
        states=states,
        seconds=time.perf_counter() - started,
        estimate=True,
        interval=wilson_interval(successes, playouts),
        playouts=playouts,
    )

