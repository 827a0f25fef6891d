"""The candidate tables the best-score loops read (depth-first search, beam, repair): per (cell class, key sides)
combo the placements that fit, bucketed by the labels they show on the two key sides, and their shuffles."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from edgematch.core.model import SIDES, Puzzle
from edgematch.core.tiletypes import TileTypes, placement_arrays, tile_types
from edgematch.solvers.native.tables import (
    cell_class,
    collector_paused,
    combo_rows,
    in_time,
    norm,
    norm_label_ids,
    normed,
    paced,
    placement_list,
    position_keys,
    shown_by_class,
)


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



@collector_paused()
def build_best_tables(puzzle: Puzzle, cells: list[int] | None = None, deadline: float | None = None) -> BestTables:
    """Candidate tables for the best-score loop: row order (or the free ``cells`` in the order given),
    candidates per (class, key sides) combo sorted by (key a, key b) labels, ``bperm`` the same candidates
    by (key b, key a). With a ``deadline`` (``clock.now()``) it raises
    :class:`~edgematch.solvers.native.tables.BuildTimedOut` once that passes (a 100x100 board's take seconds)."""
    n = puzzle.size
    types = tile_types(puzzle)
    hinted = types.hinted
    in_time(deadline)
    arrays = placement_arrays(types)
    shown = placement_list(arrays, deadline)
    by_class = shown_by_class(puzzle, shown, deadline)  # once, not once per combo
    hint_edges = {c: puzzle.tiles[t].rotated(r) for c, (t, r) in hinted.items()}
    all_edges = np.concatenate([arrays[2], np.array(list(hint_edges.values()), np.int64).reshape(-1, 4)])
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
    # the candidates by column, not as a million 5-tuples: a stop (the limit, Ctrl-C) frees them in a few
    # milliseconds where the tuples took a third of a second on a 250x250
    c_type: list[int] = []
    c_turn: list[int] = []
    c_la: list[int] = []
    c_lb: list[int] = []
    bperm: list[int] = []
    for key, k in combos.items():
        base = len(c_type)
        cstart[k] = base
        for la, lb, t, r, _ in paced(combo_rows(puzzle, shown, key, norm_ids, free, by_class=by_class,
                                                deadline=deadline), deadline):
            i = len(c_type)
            if ab_e[(k * width + la) * width + lb] == 0:
                ab_s[(k * width + la) * width + lb] = i
            ab_e[(k * width + la) * width + lb] = i + 1
            if ra_e[k * width + la] == 0:
                ra_s[k * width + la] = i
            ra_e[k * width + la] = i + 1
            c_type.append(t)
            c_turn.append(r)
            c_la.append(la)
            c_lb.append(lb)
        cend[k] = len(c_type)
        # by (lb, la), ties in order: numpy's stable sort (sorting Python tuples held the interpreter, Ctrl-C too)
        by_b = (base + np.lexsort((np.array(c_la[base:], np.int64), np.array(c_lb[base:], np.int64)))).tolist()
        for j, i in enumerate(paced(by_b, deadline)):
            lb = c_lb[i]
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
        cand_type=np.array(c_type, np.int64), cand_rot=np.array(c_turn, np.int64),
        cand_edge=np.array([ids_of[t, r] for t, r in zip(c_type, c_turn, strict=True)], np.int64).reshape(-1, 4),
        cand_la=np.array(c_la, np.int64), cand_lb=np.array(c_lb, np.int64),
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

