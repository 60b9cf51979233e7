"""The events of a coached tour's session file, in their JSON form, and the checks of their shape
(not their legality, which the replay in :mod:`advisor.session` checks):

- ``{"type": "hand", "cards": ["AC", ...]}``: the 8 cards drawn for the next visit;
- ``{"type": "kingdom", "position": 3}``: the kingdom chosen for that visit;
- ``{"type": "action", "action": {...}}``: a decision, one of
  ``{"kind": "debate"}``, ``{"kind": "answer", "card": "7H"}``,
  ``{"kind": "ability", "suit": "S", "source": "KC" or null for the Jack, "target": 2 or null}``,
  ``{"kind": "discard", "cards": ["3C", "5D"]}``;
- ``{"type": "card", "card": "7H"}``: a chance outcome, the card revealed or drawn.

``kingdom`` and ``action`` events may carry an ``"advice"`` dict for the review; replay ignores
it. Its fields: ``best`` (the option shown first) and ``default`` (the prompt's default, the
same option; older files lack it), ``chance`` and ``played`` (the chances of the best and of
what was played; a kingdom's ``chances`` by position), ``estimate`` (either chance is a Monte
Carlo estimate; a kingdom's ``estimated`` positions, and ``bounded`` those whose chance is a
proven lower bound; its ``tour_values`` by position, the tour value each kingdom leads to,
and their ``objective``, ``score`` or ``perfect``), ``interval`` and ``played_interval``
(their 95% intervals), ``by_score`` (the first option is the best for the final score, not
the likeliest), ``stake`` (what winning the visit adds to the expected final score),
``spends`` and ``played_spends`` (the advice, or the play, spends a supporter),
``free_chance`` (the best option that spends none: what a supporter is weighed against); first
edition: ``cost`` or ``costs`` in expected reputation. An event without
advice was played with ``--no-advice``.

Every message of :class:`SessionError` is one line and quotes what it refuses, cut short.
"""

from __future__ import annotations

import json
import math
from typing import Any

from search.game import Action, Answer, Card, CardSet, Debate, Discard, Ruler, Suit, UseAbility

from .notation import NotationError, card_str, parse_card, parse_ruler, parse_suit, ruler_str

DECISION_EVENTS = ("kingdom", "action", "turn_down")
BRIEF = 40  # characters of a file's value an error message quotes


class SessionError(ValueError):
    """A session event, object or file that cannot be used; the message is one line."""


def brief(value: Any) -> str:
    """The repr of a value read from a file, cut so a message stays one short line."""
    text = repr(value)
    return text if len(text) <= BRIEF else text[: BRIEF - 1] + "…"


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# --- encoding ------------------------------------------------------------------


def encode_action(action: Action) -> dict:
    """The JSON-ready form of a rules-engine action."""
    if isinstance(action, Debate):
        return {"kind": "debate"}
    if isinstance(action, Answer):
        return {"kind": "answer", "card": card_str(action.card, ascii=True)}
    if isinstance(action, UseAbility):
        return {
            "kind": "ability",
            "suit": action.suit.letter,
            "source": ruler_str(action.source, ascii=True) if action.source else None,
            "target": action.target,
        }
    return {"kind": "discard", "cards": [card_str(c, ascii=True) for c in action.cards]}


def read_card(value: Any) -> Card:
    """The card a file's text names, like '7H'."""
    if not isinstance(value, str):
        raise SessionError(f"a card must be written as text like '7H', got {brief(value)}")
    return parse_card(value)


def read_cards(value: Any) -> list[Card]:
    """The distinct cards a file's list names, like ['7H', 'AC']."""
    if not isinstance(value, list):
        raise SessionError(f"cards must be a list like ['7H', 'AC'], got {brief(value)}")
    cards = [read_card(v) for v in value]
    if len(set(cards)) != len(cards):
        raise SessionError(f"a card is given twice in {brief(value)}")
    return cards


