"""The plays a player types at the coach's prompt: parsed, refused with the rule in play
when the rules do not allow them now, and written back as the player types them."""

from __future__ import annotations

from search.game import Answer, CardSet, Debate, Discard, Phase, Suit, UseAbility, VisitState

from .notation import card_str, cards_str, parse_card, parse_cards, parse_ruler, quote


def check_unseen(visit: VisitState, card) -> None:
    """A card that turns up comes from the deck: not one in view (R1: the discard pile
    returns only once the deck is empty)."""
    if card in visit.deck:
        return
    where = (
        "is in your hand"
        if card in visit.hand
        else "lies in the scoring pile (won cards never return, R1)"
        if card in visit.scoring
        else "lies in the discard pile, which returns only once the deck is empty (R1)"
        if card in visit.discard
        else "is the ruler's card waiting"
        if card == visit.waiting
        else None
    )
    where = f" {where}, not in the deck" if where else " is not in the deck"
    raise ValueError(f"{card.ascii()}{where}: it cannot turn up now")


def default_play(visit: VisitState, legal: list):
    """The suggestion without advice: debate now, the first legal answer or discard."""
    return Debate() if visit.phase is Phase.DECIDE else legal[0]


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
    is_ability = (len(ability) == 2 and ability[0] == "J" and ability[1] in "HCDS") or ability in (
        "H",
        "C",
        "S",
    )
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
            raise ValueError(
                f"{action.source.ascii()} lends {action.source.suit.ability}, not {suit.ability}"
            )
        if action.source not in visit.supporters:
            unused = " ".join(r.ascii() for r in visit.supporters) or "none"
            raise ValueError(
                f"{action.source.ascii()} is not an unused supporter (unused: {unused})"
            )
    elif suit not in visit.jacks:
        lenders = [r.ascii() for r in visit.supporters if r.suit is suit]
        if lenders:
            raise ValueError(
                f"your {suit.letter} Jack is used this visit (each Jack once a visit): to use "
                f"supporter {lenders[0]} instead, type 'J{suit.letter} {lenders[0]}' (it costs its point)"
            )
        raise ValueError(
            f"your {suit.letter} Jack is used this visit (each Jack once a visit), "
            f"and no unused supporter lends {suit.ability}"
        )
    if visit.published_rules:
        return
    if suit is Suit.SPADES:
        _check_politics(visit, action.target)
    elif action.target is not None:
        raise ValueError(f"only Politics names a kingdom: type 'J{suit.letter}' alone")
    elif suit is Suit.HEARTS and not visit.hand.has_suit(trump):
        raise ValueError(
            f"{name} discards your trumps ({trump.letter}), and you hold none: "
            "it would do nothing (allowed only with --published-rules, R4)"
        )
    elif suit is Suit.CLUBS and not visit.hand.has_suit(Suit.CLUBS):
        raise ValueError(
            f"{name} draws a card per club in your hand, and you hold none: "
            "it would do nothing (allowed only with --published-rules, R4)"
        )
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
        raise ValueError(
            f"Politics needs the kingdom to swap with, e.g. 'JS 3': one whose ruler is "
            f"not of the trump suit {trump}; {allowed}"
        )
    count = len(visit.rulers)
    if not 1 <= target <= count:
        raise ValueError(f"there is no kingdom {target} (kingdoms 1-{count}); Politics {allowed}")
    ruler = visit.rulers[target - 1]
    if target == visit.position:
        raise ValueError(
            f"kingdom {target} is the one you visit; Politics swaps with another: {allowed}"
        )
    if ruler is None:
        raise ValueError(
            f"kingdom {target} is won already: Politics swaps with an unvisited kingdom; {allowed}"
        )
    if ruler.suit is visit.trump:
        raise ValueError(
            f"Politics cannot bring {ruler.ascii()} from kingdom {target}: its suit is the trump "
            f"here ({trump}), and Politics must change the trump; {allowed}"
        )
