"""Every core on one depth-first search, once the race has given its other chains their share (issue 24).

The race's chain 1 is the plain depth-first search in a second fill order; where its first solution lies in that
order is its time to it (framed 8x8 c8 seed 5 in the band2 order: 4.9e10 nodes in, a quarter of an hour of one
core). The other chains, the kept search and restarts, answered within their first minute or, in every race
measured, not at all (benchmarks/README.md, "The handover"). So after ``handover`` seconds they stop and *join*
chain 1: every worker sweeps chain 1's tree in its order, parts side by side, and where the solution lies is reached
N times sooner.

The handover, through a few shared integers (:class:`Board`; in shared memory, or on the Dask scheduler when the
chains run on a cluster):

1. a joiner whose own search ran its share asks (:meth:`Board.ask`) and waits;
2. chain 1 (the leader) sees it between two slices of its search and picks the split depth ``d``, the shallowest
   at which its search went through a new prefix of ``d`` placements about every :data:`PART_SECONDS`
   (:class:`Changes`); it ends its search at the end of its current prefix of ``d`` placements (*part 0*),
   writes that prefix and says so (:meth:`Board.publish`);
3. every worker then takes parts from a shared counter: part ``k`` is the ``k``-th prefix of ``d`` placements
   after part 0's in the search's own order (:func:`after`), searched below. Each worker enumerates the
   prefixes itself (the tables are built the same way everywhere), so only the counter is shared.

Part 0, what the leader searched before it, and the parts after it cover the tree exactly (a branch that ends
before depth ``d`` holds no solution), so a first solution is the search's own kind (the race's parent checks it
anyway), and *no solution* is proven when every part has been searched through: the shared count of parts done
reaches the number of parts, which a worker learns when its enumeration runs out. A worker killed in a part
never counts it done, so a lost worker can cost a proof, never make a wrong one: when the others run out of parts
the race answers with an error naming the lost chain (the part is not searched again), not a timeout.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from edgematch import clock
from edgematch.solvers.native import kernels
from edgematch.solvers.native.search import Found, Outcome, Search, drive, fitting, place
from edgematch.solvers.native.tables import Tables
from edgematch.solvers.parallel.shared import Local, Shared

# after this many seconds a race's other chains join chain 1's search (option handover; benchmarks/README.md, "The
# handover"): chain 0 answered within 65 s or not at all in every race measured
HANDOVER_SECONDS = 120.0
PHASE, DEPTH, CLAIMED, DONE, TOTAL = range(5)  # the board's fields; the published prefix follows
HEAD = 5
IDLE, ASKED, PUBLISHED = 0, 1, 2
PART_SECONDS = 0.5  # the parts' aimed-for size, in the leader's search time
WAIT_SECONDS = 5.0  # how long a joiner waits for the leader to publish (it answers within a slice, ~0.1 s)
LISTED = 256  # prefixes the listing loop hands over at a time
LISTING_BUDGET = 1_000_000  # its nodes per call between two looks at the clock
Progress = Callable[[dict[str, float]], None]


def _ask(values: list[int]) -> None:
    if values[PHASE] == IDLE:
        values[PHASE] = ASKED


def _publish(values: list[int], prefix: list[int]) -> None:
    values[DEPTH] = len(prefix)
    values[HEAD:HEAD + len(prefix)] = prefix
    values[CLAIMED], values[DONE], values[TOTAL] = 1, 0, -1
    values[PHASE] = PUBLISHED


def _published(values: list[int]) -> list[int] | None:
    return values[HEAD:HEAD + values[DEPTH]] if values[PHASE] == PUBLISHED else None


def _claim(values: list[int]) -> int:
    values[CLAIMED] += 1
    return values[CLAIMED] - 1


def _done(values: list[int], total: int | None) -> bool:
    if total is None:
        values[DONE] += 1
    elif values[TOTAL] < 0:
        values[TOTAL] = total
    return values[TOTAL] >= 0 and values[DONE] == values[TOTAL]


class Board:
    """The handover's shared state (a :class:`~edgematch.solvers.parallel.shared.Shared`, in shared memory here or
    on a Dask scheduler): phase, split depth, parts claimed, parts done, parts in all (-1 until a worker's
    enumeration runs out), then part 0's prefix. Every change is one operation applied whole."""

    def __init__(self, state: Shared):
        self.state = state

    @staticmethod
    def fresh(positions: int) -> list[int]:
        """A board's values before anyone asked."""
        values = [0] * (HEAD + positions)
        values[TOTAL] = -1
        return values

    @classmethod
    def create(cls, ctx: Any, positions: int) -> Board:
        """A board in shared memory, for chains forked from here."""
        return cls(Local.create(ctx, cls.fresh(positions)))

    def ask(self) -> None:
        """A joiner asks the leader to split its search (once for every joiner)."""
        self.state.apply(_ask)

    def asked(self) -> bool:
        return self.state.peek(PHASE) == ASKED

    def publish(self, prefix: tuple[int, ...]) -> None:
        """The leader's part 0: the prefix it searches below to the end; the parts after it are to take."""
        self.state.apply(_publish, list(prefix))

    def published(self) -> tuple[int, ...] | None:
        """Part 0's prefix once the leader has published it."""
        if self.state.peek(PHASE) != PUBLISHED:
            return None
        first = self.state.apply(_published)
        return None if first is None else tuple(first)

    def claim(self) -> int:
        """The next part's number (1, 2, ...)."""
        return int(self.state.apply(_claim))

    def done(self, total: int | None = None) -> bool:
        """A part searched through (``total`` None) or the number of parts learnt; True when every part is
        done: no solution below any."""
        return bool(self.state.apply(_done, total))


