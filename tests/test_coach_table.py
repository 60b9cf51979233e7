"""The coach at a real table (issue 18): a whole physical tour through the real prompt loop,
typos at every kind of prompt; and the pieces it shows (supporters' cost, state, review)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from advisor import coach, coach_advice
from advisor.coach_texts import state_text
from advisor.plays import parse_play
from advisor.review import review_view
from advisor.session import load
from advisor.session_events import DECISION_EVENTS, SessionError
from search.game import Phase, Suit, TourConfig, legal_actions, wins_debate
from search.game.cards import CardSet

LAYOUT = "KD KC KH KS"  # short tour: kingdom 1 (K♦, target 2) ... kingdom 4 (K♠, target 8)


class Player:
    """A player at a physical table, typing into the coach: the cards it reports are chosen
    so that visit 1 is won (a win while wins are short of the target, then losses) and
    visit 2 lost; ``typos`` are typed once, first, at the prompt of their kind."""

    def __init__(
        self,
        path: Path,
        output: io.StringIO,
        typos: dict[str, list[str]],
        plan: dict[str, list[str]],
    ):
        self.path, self.output = path, output
        self.typos = {kind: list(texts) for kind, texts in typos.items()}
        self.plan = {kind: list(texts) for kind, texts in plan.items()}
        self.solves: list = []  # appended to by the spies: one entry per search started
        self.log: list[tuple[str, str, str, int]] = []  # (kind, prompt, typed, solves so far)
        self.typo_solves: list[tuple[str, int]] = []  # (kind, solves when a typo was typed)
        self.after_typo: int | None = None  # solves when the last input was a typo
        self.defaults: list[tuple[str, str, str]] = []  # (kind, default, option shown first)
        self.seen = 0  # output already read

    def state(self):
        return load(self.path).replay() if self.path.exists() else None

    def kind(self, prompt: str, state) -> str:
        if prompt.startswith("Rulers"):
            return "rulers"
        if "8 cards you drew" in prompt:
            return "hand"
        if prompt.startswith("Kingdom to visit"):
            return "kingdom"
        if "ruler turn up" in prompt:
            return "reveal"
        if "drew" in prompt:
            return "draw"
        if prompt.startswith("Tour over"):
            return "end"
        phase = state.visit.phase
        return {Phase.ANSWER: "answer", Phase.DISCARD: "discard"}.get(phase, "decide")

    def __call__(self, markup: str) -> str:
        prompt = markup.replace("\\[", "[")
        state = self.state()
        kind = self.kind(prompt, state)
        new = self.output.getvalue()[self.seen :]
        self.seen = len(self.output.getvalue())
        default = re.search(r"\[([^\]]+)\]: $", prompt)
        if default and kind in ("kingdom", "decide", "answer", "discard"):
            self._check_default(kind, default.group(1))
        if self.after_typo is not None:  # a prompt after a typo (or an undo): nothing searched
            assert len(self.solves) == self.after_typo, (kind, new)
        self.after_typo = None
        if self.typos.get(kind):
            typed = self.typos[kind].pop(0)
            self.typo_solves.append((kind, len(self.solves)))
            self.after_typo = len(self.solves)
        elif self.plan.get(kind):
            typed = self.plan[kind].pop(0)
        else:
            typed = self.choose(kind, state)
        if typed is None:
            raise EOFError
        self.log.append((kind, prompt, typed, len(self.solves)))
        return typed

    def _check_default(self, kind: str, default: str) -> None:
        """The prompt's default is the advice, the option shown first (when advice is on)."""
        text = self.output.getvalue()
        advice = re.findall(r"^Advice: (?:kingdom )?([^,.]+)[,.]", text, re.MULTILINE)
        if not advice or "(no advice)" in default:
            return
        first = re.findall(r"^\*\s+(\S+(?: \S+)?)\s{2,}", text, re.MULTILINE)
        self.defaults.append((kind, default, advice[-1]))
        if kind != "kingdom":
            assert first and first[-1].startswith(default), (default, first[-1:])

    def choose(self, kind: str, state) -> str:
        visit = state.visit if state is not None else None
        if kind == "reveal":
            return self.reveal(visit)
        if kind == "answer":
            return self.answer(visit)
        if kind == "decide":
            return "d"
        if kind == "discard":
            return ""
        return ""

    def wanted(self, visit) -> bool:
        """Win while short of the target in visit 1; lose otherwise."""
        return visit.position == 1 and visit.wins < visit.target

    def reveal(self, visit) -> str:
        """A card for which some legal answer gives the wanted outcome, forced if possible."""
        want = self.wanted(visit)
        best = None
        for card in sorted(visit.deck, key=lambda c: (c.suit.value, c.rank)):
            answers = [a.card for a in legal_actions(_waiting(visit, card))]
            outcomes = [wins_debate(card, a, visit.trump) == want for a in answers]
            if all(outcomes):
                return card.ascii()
            if any(outcomes) and best is None:
                best = card
        return (best or next(iter(visit.deck))).ascii()

    def answer(self, visit) -> str:
        want = self.wanted(visit)
        answers = [a.card for a in legal_actions(visit)]
        good = [a for a in answers if wins_debate(visit.waiting, a, visit.trump) == want]
        return (good or answers)[0].ascii()


