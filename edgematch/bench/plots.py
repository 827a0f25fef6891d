"""The report's plots, drawn with matplotlib and returned as SVG text to inline in the HTML page.

- scaling (families with two sizes or more; a family of one size is in the by-size table only): per backend
  and size, the median time when every run of the cell was solved (filled marker); the PAR2 figure (mean,
  an unsolved run counting twice the cutoff) when only some were, as a hollow marker labelled ``2/3``; an
  ``x`` in the "unsolved" band above twice the cutoff, labelled ``0/3``, when none was (backends unsolved at
  the same size are side by side in the band, never drawn as one mark; sizes of one tile count, 6x4 and 4x6,
  sit side by side around it);
- cactus: instances solved against time (each backend's solved times sorted), with the virtual best; lines
  that coincide stay apart: each backend has its own dash pattern, earlier ones are drawn wider underneath,
  and the markers are staggered;
- scatter: two backends' times per instance on log axes; a run unsolved by one backend sits in a shaded
  "unsolved" strip past the cutoff with a hollow marker. Its points are grey, told apart by family marker:
  colour always means a backend in this report;
- scores over time (task ``best``): per size class and backend, the mean share of the maximum score over the
  runs against seconds, one step line per backend, every backend on one axis; the y axis runs from a floor
  at or below half the lowest final score (:func:`score_floor`: a small gap between two lines is not blown up
  to fill the plot) to a little above the highest (100.5% when that is near); lower early scores enter from
  below. A panel names its boards' clue regime and the backends that ran but had no board.

Every plot takes one :class:`Style` per backend from :func:`styles`, computed once per report from the sorted
backend names: a backend has the same colour, marker and dash pattern in every plot (ten colours, seven
markers and five dash patterns pair up distinctly for many backends, and tell them apart in grey too).
Figures come from :class:`matplotlib.figure.Figure` directly (no pyplot state, no display needed); the
``*_figure`` functions return them (tests inspect them), :func:`svg` turns one into inline SVG.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from edgematch.bench.scores import Scores
from edgematch.bench.summary import VIRTUAL_BEST, Summary
from edgematch.errors import MissingDependencyError

# Tableau 10, markers that differ in outline, dash patterns that stay apart when lines coincide
_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
            "#7f7f7f")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
_DASHES: tuple[Any, ...] = ("-", (0, (5, 2)), (0, (1, 1.6)), (0, (7, 2, 1.5, 2)), (0, (3, 1.5, 1, 1.5, 1, 1.5)))
_GREYS = ("#303030", "#8a8a8a")  # the scatter's families: marker shapes in two greys (colour means a backend)
UNSOLVED = "#b3261e"
UNSOLVED_FACTOR = 3.0  # the unsolved marks sit around this many times the cutoff (above the 2 x cutoff PAR2 top)
_STYLE = {"svg.fonttype": "none", "font.size": 10, "axes.spines.top": False, "axes.spines.right": False,
          "font.family": "sans-serif"}
SCALING_COLUMNS = 3    # scaling panels per row


@dataclass(frozen=True)
class Style:
    """How one backend is drawn in every plot of a report."""

    colour: str
    marker: str
    dashes: Any  # a matplotlib line style
    rank: int    # place in the sorted backend names: earlier ones are drawn wider, underneath


def styles(backends: Iterable[str]) -> dict[str, Style]:
    """One style per backend, from the sorted names (so a backend's colour does not depend on the plot or on
    the order it was asked in), and the virtual best's (dotted black)."""
    names = sorted(set(backends) - {VIRTUAL_BEST})
    table = {b: Style(_PALETTE[i % len(_PALETTE)], _MARKERS[i % len(_MARKERS)], _DASHES[i % len(_DASHES)], i)
             for i, b in enumerate(names)}
    table[VIRTUAL_BEST] = Style("#222222", ".", (0, (1, 1.2)), len(names))
    return table


