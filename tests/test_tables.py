"""The committed 2,000-tour checkpoints of the advisor (docs/winnability.md): whole, and
holding the figures that page and the README print from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from search.tours.batch import saved_result, saved_tours
from search.tours.simulate import SimulationResult

TABLES = Path(__file__).resolve().parent.parent / "docs" / "tables"
ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
WINNABILITY = ROOT / "docs" / "winnability.md"


def _result(name: str) -> SimulationResult:
    params, tours = saved_tours(TABLES / name)
    assert sorted(tours["advisor"]) == list(range(params["tours"])), "the checkpoint is not whole"
    return saved_result(params, tours["advisor"], "advisor")


@pytest.mark.parametrize(
    "name, tour, mean, perfect",
    [
        ("advisor-standard-2000.json", "standard", "12.398 (12.301–12.494)", "5.65% (4.72–6.75%)"),
        ("advisor-short-2000.json", "short", "5.745 (5.689–5.801)", "11.40% (10.08–12.87%)"),
    ],
)
def test_committed_table_is_whole_and_matches_the_docs(name, tour, mean, perfect):
    result = _result(name)
    assert result.tours == 2000 and result.seed == 2026
    m, low, high = result.mean_score
    rate, r_low, r_high = result.perfect_rate
    assert f"{m:.3f} ({low:.3f}–{high:.3f})" == mean
    assert f"{100 * rate:.2f}% ({100 * r_low:.2f}–{100 * r_high:.2f}%)" == perfect
    page = WINNABILITY.read_text()
    assert f"| {tour} | **advisor** | **{mean}** | **{perfect}** |" in page
    assert f"| {tour} | **advisor** | **{mean}** | **{perfect}** |" in README.read_text()
    for kingdom, (visits, _, rate, low, high) in enumerate(result.kingdom_rates(), 1):
        cell = (
            f"| {kingdom} ({result.config.target(kingdom)}) | {visits:,} | "
            f"{100 * rate:.1f}% ({100 * low:.1f}–{100 * high:.1f}%) |"
        )
        assert cell in page, cell
