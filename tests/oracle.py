"""A tiny, deliberately naive enumerator used as a test oracle for counts (independent of every backend).

Row-major backtracking over (tile, rotation) with no tables and no symmetry tricks; fine for boards of
up to 9 tiles. It shares only the Puzzle data with the code under test.
"""

from __future__ import annotations

from collections.abc import Iterator

from edgematch.core.model import Puzzle, Solution


def _turn(edges: tuple[int, ...], r: int) -> tuple[int, ...]:
    return tuple(edges[(i - r) % 4] for i in range(4))


_KNOWN: dict[Puzzle, tuple[Solution, ...]] = {}  # puzzles enumerated to the end in this process


def all_solutions(puzzle: Puzzle) -> Iterator[Solution]:
    """Every raw solution of ``puzzle``, in row-major enumeration order. Many tests ask about the same seeded
    puzzles, so a puzzle enumerated to the end is kept and given again (a caller that stops early keeps
    nothing)."""
    known = _KNOWN.get(puzzle)
    if known is not None:
        yield from known
        return
    found = []
    for solution in _enumerate(puzzle):
        found.append(solution)
        yield solution
    _KNOWN[puzzle] = tuple(found)


def _enumerate(puzzle: Puzzle) -> Iterator[Solution]:
    w, h = puzzle.width, puzzle.height
    frame = puzzle.frame
    hints = {c: (t, r) for c, t, r in puzzle.hints}
    # each tile's edges after each turn, computed once (not once per cell tried)
    turned = [[_turn(tile.edges, r) for r in range(4 if puzzle.rotations else 1)] for tile in puzzle.tiles]

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
        border = (row == 0, col == w - 1, row == h - 1, col == 0)
        for t, turns in enumerate(turned):
            if used[t]:
                continue
            for r, e in enumerate(turns):
                if cell in hints and hints[cell] != (t, r):
                    continue
                if frame is not None and any((e[s] == frame) != border[s] for s in range(4)):
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


def best_score(puzzle: Puzzle) -> int | None:
    """The most fitting inner seams over every admissible board (each tile once in an allowed turn, hints
    kept, the frame outward only and never inside), or None when there is none: plain enumeration, seams
    scored as each cell is placed (its west and north seams), with only the bound "cannot beat the best
    even if every remaining seam fits". Meant for boards of up to about 6 free cells, or framed 3x3."""
    w, h = puzzle.width, puzzle.height
    frame = puzzle.frame
    hints = {c: (t, r) for c, t, r in puzzle.hints}
    hinted_tiles = {t for t, _ in hints.values()}
    seams_after = [0] * (w * h + 1)  # seams scored at cells >= c
    for c in range(w * h - 1, -1, -1):
        row, col = divmod(c, w)
        seams_after[c] = seams_after[c + 1] + (col > 0) + (row > 0)

    def fits(a: int, b: int) -> bool:
        return b == (-a if puzzle.rule == "signed" else a)

    board: list[tuple[int, ...]] = []
    used = [False] * len(puzzle.tiles)
    best = [-1]

    def place(cell: int, score: int) -> None:
        if score + seams_after[cell] <= best[0]:
            return
        if cell == w * h:
            best[0] = score
            return
        row, col = divmod(cell, w)
        for t, tile in enumerate(puzzle.tiles):
            if used[t]:
                continue
            for r in range(4 if puzzle.rotations else 1):
                if cell in hints and hints[cell] != (t, r):
                    continue
                if cell not in hints and t in hinted_tiles:
                    continue
                e = _turn(tile.edges, r)
                if frame is not None:
                    border = (row == 0, col == w - 1, row == h - 1, col == 0)
                    if any((e[s] == frame) != border[s] for s in range(4)):
                        continue
                gain = (col > 0 and fits(board[cell - 1][1], e[3])) + (row > 0 and fits(board[cell - w][2], e[0]))
                used[t] = True
                board.append(e)
                place(cell + 1, score + gain)
                board.pop()
                used[t] = False

    place(0, 0)
    return None if best[0] < 0 else best[0]
