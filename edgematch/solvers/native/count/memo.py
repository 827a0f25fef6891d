"""Memoised counting (issue 25): count the boards below a state once, however often the search meets it.

Below depth ``d`` of the static fill order, the boards that complete a partial placement depend only on
``d``, on the labels the placed cells show towards open cells (the *front*) and on the multiset of tile
types still free. Puzzles with identical tiles and few colours (the Eternity II clue puzzles, Tetravex)
reach the same state along many paths; the C loop ``em_memo`` stores each searched state's board count in a
:class:`MemoTable` and adds it when the state comes again.

Exactness: a slot keeps the state's whole key (the depth, the front's labels and every type's free copies),
so two states are merged only when equal, never on a hash collision. A full table keeps the entries whose
subtrees cost the most nodes and drops the others, which only means searching those states again. A table
starts at ``START_MIB`` and grows fourfold when its stores reach half its slots, up to the size asked for,
every record moved to its new bucket (:meth:`MemoTable.grow`): a small count touches little memory (a table
is written at random places, so its pages were all touched soon after the start). A table whose hits saved
little once ``JUDGE_NODES`` are searched hands its searches to the plain loop (:meth:`MemoTable.judge`).

Meeting in the middle (:func:`join_plan`): when the ring of a framed board is filled first (the frame order,
auto's choice where the rim is tight, as on the clue puzzles), the inside's count depends only on the labels
the ring shows it. At that depth the loop enumerates the bottom half of the inside once into a map (the labels
it shows the top half, the types it used) and adds, for every top half, the map's count of its match: ~10x
fewer nodes than searching the bottom below each top half on Eternity II clue puzzle 3. Keys are exact there
too; a map past 3/4 full or a join past its step's budget (and ``JOIN_CAP``) gives up and that state is searched
plainly; where most joins give up (rings whose inside is too large to enumerate), the join is turned off.

Raw counts are boards times the tables' multiplier, as for the plain loop. Distinct counts need each
board's canonical test unless the turns are folded by an anchor tile (then every board is distinct); where
the test is needed the memo cannot merge states and the plain loop runs (:func:`applies`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edgematch.core.model import SIDES, Puzzle
from edgematch.errors import BackendError, UsageError, shown
from edgematch.solvers.base import PLAIN_NUMBER, plain_number
from edgematch.solvers.native import kernels
from edgematch.solvers.native.search import Search
from edgematch.solvers.native.tables import Tables, build_tables, neighbours

DEFAULT_MIB = 64  # the table's default memory; option memo=MiB
START_MIB = 1  # a table starts this large and grows 4x when its stores reach half its slots, up to its limit
LOOKUPS, HITS, STORES, EVICTED = 3, 4, 5, 6  # counters after NODES, SOLUTIONS, CANONICAL
MAX_WORDS = 64  # a key's words at most (MEMO_MAX_WORDS in ckernel.c)
TRIAL, WORTH = 20_000, 10  # MemoTable.tune: lookups before judging a depth, nodes a lookup must save
# MemoTable.judge: nodes searched before judging the whole memo, and the share of them its hits must have saved
# (the memoised loop runs ~8% fewer nodes a second than the plain one: 49.7 M against 53.8 M on a 7x7 peak board)
JUDGE_NODES, PAYS = 1_000_000_000, 0.1
JOINS, JOINS_ABORTED = 7, 8  # counters: joins done, joins given up (the state searched plainly instead)
JOIN_SLOTS = 1 << 18  # the join's map: fillings of the bottom region of one state, at most 3/4 of it
JOIN_CAP = 1_000_000  # nodes a join may spend past its step's budget before the state is searched plainly
JOIN_GIVE_UP = 16  # joins given up, with fewer than a quarter as many done, after which the join is off


@dataclass(frozen=True)
class Front:
    """For each depth ``d``, the ``placed`` indices (cell * 4 + side) of the labels placed cells show towards
    cells still open: ``idx[start[d]:start[d + 1]]``."""

    start: np.ndarray
    idx: np.ndarray
    width: int


def _seams(puzzle: Puzzle, tables: Tables) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each seam from a cell of ``tables``' fill order to a cell placed after it: the ``placed`` index (cell * 4
    + side) of the earlier cell's side, and the first and last depths at which it is in the front; in the order
    of the earlier cell's depth, then side (hinted cells are never open)."""
    P = tables.positions
    order = np.asarray(tables.order, np.int64)
    pos = np.full(puzzle.size, -1, np.int64)
    pos[order] = np.arange(P)
    nb = neighbours(puzzle).reshape(-1, 4)[order].astype(np.int64)
    depth, side = np.nonzero((nb >= 0) & (pos[np.maximum(nb, 0)] > np.arange(P)[:, None]))
    return order[depth] * 4 + side, depth + 1, pos[nb[depth, side]]