def report_styles(summary: Summary) -> dict[str, Style]:
    """The styles of every backend of a report: its timed runs' and its best runs'."""
    return styles([*summary.backends, *(summary.scores.backends if summary.scores else [])])


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError("plots need matplotlib: pip install 'edgematch[report]'") from None
    return matplotlib


def svg(figure: Any) -> str:
    """The figure as an ``<svg>`` element to inline in a page (no XML prolog or doctype). Saved at the figure's
    own size: its constrained layout already keeps every label, legend and note inside it (a tight bounding box
    only trimmed a 0.04 in margin, and drew the figure twice to find it: a fifth of a report's drawing time)."""
    buffer = io.StringIO()
    with _matplotlib().rc_context(_STYLE):  # svg.fonttype is read when saving
        figure.savefig(buffer, format="svg")
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _handle(style: Style, **overrides: Any) -> Any:
    """A legend entry drawn as the backend's lines and marks are."""
    from matplotlib.lines import Line2D

    return Line2D([], [], **{"color": style.colour, "marker": style.marker, "ls": style.dashes, "lw": 1.6,
                             "ms": 5, **overrides})


BASE_WIDTH, WIDTH_STEP = 1.6, 0.9  # a line's width; each line it lies on adds a step to the one underneath


def _step_at(xs: list[float], ys: list[float], x: float) -> float:
    """A post-step line's value at ``x`` (its first value before it starts)."""
    return next((y for xv, y in zip(reversed(xs), reversed(ys), strict=True) if xv <= x), ys[0])


def stacked_widths(lines: list[tuple[list[float], list[float]]], log: bool) -> list[float]:
    """Line widths, in drawing order, that keep lines lying on one another visible: lines that coincide over
    at least half of their common x range (within a few pixels) form a group, and the group's earlier
    lines are drawn wider underneath the later ones; every other line has the base width."""
    def close(a: float, b: float) -> bool:
        return abs(math.log(max(a, 1e-9) / max(b, 1e-9))) < math.log(1.06) if log else abs(a - b) < 0.3

    def coincide(a: tuple[list[float], list[float]], b: tuple[list[float], list[float]]) -> bool:
        low, high = max(a[0][0], b[0][0]), min(a[0][-1], b[0][-1])
        points = sorted({x for x in (*a[0], *b[0]) if low <= x <= high})
        if not points:
            return False
        same = sum(close(_step_at(*a, x), _step_at(*b, x)) for x in points)
        return 2 * same >= len(points)

    group = list(range(len(lines)))
    for i, line in enumerate(lines):
        group[i] = next((group[j] for j in range(i) if coincide(lines[j], line)), i)
    widths = []
    for i in range(len(lines)):
        later = sum(1 for j in range(i + 1, len(lines)) if group[j] == group[i])
        widths.append(BASE_WIDTH + WIDTH_STEP * later)
    return widths


def gid(kind: str, *parts: str) -> str:
    """An id for a drawn mark (``unsolved``, ``partial``, ``solved``): tests find marks by it, and it names
    the mark in the SVG."""
    return "-".join([kind, *(re.sub(r"[^A-Za-z0-9_.:+]", "_", p) for p in parts)])


def multi_size_families(summary: Summary) -> tuple[list[str], list[str]]:
    """(families with two sizes or more: a scaling panel each, families of one size: the table only)."""
    sizes: dict[str, list[str]] = {}
    for family, size in summary.classes:
        sizes.setdefault(family, []).append(size)
    return [f for f, s in sizes.items() if len(s) > 1], [f for f, s in sizes.items() if len(s) == 1]


SAME_TILES_GAP = 0.1  # sizes of one tile count (6x4, 4x6) sit this share of the axis apart
UNSOLVED_STEP = 0.035  # backends unsolved at one size sit this share of the axis apart in the band


