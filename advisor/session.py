"""The saved state of a coached tour: an append-only event log, replayed through the rules.

A session never stores a game state. It stores the tour's set-up (config, mode, seed, the
rulers on positions 1..n) and the events that happened since, in order (their form and the
checks of their shape: :mod:`advisor.session_events`).

The tour is always recomputed by replaying the log through the rules engine's checked doors
(:func:`search.game.rules.apply_action`, :func:`search.game.rules.apply_chance`,
:func:`search.game.tour.start_visit`),
so a saved file can never hold an inconsistent state, and undo drops the last event.

In ``seeded`` mode the deal (:class:`search.game.deal.Deal`) fixes the layout, every hand and every
card that turns up; replay checks each recorded card against it, so a resumed session turns up
exactly the cards an uninterrupted run would. In ``physical`` mode the player reports the cards.

Files are written atomically (temp file, fsync, rename, fsync of the directory): a crash at
any moment leaves either the old file or the new one.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from search.game import (
    CardSet,
    Deal,
    Dealer,
    IllegalActionError,
    TourConfig,
    TourState,
    VisitState,
    apply_action,
    apply_chance,
    finish_visit,
    new_tour,
    start_visit,
    turn_down_choices,
)
from search.infra import (
    UnreadableFileError,
    fsync_directory,
    leftover_temp_files,
    read_json,
    write_atomically,
    write_temp,
)

from .notation import NotationError, card_str, parse_ruler, ruler_str
from .session_events import (
    SessionError,
    brief,
    check_event,
    decode_action,
    parse_reputation_card,
    read_card,
    read_cards,
    read_position,
    read_texts,
)

FORMAT = "emissary-coach"
VERSION = 2  # 2: the first edition (config first_edition, turn_down events); reads 1
MODES = ("physical", "seeded")
MAX_FILE_BYTES = 8 * 1024 * 1024  # a finished tour is a few dozen kilobytes
MAX_DEPTH = 16  # a session nests 5 deep (file, events, event, action or advice, cards)


# --- replay --------------------------------------------------------------------


@dataclass(frozen=True)
class Replayed:
    """Where a session stands: the tour, the visit under way and what is due next.

    ``hand`` holds the 8 cards drawn while the kingdom is still to be chosen;
    ``last_visit`` is the most recently ended visit (for the review).
    """

    tour: TourState
    visit: VisitState | None = None
    hand: CardSet | None = None
    last_visit: VisitState | None = None
    events: int = 0
    _dealer: Dealer | None = field(default=None, repr=False, compare=False)

    @property
    def visit_number(self) -> int:
        """The visit under way or next due (1-based); the number played once the tour is over."""
        return self.tour.visits if self.tour.over else self.tour.visits + 1

    @property
    def phase(self) -> str:
        """What the session waits for: hand, kingdom, decision, card, turn_down (first
        edition: cards to pay for a miss, R7), or over."""
        if self.tour.over:
            return "over"
        if self.visit is None:
            return "kingdom" if self.hand is not None else "hand"
        if self.visit.over:
            return "turn_down"
        return "card" if self.visit.is_chance else "decision"


class _Setup:
    """The fixed part of a session the replay needs: config, mode and the deal if seeded."""

    def __init__(self, session: Session) -> None:
        self.config = session.config
        self.deal = Deal(session.seed, session.config) if session.mode == "seeded" else None


def _step(setup: _Setup, state: Replayed, event: dict) -> Replayed:
    """``state`` after one checked event; raises SessionError or IllegalActionError."""
    phase = state.phase
    kind = event["type"]
    number = state.tour.visits + 1
    if phase == "over":
        raise SessionError(f"the tour is over: no {kind} event can follow")
    if kind == "hand":
        if phase != "hand":
            raise SessionError(f"a hand is not due now (waiting for: {phase})")
        try:
            hand = CardSet(read_cards(event["cards"]))
        except NotationError as error:
            raise SessionError(str(error)) from None
        if len(hand) != 8:
            raise SessionError(f"a visit starts with 8 cards, got {len(hand)}")
        if setup.deal is not None and hand != setup.deal.hand(number):
            raise SessionError(
                f"visit {number} of seed {setup.deal.seed} draws "
                f"{setup.deal.hand(number).ascii()}, "
                f"not {hand.ascii()}"
            )
        return Replayed(state.tour, hand=hand, last_visit=state.last_visit, events=state.events + 1)
    if kind == "kingdom":
        if phase != "kingdom":
            raise SessionError(f"a kingdom is not due now (waiting for: {phase})")
        visit = start_visit(state.tour, state.hand, read_position(event["position"]))
        dealer = setup.deal.dealer(number) if setup.deal is not None else None
        return Replayed(state.tour, visit, None, state.last_visit, state.events + 1, dealer)
    if kind == "turn_down":
        if phase != "turn_down":
            raise SessionError(f"no miss is to be paid for now (waiting for: {phase})")
        paid = tuple(parse_reputation_card(text) for text in read_texts(event["cards"]))
        tour = finish_visit(state.tour, state.visit, paid)
        return Replayed(tour, last_visit=state.visit, events=state.events + 1)
    dealer = state._dealer
    if kind == "action":
        if phase != "decision":
            raise SessionError(f"a decision is not due now (waiting for: {phase})")
        visit = apply_action(state.visit, decode_action(event["action"]))
    else:
        if phase != "card":
            raise SessionError(f"no card is due to turn up now (waiting for: {phase})")
        try:
            card = read_card(event["card"])
        except NotationError as error:
            raise SessionError(str(error)) from None
        if dealer is not None:
            dealer = copy.copy(dealer)  # the Dealer is stateful; earlier states keep theirs
            expected = dealer.next_card(state.visit)
            if card != expected:
                raise SessionError(
                    f"seed {setup.deal.seed} turns up {expected.ascii()} here, not {card.ascii()}"
                )
        visit = apply_chance(state.visit, card)
    if visit.over:
        if turn_down_choices(state.tour, visit):  # first edition: the player pays (R7)
            return Replayed(state.tour, visit, None, state.last_visit, state.events + 1)
        return Replayed(finish_visit(state.tour, visit), last_visit=visit, events=state.events + 1)
    return Replayed(state.tour, visit, None, state.last_visit, state.events + 1, dealer)


# --- the session ---------------------------------------------------------------


@dataclass(frozen=True)
class Session:
    """A coached tour: its set-up and the event log; every state is recomputed by replay."""

    config: TourConfig
    mode: str
    seed: int | None
    rulers: tuple[str, ...]
    events: tuple[dict, ...] = ()
    format: str = FORMAT
    version: int = VERSION
    _replayed: list = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def new(
        cls,
        config: TourConfig = TourConfig(),
        mode: str = "physical",
        seed: int | None = None,
        rulers: list[str] | tuple[str, ...] | None = None,
    ) -> Session:
        """A session with no events; a seeded one takes its rulers from the deal if not given."""
        if mode == "seeded" and rulers is None and isinstance(seed, int):
            rulers = [ruler_str(r, ascii=True) for r in Deal(seed, config).layout()]
        session = cls(config, mode, seed, tuple(rulers or ()))
        session.replay()
        return session

    def _setup(self) -> tuple[_Setup, TourState]:
        if self.format != FORMAT:
            raise SessionError(f"not an {FORMAT} session (format {brief(self.format)})")
        if not isinstance(self.version, int) or self.version > VERSION:
            raise SessionError(
                f"session version {brief(self.version)} is newer than this program reads ({VERSION})"
            )
        if self.mode not in MODES:
            raise SessionError(f"mode must be physical or seeded, got {brief(self.mode)}")
        seed_ok = isinstance(self.seed, int) and not isinstance(self.seed, bool)
        if self.mode == "seeded" and not (seed_ok and self.seed >= 0):
            raise SessionError(
                f"a seeded session needs an integer seed, 0 or more, got {brief(self.seed)}"
            )
        if self.mode == "physical" and self.seed is not None:
            raise SessionError("a physical session has no seed")
        try:
            rulers = [parse_ruler(r) for r in self.rulers]
        except (NotationError, AttributeError, TypeError):
            shown = list(self.rulers)
            raise SessionError(f"rulers must be written like 'KC', got {brief(shown)}") from None
        tour = new_tour(rulers, self.config)
        setup = _Setup(self)
        if setup.deal is not None and tuple(rulers) != setup.deal.layout():
            layout = " ".join(ruler_str(r, ascii=True) for r in setup.deal.layout())
            raise SessionError(f"seed {self.seed} lays out {layout}, not {' '.join(self.rulers)}")
        return setup, tour

    def replay(self) -> Replayed:
        """The state after every event, through the checked doors; raises SessionError."""
        if self._replayed:
            return self._replayed[0]
        try:
            setup, tour = self._setup()
            state = Replayed(tour)
            for index, event in enumerate(self.events):
                try:
                    state = _step(setup, state, check_event(event))
                except (SessionError, IllegalActionError, NotationError) as error:
                    raise SessionError(f"event {index + 1}: {error}") from None
        except IllegalActionError as error:
            raise SessionError(str(error)) from None
        self._replayed.append(state)
        return state

    def walk(self):
        """Each event with the states before and after it, in order: ``(index, event,
        before, after)``; ``after`` is None for an event the rules refuse (it is then
        skipped), so even a hand-edited file can be listed."""
        setup, tour = self._setup()
        state = Replayed(tour)
        for index, event in enumerate(self.events):
            try:
                after = _step(setup, state, check_event(event))
            except (SessionError, IllegalActionError, NotationError):
                yield index, event, state, None
                continue
            yield index, event, state, after
            state = after

    def append(self, event: dict) -> Session:
        """A new session with ``event`` appended, if legal; raises SessionError otherwise."""
        state = self.replay()
        event = check_event(event)
        try:
            state = _step(_Setup(self), state, event)
        except (IllegalActionError, NotationError) as error:
            raise SessionError(str(error)) from None
        session = Session(self.config, self.mode, self.seed, self.rulers, (*self.events, event))
        session._replayed.append(state)
        return session

    def undo(self) -> Session:
        """A new session without the last event; raises SessionError if there is none."""
        if not self.events:
            raise SessionError("nothing to undo: the session has no events")
        return Session(self.config, self.mode, self.seed, self.rulers, self.events[:-1])

    # --- seeded deals ---

    def _deal(self) -> Deal:
        if self.mode != "seeded":
            raise SessionError("only a seeded session deals cards; report the physical ones")
        return Deal(self.seed, self.config)

    def next_hand(self) -> list[str]:
        """The 8 cards the deal gives the next visit (ASCII); the session must wait for a hand."""
        deal, state = self._deal(), self.replay()
        if state.phase != "hand":
            raise SessionError(f"no hand is due now (waiting for: {state.phase})")
        return [card_str(c, ascii=True) for c in deal.hand(state.visit_number)]

    def next_chance_card(self) -> str:
        """The card the deal turns up now (ASCII); the session must wait for a card."""
        self._deal()
        state = self.replay()
        if state.phase != "card":
            raise SessionError(f"no card is due to turn up now (waiting for: {state.phase})")
        return card_str(copy.copy(state._dealer).next_card(state.visit), ascii=True)

    # --- JSON ---

    def to_json(self) -> dict:
        """The JSON-ready form saved to disk."""
        return {
            "format": self.format,
            "version": self.version,
            "config": {
                "short": self.config.short,
                "published_rules": self.config.published_rules,
                "first_edition": self.config.first_edition,
            },
            "mode": self.mode,
            "seed": self.seed,
            "rulers": list(self.rulers),
            "events": [dict(e) for e in self.events],
        }

    @classmethod
    def from_json(cls, data: Any) -> Session:
        """The session a JSON object holds, checked by replaying it; raises SessionError."""
        if not isinstance(data, dict):
            raise SessionError("not an emissary-coach session (not a JSON object)")
        if data.get("format") != FORMAT:
            raise SessionError(f"not an {FORMAT} session (format {brief(data.get('format'))})")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise SessionError(f"bad session version {brief(version)}")
        if version > VERSION:
            raise SessionError(
                f"session version {version} is newer than this program reads ({VERSION})"
            )
        config = data.get("config")
        if not isinstance(config, dict) or not all(
            isinstance(config.get(k), bool) for k in ("short", "published_rules")
        ):
            raise SessionError(
                f"config must give short and published_rules as true/false, got {brief(config)}"
            )
        first_edition = config.get("first_edition", False)
        if not isinstance(first_edition, bool):
            raise SessionError(
                f"config first_edition must be true or false, got {brief(first_edition)}"
            )
        rulers, events = data.get("rulers"), data.get("events")
        if not isinstance(rulers, list) or not isinstance(events, list):
            raise SessionError("rulers and events must be lists")
        session = cls(
            TourConfig(
                short=config["short"],
                published_rules=config["published_rules"],
                first_edition=first_edition,
            ),
            data.get("mode"),
            data.get("seed"),
            tuple(rulers),
            tuple(events),
            version=version,
        )
        session.replay()
        return session


# --- files ---------------------------------------------------------------------


def _session_bytes(session: Session) -> bytes:
    return (json.dumps(session.to_json(), indent=1, ensure_ascii=True) + "\n").encode("ascii")


def save(session: Session, path: str | os.PathLike) -> None:
    """Write ``session`` atomically: the file holds the old session or the new, never a mix."""
    data = _session_bytes(session)
    write_atomically(Path(path), lambda stream: stream.write(data))


def create(path: str | os.PathLike, session: Session) -> None:
    """Write a new session file; refuses if ``path`` exists (never overwrites a foreign file)."""
    path = Path(path)
    if path.exists():
        raise SessionError(f"{path}: already exists; choose another file or resume it")
    data = _session_bytes(session)
    temp = write_temp(path, lambda stream: stream.write(data))
    try:
        os.link(temp, path)  # atomic, and fails if the path appeared meanwhile
    except FileExistsError:
        raise SessionError(f"{path}: already exists; choose another file or resume it") from None
    finally:
        temp.unlink(missing_ok=True)
    fsync_directory(path.parent)


def remove_leftovers(path: str | os.PathLike) -> int:
    """Delete temp files that a save killed part-way left next to ``path``; returns how many.

    The session file itself is never touched: a save replaces it only once its temp file is
    complete, so a leftover temp file holds nothing the session needs.
    """
    # Exact names only (``.name.PID.XXXXXXXX.tmp``), never a glob: a session called ``*`` or
    # ``a[xy].json`` must not reach other files; and only those of a writer that has exited,
    # never a save under way in another process. A symlinked session saves beside its target.
    real = Path(os.path.realpath(path))
    removed = 0
    for leftover in leftover_temp_files(real.parent, real):
        leftover.unlink(missing_ok=True)
        removed += 1
    return removed


def load(path: str | os.PathLike) -> Session:
    """The session saved at ``path``, checked by replay; each problem is a one-line error.

    Only a regular UTF-8 file of at most ``MAX_FILE_BYTES`` holding plain JSON (no NaN or
    Infinity, nested at most ``MAX_DEPTH`` deep) gets as far as the replay
    (:func:`search.infra.read_json`).
    """
    try:
        data = read_json(path, "session file", MAX_FILE_BYTES, MAX_DEPTH)
    except UnreadableFileError as error:
        raise SessionError(str(error)) from None
    try:
        return Session.from_json(data)
    except SessionError as error:
        raise SessionError(f"{Path(path)}: {error}") from None
