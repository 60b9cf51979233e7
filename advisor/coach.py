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

import math
import os
import shlex
from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

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
from search.visit import position_from_visit

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
)
from .session import (
    Session,
    SessionError,
    create,
    encode_action,
    load,
    remove_leftovers,
    reputation_text,
    save,
)

HELP = (
    "At any prompt: 'help', 'undo' (take back the last step), 'state' (where the tour stands), "
    "'quit' (save and stop). Plays: 'd' or 'debate'; a card such as '7H' to answer; 'JH', 'JC', 'JD' "
    "for a Jack's ability ('H', 'C' and 'S' alone work too; 'd' alone is a debate), 'JS 3' for "
    "Politics with kingdom 3, add a supporter to use it instead of the Jack ('JH QH'); two cards "
    "such as 'AC 2D' for Commerce's discards. Enter takes the suggestion."
)


class Quit(Exception):
    """The player asked to stop."""


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
                    self.say(f"[red]{escape(' '.join(str(error).split()))}[/red]")
        create(self.path, session)
        return session

    # --- the loop ------------------------------------------------------------------------

    def run(self, session: Session) -> Session:
        """Play until the tour is over or the player quits; returns the final session."""
        try:
            while True:
                state = session.replay()
                if state.phase == "over":
                    break
                event = self.next_event(session, state)
                session = self.commit(session, event)
        except Quit:
            resume = f"emissary coach --session {shlex.quote(str(self.path))}"
            self.say(f"Saved. Resume with: {escape(resume)}")
            return session
        self.console.print(review_view(session, self.ascii))
        return session

    def commit(self, session: Session, event: dict) -> Session:
        session = session.append(event)
        save(session, self.path)
        return session

    def next_event(self, session: Session, state) -> dict:
        """Ask for (or deal) what comes next; repeats the prompt until the input is legal."""
        while True:
            try:
                event = self._event(session, state)
                session.append(event)  # validate before saving
                return event
            except _Undo:
                raise
            except ValueError as error:
                self.say(f"[red]{escape(' '.join(str(error).split()))}[/red]")

    def _event(self, session: Session, state) -> dict:
        phase = state.phase
        number = state.visit_number
        if phase == "hand":
            if session.mode == "seeded":
                return {"type": "hand", "cards": session.next_hand()}
            text = self.ask(f"Visit {number}: the 8 cards you drew", None, session)
            return {"type": "hand", "cards": [c.ascii() for c in parse_hand(text)]}
        if phase == "card":
            if session.mode == "seeded":
                card = session.next_chance_card()
                self.say(f"Turned up: {card_str(parse_card(card), self.ascii)}")
                return {"type": "card", "card": card}
            what = "the ruler's card" if state.visit.phase is Phase.REVEAL else "the card you drew"
            text = self.ask(f"Which card turned up ({what})", None, session)
            return {"type": "card", "card": parse_card(text).ascii()}
        if phase == "kingdom":
            return self._kingdom_event(session, state)
        if phase == "turn_down":
            return self._turn_down_event(session, state)
        return self._decision_event(session, state)

    def _turn_down_event(self, session: Session, state) -> dict:
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
        text = self.ask(f"Turn down {owed}", default, session)
        return {"type": "turn_down", "cards": text.replace(",", " ").split()}

    def _kingdom_event(self, session: Session, state) -> dict:
        tour, hand = state.tour, state.hand
        suggestion, advice = tour.unvisited[0], None
        self.say(f"Visit {state.visit_number}. Your hand: {cards_str(hand, self.ascii)}")
        if tour.config.first_edition:
            self.say(f"Reputation: {tour.reputation} face-up Jacks and supporters.")
        if self.advice and tour.config.first_edition:
            result = advise_first_edition(tour, hand, self.time_limit)
            self.console.print(firstedition_views.advise_view(result, tour, hand, self.ascii))
            suggestion = result.recommended
            losses = net_losses(tour, result.kingdoms)
            advice = {"best": suggestion, "costs": {str(p): c for p, c in losses.items()}}
        elif self.advice:
            result = advise_visit(tour, hand, time_limit=self.time_limit)
            self.console.print(tables.advise_view(result, tour, self.ascii))
            suggestion = result.recommended.position
            chances = {k.position: k.chance("all").value for k in result.kingdoms}
            advice = {"best": suggestion, "chances": {str(p): c for p, c in chances.items()}}
        text = self.ask("Kingdom to visit", str(suggestion), session)
        try:
            position = int(text)
        except ValueError:
            raise ValueError(f"{quote(text)} is not a kingdom number") from None
        event = {"type": "kingdom", "position": position}
        if advice is not None:
            measure = "costs" if "costs" in advice else "chances"
            advice["played"] = advice[measure].get(str(position))
            event["advice"] = advice
        return event

    def _decision_event(self, session: Session, state) -> dict:
        visit: VisitState = state.visit
        legal = legal_actions(visit)
        suggestion = _default_play(visit, legal)
        moves = None
        if self.advice and visit.first_edition:
            return self._first_edition_decision(session, state, suggestion)
        if self.advice:
            jacks_used = [s for s in Suit if s not in visit.jacks]
            moves = rank_moves(
                _tour_for(state),
                visit.position,
                position_from_visit(visit),
                jacks_used,
                time_limit=self.time_limit,
            )
            self.console.print(tables.move_view(moves, _tour_for(state), self.ascii))
            if moves.moves:
                suggestion = _action_of(moves.moves[0], visit)
            by_score = score_best_action(_tour_for(state), visit)
            if by_score is not None and by_score != suggestion:
                self.say(f"For the final score (a supporter spent costs its point): {describe(by_score, self.ascii)}")
                suggestion = by_score
        self.say(f"Hand: {cards_str(visit.hand, self.ascii)}   wins {visit.wins} of {visit.target}")
        text = self.ask("Your play", describe(suggestion, self.ascii), session)
        action = parse_play(text, visit)
        event = {"type": "action", "action": encode_action(action)}
        if moves is not None and moves.moves:
            best = moves.moves[0]
            played = next((m.chance for m in moves.moves if _action_of(m, visit) == action), None)
            event["advice"] = {"best": describe(_action_of(best, visit), True), "chance": best.chance, "played": played}
        return event

    def _first_edition_decision(self, session: Session, state, suggestion) -> dict:
        """A decision advised by expected reputation spent (R5-R7)."""
        visit = state.visit
        if self._visit_search is None or self._visit_search[0] != (state.visit_number, visit.position):
            self._visit_search = ((state.visit_number, visit.position), VisitSearch())
        ranked, searched = rank_first_edition(visit, self.time_limit, self._visit_search[1])
        self.console.print(firstedition_views.move_view(ranked, searched, visit, self.ascii))
        if ranked:
            suggestion = ranked[0].action
        self.say(f"Hand: {cards_str(visit.hand, self.ascii)}   wins {visit.wins} of {visit.target}")
        text = self.ask("Your play", describe(suggestion, self.ascii), session)
        action = parse_play(text, visit)
        event = {"type": "action", "action": encode_action(action)}
        if ranked:
            played = next((r.cost for r in ranked if r.action == action), None)
            event["advice"] = {"best": describe(ranked[0].action, True), "cost": ranked[0].cost, "played": played}
        return event

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
                self.say(HELP)
            elif command == "quit":
                raise Quit
            elif command == "state":
                self.say(state_text(session, self.ascii) if session else "Nothing played yet.")
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
    """The action a player typed (checked against the rules when it is applied)."""
    words = text.replace(",", " ").split()
    if not words:
        raise ValueError("no play given: type 'd' to debate, a card, or 'help'")
    head = words[0].lower()
    if head in ("d", "debate"):
        return Debate()
    if visit.phase is Phase.DISCARD:
        return Discard(CardSet(parse_cards(text)))
    if visit.phase is Phase.ANSWER:
        return Answer(parse_card(words[0]))
    ability = words[0].upper()
    if (len(ability) == 2 and ability[0] == "J" and ability[1] in "HCDS") or ability in ("H", "C", "S"):
        suit = Suit.from_letter(ability[-1])
        target, source = None, None
        for word in words[1:]:
            if word.isdigit():
                target = int(word)
            else:
                source = parse_ruler(word)
        return UseAbility(suit, source, target)
    raise ValueError(f"{quote(text)} is not a play here: type 'd' to debate, or 'help'")