def _waiting(visit, card):
    from dataclasses import replace

    return replace(visit, waiting=card, deck=visit.deck.remove(card), phase=Phase.ANSWER)


def _spy(player: Player, name: str, function):
    def spy(*args, **kwargs):
        player.solves.append((name, repr(args)))
        return function(*args, **kwargs)

    return spy


def _run(path: Path, player: Player, output: io.StringIO, advice: bool, monkeypatch) -> None:
    console = Console(file=output, width=80, color_system=None, highlight=False)
    for name in ("advise_visit", "rank_moves", "score_best_action"):
        monkeypatch.setattr(coach_advice, name, _spy(player, name, getattr(coach_advice, name)))
    coach.run(
        path,
        None,
        TourConfig(short=True),
        console,
        player,
        advice=advice,
        time_limit=0.5,
        ascii=True,
    )


def test_a_whole_physical_tour_at_the_table_with_a_typo_at_every_prompt(
    tmp_path: Path, monkeypatch
) -> None:
    """Issue 18, done when: a physical short tour typed into the real prompt loop, first
    without advice (kingdom, Commerce with both drawn cards on one line, its discard,
    Military), then resumed with advice to the end. A typo at every kind of prompt gets a
    one-line reason and costs no new search; the default at every prompt is the option shown
    first; the coach says when a visit is won or lost and which ruler joins as a supporter;
    undo works after the last play until the end is confirmed; the review lists every
    decision, the unadvised ones marked."""
    path = tmp_path / "table.json"
    output = io.StringIO()
    # Part 1, no advice: set-up, kingdom 1 (K♦, trump ♦, target 2), Commerce, Military.
    typos = {
        "rulers": ["KC QH KS KD"],  # a Queen on the short tour
        "hand": ["AC 2C"],
        "kingdom": ["x"],
        "decide": ["JS 7"],  # no kingdom 7
        "draw": ["AH 2H 5C"],  # Commerce draws 2, not 3
        "discard": ["d"],  # a discard is expected, not a debate
    }
    plan = {
        "rulers": [LAYOUT],
        "hand": ["2C 5D 6D 3H 8H 4S 7S 8S"],
        "kingdom": ["1"],
        "decide": ["JD", "JC", None],  # Commerce, Military (one club: one card), then quit
        "draw": ["AH 2H", "AS"],  # Commerce's two cards on one line; Military's one
        "discard": ["3H AH"],
    }
    first = Player(path, output, typos, plan)
    _run(path, first, output, advice=False, monkeypatch=monkeypatch)
    assert not first.solves
    part_one = output.getvalue()
    assert "Commerce draws 2 more cards now, got 3" in part_one
    assert "a discard is expected" in part_one and "no kingdom 7" in part_one
    assert "Saved. Resume with" in part_one

    # Part 2, advice on: the rest of visit 1 (won), visit 2 lost at once by Diplomacy.
    output = io.StringIO()
    typos = {
        "decide": ["zz", "help", "state"],
        "reveal": ["9S", "2C"],  # not a card; one in your hand
        "answer": ["d"],
        "hand": ["AH AH 3H 4H 5H 6H 7H 8H"],
        "kingdom": ["1"],  # won already
        "end": ["maybe", "undo"],
    }
    plan = {
        "hand": ["AH 2H 3H 4H 5H 6H 7H 8H"],
        "kingdom": ["3"],  # K♥: every card a trump
    }
    second = Player(path, output, typos, plan)
    second.choose = _visit_two(second)
    _run(path, second, output, advice=True, monkeypatch=monkeypatch)
    text = output.getvalue()
    (tmp_path / "coach.txt").write_text(part_one + text)  # what the player saw, for a failure
    assert "Traceback" not in text
    assert text.isascii(), [line for line in text.splitlines() if not line.isascii()]

    # Every kind of prompt got its typo, each refused in one line.
    kinds = {kind for kind, *_ in first.log + second.log}
    assert {
        "rulers",
        "hand",
        "kingdom",
        "decide",
        "draw",
        "discard",
        "reveal",
        "answer",
        "end",
    } <= kinds
    assert not any(first.typos.values()) and not any(second.typos.values())
    assert text.count("Loading the compiled search") == 1 and "At any prompt: 'help'" in text
    assert "Kingdoms: 1* KD (target 2), 2 KC (target 4)" in text  # 'state' in the loop
    for reason in (
        "'zz' is not a play here",
        "9S",
        "2C is in your hand, not in the deck",
        "a debate can start only between debates",
        "appears twice",
        "kingdom 1 (won already)",
        "the tour is over",
    ):
        assert reason in " ".join(text.split()), reason
    # Typos cost no search: each position was searched once (the spies saw no repeat).
    searched = [args for name, args in second.solves if name != "score_best_action"]
    assert searched and len(searched) == len(set(searched))
    assert second.typo_solves
    # The default at every advised prompt is the advice, the option shown first.
    assert second.defaults and all(default == shown for _, default, shown in second.defaults)
    # A partner at the table: the visit's end, the supporter, the score, the summary.
    flat = " ".join(text.split())
    assert "Kingdom 1 won: 2 debates of 2. KD joins you as a supporter" in flat
    assert "Kingdom 3 lost: 0 debates won, the target was 6. The tour ends here." in flat
    assert "Score so far: 2 (1 kingdom + 1 unused supporter)" in flat
    assert "Tour over after 2 visits." in flat
    # Undo after the last play: the play is asked again, with the advice kept.
    assert "Took back the last step." in text
    ends = [entry for entry in second.log if entry[0] == "end"]
    assert [typed for _, _, typed, _ in ends] == ["maybe", "undo", ""]  # then the review
    # The review: every decision, numbered within its visit, the unadvised ones marked.
    session = load(path)
    decisions = [e for e in session.events if e["type"] in DECISION_EVENTS]
    review = text[text.index("Review: final score") :]
    rows = re.findall(r"^\s*(\d+) \| ", review, re.MULTILINE)
    assert len(rows) == len(decisions)
    assert rows.count("1") == 2  # numbered within each visit
    unadvised = [e for e in decisions if "advice" not in e]
    assert len(unadvised) == 4 and review.count("unadvised") == 4
    assert "Visit 1: kingdom 1 (KD, target 2): won (2 of 2)" in review
    assert "Visit 2: kingdom 3 (KH, target 6): lost (0 wins)" in review
    advised = [e["advice"] for e in decisions if "advice" in e]
    assert advised and all(a["default"] == a["best"] for a in advised)  # saved as shown
    assert all(isinstance(a.get("estimate"), bool) for a in advised if "chance" in a)
    assert all(isinstance(a.get("estimated"), list) for a in advised if "chances" in a)
    assert "| JD " in review and "| JC " in review and "| AH 3H " in review  # as typed


