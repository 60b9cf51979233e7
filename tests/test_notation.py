"""Card notation: every accepted spelling, round trips, and one-line errors that quote the input."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text

from advisor import notation
from advisor.notation import (
    DuplicateCardError,
    EmptyInputError,
    HandSizeError,
    InvalidCardError,
    InvalidRulerError,
    NotationError,
    UnknownSuitError,
    card_str,
    card_text,
    cards_str,
    cards_text,
    parse_card,
    parse_cards,
    parse_hand,
    parse_ruler,
    parse_rulers,
    parse_suit,
    parse_suits,
    ruler_str,
    ruler_text,
    suit_str,
    suit_text,
)
from search.game.cards import CARDS, RULERS, SUITS, Card, CardSet, Ruler, Suit

C, D, H, S = Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES

SUIT_FORMS = {
    C: ["C", "c", "♣", "♧", "Kr", "kr", "KR", "kR"],
    D: ["D", "d", "♦", "♢", "Ka", "ka", "KA"],
    H: ["H", "h", "♥", "♡", "He", "he", "HE"],
    S: ["S", "s", "♠", "♤", "P", "p", "Pi", "pi", "PI"],
}
RANK_FORMS = {1: ["A", "a", "1"], **{rank: [str(rank)] for rank in range(2, 9)}}
SEPARATORS = [" ", ",", ", ", " ,", " , ", "  ", ",,", "\t", " ,, "]


def card(suit: Suit, rank: int) -> Card:
    return Card(suit, rank)


# Accepted forms


@pytest.mark.parametrize("suit", SUITS)
@pytest.mark.parametrize("rank", range(1, 9))
def test_every_rank_and_suit_spelling_reads_as_that_card(rank: int, suit: Suit) -> None:
    """Each rank form (A a 1 2..8) with each suit form (letters, symbols, German) is one card."""
    for rank_form in RANK_FORMS[rank]:
        for suit_form in SUIT_FORMS[suit]:
            assert parse_card(rank_form + suit_form) == card(suit, rank)


def test_surrounding_whitespace_around_a_card_is_ignored() -> None:
    """Leading and trailing whitespace around one token does not matter."""
    assert parse_card("  7H \n") == card(H, 7)


def test_emoji_presentation_selector_after_a_symbol_is_ignored() -> None:
    """A pasted '♥️' (heart plus variation selector) reads as ♥."""
    assert parse_card("7♥\ufe0f") == card(H, 7)


@pytest.mark.parametrize(
    "text",
    ["AC 7H 3S", "AC,7H,3S", "AC, 7H, 3S", "AC , 7H ,3S", "  AC   7H\t3S  ", "AC,,7H , , 3S,"],
)
def test_cards_separate_with_any_mix_of_spaces_and_commas(text: str) -> None:
    """Spaces, commas, repeats of both and outer whitespace all separate cards."""
    assert parse_cards(text) == [card(C, 1), card(H, 7), card(S, 3)]


def test_parse_cards_keeps_input_order() -> None:
    """parse_cards returns cards in the order typed, not sorted."""
    assert parse_cards("8S 1c 5♦") == [card(S, 8), card(C, 1), card(D, 5)]


def test_parse_cards_accepts_a_single_card() -> None:
    """Any count of at least one card is accepted."""
    assert parse_cards("4♠") == [card(S, 4)]


def test_parse_hand_returns_the_card_set_of_eight_cards() -> None:
    """A hand of 8 distinct cards becomes a CardSet of those cards."""
    hand = parse_hand("8S, AC 2C 3D 4D 5H 6H 7S")
    assert isinstance(hand, CardSet)
    assert hand == CardSet.parse("AC 2C 3D 4D 5H 6H 7S 8S")


def test_parse_hand_size_is_adjustable() -> None:
    """With size=3 a hand of three cards is exactly right."""
    assert len(parse_hand("AC 7H 3S", size=3)) == 3


@pytest.mark.parametrize("suit", SUITS)
def test_every_suit_spelling_reads_as_that_suit(suit: Suit) -> None:
    """parse_suit accepts letters, both symbol styles and German names, any case."""
    for form in SUIT_FORMS[suit]:
        assert parse_suit(form) == suit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("CDDH", [C, D, D, H]),
        ("♣♦", [C, D]),
        ("c,d h", [C, D, H]),
        ("KrKaP", [C, D, S]),
        ("krkapi", [C, D, S]),
        ("HeH", [H, H]),
        ("PiS♤", [S, S, S]),
        ("♧♢♡♤", [C, D, H, S]),
        (" S , s ", [S, S]),
    ],
)
def test_suit_runs_tokenize_greedily_and_keep_repeats(text: str, expected: list[Suit]) -> None:
    """A run of suits reads two-letter German forms first and keeps repeated suits."""
    assert parse_suits(text) == expected


@pytest.mark.parametrize("text", ["", "  ", "none", "None", " NONE "])
def test_empty_or_none_is_no_suits(text: str) -> None:
    """The word none, or nothing at all, is the empty list of suits."""
    assert parse_suits(text) == []


@pytest.mark.parametrize("kind", ["K", "Q"])
@pytest.mark.parametrize("suit", SUITS)
def test_every_ruler_spelling_reads_as_that_ruler(kind: str, suit: Suit) -> None:
    """K or Q (either case) with any suit form, German Kr/Ka/P included, is a ruler."""
    for kind_form in (kind, kind.lower()):
        for suit_form in SUIT_FORMS[suit]:
            assert parse_ruler(kind_form + suit_form) == Ruler(kind, suit)


def test_german_rulers_read_with_two_letter_suits() -> None:
    """KKr is the King of Kreuz (♣) and QKa the Queen of Karo (♦)."""
    assert parse_ruler("KKr") == Ruler("K", C)
    assert parse_ruler("QKa") == Ruler("Q", D)


def test_parse_rulers_reads_distinct_rulers_in_order() -> None:
    """A list of rulers keeps input order; separators are as for cards."""
    assert parse_rulers("QH, KC  K♠", count=3) == [Ruler("Q", H), Ruler("K", C), Ruler("K", S)]


def test_all_eight_rulers_parse_at_once() -> None:
    """The four Kings and four Queens together are a valid list of eight."""
    text = " ".join(ruler_str(ruler) for ruler in RULERS)
    assert parse_rulers(text, count=8) == list(RULERS)


def test_no_rulers_is_fine_when_none_are_expected() -> None:
    """With count=0 the empty text is the empty list."""
    assert parse_rulers("", count=0) == []


# Printing and round trips


def test_printed_forms_are_symbol_by_default_and_letters_in_ascii() -> None:
    """Cards print as A♣ or AC, rulers as K♥ or KH, suits as ♠ or S."""
    assert card_str(card(C, 1)) == "A♣"
    assert card_str(card(C, 1), ascii=True) == "AC"
    assert cards_str([card(H, 7), card(S, 3)]) == "7♥ 3♠"
    assert ruler_str(Ruler("K", H), ascii=True) == "KH"
    assert suit_str(S) == "♠"
    assert suit_str(S, ascii=True) == "S"


@pytest.mark.parametrize("item", CARDS)
def test_card_str_agrees_with_the_card_class(item: Card) -> None:
    """card_str matches str(card) and card.ascii() from search.cards."""
    assert card_str(item) == str(item)
    assert card_str(item, ascii=True) == item.ascii()


@given(st.sets(st.sampled_from(CARDS), min_size=1), st.booleans())
def test_printed_cards_parse_back_to_the_same_cards(cards: set[Card], ascii: bool) -> None:
    """cards_str output parses back to the same cards, in either mode."""
    hand = CardSet(cards)
    assert parse_hand(cards_str(hand, ascii=ascii), size=len(hand)) == hand


@given(st.lists(st.sampled_from(CARDS), min_size=1, unique=True), st.booleans())
def test_printed_card_lists_parse_back_in_order(cards: list[Card], ascii: bool) -> None:
    """cards_str keeps the given order and parse_cards reads it back unchanged."""
    assert parse_cards(cards_str(cards, ascii=ascii)) == cards


@st.composite
def spelled_hands(draw: st.DrawFn) -> tuple[list[Card], str]:
    cards = draw(st.lists(st.sampled_from(CARDS), min_size=1, unique=True))
    text = ""
    for index, item in enumerate(cards):
        if index:
            text += draw(st.sampled_from(SEPARATORS))
        text += draw(st.sampled_from(RANK_FORMS[item.rank]))
        text += draw(st.sampled_from(SUIT_FORMS[item.suit]))
    return cards, text


@given(spelled_hands())
def test_any_mix_of_accepted_spellings_parses(case: tuple[list[Card], str]) -> None:
    """Cards spelled in any accepted form with any separators parse to the intended cards."""
    cards, text = case
    assert parse_cards(text) == cards


@given(st.lists(st.sampled_from(RULERS), unique=True), st.booleans())
def test_printed_rulers_parse_back(rulers: list[Ruler], ascii: bool) -> None:
    """Rulers printed in either mode parse back to the same rulers."""
    text = " ".join(ruler_str(ruler, ascii=ascii) for ruler in rulers)
    assert parse_rulers(text, count=len(rulers)) == rulers


@given(st.lists(st.sampled_from(SUITS)), st.booleans())
def test_printed_suit_runs_parse_back(suits: list[Suit], ascii: bool) -> None:
    """Suits printed and run together parse back as the same multiset, in order."""
    assert parse_suits("".join(suit_str(suit, ascii=ascii) for suit in suits)) == suits


@pytest.mark.parametrize("ascii", [False, True])
def test_rich_text_is_red_for_hearts_and_diamonds_only(ascii: bool) -> None:
    """Red suits are styled red; clubs and spades are not."""
    for item in CARDS:
        text = card_text(item, ascii=ascii)
        assert isinstance(text, Text)
        assert text.plain == card_str(item, ascii=ascii)
        assert ("red" in str(text.style)) == item.suit.is_red
    for suit in SUITS:
        assert ("red" in str(suit_text(suit, ascii=ascii).style)) == suit.is_red
    for ruler in RULERS:
        assert ruler_text(ruler, ascii=ascii).plain == ruler_str(ruler, ascii=ascii)


def test_rich_card_list_reads_like_the_plain_form() -> None:
    """cards_text has the same characters as cards_str, one span per card."""
    cards = [card(H, 7), card(S, 3), card(D, 1)]
    text = cards_text(cards)
    assert text.plain == cards_str(cards) == "7♥ 3♠ A♦"
    assert [text.plain[span.start : span.end] for span in text.spans] == ["7♥", "3♠", "A♦"]


# Malformed input

MALFORMED = [
    # 9s and 10s
    (parse_card, "9S", InvalidCardError, "9S"),
    (parse_card, "10S", InvalidCardError, "10S"),
    (parse_card, "10♥", InvalidCardError, "10♥"),
    (parse_hand, "AC 2C 3C 4C 5C 6C 7C 9D", InvalidCardError, "9D"),
    # Jacks, German Bube included
    (parse_card, "Jh", InvalidCardError, "Jh"),
    (parse_card, "J♠", InvalidCardError, "J♠"),
    (parse_card, "BKr", InvalidCardError, "BKr"),
    # rulers in a hand
    (parse_card, "KH", InvalidCardError, "KH"),
    (parse_card, "q♦", InvalidCardError, "q♦"),
    (parse_hand, "AC 2C 3C 4C 5C 6C 7C QKa", InvalidCardError, "QKa"),
    # duplicates
    (parse_cards, "7H 7H", DuplicateCardError, "7H"),
    (parse_cards, "7H 2C 7♥", DuplicateCardError, "7♥"),
    (parse_hand, "AC 1c 3C 4C 5C 6C 7C 8C", DuplicateCardError, "1c"),
    # wrong hand size
    (parse_hand, "AC 2C 3C 4C 5C 6C 7C", HandSizeError, "AC 2C 3C 4C 5C 6C 7C"),
    (parse_hand, "AC 2C 3C 4C 5C 6C 7C 8C AD", HandSizeError, "AC 2C 3C 4C 5C 6C 7C 8C AD"),
    # unknown and ambiguous suits
    (parse_card, "9X", UnknownSuitError, "9X"),
    (parse_card, "7Z", UnknownSuitError, "7Z"),
    (parse_card, "AC.", UnknownSuitError, "AC."),
    (parse_card, "7K", UnknownSuitError, "7K"),
    (parse_card, "ak", UnknownSuitError, "ak"),
    (parse_suit, "K", UnknownSuitError, "K"),
    (parse_suit, "X", UnknownSuitError, "X"),
    (parse_suits, "CKD", UnknownSuitError, "CKD"),
    (parse_suits, "CXD", UnknownSuitError, "X"),
    # empty input
    (parse_cards, "", EmptyInputError, None),
    (parse_cards, "   ", EmptyInputError, None),
    (parse_cards, ",", EmptyInputError, ","),
    (parse_hand, " , ,, ", EmptyInputError, ", ,,"),
    (parse_card, "", EmptyInputError, None),
    (parse_suit, "", EmptyInputError, None),
    # garbage
    (parse_card, "11C", InvalidCardError, "11C"),
    (parse_card, "0D", InvalidCardError, "0D"),
    (parse_card, "01C", InvalidCardError, "01C"),
    (parse_card, "AC7H", InvalidCardError, "AC7H"),
    (parse_card, "♣A", InvalidCardError, "♣A"),
    (parse_card, "HA", InvalidCardError, "HA"),
    (parse_card, "7", InvalidCardError, "7"),
    (parse_card, "Kr", InvalidCardError, "Kr"),
    (parse_card, "XYZ", InvalidCardError, "XYZ"),
    (parse_card, "-3H", InvalidCardError, "-3H"),
    (parse_card, "A C", InvalidCardError, "A C"),
    (parse_cards, "AC 7H; 3S", UnknownSuitError, "7H;"),
    # rulers
    (parse_ruler, "7H", InvalidRulerError, "7H"),
    (parse_ruler, "AC", InvalidRulerError, "AC"),
    (parse_ruler, "JH", InvalidRulerError, "JH"),
    (parse_ruler, "10D", InvalidRulerError, "10D"),
    (parse_ruler, "Ka", InvalidRulerError, "Ka"),
    (parse_ruler, "K", InvalidRulerError, "K"),
    (parse_ruler, "KK", UnknownSuitError, "KK"),
    (parse_ruler, "♥Q", InvalidRulerError, "♥Q"),
    (parse_ruler, "KCQH", InvalidRulerError, "KCQH"),
    (parse_ruler, "DX", InvalidRulerError, "DX"),
    (parse_rulers, "KC QH KC", DuplicateCardError, "KC"),
    (parse_rulers, "KC K♣", DuplicateCardError, "K♣"),
    (parse_rulers, "KKr kc", DuplicateCardError, "kc"),
    (parse_rulers, "", EmptyInputError, None),
]


@pytest.mark.parametrize(
    ("parse", "text", "error", "token"),
    MALFORMED,
    ids=[f"{parse.__name__}({text!r})" for parse, text, _, _ in MALFORMED],
)
def test_malformed_input_raises_a_one_line_error_quoting_the_token(
    parse: object, text: str, error: type[NotationError], token: str | None
) -> None:
    """Each malformed input raises its own NotationError subclass, one line, quoting the token."""
    with pytest.raises(error) as caught:
        parse(text)  # type: ignore[operator]
    message = str(caught.value)
    assert "\n" not in message
    assert message.strip() == message and message
    if token is not None:
        assert repr(token) in message


def test_there_are_at_least_thirty_malformed_cases() -> None:
    """The malformed table covers at least thirty inputs."""
    assert len(MALFORMED) >= 30


@pytest.mark.parametrize(
    ("parse", "text", "hint"),
    [
        (parse_card, "Jh", "Jacks are advisors"),
        (parse_card, "10S", "9s and 10s only mark kingdoms"),
        (parse_card, "9X", "C D H S, ♣ ♦ ♥ ♠, or German Kr Ka H P"),
        (parse_card, "7K", "Kr for ♣ or Ka for ♦"),
        (parse_card, "KH", "is a ruler, not a hand card"),
        (parse_card, "♣A", "'A♣'"),
        (parse_card, "AC7H", "'AC 7H'"),
        (parse_cards, "", "type cards like"),
        (parse_ruler, "7H", "K or Q"),
    ],
)
def test_error_messages_say_what_is_allowed(parse: object, text: str, hint: str) -> None:
    """Messages name the rule broken or show the form that would work."""
    with pytest.raises(NotationError) as caught:
        parse(text)  # type: ignore[operator]
    assert hint in str(caught.value)


def test_hand_size_error_says_how_many_were_given() -> None:
    """A short hand names the expected and the given count."""
    with pytest.raises(HandSizeError, match=r"a hand has 8 cards, got 7"):
        parse_hand("AC 2C 3C 4C 5C 6C 7C")


def test_wrong_ruler_count_names_the_expected_count() -> None:
    """With count given, a different number of rulers is refused and the count is named."""
    with pytest.raises(InvalidRulerError, match=r"expected 3 rulers, got 2: 'KC QH'"):
        parse_rulers("KC QH", count=3)


def test_a_deck_card_in_a_ruler_list_is_refused() -> None:
    """A deck card among rulers is an InvalidRulerError quoting the card."""
    with pytest.raises(InvalidRulerError, match=r"'3S' is a deck card"):
        parse_rulers("KC 3S")


def test_notation_errors_are_value_errors() -> None:
    """Every notation error is a NotationError, which is a ValueError."""
    for error in (
        InvalidCardError,
        DuplicateCardError,
        HandSizeError,
        EmptyInputError,
        UnknownSuitError,
        InvalidRulerError,
    ):
        assert issubclass(error, NotationError)
    assert issubclass(NotationError, ValueError)


def test_docstring_examples_run() -> None:
    """The doctests in advisor.notation pass."""
    result = doctest.testmod(notation)
    assert result.attempted > 0
    assert result.failed == 0
