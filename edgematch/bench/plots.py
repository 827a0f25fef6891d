"""The report's plots, drawn with matplotlib and returned as SVG text to inline in the HTML page.

- scaling: median PAR2 time against board size, one line per backend, one panel per family (log scale);
- cactus: instances solved against time (each backend's solved times sorted; lower and further right is
  better), with the virtual best;
- scatter: two backends' times per instance on log axes; unsolved runs sit on the 2 x cutoff line.
Figures come from :class:`matplotlib.figure.Figure` directly (no pyplot state, no display needed).
"""

from __future__ import annotations

import io
import statistics
from typing import Any

from edgematch.bench.summary import VIRTUAL_BEST, Summary, score
from edgematch.errors import MissingDependencyError

# one colour per backend, stable within a report
_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
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
    palette = colours(summary)
    with matplotlib.rc_context(_STYLE):
        figure = _figure(min(4.2 * len(families), 13), 3.6)
        axes = figure.subplots(1, len(families), squeeze=False, sharey=True)[0]
        for ax, family in zip(axes, families, strict=True):
            sizes = [s for f, s in summary.classes if f == family]
            tiles = {r.size: r.tiles for r in summary.runs if r.family == family}
            for backend in summary.backends:
                points = []
                for size in sizes:
                    runs = [r for r in summary.runs if (r.family, r.size, r.backend) == (family, size, backend)]
                    if runs:
                        points.append((tiles[size], statistics.median(score(r, summary.cutoff) for r in runs)))
                if points:
                    ax.plot(*zip(*points, strict=True), marker="o", ms=4, lw=1.6, color=palette[backend],
                            label=backend)
            ax.axhline(summary.cutoff, color="#999999", ls="--", lw=0.8)
            ax.set_yscale("log")
            ax.set_xticks([tiles[s] for s in sizes], sizes, rotation=45 if len(sizes) > 6 else 0)
            ax.set_title(family)
            ax.set_xlabel("board")
            ax.grid(True, which="major", axis="y", alpha=0.3)
        axes[0].set_ylabel(f"median time, s (PAR2; cutoff {summary.cutoff:g} s dashed)")
        axes[-1].legend(loc="upper left", fontsize=8, frameon=False)
        return _svg(figure)


def cactus(summary: Summary) -> str:
    """Instances solved within a time, per backend and for the virtual best."""
    matplotlib = _matplotlib()
    palette = colours(summary)
    with matplotlib.rc_context(_STYLE):
        figure = _figure(6.4, 4.0)
        ax = figure.subplots()
        for backend in [*summary.backends, VIRTUAL_BEST]:
            runs = summary.best if backend == VIRTUAL_BEST else [r for r in summary.runs if r.backend == backend]
            times = sorted(max(r.time, 1e-4) for r in runs if r.solved)
            if times:
                ax.step(range(1, len(times) + 1), times, where="post", color=palette[backend], label=backend,
                        lw=2.2 if backend == VIRTUAL_BEST else 1.6, ls=":" if backend == VIRTUAL_BEST else "-")
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
        low, high = 1e-3, 2 * summary.cutoff
        for index, family in enumerate(families):
            xs, ys = [], []
            for key in summary.instances():
                a, b = summary.run(key, first), summary.run(key, second)
                if a and b and a.family == family:
                    xs.append(max(score(a, summary.cutoff), low))
                    ys.append(max(score(b, summary.cutoff), low))
            if xs:
                ax.scatter(xs, ys, s=22, alpha=0.75, color=_PALETTE[index % len(_PALETTE)], label=family)
                low = min(low, *xs, *ys)
        ax.plot([low, high], [low, high], color="#777777", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(low / 1.5, high * 1.5)
        ax.set_ylim(low / 1.5, high * 1.5)
        ax.set_xlabel(f"{first}, s")
        ax.set_ylabel(f"{second}, s")
        ax.set_title(f"{first} vs {second} (unsolved at 2 x cutoff)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8, frameon=False)
        return _svg(figure)
