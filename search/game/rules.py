"""The rules of one visit (docs/rules.md §2–4) as pure functions on immutable states.

A visit moves through phases. In ``DECIDE`` the player may use an ability or
call the next debate; ``REVEAL`` and ``DRAW`` are chance events (the deck's top
card turns up); in ``ANSWER`` the ruler's card waits for a legal answer; in
``DISCARD`` Commerce's two discards are chosen; ``OVER`` ends the visit.

Two doors lead in, as in python-chess: :func:`apply_action` and
:func:`apply_chance` validate and raise :class:`IllegalActionError`;
:func:`apply_action_unchecked` and :func:`apply_chance_unchecked` trust the
caller (search and simulation generate only legal moves).

Rulings implemented here: R1 (refill the deck from the discard pile when a card
is needed), R2 (nothing left to reveal ends the visit; nothing left to draw
draws nothing), R3 (Commerce draws what it can, then discards 2 or the whole
hand), R4 (the published-rules option accepts abilities that do nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from itertools import combinations

from .cards import Card, CardSet, Ruler, Suit


class IllegalActionError(ValueError):
    """An action or chance outcome that the rules do not allow in this state."""


class Phase(Enum):
    """Where a visit stands."""

    DECIDE = "decide"  # between debates: use an ability or debate
    REVEAL = "reveal"  # chance: the ruler turns the deck's top card
    ANSWER = "answer"  # the ruler's card waits for an answer
    DRAW = "draw"  # chance: an ability draws the deck's top card
    DISCARD = "discard"  # Commerce: choose the cards to discard
    OVER = "over"


# --- actions -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Debate:
    """Hold the next debate: the ruler reveals the deck's top card."""

    def __str__(self) -> str:
        return "debate"


@dataclass(frozen=True, slots=True)
class Answer:
    """Answer the waiting ruler card with ``card`` from the hand."""

    card: Card

    def __str__(self) -> str:
        return f"answer {self.card.ascii()}"


@dataclass(frozen=True, slots=True)
class UseAbility:
    """Turn a Jack (``source`` None) or a supporter face down to use its suit's ability.

    ``target`` is the kingdom position Politics swaps with (None for other
    abilities, and for a Politics that does nothing under R4).
    """

    suit: Suit
    source: Ruler | None = None
    target: int | None = None

    def __str__(self) -> str:
        who = f"supporter {self.source.ascii()}" if self.source else f"J{self.suit.letter}"
        where = f" -> kingdom {self.target}" if self.target is not None else ""
        return f"{self.suit.ability} ({who}){where}"


@dataclass(frozen=True, slots=True)
class Discard:
    """Commerce's discards: exactly ``min(2, hand size)`` cards from the hand (R3)."""

    cards: CardSet

    def __str__(self) -> str:
        return f"discard {self.cards.ascii()}"


Action = Debate | Answer | UseAbility | Discard


# --- state -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VisitState:
    """Everything that decides the rest of a visit.

    ``rulers`` is the current layout, one entry per kingdom position (index 0 is
    kingdom 1), None where the kingdom has been won; Politics swaps it.
    """

    position: int
    target: int
    trump: Suit
    hand: CardSet
    deck: CardSet
    discard: CardSet = CardSet()
    scoring: CardSet = CardSet()
    waiting: Card | None = None
    phase: Phase = Phase.DECIDE
    jacks: frozenset[Suit] = frozenset(Suit)
    supporters: tuple[Ruler, ...] = ()
    used_supporters: tuple[Ruler, ...] = ()
    rulers: tuple[Ruler | None, ...] = ()
    pending_draws: int = 0
    commerce_pending: bool = False
    reshuffles: int = 0
    published_rules: bool = False
    abilities_used: tuple[UseAbility, ...] = field(default=())
    first_edition: bool = False  # the 2019 rules (§6, R5-R7)
    verdict: bool | None = None  # first edition: the waiting debate counts as won/lost (R6)

    @property
    def wins(self) -> int:
        """Debates won so far: the scoring pile holds exactly the winning cards."""
        return len(self.scoring)

    @property
    def over(self) -> bool:
        """Whether the visit has ended."""
        return self.phase is Phase.OVER

    @property
    def succeeded(self) -> bool:
        """Whether the visit ended with exactly the target (docs/rules.md §2.5)."""
        return self.phase is Phase.OVER and self.wins == self.target

    @property
    def is_chance(self) -> bool:
        """Whether the next step is a card turning up rather than a decision."""
        return self.phase in (Phase.REVEAL, Phase.DRAW)

    @property
    def ruler(self) -> Ruler | None:
        """The ruler on the visited kingdom now (after any Politics swap)."""
        return self.rulers[self.position - 1] if self.rulers else None

    def all_cards(self) -> CardSet:
        """Union of every pile; always the whole deck (card conservation)."""
        waiting = CardSet([self.waiting]) if self.waiting else CardSet()
        return self.hand | self.deck | self.discard | self.scoring | waiting

    def card_count(self) -> int:
        """Cards across hand, deck, discard, scoring pile and the waiting card."""
        return (
            len(self.hand)
            + len(self.deck)
            + len(self.discard)
            + len(self.scoring)
            + (self.waiting is not None)
        )