def _visit_two(player: Player):
    """Visit 1: debate and answer for the wanted outcome; visit 2 (every card a heart, hearts
    trump): Diplomacy discards them all and the visit is lost; undone once and played again."""
    plain = player.choose

    def choose(kind: str, state) -> str:
        visit = state.visit if state is not None else None
        if kind == "decide" and visit.position == 3:
            return "JH"
        return plain(kind, state)

    return choose


# --- the pieces -------------------------------------------------------------------------------


def _moves():
    from search.game.cards import Ruler
    from search.tours.moves import Move
    from search.visit import Option

    king = Ruler("K", Suit.SPADES)
    return [
        Move(
            Option("ability", suit=Suit.DIAMONDS),
            0.995,
            0.0,
            source=Ruler("K", Suit.DIAMONDS),
            interval=(0.973, 1.0),
        ),
        Move(Option("debate"), 0.99, 0.005, interval=(0.972, 0.997)),
        Move(
            Option("ability", suit=Suit.SPADES, new_trump=Suit.CLUBS),
            0.7,
            0.3,
            source=king,
            swap_with=1,
            interval=(0.6, 0.8),
        ),
        Move(Option("ability", suit=Suit.HEARTS), 0.2, 0.8, interval=(0.1, 0.3)),
    ]


def test_a_supporter_is_never_advised_over_a_free_option_within_its_interval() -> None:
    """Issue 18: 'JD QD' (a supporter's Commerce, ≈100%, 97.3-100%) is not proposed over a
    free debate (≈99%) inside that interval: spending the point would buy noise (§5)."""
    from search.tours.supporters import free_first

    moves = _moves()
    ranked = free_first(moves)
    assert ranked[0].option.kind == "debate" and ranked[1].source is not None
    exact = [m.__class__(m.option, m.chance, m.loss, m.source, m.swap_with, None) for m in moves]
    exact[0] = exact[0].__class__(exact[0].option, 0.99 + 1e-12, 0.0, exact[0].source)
    assert free_first(exact)[0].option.kind == "debate"  # level within 1e-9
    exact[0] = exact[0].__class__(exact[0].option, 0.995, 0.0, exact[0].source)
    assert free_first(exact)[0].source is not None  # exact and clearly better: worth showing first