def size_places(tiles: dict[str, int]) -> tuple[dict[str, float], float]:
    """(the x of each size, the axis unit): a size sits at its tile count, and sizes of one tile count side
    by side around it, so no two sizes share a place. The unit is the span of the tile counts, at least one
    tile: a family of 6x4 and 4x6 spans none, and its axis still needs a width."""
    unit = float(max(max(tiles.values()) - min(tiles.values()), 1))
    alike: dict[int, list[str]] = {}
    for size, count in tiles.items():
        alike.setdefault(count, []).append(size)
    places = {}
    for count, sizes in alike.items():
        for i, size in enumerate(sizes):
            places[size] = count + SAME_TILES_GAP * unit * (i - (len(sizes) - 1) / 2)
    return places, unit


def scaling_figure(summary: Summary, style: dict[str, Style] | None = None) -> Any | None:
    """Time against board size per backend, a panel per family of two sizes or more (None: no such family).
    Fully solved cells: median time, filled; partly solved: PAR2, hollow, labelled ``j/k``; none solved: an
    ``x`` in the unsolved band, labelled ``0/k``."""
    matplotlib = _matplotlib()
    families, _ = multi_size_families(summary)
    if not families:
        return None
    style = style or report_styles(summary)
    cutoff = summary.cutoff
    with matplotlib.rc_context(_STYLE):
        columns = min(len(families), SCALING_COLUMNS)
        rows = math.ceil(len(families) / columns)
        figure = _figure(4.3 * columns + 2.2, 3.3 * rows)
        axes = figure.subplots(rows, columns, squeeze=False, sharey=True).ravel()
        drawn: list[str] = []
        for ax, family in zip(axes, families, strict=False):
            sizes = [s for f, s in summary.classes if f == family]
            counts = {r.size: r.tiles for r in summary.runs if r.family == family}
            tiles, unit = size_places({size: counts[size] for size in sizes if size in counts})
            lost: dict[str, list[str]] = {}  # size -> backends that solved none of it
            measured: list[tuple[str, list[tuple[float, float, str, Any]]]] = []
            for backend in summary.backends:
                cells = {size: st for size in sizes
                         if (st := summary.by_class.get((family, size, backend))) is not None}
                if not cells:
                    continue
                drawn.append(backend)
                for size, st in cells.items():
                    if not st.solved:
                        lost.setdefault(size, []).append(backend)
                points = [(tiles[size], st.median if st.all_solved else st.par2, size, st)
                          for size, st in cells.items() if st.solved]
                if points:
                    measured.append((backend, points))
            widths = stacked_widths([([p[0] for p in pts], [p[1] for p in pts]) for _, pts in measured], log=True)
            labelled: dict[float, list[float]] = {}
            for order, ((backend, points), width) in enumerate(zip(measured, widths, strict=True)):
                s = style[backend]
                ax.plot([p[0] for p in points], [p[1] for p in points], color=s.colour, ls=s.dashes, lw=width,
                        zorder=2 + order / 100)
                full = [(x, y) for x, y, _, st in points if st.all_solved]
                if full:
                    ax.scatter(*zip(*full, strict=True), marker=s.marker, s=28, color=s.colour, zorder=3,
                               gid=gid("solved", backend, family))
                for x, y, size, st in points:
                    if st.all_solved:
                        continue
                    ax.scatter([x], [y], marker=s.marker, s=34, facecolors="white", edgecolors=s.colour,
                               linewidths=1.4, zorder=4, gid=gid("partial", backend, family, size))
                    near = labelled.setdefault(x, [])  # labels of marks close by go one above the other
                    above = sum(1 for other in near if abs(math.log(other / y)) < 0.25)
                    near.append(y)
                    ax.annotate(f"{st.solved}/{st.total}", (x, y), xytext=(5, 3 + 8 * above),
                                textcoords="offset points", fontsize=7, color=s.colour, zorder=5)
            y = UNSOLVED_FACTOR * cutoff
            for size, backends in lost.items():  # side by side in the band, one mark per backend
                shared = sum(1 for c in counts.values() if c == counts[size]) > 1
                # a size beside another of its tile count: its marks stay within its half of the gap
                step = UNSOLVED_STEP * unit if not shared else min(UNSOLVED_STEP, 0.8 * SAME_TILES_GAP
                                                                    / len(backends)) * unit
                xs = [tiles[size] + step * (i - (len(backends) - 1) / 2) for i in range(len(backends))]
                for x, backend in zip(xs, backends, strict=True):
                    ax.scatter([x], [y], marker="x", s=30, linewidths=1.6, color=style[backend].colour, zorder=4,
                               gid=gid("unsolved", backend, family, size))
                totals = {summary.by_class[(family, size, b)].total for b in backends}
                text = f"0/{totals.pop()}" if len(totals) == 1 else "0 solved"
                if shared:  # under its marks: to the right it would lie on the next size's
                    ax.annotate(text, (sum(xs) / len(xs), y), xytext=(0, -6), textcoords="offset points",
                                fontsize=7, color="#444444", ha="center", va="top")
                else:
                    ax.annotate(text, (max(xs), y), xytext=(5, 0), textcoords="offset points", fontsize=7,
                                color="#444444", va="center")
            ax.axhline(cutoff, color="#999999", ls="--", lw=0.8)
            ax.axhline(2 * cutoff, color=UNSOLVED, ls=":", lw=0.6, alpha=0.6)
            ax.axhspan(2 * cutoff, 5 * cutoff, color=UNSOLVED, alpha=0.06, lw=0)
            ax.text(0.01, 4.7 * cutoff, "unsolved", color=UNSOLVED, fontsize=7, va="top",
                    transform=ax.get_yaxis_transform())
            ax.set_yscale("log")
            ax.set_xticks([tiles[s] for s in sizes], sizes, rotation=45 if len(sizes) > 4 else 0)
            ax.set_xlim(min(tiles.values()) - 0.08 * unit, max(tiles.values()) + 0.14 * unit)
            ax.set_title(family)
            ax.set_xlabel("board")
            ax.grid(True, which="major", axis="y", alpha=0.3)
        for ax in axes[len(families):]:
            ax.set_visible(False)
        for ax in axes[::columns]:
            ax.set_ylabel(f"time, s (log; cutoff {cutoff:g} s dashed)")
        backends = [b for b in summary.backends if b in drawn]
        figure.legend([_handle(style[b]) for b in backends], backends, loc="outside right upper", fontsize=8,
                      frameon=False, title="backend", title_fontsize=8)
        grey = "#555555"
        key = [(_handle(Style(grey, "o", "-", 0)), "all solved: median time"),
               (_handle(Style(grey, "o", "-", 0), markerfacecolor="white"), "j/k solved: PAR2 (hollow)"),
               (_handle(Style(grey, "x", "none", 0)), "0/k solved (in the band)")]
        figure.legend(*zip(*key, strict=True), loc="outside right lower", fontsize=7, frameon=False)
        return figure


