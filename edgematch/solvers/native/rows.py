"""The plain loop's row look-ahead: which positions form segments, and the candidate bits its tables are built from.

A *segment* is a run of positions that fill cells west to east (in the column order: north to south), each keyed
on the cell before it (key a: its west neighbour, or its north one) and on one more label placed before the
segment began (in the row order: the row above). When the search reaches a segment's first position,
``rows_build`` in ckernel.c lists, for each of its cells, the labels on its in side (key a's) from which the rest
of the segment can still be filled with the tiles free then (a tile may serve several cells: an
over-approximation, so no solution is lost); a candidate whose out label (east, or south) leaves the next cell no
such way is not tried. Sound, so counts, listings and proofs of no solution stay exact, and the search meets the
same solutions in the same order; at the hardness peak it searches 0.35-0.4x the nodes (benchmarks/README.md, "A
row table").

The tables here only depend on the fill order, the candidate buckets and the tile types, never on the order of
candidates within a bucket, so a shuffled copy of the tables (the restarts) shares them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from edgematch.core.model import E, S


class Compiled(Protocol):
    """What the look-ahead's tables are made from: :class:`~edgematch.solvers.native.tables.Tables`' arrays (this
    module sits below that one, which builds them with it)."""

    order: np.ndarray
    key_a: np.ndarray
    key_b: np.ndarray
    base: np.ndarray
    tab_start: np.ndarray
    tab_end: np.ndarray
    cand_type: np.ndarray
    cand_edge: np.ndarray
    type_count: np.ndarray
    placed0: np.ndarray
    free_label: int

    @property
    def positions(self) -> int: ...

MAX_LABELS = 64  # a table entry is one 64-bit word of in labels: puzzles with more norm labels go without


def auto_lookahead(order: str) -> bool:
    """Whether ``lookahead=auto`` turns the look-ahead on in this fill order: in the row and column orders (the one
    is the other on the board reflected in its diagonal). Families suite, seeds 1-5, 10 s, one core: in the row
    order it found the same solutions 1.1-1.2x sooner (native:dfs, e2-like 7x7 and framed 8x8) and counted a 7x7
    peak board 1.23x sooner; in the frame order (the clue-like 12x6) 1.4-4.6x later: short inside rows of few
    colours, where it rarely cuts."""
    return order in ("row", "column")


@dataclass
class RowTables:
    """What ``em_rows_t`` (em_api.h) points into: the segments, and each group's candidates as 64-bit words of slots
    (a group: the candidates of one cell combo showing one label on key b, the key that is not the run's)."""

    span: int                # entries per segment table: the longest segment + 1
    out: int                 # the side the segments run out of: 1 (east, rows) or 2 (south, columns)
    seg_of: np.ndarray       # int32 [P] segment of each position, -1: none
    seg_first: np.ndarray    # int32 [S]
    seg_len: np.ndarray      # int32 [S]
    check: np.ndarray        # int32 [P] the table entry a candidate's out label must be in (0: every label)
    group_base: np.ndarray   # int32 [P] the first group of each position's combo (combo x width)
    group_word: np.ndarray   # int32 [G] first word of each group's slots
    group_words: np.ndarray  # int32 [G] its words
    slot_in: np.ndarray      # uint8 [words * 64] in label (key a's side) of each slot's candidate
    slot_out: np.ndarray     # uint8 [words * 64] its out label
    pairs: int               # (word, bits) pairs per tile type: the most words any type has slots in
    type_word: np.ndarray    # int32 [T * pairs] the words holding each type's slots; padding: the spare word
    type_bits: np.ndarray    # uint64 [T * pairs] its slots' bits in each (0 in the padding)

    @property
    def words(self) -> int:
        return len(self.slot_in) // 64

    @property
    def segments(self) -> int:
        return len(self.seg_first)

    def scratch(self) -> tuple[np.ndarray, np.ndarray]:
        """The two arrays the loop writes (one pair per search): the segments' tables, entry 0 every label, and
        the free candidates' bits, with a spare word the padding pairs write into."""
        return np.zeros(1 + self.segments * self.span, np.uint64), np.zeros(self.words + 1, np.uint64)


def row_tables(tables: Compiled) -> RowTables | None:
    """The look-ahead's tables for ``tables`` (None when no segment has two cells, or the puzzle has more norm
    labels than a word holds)."""
    width = tables.free_label + 1
    if width > MAX_LABELS:
        return None
    P = tables.positions
    order = tables.order.astype(np.int64)
    key_a, key_b = tables.key_a.astype(np.int64), tables.key_b.astype(np.int64)
    unconstrained = len(tables.placed0) - 1
    position = np.full(unconstrained // 4 + 1, -1, np.int64)  # the position of each cell (-1: hinted)
    position[order] = np.arange(P)
    # a position continues the segment before it when its key a is the side of the cell placed just before that
    # the segments run out of: the east side (rows), or the south side (the column order's keys)
    joined = np.zeros(P, bool)
    runs = {side: key_a[1:] == order[:-1] * 4 + side for side in (E, S)}
    out = max(runs, key=lambda side: int(runs[side].sum()))  # the east on a tie: no order runs both ways
    joined[1:] = runs[out]
    other = np.where(key_b == unconstrained, -1, position[np.minimum(key_b, unconstrained - 1) // 4])
    while True:  # and when its other key was placed before the segment began (else it starts one of its own)
        first = np.maximum.accumulate(np.where(joined, 0, np.arange(P)))
        late = joined & (other >= first)
        if not late.any():
            break
        joined &= ~late
    starts = np.flatnonzero(~joined)
    lengths = np.diff(np.r_[starts, P])
    kept = lengths >= 2
    seg_first, seg_len = starts[kept], lengths[kept]
    if not len(seg_first):
        return None
    seg_of = np.full(P, -1, np.int64)
    seg_of[np.repeat(seg_first, seg_len) + _within(seg_len)] = np.repeat(np.arange(len(seg_first)), seg_len)
    span = int(seg_len.max()) + 1
    col = np.arange(P) - np.where(seg_of >= 0, seg_first[np.maximum(seg_of, 0)], 0)
    checked = (seg_of >= 0) & (col + 1 < np.where(seg_of >= 0, seg_len[np.maximum(seg_of, 0)], 0))
    check = np.where(checked, 1 + seg_of * span + col + 1, 0)

    # the groups the segments' cells past their first read: every candidate of those cells' combos, by other label
    per_combo = width * width
    combos = np.unique(tables.base.astype(np.int64)[(seg_of >= 0) & (col >= 1)] // per_combo)
    n_combos = max(len(tables.tab_start) // per_combo, 1)
    starts = tables.tab_start.astype(np.int64)
    sizes = tables.tab_end.astype(np.int64) - starts
    bucket = np.flatnonzero(sizes)
    cand = np.repeat(starts[bucket], sizes[bucket]) + _within(sizes[bucket])  # every candidate, by its bucket
    cand_bucket = np.repeat(bucket, sizes[bucket])
    mine = np.isin(cand_bucket // per_combo, combos)
    cand, cand_bucket = cand[mine], cand_bucket[mine]
    group = cand_bucket // per_combo * width + cand_bucket % width
    by_group = np.argsort(group, kind="stable")
    cand, group = cand[by_group], group[by_group]
    counts = np.bincount(group, minlength=n_combos * width)
    group_words = -(-counts // 64)
    group_word = np.r_[0, np.cumsum(group_words)[:-1]]
    slot = group_word[group] * 64 + _within(counts[counts > 0])
    words = int(group_words.sum())
    slot_in, slot_out = np.zeros(words * 64, np.uint8), np.zeros(words * 64, np.uint8)
    slot_in[slot] = cand_bucket[by_group] // width % width  # key a's label: the candidate's in side
    slot_out[slot] = tables.cand_edge.reshape(-1, 4)[cand, out]
    # each type's slots as (word, bits) pairs, one per word it has slots in, as many for every type (a loop of
    # fixed length): the padding writes no bit into the spare word past the last
    types = tables.cand_type.astype(np.int64)[cand]
    pairs, where = np.unique(np.stack([types, slot // 64]), axis=1, return_inverse=True)
    bits = np.zeros(pairs.shape[1], np.uint64)
    np.bitwise_or.at(bits, where.reshape(-1), np.left_shift(np.uint64(1), (slot % 64).astype(np.uint64)))
    n_types = len(tables.type_count)
    per_type = np.bincount(pairs[0], minlength=n_types)
    stride = max(int(per_type.max()), 1)
    at = pairs[0] * stride + _within(per_type)
    type_word, type_bits = np.full(n_types * stride, words, np.int64), np.zeros(n_types * stride, np.uint64)
    type_word[at], type_bits[at] = pairs[1], bits
    i32 = np.int32
    return RowTables(
        span=span, out=out, seg_of=seg_of.astype(i32), seg_first=seg_first.astype(i32), seg_len=seg_len.astype(i32),
        check=check.astype(i32), group_base=(tables.base.astype(np.int64) // per_combo * width).astype(i32),
        group_word=group_word.astype(i32), group_words=group_words.astype(i32),
        slot_in=slot_in, slot_out=slot_out, pairs=stride, type_word=type_word.astype(i32), type_bits=type_bits,
    )


def _within(lengths: np.ndarray) -> np.ndarray:
    """0, 1, ..., n - 1 for each n of ``lengths``, one after another."""
    total = int(lengths.sum())
    return np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
