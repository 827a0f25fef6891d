"""Driving the compiled loop: state arrays, prefixes, time slices, and the counters people read.

The loop is ``em_search`` in ``ckernel.c``, bound by :mod:`edgematch.solvers.native.kernels`.

:class:`Search` owns one resumable search (optionally below a fixed prefix of placements, which is how
the tree is split for several workers). :func:`drive` runs it in time slices sized from the measured
node rate (about 0.1 s each), so time limits, progress reports and Ctrl-C are handled between slices.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from edgematch import clock
from edgematch.solvers.native import kernels
from edgematch.solvers.native.tables import Tables, shuffled

SLICE_SECONDS = 0.1
TIMED_SLICE = 0.005  # a slice at least this long times the loop's rate (a shorter one is mostly its call's cost)
# nodes of the first slice, before the rate is known (then about SLICE_SECONDS' worth): the plain loop runs
# 30-60 M nodes/s, the one with propagation 0.5-5 M/s on 40x40 (200,000 nodes there took 0.34 s past a limit)
FIRST_BUDGET = 2_000
LEAST_BUDGET = 1_000  # nodes of a slice at least, however slow the loop


class Search:
    """One resumable search over ``tables``, below ``prefix`` (candidate indices of the first positions)."""

    COUNTERS = 3  # NODES, SOLUTIONS, CANONICAL (a subclass whose loop keeps more makes the array longer)

    def __init__(self, tables: Tables, prefix: tuple[int, ...] = (), capacity: int = 0, distinct: bool = False):
        P = tables.positions
        self.tables = tables
        # the arrays the loop writes: owned here, of the loop's exact types, never reallocated
        self.type_left = np.array(tables.type_count, np.int32)
        self.placed = np.array(tables.placed0, np.uint32)
        self.vis = np.array(tables.vis0, np.int32)
        self.picks = np.zeros(max(P, 1), np.uint32)
        self.ptr = np.zeros(P + 1, np.uint32)
        self.end = np.zeros(P + 1, np.uint32)
        self.state = np.zeros(3, np.int64)
        self.counters = np.zeros(self.COUNTERS, np.int64)
        self.out = kernels.empty_out(P, capacity)
        self.distinct = distinct and tables.turn_src.shape[0] > 0
        self.start = len(prefix)
        self.finished = False
        for p, i in enumerate(prefix):
            place(tables, p, i, self.type_left, self.placed, self.vis)
            self.picks[p] = i
        self._step = kernels.bind(tables, self.start, self.distinct, self.type_left, self.placed, self.vis,
                                  self.picks, self.ptr, self.end, self.state, self.out, self.counters,
                                  tables.rows.scratch() if tables.rows is not None else None)

    def below(self, prefix: tuple[int, ...]) -> None:
        """Search again from the start, below another prefix of the same length: the arrays (and the loop bound
        to them) are reused, so a part costs no allocation; the counters go on adding up."""
        if len(prefix) != self.start:
            raise ValueError(f"a prefix of {self.start} placements expected, got {len(prefix)}")
        tables = self.tables
        np.copyto(self.type_left, tables.type_count, casting="unsafe")
        np.copyto(self.placed, tables.placed0, casting="unsafe")
        np.copyto(self.vis, tables.vis0, casting="unsafe")
        self.state[:] = 0
        self.finished = False
        for p, i in enumerate(prefix):
            place(tables, p, i, self.type_left, self.placed, self.vis)
            self.picks[p] = i

    def step(self, budget: int) -> int:
        """Run up to ``budget`` nodes; returns the kernel's code and marks the search finished."""
        code = self._step(budget)
        self.finished = code == kernels.FINISHED
        return code

    def drain(self) -> np.ndarray:
        """The solutions stored since the last drain, one row each (picks per position), in one array: a copy
        per solution cost more than the search on an enumeration (``--all``)."""
        n = int(self.state[kernels.STORED])
        self.state[kernels.STORED] = 0
        return self.out[:n].copy()

    @property
    def nodes(self) -> int:
        return int(self.counters[kernels.NODES])

    @property
    def solutions(self) -> int:
        return int(self.counters[kernels.SOLUTIONS])

    @property
    def canonical(self) -> int:
        return int(self.counters[kernels.CANONICAL])


def distinct_boards(tables: Tables, boards: int, canonical: int) -> int:
    """The distinct boards among ``boards`` a search over ``tables`` met: those its canonical test found least
    among their allowed turns, or every board when an anchor tile folded the board turns away (no turn is left
    to test: each board is then one distinct solution)."""
    return canonical if tables.turn_src.shape[0] else boards


def place(tables: Tables, p: int, i: int, type_left: np.ndarray, placed: np.ndarray, vis: np.ndarray) -> None:
    cell = int(tables.order[p])
    type_left[tables.cand_type[i]] -= 1
    placed[cell * 4: cell * 4 + 4] = tables.cand_edge[i]
    vis[cell * 4: cell * 4 + 4] = tables.cand_vis[i]


