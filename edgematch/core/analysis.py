"""Facts about a puzzle for ``edgematch info``: tile classes, colours per edge class, duplicates,
self-symmetric tiles, and the Arc article's estimate of how many solutions a random puzzle of this shape has.

The estimate (seed 000): arrangements / chance that every seam matches. Unframed: ``n! * 4^n / m^seams``
with ``m`` label values (the insects: 9! * 4^9 / 8^12 = 1.38). Framed: corners, border and inner tiles
are placed within their own cells (border tiles' turns fixed by the frame), rim seams use the rim values
and inner seams the inner ones. Computed in log space so Eternity II sized boards do not overflow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from edgematch.core.model import Puzzle


@dataclass(frozen=True)
class EdgeClasses:
    """Label values (signed labels counted with their sign) and colours on each class of edge."""

    rim_values: frozenset[int]
    inner_values: frozenset[int]

    def colours(self, values: frozenset[int], rule: str) -> int:
        return len({abs(v) for v in values} if rule == "signed" else values)


@dataclass(frozen=True)
class PuzzleFacts:
    """What ``edgematch info`` prints."""

    name: str
    width: int
    height: int
    rule: str
    frame: int | None
    rotations: bool
    hints: int
    tiles: int
    corner_tiles: int
    border_tiles: int
    inner_tiles: int
    colours: int
    rim_colours: int
    inner_colours: int
    seams: int
    rim_seams: int
    duplicate_groups: tuple[tuple[int, ...], ...]
    self_symmetric: tuple[tuple[int, int], ...]  # (tile, period)
    log10_arrangements: float
    log10_expected_solutions: float

    @property
    def expected_solutions(self) -> float:
        """The estimate as a float (inf when it does not fit)."""
        try:
            return 10.0 ** self.log10_expected_solutions
        except OverflowError:
            return math.inf


def edge_classes(puzzle: Puzzle) -> EdgeClasses:
    """Split edge labels into rim (beside a frame edge) and inner; unframed puzzles have only inner.
    Vectorised (a 250x250 board has 250,000 edges)."""
    import numpy as np  # here: importing the package does not load numpy

    edges = puzzle.edge_array
    if puzzle.frame is None:
        return EdgeClasses(frozenset(), frozenset(np.unique(edges).tolist()))
    frame = edges == puzzle.frame
    beside = np.roll(frame, 1, axis=1) | np.roll(frame, -1, axis=1)  # a frame side before or after it
    rim = np.unique(edges[~frame & beside]).tolist()
    inner = np.unique(edges[~frame & ~beside]).tolist()
    return EdgeClasses(frozenset(rim), frozenset(inner))


def rim_tight(puzzle: Puzzle) -> bool:
    """Whether a framed puzzle's rim seams have at least as many colours as its inner seams (the clue
    puzzles: 4 rim, 3 inner), so the ring is the more constrained region; False for unframed puzzles and
    Eternity II-like ones (5 rim, 17 inner). The native fill order and ``auto``'s rules look at it."""
    if puzzle.frame is None:
        return False
    classes = edge_classes(puzzle)
    inner = classes.colours(classes.inner_values, puzzle.rule)
    return inner > 0 and classes.colours(classes.rim_values, puzzle.rule) >= inner


def _log10_factorial(n: int) -> float:
    return math.lgamma(n + 1) / math.log(10)


def facts(puzzle: Puzzle) -> PuzzleFacts:
    """Collect the facts about ``puzzle`` (cheap: no search)."""
    w, h = puzzle.width, puzzle.height
    counts = {0: 0, 1: 0, 2: 0}
    for i in range(len(puzzle.tiles)):
        k = len(puzzle.frame_sides(i))
        counts[min(k, 2)] += 1
    classes = edge_classes(puzzle)
    turns = math.log10(4) if puzzle.rotations else 0.0
    if puzzle.frame is None:
        n = len(puzzle.tiles)
        arrangements = _log10_factorial(n) + n * turns
        values = len(classes.inner_values)
        rim_seams = 0
        log_match = puzzle.seam_count * math.log10(max(values, 1))
    else:
        arrangements = (
            _log10_factorial(counts[2]) + _log10_factorial(counts[1])
            + _log10_factorial(counts[0]) + counts[0] * turns
        )
        rim_seams = 2 * (w - 1) + 2 * (h - 1) if w > 1 and h > 1 else max(w, h) - 1
        inner_seams = puzzle.seam_count - rim_seams
        log_match = (
            rim_seams * math.log10(max(len(classes.rim_values), 1))
            + inner_seams * math.log10(max(len(classes.inner_values), 1))
        )
    self_sym = tuple((i, t.period()) for i, t in enumerate(puzzle.tiles) if t.period() < 4)
    return PuzzleFacts(
        name=puzzle.name, width=w, height=h, rule=puzzle.rule, frame=puzzle.frame,
        rotations=puzzle.rotations, hints=len(puzzle.hints), tiles=len(puzzle.tiles),
        corner_tiles=counts[2] if puzzle.frame is not None else 0,
        border_tiles=counts[1] if puzzle.frame is not None else 0,
        inner_tiles=counts[0] if puzzle.frame is not None else len(puzzle.tiles),
        colours=len(puzzle.colours()),
        rim_colours=classes.colours(classes.rim_values, puzzle.rule),
        inner_colours=classes.colours(classes.inner_values, puzzle.rule),
        seams=puzzle.seam_count, rim_seams=rim_seams,
        duplicate_groups=tuple(tuple(g) for g in puzzle.duplicate_groups()),
        self_symmetric=self_sym,
        log10_arrangements=arrangements,
        log10_expected_solutions=arrangements - log_match,
    )


def format_count(log10_value: float) -> str:
    """A possibly astronomical count for people: ``1.38``, ``95,126,814,720`` or ``2.3e+507``."""
    if log10_value < 15:
        value = 10.0 ** log10_value
        return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
    mantissa = 10.0 ** (log10_value - math.floor(log10_value))
    return f"{mantissa:.2f}e+{math.floor(log10_value)}"
