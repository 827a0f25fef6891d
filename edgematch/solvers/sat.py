"""The SAT backend: the Heule-style CNF solved by one of PySAT's solvers, ``sat`` or ``sat:NAME``.

Options: ``one_to_one``, ``forbidden``, ``support``, ``amo``, ``symmetry`` (see encodings/cnf.py).
All solutions by blocking clauses over the board's placement variables.

Time limits: the CNF is built and solved in a forked child process that streams each board to the parent as
it is found; the parent kills the child at the limit, which counts from the start of the call (building a
large CNF takes seconds). This holds for every solver, including those that ignore PySAT's ``interrupt()``
(MEASURED.md: cadical195 and cadical300 did not stop within 60 s, and lingeling refuses a limited solve), and
nothing already found is lost. Ctrl-C stops the child the same way (message ``interrupted``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from edgematch.core.model import Puzzle
from edgematch.core.symmetry import distinct_key
from edgematch.core.tiletypes import decode, expand, turned_boards
from edgematch.errors import UsageError
from edgematch.solvers.base import Backend, Result, Status, Task, Timings, on_off
from edgematch.solvers.processes import ChildDied, stream

DEFAULT_SOLVER = "glucose4"
# the solvers offered: PySAT's, minus those that are not plain CDCL SAT solvers for this use
SOLVERS = ("glucose4", "glucose42", "glucose3", "cadical195", "cadical153", "minisat22", "maplechrono",
           "maplecm", "lingeling", "mergesat3", "minicard")




class SatBackend(Backend):
    name = "sat"
    extra = "sat"
    modules = ("pysat",)
    warm = ("pysat.solvers", "pysat.card", "edgematch.encodings.cnf")
    description = "Heule-style CNF solved by a PySAT solver (sat:glucose4, sat:cadical195, ...)"
    options = ("one_to_one", "forbidden", "support", "amo", "symmetry")

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        from edgematch.encodings.cnf import CnfOptions

        solver = self.sub or DEFAULT_SOLVER
        if solver not in SOLVERS:
            raise UsageError(f"unknown SAT solver {solver!r}; choose one of: {', '.join(SOLVERS)}")
        given = self.checked_options(task)
        flags = {k: on_off(v) for k, v in given.items() if k != "amo"}
        options = CnfOptions(**flags, **({"amo": str(given["amo"])} if "amo" in given else {}))
        self.warm_up()  # loaded here once, so the child does not pay the imports
        started = time.monotonic()
        deadline = None if task.time_limit is None else started + task.time_limit
        want_boards = 1 if task.question == "first" else None
        got = _Received(task, started)
        try:
            stopped = stream(_child, (puzzle, options, solver, want_boards), deadline, got.handle)
        except ChildDied as exc:
            stopped = "error"
            got.message = f"sat:{solver}: {exc}"
        took = time.monotonic() - started
        build = got.build if got.build is not None else took
        boards, finished = got.boards, got.finished and not stopped

        result = Result(
            backend=f"sat:{solver}", status=Status.TIMEOUT, timings=Timings(build=build, solve=took - build),
            counters={**got.stats, **got.enc_stats, "boards": len(boards)},
            options={"solver": solver, **{k: getattr(options, k) for k in self.options}},
            message=got.message or stopped,
        )
        if stopped == "error":
            result.status = Status.ERROR
        if got.types is None:  # stopped while building: nothing found
            if task.question == "count":
                result.count = 0
                result.distinct = 0 if task.distinct else None
            return result
        types, turns = got.types, got.turns
        if task.question == "first":
            if boards:
                result.status = Status.SOLVED
                result.solutions = [decode(puzzle, types, boards[0])]
                result.message = ""
            elif finished:
                result.status = Status.UNSAT
            return result
        if finished:
            result.status = Status.SOLVED if boards else Status.UNSAT
        if task.question == "count" or finished:  # a stopped count is a lower bound; stopped "all" has none
            result.count = len(boards) * turns * types.multiplier
        if task.distinct and result.count is not None:
            result.distinct = len(boards) if turns > 1 else len(
                {distinct_key(puzzle, decode(puzzle, types, b)) for b in boards}
            )
        if task.question == "all":
            for board in boards:
                for turned in turned_boards(puzzle, types, board) if turns > 1 else [board]:
                    for solution in expand(puzzle, types, turned):
                        result.solutions.append(solution)
                        if task.limit is not None and len(result.solutions) >= task.limit:
                            result.status, result.message, result.count = Status.SOLVED, "solution limit", None
                            result.distinct = None
                            return result
        return result


class _Received:
    """What the child has sent so far: the encoding's facts, the boards, the solver's final counters."""

    def __init__(self, task: Task, started: float):
        self.task, self.started = task, started
        self.build: float | None = None
        self.types: Any = None
        self.turns = 1
        self.enc_stats: dict[str, float] = {}
        self.boards: list[tuple] = []
        self.stats: dict[str, float] = {}
        self.finished = False
        self.message = ""

    def handle(self, message: tuple[str, Any]) -> bool:
        kind, payload = message
        if kind == "built":
            self.build, self.types, self.turns, self.enc_stats = payload
        elif kind == "board":
            self.boards.append(payload)
            if self.task.progress is not None:
                self.task.progress({"nodes": 0, "solutions": len(self.boards),
                                    "elapsed": time.monotonic() - self.started})
        elif kind == "done":
            self.stats, self.finished = dict(payload[0]), payload[1]
        return False


def _child(send: Callable[[Any], None], puzzle: Puzzle, options: Any, solver: str, want: int | None) -> None:
    """Build the CNF, then solve, send each board, block it, repeat; then send the solver's counters."""
    from pysat.solvers import Solver

    from edgematch.encodings.cnf import encode

    start = time.perf_counter()
    enc = encode(puzzle, options)
    send(("built", (time.perf_counter() - start, enc.types, enc.turns, enc.stats)))
    with Solver(name=solver, bootstrap_with=enc.clauses) as sat:
        found = 0
        while sat.solve():
            board = enc.decode(sat.get_model())
            send(("board", tuple(board)))
            found += 1
            if want is not None and found >= want:
                send(("done", (sat.accum_stats(), False)))
                return
            blocking = enc.block(board)
            if not blocking:  # nothing free to vary: this was the only board
                break
            sat.add_clause(blocking)
        send(("done", (sat.accum_stats(), True)))