def test_a_supporter_leads_only_for_more_than_its_point_of_final_score() -> None:
    """Issue 38: exact +0.5% at a stake of 2 points is 0.01 pt for a 1 pt supporter, so the
    free debate leads; +60% at stake 2 (1.2 pt) is worth the point; +40% (0.8 pt) is not."""
    from search.tours.supporters import free_first

    exact = [m.__class__(m.option, m.chance, m.loss, m.source, m.swap_with, None) for m in _moves()]
    assert free_first(exact)[0].source is not None  # chance alone: the supporter leads
    assert free_first(exact, stake=2.0)[0].option.kind == "debate"
    commerce, debate = exact[0], exact[1]
    low = debate.__class__(debate.option, 0.3, 0.7)
    worth = free_first(
        [commerce.__class__(commerce.option, 0.9, 0.1, commerce.source), low], stake=2.0
    )
    assert worth[0].source is not None  # +60% x 2 = 1.2 pt > 1 pt
    short = free_first(
        [commerce.__class__(commerce.option, 0.7, 0.3, commerce.source), low], stake=2.0
    )
    assert short[0].source is None  # +40% x 2 = 0.8 pt < 1 pt
    noisy = commerce.__class__(commerce.option, 0.9, 0.1, commerce.source, interval=(0.75, 0.97))
    assert free_first([noisy, low], stake=2.0)[0].source is None  # surely only +45%: 0.9 pt


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
def test_coach_options_fit_80_columns_and_price_each_supporter(ascii: bool) -> None:
    """Issue 18: the coach's options fit 80 columns one line each (supporter Politics labels
    too), a supporter's option shows its point and its gain over the best free option, the
    best carries a '*' (not colour alone), and a long list shows 10 and 'N more'."""
    from advisor.move_tables import coach_move_view
    from search.game import new_tour
    from search.game.cards import Ruler
    from search.tours import Chance, MoveAdvice
    from search.tours.moves import Move
    from search.visit import Option
    from search.visit.position import Position

    rulers = [Ruler("K", s) for s in (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)]
    tour = new_tour(rulers, TourConfig(short=True))
    moves = _moves()
    cards = CardSet.parse("AC 2C 3C 4C 5C 6C 7C 8C AD 2D 3D 4D")
    moves += [
        Move(Option("discard", cards=CardSet([a, b])), 0.1, 0.9, interval=(0.0, 0.2))
        for a, b in zip(list(cards)[:6], list(cards)[6:])
    ] * 2
    position = Position(hand=cards, trump=Suit.HEARTS, target=6)
    advice = MoveAdvice(
        3, rulers[2], position, Chance(0.995, estimate=True), tuple(moves), (0.0,) * 6 + (1.0,), 1.5
    )
    console = Console(width=80, record=True, color_system=None)
    console.print(coach_move_view(advice, moves, tour, ascii))
    text = console.export_text()
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    row = [line for line in text.splitlines() if line.lstrip().startswith("JS 1 KS")]
    assert len(row) == 1 and "1 pt: no gain" in row[0]
    assert re.search(r"JD KD .*1 pt: [~≈]\+0\.5%", text)
    assert text.splitlines()[2].startswith("Advice: JD KD")
    assert re.search(r"^\*\s+JD KD", text, re.MULTILINE)
    assert f"and {len(moves) - 10} more" in text
    if ascii:
        assert text.isascii()
    else:
        assert "~" not in text  # one estimate mark: ≈


def test_an_option_with_too_few_playouts_and_no_bound_says_no_time() -> None:
    """Issue 38: an estimate on too few playouts is shown by its proven bound; where that bound
    is 0 the line says 'no time' (and the legend why) instead of a headline '≥0%'."""
    from advisor.move_tables import coach_move_view
    from search.game import new_tour
    from search.game.cards import Ruler
    from search.tours import Chance, MoveAdvice
    from search.tours.moves import Move
    from search.visit import Option
    from search.visit.position import Position

    rulers = [Ruler("K", s) for s in (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)]
    tour = new_tour(rulers, TourConfig(short=True))
    moves = [
        Move(Option("debate"), 0.0, 0.0, interval=(0.0, 1.0), proven=True),
        Move(Option("ability", suit=Suit.HEARTS), 0.4, 0.0, interval=(0.4, 1.0), proven=True),
    ]
    position = Position(hand=CardSet.parse("AC 2C 3C"), trump=Suit.HEARTS, target=2)
    advice = MoveAdvice(3, rulers[2], position, Chance(0.0, estimate=True), tuple(moves), (), 0.5)
    console = Console(width=80, record=True, color_system=None)
    console.print(coach_move_view(advice, moves, tour, ascii=True))
    text = console.export_text()
    assert text.splitlines()[2].startswith("Advice: debate") and "chance no time" in text
    assert ">=40%" in text and ">=0%" not in text
    assert "no time: too few playouts" in " ".join(text.split())


def test_state_shows_everything_on_the_table(tmp_path: Path) -> None:
    """Issue 18: 'state' shows the layout after swaps, supporters used and unused, the Jacks
    used, the deck and discard counts and the wins against the target."""
    from advisor.session import Session
    from advisor.session_events import encode_action
    from search.game import UseAbility

    session = Session.new(TourConfig(short=True), "physical", None, LAYOUT.split())
    session = session.append(
        {"type": "hand", "cards": ["2C", "5D", "6D", "3H", "8H", "4S", "7S", "8S"]}
    )
    session = session.append({"type": "kingdom", "position": 1})
    session = session.append(
        {"type": "action", "action": encode_action(UseAbility(Suit.SPADES, None, 3))}
    )
    text = state_text(session, ascii=True)
    assert "1* KH (target 2), 2 KC (target 4), 3 KD (target 6)" in text  # swapped by Politics
    assert "Supporters: unused none; used none." in text
    assert "Jacks used JS; face up JC JD JH." in text
    assert "wins 0 of target 2" in text and "Deck 24 cards, discard pile 0" in text


