"""The native backend: a compiled (numba) backtracker over precomputed candidate tables.

Options: ``order`` (``row`` default, ``spiral``, ``frame``). ``workers=N`` splits the tree by prefixes
(:mod:`edgematch.solvers.native.parts`) and runs the parts in separate processes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from itertools import islice

from edgematch.core.model import Puzzle, Solution
from edgematch.errors import UsageError
from edgematch.solvers.base import Backend, Result, Status, Task, Timings
from edgematch.solvers.native.tables import DEFAULT_ORDER, ORDERS, Tables, build_tables, decode, expand

BUFFER = 4096  # solutions the loop stores before handing them over


class NativeBackend(Backend):
    name = "native"
    extra = None
    modules = ("numba",)
    description = "compiled backtracker (numba): row-scan candidate tables, identical tiles grouped"
    options = ("order",)

    def warm_up(self) -> None:
        from edgematch.solvers.native.compiled import ensure_compiled

        ensure_compiled()

    def prepare(self, puzzle: Puzzle, task: Task) -> tuple[Tables, float, float]:
        """Tables for the puzzle, the seconds to build them, and to load or compile the loop."""
        from edgematch.solvers.native.compiled import ensure_compiled

        t0 = time.perf_counter()
        order = str(self.checked_options(task).get("order", DEFAULT_ORDER))
        if order not in ORDERS:
            raise UsageError(f"native backend: unknown order {order!r}; choose one of: {', '.join(ORDERS)}")
        tables = build_tables(puzzle, order)
        build = time.perf_counter() - t0
        return tables, build, ensure_compiled()

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        from edgematch.solvers.native import parts
        from edgematch.solvers.native.search import Search, drive

        tables, build, compile_s = self.prepare(puzzle, task)
        if tables.positions == 0:
            return self._all_hinted(puzzle, tables, task, build)
        want = {"first": 1, "all": task.limit, "count": None}[task.question]
        capacity = {"first": 1, "all": min(want or BUFFER, BUFFER), "count": 0}[task.question]
        t0 = time.perf_counter()
        if task.workers > 1:
            outcome = parts.run_parallel(puzzle, tables, task, want, capacity)
        else:
            search = Search(tables, capacity=capacity, distinct=task.distinct)
            outcome = drive(search, task.time_limit, want, task.progress)
        solve = time.perf_counter() - t0

        raw = outcome.solutions * tables.raw_multiplier
        if task.question == "first":
            solutions = [decode(puzzle, tables, picks) for picks in outcome.found[:1]]
        else:
            every = (sol for picks in outcome.found for sol in expand(puzzle, tables, picks))
            solutions = list(islice(every, want))
        if outcome.found or raw:
            done = outcome.finished or outcome.stopped == "solution limit" or task.question == "first"
            status = Status.SOLVED if done else Status.TIMEOUT
        else:
            status = Status.UNSAT if outcome.finished else Status.TIMEOUT
        counted = task.question == "count" or (task.question == "all" and outcome.finished)
        distinct = None
        if counted and task.distinct:
            distinct = outcome.canonical if tables.turn_src.shape[0] else outcome.solutions
        rate = outcome.nodes / outcome.seconds if outcome.seconds > 0 else 0.0
        return Result(
            backend=self.full_name, status=status, solutions=solutions,
            count=raw if counted else None, distinct=distinct,
            timings=Timings(build=build, solve=solve),
            counters={
                "nodes": outcome.nodes, "boards": outcome.solutions, "nodes_per_second": rate,
                "load_seconds": compile_s, "workers": task.workers, "positions": tables.positions,
                "candidates": len(tables.cand_type), "raw_per_board": tables.raw_multiplier,
            },
            options={"order": tables.order_name, "workers": task.workers},
            message="" if task.question == "first" and outcome.stopped == "solution limit" else outcome.stopped,
        )

    def _all_hinted(self, puzzle: Puzzle, tables: Tables, task: Task, build: float) -> Result:
        """Every cell fixed by a hint: the hints are the one solution (the model already checked they fit)."""
        solution = decode(puzzle, tables, tables.order)
        return Result(
            backend=self.full_name, status=Status.SOLVED, solutions=[solution],
            count=1 if task.question != "first" else None,
            distinct=1 if task.distinct and task.question != "first" else None,
            timings=Timings(build=build), counters={"nodes": 0},
            options={"order": tables.order_name},
        )

    def iter_solutions(self, puzzle: Puzzle, task: Task) -> Iterator[Solution]:
        from edgematch.solvers.native.search import Search, iterate

        tables, _, _ = self.prepare(puzzle, task)
        if tables.positions == 0:
            yield from self._all_hinted(puzzle, tables, task, 0.0).solutions
            return
        for picks in iterate(Search(tables, capacity=256), task.time_limit):
            yield from expand(puzzle, tables, picks)
