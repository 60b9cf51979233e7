"""A whole tour: kingdoms, supporters and score (docs/rules.md §2.6–2.7, §5, §6 short tour).

A tour is a row of kingdoms with a ruler on each. Visits happen one at a time;
winning a visit turns the ruler then on that kingdom into an unused supporter,
missing it ends the tour. The score is kingdoms pledged plus supporters whose
ability was never used.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations

from .cards import KINGS, RULERS, CardSet, Ruler, Suit
from .rules import IllegalActionError, VisitState, new_visit

HAND_SIZE = 8


@dataclass(frozen=True, slots=True)
class TourConfig:
    """Which game is played: standard or short tour (§6), this version or published rules (R4)."""

    short: bool = False
    published_rules: bool = False
    first_edition: bool = False  # the 2019 rules: reputation instead of sudden death (R5-R7)

    @property
    def kingdoms(self) -> int:
        """How many kingdoms lie in the row."""
        return 4 if self.short else 8

    @property
    def targets(self) -> tuple[int, ...]:
        """Wins needed at each position: 1..8, or 2, 4, 6, 8 on the short tour."""
        return (2, 4, 6, 8) if self.short else tuple(range(1, 9))

    @property
    def ruler_cards(self) -> tuple[Ruler, ...]:
        """The rulers in play: all Kings and Queens, or only the Kings on the short tour."""
        return KINGS if self.short else RULERS

    @property
    def perfect_score(self) -> int:
        """Every kingdom pledged and every supporter unused: 16, or 8 on the short tour; in
        the first edition every kingdom completed (R7)."""
        return self.kingdoms if self.first_edition else 2 * self.kingdoms

    def target(self, position: int) -> int:
        """Wins needed at kingdom ``position`` (1-based)."""
        return self.targets[position - 1]


@dataclass(frozen=True, slots=True)
class Supporter:
    """A won ruler, lending its suit's ability once per tour."""

    ruler: Ruler
    used: bool = False


@dataclass(frozen=True, slots=True)
class TourState:
    """Rulers on positions (None once won), supporters, visits made, and whether it ended."""

    config: TourConfig
    rulers: tuple[Ruler | None, ...]
    supporters: tuple[Supporter, ...] = ()
    visits: int = 0
    failed: bool = False
    jacks: frozenset[Suit] = frozenset(
        Suit
    )  # face up; only the first edition turns them down for good (R5)

    @property
    def visited(self) -> frozenset[int]:
        """Positions already won (in the first edition: completed, R7)."""
        return frozenset(i + 1 for i, ruler in enumerate(self.rulers) if ruler is None)

    @property
    def unvisited(self) -> tuple[int, ...]:
        """Positions still to visit, left to right."""
        return tuple(i + 1 for i, ruler in enumerate(self.rulers) if ruler is not None)

    @property
    def over(self) -> bool:
        """The tour ends on a miss or once every kingdom is won."""
        return self.failed or not self.unvisited

    @property
    def perfect(self) -> bool:
        """Every kingdom won and no supporter used."""
        return self.score == self.config.perfect_score

    @property
    def unused_supporters(self) -> tuple[Ruler, ...]:
        """Supporters whose ability is still available."""
        return tuple(s.ruler for s in self.supporters if not s.used)

    @property
    def score(self) -> int:
        """Kingdoms pledged plus supporters never used (§5); first edition: kingdoms
        completed (R7)."""
        if self.config.first_edition:
            return len(self.visited)
        return len(self.visited) + len(self.unused_supporters)

    @property
    def reputation(self) -> int:
        """First edition (R5): the face-up Jacks and supporters."""
        return len(self.jacks) + len(self.unused_supporters)