def test_refusals_name_the_rule_in_play() -> None:
    """Issue 18: Politics to a kingdom of the trump's suit names that suit; 'JS' alone asks
    for the kingdom; 'd' while Commerce discards says a discard is expected."""
    from search.game import new_tour, start_visit
    from tests.conftest import STANDARD_LAYOUT

    tour = new_tour(STANDARD_LAYOUT)
    visit = start_visit(tour, CardSet.parse("AC 3C 5C 7C 5D 8H 5S 7S"), 1)  # K♣: trump clubs
    with pytest.raises(ValueError, match=r"its suit is the trump here \(C\)"):
        parse_play("JS 6", visit)  # Q♣ lies on kingdom 6
    with pytest.raises(ValueError, match="Politics needs the kingdom to swap with"):
        parse_play("JS", visit)
    from search.game import Debate, UseAbility, apply_action, apply_chance

    drawn = apply_action(visit, UseAbility(Suit.DIAMONDS))
    drawn = apply_chance(apply_chance(drawn, next(iter(drawn.deck))), sorted(drawn.deck)[1])
    assert drawn.phase is Phase.DISCARD
    with pytest.raises(ValueError, match="a discard is expected"):
        parse_play("d", drawn)
    assert parse_play("d", visit) == Debate()


def _late_visit(hand: str, position: int, wins: str, discard: str, supporter):
    """A visit late on: every Jack used, ``supporter`` won earlier and face up."""
    from dataclasses import replace

    from search.game.rules import new_visit
    from search.game.tour import tour_between_visits
    from tests.conftest import STANDARD_LAYOUT

    layout = [None if r == supporter else r for r in STANDARD_LAYOUT]
    tour = tour_between_visits(layout, unused=[supporter])
    cards, scoring, thrown = CardSet.parse(hand), CardSet.parse(wins), CardSet.parse(discard)
    visit = new_visit(cards, position, position, tuple(layout), supporters=(supporter,))
    visit = replace(
        visit,
        jacks=frozenset(),
        scoring=scoring,
        discard=thrown,
        deck=CardSet.full() - cards - scoring - thrown,
    )
    return tour, visit


def test_the_final_score_line_appears_only_with_its_reason_and_its_play_is_the_default() -> None:
    """Issue 18: kingdom 2 (Q♥, target 2), 6♦ A♥ in hand, one win, every Jack used, Q♠ face
    up: Politics through Q♠ is likelier (91% against 86.5% for a debate, exact), but not
    worth Q♠'s point to the final score (issue 38: +4.7% at a stake of 12.18 is 0.57 pt). The
    debate is shown first, is the default, and a line prices what Q♠ would add; with the Jack
    of spades unused no supporter is involved and no such line appears."""
    from dataclasses import replace
    from types import SimpleNamespace

    from search.game.cards import Ruler

    tour, visit = _late_visit("6D AH", 2, "7C", "3H 8H", Ruler("Q", Suit.SPADES))
    console = Console(width=80, record=True, color_system=None)
    adviser = coach_advice.Adviser(console, time_limit=30.0, ascii=True)
    advised = adviser.move_advice(SimpleNamespace(tour=tour, visit=visit))
    console.print(advised.view)
    text = console.export_text()
    assert advised.default == "debate"
    assert re.search(r"^\*\s+debate\s", text, re.MULTILINE)
    flat = " ".join(text.split())
    assert "debate leads: JS" in flat and "would add +4.7% chance, about 0.57 pt" in flat
    assert "for the 1 pt QS costs" in flat
    record = advised.record(parse_play("debate", visit))
    assert record["default"] == "debate" and record["played"] == record["chance"]
    assert record["free_chance"] == record["chance"] and not record["spends"]

    jack = replace(visit, jacks=frozenset({Suit.SPADES}))
    advised = adviser.move_advice(SimpleNamespace(tour=tour, visit=jack))
    console = Console(width=80, record=True, color_system=None)
    console.print(advised.view)
    text = console.export_text()
    assert "final score" not in text and "leads:" not in text and advised.default.startswith("JS")


def _reviewed(session, ascii: bool = True) -> str:
    console = Console(width=80, record=True, color_system=None)
    console.print(review_view(session, ascii))
    return console.export_text()


def test_the_review_never_charges_for_the_coachs_own_default_and_marks_estimates() -> None:
    """Issue 18: a play equal to the prompt's default costs nothing in the review, even where
    the table ranked another option higher; a cost from estimates carries '~' (or says
    'noise' inside the estimate's interval); an unfinished tour is titled so; --ascii draws
    no Unicode."""
    from advisor.session import Session

    session = Session.new(TourConfig(short=True), "physical", None, LAYOUT.split())
    session = session.append(
        {"type": "hand", "cards": ["2C", "5D", "6D", "3H", "8H", "4S", "7S", "8S"]}
    )
    session = session.append(
        {
            "type": "kingdom",
            "position": 1,
            "advice": {
                "best": 1,
                "default": 1,
                "chances": {"1": 0.9, "2": 0.5},
                "estimated": ["1"],
                "played": 0.9,
            },
        }
    )
    advice = {"best": "JH", "default": "debate", "chance": 0.99, "played": 0.95}
    session = session.append({"type": "action", "action": {"kind": "debate"}, "advice": advice})
    session = session.append({"type": "card", "card": "AS"})
    estimated = {
        "best": "7S",
        "default": "7S",
        "chance": 0.9,
        "played": 0.7,
        "estimate": True,
        "interval": [0.85, 0.95],
        "played_interval": [0.6, 0.8],
    }
    session = session.append(
        {"type": "action", "action": {"kind": "answer", "card": "4S"}, "advice": estimated}
    )
    text = _reviewed(session)
    assert text.isascii() and "final score" not in text.splitlines()[0]
    assert "Review: tour unfinished (visit 1 under way), score so far 0" in text
    debate = next(line for line in text.splitlines() if "| debate" in line)
    assert debate.rstrip().endswith("|") or "%" not in debate  # the default: not charged
    assert "~20.00%" in text
    noisy = {**estimated, "played": 0.86}
    session = session.undo().append(
        {"type": "action", "action": {"kind": "answer", "card": "4S"}, "advice": noisy}
    )
    assert "noise" in _reviewed(session)


