"""The brute-force reference for ``edgematch xcheck``: counts raw and distinct solutions of small boards.

Written apart from every backend on purpose: no domains, tile types, candidate tables or symmetry
breaking from the package, only plain row-major backtracking over (tile, rotation) pairs, checking the
frame, the hints and the seams already placed (the pairs are looked up by the W or N label a cell needs,
and every check is still made on each pair). Identical tiles and self-symmetric tiles are enumerated one
by one, never multiplied out. Distinct solutions are keyed by :func:`edgematch.core.symmetry.distinct_key`
(core, shared with nothing backend-specific). Meant for boards of up to :data:`MAX_CELLS` cells.
"""

from __future__ import annotations

from dataclasses import dataclass

from edgematch import clock
from edgematch.core.model import Puzzle, Solution
from edgematch.core.symmetry import board_turns, distinct_key
from edgematch.errors import EdgematchError

MAX_CELLS = 9
CLOCK_EVERY = 4096  # placements tried between looks at the clock


class BruteTimeout(EdgematchError):
    """The brute force passed its deadline (the counts so far are lower bounds)."""

    def __init__(self, raw: int):
        super().__init__(f"brute force stopped by its deadline after {raw} raw solutions")
        self.raw = raw


@dataclass(frozen=True)
class BruteCount:
    """Every solution counted: ``raw`` (tile and turn assignments) and ``distinct`` (boards that look different)."""

    raw: int
    distinct: int


def _shown(edges: tuple[int, ...], r: int) -> tuple[int, int, int, int]:
    """What a tile shows N, E, S, W after ``r`` clockwise turns (one turn: the old W edge faces N)."""
    return (edges[(0 - r) % 4], edges[(1 - r) % 4], edges[(2 - r) % 4], edges[(3 - r) % 4])


def brute_solutions(puzzle: Puzzle, deadline: float | None = None) -> list[Solution]:
    """Every raw solution, by plain backtracking; raises :class:`BruteTimeout` past ``deadline``
    (a ``clock.now()`` value)."""
    w, h = puzzle.width, puzzle.height
    n = w * h
    frame = puzzle.frame
    signed = puzzle.rule == "signed"
    hinted = {cell: (tile, rot) for cell, tile, rot in puzzle.hints}
    turns = range(4) if puzzle.rotations else range(1)
    options = [(t, r, _shown(tile.edges, r)) for t, tile in enumerate(puzzle.tiles) for r in turns]
    # the same (tile, turn) options filed by the label they show W and N: a cell with a left neighbour
    # looks only at those showing the needed W label, a first-column cell below row 0 at the N label
    by_west: dict[int, list[tuple[int, int, tuple[int, int, int, int]]]] = {}
    by_north: dict[int, list[tuple[int, int, tuple[int, int, int, int]]]] = {}
    for option in options:
        by_west.setdefault(option[2][3], []).append(option)
        by_north.setdefault(option[2][0], []).append(option)
    # which sides of each cell face out of the board (N, E, S, W)
    outside = [(c // w == 0, c % w == w - 1, c // w == h - 1, c % w == 0) for c in range(n)]

    def partner(a: int) -> int | None:
        """The label that may touch ``a`` (None for the frame label, which touches nothing inside)."""
        if frame is not None and a == frame:
            return None
        return -a if signed else a

    def fits(a: int, b: int) -> bool:
        return b == partner(a) and (frame is None or b != frame)

    found: list[Solution] = []
    shown: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)] * n
    placed: list[tuple[int, int]] = [(0, 0)] * n
    used = [False] * n
    tried = 0

    def place(cell: int) -> None:
        nonlocal tried
        if cell == n:
            found.append(Solution(w, h, tuple(placed)))
            return
        border = outside[cell]
        if not border[3]:
            need = partner(shown[cell - 1][1])
            candidates = by_west.get(need, []) if need is not None else []
        elif not border[0]:
            need = partner(shown[cell - w][2])
            candidates = by_north.get(need, []) if need is not None else []
        else:
            candidates = options
        for t, r, edges in candidates:
            tried += 1
            if tried % CLOCK_EVERY == 0 and deadline is not None and clock.now() > deadline:
                raise BruteTimeout(len(found))
            if used[t] or (cell in hinted and hinted[cell] != (t, r)):
                continue
            if frame is not None and any((edges[s] == frame) != border[s] for s in range(4)):
                continue
            if not border[3] and not fits(shown[cell - 1][1], edges[3]):
                continue
            if not border[0] and not fits(shown[cell - w][2], edges[0]):
                continue
            used[t] = True
            shown[cell] = edges
            placed[cell] = (t, r)
            place(cell + 1)
            used[t] = False

    place(0)
    return found


def brute_count(puzzle: Puzzle, deadline: float | None = None) -> BruteCount:
    """Raw and distinct solution counts of ``puzzle`` by brute force (see :func:`brute_solutions`)."""
    solutions = brute_solutions(puzzle, deadline)
    turns = board_turns(puzzle)
    return BruteCount(len(solutions), len({distinct_key(puzzle, s, turns) for s in solutions}))