def front_width(puzzle: Puzzle, tables: Tables) -> int:
    """The most labels the front holds at any depth (:func:`front`'s ``width``), without listing them: a
    250x250's fronts hold 15 million labels in all."""
    _, first, last = _seams(puzzle, tables)
    change = np.bincount(first, minlength=tables.positions + 1) - np.bincount(last + 1, minlength=tables.positions + 1)
    return int(np.cumsum(change)[:tables.positions].max(initial=0))


def front(puzzle: Puzzle, tables: Tables) -> Front:
    """The front of every depth of ``tables``' fill order: the seams :func:`_seams` lists, each at every depth
    from its first to its last, in their order."""
    P = tables.positions
    idx_of, first, last = _seams(puzzle, tables)
    spans = last - first + 1
    seam = np.repeat(np.arange(len(first)), spans)
    depth = first[seam] + np.arange(len(seam)) - np.repeat(np.cumsum(spans) - spans, spans)
    listed = seam[np.lexsort((seam, depth))]
    counts = np.bincount(depth, minlength=P)[:P]
    starts = np.concatenate([[0], np.cumsum(counts), [len(listed)]]).astype(np.uint32)  # and depth P (never looked up)
    width = int(counts.max(initial=0))
    return Front(starts, (idx_of[listed] if len(listed) else np.zeros(1)).astype(np.uint32), width)


def applies(tables: Tables, distinct: bool) -> bool:
    """Whether a memoised count can answer: not when distinct boards need the canonical test."""
    return not (distinct and tables.turn_src.shape[0] > 0)


def memo_mib(value: object) -> float | None:
    """The ``memo`` option: ``auto``/``on`` (the default size), ``off`` (None), or the table's size in MiB."""
    text = str(value).strip().lower()
    if text in ("auto", "on", "yes", "true"):
        return float(DEFAULT_MIB)
    if text in ("off", "no", "false"):
        return None
    mib = plain_number(value)
    if mib is None or not 0 < mib <= 2**20:
        raise UsageError(f"option memo: expected auto, on, off or the table's size in MiB (more than 0, up to "
                         f"1048576; {PLAIN_NUMBER}), got {shown(value)}")
    return float(mib)


@dataclass(frozen=True)
class Join:
    """Where the memoised count meets in the middle (see ``join_count`` in ckernel.c): at depth ``at`` (every
    ring cell of a framed board placed, in the frame order), the inside's positions ``[at, split)`` (top) and
    ``[split, P)`` (bottom), ``bottom`` the tables that fill the bottom right after the ring, bottom row
    first, and the seams between top and bottom as ``placed`` indices on each side, in one order."""

    at: int
    split: int
    bottom: Tables
    lab_top: np.ndarray
    lab_bottom: np.ndarray


