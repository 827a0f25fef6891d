"""The report's plots, drawn with matplotlib and returned as SVG text to inline in the HTML page.

- scaling: median time of the solved runs against board size, one line per backend, one panel per family (log
  scale); a size where most runs were unsolved is an ``x`` on a band above the cutoff marked "unsolved", off
  the line (never a point at a made-up time);
- cactus: instances solved against time (each backend's solved times sorted; lower and further right is
  better), with the virtual best;
- scatter: two backends' times per instance on log axes; a run unsolved by one backend sits in a shaded
  "unsolved" strip past the cutoff with a hollow marker, apart from every measured time.
- scores over time (task ``best``): each run's best score (as a share of the maximum) against the seconds it
  took to reach it, a step line per run, one panel per size class; a run's line ends at its time limit.
Each backend keeps one colour and one marker in every plot: ten colours and seven markers pair up distinctly
for 70 backends (the colour cycles by 10, the marker by 7), so 10+ backends stay told apart in grey too.
Figures come from :class:`matplotlib.figure.Figure` directly (no pyplot state, no display needed).
"""

from __future__ import annotations

import io
import statistics
from typing import Any

from edgematch.bench.scores import Scores
from edgematch.bench.summary import VIRTUAL_BEST, Summary
from edgematch.errors import MissingDependencyError

# one colour and one marker per backend, stable within a report (Tableau 10, and markers that differ in outline)
_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
            "#7f7f7f")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
UNSOLVED = "#b3261e"
UNSOLVED_FACTOR = 3.0  # the unsolved strip sits at this many times the cutoff (above the 2 x cutoff PAR2 line)
_STYLE = {"svg.fonttype": "none", "font.size": 10, "axes.spines.top": False, "axes.spines.right": False,
          "font.family": "sans-serif"}


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError("plots need matplotlib: pip install 'edgematch[report]'") from None
    return matplotlib


def colours(summary: Summary) -> dict[str, str]:
    table = {b: _PALETTE[i % len(_PALETTE)] for i, b in enumerate(summary.backends)}
    table[VIRTUAL_BEST] = "#222222"
    return table


def markers(summary: Summary) -> dict[str, str]:
    """A marker per backend; with :func:`colours`, the (colour, marker) pairs differ for up to 70 backends."""
    table = {b: _MARKERS[i % len(_MARKERS)] for i, b in enumerate(summary.backends)}
    table[VIRTUAL_BEST] = "."
    return table


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and doctype: the page inlines the element


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def scaling(summary: Summary) -> str:
    """Median PAR2 time by board size per backend, a panel per family."""
    matplotlib = _matplotlib()
    families = list(dict.fromkeys(f for f, _ in summary.classes))
    palette, shapes = colours(summary), markers(summary)
    unsolved_at = UNSOLVED_FACTOR * summary.cutoff
    with matplotlib.rc_context(_STYLE):
        figure = _figure(min(4.2 * len(families), 13), 3.6)
        axes = figure.subplots(1, len(families), squeeze=False, sharey=True)[0]
        for ax, family in zip(axes, families, strict=True):
            sizes = [s for f, s in summary.classes if f == family]
            tiles = {r.size: r.tiles for r in summary.runs if r.family == family}
            for backend in summary.backends:
                points, lost = [], []
                for size in sizes:
                    runs = [r for r in summary.runs if (r.family, r.size, r.backend) == (family, size, backend)]
                    times = [r.time for r in runs if r.solved]
                    if runs and 2 * len(times) > len(runs):  # most solved: the median is a measured time
                        points.append((tiles[size], statistics.median(times)))
                    elif runs:
                        lost.append(tiles[size])
                if points:
                    ax.plot(*zip(*points, strict=True), marker=shapes[backend], ms=4, lw=1.6, color=palette[backend],
                            label=backend)
                if lost:
                    ax.scatter(lost, [unsolved_at] * len(lost), marker="x", s=30, color=palette[backend],
                               label=None if points else backend)
            ax.axhline(summary.cutoff, color="#999999", ls="--", lw=0.8)
            ax.axhspan(summary.cutoff * 1.8, summary.cutoff * 5, color=UNSOLVED, alpha=0.06, lw=0)
            ax.text(0.02, summary.cutoff * 5, "unsolved", color=UNSOLVED, fontsize=7, va="top",
                    transform=ax.get_yaxis_transform())
            ax.set_yscale("log")
            ax.set_xticks([tiles[s] for s in sizes], sizes, rotation=45 if len(sizes) > 3 else 0)
            ax.set_title(family)
            ax.set_xlabel("board")
            ax.grid(True, which="major", axis="y", alpha=0.3)
        axes[0].set_ylabel(f"median time of solved runs, s (cutoff {summary.cutoff:g} s dashed)")
        shown: dict[str, Any] = {}
        for ax in axes:  # every backend once, whichever panel it appears in
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                shown.setdefault(label, handle)
        figure.legend(list(shown.values()), list(shown), loc="outside right upper", fontsize=8, frameon=False)
        return _svg(figure)


