"""PNG plots of a sweep's summary (matplotlib, from the optional ``plots`` extra)."""

from __future__ import annotations

from pathlib import Path

from search.sweep import MissingExtraError, SweepError

from .sweep_tables import trumps_text


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise MissingExtraError("--plots needs matplotlib: pip install 'emissary[plots]'") from None
    matplotlib.use("Agg")  # files only, no display
    from matplotlib import pyplot

    return pyplot


def sweep_plots(summary: dict, directory: Path) -> list[Path]:
    """Write the mean chance by target and each target's histogram; return the files."""
    pyplot = _pyplot()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SweepError(
            f"cannot create the plot directory {directory}: {error.strerror}"
        ) from None
    groups: dict[str, list[dict]] = {}
    for entry in summary["results"]:
        groups.setdefault(entry["trumps"], []).append(entry)
    title = f"abilities {summary['parameters']['abilities']}, {summary['mode']}"
    paths = [_means(pyplot, groups, title, directory / "mean-chance.png")]
    shown = "any" if "any" in groups else next(iter(groups))
    paths.append(_histograms(pyplot, groups[shown], shown, title, directory / "histograms.png"))
    return paths


def _means(pyplot, groups: dict[str, list[dict]], title: str, path: Path) -> Path:
    figure, axes = pyplot.subplots(figsize=(7, 4))
    width = 0.8 / len(groups)
    for number, (trumps, entries) in enumerate(groups.items()):
        targets = [entry["target"] for entry in entries]
        means = [entry["mean"] or 0.0 for entry in entries]
        errors = None
        if all("mean_ci95" in entry for entry in entries):
            errors = [
                [m - entry["mean_ci95"][0] for m, entry in zip(means, entries)],
                [entry["mean_ci95"][1] - m for m, entry in zip(means, entries)],
            ]
        offsets = [t + (number - (len(groups) - 1) / 2) * width for t in targets]
        axes.bar(
            offsets, means, width, yerr=errors, capsize=3, label=f"trump {trumps_text(trumps)}"
        )
    axes.set_xlabel("kingdom target (wins needed)")
    axes.set_ylabel("mean chance over hands")
    axes.set_ylim(0, 1)
    axes.set_title(title)
    axes.legend()
    return _save(pyplot, figure, path)


def _histograms(pyplot, entries: list[dict], trumps: str, title: str, path: Path) -> Path:
    columns = 4
    rows = -(-len(entries) // columns)
    figure, grid = pyplot.subplots(rows, columns, figsize=(12, 3 * rows), squeeze=False)
    centres = [0.05 + 0.1 * i for i in range(10)]
    for axes, entry in zip(grid.flat, entries):
        axes.bar(centres, entry["histogram"] or [0.0] * 10, width=0.1, edgecolor="white")
        axes.set_title(f"target {entry['target']}: mean {100 * (entry['mean'] or 0):.1f}%")
        axes.set_xlim(0, 1)
        axes.set_xlabel("chance")
        axes.set_ylabel("share of hands")
    for axes in list(grid.flat)[len(entries) :]:
        axes.set_visible(False)
    figure.suptitle(f"{title}, trump {trumps_text(trumps)}")
    return _save(pyplot, figure, path)


def _save(pyplot, figure, path: Path) -> Path:
    figure.tight_layout()
    try:
        figure.savefig(path, dpi=100)
    except OSError as error:
        raise SweepError(f"cannot write {path}: {error.strerror}") from None
    finally:
        pyplot.close(figure)
    return path