def test_a_kingdom_cost_from_a_proven_bound_is_marked_as_not_exact() -> None:
    """Issue 16: a kingdom's chance with every Jack may be a proven lower bound ('bounded' in
    the saved advice); a cost computed from it is marked like one from an estimate."""
    from advisor.session import Session

    session = Session.new(TourConfig(short=True), "physical", None, LAYOUT.split())
    session = session.append(
        {"type": "hand", "cards": ["2C", "5D", "6D", "3H", "8H", "4S", "7S", "8S"]}
    )
    session = session.append(
        {
            "type": "kingdom",
            "position": 2,
            "advice": {
                "best": 1,
                "default": 1,
                "chances": {"1": 0.9, "2": 0.5},
                "estimated": [],
                "bounded": ["2"],
                "played": 0.5,
            },
        }
    )
    assert "~40.00%" in _reviewed(session)
    with pytest.raises(SessionError):
        Session.new(TourConfig(short=True), "physical", None, LAYOUT.split()).append(
            {"type": "hand", "cards": ["2C", "5D", "6D", "3H", "8H", "4S", "7S", "8S"]}
        ).append({"type": "kingdom", "position": 2, "advice": {"best": 1, "bounded": [2]}})


def test_a_kingdom_choice_is_priced_by_the_tour_value_it_gives_up() -> None:
    """Issue 18: the coach recommends a kingdom by tour value, so the review charges a choice
    against the advice the expected final score it gives up, not the visit's chance; the
    recommended kingdom costs nothing; a malformed tour value table is refused."""
    from advisor.session import Session

    start = Session.new(TourConfig(short=True), "physical", None, LAYOUT.split()).append(
        {"type": "hand", "cards": ["2C", "5D", "6D", "3H", "8H", "4S", "7S", "8S"]}
    )
    advice = {
        "best": 1,
        "default": 1,
        "chances": {"1": 0.5, "2": 0.9},
        "estimated": [],
        "bounded": [],
        "tour_values": {"1": 10.18, "2": 9.81},
        "objective": "score",
    }
    against = _reviewed(
        start.append({"type": "kingdom", "position": 2, "advice": {**advice, "played": 0.9}})
    )
    row = next(line for line in against.splitlines() if "| kingdom" in line)
    assert row.split("|")[4].strip() == "0.37 pts" and "%" not in row  # not the chance's 40%
    followed = _reviewed(
        start.append({"type": "kingdom", "position": 1, "advice": {**advice, "played": 0.5}})
    )
    row = next(line for line in followed.splitlines() if "| kingdom" in line)
    assert row.split("|")[4].strip() == ""
    bounded = {**advice, "bounded": ["2"], "played": 0.9}
    assert "~0.37 pts" in _reviewed(
        start.append({"type": "kingdom", "position": 2, "advice": bounded})
    )
    for bad in ({**advice, "tour_values": {"1": "high"}}, {**advice, "objective": "most"}):
        with pytest.raises(SessionError):
            start.append({"type": "kingdom", "position": 2, "advice": bad})


