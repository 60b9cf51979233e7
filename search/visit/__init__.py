"""One visit: the exact expectimax (:mod:`.reference`, compiled in :mod:`.kernel`), its
canonical keys (:mod:`.suitpatterns`), positions and results (:mod:`.position`), the solve
with its fallback estimate (:mod:`.solve`, :mod:`.estimate`), payoffs (:mod:`.payoffs`) and
the certainty search that makes 100% and 0% exact for any ability set (:mod:`.certain`)."""

from __future__ import annotations

from ..infra import BudgetExceeded, MemoryLimitExceeded, TimeLimitExceeded, WorkLimitExceeded
from .budget import (
    LOOKUPS_PER_SECOND,
    Budget,
    Memos,
    Search,
    clock_stops,
    forget_solver,
    known_roots,
    remember_roots,
    scratch_of,
)
from .certain import (
    IMPOSSIBLE,
    OPEN,
    SURE,
    UNKNOWN,
    Certainty,
    CertaintySearch,
    ReferenceCertainty,
    certainty,
)
from .estimate import (
    best_answer,
    best_discard,
    choose_option,
    estimate_kingdom,
    planning_state,
)
from .lookahead import (
    LookaheadPolicy,
    paired_difference,
    paired_estimate,
    solve_roots,
    swap_state,
)
from .payoffs import Payoffs, PayoffSolver
from .playout import Playout
from .position import (
    InvalidPositionError,
    KingdomResult,
    Option,
    Position,
    SolverState,
    action_of_label,
    legal_discards_of,
    make_position,
    option_of_label,
    position_from_visit,
    root_state,
)
from .reference import Abilities, KingdomSolver
from .solve import root_options, solve_exact, solve_kingdom
from .solvers import kernel_needs_compile, make_solver, needs_whole_memo, warm_up
from .suitpatterns import bits_of, draw_combinations, signature

__all__ = [
    "IMPOSSIBLE",
    "LOOKUPS_PER_SECOND",
    "OPEN",
    "SURE",
    "UNKNOWN",
    "Abilities",
    "Budget",
    "BudgetExceeded",
    "Certainty",
    "CertaintySearch",
    "InvalidPositionError",
    "KingdomResult",
    "KingdomSolver",
    "LookaheadPolicy",
    "MemoryLimitExceeded",
    "Memos",
    "Option",
    "PayoffSolver",
    "Payoffs",
    "Playout",
    "Position",
    "ReferenceCertainty",
    "Search",
    "SolverState",
    "TimeLimitExceeded",
    "WorkLimitExceeded",
    "action_of_label",
    "best_answer",
    "best_discard",
    "bits_of",
    "certainty",
    "choose_option",
    "clock_stops",
    "draw_combinations",
    "estimate_kingdom",
    "forget_solver",
    "kernel_needs_compile",
    "known_roots",
    "legal_discards_of",
    "make_position",
    "make_solver",
    "needs_whole_memo",
    "option_of_label",
    "paired_difference",
    "paired_estimate",
    "planning_state",
    "position_from_visit",
    "remember_roots",
    "root_options",
    "root_state",
    "scratch_of",
    "signature",
    "solve_exact",
    "solve_kingdom",
    "solve_roots",
    "swap_state",
    "warm_up",
]