def new_tour(
    rulers: tuple[Ruler, ...] | list[Ruler], config: TourConfig = TourConfig()
) -> TourState:
    """A tour with ``rulers`` on positions 1..n, left to right; checked."""
    rulers = tuple(rulers)
    if len(rulers) != config.kingdoms:
        raise IllegalActionError(f"the tour needs {config.kingdoms} rulers, got {len(rulers)}")
    if len(set(rulers)) != len(rulers):
        raise IllegalActionError("each ruler can lie on only one kingdom")
    strays = [r for r in rulers if r not in config.ruler_cards]
    if strays:
        raise IllegalActionError(
            f"{strays[0].ascii()} is not a ruler of the short tour: only Kings rule there"
        )
    return TourState(config=config, rulers=rulers)


def start_visit(tour: TourState, hand: CardSet, position: int) -> VisitState:
    """Begin the visit to kingdom ``position`` with the 8 cards drawn; checked."""
    if tour.over:
        raise IllegalActionError("the tour is over")
    if len(hand) != HAND_SIZE:
        raise IllegalActionError(f"a visit starts with {HAND_SIZE} cards, got {len(hand)}")
    if position not in tour.unvisited:
        raise IllegalActionError(
            f"kingdom {position} cannot be chosen: unvisited are "
            + ", ".join(map(str, tour.unvisited))
        )
    return new_visit(
        hand,
        position,
        tour.config.target(position),
        tour.rulers,
        supporters=tour.unused_supporters,
        published_rules=tour.config.published_rules,
        jacks=tour.jacks if tour.config.first_edition else frozenset(Suit),
        first_edition=tour.config.first_edition,
    )


def miss(visit: VisitState) -> int:
    """How far the visit ended from its target."""
    return abs(visit.wins - visit.target)


def turn_down_choices(tour: TourState, visit: VisitState) -> list[tuple]:
    """First edition (R7): the sets of face-up cards that can pay for a miss by m, each a
    tuple of Jack suits and supporter rulers; empty when the tour ends instead (m or fewer
    face up) or nothing is owed."""
    owed = miss(visit)
    if not tour.config.first_edition:
        return []
    face_up: list = sorted(visit.jacks) + sorted(visit.supporters, key=lambda r: (r.suit, r.kind))
    if owed == 0 or len(face_up) <= owed:
        return []
    return [tuple(pick) for pick in combinations(face_up, owed)]


def supporters_spent(tour: TourState, visit: VisitState) -> tuple[Supporter, ...]:
    """The tour's supporters with those ``visit`` has used marked used, one for each use (of
    two of one suit face up, each use spends one)."""
    spent = list(visit.used_supporters)
    supporters = []
    for supporter in tour.supporters:
        if not supporter.used and supporter.ruler in spent:
            spent.remove(supporter.ruler)
            supporter = replace(supporter, used=True)
        supporters.append(supporter)
    return tuple(supporters)


def finish_visit(tour: TourState, visit: VisitState, turn_down: tuple = ()) -> TourState:
    """Record an ended visit: supporters spent, the kingdom won or the tour lost (§2.6). In
    the first edition a miss by m with more than m cards face up costs the m cards in
    ``turn_down`` (one of :func:`turn_down_choices`) and completes the kingdom (R5-R7)."""
    if not visit.over:
        raise IllegalActionError("the visit has not ended")
    if tour.config.first_edition:
        return _finish_first_edition(tour, visit, tuple(turn_down))
    supporters = list(supporters_spent(tour, visit))
    rulers = list(visit.rulers)
    if visit.succeeded:
        supporters.append(Supporter(rulers[visit.position - 1]))
        rulers[visit.position - 1] = None
    return replace(
        tour,
        rulers=tuple(rulers),
        supporters=tuple(supporters),
        visits=tour.visits + 1,
        failed=not visit.succeeded,
    )


