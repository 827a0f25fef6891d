"""The independent checker: the project's single source of truth for "is this a solution".

It knows nothing of any backend and re-derives every rule from the model, so a backend bug cannot hide
behind a shared helper. ``check`` lists every violation by cell or seam; ``score`` counts matched seams.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain

from edgematch.core.model import SIDE_NAMES, SIDES, Puzzle, Solution
from edgematch.errors import UsageError

# boards of this many cells and up are first checked whole (numpy): below it the loop is as fast, and a small
# check needs no numpy (importing it takes 0.1-0.4 s)
WHOLE_BOARD_FROM = 64


@dataclass(frozen=True)
class Violation:
    """One broken rule. ``cell`` (and for seams ``other``) locate it; ``kind`` is a short stable code."""

    kind: str
    message: str
    cell: int | None = None
    other: int | None = None

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :func:`check`: the violations (empty when valid) and the seam score."""

    violations: tuple[Violation, ...] = field(default_factory=tuple)
    score: int = 0
    max_score: int = 0

    @property
    def ok(self) -> bool:
        return not self.violations

    @property
    def admissible(self) -> bool:
        """Whether the board is one the best-score question accepts: every rule holds except that seams
        may mismatch (each tile once, turns allowed, hints kept, the frame outward and nowhere inside)."""
        return all(v.kind == "seam" for v in self.violations)

    @property
    def breaks(self) -> int:
        """Inner seams that do not fit (the best-score question's cost: ``max_score - score``)."""
        return self.max_score - self.score

    def __bool__(self) -> bool:
        return self.ok

    def summary(self) -> str:
        head = "valid solution" if self.ok else f"{len(self.violations)} violation(s)"
        return f"{head}; score {self.score}/{self.max_score} seams matched"


def _where(puzzle: Puzzle, cell: int) -> str:
    row, col = divmod(cell, puzzle.width)
    return f"cell {cell} (row {row}, col {col})"


def check(puzzle: Puzzle, solution: Solution) -> CheckResult:
    """Every way ``solution`` fails ``puzzle``: placements, seams, frame and hints. Anything but a
    :class:`Puzzle` and a :class:`Solution` is a :class:`UsageError` (a board of the wrong size is a violation)."""
    return _checked(puzzle, solution, list_seams=True)


def check_admissible(puzzle: Puzzle, solution: Solution) -> CheckResult:
    """:func:`check` for the best-score question: every violation but the broken seams, which are only
    counted (``max_score - score``). A board of a 250x250 puzzle breaks about 124,000 seams; listing each took
    most of a second."""
    return _checked(puzzle, solution, list_seams=False)


def _checked(puzzle: Puzzle, solution: Solution, list_seams: bool) -> CheckResult:
    if not isinstance(puzzle, Puzzle):
        raise UsageError(f"the puzzle must be an edgematch.Puzzle, got {type(puzzle).__name__}")
    if not isinstance(solution, Solution):
        raise UsageError(f"the solution must be an edgematch.Solution (Solution.from_pairs"
                         f"(puzzle, pairs) makes one from (tile, rotation) pairs), got {type(solution).__name__}")
    if (solution.width, solution.height) == (puzzle.width, puzzle.height) and puzzle.size >= WHOLE_BOARD_FROM:
        fast = _only_seams_broken(puzzle, solution, list_seams)
        if fast is not None:
            return fast
    return _listed(puzzle, solution, list_seams)