def fitting(tables: Tables, p: int, type_left: np.ndarray, placed: np.ndarray) -> list[int]:
    """Candidates that fit position ``p`` given what is placed (the kernel's test, in Python)."""
    b = int(tables.base[p]) + int(placed[tables.key_a[p]]) * (tables.free_label + 1) + int(placed[tables.key_b[p]])
    out = []
    for i in range(tables.tab_start[b], tables.tab_end[b]):
        if type_left[tables.cand_type[i]] == 0:
            continue
        if all(
            tables.cand_edge[i, tables.extra_side[p, x]] == placed[tables.extra_src[p, x]]
            for x in range(tables.extra_n[p])
        ):
            out.append(i)
    return out


def prefixes(tables: Tables, target: int, deadline: float | None = None) -> tuple[list[tuple[int, ...]], int]:
    """Split the tree: all fitting prefixes of the shallowest depth giving at least ``target`` of them
    (never the full depth), or of the deepest level complete when ``deadline`` (a ``clock.now()``
    instant) passes. Returns the prefixes and the nodes spent finding them."""
    level: list[tuple[int, ...]] = [()]
    nodes = 0
    depth = 0
    while len(level) < target and depth < tables.positions - 1:
        nxt = []
        for prefix in level:
            if deadline is not None and clock.now() >= deadline:
                return level, nodes  # every level partitions the tree
            type_left = tables.type_count.copy()
            placed = tables.placed0.copy()
            vis = tables.vis0.copy()
            for p, i in enumerate(prefix):
                place(tables, p, i, type_left, placed, vis)
            nxt.extend(prefix + (i,) for i in fitting(tables, depth, type_left, placed))
        nodes += len(nxt)
        level = nxt
        depth += 1
        if not level:
            break
    return level, nodes


class Found(Sequence[np.ndarray]):
    """The solutions a search stored (picks per position), kept as the blocks it drained them in: an enumeration
    finds millions, and one array per solution cost 100 bytes each and half a second to free when Ctrl-C
    stopped it. Reads as a sequence of rows; :meth:`extend` takes a block or any rows."""

    def __init__(self, rows: Any = ()):
        self.blocks: list[np.ndarray] = []
        self.count = 0
        self.extend(rows)

    def extend(self, rows: Any) -> None:
        """Add a drained block, another :class:`Found`'s blocks, or rows one by one."""
        if isinstance(rows, Found):
            blocks = rows.blocks
        elif isinstance(rows, np.ndarray) and rows.ndim == 2:
            blocks = [rows]
        else:
            listed = [np.asarray(r) for r in rows]
            blocks = [np.array(listed)] if listed else []
        for block in blocks:
            if len(block):
                self.blocks.append(block)
                self.count += len(block)

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[np.ndarray]:
        for block in self.blocks:
            yield from block

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            if (index.start or 0) >= 0 and index.stop is not None and index.stop >= 0 and index.step is None:
                return list(itertools.islice(self, index.start, index.stop))  # [:1] reads one row, not all
            return list(self)[index]
        if index < 0:
            index += self.count
        for block in self.blocks:
            if 0 <= index < len(block):
                return block[index]
            index -= len(block)
        raise IndexError("no such solution")


@dataclass
class Outcome:
    """How a driven search ended."""

    finished: bool
    nodes: int = 0
    solutions: int = 0
    canonical: int = 0
    seconds: float = 0.0
    stopped: str = ""  # "", "time limit", "interrupted", "solution limit"
    started: float = 0.0  # seconds a Dask local cluster took to start, before the time limit began (reported apart)
    closed: float = 0.0  # and to close, after the search ended (reported apart too)
    found: Found = field(default_factory=Found)