def _finish_first_edition(tour: TourState, visit: VisitState, turn_down: tuple) -> TourState:
    spent = set(visit.used_supporters)
    jacks = set(visit.jacks)
    choices = turn_down_choices(tour, visit)
    if choices:
        if tuple(turn_down) not in choices:
            face_up = _names(tuple(sorted(jacks)) + visit.supporters)
            raise IllegalActionError(
                f"a miss by {miss(visit)} turns down exactly {miss(visit)} of the face-up "
                f"cards ({face_up}), each once (R7)"
            )
        for card in turn_down:
            if isinstance(card, Suit):
                jacks.discard(card)
            else:
                spent.add(card)
    elif turn_down:
        raise IllegalActionError("nothing is owed: turn no card down")
    supporters = tuple(
        replace(s, used=True) if not s.used and s.ruler in spent else s for s in tour.supporters
    )
    rulers = list(visit.rulers)
    ends = miss(visit) > 0 and not choices
    if not ends:
        if visit.succeeded:
            supporters += (Supporter(rulers[visit.position - 1]),)
        rulers[visit.position - 1] = None  # completed: won, or missed and paid for (R7)
    return replace(
        tour,
        rulers=tuple(rulers),
        supporters=supporters,
        visits=tour.visits + 1,
        failed=ends,
        jacks=frozenset(jacks),
    )


def _names(cards: tuple) -> str:
    return " ".join(f"J{c.letter}" if isinstance(c, Suit) else c.ascii() for c in cards)


def tour_between_visits(
    layout: tuple[Ruler | None, ...] | list[Ruler | None],
    used: tuple[Ruler, ...] | list[Ruler] = (),
    unused: tuple[Ruler, ...] | list[Ruler] | None = None,
    config: TourConfig = TourConfig(),
    jacks: frozenset[Suit] = frozenset(Suit),
) -> TourState:
    """A tour under way from the rulers lying on the kingdoms now (None where won); checked.

    A ruler leaves its kingdom only when won, and then becomes a supporter, so the won
    rulers are exactly those lying on no kingdom (§2.6). ``used`` names the supporters
    whose ability is spent; ``unused``, if given, must name all the others. In the first
    edition a kingdom missed and paid for is completed without a supporter (R7), so there
    the won rulers named in neither list are such kingdoms; ``jacks`` are the face-up Jacks.
    """
    layout = tuple(layout)
    if len(layout) != config.kingdoms:
        raise IllegalActionError(f"the tour has {config.kingdoms} kingdoms, got {len(layout)}")
    lying = [r for r in layout if r is not None]
    if len(set(lying)) != len(lying):
        raise IllegalActionError("each ruler can lie on only one kingdom")
    for ruler in [*lying, *used, *(unused or ())]:
        if ruler not in config.ruler_cards:
            raise IllegalActionError(
                f"{ruler.ascii()} is not a ruler of the short tour: only Kings rule there"
            )
    if not lying:
        raise IllegalActionError("every kingdom is won: the tour is over")
    won = [r for r in config.ruler_cards if r not in lying]
    where = {ruler: index + 1 for index, ruler in enumerate(layout) if ruler is not None}
    unused_given = unused is not None
    unused = list(unused or ())
    for ruler in [*used, *unused]:
        if ruler in where:
            raise IllegalActionError(
                f"{ruler.ascii()} lies on kingdom {where[ruler]}: only a won ruler is a supporter"
            )
    for ruler in used:
        if ruler in unused:
            raise IllegalActionError(
                f"{ruler.ascii()} cannot be both a used and an unused supporter"
            )
    if len(set(used)) != len(used) or len(set(unused)) != len(unused):
        raise IllegalActionError("each supporter can be listed once")
    if config.first_edition and unused_given:
        won = [r for r in won if r in used or r in unused]
    if unused_given:
        missing = [r for r in won if r not in used and r not in unused]
        if missing:
            raise IllegalActionError(
                f"{missing[0].ascii()} lies on no kingdom, so it was won: "
                "it is a supporter, used or unused"
            )
    supporters = tuple(Supporter(r, used=r in used) for r in won)
    visits = config.kingdoms - len(lying)
    return TourState(
        config=config,
        rulers=layout,
        supporters=supporters,
        visits=visits,
        jacks=jacks if config.first_edition else frozenset(Suit),
    )
