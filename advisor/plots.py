"""PNG plots of simulation results (matplotlib, the optional ``plots`` extra)."""

from __future__ import annotations

from pathlib import Path

from search.infra import write_atomically
from search.tours import SimulationResult


def score_histograms(results: list[SimulationResult], path: Path) -> None:
    """One bar chart of the share of tours at each score, a bar group per policy; the file is
    written whole or not at all."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    from matplotlib import pyplot

    perfect = results[0].config.perfect_score
    width = 0.8 / len(results)
    figure, axes = pyplot.subplots(figsize=(9, 4.5), dpi=100)
    for index, result in enumerate(results):
        shares = [100 * count / result.tours for count in result.scores]
        mean = result.mean_score[0]
        axes.bar(
            [score + (index - (len(results) - 1) / 2) * width for score in range(perfect + 1)],
            shares,
            width=width,
            label=f"{result.policy} (mean {mean:.2f})",
        )
    tour = "short tour" if results[0].config.short else "standard tour"
    axes.set_title(f"Scores of {results[0].tours} seeded {tour}s, seed {results[0].seed}")
    axes.set_xlabel("final score")
    axes.set_ylabel("share of tours (%)")
    axes.set_xticks(range(perfect + 1))
    axes.legend()
    figure.tight_layout()
    try:
        write_atomically(path, lambda stream: figure.savefig(stream, format="png"))
    finally:
        pyplot.close(figure)