def new_visit(
    hand: CardSet,
    position: int,
    target: int,
    rulers: tuple[Ruler | None, ...],
    supporters: tuple[Ruler, ...] = (),
    published_rules: bool = False,
    jacks: frozenset[Suit] = frozenset(Suit),
    first_edition: bool = False,
) -> VisitState:
    """The state right after choosing kingdom ``position`` with ``hand`` drawn; ``jacks``
    are the Jacks face up (all four, except in the first edition, R5)."""
    ruler = rulers[position - 1]
    if ruler is None:
        raise IllegalActionError(f"kingdom {position} has already been visited")
    return VisitState(
        position=position,
        target=target,
        trump=ruler.suit,
        hand=hand,
        deck=CardSet.full() - hand,
        supporters=tuple(supporters),
        rulers=tuple(rulers),
        published_rules=published_rules,
        jacks=frozenset(jacks),
        first_edition=first_edition,
    )


# --- the rules ---------------------------------------------------------------


def wins_debate(ruler_card: Card, answer: Card, trump: Suit) -> bool:
    """A higher card of the same suit wins; so does a trump on a non-trump card (§2.3)."""
    if answer.suit == ruler_card.suit:
        return answer.rank > ruler_card.rank
    return answer.suit == trump


def legal_answers(hand: CardSet, ruler_card: Card) -> CardSet:
    """Follow suit if possible, otherwise any card (§2.3)."""
    same = hand.of_suit(ruler_card.suit)
    return same if same else hand


def _cards_left(state: VisitState) -> bool:
    return bool(state.deck) or bool(state.discard)


def politics_targets(state: VisitState) -> list[int]:
    """Kingdoms Politics may swap with: other unvisited ones, of another suit unless R4."""
    targets = []
    for index, ruler in enumerate(state.rulers):
        position = index + 1
        if ruler is None or position == state.position:
            continue
        if ruler.suit != state.trump or state.published_rules:
            targets.append(position)
    return targets


def ability_sources(state: VisitState, suit: Suit) -> list[Ruler | None]:
    """The unused cards that lend ``suit``'s ability: its Jack (None) and supporters."""
    sources: list[Ruler | None] = [None] if suit in state.jacks else []
    seen = set()
    for ruler in state.supporters:
        if ruler.suit == suit and ruler not in seen:
            seen.add(ruler)
            sources.append(ruler)
    return sources


def ability_does_something(state: VisitState, suit: Suit) -> bool:
    """This version's condition for using an ability (§4 table); first edition (R6): ♣ and ♥
    settle a waiting debate not settled yet, ♠ needs a trump other than ♠, ♦ always."""
    if state.first_edition:
        if suit in (Suit.CLUBS, Suit.HEARTS):
            return state.verdict is None
        return suit is Suit.DIAMONDS or state.trump is not Suit.SPADES
    if suit is Suit.HEARTS:
        return state.hand.has_suit(state.trump)
    if suit is Suit.CLUBS:
        return state.hand.has_suit(Suit.CLUBS) and _cards_left(state)
    if suit is Suit.SPADES:
        return any(state.rulers[p - 1].suit != state.trump for p in politics_targets(state))
    return True  # Commerce is always usable


def ability_moment(state: VisitState, suit: Suit) -> bool:
    """Whether now is a moment for ``suit``'s ability: between debates (§4); in the first
    edition ♣ and ♥ only while a ruler's card waits (R6)."""
    if state.first_edition and suit in (Suit.CLUBS, Suit.HEARTS):
        return state.phase is Phase.ANSWER
    return state.phase is Phase.DECIDE


