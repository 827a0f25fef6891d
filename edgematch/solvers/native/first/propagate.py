"""The native search with propagation: forward checking, a dynamic order, colour-count bounds (issue 24).

The plain loop (:mod:`edgematch.solvers.native.search`) fills cells in a fixed order and looks only at the
neighbours already placed. Near the hardness peak (framed 8x8 with 8 inner colours) its tree holds ~1e13
nodes; these options refuse placements that cannot lead to a solution, each on its own:

- ``fc`` (forward checking): a placement that leaves an open neighbour with no fitting free candidate;
- ``order=dynamic``: the next cell is the open cell with the fewest candidates among those touching a placed
  one (ties by the static order, the auto order's), so forced cells come first and a cell with none ends the
  branch at once (this checks every such cell, more than ``fc``'s neighbours);
- ``match`` (matching): the open cells beside placed ones must take distinct free tiles that fit their placed
  neighbours, so a matching of those cells to free tile copies must exist (Kuhn's augmenting paths; Régin's
  alldifferent feasibility). It implies each colour's pairing (the cells asking for a colour need as many
  distinct free tiles showing it) and forward checking on every such cell;
- ``bounds`` (colour-count bounds per edge class): for each tile class (corner, edge, inner: the number of
  frame sides) and colour, the free tiles of that class must show the colour at least as often as the placed
  sides facing open cells of that class ask for it. Parity needs no check while searching: with every seam
  matched, what the free tiles show minus what is asked is twice the open seams' count, whatever was placed,
  so it is fixed by the tile set (a board whose colour counts do not pair up has no solution at all).

Each only removes branches without solutions, so raw and distinct counts stay exact (tests compare them with
the plain loop and a brute force). The loop is ``em_propagate`` in ``ckernel.c``. :class:`PropSearch` has
the interface of :class:`~edgematch.solvers.native.search.Search`, so
:func:`~edgematch.solvers.native.search.drive` and the restarts drive it unchanged; its solutions are stored by
position of the static order, as the plain loop's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edgematch.core.model import SIDES, Puzzle
from edgematch.errors import BackendError
from edgematch.solvers.base import on_off
from edgematch.solvers.native import kernels
from edgematch.solvers.native.search import Search
from edgematch.solvers.native.tables import Tables, neighbours

FC, DYNAMIC, BOUNDS, MATCH = 1, 2, 4, 8  # the flags of em_propagate
OPTIONS = ("fc", "bounds", "match")  # on/off options; the dynamic order is order=dynamic
NAMED = ", ".join(OPTIONS) + " and order=dynamic"  # how messages name them all
CLASSES = 5  # tile and cell classes: the number of frame sides, 0..4


@dataclass(frozen=True)
class Propagation:
    """Which propagation a search runs (all off: the plain loop)."""

    fc: bool = False
    dynamic: bool = False
    bounds: bool = False
    match: bool = False

    @property
    def flags(self) -> int:
        return FC * self.fc | DYNAMIC * self.dynamic | BOUNDS * self.bounds | MATCH * self.match

    @property
    def any(self) -> bool:
        return self.flags != 0


def propagation(options: dict, order: str) -> Propagation:
    """The propagation asked for by the native options ``fc``, ``bounds``, ``match`` (on/off) and
    ``order=dynamic``."""
    return Propagation(dynamic=order == "dynamic", **{name: on_off(options.get(name, False), name) for name in OPTIONS})


@dataclass
class BoundTables:
    """What the colour-count bounds read: each cell's class, each visible label id's partner id (-1: no tile
    shows it), the frame's id (-1: unframed), and the starting supply and demand, ``[CLASSES, L + 1]`` (the
    last column counts demands no tile can meet)."""

    cell_class: np.ndarray
    vis_partner: np.ndarray
    frame_vis: int
    supply: np.ndarray
    demand: np.ndarray


def bound_tables(puzzle: Puzzle, tables: Tables) -> BoundTables:
    """Classes, partners and the starting counts for ``puzzle`` (hinted tiles placed, the others free)."""
    labels = tables.vis_labels
    ids = {x: i for i, x in enumerate(labels)}
    L = len(labels)
    frame = -1 if puzzle.frame is None else ids.get(puzzle.frame, -1)
    cell_class = np.array([len(puzzle.border_sides(c)) if puzzle.frame is not None else 0
                           for c in range(puzzle.size)], np.int32)
    partner = np.array([ids.get(puzzle.partner(x), -1) for x in labels], np.int32)
    supply = np.zeros((CLASSES, L + 1), np.int32)
    for t in range(len(tables.types.reps)):
        edges = [ids[x] for x in tables.types.shown(t, 0)]
        klass = sum(v == frame for v in edges) if frame >= 0 else 0
        for v in edges:
            if v != frame:
                supply[klass, v] += int(tables.type_count[t])
    demand = np.zeros((CLASSES, L + 1), np.int32)
    near = neighbours(puzzle)
    hinted = tables.types.hinted
    for cell, (tile, turn) in hinted.items():
        edges = puzzle.tiles[tile].rotated(turn)
        for s in SIDES:
            y = int(near[cell * 4 + s])
            if y >= 0 and y not in hinted:
                want = partner[ids[edges[s]]]
                demand[cell_class[y], want if want >= 0 else L] += 1
    return BoundTables(cell_class, partner, frame, supply, demand)


class PropSearch(Search):
    """One resumable search with propagation over ``tables`` (built with ``masks=True``): a
    :class:`~edgematch.solvers.native.search.Search` (its step, drain and counters) without prefixes, whose
    step calls ``em_propagate``; stored solutions are picks per position of the static order."""

    def __init__(self, puzzle: Puzzle, tables: Tables, how: Propagation, capacity: int = 0, distinct: bool = False):
        if tables.masks is None:
            raise BackendError("native backend: internal error: propagation needs tables built with masks")
        lib = kernels.require()
        super().__init__(tables, capacity=capacity, distinct=distinct)  # the arrays both loops write
        P, n = tables.positions, puzzle.size
        bounds = bound_tables(puzzle, tables)
        self.open = np.zeros(n, np.int32)
        self.open[tables.order] = 1
        near = neighbours(puzzle)
        self.mask = np.zeros(n, np.int32)
        for cell in range(n):
            for s in SIDES:
                y = int(near[cell * 4 + s])
                if y >= 0 and not self.open[y]:
                    self.mask[cell] |= 1 << s
        self.supply, self.demand = bounds.supply.copy(), bounds.demand.copy()
        counts = np.asarray(tables.type_count, np.int64)  # the matching's copy slots, a run per tile type
        slot_base = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
        slots = max(int(counts.sum()), 1)
        self.owner, self.frontier = np.zeros(slots, np.int32), np.zeros(n, np.int32)
        self.owner_at, self.seen = np.zeros(slots, np.int64), np.zeros(slots, np.int64)
        self.stamps = np.zeros(2, np.int64)
        self.cell_at = np.zeros(max(P, 1), np.uint32)
        pos_of_cell = np.full(n, -1, np.int32)
        pos_of_cell[tables.order] = np.arange(P, dtype=np.int32)
        m = tables.masks
        U32 = np.uint32
        fixed = {  # read-only arrays the loop points into, kept alive with the search
            **kernels.c_arrays(tables), "pos": pos_of_cell, "near": near,
            "m_base": np.ascontiguousarray(m.base, U32), "m_key_a": np.ascontiguousarray(m.key_a, U32),
            "m_key_b": np.ascontiguousarray(m.key_b, U32), "m_extra_n": np.ascontiguousarray(m.extra_n, U32),
            "m_extra_src": np.ascontiguousarray(m.extra_src, U32),
            "m_extra_side": np.ascontiguousarray(m.extra_side, U32),
            "cell_class": bounds.cell_class, "vis_partner": bounds.vis_partner, "slot_base": slot_base,
        }
        self._fixed = fixed

        def a(x: np.ndarray) -> object:  # the dtypes the loop takes (cffi checks them against em_api.h)
            return kernels.pointer(x, x.dtype, "a propagation array", writes=False)

        turn_src = fixed["turn_src"]
        self._head = (
            n, P, how.flags, a(fixed["order"]), a(fixed["pos"]), a(fixed["near"]),
            a(fixed["m_base"]), a(fixed["m_key_a"]), a(fixed["m_key_b"]), a(fixed["m_extra_n"]),
            a(fixed["m_extra_src"]), a(fixed["m_extra_side"]), a(fixed["tab_start"]), a(fixed["tab_end"]),
            a(fixed["cand_type"]), a(fixed["cand_edge"]), a(fixed["cand_vis"]), tables.free_label + 1,
            a(fixed["cell_class"]), a(fixed["vis_partner"]), len(tables.vis_labels), bounds.frame_vis,
            a(self.supply), a(self.demand), a(fixed["slot_base"]), a(self.owner), a(self.frontier),
            a(self.owner_at), a(self.seen), a(self.stamps), a(self.type_left), a(self.placed), a(self.open),
            a(self.mask),
            a(self.vis), self.vis.shape[0], a(self.cell_at), a(self.picks), a(self.ptr), a(self.end), a(self.state),
        )
        self._tail = (
            a(turn_src), turn_src.shape[0], turn_src.shape[1] if turn_src.ndim == 2 else 0,
            int(self.distinct), a(self.out), self.out.shape[0], self.out.shape[1], a(self.counters),
        )
        head, tail, call = self._head, self._tail, lib.em_propagate
        self._step = lambda budget: call(*head, budget, *tail)
