"""Everything the native search needs, computed once in Python before the compiled loop runs.

Glossary (see also core/model.py):
    position p   the p-th cell in the fill order (hinted cells are pre-placed and not in the order)
    type         a group of identical tiles (same up to turning, when turning is allowed); the search
                 places types, never two copies of the same tile in two orders
    candidate i  (type, turn) with its four edges; only the distinct turns of a self-symmetric tile
    norm label   the rule compiled to equality: an edge on the E or S side keeps its label, on the N or W
                 side it becomes partner(label); two touching edges fit iff their norm labels are equal
    key          the norm labels a cell must show on up to two sides facing placed neighbours; the
                 candidates of a (cell class, key sides) combo are bucketed by key, so the search only
                 walks candidates that already fit two sides
    class        for framed puzzles, which sides of the cell face out (candidates show the frame exactly
                 there); unframed puzzles have one class

Counting: every type-level solution is one visible board, so the raw count is it times a constant
(the permutations of identical tiles and the turns of self-symmetric tiles that look the same), and
the distinct count is the number of boards that are least among their allowed board turns.

Symmetry breaking (``symmetry=True``, for counting): when a tile appears once and has no rotational
symmetry (an *anchor*, :func:`edgematch.encodings.domains.anchor`), only its turns ``range(4 // k)`` are
candidates, k being the number of board turns the puzzle allows. Turning a board turns the anchor with
it, so exactly one board of every orbit survives and no board is its own turn: raw = boards x
multiplier x k, distinct = boards, and up to k times less search.
"""

from __future__ import annotations

import gc
import traceback
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from edgematch import clock
from edgematch.core import tiletypes
from edgematch.core.analysis import rim_tight
from edgematch.core.model import SIDES, E, N, Puzzle, S, Solution, W
from edgematch.core.symmetry import board_turns, turn_cell
from edgematch.core.tiletypes import TileTypes, placement_arrays, tile_types
from edgematch.encodings.domains import anchor
from edgematch.errors import EdgematchError, UsageError
from edgematch.solvers.native.rows import RowTables, auto_lookahead, row_tables

ORDERS = ("auto", "row", "column", "spiral", "frame", "band2")
# indices the plain loop reads are unsigned 32-bit (half the cache of 64-bit ones)
INDEX = np.uint32
DEFAULT_ORDER = "auto"


class BuildTimedOut(EdgematchError):
    """The time limit ran out while the tables were being built (:func:`build_tables` with a ``deadline``): the
    caller's run ends with status timeout, nothing searched. (An error type only so that one escaping reads as
    one line; the native backend turns it into a timeout result.)"""


def in_time(deadline: float | None) -> None:
    """Raise :class:`BuildTimedOut` once ``deadline`` (a ``clock.now()`` instant) has passed."""
    if deadline is not None and clock.now() >= deadline:
        raise BuildTimedOut("time limit (while building the search tables)")


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for a set-up step, as it was after. Building a big board's tables
    makes hundreds of thousands of tuples, none of them in a cycle, and each allocation burst set off a
    collection that walked them all: half the CPU time of a 250x250's tile types, placements and first board
    (``time.process_time()`` around each, gc on and off). Also a decorator."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    except (BuildTimedOut, KeyboardInterrupt) as stop:  # a stop: what the build made is garbage, freed now and
        traceback.clear_frames(stop.__traceback__)  # not walked once more by the collector (0.1 s on a 250x250)
        raise
    finally:
        if was:
            gc.enable()


def auto_order(puzzle: Puzzle) -> str:
    """The fill order for this puzzle: the more constrained region first. On a framed board whose rim
    seams have at least as many colours as the inner seams (the clue puzzles: 4 rim, 3 inner colours) the
    ring is the tight part and ``frame`` goes first; otherwise (Eternity II's 5 rim and 17 inner colours,
    unframed boards) ``row``. Measured with restarts (``benchmarks/native_tails.py``, 10 seeds, 3 s cap):
    clue 12x6 frame median 5 ms, worst 0.22 s against row's 51 ms and 0.37 s; e2 7x7 frame 10 timeouts of
    10, row none; unframed boards: frame times out everywhere."""
    return "frame" if rim_tight(puzzle) else "row"


