"""The SAT backend: the Heule-style CNF solved by one of PySAT's solvers, ``sat`` or ``sat:NAME``.

Options: ``one_to_one``, ``forbidden``, ``support``, ``amo``, ``symmetry`` (see encodings/cnf.py).
All solutions by blocking clauses over the board's placement variables.

Time limits: every solve runs in a forked child process that streams each board to the parent as it
is found; the parent stops the child at the limit. This holds for every solver, including those that
ignore PySAT's ``interrupt()`` (MEASURED.md: cadical195 and cadical300 did not stop within 60 s, and
lingeling refuses a limited solve), and nothing already found is lost.
"""

from __future__ import annotations

import time
from typing import Any

from edgematch.core.model import Puzzle
from edgematch.core.symmetry import distinct_key
from edgematch.core.tiletypes import decode, expand, turned_boards
from edgematch.errors import BackendError, UsageError
from edgematch.solvers.base import Backend, Result, Status, Task, Timings, on_off
from edgematch.solvers.processes import context, die_with_parent

DEFAULT_SOLVER = "glucose4"
# the solvers offered: PySAT's, minus those that are not plain CDCL SAT solvers for this use
SOLVERS = ("glucose4", "glucose42", "glucose3", "cadical195", "cadical153", "minisat22", "maplechrono",
           "maplecm", "lingeling", "mergesat3", "minicard")
POLL_SECONDS = 0.05


class SatBackend(Backend):
    name = "sat"
    extra = "sat"
    modules = ("pysat",)
    warm = ("pysat.solvers", "pysat.card", "edgematch.encodings.cnf")
    description = "Heule-style CNF solved by a PySAT solver (sat:glucose4, sat:cadical195, ...)"
    options = ("one_to_one", "forbidden", "support", "amo", "symmetry")

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        from edgematch.encodings.cnf import CnfOptions, encode

        solver = self.sub or DEFAULT_SOLVER
        if solver not in SOLVERS:
            raise UsageError(f"unknown SAT solver {solver!r}; choose one of: {', '.join(SOLVERS)}")
        given = self.checked_options(task)
        flags = {k: on_off(v) for k, v in given.items() if k != "amo"}
        options = CnfOptions(**flags, **({"amo": str(given["amo"])} if "amo" in given else {}))
        started = time.perf_counter()
        enc = encode(puzzle, options)
        build = time.perf_counter() - started
        limit = None if task.time_limit is None else max(0.01, task.time_limit - build)
        want_boards = 1 if task.question == "first" else None

        t0 = time.perf_counter()
        boards, stats, finished, stopped = _run_child(enc, solver, want_boards, limit, task, puzzle)
        solve = time.perf_counter() - t0

        result = Result(
            backend=f"sat:{solver}", status=Status.TIMEOUT, timings=Timings(build=build, solve=solve),
            counters={**stats, **enc.stats, "boards": len(boards)},
            options={"solver": solver, **{k: getattr(options, k) for k in self.options}},
            message=stopped,
        )
        if task.question == "first":
            if boards:
                result.status = Status.SOLVED
                result.solutions = [decode(puzzle, enc.types, boards[0])]
                result.message = ""
            elif finished:
                result.status = Status.UNSAT
            return result
        result.status = (Status.SOLVED if boards else Status.UNSAT) if finished else Status.TIMEOUT
        if task.question == "count" or finished:  # a stopped count is a lower bound; stopped "all" has none
            result.count = len(boards) * enc.turns * enc.types.multiplier
        if task.distinct and result.count is not None:
            result.distinct = len(boards) if enc.turns > 1 else len(
                {distinct_key(puzzle, decode(puzzle, enc.types, b)) for b in boards}
            )
        if task.question == "all":
            for board in boards:
                for turned in turned_boards(puzzle, enc.types, board) if enc.turns > 1 else [board]:
                    for solution in expand(puzzle, enc.types, turned):
                        result.solutions.append(solution)
                        if task.limit is not None and len(result.solutions) >= task.limit:
                            result.status, result.message, result.count = Status.SOLVED, "solution limit", None
                            result.distinct = None
                            return result
        return result


def _child(conn: Any, clauses: list[list[int]], solver: str, want: int | None, enc: Any) -> None:
    """Solve, stream each board to the parent, block it, repeat; then send the solver's counters."""
    from pysat.solvers import Solver

    die_with_parent()  # a killed backend (or bench run) must not leave its solver running
    try:
        with Solver(name=solver, bootstrap_with=clauses) as sat:
            found = 0
            while sat.solve():
                board = enc.decode(sat.get_model())
                conn.send(("board", tuple(board)))
                found += 1
                if want is not None and found >= want:
                    conn.send(("done", sat.accum_stats(), False))
                    return
                blocking = enc.block(board)
                if not blocking:  # nothing free to vary: this was the only board
                    break
                sat.add_clause(blocking)
            conn.send(("done", sat.accum_stats(), True))
    except Exception as exc:  # noqa: BLE001  (reported to the parent as a backend error)
        conn.send(("error", f"{type(exc).__name__}: {exc}", False))


def _run_child(enc: Any, solver: str, want: int | None, limit: float | None, task: Task, puzzle: Puzzle):
    forking = context()
    parent, child = forking.Pipe(duplex=False)
    process = forking.Process(target=_child, args=(child, enc.clauses, solver, want, enc), daemon=True)
    start = time.perf_counter()
    process.start()
    child.close()
    boards: list[tuple] = []
    stats: dict[str, float] = {}
    finished = False
    stopped = ""
    try:
        while True:
            elapsed = time.perf_counter() - start
            if limit is not None and elapsed >= limit:
                stopped = "time limit"
                break
            wait = POLL_SECONDS if limit is None else min(POLL_SECONDS, max(0.0, limit - elapsed))
            if not parent.poll(wait):
                if not process.is_alive() and not parent.poll():
                    raise BackendError(f"sat:{solver}: the solver process died (exit code {process.exitcode})")
                continue
            try:
                kind, payload, *rest = parent.recv()
            except EOFError:
                raise BackendError(f"sat:{solver}: the solver process died (exit code {process.exitcode})") from None
            if kind == "board":
                boards.append(payload)
                if task.progress is not None:
                    task.progress({"nodes": 0, "solutions": len(boards), "elapsed": elapsed})
            elif kind == "done":
                stats, finished = dict(payload), rest[0]
                break
            else:
                raise BackendError(f"sat:{solver}: {payload}")
    except KeyboardInterrupt:
        stopped = "interrupted"
    finally:
        if process.is_alive():
            process.kill()
        process.join(timeout=5)
        parent.close()
    return boards, stats, finished, stopped