class Changes:
    """How often the leader's search went through a new prefix of each length, read between its slices."""

    def __init__(self, positions: int):
        self.last = np.zeros(positions, np.uint32)  # the picks seen last, and how deep they went
        self.depth = 0
        self.counts = np.zeros(positions + 1, np.int64)  # per prefix length: slices in which it changed

    def seen(self, search: Search) -> None:
        depth = int(search.state[kernels.DEPTH])
        common = min(depth, self.depth)
        differ = np.flatnonzero(search.picks[:common] != self.last[:common])
        first = int(differ[0]) if len(differ) else common
        if first < max(depth, self.depth):  # the prefixes of every length above `first` changed
            self.counts[first + 1:] += 1
        self.last[:depth] = search.picks[:depth]
        self.depth = depth

    def split_depth(self, seconds: float, positions: int) -> int:
        """The shallowest depth whose prefixes changed about every :data:`PART_SECONDS` (else the one that
        changed most), within 1 .. positions - 1."""
        need = max(1.0, seconds / PART_SECONDS)
        top = max(1, positions - 1)
        for d in range(1, top + 1):
            if self.counts[d] >= need:
                return d
        return int(np.argmax(self.counts[1:top + 1])) + 1


class OutOfTime(Exception):
    """The time ran out while the next part was being looked for (never taken for "no part left")."""


def truncated(tables: Tables, depth: int) -> Tables:
    """``tables`` for the first ``depth`` positions only: its search's "solutions" are the prefixes of ``depth``
    placements, in the search's order, at the compiled loop's speed. Without the row look-ahead (its segments
    run past the cut): the listing may then hold prefixes the look-ahead would skip, parts that are searched and
    found empty, never a part missing."""
    cut = {name: getattr(tables, name)[:depth] for name in
           ("order", "key_a", "key_b", "base", "extra_n", "extra_src", "extra_side")}
    return replace(tables, rows=None, **cut)


def after(tables: Tables, first: tuple[int, ...], deadline: float | None = None) -> Iterator[tuple[int, ...]]:
    """The prefixes of ``len(first)`` placements that come after ``first`` in the search's own order: for each
    position from the deepest up, the candidates after ``first``'s that fit beside ``first``'s earlier
    placements, each followed by the prefixes below it (listed by the compiled loop over :func:`truncated`
    tables). Raises :class:`OutOfTime` once ``deadline`` (``clock.now()``) passes."""
    depth = len(first)
    top = truncated(tables, depth)
    for j in range(depth - 1, -1, -1):
        type_left = tables.type_count.copy()
        placed = tables.placed0.copy()
        vis = tables.vis0.copy()
        for p in range(j):
            place(tables, p, first[p], type_left, placed, vis)
        for i in fitting(tables, j, type_left, placed):
            if i <= first[j]:
                continue
            if j == depth - 1:
                yield (*first[:j], i)
                continue
            search = Search(top, (*first[:j], i), capacity=LISTED)
            while not search.finished:
                if deadline is not None and clock.now() >= deadline:
                    raise OutOfTime
                search.step(LISTING_BUDGET)
                for picks in search.drain():
                    yield tuple(int(v) for v in picks)


@dataclass
class Swept:
    """How a worker's part of a sweep ended: its outcome (nodes over every part it searched), the parts it
    searched through, the split depth, and whether it proved there is no solution."""

    outcome: Outcome
    parts: int = 0
    depth: int = 0
    proof: bool = False


