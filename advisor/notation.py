"""Card notation: parse what a person types, print what they can type back.

Deck cards (docs/rules.md §1) are a rank then a suit, with no space between:

- rank: ``A`` (or ``a``, or ``1``) for the Ace, ``2`` to ``8``;
- suit, any case: ``C D H S``; the symbols ``♣ ♦ ♥ ♠`` (the white ``♧ ♢ ♡ ♤`` too);
  or German ``Kr`` (Kreuz ♣), ``Ka`` (Karo ♦), ``H``/``He`` (Herz ♥), ``P``/``Pi`` (Pik ♠).

So ``AC``, ``a♣``, ``1c``, ``AKr`` and ``1kr`` are all the Ace of clubs. Cards in a list are
separated by spaces, commas or both: ``AC 7H, 3♠``.

Rulers are ``K`` or ``Q`` plus a suit in the same forms: ``KC``, ``Q♥``, ``KKr``, ``QKa``.

Why this scheme. German suits need two letters: a bare ``K`` would be read as King, and it is
ambiguous anyway between Kreuz and Karo, so ``7K`` is refused with a hint to write ``7Kr`` or
``7Ka``. German ranks are not accepted beyond the Ace and digits: Dame (``D``) clashes with
Diamonds, so rulers are written ``K``/``Q`` only, and a Bube (``B``) is a Jack, refused like
``J``. The two-letter suit forms never read as two one-letter suits (``r``, ``a``, ``i`` and
``e`` are no suits), so runs of suits such as ``KrKaP`` tokenize greedily without doubt.

Hands never hold 9s, 10s, Jacks or rulers; each of these is refused with its own message.
Every error is a :class:`NotationError` (a ``ValueError``) with a one-line message that quotes
the offending text and says what is allowed. Printed forms (``A♣`` or ``AC``) parse back.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rich.text import Text

from search.game import CARDS, Card, CardSet, Ruler, Suit, rank_text

__all__ = [
    "DuplicateCardError",
    "EmptyInputError",
    "HandSizeError",
    "InvalidCardError",
    "InvalidRulerError",
    "NotationError",
    "UnknownSuitError",
    "card_str",
    "card_text",
    "cards_str",
    "cards_text",
    "parse_card",
    "parse_cards",
    "parse_hand",
    "parse_layout",
    "parse_positions",
    "parse_ruler",
    "parse_rulers",
    "parse_suit",
    "parse_suits",
    "quote",
    "ruler_str",
    "ruler_text",
    "suit_str",
    "suit_text",
]

RED_STYLE = "red"
BLACK_STYLE = "bold"


class NotationError(ValueError):
    """Text that is not valid card notation; the message is one line."""


class InvalidCardError(NotationError):
    """A token that is not a deck card (garbage, a 9 or 10, a Jack, a ruler)."""


class DuplicateCardError(NotationError):
    """The same card or ruler given twice."""


class HandSizeError(NotationError):
    """A hand with the wrong number of cards."""


class EmptyInputError(NotationError):
    """No cards, suits or rulers where some are needed."""


class UnknownSuitError(NotationError):
    """A suit that is not one of the accepted forms, or the ambiguous German ``K``."""


class InvalidRulerError(NotationError):
    """A token that is not a King or Queen, or a wrong number of rulers."""


_SUIT_FORMS: dict[str, Suit] = {
    "c": Suit.CLUBS,
    "d": Suit.DIAMONDS,
    "h": Suit.HEARTS,
    "s": Suit.SPADES,
    "♣": Suit.CLUBS,
    "♦": Suit.DIAMONDS,
    "♥": Suit.HEARTS,
    "♠": Suit.SPADES,
    "♧": Suit.CLUBS,
    "♢": Suit.DIAMONDS,
    "♡": Suit.HEARTS,
    "♤": Suit.SPADES,
    "kr": Suit.CLUBS,
    "ka": Suit.DIAMONDS,
    "he": Suit.HEARTS,
    "p": Suit.SPADES,
    "pi": Suit.SPADES,
}
_SEPARATORS = re.compile(r"[\s,]+")
# Pasted symbols often carry an emoji/text presentation selector (♥️); it is not part of the suit.
_PRESENTATION = str.maketrans("", "", "\ufe0e\ufe0f")
_RANK_SPLIT = re.compile(r"([0-9]+|[A-Za-z])(.*)", re.DOTALL)
_DECK_RANKS = {"a": 1, "1": 1, **{str(r): r for r in range(2, 9)}}
_PIECE = r"(?:10|[1-9]|[ajbkq])(?:kr|ka|pi|he|[cdhsp♣♦♥♠♧♢♡♤])"
_GLUED = re.compile(f"(?:{_PIECE})+", re.IGNORECASE)
_GLUED_PIECE = re.compile(_PIECE, re.IGNORECASE)

QUOTE_LIMIT = 40  # characters of the user's text an error message quotes
_SUIT_HELP = "use C D H S, ♣ ♦ ♥ ♠, or German Kr Ka H P"
_AMBIGUOUS_HELP = "(Kreuz or Karo?): write Kr for ♣ or Ka for ♦"
_CARD_HELP = "a card is a rank (A, 2-8) then a suit, like 'AC' or '7♥'"
_RULER_HELP = "a ruler is K or Q then a suit, like 'KC' or 'Q♥'"


def quote(text: str) -> str:
    """The user's ``text`` quoted for an error message: ``repr``, cut to ``QUOTE_LIMIT`` characters.

    >>> quote("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'"
    """
    if len(text) > QUOTE_LIMIT:
        text = text[: QUOTE_LIMIT - 1] + "…"
    return repr(text)


_BLANKS = " \t\n"


def _refuse_controls(text: str) -> None:
    # Tabs and newlines separate cards like spaces; any other control character (a stray
    # carriage return, NUL, an escape sequence) is a paste gone wrong, named by its escape.
    for char in text:
        if char not in _BLANKS and unicodedata.category(char) == "Cc":
            raise NotationError(
                f"{quote(text.strip(_BLANKS))} holds the control character {char!r}: "
                "type cards, suits and rulers as plain text"
            )


def _clean(token: str) -> str:
    _refuse_controls(token)
    return token.strip().translate(_PRESENTATION)


def _tokens(text: str) -> list[str]:
    _refuse_controls(text)
    return [token for token in _SEPARATORS.split(text) if token]


def _lookup_suit(shown: str, suit_text: str) -> Suit:
    # Errors quote ``shown``, the whole token, so the user sees which card went wrong.
    suit = _SUIT_FORMS.get(suit_text.lower())
    if suit is not None:
        return suit
    if suit_text.lower() == "k":
        raise UnknownSuitError(
            f"{quote(shown)} has an ambiguous suit {quote(suit_text)} {_AMBIGUOUS_HELP}"
        )
    raise UnknownSuitError(f"{quote(shown)} has an unknown suit {quote(suit_text)}: {_SUIT_HELP}")


def _check_shape(
    shown: str,
    text: str,
    noun: str,
    ranks: tuple[str, ...],
    help_text: str,
    error: type[NotationError],
) -> None:
    # Common slips get a pointed hint instead of a bare "not a card": a space inside one token,
    # a lone suit, the suit written before the rank, and several cards typed without a gap.
    if _SEPARATORS.search(text):
        raise error(f"{quote(shown)} is not one {noun}: {help_text}")
    if text.lower() in _SUIT_FORMS:
        raise error(f"{quote(shown)} is a suit, not a {noun}: {help_text}")
    for width in (2, 1):
        suit_part, rank_part = text[:width], text[width:]
        if suit_part.lower() in _SUIT_FORMS and rank_part.lower() in ranks:
            raise error(
                f"{quote(shown)} puts the suit first: write the rank first, like "
                f"{quote(rank_part + suit_part)}"
            )
    if _GLUED.fullmatch(text) and len(pieces := _GLUED_PIECE.findall(text)) > 1:
        raise error(
            f"{quote(shown)} runs several {noun}s together: separate them with spaces or commas, "
            f"like {quote(' '.join(pieces))}"
        )


def parse_card(token: str) -> Card:
    """Parse one deck card such as ``AC``, ``7♥``, ``1kr`` or ``3Pi``.

    >>> parse_card("7♥"), parse_card("aKr")
    (Card.parse('7H'), Card.parse('AC'))
    """
    shown = token.strip()
    text = _clean(token)
    if not text:
        raise EmptyInputError(f"no card given: {_CARD_HELP}")
    _check_shape(shown, text, "card", tuple(_DECK_RANKS), _CARD_HELP, InvalidCardError)
    match = _RANK_SPLIT.fullmatch(text)
    rank_part = match.group(1).lower() if match else ""
    if rank_part not in (*_DECK_RANKS, "9", "10", "j", "b", "k", "q"):
        raise InvalidCardError(f"{quote(shown)} is not a card: {_CARD_HELP}")
    if not match.group(2):
        raise InvalidCardError(f"{quote(shown)} has no suit: {_CARD_HELP}")
    suit = _lookup_suit(shown, match.group(2))
    if rank_part in ("9", "10"):
        raise InvalidCardError(f"{quote(shown)} is not a deck card: 9s and 10s only mark kingdoms")
    if rank_part in ("j", "b"):
        raise InvalidCardError(
            f"{quote(shown)} is not a deck card: Jacks are advisors, not hand cards"
        )
    if rank_part in ("k", "q"):
        raise InvalidCardError(
            f"{quote(shown)} is a ruler, not a hand card: hand cards are Aces to 8s"
        )
    return CARDS[8 * suit + _DECK_RANKS[rank_part] - 1]


def _distinct(tokens: list[str], parse, noun: str) -> list:
    """Each token parsed, in order; a card or ruler given twice is refused, quoting both."""
    seen: dict = {}
    items = []
    for token in tokens:
        item = parse(token)
        if item in seen:
            first = seen[item]
            if first == token:
                raise DuplicateCardError(
                    f"{quote(token)} appears twice: each {noun} can be given once"
                )
            raise DuplicateCardError(
                f"{quote(token)} and {quote(first)} are the same {noun}: each {noun} can be given once"
            )
        seen[item] = token
        items.append(item)
    return items


def parse_cards(text: str) -> list[Card]:
    """Parse one or more distinct cards separated by spaces and/or commas, in input order.

    >>> parse_cards("AC, 7h ,3♠")
    [Card.parse('AC'), Card.parse('7H'), Card.parse('3S')]
    """
    tokens = _tokens(text)
    if not tokens:
        where = f" in {quote(text.strip())}" if text.strip() else ""
        raise EmptyInputError(f"no cards given{where}: type cards like 'AC 7H 3♠'")
    return _distinct(tokens, parse_card, "card")


def parse_hand(text: str, size: int = 8) -> CardSet:
    """Parse a hand of exactly ``size`` distinct deck cards."""
    cards = parse_cards(text)
    if len(cards) != size:
        noun = "card" if size == 1 else "cards"
        raise HandSizeError(f"a hand has {size} {noun}, got {len(cards)}: {quote(text.strip())}")
    return CardSet(cards)


def parse_suit(token: str) -> Suit:
    """Parse one suit: ``C``, ``♣``, ``♧``, ``Kr``, ``P``, ``Pi``, ``He`` and so on."""
    shown = token.strip()
    text = _clean(token)
    if not text:
        raise EmptyInputError(f"no suit given: {_SUIT_HELP}")
    suit = _SUIT_FORMS.get(text.lower())
    if suit is not None:
        return suit
    if text.lower() == "k":
        raise UnknownSuitError(f"{quote(shown)} is ambiguous {_AMBIGUOUS_HELP}")
    raise UnknownSuitError(f"{quote(shown)} is not a suit: {_SUIT_HELP}")


def parse_suits(text: str) -> list[Suit]:
    """Parse a run of suits, repeats allowed; empty text or ``none`` gives no suits.

    >>> [suit.letter for suit in parse_suits("KrKaP, ♥h")]
    ['C', 'D', 'S', 'H', 'H']
    """
    shown = text.strip()
    if _clean(text).lower() in ("", "none"):
        return []
    suits = []
    for chunk in _tokens(_clean(text)):
        position = 0
        while position < len(chunk):
            # Two-letter German forms first; none of them reads as two one-letter suits.
            for width in (2, 1):
                piece = chunk[position : position + width]
                suit = _SUIT_FORMS.get(piece.lower()) if len(piece) == width else None
                if suit is not None:
                    break
            if suit is None:
                bad = chunk[position]
                if bad.lower() == "k":
                    raise UnknownSuitError(
                        f"{quote(bad)} in {quote(shown)} is ambiguous {_AMBIGUOUS_HELP}"
                    )
                raise UnknownSuitError(
                    f"{quote(bad)} in {quote(shown)} is not a suit: {_SUIT_HELP}"
                )
            suits.append(suit)
            position += width
    return suits


def parse_ruler(token: str) -> Ruler:
    """Parse one ruler: ``K`` or ``Q`` then a suit, such as ``KC``, ``Q♥`` or ``KKa``.

    >>> parse_ruler("QKa")
    Ruler('Q', Suit.DIAMONDS)
    """
    shown = token.strip()
    text = _clean(token)
    if not text:
        raise EmptyInputError(f"no ruler given: {_RULER_HELP}")
    _check_shape(shown, text, "ruler", ("k", "q"), _RULER_HELP, InvalidRulerError)
    match = _RANK_SPLIT.fullmatch(text)
    rank_part = match.group(1).lower() if match else ""
    if rank_part not in (*_DECK_RANKS, "9", "10", "j", "b", "k", "q"):
        raise InvalidRulerError(f"{quote(shown)} is not a ruler: {_RULER_HELP}")
    if not match.group(2):
        raise InvalidRulerError(f"{quote(shown)} has no suit: {_RULER_HELP}")
    suit = _lookup_suit(shown, match.group(2))
    if rank_part in _DECK_RANKS:
        raise InvalidRulerError(f"{quote(shown)} is a deck card, not a ruler: {_RULER_HELP}")
    if rank_part in ("j", "b"):
        raise InvalidRulerError(f"{quote(shown)} is a Jack, an advisor, not a ruler: {_RULER_HELP}")
    if rank_part in ("9", "10"):
        raise InvalidRulerError(f"{quote(shown)} only marks a kingdom, not a ruler: {_RULER_HELP}")
    return Ruler(rank_part.upper(), suit)


def parse_rulers(text: str, count: int | None = None) -> list[Ruler]:
    """Parse distinct rulers in input order; with ``count``, exactly that many."""
    tokens = _tokens(text)
    if not tokens and count != 0:
        where = f" in {quote(text.strip())}" if text.strip() else ""
        raise EmptyInputError(f"no rulers given{where}: type rulers like 'KC Q♥'")
    rulers = _distinct(tokens, parse_ruler, "ruler")
    if count is not None and len(rulers) != count:
        noun = "ruler" if count == 1 else "rulers"
        raise InvalidRulerError(
            f"expected {count} {noun}, got {len(rulers)}: {quote(text.strip())}"
        )
    return rulers


EMPTY_KINGDOM = ("-", ".")


def parse_layout(text: str, count: int) -> list[Ruler | None]:
    """Parse the rulers lying on kingdoms 1..``count``, ``-`` or ``.`` where one has been won.

    >>> [r and r.ascii() for r in parse_layout("KC - Q♥ .", 4)]
    ['KC', None, 'QH', None]
    """
    tokens = _tokens(text)
    if not tokens:
        raise EmptyInputError(
            f"no rulers given: list the {count} kingdoms left to right, like 'KC - Q♥ ...' "
            "with '-' where a kingdom is won"
        )
    if len(tokens) != count:
        raise InvalidRulerError(
            f"expected {count} kingdoms (a ruler or '-' for a won one), got {len(tokens)}: "
            f"{quote(text.strip())}"
        )
    layout: list[Ruler | None] = []
    seen: dict[Ruler, str] = {}
    for token in tokens:
        if token in EMPTY_KINGDOM:
            layout.append(None)
            continue
        ruler = parse_ruler(token)
        if ruler in seen:
            raise DuplicateCardError(
                f"{quote(token)} lies on two kingdoms in {quote(text.strip())}: each ruler lies on one"
            )
        seen[ruler] = token
        layout.append(ruler)
    return layout


def parse_positions(text: str, count: int) -> list[int]:
    """Parse distinct kingdom positions 1..``count`` such as ``1,4`` or ``1 4``; ``none`` for none.

    >>> parse_positions("4, 1", 8)
    [1, 4]
    """
    if text.strip().lower() in ("", "none"):
        return []
    positions = []
    for token in _tokens(text):
        if not (
            token.isascii() and token.isdigit() and len(token) <= 4 and 1 <= int(token) <= count
        ):
            raise NotationError(f"{quote(token)} is not a kingdom: use positions 1..{count}")
        if int(token) in positions:
            raise DuplicateCardError(f"kingdom {token} is given twice in {quote(text.strip())}")
        positions.append(int(token))
    return sorted(positions)


def suit_str(suit: Suit, ascii: bool = False) -> str:
    """The suit as ``♣`` (or ``C`` with ``ascii``)."""
    return suit.letter if ascii else suit.symbol


def card_str(card: Card, ascii: bool = False) -> str:
    """The card as ``A♣`` (or ``AC`` with ``ascii``)."""
    return rank_text(card.rank) + suit_str(card.suit, ascii)


def cards_str(cards: Iterable[Card], ascii: bool = False) -> str:
    """The cards, space separated, in the order given.

    >>> cards_str(parse_hand("8s 7h 1c", size=3), ascii=True)
    'AC 7H 8S'
    """
    return " ".join(card_str(card, ascii) for card in cards)


def ruler_str(ruler: Ruler, ascii: bool = False) -> str:
    """The ruler as ``K♣`` (or ``KC`` with ``ascii``)."""
    return ruler.kind + suit_str(ruler.suit, ascii)


def _style(suit: Suit) -> str:
    return RED_STYLE if suit.is_red else BLACK_STYLE


def suit_text(suit: Suit, ascii: bool = False) -> Text:
    """The suit as rich text, red for ♦ and ♥."""
    return Text(suit_str(suit, ascii), style=_style(suit))


def card_text(card: Card, ascii: bool = False) -> Text:
    """The card as rich text, red for ♦ and ♥."""
    return Text(card_str(card, ascii), style=_style(card.suit))


def cards_text(cards: Iterable[Card], ascii: bool = False) -> Text:
    """The cards as rich text, space separated, each in its suit's colour."""
    return Text(" ").join(card_text(card, ascii) for card in cards)


def ruler_text(ruler: Ruler, ascii: bool = False) -> Text:
    """The ruler as rich text, red for ♦ and ♥."""
    return Text(ruler_str(ruler, ascii), style=_style(ruler.suit))
