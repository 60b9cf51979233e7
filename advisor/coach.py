"""The coach: a whole tour, step by step, beside the physical cards or a seeded deal.

It asks only what the player sees (the rulers, the 8 cards drawn, each card that
turns up), shows the advice at every decision, takes what the player actually
did and records the chance it cost. Every step is appended to the session file
(:mod:`advisor.session`) and saved atomically, so a crash or ``kill -9`` loses
nothing: ``emissary coach --session FILE`` resumes where it stopped.

At any prompt: ``help``, ``undo``, ``state``, ``quit``. Pressing Enter takes
the suggested answer shown in brackets.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import typer
from rich import box
from rich.console import Console, Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from search.firstedition import (
    VisitSearch,
    advise_first_edition,
    net_losses,
    rank_first_edition,
    turn_down_choice,
)
from search.game import (
    Answer,
    CardSet,
    Debate,
    Discard,
    Phase,
    Suit,
    TourConfig,
    UseAbility,
    VisitState,
    legal_actions,
    turn_down_choices,
)
from search.tours import advise_visit, rank_moves, score_best_action
from search.tours.supporters import free_first
from search.visit import position_from_visit, warm_up

from . import firstedition_views, tables
from .notation import (
    card_str,
    cards_str,
    parse_card,
    parse_cards,
    parse_hand,
    parse_ruler,
    parse_rulers,
    quote,
    ruler_str,
    suit_str,
)
from .session import (
    DECISION_EVENTS,
    Session,
    SessionError,
    create,
    decode_action,
    encode_action,
    load,
    remove_leftovers,
    reputation_text,
    save,
)

HELP = (
    "At any prompt: 'help', 'undo' (take back the last step), 'state' (everything on the table), "
    "'quit' (save and stop). Plays: 'debate' (or 'd'); a card such as '7H' to answer; 'JH', "
    "'JC', 'JD' for a Jack's ability ('H', 'C' and 'S' alone work too), 'JS 3' for Politics "
    "with kingdom 3; add a supporter to use it instead of the Jack ('JH QH', 'JS 3 KS'); two "
    "cards such as 'AC 2D' for Commerce's discards, and the cards drawn on one line ('4C 4S'). "
    "Enter takes the advice, the first option listed."
)

WARM_UP = (
    "Loading the compiled search (the first run after install compiles it: about a minute)..."
)


class Quit(Exception):
    """The player asked to stop."""


@dataclass
class Prompt:
    """A question to the player: its text, the default (Enter), and how an answer becomes
    events (raising ValueError with a one-line reason when it cannot)."""

    text: str
    default: str | None
    parse: Callable[[str], list[dict]]


@dataclass
class Advised:
    """Advice computed for one position, kept for it: what to show, the default, and the
    advice a chosen play is saved with (``record(choice)``)."""

    view: object
    default: str
    record: Callable[[object], dict]
    lines: tuple[str, ...] = ()


class Coach:
    """The prompt loop over one session file."""

    def __init__(
        self,
        path: Path,
        console: Console,
        read: Callable[[str], str],
        advice: bool = True,
        time_limit: float = 5.0,
        ascii: bool = False,
        given: dict | None = None,
    ) -> None:
        self.path = path
        self.given = given or {}
        self.console = console
        self.read = read
        self.advice = advice
        self._visit_search = None  # first edition: (visit, kingdom) and its shared solvers
        self.time_limit = time_limit
        self.ascii = ascii
        self._advised: dict[str, Advised] = {}  # advice by position: computed once, kept
        self._warm = False

    # --- start or resume ---------------------------------------------------------------

    def open(self, seed: int | None, config: TourConfig) -> Session:
        """Resume the session file if it exists, else start one (seeded or physical)."""
        remove_leftovers(self.path)
        if self.path.is_symlink() and not self.path.exists():
            target = os.readlink(self.path)
            raise SessionError(
                f"{self.path}: a symlink to {quote(target)}, which does not exist; "
                "give the file itself, or remove the link"
            )
        if self.path.exists():
            session = load(self.path)
            conflicts = resume_conflicts(session, self.given)
            if conflicts:
                raise typer.BadParameter(
                    f"{self.path} holds a game saved with other options: {'; '.join(conflicts)}. "
                    "Resume without them, or choose another --session",
                    param_hint="--session",
                )
            self.say(f"Resuming {escape(str(self.path))} at step {len(session.events) + 1}.")
            return session
        if seed is not None:
            session = Session.new(config, "seeded", seed)
        else:
            count = config.kingdoms
            while True:
                text = self.ask(f"Rulers on kingdoms 1..{count}, left to right", None, session=None)
                try:
                    rulers = parse_rulers(text, count)
                    session = Session.new(config, "physical", None, [r.ascii() for r in rulers])
                    break
                except ValueError as error:
                    self.refuse(error)
        create(self.path, session)
        return session

    # --- the loop ------------------------------------------------------------------------

    def run(self, session: Session) -> Session:
        """Play until the tour is over and the player confirms the end, or quits; returns
        the final session."""
        try:
            while True:
                state = session.replay()
                if state.phase == "over":
                    self.say(escape(summary_text(session, self.ascii)))
                    self.confirm_end(session)
                    break
                for event in self.next_events(session, state):
                    session = self.commit(session, event)
        except Quit:
            resume = f"emissary coach --session {shlex.quote(str(self.path))}"
            self.say(f"Saved. Resume with: {escape(resume)}")
            return session
        self.console.print(review_view(session, self.ascii))
        return session

    def confirm_end(self, session: Session) -> None:
        """The tour is over: Enter ends it, 'undo' takes back the last play (until now)."""
        while True:
            try:
                text = self.ask(
                    "Tour over: Enter for the review, or 'undo' to take back the last play",
                    "review", session,
                )
            except Quit:  # end of input, or 'quit': nothing is left to play
                return
            if text.lower() in ("review", "end", "done", "y", "yes"):
                return
            self.refuse(f"{quote(text)}: the tour is over; press Enter for the review, or type 'undo'")

    def commit(self, session: Session, event: dict) -> Session:
        before = session.replay()
        session = session.append(event)
        save(session, self.path)
        after = session.replay()
        if after.tour.visits > before.tour.visits and after.last_visit is not None:
            self.say(escape(visit_end_text(before.tour, after.last_visit, after.tour, self.ascii)))
        return session

    def next_events(self, session: Session, state) -> list[dict]:
        """Ask for (or deal) what comes next. A refused answer gets a one-line reason and the
        same prompt again, with the same advice: nothing is computed again for it."""
        prompt = self._prompt(session, state)
        if isinstance(prompt, list):
            return prompt
        while True:
            text = self.ask(prompt.text, prompt.default, session)
            try:
                events = prompt.parse(text)
                check = session
                for event in events:  # validate before saving
                    check = check.append(event)
                return events
            except ValueError as error:
                self.refuse(error)

    def _prompt(self, session: Session, state) -> Prompt | list[dict]:
        phase = state.phase
        number = state.visit_number
        if phase == "hand":
            if session.mode == "seeded":
                return [{"type": "hand", "cards": session.next_hand()}]
            return Prompt(
                f"Visit {number}: the 8 cards you drew", None,
                lambda text: [{"type": "hand", "cards": [c.ascii() for c in parse_hand(text)]}],
            )
        if phase == "card":
            if session.mode == "seeded":
                card = session.next_chance_card()
                self.say(f"Turned up: {card_str(parse_card(card), self.ascii)}")
                return [{"type": "card", "card": card}]
            return self._card_prompt(state.visit)
        if phase == "kingdom":
            return self._kingdom_prompt(session, state)
        if phase == "turn_down":
            return self._turn_down_prompt(session, state)
        return self._decision_prompt(session, state)

    def _card_prompt(self, visit: VisitState) -> Prompt:
        """A physical card turning up: the ruler's, or the cards an ability draws, which
        may be typed together on one line ('4C 4S')."""
        if visit.phase is Phase.REVEAL:
            def reveal(text: str) -> list[dict]:
                cards = parse_cards(text)
                if len(cards) != 1:
                    raise ValueError(f"the ruler turns up one card, got {len(cards)}: {quote(text)}")
                _check_unseen(visit, cards[0])
                return [{"type": "card", "card": cards[0].ascii()}]

            return Prompt("Which card did the ruler turn up", None, reveal)
        pending = visit.pending_draws
        ability = "Commerce" if visit.commerce_pending else "Military"

        def draw(text: str) -> list[dict]:
            cards = parse_cards(text)
            if not cards:
                raise ValueError("no card given: type the card you drew, e.g. '4C'")
            if len(cards) > pending:
                raise ValueError(
                    f"{ability} draws {pending} more card{'s' if pending > 1 else ''} now, "
                    f"got {len(cards)}: {quote(text)}"
                )
            for card in cards:
                _check_unseen(visit, card)
            return [{"type": "card", "card": card.ascii()} for card in cards]

        if pending > 1:
            return Prompt(f"The {pending} cards {ability} drew (one line, e.g. '4C 4S')", None, draw)
        return Prompt(f"The card {ability} drew", None, draw)

    def _turn_down_prompt(self, session: Session, state) -> Prompt:
        """First edition (R7): the face-up cards that pay for the miss."""
        visit = state.visit
        owed = abs(visit.wins - visit.target)
        choices = turn_down_choices(state.tour, visit)
        face_up = " ".join(reputation_text(c) for c in dict.fromkeys(c for pick in choices for c in pick))
        self.say(
            f"Missed kingdom {visit.position} by {owed}: turn {owed} face-up card(s) down "
            f"(Jacks as JC, supporters as KH). Face up: {face_up}"
        )
        pick = turn_down_choice(visit, choices)
        default = " ".join(reputation_text(c) for c in pick)
        return Prompt(
            f"Turn down {owed}", default,
            lambda text: [{"type": "turn_down", "cards": text.replace(",", " ").split()}],
        )

    # --- advice, once a position ---------------------------------------------------------

    def _advice_for(self, session: Session, label: str | None, compute: Callable[[], Advised]) -> Advised:
        """The advice for the position ``session`` stands at: computed the first time, with
        a spinner, then kept (a typo, 'help', 'state' or an undo back here reuse it)."""
        key = _position_key(session)
        advised = self._advised.get(key)
        if advised is None:
            self._warm_up(session.config.first_edition)
            if label is None:  # the computation shows its own progress
                advised = compute()
            else:
                with tables.spinner(label, ascii=self.ascii):
                    advised = compute()
            if len(self._advised) >= 64:  # a tour has a few hundred positions; keep the latest
                self._advised.pop(next(iter(self._advised)))
            self._advised[key] = advised
        self.console.print(advised.view)
        for line in advised.lines:
            self.say(escape(line))
        return advised

    def _warm_up(self, first_edition: bool) -> None:
        """Load the compiled search before the first piece of advice, and say so, once: the
        first run after install compiles it (search.infra.jitcache), which takes a while."""
        if self._warm:
            return
        self._warm = True
        self.say(WARM_UP)
        started = time.perf_counter()
        with tables.spinner("loading the compiled search", ascii=self.ascii):
            warm_up()
            if first_edition:
                from search.firstedition import FastFirstEditionSolver

                FastFirstEditionSolver().value(1, 2, 0, (0, 0, 0, 0))
        self.say(f"The search is ready ({time.perf_counter() - started:.1f} s).")

    def _kingdom_prompt(self, session: Session, state) -> Prompt:
        tour, hand = state.tour, state.hand
        self.say(f"Visit {state.visit_number}. Your hand: {cards_str(hand, self.ascii)}")
        if tour.config.first_edition:
            self.say(f"Reputation: {tour.reputation} face-up Jacks and supporters.")
        advised = None
        default = str(tour.unvisited[0])
        if self.advice:
            label = "advising: which kingdom" if tour.config.first_edition else None
            advised = self._advice_for(session, label, lambda: self._kingdom_advice(tour, hand))
            default = advised.default

        def parse(text: str) -> list[dict]:
            try:
                position = int(text)
            except ValueError:
                raise ValueError(f"{quote(text)} is not a kingdom number: type one of "
                                 f"{', '.join(map(str, tour.unvisited))}") from None
            if position not in tour.unvisited:
                won = " (won already)" if position in tour.visited else ""
                raise ValueError(f"kingdom {position}{won} cannot be visited: unvisited are "
                                 f"{', '.join(map(str, tour.unvisited))}")
            event = {"type": "kingdom", "position": position}
            if advised is not None:
                event["advice"] = advised.record(position)
            return [event]

        return Prompt("Kingdom to visit", default, parse)

    def _kingdom_advice(self, tour, hand) -> Advised:
        if tour.config.first_edition:
            result = advise_first_edition(tour, hand, self.time_limit)
            view = firstedition_views.advise_view(result, tour, hand, self.ascii)
            best = result.recommended
            costs = {str(p): c for p, c in net_losses(tour, result.kingdoms).items()}
            return Advised(
                view, str(best),
                lambda position: {"best": best, "default": best, "costs": costs,
                                  "played": costs.get(str(position))},
                (f"Advice: kingdom {best}.",),
            )
        with tables.advise_progress(tour, self.ascii) as progress:  # a bar, as `advise` shows
            result = advise_visit(tour, hand, time_limit=self.time_limit, progress=progress)
        view = tables.advise_view(result, tour, self.ascii)
        best = result.recommended.position
        chances = {str(k.position): k.chance("all").value for k in result.kingdoms}
        estimated = [str(k.position) for k in result.kingdoms if k.chance("all").estimate]

        def record(position: int) -> dict:
            return {"best": best, "default": best, "chances": chances, "estimated": estimated,
                    "played": chances.get(str(position))}

        return Advised(view, str(best), record, (f"Advice: kingdom {best}.",))

    def _decision_prompt(self, session: Session, state) -> Prompt:
        visit: VisitState = state.visit
        advised = None
        default = describe(_default_play(visit, legal_actions(visit)))
        if self.advice:
            label = "advising: " + ("which answer" if visit.phase is Phase.ANSWER else "what now")
            if visit.first_edition:
                compute = lambda: self._first_edition_advice(state)  # noqa: E731
            else:
                compute = lambda: self._move_advice(state)  # noqa: E731
            advised = self._advice_for(session, label, compute)
            default = advised.default
        self.say(f"Hand: {cards_str(visit.hand, self.ascii)}   wins {visit.wins} of {visit.target}")

        def parse(text: str) -> list[dict]:
            action = parse_play(text, visit)
            event = {"type": "action", "action": encode_action(action)}
            if advised is not None:
                event["advice"] = advised.record(action)
            return [event]

        return Prompt("Your play", default, parse)

    def _move_advice(self, state) -> Advised:
        """The options ranked (chance first, supporters only for a clear gain, issue 18),
        and, where it differs for the point a supporter costs, the play best for the final
        score put first; the first option is the default."""
        visit: VisitState = state.visit
        tour = _tour_for(state)
        jacks_used = [s for s in Suit if s not in visit.jacks]
        advice = rank_moves(tour, visit.position, position_from_visit(visit), jacks_used,
                            time_limit=self.time_limit)
        moves = list(free_first(advice.moves))
        note = None
        by_score = score_best_action(tour, visit)
        first = moves[0]
        # The payoff search knows Diplomacy and Politics only (search.tours.supporters): where
        # the likeliest play spends a supporter on one of them and it would keep the point
        # instead, that is its reason. Any other difference is the smaller model's, not a reason.
        if (by_score is not None and first.source is not None and getattr(by_score, "source", None) is None
                and first.option.suit in (Suit.HEARTS, Suit.SPADES)):
            keep = next((m for m in moves if _same_play(_action_of(m, visit), by_score, visit)), None)
            if keep is not None and keep is not first:
                moves.remove(keep)
                moves.insert(0, keep)
                gain = first.chance - keep.chance
                mark = tables.estimate_mark(self.ascii) if first.estimate or keep.estimate else ""
                note = (
                    f"Best for the final score: {tables.play_text(keep)}, not "
                    f"{tables.play_text(first)} (the likeliest to win this visit): "
                    f"{ruler_str(first.source, self.ascii)} would spend its point for only "
                    f"{mark}+{100 * gain:.1f}% chance here, worth less to the whole tour."
                )
        view = tables.coach_move_view(advice, moves, tour, self.ascii, note)
        best = moves[0]

        def record(action) -> dict:
            played = next((m for m in moves if _action_of(m, visit) == action), None)
            return {
                "best": tables.play_text(best),
                "default": tables.play_text(best),
                "chance": best.chance,
                "played": None if played is None else played.chance,
                "estimate": best.estimate or bool(played is not None and played.estimate),
                "interval": None if best.interval is None else list(best.interval),
                "played_interval": None if played is None or played.interval is None
                else list(played.interval),
                "by_score": note is not None,
            }

        return Advised(view, tables.play_text(best), record)

    def _first_edition_advice(self, state) -> Advised:
        """A decision advised by expected reputation spent (R5-R7)."""
        visit = state.visit
        if self._visit_search is None or self._visit_search[0] != (state.visit_number, visit.position):
            self._visit_search = ((state.visit_number, visit.position), VisitSearch())
        ranked, searched = rank_first_edition(visit, self.time_limit, self._visit_search[1])
        view = firstedition_views.move_view(ranked, searched, visit, self.ascii)
        default = describe(ranked[0].action if ranked else _default_play(visit, legal_actions(visit)))

        def record(action) -> dict:
            if not ranked:
                return {}
            played = next((r.cost for r in ranked if r.action == action), None)
            best = describe(ranked[0].action)
            return {"best": best, "default": best, "cost": ranked[0].cost, "played": played}

        return Advised(view, default, record, (f"Advice: {default}.",) if ranked else ())

    # --- prompts ---------------------------------------------------------------------

    def ask(self, prompt: str, default: str | None, session: Session | None) -> str:
        """One answer; handles help, undo, state and quit."""
        while True:
            shown = f"{prompt} [{default}]: " if default else f"{prompt}: "
            try:
                text = self.read(escape(shown)).strip()
            except EOFError:
                raise Quit from None
            command = text.lower()
            if command == "help":
                self.say(escape(HELP))
            elif command == "quit":
                raise Quit
            elif command == "state":
                self.say(escape(state_text(session, self.ascii)) if session else "Nothing played yet.")
            elif command == "undo":
                if session is None or not session.events:
                    self.say("Nothing to undo.")
                    continue
                raise _Undo
            elif not text and default:
                return default
            elif text:
                return text

    def say(self, text: str) -> None:
        self.console.print(text, highlight=False)

    def refuse(self, error: Exception | str) -> None:
        """A refused answer: its reason, on one line."""
        self.say(f"[red]{escape(' '.join(str(error).split()))}[/red]")


def _check_unseen(visit: VisitState, card) -> None:
    """A card that turns up comes from the deck: not one in view (R1: the discard pile
    returns only once the deck is empty)."""
    if card in visit.deck:
        return
    where = (
        "is in your hand" if card in visit.hand
        else "lies in the scoring pile (won cards never return, R1)" if card in visit.scoring
        else "lies in the discard pile, which returns only once the deck is empty (R1)"
        if card in visit.discard
        else "is the ruler's card waiting" if card == visit.waiting
        else None
    )
    where = f" {where}, not in the deck" if where else " is not in the deck"
    raise ValueError(f"{card.ascii()}{where}: it cannot turn up now")


def _position_key(session: Session) -> str:
    """What decides a position: the events so far, without the advice they carry."""
    plain = [{k: v for k, v in event.items() if k != "advice"} for event in session.events]
    return json.dumps([session.mode, session.seed, list(session.rulers), plain], sort_keys=True)


class _Undo(Exception):
    pass


def _tour_for(state):
    """The tour as the advice sees it during a visit: rulers after any Politics swap."""
    from dataclasses import replace

    return replace(state.tour, rulers=state.visit.rulers)


def _default_play(visit: VisitState, legal: list):
    """The suggestion without advice: debate now, the first legal answer or discard."""
    return Debate() if visit.phase is Phase.DECIDE else legal[0]


def _action_of(move, visit: VisitState):
    option = move.option
    if option.kind == "debate":
        return Debate()
    if option.kind == "answer":
        return Answer(option.card)
    if option.kind == "discard":
        return Discard(option.cards)
    return UseAbility(option.suit, move.source, move.swap_with)


def describe(action, ascii: bool = True) -> str:
    """The text a player types for ``action``."""
    if isinstance(action, Debate):
        return "debate"
    if isinstance(action, Answer):
        return card_str(action.card, ascii=True)
    if isinstance(action, Discard):
        return cards_str(action.cards, ascii=True)
    text = "J" + action.suit.letter
    if action.target is not None:
        text += f" {action.target}"
    if action.source is not None:
        text += f" {action.source.ascii()}"
    return text


def parse_play(text: str, visit: VisitState):
    """The action a player typed; a play the rules refuse here raises ValueError with the
    rule in play (the engine checks the rest when it is applied)."""
    words = text.replace(",", " ").split()
    if not words:
        raise ValueError("no play given: type 'd' to debate, a card, or 'help'")
    head = words[0].lower()
    ability = words[0].upper()
    is_ability = (len(ability) == 2 and ability[0] == "J" and ability[1] in "HCDS") or ability in ("H", "C", "S")
    if visit.phase is Phase.DISCARD:
        need = min(2, len(visit.hand))
        if head in ("d", "debate") or is_ability:
            raise ValueError(
                f"Commerce has drawn: a discard is expected now, {need} card(s) from your hand "
                f"(R3), e.g. '{cards_str(list(visit.hand)[:need], True)}'"
            )
        return Discard(CardSet(parse_cards(text)))
    if visit.phase is Phase.ANSWER and not visit.first_edition:
        waiting = card_str(visit.waiting, True)
        if head in ("d", "debate"):
            raise ValueError(
                f"the ruler's {waiting} waits for your answer: a debate can start only between "
                "debates; answer with a card"
            )
        if is_ability:
            raise ValueError(
                f"the ruler's {waiting} waits for your answer: abilities are used only between "
                "debates; answer with a card"
            )
        if len(words) > 1:
            raise ValueError(f"answer with one card, got {quote(text)}")
        return Answer(parse_card(words[0]))
    if head in ("d", "debate"):
        return Debate()
    if visit.phase is Phase.ANSWER and not is_ability:
        return Answer(parse_card(words[0]))
    if is_ability:
        suit = Suit.from_letter(ability[-1])
        target, source = None, None
        for word in words[1:]:
            if word.isdigit():
                target = int(word)
            else:
                source = parse_ruler(word)
        action = UseAbility(suit, source, target)
        check_ability(visit, action)
        return action
    raise ValueError(f"{quote(text)} is not a play here: type 'd' to debate, or 'help'")


def check_ability(visit: VisitState, action: UseAbility) -> None:
    """Refuse an ability the rules do not allow now, naming the rule (§4, R4); standard
    rules only (the first edition's are checked by the engine, R6)."""
    if visit.first_edition:
        return
    suit, trump = action.suit, visit.trump
    name = f"{suit.ability} (J{suit.letter})"
    if action.source is not None:
        if action.source.suit is not suit:
            raise ValueError(f"{action.source.ascii()} lends {action.source.suit.ability}, not {suit.ability}")
        if action.source not in visit.supporters:
            unused = " ".join(r.ascii() for r in visit.supporters) or "none"
            raise ValueError(f"{action.source.ascii()} is not an unused supporter (unused: {unused})")
    elif suit not in visit.jacks:
        lenders = [r.ascii() for r in visit.supporters if r.suit is suit]
        if lenders:
            raise ValueError(
                f"your {suit.letter} Jack is used this visit (each Jack once a visit): to use "
                f"supporter {lenders[0]} instead, type 'J{suit.letter} {lenders[0]}' (it costs its point)"
            )
        raise ValueError(f"your {suit.letter} Jack is used this visit (each Jack once a visit), "
                         f"and no unused supporter lends {suit.ability}")
    if visit.published_rules:
        return
    if suit is Suit.SPADES:
        _check_politics(visit, action.target)
    elif action.target is not None:
        raise ValueError(f"only Politics names a kingdom: type 'J{suit.letter}' alone")
    elif suit is Suit.HEARTS and not visit.hand.has_suit(trump):
        raise ValueError(f"{name} discards your trumps ({trump.letter}), and you hold none: "
                         "it would do nothing (allowed only with --published-rules, R4)")
    elif suit is Suit.CLUBS and not visit.hand.has_suit(Suit.CLUBS):
        raise ValueError(f"{name} draws a card per club in your hand, and you hold none: "
                         "it would do nothing (allowed only with --published-rules, R4)")
    elif suit is Suit.CLUBS and not (visit.deck or visit.discard):
        raise ValueError(f"{name} has no card left to draw (R2)")


def _check_politics(visit: VisitState, target: int | None) -> None:
    """Politics swaps this kingdom's ruler with one of another suit than the trump (§4)."""
    trump = visit.trump.letter
    choices = [
        f"JS {p} ({visit.rulers[p - 1].ascii()})"
        for p, ruler in enumerate(visit.rulers, 1)
        if ruler is not None and p != visit.position and ruler.suit is not visit.trump
    ]
    allowed = "here: " + ", ".join(choices) if choices else "none can here"
    if target is None:
        raise ValueError(f"Politics needs the kingdom to swap with, e.g. 'JS 3': one whose ruler is "
                         f"not of the trump suit {trump}; {allowed}")
    count = len(visit.rulers)
    if not 1 <= target <= count:
        raise ValueError(f"there is no kingdom {target} (kingdoms 1-{count}); Politics {allowed}")
    ruler = visit.rulers[target - 1]
    if target == visit.position:
        raise ValueError(f"kingdom {target} is the one you visit; Politics swaps with another: {allowed}")
    if ruler is None:
        raise ValueError(f"kingdom {target} is won already: Politics swaps with an unvisited "
                         f"kingdom; {allowed}")
    if ruler.suit is visit.trump:
        raise ValueError(
            f"Politics cannot bring {ruler.ascii()} from kingdom {target}: its suit is the trump "
            f"here ({trump}), and Politics must change the trump; {allowed}"
        )


def _same_play(action, other, visit: VisitState) -> bool:
    """The same play, where a Politics to either of two kingdoms of one suit counts as one."""
    if not (isinstance(action, UseAbility) and isinstance(other, UseAbility)):
        return action == other
    if (action.suit, action.source) != (other.suit, other.source):
        return False
    if action.target is None or other.target is None:
        return action.target == other.target
    return visit.rulers[action.target - 1].suit is visit.rulers[other.target - 1].suit


# --- the table: state, visit ends, summary ---------------------------------------------


def _supporters_text(tour, ascii: bool) -> str:
    unused = [ruler_str(s.ruler, ascii) for s in tour.supporters if not s.used]
    used = [ruler_str(s.ruler, ascii) for s in tour.supporters if s.used]
    return f"unused {' '.join(unused) or 'none'}; used {' '.join(used) or 'none'}"


def _score_text(tour) -> str:
    if tour.config.first_edition:
        return f"{tour.score} (kingdoms completed)"
    won, unused = len(tour.visited), len(tour.unused_supporters)
    return f"{tour.score} ({won} kingdom{'s' if won != 1 else ''} + {unused} unused supporter{'s' if unused != 1 else ''})"


def state_text(session: Session, ascii: bool) -> str:
    """Everything on the table: the layout (after any swaps), the score, the supporters
    used and unused, and during a visit the hand, the Jacks used, the piles and the wins
    against the target."""
    state = session.replay()
    tour = state.tour
    visit = state.visit
    rulers = visit.rulers if visit is not None else tour.rulers
    cells = []
    for position, ruler in enumerate(rulers, 1):
        target = tour.config.target(position)
        here = "*" if visit is not None and position == visit.position else ""
        shown = "won" if ruler is None else ruler_str(ruler, ascii)
        cells.append(f"{position}{here} {shown} (target {target})")
    lines = [
        f"Score so far {_score_text(tour)}, of {tour.config.perfect_score}; visits played {tour.visits}.",
        "Kingdoms: " + ", ".join(cells) + (" (* this visit, rulers after swaps)" if visit else ""),
        f"Supporters: {_supporters_text(tour, ascii)}.",
    ]
    if tour.config.first_edition:
        lines.append(f"Reputation: {tour.reputation} face up.")
    if visit is not None:
        used = [s for s in Suit if s not in visit.jacks]
        jacks_up = " ".join("J" + suit_str(s, ascii) for s in Suit if s in visit.jacks) or "none"
        jacks_used = " ".join("J" + suit_str(s, ascii) for s in used) or "none"
        spent = " ".join(ruler_str(r, ascii) for r in visit.used_supporters)
        lines.append(
            f"Visit {state.visit_number}, kingdom {visit.position}: trump {suit_str(visit.trump, ascii)}, "
            f"wins {visit.wins} of target {visit.target}."
        )
        waiting = f"; the ruler's {card_str(visit.waiting, ascii)} waits" if visit.waiting else ""
        lines.append(f"Hand {cards_str(visit.hand, ascii) or 'empty'}{waiting}.")
        lines.append(
            f"Jacks used {jacks_used}; face up {jacks_up}"
            + (f"; supporters spent this visit {spent}." if spent else ".")
        )
        lines.append(
            f"Deck {len(visit.deck)} cards, discard pile {len(visit.discard)}, won cards "
            f"{cards_str(visit.scoring, ascii) or 'none'}."
        )
    elif state.hand is not None:
        lines.append(f"Drawn for visit {state.visit_number}: {cards_str(state.hand, ascii)}.")
    return "\n".join(lines)


def visit_end_text(before, visit: VisitState, after, ascii: bool) -> str:
    """What a partner says when a visit ends: won or lost, the supporter gained (or spent),
    and the score so far."""
    ruler = visit.ruler
    lines = []
    spent = [ruler_str(r, ascii) for r in visit.used_supporters]
    if visit.succeeded:
        lines.append(f"Kingdom {visit.position} won: {visit.wins} debates of {visit.target}.")
        if after.config.first_edition:
            lines.append(f"{ruler_str(ruler, ascii)} joins you as a supporter, face up (R5).")
        else:
            lines.append(
                f"{ruler_str(ruler, ascii)} joins you as a supporter: its {ruler.suit.ability} once, "
                "for the rest of the tour (using it costs its point)."
            )
    else:
        lines.append(f"Kingdom {visit.position} lost: {visit.wins} debates won, the target was {visit.target}.")
        if after.failed:
            lines.append("The tour ends here.")
        else:
            lines.append("Paid for with face-up cards (R7): the kingdom is completed, with no supporter.")
    if spent:
        lines.append(f"Supporter{'s' if len(spent) > 1 else ''} spent: {' '.join(spent)} (a point each).")
    lines.append(f"Score so far: {_score_text(after)}.")
    return " ".join(lines)


def summary_text(session: Session, ascii: bool) -> str:
    """The tour in a few lines, before the review: each visit's kingdom and outcome, the
    supporters, the final score."""
    tour = session.replay().tour
    visits = [f"{v['number']}. kingdom {v['position']} ({v['ruler']}): {v['outcome']}"
              for v in visit_history(session, ascii)]
    lines = [
        f"Tour over after {tour.visits} visit{'s' if tour.visits != 1 else ''}"
        + (" (perfect)." if tour.perfect else "."),
        *visits,
        f"Supporters: {_supporters_text(tour, ascii)}.",
        f"Final score {_score_text(tour)}, of {tour.config.perfect_score}.",
    ]
    return "\n".join(lines)


def visit_history(session: Session, ascii: bool = True) -> list[dict]:
    """Each visit so far: its number, kingdom, ruler (at the end, after swaps), outcome, and
    its decisions (event index, event, state before)."""
    visits: list[dict] = []
    for index, event, before, after in session.walk():
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        if not visits or (kind == "hand" and visits[-1]["done"]):
            visits.append({"number": len(visits) + 1, "position": None, "ruler": "?", "target": None,
                           "outcome": "under way", "decisions": [], "done": False})
        current = visits[-1]
        if kind in DECISION_EVENTS:
            current["decisions"].append((index, event, before, after))
        if kind == "kingdom" and after is not None and after.visit is not None:
            current["position"] = after.visit.position
            current["target"] = after.visit.target
            current["ruler"] = ruler_str(after.visit.ruler, ascii)
        if after is not None and after.visit is not None:
            current["ruler"] = ruler_str(after.visit.ruler, ascii)
        if after is not None and after.tour.visits > before.tour.visits and after.last_visit is not None:
            ended = after.last_visit
            current["ruler"] = ruler_str(ended.ruler, ascii)
            current["outcome"] = (
                f"won ({ended.wins} of {ended.target})" if ended.succeeded
                else f"lost ({ended.wins} win{'s' if ended.wins != 1 else ''})"
                + ("" if after.tour.failed else ", paid for (R7)")
            )
            current["done"] = True
    return visits


# --- the review ------------------------------------------------------------------------


def review_view(session: Session, ascii: bool = False) -> Group:
    """Every decision, visit by visit and numbered within its visit: the advice, what was
    played (as typed) and what it cost (first edition: the expected reputation it spent
    beyond the best); steps played without advice are listed and marked. Costs from
    estimates are marked as estimates; a play equal to the prompt's default costs nothing."""
    state = session.replay()
    tour = state.tour
    if tour.over:
        title = f"Review: final score {tour.score} of {tour.config.perfect_score}"
    else:
        title = (f"Review: tour unfinished (visit {state.visit_number} under way), "
                 f"score so far {tour.score}")
    mark = tables.estimate_mark(ascii)
    parts: list = [Text(title, style="bold")]
    unadvised = 0
    for visit in visit_history(session, ascii):
        where = "kingdom not chosen yet" if visit["position"] is None else (
            f"kingdom {visit['position']} ({visit['ruler']}, target {visit['target']})")
        parts.append(Text(f"Visit {visit['number']}: {where}: {visit['outcome']}", style="bold"))
        table = Table(box=box.ASCII if ascii else box.SIMPLE_HEAD, show_edge=False)
        table.add_column("#", justify="right")
        table.add_column("decision")
        table.add_column("advice")
        table.add_column("played")
        table.add_column("cost", justify="right")
        for number, (_, event, before, _after) in enumerate(visit["decisions"], start=1):
            advice = event.get("advice")
            what = _decision_name(event, before)
            played = _played(event)
            if not isinstance(advice, dict) or not advice:
                unadvised += 1
                table.add_row(str(number), what, "(no advice)", escape(played), "unadvised")
                continue
            best = advice.get("best")
            if event["type"] == "kingdom":
                best_text = "?" if best is None else f"kingdom {best}"
                if "costs" in advice:
                    cost = _extra_reputation(_table_entry(advice["costs"], best), advice.get("played"))
                else:
                    estimate = any(
                        str(p) in (advice.get("estimated") or ()) for p in (best, event.get("position"))
                    )
                    cost = _cost(_table_entry(advice.get("chances"), best), advice.get("played"),
                                 mark if estimate else "")
            else:
                best_text = "?" if best is None else str(best)
                if "cost" in advice:
                    cost = _extra_reputation(advice["cost"], advice.get("played"))
                else:
                    cost = _cost(advice.get("chance"), advice.get("played"),
                                 mark if advice.get("estimate") else "",
                                 advice.get("interval"), advice.get("played_interval"))
            default = advice.get("default")
            if default is not None and _same_text(default, played):
                cost = ""  # the coach's own default: never charged for following it
            # Texts come from a file anyone can edit: never read them as rich markup.
            table.add_row(str(number), what, escape(best_text), escape(played), cost)
        parts.append(table)
    notes = []
    if unadvised:
        notes.append(f"{unadvised} step{'s' if unadvised != 1 else ''} played with --no-advice: "
                     "listed, not priced.")
    notes.append(f"cost: the chance given up against the advice; {mark} marks an estimate "
                 "(Monte Carlo), 'noise' a difference within the estimate's 95% interval.")
    parts.append(Text(" ".join(notes), style="dim"))
    return Group(*parts)


def _same_text(default, played: str) -> bool:
    text = str(default).strip().lower()
    return text == played.strip().lower() or text == f"kingdom {played}".lower()


def _decision_name(event: dict, before) -> str:
    kind = event.get("type")
    if kind == "kingdom":
        return "kingdom"
    if kind == "turn_down":
        return "pay a miss"
    visit = getattr(before, "visit", None)
    if visit is None:
        return "play"
    return {Phase.ANSWER: "answer", Phase.DISCARD: "discard"}.get(visit.phase, "play")


def _played(event: dict) -> str:
    """What was played, written as the player types it at the prompt."""
    kind = event.get("type")
    if kind == "kingdom":
        return str(event.get("position"))
    if kind == "turn_down":
        return " ".join(str(card) for card in event.get("cards", ()))
    try:
        return describe(decode_action(event.get("action")))
    except (SessionError, ValueError):
        return _played_text(event.get("action") if isinstance(event.get("action"), dict) else {})


def _table_entry(table, key):
    return table.get(str(key)) if isinstance(table, dict) else None


def _real(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _cost(best, played, mark: str = "", interval=None, played_interval=None) -> str:
    if not (_real(best) and _real(played)):
        return "?"
    loss = best - played
    if loss <= 1e-12:
        return ""
    if mark and (_inside(played, interval) or _inside(best, played_interval)):
        return "noise"
    return f"{mark}{100 * loss:.2f}%"


def _inside(value, interval) -> bool:
    return (isinstance(interval, list) and len(interval) == 2 and all(_real(v) for v in interval)
            and interval[0] <= value <= interval[1])


def _extra_reputation(best, played) -> str:
    """First edition: the expected reputation a choice spends beyond the best one."""
    if not (_real(best) and _real(played)):
        return "?"
    extra = played - best
    return "" if extra <= 1e-12 else f"+{extra:.3f} rep"


def _played_text(action: dict) -> str:
    """A saved action that no longer parses, shown as near the typed form as it can be."""
    kind = action.get("kind")
    if kind == "debate":
        return "debate"
    if kind == "answer":
        return str(action.get("card"))
    if kind == "discard":
        return " ".join(str(card) for card in action.get("cards", ()))
    text = "J" + str(action.get("suit"))
    if action.get("target") is not None:
        text += f" {action['target']}"
    if action.get("source"):
        text += f" {action['source']}"
    return text


def resume_conflicts(session: Session, given: dict) -> list[str]:
    """What the options ``given`` on the command line (``seed``, ``short``,
    ``published_rules``, ``variant``) say against the saved ``session``; [] if nothing."""
    config = session.config
    saved = {
        "seed": session.seed if session.mode == "seeded" else None,
        "short": config.short,
        "published_rules": config.published_rules,
        "variant": "first-edition" if config.first_edition else "standard",
    }
    said = {
        "seed": lambda v: "real cards, no seed" if v is None else f"seed {v}",
        "short": lambda v: "a short tour" if v else "a full tour",
        "published_rules": lambda v: "the published rules" if v else "the rules as ruled (R4)",
        "variant": lambda v: f"{v} rules",
    }
    conflicts = []
    for name, value in given.items():
        if name in saved and value != saved[name]:
            option = f"--{name.replace('_', '-')}"
            shown = option if isinstance(value, bool) else f"{option} {value}"
            conflicts.append(f"{shown}, but it holds {said[name](saved[name])}")
    return conflicts


def run(
    path: Path,
    seed: int | None,
    config: TourConfig,
    console: Console,
    read: Callable[[str], str],
    advice: bool = True,
    time_limit: float = 5.0,
    ascii: bool = False,
    given: dict | None = None,
) -> Session | None:
    """Open (or resume) the session at ``path`` and coach until the end or ``quit``; None if
    the player quits before the tour is set up. ``given``: the options typed for the game
    (see :func:`resume_conflicts`); a saved game they contradict is refused."""
    coach = Coach(path, console, read, advice, time_limit, ascii, given)
    try:
        session = coach.open(seed, config)
    except Quit:
        coach.say("Nothing entered, nothing saved.")
        return None
    while True:
        try:
            return coach.run(session)
        except _Undo:
            session = take_back(load(path))
            save(session, path)
            coach.say("Took back the last step.")


def take_back(session: Session) -> Session:
    """Undo the player's last step: a typed event, or in a seeded deal the last decision and
    the cards dealt after it."""
    while session.events:
        last = session.events[-1]
        session = session.undo()
        if session.mode == "physical" or last["type"] in ("kingdom", "action"):
            break
    return session