def lead(tables: Tables, board: Board, until: float | None, progress: Progress | None = None,
         depth: int | None = None) -> Swept:
    """Chain 1: the plain depth-first search over ``tables``, which on a joiner's asking splits at ``depth``
    (default: the one :meth:`Changes.split_depth` picks), publishes its current prefix as part 0, searches it
    through and then works as every joiner does, until the deadline ``until`` (a ``clock.now()`` instant)."""
    start = clock.now()
    search = Search(tables, capacity=1)
    changes = Changes(tables.positions)

    def watch(info: dict[str, float]) -> None:
        changes.seen(search)
        if progress is not None:
            progress(info)

    # asked before it starts (a joiner's share was 0 s): it splits at once
    outcome = Outcome(finished=False, stopped="stopped") if board.asked() else \
        drive(search, until, 1, watch, board.asked)
    if outcome.stopped != "stopped":  # no split: the whole search's outcome (finished: no solution anywhere)
        return Swept(outcome, proof=outcome.finished and not outcome.found)
    if depth is None:
        depth = changes.split_depth(clock.now() - start, tables.positions)
    while int(search.state[kernels.DEPTH]) < depth:  # part 0 must have its prefix placed
        search.step(1)
        found = Found(search.drain())
        if found or search.finished:
            outcome = _total(search, 0, start, search.finished, found, "solution limit" if found else "")
            return Swept(outcome, proof=not found)
    search.end[:depth] = search.ptr[:depth]  # no sibling above the split: the search ends with part 0
    first = tuple(int(i) for i in search.picks[:depth])
    board.publish(first)
    outcome = drive(search, until, 1, progress)
    outcome.seconds = clock.now() - start
    if outcome.found or not outcome.finished:
        return Swept(outcome, 0, depth)
    proof = board.done()
    swept = Swept(outcome, 1, depth, proof)
    return swept if proof else work(tables, board, first, outcome, start, until, progress)


def join(tables: Tables, board: Board, until: float | None, progress: Progress | None = None
         ) -> Swept | None:
    """A joiner: ask the leader to split, wait for part 0 and work; None when the leader did not answer within
    :data:`WAIT_SECONDS` (it ended, or died)."""
    start = clock.now()
    board.ask()
    first = board.published()
    while first is None:
        if clock.now() - start >= WAIT_SECONDS:
            return None
        if clock.passed(until):
            return Swept(Outcome(finished=False, stopped="time limit", seconds=clock.now() - start))
        time.sleep(0.01)
        first = board.published()
    return work(tables, board, first, Outcome(finished=False), start, until, progress)


def work(tables: Tables, board: Board, first: tuple[int, ...], before: Outcome, start: float,
         until: float | None, progress: Progress | None) -> Swept:
    """Take parts after ``first`` from the board and search each through, until one holds a solution, none is
    left, or the time is up. ``before``: what this worker searched already (its nodes add up)."""
    depth = len(first)
    search = Search(tables, first, capacity=1)
    base = before.nodes - search.nodes

    def report(info: dict[str, float]) -> None:
        if progress is not None:
            progress({**info, "nodes": base + info["nodes"], "elapsed": clock.now() - start})

    prefixes = after(tables, first, until)
    taken = 0  # the number of the last prefix taken from the enumeration
    parts = 1 if before.finished else 0
    while True:
        k = board.claim()
        prefix: tuple[int, ...] | None = ()
        try:
            while taken < k and prefix is not None:
                prefix = next(prefixes, None)
                taken += prefix is not None
        except OutOfTime:
            return Swept(_total(search, base, start, False, stopped="time limit"), parts, depth)
        if prefix is None:  # parts 0 .. taken exist, and no other
            proof = board.done(taken + 1)
            return Swept(_total(search, base, start, proof), parts, depth, proof)
        if clock.passed(until):
            return Swept(_total(search, base, start, False, stopped="time limit"), parts, depth)
        search.below(prefix)
        one = drive(search, until, 1, report)
        if one.found or not one.finished:
            outcome = _total(search, base, start, False, found=one.found, stopped=one.stopped)
            return Swept(outcome, parts, depth)
        parts += 1
        if board.done():
            return Swept(_total(search, base, start, True), parts, depth, True)


def _total(search: Search, base: int, start: float, finished: bool, found: Sequence[np.ndarray] = (),
           stopped: str = "") -> Outcome:
    return Outcome(finished=finished, nodes=base + search.nodes, solutions=len(found), found=Found(found),
                   seconds=clock.now() - start, stopped=stopped)

