"""The candidate tables the best-score loops read (depth-first search, beam, repair): per (cell class, key sides)
combo the placements that fit, bucketed by the labels they show on the two key sides, and their shuffles."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from edgematch.core.model import SIDES, Puzzle
from edgematch.core.tiletypes import TileTypes, placement_arrays, tile_types
from edgematch.solvers.native.tables import (
    Placements,
    cell_classes,
    collector_paused,
    in_time,
    norm,
    norm_label_ids,
    position_keys,
    ranges,
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
    hint_edges = {c: puzzle.tiles[t].rotated(r) for c, (t, r) in hinted.items()}
    all_edges = np.concatenate([arrays[2], np.array(list(hint_edges.values()), np.int64).reshape(-1, 4)])
    norm_ids = norm_label_ids(puzzle, all_edges)
    free = len(norm_ids)
    width = free + 1
    shown = Placements.of(puzzle, arrays, np.array(sorted(norm_ids), np.int64))
    in_time(deadline)

    if cells is None:
        cells = [c for c in range(n) if c not in hinted]
    unconstrained = n * 4
    at = position_keys(puzzle, cells, hinted, np.int64, deadline)
    key_a, key_b, combo, extra_n, combos = at.key_a, at.key_b, at.combo, at.extra_n, at.combos

    K = max(len(combos), 1)
    cstart = np.zeros(K, np.int64)
    cend = np.zeros(K, np.int64)
    # per combo: candidates sorted by (a, b) and their (a, b) labels; bperm the same candidates by (b, a), ties
    # in order; then the first and one past the last candidate of every (a, b), a and (b) range, in numpy: the
    # tables of a 250x250 are a million entries, built and (on a stop) freed in milliseconds
    chosen: list[np.ndarray] = []
    las: list[np.ndarray] = []
    lbs: list[np.ndarray] = []
    by_b: list[np.ndarray] = []
    offset = 0
    for key, k in combos.items():
        in_time(deadline)
        rows, la, lb = shown.combo_rows(key, free)
        cstart[k], cend[k] = offset, offset + len(rows)
        chosen.append(rows)
        las.append(la)
        lbs.append(lb)
        by_b.append(offset + np.lexsort((la, lb)))
        offset += len(rows)
    cand = np.concatenate(chosen) if chosen else np.zeros(0, np.int64)
    cand_la = np.concatenate(las) if las else np.zeros(0, np.int64)
    cand_lb = np.concatenate(lbs) if lbs else np.zeros(0, np.int64)
    bperm = np.concatenate(by_b) if by_b else np.zeros(0, np.int64)
    of_combo = np.repeat(np.arange(K, dtype=np.int64), cend - cstart)
    in_time(deadline)
    ab_s, ab_e = ranges((of_combo * width + cand_la) * width + cand_lb, K * width * width)
    ra_s, ra_e = ranges(of_combo * width + cand_la, K * width)
    rb_s, rb_e = ranges(of_combo[bperm] * width + cand_lb[bperm], K * width)
    # empty ranges must still be ordered inside their combo (phase 1/2 read [ra_s, ab_s) and [ab_e, ra_e))
    empty = ra_e == 0
    ra_s[empty] = ra_e[empty] = np.repeat(cstart, width)[empty]
    empty = ab_e == 0
    ab_s[empty] = ab_e[empty] = np.repeat(ra_s, width)[empty]

    in_time(deadline)
    placed0 = np.zeros(n * 4 + 1, np.int64)
    placed0[unconstrained] = free
    for c, e in hint_edges.items():
        for s in SIDES:
            placed0[c * 4 + s] = norm_ids[norm(s, e[s], puzzle)]
    hint_fits = sum(1 for c in hinted for s in (1, 2) if (nb := puzzle.neighbour(c, s)) in hinted
                    and placed0[c * 4 + s] == placed0[nb * 4 + (s + 2) % 4])
    checks = (key_a != unconstrained).astype(np.int64) + (key_b != unconstrained) + extra_n
    fits_upto = np.cumsum(np.r_[hint_fits, checks]).astype(np.int64)
    in_time(deadline)
    class_of_cell, classes = cell_classes(puzzle)
    class_cands = []
    for klass in classes:
        mine = shown.of_class(klass)
        class_cands.append((shown.t[mine], shown.r[mine], shown.ids[mine]))
    return BestTables(
        key_a=key_a, key_b=key_b, combo=combo, extra_n=extra_n, extra_src=at.extra_src, extra_side=at.extra_side,
        order=np.array(cells, np.int64), cstart=cstart, cend=cend, ra_s=ra_s, ra_e=ra_e, ab_s=ab_s, ab_e=ab_e,
        rb_s=rb_s, rb_e=rb_e, bperm=bperm,
        cand_type=shown.t[cand], cand_rot=shown.r[cand], cand_edge=shown.ids[cand], cand_la=cand_la, cand_lb=cand_lb,
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

