"""The native answer to the best-score question: an admissible board at once, then better ones, anytime.

1. :func:`admissible_board`: a board that keeps every rule but the seams (each tile once, hints kept, the
   frame outward only) is a perfect matching between cells and tiles (each tile in a turn that fits the
   cell's class), found by augmenting paths; none means no admissible board exists (UNSAT).
2. The compiled loop (``em_best_search`` in ``best/dfs.c``) then fills the board row by row with a
   schedule of how many broken seams the board may have after each position (options ``start``: the share
   of positions that must fit exactly, default 0.6; ``breaks``: the breaks allowed by the last position,
   default a sixth of the positions) under the target of one break fewer than the best board so far. Boards
   of up to 25 free cells get no schedule by default: branch and bound alone, which proves its answer.
3. Restarts on a Luby schedule of ``unit`` nodes (default 5,000,000) with every bucket shuffled (``seed``):
   a different region of the tree each time; the target carries over.

A search that exhausts its tree without the schedule ever cutting a branch has proven its best board
optimal (status solved); so has a board with every seam fitting.

Measured on E2-like 16x16 boards with the centre hint (one core): seed 1 at 10 s, start 0.45 -> 418/480,
0.6 -> 431; seeds 1-2 at 20 s, mean 431.5 (0.6), 429.5 (0.75, 15 breaks), 387.5 (0.8, 10 breaks); the
restart unit (0.5-5 M nodes) changed nothing. Simulated
annealing over swaps and turns (the seeds' Racket article's idea) was tried as a further stage and left
out: from the search's best boards 40 M moves gained no seam (16x16, 10x10, 12x12), and alone it reached
410/480 in 5 s against the search's 431.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from edgematch.core.checker import score as seams_fitting
from edgematch.core.model import SIDES, Puzzle, Solution
from edgematch.core.tiletypes import TileTypes, decode, placements, tile_types
from edgematch.errors import BackendError
from edgematch.solvers.base import Result, Status, Task, Timings, fraction, on_off, whole
from edgematch.solvers.native.search import luby
from edgematch.solvers.native.tables import (
    Tables,
    cell_class,
    combo_rows,
    in_time,
    norm,
    norm_label_ids,
    normed,
    paced,
    position_keys,
    shown_by_class,
    shows_class,
)

START = 0.6
UNIT = 5_000_000
FIRST_UNIT = 500_000  # the first-solution search's restart unit (native's default)
SLICE_NODES = 2_000_000  # at most this many nodes between returns to Python (time limit, progress, shares)
SLICE_SECONDS = 0.05  # and about this long
EXACT_UP_TO = 25  # positions up to which the default is no schedule (branch and bound alone, proving optimality)


@dataclass
class BestTables:
    """The compiled view of a puzzle for the best-score loop (arrays named as the kernel's arguments)."""

    key_a: np.ndarray
    key_b: np.ndarray
    combo: np.ndarray
    extra_n: np.ndarray
    extra_src: np.ndarray
    extra_side: np.ndarray
    order: np.ndarray
    cstart: np.ndarray
    cend: np.ndarray
    ra_s: np.ndarray
    ra_e: np.ndarray
    ab_s: np.ndarray
    ab_e: np.ndarray
    rb_s: np.ndarray
    rb_e: np.ndarray
    bperm: np.ndarray
    cand_type: np.ndarray
    cand_rot: np.ndarray
    cand_edge: np.ndarray
    cand_la: np.ndarray
    cand_lb: np.ndarray
    width: int
    type_count: np.ndarray
    placed0: np.ndarray
    fits_upto: np.ndarray      # [P+1] seams checked by positions < p, plus the fitting seams between hints
    cell_class: np.ndarray     # [n] class id of each cell (which sides face out)
    class_cands: list[tuple[np.ndarray, np.ndarray, np.ndarray]]  # per class id: types, turns, norm edges
    types: TileTypes

    @property
    def positions(self) -> int:
        return len(self.order)


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
    turn_for: dict[tuple[int, tuple[int, ...]], int] = {}  # (tile, class) -> the first turn showing that class
    for t, tile in enumerate(puzzle.tiles):
        if t in hinted_tiles:
            continue
        if puzzle.frame is None or puzzle.frame not in tile.edges:  # every turn shows no frame side
            turn_for[t, ()] = 0
            continue
        for r in reversed(turns):
            turn_for[t, shows_class(puzzle, tile.rotated(r))] = r
    by_class: dict[tuple[int, ...], list[int]] = {}  # class -> the tiles that can show it, in tile order
    classes_of: dict[int, int] = {}  # tile -> how many classes it can show
    for t, klass in turn_for:
        by_class.setdefault(klass, []).append(t)
        classes_of[t] = classes_of.get(t, 0) + 1
    klass_of = {c: cell_class(puzzle, c) for c in free_cells}
    if any(k not in by_class for k in klass_of.values()):
        return None  # a cell no tile can take
    fits = {c: by_class[klass_of[c]] for c in free_cells}
    alone = {k for k, tiles in by_class.items() if all(classes_of[t] == 1 for t in tiles)}
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
        cells[c] = (t, turn_for[t, klass_of[c]])
    return Solution.from_pairs(puzzle, cells)


def no_admissible_board(puzzle: Puzzle, t0: float) -> Result:
    """The answer when :func:`admissible_board` finds none: no board keeps the frame and hints (UNSAT)."""
    return Result("native", Status.UNSAT, timings=Timings(build=time.monotonic() - t0),
                  message="no board keeps the frame and hints with these tiles", max_score=puzzle.seam_count)


def build_best_tables(puzzle: Puzzle, cells: list[int] | None = None, deadline: float | None = None) -> BestTables:
    """Candidate tables for the best-score loop: row order (or the free ``cells`` in the order given),
    candidates per (class, key sides) combo sorted by (key a, key b) labels, ``bperm`` the same candidates
    by (key b, key a). With a ``deadline`` (``time.monotonic()``) it raises
    :class:`~edgematch.solvers.native.tables.BuildTimedOut` once that passes (a 100x100 board's take seconds)."""
    n = puzzle.size
    types = tile_types(puzzle)
    hinted = types.hinted
    shown = placements(types)
    by_class = shown_by_class(puzzle, shown, deadline)  # once, not once per combo
    hint_edges = {c: puzzle.tiles[t].rotated(r) for c, (t, r) in hinted.items()}
    all_edges = [e for _, _, e in shown] + list(hint_edges.values())
    norm_ids = norm_label_ids(puzzle, all_edges)
    free = len(norm_ids)
    width = free + 1
    in_time(deadline)
    ids_of = {(t, r): [norm_ids[x] for x in normed(puzzle, e)] for t, r, e in shown}  # once per placement
    in_time(deadline)

    if cells is None:
        cells = [c for c in range(n) if c not in hinted]
    P = len(cells)
    unconstrained = n * 4
    at = position_keys(puzzle, cells, hinted, np.int64, deadline)
    key_a, key_b, combo, extra_n, combos = at.key_a, at.key_b, at.combo, at.extra_n, at.combos

    K = max(len(combos), 1)
    cstart = np.zeros(K, np.int64)
    cend = np.zeros(K, np.int64)
    ra_s = np.zeros(K * width, np.int64)
    ra_e = np.zeros(K * width, np.int64)
    ab_s = np.zeros(K * width * width, np.int64)
    ab_e = np.zeros(K * width * width, np.int64)
    rb_s = np.zeros(K * width, np.int64)
    rb_e = np.zeros(K * width, np.int64)
    cand: list[tuple[int, int, tuple[int, ...], int, int]] = []
    bperm: list[int] = []
    for key, k in combos.items():
        base = len(cand)
        cstart[k] = base
        for la, lb, t, r, edges in paced(combo_rows(puzzle, shown, key, norm_ids, free, by_class=by_class,
                                                    deadline=deadline), deadline):
            i = len(cand)
            if ab_e[(k * width + la) * width + lb] == 0:
                ab_s[(k * width + la) * width + lb] = i
            ab_e[(k * width + la) * width + lb] = i + 1
            if ra_e[k * width + la] == 0:
                ra_s[k * width + la] = i
            ra_e[k * width + la] = i + 1
            cand.append((t, r, edges, la, lb))
        cend[k] = len(cand)
        by_b = sorted(range(base, len(cand)), key=lambda i: (cand[i][4], cand[i][3]))
        for j, i in enumerate(paced(by_b, deadline)):
            lb = cand[i][4]
            pos = base + j
            if rb_e[k * width + lb] == 0:
                rb_s[k * width + lb] = pos
            rb_e[k * width + lb] = pos + 1
            bperm.append(i)
    # empty ranges must still be ordered inside their combo (phase 1/2 read [ra_s, ab_s) and [ab_e, ra_e))
    for k in range(K):
        in_time(deadline)
        for la in range(width):
            if ra_e[k * width + la] == 0:
                ra_s[k * width + la] = ra_e[k * width + la] = cstart[k]
            for lb in range(width):
                j = (k * width + la) * width + lb
                if ab_e[j] == 0:
                    ab_s[j] = ab_e[j] = ra_s[k * width + la]

    in_time(deadline)
    placed0 = np.zeros(n * 4 + 1, np.int64)
    placed0[unconstrained] = free
    for c, e in hint_edges.items():
        for s in SIDES:
            placed0[c * 4 + s] = norm_ids[norm(s, e[s], puzzle)]
    hint_fits = sum(1 for c in hinted for s in (1, 2) if (nb := puzzle.neighbour(c, s)) in hinted
                    and placed0[c * 4 + s] == placed0[nb * 4 + (s + 2) % 4])
    checks = [int(key_a[p] != unconstrained) + int(key_b[p] != unconstrained) + int(extra_n[p]) for p in range(P)]
    fits_upto = np.cumsum([hint_fits, *checks]).astype(np.int64)
    in_time(deadline)
    class_ids: dict[tuple[int, ...], int] = {}
    class_of_cell = np.array([class_ids.setdefault(cell_class(puzzle, c), len(class_ids)) for c in range(n)], np.int64)
    class_cands = []
    for klass in class_ids:
        mine = by_class.get(klass, [])
        class_cands.append((np.array([t for t, _, _ in mine], np.int64), np.array([r for _, r, _ in mine], np.int64),
                            np.array([ids_of[t, r] for t, r, _ in mine], np.int64).reshape(-1, 4)))
    return BestTables(
        key_a=key_a, key_b=key_b, combo=combo, extra_n=extra_n, extra_src=at.extra_src, extra_side=at.extra_side,
        order=np.array(cells, np.int64), cstart=cstart, cend=cend, ra_s=ra_s, ra_e=ra_e, ab_s=ab_s, ab_e=ab_e,
        rb_s=rb_s, rb_e=rb_e, bperm=np.array(bperm, np.int64),
        cand_type=np.array([c[0] for c in cand], np.int64), cand_rot=np.array([c[1] for c in cand], np.int64),
        cand_edge=np.array([ids_of[c[0], c[1]] for c in cand], np.int64).reshape(-1, 4),
        cand_la=np.array([c[3] for c in cand], np.int64), cand_lb=np.array([c[4] for c in cand], np.int64),
        width=width, type_count=np.array([types.count(t) for t in range(len(types.reps))], np.int64),
        placed0=placed0, fits_upto=fits_upto, cell_class=class_of_cell, class_cands=class_cands, types=types,
    )


def shuffled(tables: BestTables, rng: np.random.Generator) -> BestTables:
    """``tables`` with the candidates of every (combo, a, b) bucket in a random order (ranges unchanged)."""
    C = len(tables.cand_type)
    if C == 0:
        return tables
    bucket_of = np.zeros(C, np.int64)
    used = np.nonzero(tables.ab_e > tables.ab_s)[0]
    for j in used:
        bucket_of[tables.ab_s[j]:tables.ab_e[j]] = j
    perm = np.lexsort((rng.random(C), bucket_of))
    inverse = np.empty(C, np.int64)
    inverse[perm] = np.arange(C)
    # bperm lists candidates by (b, a); within each (combo, b) range shuffle too, then map to new indices
    bperm = inverse[tables.bperm]
    b_bucket = np.zeros(C, np.int64)
    for j in np.nonzero(tables.rb_e > tables.rb_s)[0]:
        b_bucket[tables.rb_s[j]:tables.rb_e[j]] = j
    la_of = tables.cand_la[tables.bperm]
    bperm = bperm[np.lexsort((rng.random(C), la_of, b_bucket))]
    return replace(tables, cand_type=tables.cand_type[perm], cand_rot=tables.cand_rot[perm],
                   cand_edge=tables.cand_edge[perm], cand_la=tables.cand_la[perm], cand_lb=tables.cand_lb[perm],
                   bperm=bperm)


def schedule(positions: int, start: float, breaks: int) -> np.ndarray:
    """Breaks the board may have after each position: none before ``start`` of the positions, then a
    straight line up to ``breaks`` at the last one."""
    first = int(start * positions)
    out = np.zeros(positions, np.int64)
    span = max(positions - 1 - first, 1)
    for d in range(first, positions):
        out[d] = max(1, round(breaks * (d - first + 1) / (span + 1)))
    return out


def _complete(puzzle: Puzzle, tables: BestTables, picks: np.ndarray, shown: int) -> Solution:
    """The board whose first ``shown`` positions are ``picks``, the rest filled greedily in row order: each
    cell takes the free candidate of its class that fits the most placed neighbours."""
    cells: list[tuple[int, int] | None] = [None] * puzzle.size
    placed = tables.placed0[:-1].copy()
    filled = np.zeros(puzzle.size, bool)
    filled[list(tables.types.hinted)] = True
    left = tables.type_count.copy()
    for p in range(shown):
        i = int(picks[p])
        cell = int(tables.order[p])
        cells[cell] = (int(tables.cand_type[i]), int(tables.cand_rot[i]))
        placed[cell * 4:cell * 4 + 4] = tables.cand_edge[i]
        filled[cell] = True
        left[tables.cand_type[i]] -= 1
    for p in range(shown, tables.positions):
        cell = int(tables.order[p])
        types_, turns, edges = tables.class_cands[int(tables.cell_class[cell])]
        score = np.where(left[types_] > 0, 0, -9)
        for s in SIDES:
            nb = puzzle.neighbour(cell, s)
            if nb is not None and filled[nb]:
                score = score + (edges[:, s] == placed[nb * 4 + (s + 2) % 4])
        j = int(np.argmax(score))
        if score[j] < 0:
            raise AssertionError("greedy completion ran out of tiles for a cell class")  # the matching says never
        cells[cell] = (int(types_[j]), int(turns[j]))
        placed[cell * 4:cell * 4 + 4] = edges[j]
        filled[cell] = True
        left[types_[j]] -= 1
    return decode(puzzle, tables.types, cells)


# the slots of the loop's state and flags arrays and its return codes (best/dfs.c's enums)
DEPTH, STARTED, TARGET, BEST, SHOWN = 0, 1, 2, 3, 4  # TARGET: most breaks a complete board may have; BEST:
PRUNED, NODES = 0, 1  # fitting seams to beat; SHOWN: the depth of the board in ``best``
FINISHED, BUDGET, IMPROVED = 0, 1, 2  # IMPROVED: ``best`` holds the first SHOWN picks of a better board
PHASES = 6
_TABLE_ARRAYS = ("key_a", "key_b", "combo", "extra_n", "extra_src", "extra_side", "order", "cstart", "cend", "ra_s",
                 "ra_e", "ab_s", "ab_e", "rb_s", "rb_e", "bperm", "cand_type", "cand_edge", "cand_la", "cand_lb")


class _Run:
    """One restart: the loop's arrays (``em_best_search`` in ``best/dfs.c``) over one ordering of the tables,
    with the target carried in."""

    def __init__(self, tables: BestTables, sched: np.ndarray, best_score: int, phases: int = PHASES):
        from edgematch.solvers.native import kernels

        P = tables.positions
        self.tables, self.sched = tables, np.ascontiguousarray(sched, np.int64)
        self.type_left = tables.type_count.copy()
        self.placed = tables.placed0.copy()
        self.picks, self.phase, self.cur, self.end, self.best = (np.zeros(max(P, 1), np.int64) for _ in range(5))
        self.brk = np.zeros(P + 1, np.int64)
        self.state = np.zeros(5, np.int64)
        self.raise_bar(best_score)
        self.flags = np.zeros(2, np.int64)
        self.phases = phases
        lib = kernels.require()
        a = {name: np.ascontiguousarray(getattr(tables, name), np.int64) for name in _TABLE_ARRAYS}
        C = len(a["cand_type"])
        cols = a["extra_src"].shape[1] if a["extra_src"].ndim == 2 else 0
        for name in ("key_a", "key_b", "combo", "extra_n", "order"):
            kernels.pointer(a[name], np.int64, name, (P,))
        kernels.pointer(a["extra_src"], np.int64, "extra_src", (P, cols))
        kernels.pointer(a["extra_side"], np.int64, "extra_side", (P, cols))
        for name in ("cand_type", "cand_la", "cand_lb", "bperm"):
            kernels.pointer(a[name], np.int64, name, (C,))
        kernels.pointer(a["cand_edge"], np.int64, "cand_edge", (C, 4))
        if len(self.sched) < P or len(tables.fits_upto) < P + 1 or len(self.placed) != len(tables.placed0):
            raise BackendError("native backend: internal error: best-score arrays shorter than the positions")
        fits = np.ascontiguousarray(tables.fits_upto, np.int64)

        def p(name: str, array: np.ndarray) -> object:
            return kernels.pointer(array, np.int64, name)

        self._args = (
            P, p("key_a", a["key_a"]), p("key_b", a["key_b"]), p("combo", a["combo"]), p("extra_n", a["extra_n"]),
            p("extra_src", a["extra_src"]), p("extra_side", a["extra_side"]), cols, p("order", a["order"]),
            *(p(name, a[name]) for name in ("cstart", "cend", "ra_s", "ra_e", "ab_s", "ab_e", "rb_s", "rb_e", "bperm",
                                            "cand_type", "cand_edge", "cand_la", "cand_lb")),
            int(tables.width), p("fits_upto", fits), p("type_left", self.type_left), p("placed", self.placed),
            p("sched", self.sched), p("picks", self.picks), p("phase", self.phase), p("cur", self.cur),
            p("end", self.end), p("brk", self.brk), p("best", self.best), p("state", self.state),
            p("flags", self.flags),
        )
        self._keep = (a, fits)  # every array the loop points into lives as long as the run
        self._search = lib.em_best_search

    def raise_bar(self, best_score: int) -> None:
        """Look only for boards (complete, or partial ones to complete) that beat ``best_score``."""
        self.state[TARGET] = int(self.tables.fits_upto[-1]) - best_score - 1
        self.state[BEST] = best_score

    def step(self, budget: int) -> int:
        """Run up to ``budget`` nodes; the loop's code (FINISHED, BUDGET or IMPROVED)."""
        return int(self._search(*self._args, budget, self.phases))


class _ExactShare:
    """The first-solution search (native's restarts, in its own tables) given a share of the time between
    the restarts of the best-score search (a fifth for the first 30 s, a twentieth after): a board with a
    full solution in reach is found as fast as ``edgematch solve`` finds it, instead of seam by seam."""

    SHARE = 0.2
    EARLY = 30.0  # seconds of the run with the full share; after them LATE_SHARE (a full solution in reach is
    LATE_SHARE = 0.05  # found early by this search, which on Eternity II-like boards never finds one later)
    MIN_SLICE = 0.02

    def __init__(self, puzzle: Puzzle, seed: int):
        self.puzzle, self.seed = puzzle, seed
        self.tables: Tables | None = None
        self.spent = 0.0
        self.calls = 0
        self.exhausted = False

    def budget(self, elapsed: float) -> float:
        """Seconds the share may have spent by ``elapsed`` seconds into the run."""
        return self.SHARE * min(elapsed, self.EARLY) + self.LATE_SHARE * max(0.0, elapsed - self.EARLY)

    def due(self, elapsed: float) -> bool:
        """Whether the share is behind by at least a slice's worth."""
        return self.budget(elapsed) - self.spent >= self.MIN_SLICE

    def run(self, elapsed: float, deadline: float | None) -> Solution | None:
        """Search for its share of ``elapsed`` seconds (at least 20 ms), never past ``deadline``."""
        from edgematch.solvers.native.search import drive_restarts
        from edgematch.solvers.native.tables import BuildTimedOut, build_tables
        from edgematch.solvers.native.tables import decode as decode_first

        slice_s = max(self.MIN_SLICE, self.budget(elapsed) - self.spent)
        if deadline is not None:
            slice_s = min(slice_s, deadline - time.monotonic())
        if slice_s <= 0:
            return None
        t = time.monotonic()
        if self.tables is None:  # its tables stop at the deadline too (a 40x40's take a fifth of a second)
            try:
                self.tables = build_tables(self.puzzle, "auto", deadline=deadline)
            except BuildTimedOut:
                self.spent += time.monotonic() - t
                return None
        self.calls += 1
        outcome, _, found_in = drive_restarts(self.tables, FIRST_UNIT, self.seed + self.calls, slice_s)
        self.spent += time.monotonic() - t
        if outcome.stopped == "interrupted":  # drive_restarts took the Ctrl-C: pass it on to the best search
            raise KeyboardInterrupt
        self.exhausted = outcome.finished and not outcome.found  # no full solution exists: stop asking
        return decode_first(self.puzzle, found_in, outcome.found[0]) if outcome.found else None


def run_best(puzzle: Puzzle, task: Task, options: dict) -> Result:
    """The native backend's ``best``: see the module docstring."""
    from edgematch.solvers.native.compiled import ensure_compiled

    load = ensure_compiled()  # before the clock starts (about a millisecond, the first time in a process)
    t0 = time.monotonic()
    start_share = fraction(options.get("start", START), "start")
    unit = whole(options.get("unit", UNIT), "unit", least=1)
    seed = whole(options.get("seed", 0), "seed")
    double = on_off(options.get("double", True), "double")
    name = "native"
    max_score = puzzle.seam_count
    first = admissible_board(puzzle)
    if first is None:
        return no_admissible_board(puzzle, t0)
    best_board, best_score = first, seams_fitting(puzzle, first)
    history = [(time.monotonic() - t0, best_score)]
    if task.on_improve is not None:
        task.on_improve(best_board, best_score)
    tables = build_best_tables(puzzle)
    P = tables.positions
    if P <= EXACT_UP_TO and "start" not in options and "breaks" not in options:
        start_share, breaks = 0.0, 2 * P  # small: plain branch and bound, which proves its answer
    else:
        breaks = whole(options.get("breaks", max(1, P // 6)), "breaks")
    sched = schedule(P, start_share, breaks)
    build = time.monotonic() - t0

    rng = np.random.default_rng(seed)
    nodes = restarts = 0
    proven = best_score == max_score or P == 0
    stopped = ""
    began = time.monotonic()
    deadline = None if task.time_limit is None else t0 + task.time_limit
    exact = _ExactShare(puzzle, seed) if not proven else None

    def offer(board: Solution) -> None:
        nonlocal best_board, best_score, proven
        score = seams_fitting(puzzle, board)
        if score > best_score:
            best_board, best_score = board, score
            history.append((time.monotonic() - t0, best_score))
            if task.on_improve is not None:
                task.on_improve(best_board, best_score)
        proven = proven or best_score == max_score

    ordering = tables
    slice_nodes = 20_000
    try:
        while not proven and not stopped:
            restarts += 1
            budget_left = luby(restarts) * unit
            run = _Run(ordering, sched, best_score, 6 if double else 4)
            while not proven:
                before = int(run.flags[NODES])
                stepped = time.monotonic()
                code = run.step(min(slice_nodes, budget_left))
                spent = int(run.flags[NODES]) - before
                nodes += spent
                took = time.monotonic() - stepped
                if took > 0 and spent > 0:  # slices of about SLICE_SECONDS, whatever the rate here
                    slice_nodes = int(min(max(spent / took * SLICE_SECONDS, 1000), SLICE_NODES))
                budget_left -= spent
                if code == IMPROVED:
                    offer(_complete(puzzle, ordering, run.best, int(run.state[SHOWN])))
                    run.raise_bar(best_score)
                elif code == FINISHED:
                    proven = run.flags[PRUNED] == 0  # exhausted under the target alone: nothing better exists
                    break
                now = time.monotonic()
                if task.progress is not None:
                    task.progress({"score": best_score, "nodes": nodes, "restarts": restarts, "elapsed": now - t0})
                if deadline is not None and now >= deadline:
                    stopped = "time limit"
                    break
                if exact is not None and not exact.exhausted and exact.due(now - began):
                    solution = exact.run(now - began, None if deadline is None else deadline - 0.01)
                    if solution is not None:
                        offer(solution)
                if budget_left <= 0:
                    break
            ordering = shuffled(tables, rng)
    except KeyboardInterrupt:
        stopped = "interrupted"
    seconds = time.monotonic() - began
    return Result(
        name, Status.SOLVED if proven else Status.TIMEOUT, [best_board], score=best_score, max_score=max_score,
        history=history, timings=Timings(build=build, solve=seconds),
        counters={"nodes": nodes, "restarts": restarts, "nodes_per_s": nodes / seconds if seconds > 0 else 0.0,
                  "load_seconds": load},
        options={"start": start_share, "breaks": breaks, "unit": unit, "seed": seed},
        message=stopped,
    )