def join_plan(puzzle: Puzzle, tables: Tables) -> Join | None:
    """The join for ``tables`` when they fill a framed board's ring first and then its inside row by row (the
    frame order) and the inside has two rows or more; else None. Under a ring the inside's count depends on the
    labels the ring shows it only, and its two halves meet at one row of seams: enumerating each half once per
    ring and joining them costs far fewer nodes than searching the bottom below every top."""
    if puzzle.frame is None or tables.order_name != "frame" or puzzle.width < 4 or puzzle.height < 4:
        return None
    order = [int(c) for c in tables.order]
    ring = sum(1 for c in order if puzzle.border_sides(c))
    if any(puzzle.border_sides(c) for c in order[ring:]):
        return None
    inside = len(order) - ring
    row = puzzle.width - 2
    split = ring + max(1, inside // 2 // row) * row if inside >= 2 * row else ring + inside // 2
    if not ring < split < len(order):
        return None
    top, bottom_cells = order[ring:split], order[split:]
    bottom = build_tables(puzzle, "frame", symmetry=tables.anchor is not None,
                          cells=order[:ring] + bottom_cells[::-1] + top)
    in_bottom = set(bottom_cells)
    lab_top, lab_bottom = [], []
    for cell in top:
        for s in SIDES:
            y = puzzle.neighbour(cell, s)
            if y is not None and y in in_bottom:
                lab_top.append(cell * 4 + s)
                lab_bottom.append(y * 4 + (s + 2) % 4)
    same = all(np.array_equal(getattr(bottom, k), getattr(tables, k)) for k in ("type_count", "placed0")) and \
        bottom.free_label == tables.free_label and bottom.anchor == tables.anchor
    if not same or not lab_top:
        return None
    return Join(ring, split, bottom, np.array(lab_top, np.uint32), np.array(lab_bottom, np.uint32))


def _slots(mib: float, record: int) -> int:
    """The slots of ``record`` words that ``mib`` MiB hold, as a power of two (a hash's low bits pick the
    bucket), at least one bucket of 4."""
    slots = max(4, int(mib * 2**20) // (8 * record))
    return 1 << (slots.bit_length() - 1)


def key_hash(keys: np.ndarray) -> np.ndarray:
    """The hash ``memo_key`` in ckernel.c gives each row of key words (splitmix64's finaliser over the words
    in turn), as uint64: where a record sits in a table of any size."""
    h = np.full(len(keys), 0x9E3779B97F4A7C15, np.uint64)
    with np.errstate(over="ignore"):
        for w in range(keys.shape[1]):
            x = h ^ keys[:, w]
            x ^= x >> np.uint64(30)
            x *= np.uint64(0xBF58476D1CE4E5B9)
            x ^= x >> np.uint64(27)
            x *= np.uint64(0x94D049BB133111EB)
            h = x ^ (x >> np.uint64(31))
    return h


def _key_layout(tables: Tables, width: int) -> tuple[int, int, np.ndarray, np.ndarray]:
    """How a state's key is packed: bits per label, words of the front's labels, and each type's word and
    shift for its free copies (a bit field wide enough for all its copies, never across two words)."""
    counts = np.asarray(tables.type_count, np.int64)
    label_bits = max(1, int(tables.free_label).bit_length())
    front_words = -(-width // (64 // label_bits))
    type_word = np.zeros(len(counts), np.uint32)
    type_shift = np.zeros(len(counts), np.uint32)
    word, shift = 0, 0
    for t, c in enumerate(counts):
        bits = max(1, int(c).bit_length())
        if shift + bits > 64:
            word, shift = word + 1, 0
        type_word[t], type_shift[t] = word, shift
        shift += bits
    return label_bits, front_words, type_word, type_shift


def key_too_wide(puzzle: Puzzle, tables: Tables) -> str:
    """Why a state's key would not fit :data:`MAX_WORDS` words ("" when it fits): a board with thousands of
    tile types (64x64 and up, every tile distinct) has no room to remember states in."""
    _, front_words, type_word, _ = _key_layout(tables, front_width(puzzle, tables))
    words = 1 + front_words + (int(type_word[-1]) + 1 if len(type_word) else 1)
    if words <= MAX_WORDS:
        return ""
    return f"off (a state's key would take {words} words, at most {MAX_WORDS}: too many tile types)"


class MemoTable:
    """The states' board counts for one puzzle's tables: ``mib`` MiB at most, in buckets of 4 slots, the
    depths worth looking up (all but the root and the last at first; :meth:`tune` turns off the others), and
    with ``join`` the meeting in the middle where the tables allow one (:func:`join_plan`; its map is apart)."""

    def __init__(self, puzzle: Puzzle, tables: Tables, mib: float = DEFAULT_MIB, join: bool = True):
        self.tables = tables
        self.front = front(puzzle, tables)
        self.label_bits, self.front_words, self.type_word, self.type_shift = _key_layout(tables, self.front.width)
        self.type_words = int(self.type_word[-1]) + 1 if len(self.type_word) else 1
        self.key_w = 1 + self.front_words + self.type_words
        if self.key_w > MAX_WORDS:
            raise BackendError(f"native backend: a memo key would take {self.key_w} words (at most {MAX_WORDS})")
        self.record = 2 + self.key_w  # a slot's words: work (0: empty), count, key
        self.limit_slots = _slots(mib, self.record)
        self.n_slots = min(self.limit_slots, _slots(START_MIB, self.record))
        self.slot = np.zeros(self.n_slots * self.record, np.uint64)
        self.version = 0  # bumped when the table grows: searches then point their loop at the new one
        self.stored = 0  # stores since it last grew, of every search sharing it
        P = tables.positions
        self.memo_at = np.zeros(P + 1, np.uint8)
        self.memo_at[1:max(1, P - 1)] = 1  # every depth but the root and the last
        self.lookups = np.zeros(P + 1, np.int64)
        self.saved = np.zeros(P + 1, np.int64)
        self.nodes = 0  # searched by every search sharing the table, for judge()
        self.plain_after = 0  # nodes searched when judge() found the memo wanting (0: not yet); then the plain loop
        self.join = join_plan(puzzle, tables) if join else None
        n_lab = 0 if self.join is None else len(self.join.lab_top)
        self.lab_words = max(1, -(-n_lab // (64 // self.label_bits)))
        if self.join is not None and 1 + self.lab_words + self.type_words > MAX_WORDS:
            self.join = None
        slots = JOIN_SLOTS if self.join is not None else 4
        self.join_slot = np.zeros(slots * (1 + self.lab_words + self.type_words), np.uint64)
        self.join_slots = slots
        self.join_used = np.zeros(slots, np.int64)

    @property
    def bytes(self) -> int:
        return self.n_slots * 8 * self.record

    def note_stores(self, stores: int) -> None:
        """Count a step's stores; once they reach half the slots, :meth:`grow` (up to the size asked for)."""
        self.stored += stores
        while 2 * self.stored >= self.n_slots and self.n_slots < self.limit_slots:
            self.grow()

    def grow(self) -> None:
        """Four times the slots (at most the limit), every record moved to its bucket in the larger table.
        Both sizes are powers of two, so a new bucket's hash bits include its old bucket's: a new bucket
        receives records of one old bucket only, at most 4, and none is dropped."""
        n = min(self.n_slots * 4, self.limit_slots)
        rows = self.slot.reshape(self.n_slots, self.record)
        at = np.flatnonzero(rows[:, 0] != 0)
        live = rows[at]  # a copy: the old table is let go before the new one is touched
        self.slot = rows = None
        try:
            bucket = (key_hash(live[:, 2:]) & np.uint64(n - 1)).astype(np.int64) & ~3
            order = np.argsort(bucket, kind="stable")
            ordered = bucket[order]
            rank = np.arange(len(order)) - np.searchsorted(ordered, ordered, side="left")
            assert len(rank) == 0 or int(rank.max()) < 4, "a bucket of the grown table got more than 4 records"
            target = np.empty(len(order), np.int64)
            target[order] = ordered + rank  # each record's slot, in the order the records are held
            grown = np.zeros((n, self.record), np.uint64)
            grown[target] = live
        except BaseException as exc:  # no memory for it, or Ctrl-C: the old table as it was, and no more growing
            kept = np.zeros((self.n_slots, self.record), np.uint64)
            kept[at] = live
            self.slot, self.limit_slots = kept.reshape(-1), self.n_slots
            if isinstance(exc, MemoryError):
                return
            raise
        self.slot, self.n_slots = grown.reshape(-1), n
        self.stored = len(live)
        self.version += 1

    def tune(self) -> None:
        """Stop looking up depths where the hits so far saved under ``WORTH`` nodes per lookup (once a depth
        has had ``TRIAL`` lookups): a lookup costs a few nodes' time, so there the plain search is faster."""
        weak = (self.memo_at == 1) & (self.lookups >= TRIAL) & (self.saved < WORTH * self.lookups)
        self.memo_at[weak] = 0

    def judge(self, nodes: int) -> None:
        """Count ``nodes`` more searched; once ``JUDGE_NODES`` are, if the hits saved under ``PAYS`` of them,
        set ``plain_after`` (for good): on boards whose states rarely recur (the peak, few identical tiles) the
        memoised loop's upkeep costs more than it saves, and the plain loop counts the rest (7x7 peak, ``count -j
        2``: 98.6 M nodes/s against 107.6 M). A meet in the middle is judged by its own rule, not this one."""
        self.nodes += nodes
        if not self.plain_after and self.nodes >= JUDGE_NODES and int(self.saved.sum()) < PAYS * self.nodes:
            self.plain_after = self.nodes


class MemoSearch(Search):
    """A count (no stored solutions) over ``tables`` below ``prefix`` that shares ``table`` with every other
    search of the same tables (a worker's parts, for instance)."""

    COUNTERS = 9  # NODES, SOLUTIONS, CANONICAL, then LOOKUPS, HITS, STORES, EVICTED, JOINS, JOINS_ABORTED

    def __init__(self, tables: Tables, table: MemoTable, prefix: tuple[int, ...] = ()):
        if table.tables is not tables:
            raise BackendError("native backend: internal error: a memo table belongs to other tables")
        lib = kernels.require()
        super().__init__(tables, prefix, capacity=0, distinct=False)
        plain = self._step  # em_search on the same arrays and counters, once the table says the memo does not pay
        P = tables.positions
        self.table = table
        self.d_sol = np.zeros(P + 1, np.int64)
        self.d_nodes = np.zeros(P + 1, np.int64)
        self.d_hash = np.zeros(P + 1, np.uint64)
        self.d_pending = np.zeros(P + 1, np.uint8)
        a = kernels.c_arrays(tables)
        self._arrays = a

        def p(x: np.ndarray) -> object:  # cffi checks each dtype against em_api.h
            return kernels.pointer(x, x.dtype, "a memo array", writes=False)

        f, t = table.front, table
        head = (p(a["order"]), P, p(a["key_a"]), p(a["key_b"]), p(a["base"]), p(a["extra_n"]), p(a["extra_src"]),
                p(a["extra_side"]), a["extra_src"].shape[1], p(a["tab_start"]), p(a["tab_end"]), p(a["cand_type"]),
                p(a["cand_edge"]), tables.free_label + 1, p(self.type_left), p(self.placed), p(self.picks),
                p(self.ptr), p(self.end), p(self.state), self.start)
        j = t.join
        b = kernels.c_arrays(j.bottom) if j else a
        labs = (j.lab_top, j.lab_bottom) if j else (np.zeros(1, np.uint32), np.zeros(1, np.uint32))
        self.j_picks = np.zeros(P + 1, np.uint32)
        self.j_ptr = np.zeros(P + 1, np.uint32)
        self.j_end = np.zeros(P + 1, np.uint32)
        self._bottom, self._labs = b, labs
        tail = (len(tables.type_count), p(t.type_word), p(t.type_shift), t.type_words, p(f.start), p(f.idx),
                t.label_bits, t.front_words, p(t.memo_at), p(t.slot), t.n_slots,
                p(self.d_sol), p(self.d_nodes), p(self.d_hash), p(self.d_pending), p(t.lookups), p(t.saved),
                j.at if j and j.at > self.start else -1, j.split if j else 0, j.at + P - j.split if j else 0,
                p(b["order"]), p(b["key_a"]), p(b["key_b"]), p(b["base"]), p(b["extra_n"]), p(b["extra_src"]),
                p(b["extra_side"]), p(b["tab_start"]), p(b["tab_end"]), p(b["cand_type"]), p(b["cand_edge"]),
                p(labs[0]), p(labs[1]), len(labs[0]) if j else 0, t.lab_words,
                p(t.join_slot), t.join_slots, p(t.join_used), p(self.j_picks), p(self.j_ptr),
                p(self.j_end), JOIN_CAP, p(self.counters))
        call = lib.em_memo

        at, slot_at = 17, 9  # tail[17]: join_at; tail[9], tail[10]: the table's slots and their number
        joining = [tail[at] >= 0]
        bound = [table.version, tail, (*tail[:at], -1, *tail[at + 1:])]  # the table's version the tails point at

        def step(budget: int) -> int:
            if table.plain_after and not joining[0]:
                return plain(budget)  # pending states are not stored: their counts would miss what follows
            if bound[0] != table.version:  # the table grew (in this search or another sharing it)
                bound[1] = (*bound[1][:slot_at], p(table.slot), table.n_slots, *bound[1][slot_at + 2:])
                bound[2] = (*bound[1][:at], -1, *bound[1][at + 1:])
                bound[0] = table.version
            stores, nodes = self.counters[STORES], self.counters[kernels.NODES]
            code = call(*head, budget, *bound[1] if joining[0] else bound[2])
            if code == kernels.OVERFLOW:
                raise BackendError("native backend: the count passed 2^63 - 1 boards; the memoised loop "
                                   "counts in 64 bits")
            table.tune()
            table.note_stores(int(self.counters[STORES] - stores))
            table.judge(int(self.counters[kernels.NODES] - nodes))
            given_up = self.counters[JOINS_ABORTED]
            if joining[0] and given_up >= JOIN_GIVE_UP and 4 * self.counters[JOINS] < given_up:
                joining[0] = False  # this board's insides are too large to enumerate: search them
            return code

        self._step = step

    def stats(self) -> dict[str, int]:
        """Lookups, hits, stores and evictions so far, and the table's slots in use and its size."""
        c = self.counters
        return {"memo_lookups": int(c[LOOKUPS]), "memo_hits": int(c[HITS]), "memo_stores": int(c[STORES]),
                "memo_evicted": int(c[EVICTED]), "memo_slots_used": int(c[STORES] - c[EVICTED]),
                "memo_joins": int(c[JOINS]), "memo_joins_aborted": int(c[JOINS_ABORTED]),
                "memo_slots": self.table.n_slots, "memo_bytes": self.table.bytes,
                "memo_plain_after": self.table.plain_after}