def read_position(value: Any) -> int:
    """A kingdom position as a file gives it: an integer (the rules check its range)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise SessionError(f"a kingdom position must be an integer, got {brief(value)}")
    return value


def decode_action(data: Any) -> Action:
    """The action a JSON form names; raises :class:`SessionError` on a malformed one."""
    if not isinstance(data, dict):
        raise SessionError(f"an action must be an object, got {brief(data)}")
    kind = data.get("kind")
    try:
        if kind == "debate":
            return Debate()
        if kind == "answer":
            return Answer(read_card(data.get("card")))
        if kind == "ability":
            suit = data.get("suit")
            if not isinstance(suit, str):
                raise SessionError(f"an ability needs a suit letter, got {brief(suit)}")
            source = data.get("source")
            if source is not None and not isinstance(source, str):
                raise SessionError(
                    f"an ability source must be a ruler like 'KC' or null, got {brief(source)}"
                )
            target = data.get("target")
            return UseAbility(
                parse_suit(suit),
                parse_ruler(source) if source is not None else None,
                read_position(target) if target is not None else None,
            )
        if kind == "discard":
            return Discard(CardSet(read_cards(data.get("cards"))))
    except NotationError as error:
        raise SessionError(str(error)) from None
    raise SessionError(f"unknown action kind {brief(kind)}: debate, answer, ability or discard")


def check_event(event: Any) -> dict:
    """A JSON-ready deep copy of ``event`` after checking its shape (not its legality)."""
    if not isinstance(event, dict):
        raise SessionError(f"an event must be an object, got {brief(event)}")
    try:
        event = json.loads(json.dumps(event))
    except (TypeError, ValueError) as error:
        raise SessionError(f"an event must be plain JSON data: {error}") from None
    kind = event.get("type")
    if not isinstance(kind, str):
        raise SessionError(f"an event needs a type such as 'hand', got {brief(kind)}")
    expected = {
        "hand": {"cards"},
        "kingdom": {"position"},
        "action": {"action"},
        "card": {"card"},
        "turn_down": {"cards"},
    }.get(kind)
    if expected is None:
        raise SessionError(
            f"unknown event type {brief(kind)}: hand, kingdom, action, card or turn_down"
        )
    allowed = expected | {"type"} | ({"advice"} if kind in DECISION_EVENTS else set())
    missing = sorted(expected - event.keys())
    extra = sorted(event.keys() - allowed)
    if missing:
        raise SessionError(f"a {kind} event needs {brief(missing[0])}")
    if extra:
        raise SessionError(f"a {kind} event cannot carry {brief(extra[0])}")
    if "advice" in event:
        _check_advice(event["advice"])
    return event


def _check_advice(advice: Any) -> None:
    """Advice is only shown in the review, but its fields must have the types the coach wrote."""
    if not isinstance(advice, dict):
        raise SessionError(f"advice must be an object, got {brief(advice)}")
    best = advice.get("best")
    if best is not None and (isinstance(best, bool) or not isinstance(best, int | str)):
        raise SessionError(f"advice 'best' must be a kingdom or a play, got {brief(best)}")
    default = advice.get("default")
    if default is not None and (isinstance(default, bool) or not isinstance(default, int | str)):
        raise SessionError(f"advice 'default' must be a kingdom or a play, got {brief(default)}")
    for key in ("estimate", "by_score", "spends", "played_spends"):
        if advice.get(key) is not None and not isinstance(advice[key], bool):
            raise SessionError(f"advice {key!r} must be true or false, got {brief(advice[key])}")
    for key in ("interval", "played_interval"):
        value = advice.get(key)
        if value is not None and not (
            isinstance(value, list) and len(value) == 2 and all(_number(v) for v in value)
        ):
            raise SessionError(f"advice {key!r} must be two numbers or null, got {brief(value)}")
    for key in ("estimated", "bounded"):
        listed = advice.get(key)
        if listed is not None and not (
            isinstance(listed, list) and all(isinstance(v, str) for v in listed)
        ):
            raise SessionError(f"advice {key!r} must list kingdoms like '3', got {brief(listed)}")
    for key in ("played", "chance", "cost", "stake", "free_chance"):
        if advice.get(key) is not None and not _number(advice[key]):
            raise SessionError(f"advice {key!r} must be a number or null, got {brief(advice[key])}")
    objective = advice.get("objective")
    if objective is not None and objective not in ("score", "perfect"):
        raise SessionError(f"advice 'objective' must be score or perfect, got {brief(objective)}")
    for key in ("chances", "costs", "tour_values"):
        if key not in advice:
            continue
        table = advice[key]
        if not isinstance(table, dict) or not all(
            value is None or _number(value) for value in table.values()
        ):
            raise SessionError(f"advice {key!r} must map kingdoms to numbers, got {brief(table)}")


# --- first edition: the face-up cards that pay for a miss (R7) ---------------


def parse_reputation_card(text: str) -> Suit | Ruler:
    """A face-up card paying for a miss (R7): a Jack as ``JC`` or a supporter as ``KH``."""
    cleaned = text.strip()
    if len(cleaned) >= 2 and cleaned[0] in "Jj":
        try:
            return parse_suit(cleaned[1:])
        except NotationError as error:
            raise SessionError(f"{brief(text)} is not a Jack: {error}") from None
    try:
        return parse_ruler(cleaned)
    except NotationError:
        raise SessionError(
            f"{brief(text)} is neither a Jack (like JC) nor a supporter (like KH)"
        ) from None


def reputation_text(card: Suit | Ruler) -> str:
    """``JC`` for a Jack, ``KH`` for a supporter."""
    return f"J{card.letter}" if isinstance(card, Suit) else card.ascii()


def read_texts(value: Any) -> list[str]:
    """A file's list of texts, like ['JC', 'KH']."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SessionError(f"cards must be a list of texts like 'JC' or 'KH', got {brief(value)}")
    return value
