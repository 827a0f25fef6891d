"""Repair for native ``best`` (issue 23, part 2): large-neighbourhood search from the best board so far.

Each move frees a few cells (an operator of ``best/repair.c``, the compiled moves, chooses which:
windows around breaks or the worst of a few windows, re-placed by an exhaustive branch and bound; or cells
of one checkerboard colour, next to breaks, in a random square or in the worst band, re-placed by an exact
assignment) and puts their tiles back in the best way the repair finds; a move that makes the board worse
is accepted with the annealing probability ``exp(delta / T)``. The temperature falls from ``T0`` to ``T1``
over a cycle of moves; at the end of a cycle the search starts again from the best board (or from a better
one found by another chain: :attr:`~edgematch.solvers.base.Task.incumbent`). Operators are drawn by
weights that follow what each has earned over the last segment of moves (a new best board, a better
board, an accepted move), so the ones that pay are drawn more.

Every board handed out is rebuilt from the options (type and turn per cell) and re-scored by the caller's
checker; the kernel's own score is only a guide.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np

from edgematch.core.model import SIDES, Puzzle, Solution
from edgematch.core.tiletypes import TileTypes, placement_arrays, tile_types
from edgematch.solvers.native import kernels
from edgematch.solvers.native.tables import (
    Placements,
    cell_classes,
    collector_paused,
    in_time,
    neighbours,
    norm,
    norm_label_ids,
)

OPERATORS = ("window", "worst window", "conflict", "region", "band")
T0, T1 = 0.4, 0.02  # the temperature of a cycle, from and to (seams)
CYCLE = 50_000  # moves per cycle
NODE_CAP = 200_000  # nodes one window repair may take
REWARDS = (10.0, 3.0, 1.0)  # an operator's score for a new best board, a better board, an accepted move
SEGMENT = 500  # moves between weight updates
REACTION = 0.2  # how far one segment moves the weights
# what best/repair.c and this driver agree on: operators, the counters' columns and the state's slots
N_OPS = len(OPERATORS)
MAX_ASSIGN = 64  # cells one assignment may free
C_TRIES, C_ACCEPTED, C_BETTER, C_BEST = 0, 1, 2, 3  # per operator: tries, accepted, improved the current board,
S_CUR, S_BEST, S_MOVES, S_CAPPED, S_NODES = 0, 1, 2, 3, 4  # a new best board


@dataclass
class RepairTables:
    """The board as the repair kernel sees it: neighbours, cell classes, and each type's options (turns)
    per class with the normalised labels they show."""

    width: int
    height: int
    free: np.ndarray       # [n] not hinted
    nb: np.ndarray         # [n, 4] neighbour or -1
    cls: np.ndarray        # [n] class id
    opt_start: np.ndarray  # [classes, types]
    opt_end: np.ndarray
    opt_type: np.ndarray   # [options]
    opt_turn: np.ndarray
    opt_edge: np.ndarray   # [options, 4]
    hint_lab: np.ndarray   # [n, 4] labels of the hinted cells
    types: TileTypes
    members: np.ndarray    # [2, free tiles] each type's tiles and their turns from its representative, type by type
    copies: np.ndarray     # [types] how many tiles each type has
    turn_counts: np.ndarray  # [types] how many turns of each type look different
    tile_type: np.ndarray  # [tiles] each tile's type
    tile_turn: np.ndarray  # [tiles] its turns from the type's representative


@collector_paused()
def repair_tables(puzzle: Puzzle, deadline: float | None = None) -> RepairTables:
    """The kernel's view of ``puzzle``; built by the time limit's clock: past ``deadline`` (a ``clock.now()``
    instant) it raises :class:`~edgematch.solvers.native.tables.BuildTimedOut` (on a 64x64, a fifth of a second)."""
    n = puzzle.size
    types = tile_types(puzzle)
    in_time(deadline)
    cls, classes = cell_classes(puzzle)
    in_time(deadline)
    copies = np.array([len(those) for those in types.members], np.int64)
    members = np.fromiter(chain.from_iterable(chain.from_iterable(types.members)), np.int64,
                          2 * int(copies.sum())).reshape(-1, 2).T
    tile_type, tile_turn = np.zeros((2, len(puzzle.tiles)), np.int64)
    tile_type[members[0]], tile_turn[members[0]] = np.repeat(np.arange(len(copies)), copies), members[1]
    turn_counts = np.array([len(turns) for turns in types.turns], np.int64)
    T = len(types.reps)
    opt_start = np.zeros((len(classes), max(T, 1)), np.int64)
    opt_end = np.zeros((len(classes), max(T, 1)), np.int64)
    # each placement classed once, then each class's options in type order with offsets by searchsorted (a loop
    # over classes x types x turns made a 64x64's set-up 0.7 s of the limit)
    arrays = placement_arrays(types)
    labels = np.array(sorted(norm_label_ids(puzzle, arrays[2])), np.int64)
    in_time(deadline)
    shown = Placements.of(puzzle, arrays, labels)
    in_time(deadline)
    every_type = np.arange(opt_start.shape[1])
    mine = [shown.of_class(klass) for klass in classes]
    offsets = np.cumsum([0, *map(len, mine)])
    for k, rows in enumerate(mine):
        opt_start[k] = offsets[k] + np.searchsorted(shown.t[rows], every_type, "left")
        opt_end[k] = offsets[k] + np.searchsorted(shown.t[rows], every_type, "right")
    chosen = np.concatenate(mine) if mine else np.zeros(0, np.int64)
    opt_type, opt_turn, opt_edge = shown.t[chosen], shown.r[chosen], labels[shown.ids[chosen]]  # the norm labels
    nb = neighbours(puzzle).astype(np.int64).reshape(n, 4)
    hint_lab = np.zeros((n, 4), np.int64)
    free = np.ones(n, np.bool_)
    for c, t, r in puzzle.hints:
        free[c] = False
        edges = puzzle.tiles[t].rotated(r)
        hint_lab[c] = [norm(s, edges[s], puzzle) for s in SIDES]
    return RepairTables(puzzle.width, puzzle.height, free, nb, cls, opt_start, opt_end, opt_type, opt_turn,
                        opt_edge.reshape(-1, 4), hint_lab, types, members, copies, turn_counts, tile_type,
                        tile_turn)


def score_of(lab: np.ndarray, nb: np.ndarray) -> int:
    """Fitting seams of a whole board given as its labels per cell and side (each seam once), in C."""
    n = len(lab)
    a = kernels.pointer
    return int(kernels.require().em_repair_score(a(lab, np.int64, "lab", (n, 4)), a(nb, np.int64, "nb", (n, 4)), n))


def hungarian(cost: np.ndarray, k: int) -> np.ndarray:
    """The minimum-cost perfect assignment of ``cost[:k, :k]`` (row -> column), by the C loop the
    assignment moves use (shortest augmenting paths with potentials)."""
    cost = np.ascontiguousarray(cost, np.float64)
    if cost.ndim != 2 or cost.shape[0] < k or cost.shape[1] < k:
        raise ValueError(f"hungarian: cost {cost.shape} is smaller than {k} x {k}")
    assign = np.zeros(max(k, 1), np.int64)
    u, v, minv = (np.zeros(k + 1, np.float64) for _ in range(3))
    p, way = (np.zeros(k + 1, np.int64) for _ in range(2))
    used = np.zeros(k + 1, np.uint8)
    a = kernels.pointer
    kernels.require().em_hungarian(a(cost, np.float64, "cost"), cost.shape[1], k, a(assign, np.int64, "assign"),
                                   a(u, np.float64, "u"), a(v, np.float64, "v"), a(p, np.int64, "p"),
                                   a(way, np.int64, "way"), a(minv, np.float64, "minv"), a(used, np.uint8, "used"))
    return assign[:k]


class Repairer:
    """One repair chain over a puzzle: load a board, run moves (``em_repair_lns``), hand out the best board."""

    def __init__(self, puzzle: Puzzle, rt: RepairTables, board: Solution, seed: int,
                 t0: float = T0, t1: float = T1, cycle: int = CYCLE):
        self.puzzle, self.rt = puzzle, rt
        n = puzzle.size
        self.typ = np.full(n, -1, np.int64)
        self.opt = np.full(n, -1, np.int64)
        self.lab = np.ascontiguousarray(rt.hint_lab, np.int64).copy()
        self.best_typ = self.typ.copy()
        self.best_opt = self.opt.copy()
        self.state = np.zeros(5, np.int64)
        self.weights = np.ones(N_OPS, np.float64)
        self.rewards = np.zeros(5 + 2 * N_OPS, np.float64)
        self.rewards[:5] = (*REWARDS, SEGMENT, REACTION)
        self.counters = np.zeros((N_OPS, 4), np.int64)
        self.t0, self.t1, self.cycle = t0, t1, cycle
        self.temps = np.array([t0, (t1 / t0) ** (1 / cycle) if t0 > 0 else 1.0, t1, t0], np.float64)
        self.in_cycle = 0
        self.cycles = 0
        self.rng = kernels.seeded(seed)
        self._lns = kernels.require().em_repair_lns
        tables = {name: np.ascontiguousarray(getattr(rt, name), np.int64)
                  for name in ("nb", "cls", "opt_start", "opt_end", "opt_type", "opt_edge")}
        free = np.ascontiguousarray(rt.free, np.uint8)
        classes, n_types = tables["opt_start"].shape
        options = len(tables["opt_type"])
        a = kernels.pointer
        self._args = (
            rt.width, rt.height, a(free, np.uint8, "free", (n,)), a(tables["nb"], np.int64, "nb", (n, 4)),
            a(tables["cls"], np.int64, "cls", (n,)), a(tables["opt_start"], np.int64, "opt_start", (classes, n_types)),
            a(tables["opt_end"], np.int64, "opt_end", (classes, n_types)), n_types,
            a(tables["opt_type"], np.int64, "opt_type", (options,)),
            a(tables["opt_edge"], np.int64, "opt_edge", (options, 4)),
            a(self.typ, np.int64, "typ", (n,)), a(self.opt, np.int64, "opt", (n,)),
            a(self.lab, np.int64, "lab", (n, 4)),
            a(self.best_typ, np.int64, "best_typ", (n,)), a(self.best_opt, np.int64, "best_opt", (n,)),
            a(self.state, np.int64, "state", (5,)), a(self.weights, np.float64, "weights", (N_OPS,)),
            a(self.rewards, np.float64, "rewards", (5 + 2 * N_OPS,)),
            a(self.counters, np.int64, "counters", (N_OPS, 4)), a(self.temps, np.float64, "temps", (4,)),
        )
        self._rng = a(self.rng, np.uint64, "rng", (1,))
        self._keep = (tables, free)  # every array the moves point into
        self.load(board)

    def load(self, board: Solution) -> None:
        """Continue from ``board`` (current and best), at the start of a cycle."""
        rt = self.rt
        free = np.flatnonzero(rt.free)
        tile, rotation = np.fromiter(chain.from_iterable(board.cells), np.int64, 2 * len(board.cells)
                                     ).reshape(-1, 2)[free].T
        t = rt.tile_type[tile]
        turn = (rt.tile_turn[tile] + rotation) % rt.turn_counts[t]
        start, end = rt.opt_start[rt.cls[free], t], rt.opt_end[rt.cls[free], t]
        o = np.full(len(free), -1, np.int64)
        for j in range(int((end - start).max(initial=0))):  # each option of the (class, type): one turn each
            at = np.minimum(start + j, len(rt.opt_turn) - 1)
            o = np.where((o < 0) & (start + j < end) & (rt.opt_turn[at] == turn), at, o)
        if (o < 0).any():
            c = int(free[np.argmax(o < 0)])
            raise ValueError(f"repair: cell {c} holds tile {board.cells[c].tile} in a turn its class does not take")
        self.typ[free], self.opt[free] = t, o
        self.lab[free] = rt.opt_edge[o]
        self.best_typ[:], self.best_opt[:] = self.typ, self.opt
        self.state[S_CUR] = self.state[S_BEST] = score_of(self.lab, self._keep[0]["nb"])
        self._reheat()

    def _reheat(self) -> None:
        self.temps[0] = self.t0
        self.in_cycle = 0

    @property
    def best_score(self) -> int:
        return int(self.state[S_BEST])

    @property
    def moves(self) -> int:
        return int(self.state[S_MOVES])

    def run(self, moves: int) -> bool:
        """Up to ``moves`` moves; True as soon as one makes a board better than the best so far."""
        rt = self.rt
        before = self.moves
        code = self._lns(moves, *self._args, NODE_CAP, self._rng)
        if code < 0:
            raise MemoryError("repair: no memory for the moves' scratch arrays")
        improved = code == 1
        self.in_cycle += self.moves - before
        if self.in_cycle >= self.cycle:  # the end of a cycle: back to the best board, hot again
            self.cycles += 1
            self.typ[:], self.opt[:] = self.best_typ, self.best_opt
            free = self.rt.free
            self.lab[free] = rt.opt_edge[self.opt[free]]
            self.state[S_CUR] = self.state[S_BEST]
            self._reheat()
        return improved

    def best_board(self) -> Solution:
        """The best board so far, rebuilt from its types and turns."""
        rt = self.rt
        free = np.flatnonzero(rt.free)
        t, r = self.best_typ[free], rt.opt_turn[self.best_opt[free]]
        if not np.array_equal(np.bincount(t, minlength=len(rt.copies)), rt.copies):  # moves only swap and turn
            raise ValueError("repair: the best board does not hold each tile type's copies once each")
        # as tiletypes.decode: the copies of a type go to its cells in cell order (members are listed type by type)
        by_type = np.argsort(t, kind="stable")
        tile, turn = np.empty_like(t), np.empty_like(t)
        tile[by_type], turn[by_type] = rt.members
        pairs = np.zeros((self.puzzle.size, 2), np.int64)
        for c, (hint_tile, hint_turn) in rt.types.hinted.items():
            pairs[c] = hint_tile, hint_turn
        pairs[free, 0], pairs[free, 1] = tile, (r - turn) % 4
        return Solution.from_array(self.puzzle, pairs)

    def found_by(self) -> dict[str, int]:
        """Per operator: moves tried, accepted, that improved the current board, that made a new best."""
        out: dict[str, int] = {}
        for i, name in enumerate(OPERATORS):
            key = name.replace(" ", "_")
            tries, accepted, better, best = (int(x) for x in self.counters[i])
            out[f"repair_{key}_tries"] = tries
            out[f"repair_{key}_accepted"] = accepted
            out[f"repair_{key}_better"] = better
            out[f"repair_{key}_best"] = best
        return out