def test_the_review_grades_each_decision_in_expected_final_score() -> None:
    """Issue 17: a play's cost is the visit's chance it gives up times what winning the visit
    is worth (its saved stake), plus a point for a supporter spent beyond the advice; the
    kingdom choice costs its tour value; following the advice costs nothing; the summary and
    review --json give the mean loss a decision and the share that followed the advice."""
    from advisor.review import review_json
    from advisor.session import Session

    session = Session.new(TourConfig(short=True), "physical", None, LAYOUT.split())
    session = session.append(
        {"type": "hand", "cards": ["2C", "5D", "6D", "3H", "8H", "4S", "7S", "8S"]}
    )
    session = session.append(
        {
            "type": "kingdom",
            "position": 2,
            "advice": {
                "best": 1,
                "default": 1,
                "chances": {"1": 0.5, "2": 0.9},
                "estimated": [],
                "bounded": [],
                "tour_values": {"1": 4.5, "2": 4.25},
                "objective": "score",
                "played": 0.9,
            },
        }
    )
    followed = {"best": "debate", "default": "debate", "chance": 0.8, "played": 0.8, "stake": 5.0}
    session = session.append({"type": "action", "action": {"kind": "debate"}, "advice": followed})
    session = session.append({"type": "card", "card": "AS"})
    deviation = {"best": "7S", "default": "7S", "chance": 0.8, "played": 0.7, "stake": 5.0}
    session = session.append(
        {"type": "action", "action": {"kind": "answer", "card": "4S"}, "advice": deviation}
    )
    text = _reviewed(session)
    assert "0.25 pts" in text and "0.50 pts (10.0%)" in text
    data = review_json(session)
    costs = [(d["kind"], d["cost"], d["matched"]) for d in data["decisions"]]
    assert costs == [
        ("kingdom", pytest.approx(0.25), False),
        ("play", 0.0, True),
        ("answer", pytest.approx(0.5), False),
    ]
    assert data["summary"]["mean_loss"] == pytest.approx(0.25)  # (0.25 + 0 + 0.5) / 3
    assert data["summary"]["matched_share"] == pytest.approx(1 / 3)
    assert [c["kind"] for c in data["summary"]["costliest"]] == ["answer", "kingdom"]
    spent = {**deviation, "played": 0.8, "played_spends": True}
    session = session.undo().append(
        {"type": "action", "action": {"kind": "answer", "card": "4S"}, "advice": spent}
    )
    assert review_json(session)["decisions"][2]["cost"] == pytest.approx(1.0)  # its point


def test_the_review_charges_a_supporter_the_coach_advised_for_less_than_its_point() -> None:
    """Issue 38: the coach advised a supporter's Commerce for +0.5% over the best free option
    at a stake of 2 points: 0.01 pt for the 1 pt it costs, so the advice cost 0.99 pt, charged
    also to the player who followed it and shown in its own column; the summary and the JSON
    say what the advice gave away. Playing the free option instead costs nothing."""
    from advisor.review import review_json
    from advisor.session import Session

    session = Session.new(TourConfig(short=True), "physical", None, LAYOUT.split())
    session = session.append(
        {"type": "hand", "cards": ["2C", "5D", "6D", "3H", "8H", "4S", "7S", "8S"]}
    )
    session = session.append(
        {
            "type": "kingdom",
            "position": 1,
            "advice": {
                "best": 1,
                "default": 1,
                "chances": {"1": 0.5},
                "estimated": [],
                "bounded": [],
                "tour_values": {"1": 4.5},
                "objective": "score",
                "played": 0.5,
            },
        }
    )
    advice = {
        "best": "JD QD",
        "default": "JD QD",
        "chance": 0.805,
        "free_chance": 0.8,
        "stake": 2.0,
        "spends": True,
    }
    followed = session.append(
        {
            "type": "action",
            "action": {"kind": "debate"},
            "advice": {**advice, "played": 0.805, "played_spends": True},
        }
    )
    data = review_json(followed)
    play = data["decisions"][1]
    assert play["advice_cost"] == pytest.approx(0.99) and play["cost"] == pytest.approx(0.99)
    assert data["summary"]["advice_loss"] == pytest.approx(0.99)
    text = _reviewed(followed)
    assert "advice cost" in text and "0.99 pts" in text and "gave away 0.99 pts" in text
    free = session.append(
        {
            "type": "action",
            "action": {"kind": "debate"},
            "advice": {**advice, "played": 0.8, "played_spends": False},
        }
    )
    play = review_json(free)["decisions"][1]
    assert play["advice_cost"] == pytest.approx(0.99) and play["cost"] == pytest.approx(0.0)
    worth = {**advice, "chance": 0.9, "played": 0.9, "played_spends": True}  # +10% x 2 = 0.2 pt
    assert review_json(
        session.append({"type": "action", "action": {"kind": "debate"}, "advice": worth})
    )["decisions"][1]["advice_cost"] == pytest.approx(0.8)


def test_a_second_supporter_of_a_suit_lends_the_ability_once_the_first_is_spent() -> None:
    """Seed 11's coach advised 'JC KC' after K♣ had been spent in that very visit, and then
    refused its own advice (unused: Q♥ Q♣): the advice must name the supporter still up."""
    from dataclasses import replace
    from types import SimpleNamespace

    from search.game.cards import Ruler
    from search.game.tour import tour_between_visits

    king, queen = Ruler("K", Suit.CLUBS), Ruler("Q", Suit.CLUBS)
    tour, visit = _late_visit("2C 6D AH", 2, "7C", "3H 8H", king)
    layout = [None if r == queen else r for r in tour.rulers]
    tour = tour_between_visits(layout, unused=[king, queen])
    visit = replace(visit, rulers=tuple(layout), supporters=(queen,), used_supporters=(king,))
    adviser = coach_advice.Adviser(
        Console(width=80, record=True, color_system=None), time_limit=30.0, ascii=True
    )
    advised = adviser.move_advice(SimpleNamespace(tour=tour, visit=visit))
    console = Console(width=80, record=True, color_system=None)
    console.print(advised.view)
    text = console.export_text()
    assert "JC QC" in text and "JC KC" not in text
    assert parse_play("JC QC", visit) is not None


