"""The CP-SAT backend: ``cpsat`` (Boolean formulation) or ``cpsat:table``.

Options: ``symmetry`` (default True: fix the board turn with an anchor tile when one exists),
``seed`` (CP-SAT ``random_seed``, default 0). ``workers`` sets ``num_workers`` for a first solution;
enumeration (all solutions, counts) runs on one worker, because parallel enumeration in CP-SAT can
miss solutions (seen here with 9.15: 4 of 5 on a tiny model). Every parameter used is recorded in
``result.options``.
"""

from __future__ import annotations

import time
from typing import Any

from edgematch.core.model import Puzzle
from edgematch.core.symmetry import distinct_key
from edgematch.core.tiletypes import decode, expand, turned_boards
from edgematch.errors import BackendError
from edgematch.solvers.base import Backend, Result, Status, Task, Timings, on_off, whole


class CpsatBackend(Backend):
    name = "cpsat"
    extra = "cpsat"
    modules = ("ortools",)
    warm = ("ortools.sat.python.cp_model", "edgematch.encodings.cpsat")
    description = "OR-tools CP-SAT: Boolean placement model (cpsat) or table model (cpsat:table)"
    options = ("symmetry", "seed")

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        from ortools.sat.python import cp_model

        from edgematch.encodings.cpsat import DEFAULT_FORMULATION, encode

        given = self.checked_options(task)
        symmetry = on_off(given.get("symmetry", True))
        seed = whole(given.get("seed", 0), "seed")
        started = time.perf_counter()
        enc = encode(puzzle, self.sub or DEFAULT_FORMULATION, symmetry)
        build = time.perf_counter() - started

        enumerate_all = task.question != "first"
        solver = cp_model.CpSolver()
        params = solver.parameters
        params.num_workers = 1 if enumerate_all else task.workers
        params.random_seed = seed
        params.enumerate_all_solutions = enumerate_all
        if task.time_limit is not None:
            params.max_time_in_seconds = max(0.01, task.time_limit - build)
        options = {
            "formulation": enc.formulation, "symmetry": symmetry, "anchor": enc.anchor,
            "num_workers": params.num_workers, "random_seed": seed,
            "max_time_in_seconds": params.max_time_in_seconds if task.time_limit is not None else None,
        }

        collector = _collector(enc, task, puzzle)
        t0 = time.perf_counter()
        status = solver.solve(enc.model, collector if enumerate_all else None)
        solve = time.perf_counter() - t0
        name = solver.status_name(status)
        mapped = _STATUS.get(name)
        if mapped is None:
            raise BackendError(f"cpsat: unexpected solver status {name}")

        counters = {
            "conflicts": solver.num_conflicts, "branches": solver.num_branches, "booleans": solver.num_booleans,
            "wall_time": solver.wall_time, **enc.stats,
        }
        result = Result(backend=self.full_name, status=mapped, timings=Timings(build=build, solve=solve),
                        counters=counters, options=options)
        if mapped is Status.ERROR:
            result.message = f"CP-SAT says {name}"
            return result
        if not enumerate_all:
            if mapped is Status.SOLVED:
                result.solutions = [decode(puzzle, enc.types, enc.decode(solver.boolean_value
                                                                        if enc.formulation == "bool"
                                                                        else solver.value))]
            return result

        boards = collector.boards
        complete = name == "OPTIMAL" or name == "INFEASIBLE"
        if collector.stopped:
            result.status = Status.SOLVED
            result.message = "solution limit"
        elif boards:
            result.status = Status.SOLVED if complete else Status.TIMEOUT
        else:
            result.status = Status.UNSAT if complete else Status.TIMEOUT
        counts_known = task.question == "count" or complete
        if counts_known and not collector.stopped:
            result.count = len(boards) * enc.turns * enc.types.multiplier
            if task.distinct:
                result.distinct = len(boards) if enc.turns > 1 else len(
                    {distinct_key(puzzle, decode(puzzle, enc.types, b)) for b in boards}
                )
        if task.question == "all":
            result.solutions = collector.solutions
        counters["boards"] = len(boards)
        return result


_STATUS = {
    "OPTIMAL": Status.SOLVED,     # no objective: OPTIMAL means a solution was found (or all, when enumerating)
    "FEASIBLE": Status.SOLVED,
    "INFEASIBLE": Status.UNSAT,
    "UNKNOWN": Status.TIMEOUT,
    "MODEL_INVALID": Status.ERROR,
}


def _collector(enc: Any, task: Task, puzzle: Puzzle) -> Any:
    """A solution callback collecting the boards an enumeration finds (deduplicated) and, for ``all``,
    the raw solutions (stopping the search at the limit)."""
    from ortools.sat.python import cp_model

    class Collector(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.boards: list[tuple] = []
            self.seen: set[tuple] = set()
            self.solutions: list = []
            self.stopped = False
            self.started = time.perf_counter()

        def on_solution_callback(self) -> None:
            reader = self.boolean_value if enc.formulation == "bool" else self.value
            board = tuple(enc.decode(reader))
            if board in self.seen:
                return
            self.seen.add(board)
            self.boards.append(board)
            if task.question == "all":
                for turned in (turned_boards(puzzle, enc.types, board) if enc.turns > 1 else [board]):
                    for solution in expand(puzzle, enc.types, turned):
                        self.solutions.append(solution)
                        if task.limit is not None and len(self.solutions) >= task.limit:
                            self.stopped = True
                            self.stop_search()
                            return
            if task.progress is not None:
                task.progress({"nodes": 0, "solutions": len(self.boards),
                               "elapsed": time.perf_counter() - self.started})

    return Collector()
