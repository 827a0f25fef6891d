"""The native answer to the best-score question: an admissible board at once, then better ones, anytime.

1. :func:`admissible_board`: a board that keeps every rule but the seams (each tile once, hints kept, the
   frame outward only) is a perfect matching between cells and tiles (each tile in a turn that fits the
   cell's class), found by augmenting paths; none means no admissible board exists (UNSAT).
2. The compiled loop (:mod:`edgematch.solvers.native.best_kernel`) then fills the board row by row with a
   schedule of how many broken seams the board may have after each position (options ``start``: the share
   of positions that must fit exactly, default 0.45; ``breaks``: the breaks allowed by the last position,
   default a sixth of the positions) under the target of one break fewer than the best board so far. Boards
   of up to 25 free cells get no schedule by default: branch and bound alone, which proves its answer.
3. Restarts on a Luby schedule of ``unit`` nodes (default 5,000,000) with every bucket shuffled (``seed``):
   a different region of the tree each time; the target carries over.

A search that exhausts its tree without the schedule ever cutting a branch has proven its best board
optimal (status solved); so has a board with every seam fitting.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from edgematch.core.checker import check
from edgematch.core.model import SIDES, Puzzle, Solution
from edgematch.core.tiletypes import TileTypes, decode, tile_types
from edgematch.errors import UsageError
from edgematch.solvers.base import Result, Status, Task, Timings, whole
from edgematch.solvers.native.search import luby
from edgematch.solvers.native.tables import _ids, norm

START = 0.45
UNIT = 5_000_000
SLICE_NODES = 2_000_000
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
    types: TileTypes

    @property
    def positions(self) -> int:
        return len(self.order)


def _cell_class(puzzle: Puzzle, cell: int) -> tuple[int, ...]:
    return puzzle.border_sides(cell) if puzzle.frame is not None else ()


def _shows_class(puzzle: Puzzle, edges: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(s for s in SIDES if edges[s] == puzzle.frame) if puzzle.frame is not None else ()


def admissible_board(puzzle: Puzzle) -> Solution | None:
    """A board keeping every rule except the seams, or None when there is none (Kuhn's augmenting paths
    over cells x tiles; a tile may take a cell when one of its allowed turns shows the cell's class)."""
    hinted = {c: (t, r) for c, t, r in puzzle.hints}
    hinted_tiles = {t for t, _ in hinted.values()}
    free_cells = [c for c in range(puzzle.size) if c not in hinted]
    turns = range(4) if puzzle.rotations else (0,)
    fits: dict[int, list[tuple[int, int]]] = {}
    for c in free_cells:
        want = _cell_class(puzzle, c)
        fits[c] = [(t, next(r for r in turns if _shows_class(puzzle, tile.rotated(r)) == want))
                   for t, tile in enumerate(puzzle.tiles) if t not in hinted_tiles
                   and any(_shows_class(puzzle, tile.rotated(r)) == want for r in turns)]
    owner: dict[int, int] = {}  # tile -> cell

    def augment(cell: int, seen: set[int]) -> bool:
        for t, _ in fits[cell]:
            if t in seen:
                continue
            seen.add(t)
            if t not in owner or augment(owner[t], seen):
                owner[t] = cell
                return True
        return False

    for c in free_cells:
        if not augment(c, set()):
            return None
    cells: list[tuple[int, int]] = [(0, 0)] * puzzle.size
    for c, (t, r) in hinted.items():
        cells[c] = (t, r)
    for t, c in owner.items():
        cells[c] = (t, dict(fits[c])[t])
    return Solution.from_pairs(puzzle, cells)


def build_best_tables(puzzle: Puzzle) -> BestTables:
    """Candidate tables for the best-score loop: row order, candidates per (class, key sides) combo sorted
    by (key a, key b) labels, ``bperm`` the same candidates by (key b, key a)."""
    n = puzzle.size
    types = tile_types(puzzle)
    hinted = types.hinted
    shown = [(t, r, types.shown(t, r)) for t in range(len(types.reps)) for r in types.turns[t]]
    hint_edges = {c: puzzle.tiles[t].rotated(r) for c, (t, r) in hinted.items()}
    all_edges = [e for _, _, e in shown] + list(hint_edges.values())
    norm_ids = _ids({norm(s, e[s], puzzle) for e in all_edges for s in SIDES})
    free = len(norm_ids)
    width = free + 1

    cells = [c for c in range(n) if c not in hinted]
    P = len(cells)
    unconstrained = n * 4
    key_a = np.full(P, unconstrained, np.int64)
    key_b = np.full(P, unconstrained, np.int64)
    combo = np.zeros(P, np.int64)
    extra_n = np.zeros(P, np.int64)
    extra_src = np.zeros((P, 2), np.int64)
    extra_side = np.zeros((P, 2), np.int64)
    combos: dict[tuple[tuple[int, ...], int, int], int] = {}
    placed_before = set(hinted)
    for p, cell in enumerate(cells):
        sides = []
        for s in (3, 0, 1, 2):  # W, N, E, S
            nb = puzzle.neighbour(cell, s)
            if nb is not None and nb in placed_before:
                sides.append((s, nb * 4 + (s + 2) % 4))
        keys = sides[:2]
        side_a = keys[0][0] if keys else -1
        side_b = keys[1][0] if len(keys) > 1 else -1
        key_a[p] = keys[0][1] if keys else unconstrained
        key_b[p] = keys[1][1] if len(keys) > 1 else unconstrained
        combo[p] = combos.setdefault((_cell_class(puzzle, cell), side_a, side_b), len(combos))
        extra_n[p] = len(sides) - len(keys)
        for j, (s, src) in enumerate(sides[2:]):
            extra_side[p, j], extra_src[p, j] = s, src
        placed_before.add(cell)

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
    for (klass, side_a, side_b), k in combos.items():
        rows = []
        for t, r, edges in shown:
            if _shows_class(puzzle, edges) != klass:
                continue
            la = norm_ids[norm(side_a, edges[side_a], puzzle)] if side_a >= 0 else free
            lb = norm_ids[norm(side_b, edges[side_b], puzzle)] if side_b >= 0 else free
            rows.append((la, lb, t, r, edges))
        rows.sort(key=lambda x: (x[0], x[1]))
        base = len(cand)
        cstart[k] = base
        for la, lb, t, r, edges in rows:
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
        for j, i in enumerate(by_b):
            lb = cand[i][4]
            pos = base + j
            if rb_e[k * width + lb] == 0:
                rb_s[k * width + lb] = pos
            rb_e[k * width + lb] = pos + 1
            bperm.append(i)
    # empty ranges must still be ordered inside their combo (phase 1/2 read [ra_s, ab_s) and [ab_e, ra_e))
    for k in range(K):
        for la in range(width):
            if ra_e[k * width + la] == 0:
                ra_s[k * width + la] = ra_e[k * width + la] = cstart[k]
            for lb in range(width):
                j = (k * width + la) * width + lb
                if ab_e[j] == 0:
                    ab_s[j] = ab_e[j] = ra_s[k * width + la]

    placed0 = np.zeros(n * 4 + 1, np.int64)
    placed0[unconstrained] = free
    for c, e in hint_edges.items():
        for s in SIDES:
            placed0[c * 4 + s] = norm_ids[norm(s, e[s], puzzle)]
    return BestTables(
        key_a=key_a, key_b=key_b, combo=combo, extra_n=extra_n, extra_src=extra_src, extra_side=extra_side,
        order=np.array(cells, np.int64), cstart=cstart, cend=cend, ra_s=ra_s, ra_e=ra_e, ab_s=ab_s, ab_e=ab_e,
        rb_s=rb_s, rb_e=rb_e, bperm=np.array(bperm, np.int64),
        cand_type=np.array([c[0] for c in cand], np.int64), cand_rot=np.array([c[1] for c in cand], np.int64),
        cand_edge=np.array([[norm_ids[norm(s, c[2][s], puzzle)] for s in SIDES] for c in cand], np.int64
                           ).reshape(-1, 4),
        cand_la=np.array([c[3] for c in cand], np.int64), cand_lb=np.array([c[4] for c in cand], np.int64),
        width=width, type_count=np.array([types.count(t) for t in range(len(types.reps))], np.int64),
        placed0=placed0, types=types,
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


def _board(puzzle: Puzzle, tables: BestTables, picks: np.ndarray) -> Solution:
    cells: list[tuple[int, int] | None] = [None] * puzzle.size
    for p in range(tables.positions):
        i = int(picks[p])
        cells[int(tables.order[p])] = (int(tables.cand_type[i]), int(tables.cand_rot[i]))
    return decode(puzzle, tables.types, cells)


class _Run:
    """One restart: the loop's arrays over one ordering of the tables, with the target carried in."""

    def __init__(self, tables: BestTables, sched: np.ndarray, target: int):
        P = tables.positions
        self.tables, self.sched = tables, sched
        self.type_left = tables.type_count.copy()
        self.placed = tables.placed0.copy()
        self.picks, self.phase, self.cur, self.end, self.best = (np.zeros(max(P, 1), np.int64) for _ in range(5))
        self.brk = np.zeros(P + 1, np.int64)
        self.state = np.array([0, 0, target], np.int64)
        self.flags = np.zeros(2, np.int64)

    def step(self, budget: int) -> int:
        from edgematch.solvers.native import best_kernel as K

        t = self.tables
        return int(K.best_search(
            t.key_a, t.key_b, t.combo, t.extra_n, t.extra_src, t.extra_side, t.order, t.cstart, t.cend, t.ra_s,
            t.ra_e, t.ab_s, t.ab_e, t.rb_s, t.rb_e, t.bperm, t.cand_type, t.cand_edge, t.cand_la, t.cand_lb,
            t.width, self.type_left, self.placed, self.sched, self.picks, self.phase, self.cur, self.end, self.brk,
            self.best, self.state, self.flags, budget))


_compiled = False


def ensure_compiled() -> float:
    """Load (or on the very first run compile) the best-score loop; the seconds it took (0.0 once loaded)."""
    global _compiled
    if _compiled:
        return 0.0
    start = time.perf_counter()
    from edgematch.core.model import Tile

    tiny = Puzzle(2, 1, (Tile((1, 2, 3, 4)), Tile((4, 3, 2, 1))))
    tables = build_best_tables(tiny)
    _Run(tables, schedule(tables.positions, START, 1), tiny.seam_count).step(100)
    _compiled = True
    return time.perf_counter() - start


def run_best(puzzle: Puzzle, task: Task, options: dict) -> Result:
    """The native backend's ``best``: see the module docstring."""
    from edgematch.solvers.native import best_kernel as K

    t0 = time.perf_counter()
    start_share = float(options.get("start", START))
    if not 0.0 <= start_share <= 1.0:
        raise UsageError(f"native backend: option start must be between 0 and 1, got {start_share}")
    unit = whole(options.get("unit", UNIT), "unit", least=1)
    seed = whole(options.get("seed", 0), "seed")
    name = "native"
    max_score = puzzle.seam_count
    first = admissible_board(puzzle)
    if first is None:
        return Result(name, Status.UNSAT, timings=Timings(build=time.perf_counter() - t0),
                      message="no board keeps the frame and hints with these tiles", max_score=max_score)
    best_board, best_score = first, check(puzzle, first).score
    history = [(time.perf_counter() - t0, best_score)]
    if task.on_improve is not None:
        task.on_improve(best_board, best_score)
    tables = build_best_tables(puzzle)
    P = tables.positions
    if P <= EXACT_UP_TO and "start" not in options and "breaks" not in options:
        start_share, breaks = 0.0, 2 * P  # small: plain branch and bound, which proves its answer
    else:
        breaks = whole(options.get("breaks", max(1, P // 6)), "breaks")
    sched = schedule(P, start_share, breaks)
    compile_s = ensure_compiled()
    build = time.perf_counter() - t0

    rng = np.random.default_rng(seed)
    nodes = restarts = 0
    proven = best_score == max_score or P == 0
    stopped = ""
    began = time.perf_counter()
    deadline = None if task.time_limit is None else t0 + task.time_limit
    ordering = tables
    try:
        while not proven and not stopped:
            restarts += 1
            budget_left = luby(restarts) * unit
            run = _Run(ordering, sched, max_score - best_score - 1)
            while True:
                before = int(run.flags[K.NODES])
                code = run.step(min(SLICE_NODES, budget_left))
                spent = int(run.flags[K.NODES]) - before
                nodes += spent
                budget_left -= spent
                now = time.perf_counter()
                if code == K.IMPROVED:
                    best_board = _board(puzzle, ordering, run.best)
                    best_score = max_score - int(run.state[K.TARGET]) - 1
                    history.append((now - t0, best_score))
                    if task.on_improve is not None:
                        task.on_improve(best_board, best_score)
                    if best_score == max_score:
                        proven = True
                        break
                elif code == K.FINISHED:
                    proven = run.flags[K.PRUNED] == 0  # exhausted under the target alone: nothing better exists
                    break
                if task.progress is not None:
                    task.progress({"score": best_score, "nodes": nodes, "restarts": restarts, "elapsed": now - t0})
                if deadline is not None and now >= deadline:
                    stopped = "time limit"
                    break
                if budget_left <= 0:
                    break
            ordering = shuffled(tables, rng)
    except KeyboardInterrupt:
        stopped = "interrupted"
    seconds = time.perf_counter() - began
    return Result(
        name, Status.SOLVED if proven else Status.TIMEOUT, [best_board], score=best_score, max_score=max_score,
        history=history, timings=Timings(build=build, solve=seconds),
        counters={"nodes": nodes, "restarts": restarts, "nodes_per_s": nodes / seconds if seconds > 0 else 0.0,
                  "compile_s": compile_s},
        options={"start": start_share, "breaks": breaks, "unit": unit, "seed": seed},
        message=stopped,
    )
