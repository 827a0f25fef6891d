"""Turning the whole board, and the key that decides when two solutions look the same.

Two solutions are the same *distinct* solution when their grids of visible labels are equal up to a
board turn that the puzzle allows: 4 turns on a square board, 2 (0 and 180 degrees) on a rectangle, and
only the turns that map the hints (and, when tiles may not turn, the tile set) onto themselves. The
frame is unchanged by any turn. Comparing visible labels merges identical and self-symmetric tiles.
"""

from __future__ import annotations

import dataclasses
import functools

from edgematch.core.model import Edges, Hint, Puzzle, Solution, rotate_edges
from edgematch.errors import UsageError

Grid = tuple[Edges, ...]


def turn_grid(grid: Grid, width: int, height: int, k: int) -> tuple[Grid, int, int]:
    """The label grid after turning the board ``k`` quarter turns clockwise; returns (grid, width, height)."""
    k %= 4
    if not k:
        return grid, width, height
    cut = 4 - k  # each tile turns with the board: rotate_edges(edges, k), inlined (keys count many solutions)
    new_w, new_h = (height, width) if k % 2 else (width, height)
    return tuple(e[cut:] + e[:cut] for e in map(grid.__getitem__, _sources(width, height, k))), new_w, new_h


@functools.cache
def _sources(width: int, height: int, k: int) -> tuple[int, ...]:
    """For each cell of the board turned ``k`` (1-3) quarter turns clockwise, the old cell it shows."""
    if k == 1:  # new (r, c) shows old (height-1-c, r) on a board of width `height`
        return tuple((height - 1 - c) * width + r for r in range(width) for c in range(height))
    if k == 2:  # new (r, c) shows old (height-1-r, width-1-c): the cells in reverse
        return tuple(range(width * height - 1, -1, -1))
    # k == 3, one turn back: new (r, c) shows old (c, width-1-r)
    return tuple(c * width + (width - 1 - r) for r in range(width) for c in range(height))


def turn_cell(cell: int, width: int, height: int, k: int) -> int:
    """Where ``cell`` goes when the board turns ``k`` quarter turns clockwise."""
    for _ in range(k % 4):
        row, col = divmod(cell, width)
        # old (row, col) lands at new (col, height-1-row) on a board of width `height`
        cell = col * height + (height - 1 - row)
        width, height = height, width
    return cell


def board_turns(puzzle: Puzzle) -> tuple[int, ...]:
    """Board turns (in quarter turns) that map the puzzle onto itself: shape, frame and hints preserved.

    Under these turns the set of solutions is closed (a turned solution is a solution), so counting
    the solutions that are least in their orbit counts the distinct ones. When rotation is forbidden,
    a turn also turns every tile, so it is allowed only if the tile set is unchanged by it.
    """
    if not isinstance(puzzle, Puzzle):
        raise UsageError(f"board_turns needs a Puzzle, got {type(puzzle).__name__}")
    w, h = puzzle.width, puzzle.height
    candidates = (0, 1, 2, 3) if w == h else (0, 2)
    hinted = {cell: puzzle.tiles[t].rotated(r) for cell, t, r in puzzle.hints}
    tiles = sorted(t.edges for t in puzzle.tiles) if not puzzle.rotations else []  # only compared then
    allowed = []
    for k in candidates:
        if not puzzle.rotations and sorted(rotate_edges(e, k) for e in tiles) != tiles:
            continue
        if all(
            hinted.get(turn_cell(cell, w, h, k)) == rotate_edges(edges, k) for cell, edges in hinted.items()
        ):
            allowed.append(k)
    return tuple(allowed)


def distinct_key(puzzle: Puzzle, solution: Solution, turns: tuple[int, ...] | None = None) -> Grid:
    """A key equal for solutions that look the same: the least label grid over the allowed board turns.

    Pass ``turns`` (from :func:`board_turns`) when keying many solutions of one puzzle.
    """
    if not isinstance(solution, Solution):
        raise UsageError(f"distinct_key needs a Solution, got {type(solution).__name__}")
    if turns is None:
        turns = board_turns(puzzle)
    grid = solution.grid(puzzle)
    return min(turn_grid(grid, puzzle.width, puzzle.height, k)[0] for k in turns)


def turn_solution(puzzle: Puzzle, solution: Solution, k: int) -> Solution:
    """The same placements with the whole board turned ``k`` times: each tile moves and turns with it."""
    w, h = puzzle.width, puzzle.height
    new_w, new_h = (h, w) if k % 2 else (w, h)
    cells = [None] * len(solution.cells)
    for cell, (t, r) in enumerate(solution.cells):
        cells[turn_cell(cell, w, h, k)] = (t, (r + k) % 4)
    return Solution(new_w, new_h, tuple(cells))  # type: ignore[arg-type]


def turn_puzzle(puzzle: Puzzle, k: int) -> Puzzle:
    """The same puzzle with the whole board turned ``k`` quarter turns clockwise: the shape (width and height
    swap on odd turns) and each hint move with it, and the hints turn with it (tiles that may not turn are
    turned in the tile set instead, their placements stay unturned). :func:`turn_board` maps its boards to
    and from the puzzle's one to one, scores kept."""
    k %= 4
    w, h = puzzle.width, puzzle.height
    new_w, new_h = (h, w) if k % 2 else (w, h)
    turns = k if puzzle.rotations else 0
    hints = tuple(Hint(turn_cell(c, w, h, k), t, (r + turns) % 4) for c, t, r in puzzle.hints)
    tiles = puzzle.tiles if puzzle.rotations else tuple(t.rotated(k) for t in puzzle.tiles)
    return dataclasses.replace(puzzle, width=new_w, height=new_h, hints=hints, tiles=tiles)


def turn_board(puzzle: Puzzle, board: Solution, k: int) -> Solution:
    """A board of ``puzzle`` as a board of ``turn_puzzle(puzzle, k)``: :func:`turn_solution`, except that
    on a puzzle whose tiles may not turn the placements keep turn 0 (the turned puzzle's tiles are turned)."""
    if not k % 4:
        return board
    if puzzle.rotations:
        return turn_solution(puzzle, board, k)
    w, h = puzzle.width, puzzle.height
    cells = [None] * len(board.cells)
    for cell, placed in enumerate(board.cells):
        cells[turn_cell(cell, w, h, k)] = placed
    return Solution(*((h, w) if k % 2 else (w, h)), tuple(cells))  # type: ignore[arg-type]