def drive(
    search: Search,
    until: float | None = None,
    want: int | None = None,
    progress: Callable[[dict[str, float]], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    node_limit: int | None = None,
) -> Outcome:
    """Run ``search`` in slices until it finishes, ``want`` solutions are stored, the deadline ``until`` (a
    :func:`edgematch.clock.now` instant) passes, ``should_stop()`` says so (another worker found the answer),
    ``node_limit`` nodes are spent, or Ctrl-C."""
    start = clock.now()
    budget = FIRST_BUDGET if node_limit is None else max(1, min(FIRST_BUDGET, node_limit - search.nodes))
    slowest = float("inf")  # the lowest rate of a slice long enough to time: the memo's varies 10x between slices
    found = Found()
    stopped = ""
    try:
        while True:
            t0 = clock.now()
            before = search.nodes
            code = search.step(budget)
            spent = clock.now() - t0
            batch = search.drain()
            found.extend(batch)
            if code == kernels.FINISHED:
                break
            if want is not None and len(found) >= want:
                stopped = "solution limit"
                break
            now = clock.now()
            if progress is not None:
                progress({"nodes": search.nodes, "solutions": search.solutions, "elapsed": now - start})
            if until is not None and now >= until:
                stopped = "time limit"
                break
            if should_stop is not None and should_stop():
                stopped = "stopped"
                break
            if node_limit is not None and search.nodes >= node_limit:
                stopped = "node limit"
                break
            if code == kernels.BUDGET and spent > 0:
                rate = (search.nodes - before) / spent
                if spent >= TIMED_SLICE:
                    slowest = min(slowest, rate)
                budget = int(min(max(rate * SLICE_SECONDS, LEAST_BUDGET), 100_000_000))
                if until is not None:  # half the time left at the slowest rate seen: a slower slice (the memo's
                    # rate varies) still ends near the limit, where workers must report what they searched
                    budget = int(max(LEAST_BUDGET, min(budget, min(rate, slowest) * (until - now) / 2 + 1)))
            if node_limit is not None:
                budget = max(1, min(budget, node_limit - search.nodes))
    except KeyboardInterrupt:
        stopped = "interrupted"
    return Outcome(
        finished=search.finished, nodes=search.nodes, solutions=search.solutions, canonical=search.canonical,
        seconds=clock.now() - start, stopped=stopped, found=found,
    )


def luby(i: int) -> int:
    """The i-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 ...: restart budgets within a
    log factor of the best fixed cutoff, whatever the run-time distribution (Luby, Sinclair, Zuckerman 1993)."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while i != (1 << k) - 1:
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1
    return 1 << (k - 1)


def drive_restarts(
    tables: Tables | Sequence[Tables | Callable[[], Tables]],
    unit: int,
    seed: int = 0,
    until: float | None = None,
    progress: Callable[[dict[str, float]], None] | None = None,
    keep_first: bool = True,
    make: Callable[[Tables], Any] | None = None,
) -> tuple[Outcome, int, Tables]:
    """Look for one solution by restarting: run ``k`` gets ``luby(k) * unit`` nodes with every bucket of
    the candidate tables shuffled (seeded by ``seed`` and ``k``). A backtracker's time to a first solution
    is heavy-tailed in its value order (Gomes, Selman, Kautz 1998); restarting cuts the tail off. Given
    several tables (one per fill order), the runs take them in turn, so an order that is exponentially bad
    on this puzzle costs a bounded share of the time; each order's first run keeps its own candidate order.

    With ``keep_first`` (the default) the search in the first tables' own order is never thrown away: it
    resumes between the restarts, each time for as many nodes as the restart beside it, so the whole costs
    about twice the better of the plain search and the restarts at most (an algorithm portfolio on one
    core). Restarts alone have a tail of their own where the tables' order is lucky and shuffled ones are
    not (measured: 5.5 s against the plain search's 0.06 s on an Eternity II-like 7x7).

    Every run is complete, so one that exhausts its tree proves there is no solution. Tables may be given
    as functions that build them, called when their turn first comes. Returns the outcome, the number of
    restarts (searches started beside the first), and the tables that found it (its picks index them).
    ``make`` builds a search over given tables (default: :class:`Search` keeping one solution), e.g. the
    search with propagation."""
    new = make or (lambda t: Search(t, capacity=1))
    every = [tables] if isinstance(tables, Tables) else list(tables)

    def built(index: int) -> Tables:
        if not isinstance(every[index], Tables):
            every[index] = every[index]()  # type: ignore[operator]
        return every[index]  # type: ignore[return-value]

    start = clock.now()
    total = Outcome(finished=False)
    kept = new(built(0)) if keep_first else None
    run = 0
    while True:
        run += 1
        budget = luby(run) * unit
        which = (run - 1) % len(every)

        def restart(run: int = run, which: int = which) -> tuple[Search, np.ndarray | None, int]:
            if run <= len(every) and not (kept is not None and which == 0):
                return new(built(which)), None, which
            fresh, perm = shuffled(built(which), np.random.default_rng([seed, run]))
            return new(fresh), perm, which

        steps = [lambda: (kept, None, 0)] if kept is not None else []
        for step in [*steps, restart]:  # the restart's tables are shuffled only when its turn comes
            search, mapping, index = step()
            nodes, solutions = search.nodes, search.solutions
            base = total.nodes - nodes

            def report(p: dict[str, float], base: int = base) -> None:
                progress({**p, "nodes": base + p["nodes"], "elapsed": clock.now() - start})  # type: ignore[misc]

            one = drive(search, until, 1, report if progress else None, node_limit=nodes + budget)
            total.nodes += one.nodes - nodes
            total.solutions += one.solutions - solutions
            if one.found or one.finished or one.stopped in ("time limit", "interrupted"):
                total.found = Found([mapping[f] if mapping is not None else f for f in one.found])
                total.finished, total.stopped = one.finished, one.stopped
                total.seconds = clock.now() - start
                return total, run if kept is not None else run - 1, built(index)


def iterate(search: Search, until: float | None = None) -> Iterator[np.ndarray]:
    """Stored solutions one by one, searching lazily (stops at the deadline ``until``)."""
    while not search.finished:
        search.step(1_000_000)
        yield from search.drain()
        if clock.passed(until):
            return