def cactus_figure(summary: Summary, style: dict[str, Style] | None = None) -> Any:
    """Instances solved within a time, per backend and for the virtual best."""
    matplotlib = _matplotlib()
    style = style or report_styles(summary)
    with matplotlib.rc_context(_STYLE):
        figure = _figure(6.6, 4.2)
        ax = figure.subplots()
        lines: list[tuple[str, list[float]]] = []
        for backend in summary.backends:
            times = sorted(max(r.time, 1e-4) for r in summary.runs if r.backend == backend and r.solved)
            if times:
                lines.append((backend, times))
        widths = stacked_widths([(list(range(1, len(t) + 1)), t) for _, t in lines], log=True)
        best = sorted(max(r.time, 1e-4) for r in summary.best if r.solved)
        if best:  # the virtual best: thin, dotted, on top of everything
            lines.append((VIRTUAL_BEST, best))
            widths.append(1.3)
        for order, ((backend, times), width) in enumerate(zip(lines, widths, strict=True)):
            s = style[backend]
            every = max(1, len(times) // 8)
            ax.step(range(1, len(times) + 1), times, where="post", color=s.colour, label=backend, lw=width,
                    ls=s.dashes, marker=s.marker, ms=4, zorder=2 + order,  # markers staggered between lines
                    markevery=(order * every // len(lines) % every, every))
        shown = [backend for backend, _ in lines]
        stacked = len(set(widths[:-1] if best else widths)) > 1
        ax.axhline(summary.cutoff, color="#999999", ls="--", lw=0.8)
        ax.set_yscale("log")
        ax.set_xlabel("instances solved")
        ax.set_ylabel("time, s (log)")
        ax.set_title("cactus: instances solved within a time")
        ax.grid(True, which="major", alpha=0.3)
        handles = [_handle(style[b], lw=1.3 if b == VIRTUAL_BEST else BASE_WIDTH) for b in shown]
        ax.legend(handles, shown, fontsize=8, frameon=False, loc="upper left",
                  title="lines that coincide: wider underneath" if stacked else None, title_fontsize=7)
        return figure


def scatter_figure(summary: Summary, first: str, second: str) -> Any:
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
            colour = _GREYS[(index // len(_MARKERS)) % len(_GREYS)]
            shape = _MARKERS[index % len(_MARKERS)]
            if both:
                ax.scatter(*zip(*both, strict=True), s=22, alpha=0.8, color=colour, marker=shape, label=family)
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
        ax.set_title(f"{first} vs {second} (hollow: one left it unsolved)", fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8, frameon=False, title="family", title_fontsize=8)
        return figure


MAX_SCORE_PANELS = 6  # the score-over-time plot draws the largest size classes when there are more


@dataclass(frozen=True)
class ScoreLine:
    """One backend's mean share of the maximum score (%) over the runs of a size class, against seconds:
    from the time every run had a board to the last run's end."""

    backend: str
    times: list[float]
    shares: list[float]
    runs: int


def score_lines(scores: Scores, family: str, size: str, limit: float) -> list[ScoreLine]:
    """The mean-share step line of each backend in one size class (runs without a checked board left out)."""
    lines = []
    for backend in scores.backends:
        curves = []
        for run in scores.runs:
            if (run.family, run.size, run.backend) != (family, size, backend) or run.category != "correct":
                continue
            if not run.history or not run.max_score:
                continue
            times = [max(t, 1e-3) for t, _ in run.history]
            shares = [100 * s / run.max_score for _, s in run.history]
            end = max(run.time, times[-1], limit if run.status != "solved" else times[-1])
            curves.append((times, shares, end))
        if not curves:
            continue
        start = max(c[0][0] for c in curves)
        end = max(c[2] for c in curves)
        grid = sorted({start, end, *(t for c in curves for t in c[0] if t > start)})

        def at(curve: tuple[list[float], list[float], float], t: float) -> float:
            return next(s for time, s in zip(reversed(curve[0]), reversed(curve[1]), strict=True) if time <= t)

        lines.append(ScoreLine(backend, grid, [sum(at(c, t) for c in curves) / len(curves) for t in grid],
                               len(curves)))
    return lines


def _seconds_ticks(ax: Any) -> None:
    """Plain seconds (0.2, 1, 5, 20) at 1-2-5 steps on a log axis: over a decade or two, matplotlib's default
    labels every minor tick in powers of ten, and the labels run into one another."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


FLOOR_STEP = 10.0  # the score axis starts at a multiple of this many per cent


def score_floor(lowest: float) -> float:
    """The score axis's lower end: the multiple of 10% at or below half of ``lowest`` (the lowest final
    share of a line; 71% -> 30%, 95% -> 40%, under 20% -> 0%).

    Why half: a line's height above the floor is then at least half its score, so the gap between two lines
    is drawn at most twice as large, relative to their height, as it is (a 71% and a 73% line differ by 3%
    and look 6% apart). An axis from just below the lowest line (69-77%, as before) made that 2-point gap
    fill half the plot; an axis from 0% would be honest too, but puts a long run's early climb (boards at
    8% in its first second) and the end scores into one picture where the end scores are a hair apart.
    The final figures are in the table beside the plot."""
    return FLOOR_STEP * math.floor(max(lowest, 0.0) / 2 / FLOOR_STEP)


def score_ceiling(highest: float) -> float:
    """The score axis's upper end: a little above ``highest`` (the highest final share: a mean line only
    rises), to a whole per cent, and 100.5 when that is near: an axis to 100% would leave empty the band
    between the best board (95% on a 16x16) and the maximum no one reaches."""
    return min(100.5, math.ceil(highest + max(1.0, 0.1 * (100 - highest))))


def scores_figure(scores: Scores, limit: float, style: dict[str, Style] | None = None,
                  regimes: dict[str, str] | None = None) -> Any:
    """Mean best score (share of the maximum) against seconds, a step line per backend, a panel per size class
    (the largest ``MAX_SCORE_PANELS``), titled with its clue regime from ``regimes`` (``family/size`` ->
    words, :func:`edgematch.bench.scores.clue_regimes`); ``limit`` is where a run without a later step ends."""
    matplotlib = _matplotlib()
    classes = scores.classes[-MAX_SCORE_PANELS:]
    style = style or styles(scores.backends)
    with matplotlib.rc_context(_STYLE):
        figure = _figure(min(4.2 * len(classes), 13) + 1.8, 3.6)
        axes = figure.subplots(1, len(classes), squeeze=False, sharey=True)[0]
        drawn: list[str] = []
        lowest, highest = 100.0, 0.0
        for ax, (family, size) in zip(axes, classes, strict=True):
            lines = score_lines(scores, family, size, limit)
            widths = stacked_widths([(line.times, line.shares) for line in lines], log=False)
            for order, (line, width) in enumerate(zip(lines, widths, strict=True)):
                s = style[line.backend]
                ax.step([*line.times], [*line.shares], where="post", color=s.colour, ls=s.dashes, label=line.backend,
                        lw=width, zorder=2 + order)
                drawn.append(line.backend)
                lowest = min(lowest, line.shares[-1])  # earlier, lower scores enter from below
                highest = max(highest, line.shares[-1])
            boardless = [b for b in scores.backends if b not in {line.backend for line in lines}
                         and (st := scores.by_class.get((family, size, b))) is not None and st.runs]
            if boardless:  # ran, but no run of theirs had a checked board: no line, said in the panel
                ax.text(0.02, 0.02, f"no board: {', '.join(boardless)}", transform=ax.transAxes, fontsize=8,
                        ha="left", va="bottom", color=UNSOLVED)
            runs = max((line.runs for line in lines), default=0)
            ax.set_xscale("log")
            _seconds_ticks(ax)
            regime = f", {regimes[f'{family}/{size}']}" if regimes and f"{family}/{size}" in regimes else ""
            ax.set_title(f"{family} {size}{regime} ({runs} run{'s' if runs != 1 else ''} each)", fontsize=9)
            ax.set_xlabel("seconds (log)")
            ax.grid(True, which="major", alpha=0.3)
        if highest < lowest:  # no line at all
            lowest, highest = 0.0, 100.0
        axes[0].set_ylim(score_floor(lowest), score_ceiling(highest))
        axes[0].set_ylabel("mean best score, % of the maximum")
        backends = [b for b in scores.backends if b in drawn]
        figure.legend([_handle(style[b], marker="") for b in backends], backends, loc="outside right upper",
                      fontsize=8, frameon=False, title="backend", title_fontsize=8)
        return figure