def bands(width: int, height: int, rows: int) -> list[int]:
    """The cells of a ``width`` x ``height`` board in bands of ``rows`` rows, each band filled column by column
    (the last band may be shorter)."""
    return [r * width + c for top in range(0, height, rows) for c in range(width)
            for r in range(top, min(top + rows, height))]


def fill_order(puzzle: Puzzle, name: str) -> list[int]:
    """Cells in the order the search fills them: ``row`` scan; ``column`` scan (column by column, each top to
    bottom: the row scan of the board reflected in its diagonal, another tree with the same look-ahead, since a
    tile cannot be flipped); ``spiral`` from the centre outwards
    (the Hunde-Spiel article's reader filled 2x2 blocks early this way); ``frame``: the border ring
    clockwise from the top-left corner, then the inside row by row; ``band2``: bands of two rows, each filled
    column by column (at the peak a tree 1.9-76x the row scan's, but its solutions lie elsewhere in it: another
    draw of where the first one is, benchmarks/README.md); ``auto``: :func:`auto_order`."""
    w, h = puzzle.width, puzzle.height
    if name == "auto":
        name = auto_order(puzzle)
    if name == "row":
        return list(range(w * h))
    if name == "column":
        return [r * w + c for c in range(w) for r in range(h)]
    if name == "band2":
        return bands(w, h, 2)
    ring_first = _outside_in(w, h)
    if name == "spiral":
        return ring_first[::-1]
    if name == "frame":
        ring = ring_first[: 2 * (w + h) - 4 if w > 1 and h > 1 else w * h]
        inside = sorted(set(range(w * h)) - set(ring))
        return ring + inside
    raise UsageError(f"unknown fill order {name!r}; choose one of: {', '.join(ORDERS)}")


def _outside_in(w: int, h: int) -> list[int]:
    """A clockwise spiral from the top-left corner inwards."""
    out: list[int] = []
    top, left, bottom, right = 0, 0, h - 1, w - 1
    while top <= bottom and left <= right:
        out += [top * w + c for c in range(left, right + 1)]
        out += [r * w + right for r in range(top + 1, bottom + 1)]
        if top < bottom:
            out += [bottom * w + c for c in range(right - 1, left - 1, -1)]
        if left < right:
            out += [r * w + left for r in range(bottom - 1, top, -1)]
        top, left, bottom, right = top + 1, left + 1, bottom - 1, right - 1
    return out


def norm(side: int, label: int, puzzle: Puzzle) -> int:
    """The label the search compares on ``side``: east and south as shown, north and west as their partner
    (so a seam fits when the two sides' norm labels are equal)."""
    return label if side in (E, S) else puzzle.partner(label)


def norm_label_ids(puzzle: Puzzle, all_edges: list[tuple[int, ...]] | np.ndarray) -> dict[int, int]:
    """An id per norm label any of ``all_edges`` (rows of N E S W) shows, in label order (:func:`_ids`)."""
    edges = np.asarray(all_edges, np.int64).reshape(-1, 4)
    return _ids(set(np.unique(edges * np.array([-1, 1, 1, -1]) if puzzle.rule == "signed" else edges).tolist()))


def cell_class(puzzle: Puzzle, cell: int) -> tuple[int, ...]:
    """Which sides of ``cell`` face out (framed puzzles; unframed ones have one class, ``()``)."""
    return puzzle.border_sides(cell) if puzzle.frame is not None else ()