def cactus(summary: Summary) -> str:
    """Instances solved within a time, per backend and for the virtual best."""
    matplotlib = _matplotlib()
    palette, shapes = colours(summary), markers(summary)
    with matplotlib.rc_context(_STYLE):
        figure = _figure(6.4, 4.0)
        ax = figure.subplots()
        for backend in [*summary.backends, VIRTUAL_BEST]:
            runs = summary.best if backend == VIRTUAL_BEST else [r for r in summary.runs if r.backend == backend]
            times = sorted(max(r.time, 1e-4) for r in runs if r.solved)
            if times:
                ax.step(range(1, len(times) + 1), times, where="post", color=palette[backend], label=backend,
                        lw=2.2 if backend == VIRTUAL_BEST else 1.6, ls=":" if backend == VIRTUAL_BEST else "-",
                        marker=shapes[backend], ms=3.5, markevery=max(1, len(times) // 8))
        ax.axhline(summary.cutoff, color="#999999", ls="--", lw=0.8)
        ax.set_yscale("log")
        ax.set_xlabel("instances solved")
        ax.set_ylabel("time, s (log)")
        ax.set_title("cactus: instances solved within a time")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8, frameon=False, loc="upper left")
        return _svg(figure)


def scatter(summary: Summary, first: str, second: str) -> str:
    """Per instance, ``first``'s time against ``second``'s; points below the diagonal favour ``second``."""
    matplotlib = _matplotlib()
    families = list(dict.fromkeys(f for f, _ in summary.classes))
    with matplotlib.rc_context(_STYLE):
        figure = _figure(5.0, 4.6)
        ax = figure.subplots()
        low, cutoff = 1e-3, summary.cutoff
        lost = UNSOLVED_FACTOR * cutoff  # the unsolved strip, apart from every measured time

        def where(run: Any) -> float:
            return max(run.time, 1e-3) if run.solved else lost

        for index, family in enumerate(families):
            both, one = [], []
            for key in summary.instances():
                a, b = summary.run(key, first), summary.run(key, second)
                if a and b and a.family == family:
                    (both if a.solved and b.solved else one).append((where(a), where(b)))
            colour, shape = _PALETTE[index % len(_PALETTE)], _MARKERS[index % len(_MARKERS)]
            if both:
                ax.scatter(*zip(*both, strict=True), s=22, alpha=0.75, color=colour, marker=shape, label=family)
            if one:
                ax.scatter(*zip(*one, strict=True), s=30, facecolors="none", edgecolors=colour, marker=shape,
                           label=None if both else family)
            low = min(low, *(v for point in both + one for v in point))
        ax.plot([low, cutoff], [low, cutoff], color="#777777", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(low / 1.5, lost * 1.6)
        ax.set_ylim(low / 1.5, lost * 1.6)
        for span in (ax.axvspan, ax.axhspan):
            span(cutoff * 1.5, lost * 1.6, color=UNSOLVED, alpha=0.07, lw=0)
        ax.text(lost, low, "unsolved", color=UNSOLVED, fontsize=8, rotation=90, ha="center", va="bottom")
        ax.text(low, lost, "unsolved", color=UNSOLVED, fontsize=8, ha="left", va="center")
        ax.set_xlabel(f"{first}, s")
        ax.set_ylabel(f"{second}, s")
        ax.set_title(f"{first} vs {second} (hollow: one left it unsolved)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8, frameon=False)
        return _svg(figure)


MAX_SCORE_PANELS = 6  # the score-over-time plot draws the largest size classes when there are more


def scores_over_time(scores: Scores, limit: float) -> str:
    """Best score (share of the maximum) against seconds, a step line per run coloured by backend, a panel per
    size class (the largest ``MAX_SCORE_PANELS``); ``limit`` is where a line without a later step ends."""
    matplotlib = _matplotlib()
    classes = scores.classes[-MAX_SCORE_PANELS:]
    palette = {b: _PALETTE[i % len(_PALETTE)] for i, b in enumerate(scores.backends)}
    with matplotlib.rc_context(_STYLE):
        figure = _figure(min(4.2 * len(classes), 13), 3.6)
        axes = figure.subplots(1, len(classes), squeeze=False, sharey=True)[0]
        for ax, (family, size) in zip(axes, classes, strict=True):
            for run in scores.runs:
                if (run.family, run.size) != (family, size) or not run.history or not run.max_score:
                    continue
                if run.category != "correct":
                    continue
                times = [max(t, 1e-3) for t, _ in run.history]
                shares = [100 * s / run.max_score for _, s in run.history]
                end = max(run.time, times[-1], limit if run.status != "solved" else times[-1])
                ax.step([*times, end], [*shares, shares[-1]], where="post", color=palette[run.backend], lw=1.2,
                        alpha=0.7, label=run.backend)
            ax.set_xscale("log")
            ax.set_title(f"{family} {size}")
            ax.set_xlabel("seconds (log)")
            ax.grid(True, which="major", alpha=0.3)
        axes[0].set_ylabel("best score, % of the maximum")
        shown: dict[str, Any] = {}
        for ax in axes:
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                shown.setdefault(label, handle)
        figure.legend(list(shown.values()), list(shown), loc="outside right upper", fontsize=8, frameon=False)
        return _svg(figure)
