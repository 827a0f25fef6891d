"""The CP-SAT backend: ``cpsat`` (Boolean formulation) or ``cpsat:table``.

Options: ``symmetry`` (default True: fix the board turn with an anchor tile when one exists),
``seed`` (CP-SAT ``random_seed``, default 0). ``workers`` sets ``num_workers`` for a first solution;
enumeration (all solutions, counts) runs on one worker, because parallel enumeration in CP-SAT can
miss solutions (seen here with 9.15: 4 of 5 on a tiny model). Every parameter used is recorded in
``result.options``.

The model is built and solved in a forked child process that streams each board to the parent (as the SAT
backend does): building a large model takes seconds and cannot be stopped from inside, so the time limit
counts from the start of the call and the parent kills the child when it passes; CP-SAT's own
``max_time_in_seconds`` is set to the time left after the build so it normally stops first. Ctrl-C reaches
the parent only (the child ignores it and CP-SAT's ``catch_sigint_signal`` is off); the parent stops the
child and keeps the boards found so far (message ``interrupted``).

``best`` (the best-score question) solves :mod:`~edgematch.encodings.cpsat_best`: a fit literal per inner
seam, maximised. A solution callback in the child sends each better board as CP-SAT finds it; the parent
hands it to ``task.on_improve`` and records (seconds, score) in ``result.history``. ``workers`` > 1 runs
CP-SAT's parallel portfolio (its LNS workers among them). SOLVED when CP-SAT proves the board OPTIMAL,
UNSAT when INFEASIBLE (no admissible board), otherwise TIMEOUT with the best board found; the objective's
proven upper bound is ``counters['bound']``. Options ``symmetry`` and ``seed`` apply; ``cpsat:table`` has
no best model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from edgematch import clock
from edgematch.core.model import Puzzle
from edgematch.core.tiletypes import decode, expand, turned_boards
from edgematch.errors import BackendError, UsageError
from edgematch.solvers.base import INTERRUPTED, TIME_LIMIT, Backend, Result, Status, Task, Timings, on_off, whole
from edgematch.solvers.boards import CUT, counted, expanded, listing_deadline
from edgematch.solvers.improving import Improvements
from edgematch.solvers.parallel.processes import ChildDied, stream

STOP_MARGIN = 0.05  # CP-SAT is told to stop this much before the deadline, so it reports before the kill
# best: above this many placements CP-SAT's presolve is skipped (16x16 E2-like, 155k placements: the first
# board came after 21 s with presolve and 2.3 s without; later improvements were no faster with it)
PRESOLVE_PLACEMENTS = 40_000


class CpsatBackend(Backend):
    name = "cpsat"
    extra = "cpsat"
    modules = ("ortools",)
    warm = ("ortools.sat.python.cp_model", "edgematch.encodings.cpsat", "edgematch.encodings.cpsat_best")
    description = "OR-tools CP-SAT: Boolean placement model (cpsat) or table model (cpsat:table)"
    options = ("symmetry", "seed")
    defaults = {"symmetry": "on", "seed": "0"}
    meanings = {"symmetry": "fix the board's turn with a unique tile", "seed": "CP-SAT's random seed"}
    variants = ("bool", "table")  # the formulations (encodings.cpsat.FORMULATIONS); plain cpsat runs bool
    questions = ("first", "all", "count", "best")

    def __init__(self, sub: str | None = None):
        from edgematch.encodings.cpsat import FORMULATIONS

        if sub is not None and sub not in FORMULATIONS:  # refused by name, before any run is planned
            raise UsageError(f"unknown CP-SAT formulation {sub!r}; choose one of: {', '.join(FORMULATIONS)}")
        super().__init__(sub)

    def refusal(self, task: Task) -> str | None:
        if task.question == "best" and self.sub == "table":
            return "cpsat:table has no best-score model; use cpsat (cpsat:bool)"
        return super().refusal(task)

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        if task.question == "best":
            return self._best(puzzle, task)
        self.warm_up()  # loaded here once, so the child does not pay the imports
        from edgematch.encodings.cpsat import DEFAULT_FORMULATION

        given = self.checked_options(task)
        symmetry = on_off(given.get("symmetry", True), "symmetry")
        seed = whole(given.get("seed", 0), "seed")
        formulation = self.sub or DEFAULT_FORMULATION
        enumerate_all = task.question != "first"
        workers = 1 if enumerate_all else task.workers
        started = clock.now()
        deadline = task.until(started)
        got = _Received(task, started)
        raw_limit = task.limit if task.question == "all" else None
        try:
            stopped = stream(_child, (puzzle, formulation, symmetry, seed, workers, enumerate_all, raw_limit,
                                      deadline), deadline, got.handle)
        except ChildDied as exc:
            stopped, got.message = "error", f"{self.full_name}: {exc}"
        took = clock.now() - started
        build = got.build if got.build is not None else took
        one = f"1 (CP-SAT enumerates on one; {task.workers} asked)"
        options = {
            "formulation": formulation, "symmetry": symmetry, "anchor": got.anchor,
            "num_workers": workers if workers == task.workers else one,
            "random_seed": seed, "max_time_in_seconds": got.max_time,
        }
        counters = {**got.counters, **got.enc_stats, "boards": len(got.boards)}
        result = Result(backend=self.full_name, status=Status.TIMEOUT,
                        timings=Timings(build=build, solve=took - build), counters=counters, options=options,
                        message=got.message or stopped or TIME_LIMIT)
        mapped = _STATUS.get(got.status) if got.status is not None else None
        if stopped == "error" or got.status is not None and mapped is None:
            result.status = Status.ERROR
            result.message = got.message or f"{self.full_name}: unexpected solver status {got.status}"
            return result
        if mapped is Status.ERROR:
            result.status, result.message = Status.ERROR, f"CP-SAT says {got.status}"
            return result
        boards, types, turns = got.boards, got.types, got.turns
        if not enumerate_all:
            if boards:
                result.status, result.message = Status.SOLVED, ""
                result.solutions = [decode(puzzle, types, boards[0])]
            elif mapped is Status.UNSAT:
                result.status, result.message = Status.UNSAT, ""
            return result

        complete = got.status in ("OPTIMAL", "INFEASIBLE") and not stopped
        if got.limit_reached:
            result.status, result.message = Status.SOLVED, "solution limit"
        elif complete:
            result.status, result.message = (Status.SOLVED if boards else Status.UNSAT), ""
        if task.question == "count" or complete and not got.limit_reached:
            result.count, result.distinct = counted(puzzle, types, turns, boards, task.distinct)
        if task.question == "all":
            result.solutions, cut = expanded(puzzle, types, turns, boards, task.limit,
                                             listing_deadline(deadline, stopped))
            if cut and stopped != INTERRUPTED:
                result.status, result.message = Status.TIMEOUT, CUT
        return result


    def _best(self, puzzle: Puzzle, task: Task) -> Result:
        """The best-score question: improving boards streamed from the child, OPTIMAL proven or the best kept."""
        given = self.checked_options(task)
        symmetry = on_off(given.get("symmetry", True), "symmetry")
        seed = whole(given.get("seed", 0), "seed")
        self.warm_up()
        started = clock.now()
        deadline = task.until(started)
        got = Improvements(puzzle, task, started)
        error = ""
        try:
            stopped = stream(_best_child, (puzzle, symmetry, seed, task.workers, deadline), deadline, got.handle)
        except ChildDied as exc:
            stopped, error = "error", f"{self.full_name}: {exc}"
        if got.status is not None and got.status not in _STATUS:
            error = f"{self.full_name}: unexpected solver status {got.status}"
        elif got.status == "MODEL_INVALID":
            error = f"CP-SAT says {got.status}"
        options = {"model": "best", "symmetry": symmetry, "presolve": got.counters.pop("presolve", None),
                   "num_workers": task.workers, "random_seed": seed,
                   "max_time_in_seconds": got.counters.pop("max_time", None)}
        return got.result(self.full_name, stopped, options, error)


_STATUS = {
    "OPTIMAL": Status.SOLVED,     # no objective: OPTIMAL means a solution was found (or all, when enumerating)
    "FEASIBLE": Status.SOLVED,
    "INFEASIBLE": Status.UNSAT,
    "UNKNOWN": Status.TIMEOUT,
    "MODEL_INVALID": Status.ERROR,
}


class _Received:
    """What the child has sent so far: the model's facts, the boards, CP-SAT's status and counters."""

    def __init__(self, task: Task, started: float):
        self.task, self.started = task, started
        self.build: float | None = None
        self.types: Any = None
        self.turns = 1
        self.anchor: int | None = None
        self.max_time: float | None = None
        self.enc_stats: dict[str, float] = {}
        self.boards: list[tuple] = []
        self.status: str | None = None
        self.counters: dict[str, float] = {}
        self.limit_reached = False
        self.message = ""

    def handle(self, message: tuple[str, Any]) -> bool:
        kind, payload = message
        if kind == "built":
            self.build, self.types, self.turns, self.anchor, self.enc_stats, self.max_time = payload
        elif kind == "board":
            self.boards.append(payload)
            if self.task.progress is not None:
                self.task.progress({"nodes": 0, "solutions": len(self.boards),
                                    "elapsed": clock.now() - self.started})
        elif kind == "done":
            self.status, self.counters, self.limit_reached = payload
        return False


def _child(send: Callable[[Any], None], puzzle: Puzzle, formulation: str, symmetry: bool, seed: int, workers: int,
           enumerate_all: bool, raw_limit: int | None, deadline: float | None) -> None:
    """Build the model, solve it, send each new board as it is found, then the status and counters."""
    from ortools.sat.python import cp_model

    from edgematch.encodings.cpsat import encode

    start = clock.now()
    enc = encode(puzzle, formulation, symmetry)
    build = clock.now() - start
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = workers
    params.random_seed = seed
    params.enumerate_all_solutions = enumerate_all
    params.catch_sigint_signal = False  # Ctrl-C is the parent's to handle
    if deadline is not None:
        params.max_time_in_seconds = max(0.01, deadline - clock.now() - STOP_MARGIN)
    max_time = params.max_time_in_seconds if deadline is not None else None
    send(("built", (build, enc.types, enc.turns, enc.anchor, enc.stats, max_time)))
    collector = _collector(enc, puzzle, send, raw_limit) if enumerate_all else None
    status = solver.solve(enc.model, collector)
    name = solver.status_name(status)
    if not enumerate_all and name in ("OPTIMAL", "FEASIBLE"):
        reader = solver.boolean_value if enc.formulation == "bool" else solver.value
        send(("board", tuple(enc.decode(reader))))
    counters = {"conflicts": solver.num_conflicts, "branches": solver.num_branches, "booleans": solver.num_booleans,
                "wall_time": solver.wall_time}
    send(("done", (name, counters, collector is not None and collector.stopped)))


def _collector(enc: Any, puzzle: Puzzle, send: Callable[[Any], None], raw_limit: int | None) -> Any:
    """A solution callback sending each new board an enumeration finds (deduplicated), stopping the search
    once the boards make ``raw_limit`` raw solutions."""
    from ortools.sat.python import cp_model

    class Collector(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.seen: set[tuple] = set()
            self.raw = 0
            self.stopped = False

        def on_solution_callback(self) -> None:
            reader = self.boolean_value if enc.formulation == "bool" else self.value
            board = tuple(enc.decode(reader))
            if board in self.seen:
                return
            self.seen.add(board)
            send(("board", board))
            if raw_limit is not None:
                self.raw += sum(1 for turned in (turned_boards(puzzle, enc.types, board) if enc.turns > 1 else [board])
                                for _ in expand(puzzle, enc.types, turned))
                if self.raw >= raw_limit:
                    self.stopped = True
                    self.stop_search()

    return Collector()


def _best_child(send: Callable[[Any], None], puzzle: Puzzle, symmetry: bool, seed: int, workers: int,
                deadline: float | None) -> None:
    """Build the best-score model and maximise it, sending each better board (with its score) as CP-SAT finds
    it, then the status, the counters and the proven bound on the score."""
    from ortools.sat.python import cp_model

    from edgematch.encodings.cpsat_best import encode_best

    start = clock.now()
    enc = encode_best(puzzle, symmetry)
    space = enc.space
    send(("built", (clock.now() - start, space.types, enc.stats)))
    if enc.unsat:
        send(("done", ("INFEASIBLE", {})))
        return
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = workers
    params.random_seed = seed
    params.catch_sigint_signal = False  # Ctrl-C is the parent's to handle
    params.cp_model_presolve = space.placements <= PRESOLVE_PLACEMENTS
    if deadline is not None:
        params.max_time_in_seconds = max(0.01, deadline - clock.now() - STOP_MARGIN)
    best = [-1]

    def offer(board: tuple) -> None:
        score = space.score(board)
        if score > best[0]:
            best[0] = score
            send(("board", (board, score)))

    if enc.start is not None:
        offer(tuple(enc.start))  # the greedy board CP-SAT is hinted with: a board from the first second

    class Improving(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            offer(tuple(enc.decode(self.boolean_value)))

    status = solver.solve(enc.model, Improving())
    name = solver.status_name(status)
    if name in ("OPTIMAL", "FEASIBLE"):
        offer(tuple(enc.decode(solver.boolean_value)))
        claimed = round(solver.objective_value) + space.constant
        if name == "OPTIMAL" and claimed != best[0]:
            raise BackendError(f"CP-SAT's optimum {claimed} is not the score of its board ({best[0]})")
    counters: dict[str, float] = {
        "conflicts": solver.num_conflicts, "branches": solver.num_branches, "booleans": solver.num_booleans,
        "wall_time": solver.wall_time}
    if name in ("OPTIMAL", "FEASIBLE", "UNKNOWN"):
        counters["bound"] = min(puzzle.seam_count, round(solver.best_objective_bound) + space.constant)
    counters["presolve"] = params.cp_model_presolve
    if deadline is not None:
        counters["max_time"] = params.max_time_in_seconds
    send(("done", (name, counters)))