def border_cells(puzzle: Puzzle) -> list[int]:
    """The cells on the board's border (each once, ascending): the only cells of a framed board whose class is
    not ``()``, a thousand of a 250x250's 62,500."""
    w, h = puzzle.width, puzzle.height
    return sorted({*range(w), *range((h - 1) * w, h * w), *range(0, h * w, w), *range(w - 1, h * w, w)})


def shows_class(puzzle: Puzzle, edges: tuple[int, ...]) -> tuple[int, ...]:
    """The class of cell a tile showing ``edges`` fits: the sides where it shows the frame."""
    return tuple(s for s in SIDES if edges[s] == puzzle.frame) if puzzle.frame is not None else ()


@dataclass
class Placements:
    """Every placement a table is built from, as columns: its tile type, turn, the labels it shows (N E S W), the
    norm label id of each side (:func:`norm`; ids in label order, as :func:`norm_label_ids` gives them) and the
    class of cell it fits as a mask (bit ``s``: side ``s`` shows the frame). A 250x250 board has 250,000: as
    tuples, building them and freeing them on a stop (the limit, Ctrl-C) took a third of a second each."""

    t: np.ndarray          # [M] tile type
    r: np.ndarray          # [M] turn
    edges: np.ndarray      # [M, 4] the labels shown
    ids: np.ndarray        # [M, 4] the norm label id of each side
    klass: np.ndarray      # [M] the class mask

    @classmethod
    def of(cls, puzzle: Puzzle, arrays: tuple[np.ndarray, np.ndarray, np.ndarray], labels: np.ndarray,
           ) -> Placements:
        """The placements of :func:`~edgematch.core.tiletypes.placement_arrays`' ``arrays``; ``labels``: the
        norm labels in id order (sorted)."""
        t, r, edges = arrays
        signs = np.array([-1, 1, 1, -1]) if puzzle.rule == "signed" else 1  # norm(): N and W as their partner
        klass = (np.zeros(len(t), np.int64) if puzzle.frame is None
                 else (edges == puzzle.frame).astype(np.int64) @ (1 << np.arange(4)))
        return cls(t, r, edges, np.searchsorted(labels, edges * signs), klass)

    def of_class(self, klass: tuple[int, ...]) -> np.ndarray:
        """The indices of the placements that fit a cell of class ``klass`` (:func:`cell_class`), in order."""
        return np.flatnonzero(self.klass == sum(1 << s for s in klass))

    def combo_rows(self, combo: tuple[tuple[int, ...], int, int], free: int, rank: np.ndarray | None = None,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A candidate table's rows: the placements that fit a combo's cell class, sorted by the norm label ids
        they show on the combo's two key sides (``free`` for a side it has not), and those ids. Within a bucket,
        in this order, or by ``rank`` (per tile type, lowest first) when given. Returns the placements' indices,
        key a's ids and key b's ids."""
        klass, side_a, side_b = combo
        rows = self.of_class(klass)
        la = self.ids[rows, side_a] if side_a >= 0 else np.full(len(rows), free, np.int64)
        lb = self.ids[rows, side_b] if side_b >= 0 else np.full(len(rows), free, np.int64)
        keys = [lb, la] if rank is None else [rank[self.t[rows]], lb, la]
        by = np.lexsort(keys)  # stable: ties keep this order
        return rows[by], la[by], lb[by]


def ranges(keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For every key in ``range(size)``: the first index of ``keys`` holding it and one past the last (0, 0 where
    none does); each key's indices must be one run (a candidate table's buckets, sorted)."""
    start, end = np.zeros(size, np.int64), np.zeros(size, np.int64)
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else np.zeros(0, np.int64)
    start[keys[first]] = first
    end[keys[first]] = np.r_[first[1:], len(keys)]
    return start, end


VALUES = ("index", "rare")


def seam_colour(puzzle: Puzzle, label: int) -> int:
    """The colour a label shows as a seam class: ``signed`` labels count with their partners."""
    return abs(label) if puzzle.rule == "signed" else label


def rarity_rank(puzzle: Puzzle, types: TileTypes) -> np.ndarray:
    """Per tile type, lowest first for the tiles showing the rarest colours: minus the sum, over its sides that
    do not show the frame, of one over how many tile sides show that colour (:func:`seam_colour`). Measured on
    framed 10x10 boards with 4 rim and 7 inner colours (issue 24): tried first, such tiles leave the pool of free
    tiles easier to finish with."""
    def colour(label: int) -> int:
        return seam_colour(puzzle, label)

    sides = Counter(colour(e) for t in puzzle.tiles for e in t.edges if e != puzzle.frame)
    return np.array([-sum(1.0 / sides[colour(e)] for e in rep if e != puzzle.frame) for rep in types.reps], np.float64)


@dataclass
class PositionKeys:
    """For each position of a fill order: the ``placed`` indices of its two key neighbours (``n*4``: none),
    its (class, key sides) combo, and up to two further placed neighbours to check."""

    key_a: np.ndarray
    key_b: np.ndarray
    combo: np.ndarray
    extra_n: np.ndarray
    extra_src: np.ndarray
    extra_side: np.ndarray
    combos: dict[tuple[tuple[int, ...], int, int], int]


def position_keys(puzzle: Puzzle, cells: list[int], hinted: set[int] | dict[int, object], dtype: type,
                  deadline: float | None = None, sides: np.ndarray | None = None) -> PositionKeys:
    """The neighbours each of ``cells`` (in fill order) sees placed: hints and the cells before it; the west and
    north ones first (``sides``, default :data:`KEY_SIDES`), as keys, the rest as extras. The combos are numbered
    in the order the positions first need them."""
    in_time(deadline)
    P, n = len(cells), puzzle.size
    at = np.asarray(cells, np.int64).reshape(-1)
    placed_at = np.full(n, P, np.int64)  # the position that places each cell (P: none)
    placed_at[at[::-1]] = np.arange(P)[::-1]  # a cell listed twice is placed at its first
    placed_at[np.fromiter(hinted, np.int64, len(hinted))] = -1
    sides = KEY_SIDES if sides is None else sides
    nb = _touching(puzzle, at, sides)
    combos: dict[tuple[tuple[int, ...], int, int], int] = {}
    keyed = _keyed(puzzle, at, nb, placed_at[np.maximum(nb, 0)] < np.arange(P)[:, None], dtype, combos, sides)
    return PositionKeys(*keyed, combos)


# the order a cell's placed neighbours are taken in: the first two are its keys, the rest extras to check
KEY_SIDES = np.array([W, N, E, S])
# in the column order: the north one first, so that key a is the cell placed just before (the look-ahead's runs)
COLUMN_KEY_SIDES = np.array([N, W, S, E])


def key_sides(order: str) -> np.ndarray:
    """The sides a cell's keys are taken from in fill ``order``: key a the neighbour its run of cells continues
    from (the west one, the north one in the column order)."""
    return COLUMN_KEY_SIDES if order == "column" else KEY_SIDES


def _touching(puzzle: Puzzle, at: np.ndarray, sides: np.ndarray = KEY_SIDES) -> np.ndarray:
    """The neighbours of the cells ``at`` on each of ``sides`` (-1: off the board), ``[len(at), 4]``."""
    return neighbours(puzzle).reshape(-1, 4)[at][:, sides].astype(np.int64)


def _keyed(puzzle: Puzzle, at: np.ndarray, nb: np.ndarray, placed: np.ndarray, dtype: type,
           combos: dict[tuple[tuple[int, ...], int, int], int], sides: np.ndarray = KEY_SIDES,
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The keys of rows of cells ``at`` whose neighbours ``nb`` (:func:`_touching`, on ``sides``) are placed where
    ``placed`` says: key a and key b (``placed`` indices, ``n*4``: none), the combo (registered in ``combos``, new ones
    numbered in the order the rows first need them), then how many more neighbours to check, their ``placed``
    indices and sides. Every row at once in numpy: a loop over a 250x250's cells took a second, over its
    (cell, mask) rows 13 s."""
    rows, unconstrained = len(at), puzzle.size * 4
    placed = placed & (nb >= 0)
    src = nb * 4 + (sides + 2) % 4  # the neighbour's side that touches the cell
    seen = np.cumsum(placed, axis=1)

    def nth(j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per row: whether it has a ``j``-th placed neighbour (from 0), its side and its ``placed`` index."""
        hit = placed & (seen == j + 1)
        col = hit.argmax(axis=1)
        return hit.any(axis=1), sides[col], src[np.arange(rows), col]

    (has_a, side_a, src_a), (has_b, side_b, src_b) = nth(0), nth(1)
    extra_src, extra_side = np.zeros((rows, 2), dtype), np.zeros((rows, 2), dtype)
    for j in (0, 1):
        has, side, source = nth(2 + j)
        extra_side[has, j], extra_src[has, j] = side[has], source[has]
    code = (class_masks(puzzle)[at] * 5 + np.where(has_a, side_a, -1) + 1) * 5 + np.where(has_b, side_b, -1) + 1
    number, found = first_seen(code)
    ids = np.array([combos.setdefault((mask_class(value // 25), value % 25 // 5 - 1, value % 5 - 1), len(combos))
                    for value in found.tolist()], np.int64)
    return (np.where(has_a, src_a, unconstrained).astype(dtype), np.where(has_b, src_b, unconstrained).astype(dtype),
            ids[number], np.maximum(seen[:, -1] - 2, 0).astype(dtype),
            extra_src, extra_side)


def class_masks(puzzle: Puzzle) -> np.ndarray:
    """Every cell's class (:func:`cell_class`) as a mask, bit ``s`` set when side ``s`` faces out of a framed
    board; as :attr:`Placements.klass` is for a placement."""
    if puzzle.frame is None:
        return np.zeros(puzzle.size, np.int64)
    return (neighbours(puzzle).reshape(-1, 4) < 0).astype(np.int64) @ (1 << np.arange(4))


def mask_class(mask: int) -> tuple[int, ...]:
    """The class (sides facing out, as :func:`cell_class` lists them) of a class mask."""
    return tuple(s for s in SIDES if mask >> s & 1)


def first_seen(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each of ``values`` numbered by the order its value first appears, and the values in that order."""
    found, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    by_first = np.argsort(first)
    number = np.empty(len(found), np.int64)
    number[by_first] = np.arange(len(found))
    return number[inverse.reshape(-1)], found[by_first]


def cell_classes(puzzle: Puzzle) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Every cell's class id, the classes numbered as they first appear along the cells, and those classes."""
    ids, masks = first_seen(class_masks(puzzle))
    return ids, [mask_class(m) for m in masks.tolist()]


@dataclass
class Tables:
    """The compiled view of one puzzle for one fill order (plain numpy arrays, picklable)."""

    order: np.ndarray          # [P] cell at each position
    key_a: np.ndarray          # [P] index into `placed` (cell*4 + side) of the first key; n*4 = unconstrained
    key_b: np.ndarray          # [P] the second key
    base: np.ndarray           # [P] where the position's (class, key sides) table starts in tab_start
    extra_n: np.ndarray        # [P] further placed neighbours to check (0..2)
    extra_src: np.ndarray      # [P, 2] their `placed` index
    extra_side: np.ndarray     # [P, 2] the side of this cell they touch
    tab_start: np.ndarray      # [K * (L+1)^2] first candidate of a (table, key a, key b) bucket
    tab_end: np.ndarray        # [K * (L+1)^2] one past the last
    cand_type: np.ndarray      # [C]
    cand_rot: np.ndarray       # [C] turns of the type's representative
    cand_edge: np.ndarray      # [C, 4] norm label ids N E S W
    cand_vis: np.ndarray       # [C, 4] visible label ids N E S W
    type_count: np.ndarray     # [T] copies free to place
    placed0: np.ndarray        # [n*4 + 1] norm label ids of hinted cells; the last slot holds `free`
    vis0: np.ndarray           # [n*4] visible label ids of hinted cells (-1 elsewhere)
    turn_src: np.ndarray       # [k, n*4] for each allowed non-trivial board turn: source index per index
    types: TileTypes
    free_label: int            # the key id meaning "no constraint" (L)
    order_name: str
    anchor: int | None = None  # the type whose turns fix the board's turn (symmetry breaking), if any
    folded: int = 1            # board turns the anchor folds away (each board stands for this many)
    masks: MaskKeys | None = None  # every cell's keys for every set of placed neighbours (propagation only)
    vis_labels: tuple[int, ...] = ()  # the visible label of each visible label id (cand_vis, vis0)
    rows: RowTables | None = None  # the plain loop's row look-ahead, when on and some run of cells allows it

    @property
    def raw_multiplier(self) -> int:
        """Raw solutions per board (copies permuted, equivalent turns of symmetric tiles, folded board turns)."""
        return self.types.multiplier * self.folded

    @property
    def positions(self) -> int:
        return len(self.order)


@dataclass
class MaskKeys:
    """For each cell and each set of its sides facing placed neighbours (a 4-bit mask, bit s for side s): where
    its bucket table starts, the ``placed`` indices of its two key neighbours (``n*4``: none) and up to two
    more to check. Arrays of ``n * 16`` rows (``extra_*``: ``[n * 16, 2]``), flat so C reads them."""

    base: np.ndarray
    key_a: np.ndarray
    key_b: np.ndarray
    extra_n: np.ndarray
    extra_src: np.ndarray
    extra_side: np.ndarray


def neighbours(puzzle: Puzzle) -> np.ndarray:
    """Each cell's neighbour per side (N E S W), -1 off the board: ``[n * 4]``."""
    w, h = puzzle.width, puzzle.height
    cell = np.arange(w * h)
    row, col = np.divmod(cell, w)
    out = np.empty((w * h, 4), np.int32)  # as Puzzle.neighbour, side by side (a 250x250 has 250,000 of them)
    out[:, N] = np.where(row > 0, cell - w, -1)
    out[:, E] = np.where(col < w - 1, cell + 1, -1)
    out[:, S] = np.where(row < h - 1, cell + w, -1)
    out[:, W] = np.where(col > 0, cell - 1, -1)
    return out.reshape(-1)


def mask_keys(puzzle: Puzzle, combos: dict[tuple[tuple[int, ...], int, int], int],
              deadline: float | None = None) -> MaskKeys:
    """Keys of every (cell, placed-sides mask) as :func:`position_keys` picks them (W, N, E, S: the first two
    as keys), registering the (class, key sides) combos they need in ``combos``. Stops at ``deadline``
    (:func:`in_time`)."""
    in_time(deadline)
    at = np.repeat(np.arange(puzzle.size, dtype=np.int64), 16)
    mask = np.tile(np.arange(16, dtype=np.int64), puzzle.size)
    key_a, key_b, base, extra_n, extra_src, extra_side = _keyed(
        puzzle, at, _touching(puzzle, at), (mask[:, None] >> KEY_SIDES[None, :] & 1).astype(bool), INDEX, combos)
    return MaskKeys(base, key_a, key_b, extra_n, extra_src, extra_side)


@collector_paused()
def build_tables(puzzle: Puzzle, order: str = DEFAULT_ORDER, symmetry: bool = False, masks: bool = False,
                 cells: list[int] | None = None, values: str = "index", deadline: float | None = None,
                 lookahead: bool | str = False) -> Tables:
    """Compile ``puzzle`` for the native search (pure Python + numpy; run once per solve). ``symmetry``
    fixes the board's turn with an anchor tile when the puzzle has one (for counting: see the module doc).
    ``values`` orders each bucket's candidates: ``index`` (tile types in the file's order) or ``rare``
    (:func:`rarity_rank`). ``masks`` adds every cell's keys for any set of placed neighbours
    (:class:`MaskKeys`: the search with propagation picks its cells as it goes). ``cells`` gives the fill order
    itself (every cell once; named ``order`` in the tables), e.g. the memoised count's join fills a region
    bottom-up. ``lookahead`` adds the plain loop's row look-ahead (:mod:`edgematch.solvers.native.rows`) where
    the fill order has runs of cells it applies to (``"auto"``: in the orders
    :func:`~edgematch.solvers.native.rows.auto_lookahead` names, judged on the order ``auto`` resolves to).
    With a ``deadline`` (a ``clock.now()`` instant: the caller's time limit, which building counts against) it
    raises :class:`BuildTimedOut` once that passes, looking at the clock between steps (and per candidate table),
    so a run whose set-up cannot fit its limit ends near it instead of after the build."""
    n = puzzle.size
    order = auto_order(puzzle) if order == "auto" else order
    types = tile_types(puzzle)
    hinted = types.hinted
    allowed_turns = board_turns(puzzle)
    pinned = anchor(puzzle, types, allowed_turns) if symmetry else None
    folded = len(allowed_turns) if pinned is not None else 1
    in_time(deadline)

    # label ids: norm labels (what the search compares) and visible labels (for the distinct test)
    arrays = placement_arrays(types, [types.turns[t] if t != pinned else range(4 // folded)
                                      for t in range(len(types.reps))])
    in_time(deadline)
    hint_edges = {c: puzzle.tiles[t].rotated(r) for c, (t, r) in hinted.items()}
    all_edges = np.concatenate([arrays[2], np.array(list(hint_edges.values()), np.int64).reshape(-1, 4)])
    norm_ids = norm_label_ids(puzzle, all_edges)
    vis_ids = _ids(set(np.unique(all_edges).tolist()))
    free = len(norm_ids)

    cells = fill_order(puzzle, order) if cells is None else list(cells)
    cells = [c for c in cells if c not in hinted]
    unconstrained = n * 4
    in_time(deadline)
    at = position_keys(puzzle, cells, hinted, INDEX, deadline, key_sides(order))
    combos = at.combos
    by_mask = mask_keys(puzzle, combos, deadline) if masks else None

    # candidate tables: for each combo, candidates of its class bucketed by their two key labels
    if values not in VALUES:
        raise UsageError(f"native backend: option values must be one of {', '.join(VALUES)}, got {values!r}")
    rank = rarity_rank(puzzle, types) if values == "rare" else None
    shown = Placements.of(puzzle, arrays, np.array(sorted(norm_ids), np.int64))
    chosen: list[np.ndarray] = []
    buckets: list[np.ndarray] = []
    for key, k in combos.items():
        in_time(deadline)
        rows, la, lb = shown.combo_rows(key, free, rank)
        chosen.append(rows)
        buckets.append((k * (free + 1) + la) * (free + 1) + lb)  # sorted: each (combo, a, b) bucket is one run
    cand = np.concatenate(chosen) if chosen else np.zeros(0, np.int64)
    tab_start, tab_end = (a.astype(INDEX) for a in ranges(np.concatenate(buckets) if buckets else cand,
                                                          max(len(combos), 1) * (free + 1) ** 2))
    cand_type = shown.t[cand].astype(INDEX)
    cand_rot = shown.r[cand].astype(np.int32)
    cand_edge = shown.ids[cand].astype(INDEX)
    cand_vis = np.searchsorted(np.array(sorted(vis_ids), np.int64), shown.edges[cand]).astype(np.int32)
    in_time(deadline)
    placed0 = np.zeros(n * 4 + 1, INDEX)
    placed0[unconstrained] = free
    vis0 = np.full(n * 4, -1, np.int32)
    for c, e in hint_edges.items():
        for s in SIDES:
            placed0[c * 4 + s] = norm_ids[norm(s, e[s], puzzle)]
            vis0[c * 4 + s] = vis_ids[e[s]]

    turns = [k for k in allowed_turns if k] if pinned is None else []  # anchored: every board is least
    turn_src = np.zeros((len(turns), n * 4), np.int32)
    every = np.arange(n)
    for i, k in enumerate(turns):
        new = turn_cell(every, puzzle.width, puzzle.height, k)  # numpy arithmetic: every cell at once
        for s in SIDES:
            turn_src[i, new * 4 + s] = every * 4 + (s - k) % 4

    tables = Tables(
        order=np.array(cells, INDEX), key_a=at.key_a, key_b=at.key_b, base=(at.combo * (free + 1) ** 2).astype(INDEX),
        extra_n=at.extra_n, extra_src=at.extra_src, extra_side=at.extra_side,
        tab_start=tab_start, tab_end=tab_end,
        cand_type=cand_type.reshape(-1), cand_rot=cand_rot.reshape(-1),
        cand_edge=cand_edge.reshape(-1, 4), cand_vis=cand_vis.reshape(-1, 4),
        type_count=np.array([types.count(t) for t in range(len(types.reps))], np.int32),
        placed0=placed0, vis0=vis0, turn_src=turn_src, types=types,
        free_label=free, order_name=order, anchor=pinned, folded=folded,
        vis_labels=tuple(sorted(vis_ids, key=vis_ids.__getitem__)),
        masks=None if by_mask is None else replace(by_mask, base=(by_mask.base * (free + 1) ** 2).astype(INDEX)),
    )
    if lookahead == "auto":
        lookahead = auto_lookahead(order)
    if lookahead:
        in_time(deadline)
        tables.rows = row_tables(tables)
    return tables


def shuffled(tables: Tables, rng: np.random.Generator) -> tuple[Tables, np.ndarray]:
    """``tables`` with the candidates of every bucket in a random order (what a restart searches), and for
    each candidate of the copy its index in ``tables`` (to read the copy's picks against the original).

    Buckets are disjoint, contiguous ranges that together hold every candidate, so sorting by (bucket,
    random key) permutes within buckets only."""
    used = tables.tab_end > tables.tab_start
    starts, ends = tables.tab_start[used], tables.tab_end[used]
    by_start = np.argsort(starts)
    bucket = np.repeat(np.arange(len(starts)), (ends - starts)[by_start].astype(np.int64))
    perm = np.lexsort((rng.random(len(bucket)), bucket))
    copy = replace(tables, cand_type=tables.cand_type[perm], cand_rot=tables.cand_rot[perm],
                   cand_edge=tables.cand_edge[perm], cand_vis=tables.cand_vis[perm])
    return copy, perm


def _ids(values: set[int]) -> dict[int, int]:
    return {v: i for i, v in enumerate(sorted(values))}


def board(puzzle: Puzzle, tables: Tables, picks: np.ndarray) -> list[tuple[int, int] | None]:
    """The board (type, turn per free cell) that ``picks`` (a candidate per position) describes."""
    cells: list[tuple[int, int] | None] = [None] * puzzle.size
    for p, i in enumerate(picks[: tables.positions]):
        cells[int(tables.order[p])] = (int(tables.cand_type[i]), int(tables.cand_rot[i]))
    return cells


def decode(puzzle: Puzzle, tables: Tables, picks: np.ndarray) -> Solution:
    """One raw solution of the board ``picks`` describes."""
    return tiletypes.decode(puzzle, tables.types, board(puzzle, tables, picks))


def expand(puzzle: Puzzle, tables: Tables, picks: np.ndarray) -> Iterator[Solution]:
    """Every raw solution that looks like the board ``picks`` describes."""
    return tiletypes.expand(puzzle, tables.types, board(puzzle, tables, picks))
