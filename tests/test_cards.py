"""Cards as the library reads them: ``Card.parse`` takes only the 32 deck cards (Aces to 8s)."""

from __future__ import annotations

import pytest

from search.game.cards import CARDS, Card, CardSet
from tests.conftest import assert_one_line_error, run_in_process


def test_every_card_parses_back_from_both_printed_forms() -> None:
    """A card printed with its symbol (A♣) or in ASCII (AC), either case, parses to itself."""
    for card in CARDS:
        assert Card.parse(str(card)) == card
        assert Card.parse(card.ascii()) == card
        assert Card.parse(card.ascii().lower()) == card
    assert CardSet.parse("A♣ 6♣ 3♥ 8♥ 2♦ 5♦ 4♠ 7♠") == CardSet.parse("AC 6C 3H 8H 2D 5D 4S 7S")


# Each of these was once read as some other card: 9C as A♦, 10C as 2♦, 0C as 8♠.
NOT_DECK_CARDS = [
    "9C",
    "10C",
    "0C",
    "1C",
    "JC",
    "QH",
    "KS",
    "+5C",
    " 5C",
    "５C",
    "5",
    "C",
    "",
    "AX",
    "A♤",
    "AC ",
    "7HH",
    "88C",
]


@pytest.mark.parametrize("text", NOT_DECK_CARDS)
def test_parse_refuses_what_is_not_a_deck_card_quoting_it(text: str) -> None:
    """Card.parse raises ValueError naming the input, never another card."""
    with pytest.raises(ValueError, match="not a deck card") as refused:
        Card.parse(text)
    assert repr(text) in str(refused.value)


def test_a_card_set_refuses_a_card_not_in_the_deck() -> None:
    """CardSet.parse passes each token to Card.parse: one bad token refuses the whole set."""
    with pytest.raises(ValueError, match="'9C'"):
        CardSet.parse("AC 9C 3H")


@pytest.mark.parametrize("text", ["9C", "10C", "0C"])
def test_the_command_line_refuses_them_in_one_line(monkeypatch, capsys, text: str) -> None:
    """odds: a card not in the deck ends with one error line quoting it, exit 1."""
    args = ["odds", f"AC {text}", "--trump", "C", "--target", "2"]
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(code, out, err)
    assert code == 1 and text in err and out == ""