def _listed(puzzle: Puzzle, solution: Solution, list_seams: bool) -> CheckResult:
    """Every rule, cell by cell and seam by seam, each violation with its message: the reference the
    vectorised :func:`_only_seams_broken` must agree with."""
    out: list[Violation] = []
    if (solution.width, solution.height) != (puzzle.width, puzzle.height):
        out.append(Violation(
            "shape",
            f"solution is {solution.width}x{solution.height} but the puzzle is {puzzle.width}x{puzzle.height}",
        ))
        return CheckResult(tuple(out), 0, puzzle.seam_count)

    shown: dict[int, tuple[int, int, int, int]] = {}
    used_at: dict[int, int] = {}
    for cell, (t, r) in enumerate(solution.cells):
        if not 0 <= t < len(puzzle.tiles):
            out.append(Violation("tile-range", f"{_where(puzzle, cell)}: tile {t} does not exist", cell))
            continue
        if t in used_at:
            out.append(Violation(
                "tile-twice", f"{_where(puzzle, cell)}: tile {t} is already used on cell {used_at[t]}", cell,
                used_at[t],
            ))
        used_at.setdefault(t, cell)
        if not 0 <= r < 4:
            out.append(Violation("rotation-range", f"{_where(puzzle, cell)}: rotation {r} is not 0..3", cell))
            continue
        if r and not puzzle.rotations:
            out.append(Violation(
                "rotation-forbidden", f"{_where(puzzle, cell)}: tile {t} turned {r} but rotation is off", cell
            ))
        t_edges = puzzle.tiles[t].edges
        shown[cell] = (t_edges[-r % 4], t_edges[(1 - r) % 4], t_edges[(2 - r) % 4], t_edges[(3 - r) % 4])

    missing = sorted(set(range(len(puzzle.tiles))) - set(used_at))
    if missing:
        out.append(Violation("tile-missing", f"tiles not placed: {', '.join(map(str, missing))}"))

    frame = puzzle.frame
    score = 0
    for cell, edges in shown.items():
        for side in SIDES:
            nb = puzzle.neighbour(cell, side)
            label = edges[side]
            if nb is None:
                if frame is not None and label != frame:
                    out.append(Violation(
                        "frame-edge",
                        f"{_where(puzzle, cell)}: {SIDE_NAMES[side]} edge {puzzle.label_name(label)} faces out, "
                        f"the frame needs {puzzle.label_name(frame)}",
                        cell,
                    ))
                continue
            if side not in (1, 2):  # each seam once, from its west / north cell
                continue
            if nb not in shown:
                continue
            other = shown[nb][(side + 2) % 4]
            if frame is not None and frame in (label, other):
                out.append(Violation(
                    "frame-inside",
                    f"seam {_where(puzzle, cell)} {SIDE_NAMES[side]} / cell {nb}: the frame label is inside",
                    cell, nb,
                ))
            elif other != (-label if puzzle.rule == "signed" else label):
                if not list_seams:
                    continue
                out.append(Violation(
                    "seam",
                    f"seam {_where(puzzle, cell)} {SIDE_NAMES[side]} / cell {nb}: "
                    f"{puzzle.label_name(label)} meets {puzzle.label_name(other)}",
                    cell, nb,
                ))
            else:
                score += 1

    out.extend(hint_violations(puzzle, solution))
    return CheckResult(tuple(out), score, puzzle.seam_count)


def _only_seams_broken(puzzle: Puzzle, solution: Solution, list_seams: bool) -> CheckResult | None:
    """The result of the rules above, vectorised, when the board breaks none of them but seams (and hints,
    which :func:`hint_violations` lists as the loop does): each tile once in range, turns allowed, the frame
    outward and never inside. ``None`` when it breaks any other rule, or any seam while ``list_seams``, for the
    loop to list each violation with its message. The same rules read from the model, once per board instead
    of once per cell: a 250x250 board's check goes from about half a second to a few milliseconds."""
    import numpy as np  # here: importing the package does not load numpy

    try:  # fromiter: np.array over 62,500 (tile, turn) tuples takes four times as long
        cells = np.fromiter(chain.from_iterable(solution.cells), np.int64, 2 * len(solution.cells)).reshape(-1, 2)
    except OverflowError:
        return None
    tiles, turns = cells[:, 0], cells[:, 1]
    n = len(puzzle.tiles)
    if len(cells) != n or tiles.min() < 0 or tiles.max() >= n or turns.min() < 0 or turns.max() > 3:
        return None
    if (not puzzle.rotations and turns.any()) or (np.bincount(tiles, minlength=n) != 1).any():
        return None
    # what each cell shows on side s: its tile's edge (s - turns) % 4 (a clockwise quarter turn brings W to N)
    shown = puzzle.edge_array[tiles[:, None], (np.arange(4)[None, :] - turns[:, None]) % 4]
    grid = shown.reshape(puzzle.height, puzzle.width, 4)
    outward = (grid[0, :, 0], grid[:, -1, 1], grid[-1, :, 2], grid[:, 0, 3])
    west_east = (grid[:, :-1, 1], grid[:, 1:, 3])
    north_south = (grid[:-1, :, 2], grid[1:, :, 0])
    frame = puzzle.frame
    if frame is not None and (any((side != frame).any() for side in outward)
                              or any((side == frame).any() for side in (*west_east, *north_south))):
        return None
    sign = -1 if puzzle.rule == "signed" else 1
    matched = int((west_east[1] == sign * west_east[0]).sum() + (north_south[1] == sign * north_south[0]).sum())
    if list_seams and matched < puzzle.seam_count:
        return None
    return CheckResult(tuple(hint_violations(puzzle, solution)), matched, puzzle.seam_count)


def hint_violations(puzzle: Puzzle, solution: Solution) -> list[Violation]:
    """The hints ``solution`` does not keep (a cell without its hinted tile in its hinted turn), as :func:`check`
    reports them: read from the hinted cells alone, where checking a 250x250 board whole takes about half a second."""
    out = []
    for cell, t, r in puzzle.hints:
        if 0 <= cell < len(solution.cells) and tuple(solution.cells[cell]) != (t, r):
            got_t, got_r = solution.cells[cell]
            out.append(Violation(
                "hint",
                f"{_where(puzzle, cell)}: hint wants tile {t} turned {r}, got tile {got_t} turned {got_r}",
                cell,
            ))
    return out


def score(puzzle: Puzzle, solution: Solution) -> int:
    """Number of inner seams whose edges match (the frame label inside never matches)."""
    return check_admissible(puzzle, solution).score
