"""A tiny, deliberately naive enumerator used as a test oracle for counts (independent of every backend).

Row-major backtracking over (tile, rotation) with no tables and no symmetry tricks; fine for boards of
up to 9 tiles. It shares only the Puzzle data with the code under test.
"""

from __future__ import annotations

from collections.abc import Iterator

from edgematch.core.model import Puzzle, Solution


def _turn(edges: tuple[int, ...], r: int) -> tuple[int, ...]:
    return tuple(edges[(i - r) % 4] for i in range(4))


def all_solutions(puzzle: Puzzle) -> Iterator[Solution]:
    w, h = puzzle.width, puzzle.height
    frame = puzzle.frame
    hints = {c: (t, r) for c, t, r in puzzle.hints}

    def fits(a: int, b: int) -> bool:
        if frame is not None and frame in (a, b):
            return False
        return b == (-a if puzzle.rule == "signed" else a)

    board: list[tuple[int, int, tuple[int, ...]]] = []
    used = [False] * len(puzzle.tiles)

    def place(cell: int) -> Iterator[Solution]:
        if cell == w * h:
            yield Solution(w, h, tuple((t, r) for t, r, _ in board))
            return
        row, col = divmod(cell, w)
        for t, tile in enumerate(puzzle.tiles):
            if used[t]:
                continue
            for r in range(4 if puzzle.rotations else 1):
                if cell in hints and hints[cell] != (t, r):
                    continue
                e = _turn(tile.edges, r)
                if frame is not None:
                    border = (row == 0, col == w - 1, row == h - 1, col == 0)
                    if any((e[s] == frame) != border[s] for s in range(4)):
                        continue
                if col > 0 and not fits(board[cell - 1][2][1], e[3]):
                    continue
                if row > 0 and not fits(board[cell - w][2][2], e[0]):
                    continue
                used[t] = True
                board.append((t, r, e))
                yield from place(cell + 1)
                board.pop()
                used[t] = False

    yield from place(0)
