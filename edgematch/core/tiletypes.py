"""Identical tiles as types: what every backend searches instead of single tiles, and the way back.

A *type* is a group of tiles that are the same physical piece (up to turning, when turning is allowed);
a *board* gives each free cell a (type, turn of the type's representative). Boards are exactly the
visible solutions, so backends enumerate boards and never the permutations of identical copies:

- raw solutions = boards x :attr:`TileTypes.multiplier` (copies permuted; turns of a self-symmetric
  tile that show the same edges);
- :func:`decode` gives one raw Solution of a board, :func:`expand` all of them.

Hinted tiles are not part of any type: a hint fixes its tile and exact rotation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import permutations, product
from typing import TypeVar

import numpy as np

from edgematch.core.model import Edges, Puzzle, Solution, rotate_edges

T = TypeVar("T")

Board = Sequence[tuple[int, int] | None]  # per cell: (type, turn), None on hinted cells


@dataclass(frozen=True)
class TileTypes:
    """The free tiles of a puzzle grouped into types."""

    reps: tuple[Edges, ...]                          # each type's representative edges
    members: tuple[tuple[tuple[int, int], ...], ...]  # per type: (tile index, turns from the rep)
    turns: tuple[tuple[int, ...], ...]                # per type: the turns that look different
    hinted: dict[int, tuple[int, int]]                # cell -> (tile, rotation)
    multiplier: int                                   # raw solutions per board

    def count(self, t: int) -> int:
        return len(self.members[t])

    def shown(self, t: int, r: int) -> Edges:
        """The edges type ``t`` shows N E S W when its representative is turned ``r`` times."""
        return rotate_edges(self.reps[t], r)


def _period(edges: Edges) -> int:
    if rotate_edges(edges, 1) == edges:
        return 1
    return 2 if rotate_edges(edges, 2) == edges else 4


def tile_types(puzzle: Puzzle) -> TileTypes:
    """Group the puzzle's free (unhinted) tiles into types, in the order of each type's first tile; a type's
    representative is its smallest turn (:meth:`~edgematch.core.model.Tile.canonical`). Vectorised: a
    250x250 board has 62,500 tiles, and every backend builds this first. Made once per puzzle and kept with it,
    as its cached properties are (a best-score run asks for it in four set-ups: 0.4 s each on a 250x250)."""
    kept = puzzle.__dict__.get("_tile_types")
    if kept is None:
        kept = puzzle.__dict__["_tile_types"] = _grouped(puzzle)
    return kept


def _grouped(puzzle: Puzzle) -> TileTypes:
    """:func:`tile_types`, made."""
    hinted = {c: (t, r) for c, t, r in puzzle.hints}
    hinted_tiles = {t for t, _ in hinted.values()}
    free = np.array([i for i in range(len(puzzle.tiles)) if i not in hinted_tiles], dtype=np.int64)
    if not len(free):
        return TileTypes((), (), (), hinted, 1)
    edges = puzzle.edge_array[free]
    turned = np.stack([np.roll(edges, r, axis=1) for r in range(4)] if puzzle.rotations else [edges])
    k = np.zeros(len(free), dtype=np.int64)  # the turn giving the smallest edges (the first one on ties)
    for r in range(1, len(turned)):
        rows, mine = turned[r], turned[k, np.arange(len(free))]
        differ = rows != mine
        first = differ.argmax(axis=1)  # the first side where they differ (lexicographic order, as tuples)
        at = np.arange(len(free))
        k = np.where(differ.any(axis=1) & (rows[at, first] < mine[at, first]), r, k)
    reps = turned[k, np.arange(len(free))]
    _, first_of, inverse = np.unique(_row_keys(reps), return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    rank = np.empty(len(first_of), dtype=np.int64)
    rank[np.argsort(first_of, kind="stable")] = np.arange(len(first_of))  # types in order of first appearance
    type_of = rank[inverse]
    # the fewest turns d taking the representative to the tile: turned[-d % 4] equal to the representative
    d = np.full(len(free), -1, dtype=np.int64)
    for r in (range(4) if puzzle.rotations else (0,)):
        same = (d < 0) & (turned[(-r) % len(turned)] == reps).all(axis=1)
        d[same] = r
    by_type = np.argsort(type_of, kind="stable")  # each type's tiles together, in tile order
    pairs = list(zip(free[by_type].tolist(), d[by_type].tolist(), strict=True))
    ends = np.cumsum(np.bincount(type_of, minlength=len(first_of))).tolist()
    groups = [pairs[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]
    ordered = reps[np.sort(first_of)]
    rep_edges = tuple(map(tuple, ordered.tolist()))
    if puzzle.rotations:  # _period of each representative
        periods = np.where((np.roll(ordered, 1, axis=1) == ordered).all(axis=1), 1,
                           np.where((np.roll(ordered, 2, axis=1) == ordered).all(axis=1), 2, 4)).tolist()
    else:
        periods = [4] * len(rep_edges)
    span = {p: tuple(range(p)) for p in (1, 2, 4)}
    turns = tuple(span[period] if puzzle.rotations else (0,) for period in periods)
    multiplier = math.prod(math.factorial(len(m)) for m in groups if len(m) > 1)
    if puzzle.rotations:
        multiplier *= math.prod((4 // period) ** len(m) for m, period in zip(groups, periods, strict=True)
                                if period < 4)
    return TileTypes(rep_edges, tuple(map(tuple, groups)), turns, hinted, multiplier)


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """One integer per row of four labels, equal exactly for equal rows and ordered as the rows are (as
    tuples): ``np.unique`` of these is many times faster than of the rows themselves (``axis=0``)."""
    low = int(rows.min())
    base = int(rows.max()) - low + 1
    if base ** 4 >= 2 ** 62:  # labels too far apart to pack: compare the rows themselves
        return np.unique(rows, axis=0, return_inverse=True)[1].reshape(-1)
    shifted = rows - low
    return ((shifted[:, 0] * base + shifted[:, 1]) * base + shifted[:, 2]) * base + shifted[:, 3]


_FIRST_TURNS = {k: tuple(range(k)) for k in range(5)}


def placement_arrays(types: TileTypes, turns: Sequence[Sequence[int]] | None = None,
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`placements` as three arrays: types, turns, and the ``[placements, 4]`` edges each shows; for the
    passes that go on in numpy (a 250x250 board's 250,000 rows made into tuples and back took a quarter second)."""
    turns = types.turns if turns is None else turns
    counts = np.fromiter(map(len, turns), np.int64, len(turns))
    t = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    if all(tuple(each) == _FIRST_TURNS.get(len(each)) for each in turns):  # as ever, each type's turns 0..k-1
        r = np.arange(len(t), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    else:
        r = np.fromiter((x for each in turns for x in each), np.int64, len(t))
    reps = np.array(types.reps, dtype=np.int64).reshape(-1, 4)
    shown = reps[t[:, None], (np.arange(4)[None, :] - r[:, None]) % 4]  # rotate_edges: side s shows (s - r) % 4
    return t, r, shown


def placement_rows(t: np.ndarray, r: np.ndarray, shown: np.ndarray) -> list[tuple[int, int, Edges]]:
    """The rows (type, turn, edges) of :func:`placement_arrays`' three arrays."""
    return list(zip(t.tolist(), r.tolist(), map(tuple, shown.tolist()), strict=True))


def placements(types: TileTypes, turns: Sequence[Sequence[int]] | None = None) -> list[tuple[int, int, Edges]]:
    """Every (type, turn, edges it shows) of ``types``, by type then turn, over each type's own turns (or
    ``turns[t]``): :meth:`TileTypes.shown` of each, gathered at once (a 250x250 board has 250,000)."""
    return placement_rows(*placement_arrays(types, turns))


def board_grid(puzzle: Puzzle, types: TileTypes, board: Board) -> tuple[Edges, ...]:
    """The visible labels of every cell of a board (hinted cells included)."""
    return tuple(
        puzzle.tiles[types.hinted[c][0]].rotated(types.hinted[c][1]) if c in types.hinted
        else types.shown(*board[c])  # type: ignore[misc]
        for c in range(puzzle.size)
    )


def decode(puzzle: Puzzle, types: TileTypes, board: Board) -> Solution:
    """One raw solution of ``board``: copies of a type go to its cells in cell order."""
    cells: list[tuple[int, int]] = [(0, 0)] * puzzle.size
    next_copy = [0] * len(types.reps)
    for c in range(puzzle.size):
        if c in types.hinted:
            cells[c] = types.hinted[c]
            continue
        t, r = board[c]  # type: ignore[misc]
        tile, d = types.members[t][next_copy[t]]
        next_copy[t] += 1
        cells[c] = (tile, (r - d) % 4)
    return Solution.from_pairs(puzzle, cells)


def lazy_product(factories: list[Callable[[], Iterator[T]]]) -> Iterator[tuple[T, ...]]:
    """``itertools.product`` of the iterators the factories make, in the same order, without listing them.

    ``product`` lists each input first: the orders of 25 identical copies are 25! tuples, which filled all
    memory before the first raw solution came out. Here each input is remade when it runs out (an odometer)."""
    running = [make() for make in factories]
    current: list[T] = []
    for it in running:
        first = next(it, _END)
        if first is _END:
            return
        current.append(first)  # type: ignore[arg-type]
    while True:
        yield tuple(current)
        i = len(running) - 1
        while i >= 0:
            step = next(running[i], _END)
            if step is not _END:
                current[i] = step  # type: ignore[assignment]
                break
            running[i] = factories[i]()
            current[i] = next(running[i])
            i -= 1
        if i < 0:
            return


_END = object()


def expand(puzzle: Puzzle, types: TileTypes, board: Board) -> Iterator[Solution]:
    """Every raw solution that looks like ``board`` (copies permuted, equivalent turns of symmetric tiles)."""
    cells_of: dict[int, list[tuple[int, int]]] = {}
    for c in range(puzzle.size):
        if c not in types.hinted:
            t, r = board[c]  # type: ignore[misc]
            cells_of.setdefault(t, []).append((c, r))
    used = list(cells_of)
    for copies in lazy_product([lambda t=t: permutations(types.members[t]) for t in used]):
        options: dict[int, list[tuple[int, int]]] = {}
        for t, chosen in zip(used, copies, strict=True):
            for (c, r), (tile, d) in zip(cells_of[t], chosen, strict=True):
                period = _period(puzzle.tiles[tile].edges) if puzzle.rotations else 4
                options[c] = [(tile, ((r - d) % 4 + j * period) % 4) for j in range(4 // period)]
        free = sorted(options)
        for picks in product(*(options[c] for c in free)):
            cells: list[tuple[int, int]] = [(0, 0)] * puzzle.size
            for c, placement in types.hinted.items():
                cells[c] = placement
            for c, placement in zip(free, picks, strict=True):
                cells[c] = placement
            yield Solution.from_pairs(puzzle, cells)


def turned_boards(puzzle: Puzzle, types: TileTypes, board: Board) -> list[tuple[tuple[int, int] | None, ...]]:
    """``board`` turned by every board turn the puzzle allows (what one board of an anchored search
    stands for): each placement moves with the board and its tile turns with it."""
    from edgematch.core.symmetry import board_turns, turn_cell

    out = []
    for k in board_turns(puzzle):
        turned: list[tuple[int, int] | None] = [None] * puzzle.size
        for c, placement in enumerate(board):
            if placement is not None:
                t, r = placement
                turned[turn_cell(c, puzzle.width, puzzle.height, k)] = (t, (r + k) % len(types.turns[t]))
        out.append(tuple(turned))
    return out