class Deviator:
    """A player of a seeded coached tour who follows the advice (Enter) but for deliberate
    deviations: the kingdom with the lowest expected final score at the first choice, and at
    the first ``plays`` prompts where the ranking shows an option whose chance is exact and at
    least ``margin`` below the advice's exact chance, that option."""

    def __init__(self, output: io.StringIO, plays: int = 2, margin: float = 0.05):
        self.output, self.plays, self.margin = output, plays, margin
        self.seen = 0
        self.deviations: list[tuple[str, str]] = []  # (kind, what was typed)

    def __call__(self, markup: str) -> str:
        prompt = markup.replace("\\[", "[")
        new = self.output.getvalue()[self.seen :]
        self.seen = len(self.output.getvalue())
        if prompt.startswith("Kingdom to visit") and not self.deviations:
            values = re.findall(r"#(\d) (\d+\.\d+)", " ".join(new.split()))
            worst = min(values, key=lambda value: float(value[1]))[0]
            self.deviations.append(("kingdom", worst))
            return worst
        if prompt.startswith("Your play") and self.plays:
            typed = self._worse_exact_option(new)
            if typed:
                self.plays -= 1
                self.deviations.append(("play", typed))
                return typed
        return ""

    def _worse_exact_option(self, shown: str) -> str | None:
        """An exactly valued option well below the advice's exact chance, as the ranking shows it."""
        rows = re.findall(r"^([* ])\s+(\S+(?: \d)?)\s{2,}.*?\s(\d+)%\s", shown, re.MULTILINE)
        exact = {play: int(percent) for mark, play, percent in rows}
        best = next((play for mark, play, _ in rows if mark == "*"), None)
        if best is None or not re.search(
            rf"^\*\s+{re.escape(best)}\s.*\s\d+%\s", shown, re.MULTILINE
        ):
            return None
        for play, percent in exact.items():
            if play != best and exact[best] - percent >= 100 * self.margin:
                return play
        return None


def test_a_coached_tour_with_deliberate_deviations_prices_each_of_them(tmp_path: Path) -> None:
    """Issue 17, done when: a seeded coached tour played through the real prompt loop, following
    the advice but for a worse kingdom and up to two worse plays (a worse play may lose the visit
    and so end the tour before a second). The review prices each deviation at a positive cost in
    expected final score, and every decision that followed the advice costs nothing; the
    summary's matched share counts them."""
    from advisor.review import review_json

    # At 1 s a prompt the ranking is exact on an idle machine; on a loaded one it may show only
    # estimates, leaving no exact worse play to choose, so the tour is coached again at 2.5 s.
    for time_limit in (1.0, 2.5):
        path = tmp_path / f"deviations-{time_limit}.json"
        output = io.StringIO()
        console = Console(file=output, width=100, color_system=None, highlight=False)
        player = Deviator(output)
        coach.run(
            path,
            8,
            TourConfig(short=True),
            console,
            player,
            advice=True,
            time_limit=time_limit,
            ascii=True,
        )
        text = output.getvalue()
        (tmp_path / f"coach-{time_limit}.txt").write_text(text)  # what the player saw
        assert "Traceback" not in text
        kinds = [kind for kind, _ in player.deviations]
        if "play" in kinds:
            break
    assert kinds[0] == "kingdom" and 1 <= kinds.count("play") <= 2, player.deviations
    data = review_json(load(path))
    decisions = data["decisions"]
    deviated = [d for d in decisions if not d["matched"]]
    followed = [d for d in decisions if d["matched"]]
    assert deviated[0]["kind"] == "kingdom" and len(deviated) == len(kinds), deviated
    assert all(d["cost"] > 0 and not d["noise"] for d in deviated), deviated
    assert followed and all(d["cost"] == 0.0 for d in followed)
    assert data["summary"]["matched_share"] == pytest.approx(len(followed) / len(decisions))


def test_the_advice_reports_what_its_ranking_rests_on() -> None:
    """Issue 37: the coach records the fewest playouts behind an estimate ranked above another
    option (proven rows and the last row excluded) and the leader's paired lead over the
    runner-up, the runner-up's paired interval (this - first) turned around."""
    from search.tours.moves import Move, fewest_playouts_above, leader_margin
    from search.visit import Option

    leader = Move(
        Option("debate"), 0.9, 0.0, interval=(0.85, 0.94), versus_best=(0.0, 0.0), playouts=400
    )
    second = Move(
        Option("ability", suit=Suit.HEARTS),
        0.8,
        0.1,
        interval=(0.74, 0.85),
        versus_best=(-0.15, -0.05),
        playouts=150,
    )
    floor = Move(Option("ability", suit=Suit.SPADES), 0.5, 0.4, interval=(0.5, 1.0), proven=True)
    last = Move(Option("ability", suit=Suit.CLUBS), 0.1, 0.8, interval=(0.0, 0.3), playouts=3)
    assert fewest_playouts_above([leader, second, floor, last]) == 150
    assert fewest_playouts_above([floor, last]) is None
    low, high = leader_margin([leader, second, floor])
    assert (low, high) == pytest.approx((0.05, 0.15))
    assert leader_margin([second, leader]) is None  # the first row is not the paired leader
    assert leader_margin([leader]) is None