def legal_abilities(state: VisitState) -> list[UseAbility]:
    """Every ability use allowed now (see :func:`ability_moment`)."""
    if state.phase not in (Phase.DECIDE, Phase.ANSWER):
        return []
    uses = []
    for suit in Suit:
        if not ability_moment(state, suit):
            continue
        sources = ability_sources(state, suit)
        if not sources:
            continue
        if not (ability_does_something(state, suit) or state.published_rules):
            continue
        if suit is Suit.SPADES and not state.first_edition:
            targets: list[int | None] = list(politics_targets(state)) or [None]
        else:
            targets = [None]
        uses.extend(UseAbility(suit, source, target) for source in sources for target in targets)
    return uses


def legal_discards(state: VisitState) -> list[Discard]:
    """Commerce's choices: every set of ``min(2, hand size)`` hand cards (R3)."""
    count = min(2, len(state.hand))
    return [Discard(CardSet(pair)) for pair in combinations(state.hand, count)]


def legal_actions(state: VisitState) -> list[Action]:
    """Every decision open to the player now (empty at chance steps and at the end)."""
    if state.phase is Phase.DECIDE:
        return [Debate(), *legal_abilities(state)]
    if state.phase is Phase.ANSWER:
        answers = [Answer(card) for card in legal_answers(state.hand, state.waiting)]
        return answers + (legal_abilities(state) if state.first_edition else [])
    if state.phase is Phase.DISCARD:
        return list(legal_discards(state))
    return []


def chance_outcomes(state: VisitState) -> list[tuple[Card, Fraction]]:
    """The cards that may turn up next, each equally likely (R1: from the discard pile if the
    deck is empty)."""
    if not state.is_chance:
        return []
    pool = state.deck if state.deck else state.discard
    share = Fraction(1, len(pool))
    return [(card, share) for card in pool]


# --- transitions ---------------------------------------------------------------


def _refill(state: VisitState) -> VisitState:
    """R1: a card is needed and the deck is empty, so the discard pile becomes the deck."""
    if state.deck or not state.discard:
        return state
    return replace(state, deck=state.discard, discard=CardSet(), reshuffles=state.reshuffles + 1)


def _after_player_step(state: VisitState) -> VisitState:
    """Between debates: an empty hand ends the visit (§2.5)."""
    if not state.hand:
        return replace(state, phase=Phase.OVER)
    return replace(state, phase=Phase.DECIDE)


def _start_draws(state: VisitState, count: int, commerce: bool) -> VisitState:
    state = replace(state, pending_draws=count, commerce_pending=commerce, phase=Phase.DRAW)
    return _continue_draws(state)


def _continue_draws(state: VisitState) -> VisitState:
    """Draw while draws are pending and a card is left (R2, R3), then finish the ability."""
    if state.pending_draws > 0:
        state = _refill(state)
        if state.deck:
            return replace(state, phase=Phase.DRAW)
    state = replace(state, pending_draws=0)
    if state.commerce_pending:
        state = replace(state, commerce_pending=False)
        if state.hand:
            return replace(state, phase=Phase.DISCARD)
    return _after_player_step(state)


def _use_ability(state: VisitState, use: UseAbility) -> VisitState:
    if use.source is None:
        state = replace(state, jacks=state.jacks - {use.suit})
    else:
        supporters = list(state.supporters)
        supporters.remove(use.source)
        state = replace(
            state,
            supporters=tuple(supporters),
            used_supporters=state.used_supporters + (use.source,),
        )
    state = replace(state, abilities_used=state.abilities_used + (use,))
    if state.first_edition:
        return _use_first_edition_ability(state, use.suit)
    if use.suit is Suit.HEARTS:
        trumps = state.hand.of_suit(state.trump)
        state = replace(state, hand=state.hand - trumps, discard=state.discard | trumps)
        return _after_player_step(state)
    if use.suit is Suit.CLUBS:
        clubs = len(state.hand.of_suit(Suit.CLUBS))
        return _start_draws(state, clubs, commerce=False)
    if use.suit is Suit.DIAMONDS:
        return _start_draws(state, 2, commerce=True)
    # Politics: swap the rulers; the target stays with the position (§4).
    if use.target is None:
        return state
    rulers = list(state.rulers)
    here, there = state.position - 1, use.target - 1
    rulers[here], rulers[there] = rulers[there], rulers[here]
    return replace(state, rulers=tuple(rulers), trump=rulers[here].suit)