def state_text(session: Session, ascii: bool) -> str:
    """Where the tour stands, in a few lines."""
    state = session.replay()
    tour = state.tour
    lines = [f"Score so far {tour.score}; kingdoms won {sorted(tour.visited) or 'none'}."]
    if state.visit is not None:
        visit = state.visit
        lines.append(
            f"Visiting kingdom {visit.position} (target {visit.target}, trump {visit.trump.letter}): "
            f"hand {cards_str(visit.hand, True)}, wins {visit.wins}."
        )
    return "\n".join(lines)


def review_view(session: Session, ascii: bool = False) -> Table:
    """Each advised decision: the advice, what was played, the chance it cost (first edition:
    the expected reputation it spent beyond the best); then the score."""
    state = session.replay()
    table = Table(title=f"Review: final score {state.tour.score}", title_justify="left")
    table.add_column("step", justify="right")
    table.add_column("advice")
    table.add_column("played")
    table.add_column("cost", justify="right")
    for index, event in enumerate(session.events, start=1):
        advice = event.get("advice")
        if not isinstance(advice, dict) or not advice:
            continue
        best = advice.get("best")
        if event["type"] == "kingdom":
            best_text, played = f"kingdom {best}", f"kingdom {event['position']}"
            if "costs" in advice:
                cost = _extra_reputation(_table_entry(advice["costs"], best), advice.get("played"))
            else:
                cost = _cost(_table_entry(advice.get("chances"), best), advice.get("played"))
        else:
            best_text = "?" if best is None else str(best)
            if event["type"] == "action":
                played = _played_text(event["action"])
            else:  # turn_down: the face-up cards that paid for a miss
                played = " ".join(str(card) for card in event.get("cards", ()))
            if "cost" in advice:
                cost = _extra_reputation(advice["cost"], advice.get("played"))
            else:
                cost = _cost(advice.get("chance"), advice.get("played"))
        # Texts come from a file anyone can edit: never read them as rich markup.
        table.add_row(str(index), escape(best_text), escape(played), cost)
    return table


def _table_entry(table, key):
    return table.get(str(key)) if isinstance(table, dict) else None


def _real(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _cost(best, played) -> str:
    if not (_real(best) and _real(played)):
        return "?"
    loss = best - played
    return "" if loss <= 1e-12 else f"{100 * loss:.2f}%"


def _extra_reputation(best, played) -> str:
    """First edition: the expected reputation a choice spends beyond the best one."""
    if not (_real(best) and _real(played)):
        return "?"
    extra = played - best
    return "" if extra <= 1e-12 else f"+{extra:.3f} rep"


def _played_text(action: dict) -> str:
    kind = action.get("kind")
    if kind == "debate":
        return "debate"
    if kind == "answer":
        return str(action.get("card"))
    if kind == "discard":
        return " ".join(str(card) for card in action.get("cards", ()))
    text = str(action.get("suit"))
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
