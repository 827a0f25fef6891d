"""The depth-first best-score search: an admissible board at once, then better ones, anytime.

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

import numpy as np

from edgematch import clock
from edgematch.core.checker import score as seams_fitting
from edgematch.core.model import SIDES, Puzzle, Solution
from edgematch.core.tiletypes import decode
from edgematch.errors import BackendError
from edgematch.solvers.base import Result, Status, Task, Timings, fraction, on_off, whole
from edgematch.solvers.native.best.admissible import admissible_board, no_admissible_board
from edgematch.solvers.native.best.candidates import BestTables, build_best_tables, shuffled
from edgematch.solvers.native.best.exact import ExactShare
from edgematch.solvers.native.search import luby

START = 0.6
UNIT = 5_000_000
SLICE_NODES = 2_000_000  # at most this many nodes between returns to Python (time limit, progress, shares)
SLICE_SECONDS = 0.05  # and about this long
EXACT_UP_TO = 25  # positions up to which the default is no schedule (branch and bound alone, proving optimality)


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



def run_best(puzzle: Puzzle, task: Task, options: dict) -> Result:
    """The native backend's ``best``: see the module docstring."""
    from edgematch.solvers.native.compiled import ensure_compiled

    load = ensure_compiled()  # before the clock starts (about a millisecond, the first time in a process)
    t0 = clock.now()
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
    history = [(clock.now() - t0, best_score)]
    if task.on_improve is not None:
        task.on_improve(best_board, best_score)
    tables = build_best_tables(puzzle)
    P = tables.positions
    if P <= EXACT_UP_TO and "start" not in options and "breaks" not in options:
        start_share, breaks = 0.0, 2 * P  # small: plain branch and bound, which proves its answer
    else:
        breaks = whole(options.get("breaks", max(1, P // 6)), "breaks")
    sched = schedule(P, start_share, breaks)
    build = clock.now() - t0

    rng = np.random.default_rng(seed)
    nodes = restarts = 0
    proven = best_score == max_score or P == 0
    stopped = ""
    began = clock.now()
    deadline = task.until(t0)
    exact = ExactShare(puzzle, seed) if not proven else None

    def offer(board: Solution) -> None:
        nonlocal best_board, best_score, proven
        score = seams_fitting(puzzle, board)
        if score > best_score:
            best_board, best_score = board, score
            history.append((clock.now() - t0, best_score))
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
                stepped = clock.now()
                code = run.step(min(slice_nodes, budget_left))
                spent = int(run.flags[NODES]) - before
                nodes += spent
                took = clock.now() - stepped
                if took > 0 and spent > 0:  # slices of about SLICE_SECONDS, whatever the rate here
                    slice_nodes = int(min(max(spent / took * SLICE_SECONDS, 1000), SLICE_NODES))
                budget_left -= spent
                if code == IMPROVED:
                    offer(_complete(puzzle, ordering, run.best, int(run.state[SHOWN])))
                    run.raise_bar(best_score)
                elif code == FINISHED:  # the next restart follows only once the deadline is looked at below
                    proven = run.flags[PRUNED] == 0  # exhausted under the target alone: nothing better exists
                now = clock.now()
                if task.progress is not None:
                    task.progress({"score": best_score, "nodes": nodes, "restarts": restarts, "elapsed": now - t0})
                if proven:
                    break
                if deadline is not None and now >= deadline:
                    stopped = "time limit"
                    break
                if exact is not None and not exact.exhausted and exact.due(now - began):
                    solution = exact.run(now - began, None if deadline is None else deadline - 0.01)
                    if solution is not None:
                        offer(solution)
                if budget_left <= 0 or code == FINISHED:
                    break
            ordering = shuffled(tables, rng)
    except KeyboardInterrupt:
        stopped = "interrupted"
    seconds = clock.now() - began
    return Result(
        name, Status.SOLVED if proven else Status.TIMEOUT, [best_board], score=best_score, max_score=max_score,
        history=history, timings=Timings(build=build, solve=seconds),
        counters={"nodes": nodes, "restarts": restarts, "nodes_per_s": nodes / seconds if seconds > 0 else 0.0,
                  "load_seconds": load},
        options={"start": start_share, "breaks": breaks, "unit": unit, "seed": seed},
        message=stopped,
    )