def _use_first_edition_ability(state: VisitState, suit: Suit) -> VisitState:
    """R6: ♣ the waiting debate counts as won, ♥ as lost; ♦ draw 2, discard 2; ♠ spades
    are trump for the rest of the visit."""
    if suit is Suit.CLUBS:
        return replace(state, verdict=True)
    if suit is Suit.HEARTS:
        return replace(state, verdict=False)
    if suit is Suit.DIAMONDS:
        return _start_draws(state, 2, commerce=True)
    return replace(state, trump=Suit.SPADES)


def apply_action_unchecked(state: VisitState, action: Action) -> VisitState:
    """Apply a legal action; the fast door: nothing is validated."""
    if isinstance(action, Debate):
        state = _refill(state)
        if not state.deck:  # R2: no card can be revealed, the visit ends as it stands
            return replace(state, phase=Phase.OVER)
        return replace(state, phase=Phase.REVEAL)
    if isinstance(action, Answer):
        ruler_card, card = state.waiting, action.card
        hand = state.hand.remove(card)
        won = wins_debate(ruler_card, card, state.trump) if state.verdict is None else state.verdict
        state = replace(state, verdict=None)
        if won:
            state = replace(
                state, scoring=state.scoring.add(card), discard=state.discard.add(ruler_card)
            )
        else:
            state = replace(state, discard=state.discard.add(ruler_card).add(card))
        return _after_player_step(replace(state, hand=hand, waiting=None))
    if isinstance(action, UseAbility):
        return _use_ability(state, action)
    # Discard
    state = replace(state, hand=state.hand - action.cards, discard=state.discard | action.cards)
    return _after_player_step(state)


def apply_chance_unchecked(state: VisitState, card: Card) -> VisitState:
    """Turn up ``card`` from the deck (revealed or drawn); the fast door."""
    deck = state.deck.remove(card)
    if state.phase is Phase.REVEAL:
        return replace(state, deck=deck, waiting=card, phase=Phase.ANSWER)
    state = replace(
        state, deck=deck, hand=state.hand.add(card), pending_draws=state.pending_draws - 1
    )
    return _continue_draws(state)


def apply_action(state: VisitState, action: Action) -> VisitState:
    """Apply ``action`` after checking it is legal; the checked door."""
    if state.phase is Phase.OVER:
        raise IllegalActionError("the visit is over: no action is possible")
    if state.is_chance:
        raise IllegalActionError("a card must turn up first: supply it as a chance outcome")
    if action not in legal_actions(state):
        raise IllegalActionError(_why_illegal(state, action))
    return apply_action_unchecked(state, action)


def apply_chance(state: VisitState, card: Card) -> VisitState:
    """Turn up ``card`` after checking it can be the deck's top card; the checked door."""
    if not state.is_chance:
        raise IllegalActionError(f"no card is due to turn up now (phase: {state.phase.value})")
    if card not in state.deck:
        raise IllegalActionError(f"{card.ascii()} cannot turn up: it is not in the deck")
    return apply_chance_unchecked(state, card)


def _why_illegal(state: VisitState, action: Action) -> str:
    if isinstance(action, Answer):
        if state.phase is not Phase.ANSWER:
            return "no ruler card is waiting for an answer"
        if action.card not in state.hand:
            return f"{action.card.ascii()} is not in your hand"
        return (
            f"{action.card.ascii()} does not follow suit: you hold "
            f"{state.waiting.suit.letter} and must answer {state.waiting.ascii()} with it"
        )
    if isinstance(action, Discard):
        if state.phase is not Phase.DISCARD:
            return "no Commerce discard is pending"
        need = min(2, len(state.hand))
        if not action.cards.issubset(state.hand):
            return f"you can discard only cards in your hand ({state.hand.ascii()})"
        return f"Commerce discards exactly {need} card(s), got {len(action.cards)}"
    if isinstance(action, Debate):
        return "a debate can start only between debates"
    if not ability_moment(state, action.suit):
        if state.first_edition and action.suit in (Suit.CLUBS, Suit.HEARTS):
            return f"{action.suit.ability} is used only while a ruler's card waits (R6)"
        return "abilities cannot be used while a ruler's card waits or a draw is pending"
    if not ability_sources(state, action.suit):
        return f"no unused Jack or supporter gives {action.suit.ability}"
    if action.source is not None and action.source not in state.supporters:
        return f"{action.source.ascii()} is not an unused supporter"
    if (
        action.suit is Suit.SPADES
        and action.target is not None
        and action.target not in politics_targets(state)
    ):
        return f"Politics cannot swap with kingdom {action.target}"
    return f"{action.suit.ability} would do nothing now (allowed only with the published rules, R4)"
