"""An admissible board at once: one that keeps every rule but the seams (each tile once, hints kept, the frame
outward only), the first answer of every best-score search; none means no admissible board exists (UNSAT)."""

from __future__ import annotations

import numpy as np

from edgematch import clock
from edgematch.core.model import Puzzle, Solution
from edgematch.solvers.base import Result, Status, Timings
from edgematch.solvers.native.tables import border_cells, cell_class, collector_paused, shows_class


@collector_paused()
def admissible_board(puzzle: Puzzle) -> Solution | None:
    """A board keeping every rule except the seams, or None when there is none (Kuhn's augmenting paths
    over cells x tiles; a tile may take a cell when one of its allowed turns shows the cell's class).

    Cells are matched in order, in linear time where the classes allow (a framed 250x250 took 10 s of a 1 s
    limit with augmenting paths alone):
    - a class whose tiles show no other class (the inner cells of a framed board, every cell of an unframed
      one) is matched at once: its k-th cell gets the tile ``m - k`` of its ``m`` cells in its tile list, and
      it fails when the class has fewer tiles than cells;
    - a cell of the other classes (corners and edges, whose tiles show several) takes its first tile that no
      cell owns; only when every tile of its list is owned does it follow an augmenting path, with an explicit
      stack (no recursion: a path through n cells was n calls deep); a path's tiles once tried stay tried, so
      each list keeps a pointer to its first untried tile.
    """
    hinted = {c: (t, r) for c, t, r in puzzle.hints}
    hinted_tiles = {t for t, _ in hinted.values()}
    free_cells = [c for c in range(puzzle.size) if c not in hinted]
    turns = range(4) if puzzle.rotations else (0,)
    # tiles that show no frame side in any turn fit only the inner class () (unturned); the others (a framed
    # board's rim tiles, a few hundred of 62,500 on a 250x250) take each turn's class: per tile, not per cell
    edges = puzzle.edge_array
    free_tile = np.ones(len(puzzle.tiles), bool)
    free_tile[list(hinted_tiles)] = False
    plain = free_tile if puzzle.frame is None else free_tile & ~(edges == puzzle.frame).any(axis=1)
    turn_for: dict[tuple[int, tuple[int, ...]], int] = {}  # (rim tile, class) -> the first turn showing that class
    for t in np.flatnonzero(free_tile & ~plain).tolist():
        for r in reversed(turns):
            turn_for[t, shows_class(puzzle, puzzle.tiles[t].rotated(r))] = r
    by_class: dict[tuple[int, ...], list[int]] = {}  # class -> the tiles that can show it, in tile order
    if plain.any():
        by_class[()] = np.flatnonzero(plain).tolist()
    classes_of: dict[int, int] = {}  # rim tile -> how many classes it can show (a plain tile: one)
    for t, klass in turn_for:
        by_class.setdefault(klass, []).append(t)
        classes_of[t] = classes_of.get(t, 0) + 1
    klass_of = dict.fromkeys(free_cells, ())
    if puzzle.frame is not None:  # only border cells have another class
        for c in border_cells(puzzle):
            if c in klass_of:
                klass_of[c] = cell_class(puzzle, c)
    if any(k not in by_class for k in set(klass_of.values())):
        return None  # a cell no tile can take
    fits = {c: by_class[klass_of[c]] for c in free_cells}
    alone = {k for k, tiles in by_class.items() if all(classes_of.get(t, 1) == 1 for t in tiles)}
    owner: dict[int, int] = {}  # tile -> cell
    first_free: dict[int, int] = {}  # id of a class's tile list -> index of its first tile no cell owns

    def take_free(cell: int) -> bool:
        """The cell's first tile that no cell owns, if any (an augmenting path of one step; a tile once owned
        stays owned, only its cell may change, so the index only moves on)."""
        tiles = fits[cell]
        p = first_free.get(id(tiles), 0)
        while p < len(tiles) and tiles[p] in owner:
            p += 1
        first_free[id(tiles)] = p
        if p == len(tiles):
            return False
        owner[tiles[p]] = cell
        return True

    def augment(root: int) -> bool:
        seen: set[int] = set()
        first_untried: dict[int, int] = {}  # id of a class's tile list -> index of its first tile not in seen
        stack = [[root, 0, -1]]  # frames: cell, next index in its list, the tile it is trying
        while stack:
            frame = stack[-1]
            tiles = fits[frame[0]]
            p = first_untried.get(id(tiles), 0)
            while p < len(tiles) and tiles[p] in seen:
                p += 1
            first_untried[id(tiles)] = p
            i = max(frame[1], p)
            while i < len(tiles) and tiles[i] in seen:
                i += 1
            if i == len(tiles):
                stack.pop()  # no path from this cell: its parent tries its next tile
                continue
            t = tiles[i]
            seen.add(t)
            frame[1], frame[2] = i + 1, t
            if t in owner:
                stack.append([owner[t], 0, -1])
                continue
            for cell, _, tile in reversed(stack):  # a free tile: every cell on the path takes the tile it tried
                owner[tile] = cell
            return True
        return False

    for c in free_cells:
        if klass_of[c] not in alone and not take_free(c) and not augment(c):
            return None
    for klass in alone:
        mine = [c for c in free_cells if klass_of[c] == klass]
        tiles = by_class[klass]
        if len(mine) > len(tiles):
            return None
        for k, c in enumerate(mine):
            owner[tiles[len(mine) - 1 - k]] = c
    cells: list[tuple[int, int]] = [(0, 0)] * puzzle.size
    for c, (t, r) in hinted.items():
        cells[c] = (t, r)
    for t, c in owner.items():
        cells[c] = (t, turn_for[t, klass_of[c]] if klass_of[c] else 0)
    return Solution.from_pairs(puzzle, cells)


def no_admissible_board(puzzle: Puzzle, t0: float) -> Result:
    """The answer when :func:`admissible_board` finds none: no board keeps the frame and hints (UNSAT)."""
    return Result("native", Status.UNSAT, timings=Timings(build=clock.now() - t0),
                  message="no board keeps the frame and hints with these tiles", max_score=puzzle.seam_count)

