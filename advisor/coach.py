"""The coach: a whole tour, step by step, beside the physical cards or a seeded deal.

It asks only what the player sees (the rulers, the 8 cards drawn, each card that
turns up), shows the advice at every decision, takes what the player actually
did and records the chance it cost. Every step is appended to the session file
(:mod:`advisor.session`) and saved atomically, so a crash or ``kill -9`` loses
nothing: ``emissary coach --session FILE`` resumes where it stopped.

At any prompt: ``help``, ``undo``, ``state``, ``quit``. Pressing Enter takes
the suggested answer shown in brackets.

This module is the prompt loop; the advice at each position is :mod:`advisor.coach_advice`,
the plays typed :mod:`advisor.plays`, what it says about the table
:mod:`advisor.coach_texts`, and the review at the end :mod:`advisor.review`.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from search.firstedition import turn_down_choice
from search.game import Phase, TourConfig, VisitState, legal_actions, turn_down_choices

from . import session_lock
from .coach_advice import Adviser
from .coach_texts import state_text, summary_text, visit_end_text
from .notation import card_str, cards_str, parse_card, parse_cards, parse_hand, parse_rulers, quote
from .plays import check_unseen, default_play, describe, parse_play
from .review import review_view
from .session import Session, create, load, remove_leftovers, save
from .session_events import SessionError, encode_action, reputation_text

HELP = (
    "At any prompt: 'help', 'undo' (take back the last step), 'state' (everything on the table), "
    "'quit' (save and stop). Plays: 'debate' (or 'd'); a card such as '7H' to answer; 'JH', "
    "'JC', 'JD' for a Jack's ability ('H', 'C' and 'S' alone work too), 'JS 3' for Politics "
    "with kingdom 3; add a supporter to use it instead of the Jack ('JH QH', 'JS 3 KS'); two "
    "cards such as 'AC 2D' for Commerce's discards, and the cards drawn on one line ('4C 4S'). "
    "Enter takes the advice, the first option listed."
)


class Quit(Exception):
    """The player asked to stop."""


class _Undo(Exception):
    pass


@dataclass
class Prompt:
    """A question to the player: its text, the default (Enter), and how an answer becomes
    events (raising ValueError with a one-line reason when it cannot)."""

    text: str
    default: str | None
    parse: Callable[[str], list[dict]]


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
        self.ascii = ascii
        self.adviser = Adviser(console, time_limit, ascii)

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
                    "review",
                    session,
                )
            except Quit:  # end of input, or 'quit': nothing is left to play
                return
            if text.lower() in ("review", "end", "done", "y", "yes"):
                return
            self.refuse(
                f"{quote(text)}: the tour is over; press Enter for the review, or type 'undo'"
            )

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
                f"Visit {number}: the 8 cards you drew",
                None,
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
                    raise ValueError(
                        f"the ruler turns up one card, got {len(cards)}: {quote(text)}"
                    )
                check_unseen(visit, cards[0])
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
                check_unseen(visit, card)
            return [{"type": "card", "card": card.ascii()} for card in cards]

        if pending > 1:
            return Prompt(
                f"The {pending} cards {ability} drew (one line, e.g. '4C 4S')", None, draw
            )
        return Prompt(f"The card {ability} drew", None, draw)

    def _turn_down_prompt(self, session: Session, state) -> Prompt:
        """First edition (R7): the face-up cards that pay for the miss."""
        visit = state.visit
        owed = abs(visit.wins - visit.target)
        choices = turn_down_choices(state.tour, visit)
        face_up = " ".join(
            reputation_text(c) for c in dict.fromkeys(c for pick in choices for c in pick)
        )
        self.say(
            f"Missed kingdom {visit.position} by {owed}: turn {owed} face-up card(s) down "
            f"(Jacks as JC, supporters as KH). Face up: {face_up}"
        )
        pick = turn_down_choice(visit, choices)
        default = " ".join(reputation_text(c) for c in pick)
        return Prompt(
            f"Turn down {owed}",
            default,
            lambda text: [{"type": "turn_down", "cards": text.replace(",", " ").split()}],
        )

    # --- decisions, advised (advisor.coach_advice) ----------------------------------------

    def _kingdom_prompt(self, session: Session, state) -> Prompt:
        tour, hand = state.tour, state.hand
        self.say(f"Visit {state.visit_number}. Your hand: {cards_str(hand, self.ascii)}")
        if tour.config.first_edition:
            self.say(f"Reputation: {tour.reputation} face-up Jacks and supporters.")
        advised = None
        default = str(tour.unvisited[0])
        if self.advice:
            label = "advising: which kingdom" if tour.config.first_edition else None
            advised = self.adviser.advise(
                session, label, lambda: self.adviser.kingdom_advice(tour, hand)
            )
            default = advised.default

        def parse(text: str) -> list[dict]:
            try:
                position = int(text)
            except ValueError:
                raise ValueError(
                    f"{quote(text)} is not a kingdom number: type one of "
                    f"{', '.join(map(str, tour.unvisited))}"
                ) from None
            if position not in tour.unvisited:
                won = " (won already)" if position in tour.visited else ""
                raise ValueError(
                    f"kingdom {position}{won} cannot be visited: unvisited are "
                    f"{', '.join(map(str, tour.unvisited))}"
                )
            event = {"type": "kingdom", "position": position}
            if advised is not None:
                event["advice"] = advised.record(position)
            return [event]

        return Prompt("Kingdom to visit", default, parse)

    def _decision_prompt(self, session: Session, state) -> Prompt:
        visit: VisitState = state.visit
        advised = None
        default = describe(default_play(visit, legal_actions(visit)))
        if self.advice:
            label = "advising: " + ("which answer" if visit.phase is Phase.ANSWER else "what now")
            if visit.first_edition:
                compute = lambda: self.adviser.first_edition_advice(state)
            else:
                compute = lambda: self.adviser.move_advice(state)
            advised = self.adviser.advise(session, label, compute)
            default = advised.default
        self.say(f"Hand: {cards_str(visit.hand, self.ascii)}   wins {visit.wins} of {visit.target}")

        def parse(text: str) -> list[dict]:
            action = parse_play(text, visit)
            event = {"type": "action", "action": encode_action(action)}
            if advised is not None:
                event["advice"] = advised.record(action)
            return [event]

        return Prompt("Your play", default, parse)

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
                self.say(
                    escape(state_text(session, self.ascii)) if session else "Nothing played yet."
                )
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
    with session_lock.hold(path):  # a second coach on the file is refused, the file untouched
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
