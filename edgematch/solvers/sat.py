"""The SAT backend: the Heule-style CNF solved by one of PySAT's solvers, ``sat`` or ``sat:NAME``.

Options: ``one_to_one``, ``forbidden``, ``support``, ``amo``, ``symmetry`` (see encodings/cnf.py).
All solutions by blocking clauses over the board's placement variables.

``cubes=N`` (a first solution): cube-and-conquer (:mod:`edgematch.solvers.cubes`): the native search's prefixes
become at least N cubes of placement literals, solved one after another under assumptions by one incremental
solver per worker; ``workers=N`` runs N such workers on a shared queue of cubes, a cluster (``task.cluster``)
runs batches of cubes as Dask tasks. Without the option, one worker solves the CNF whole, and more workers or a
cluster split it into :data:`CUBES_PER_WORKER` cubes per worker.

Time limits: the CNF is built and solved in a forked child process that streams each board to the parent as
it is found; the parent kills the child at the limit, which counts from the start of the call (building a
large CNF takes seconds). This holds for every solver, including those that ignore PySAT's ``interrupt()``
(MEASURED.md: cadical195 and cadical300 did not stop within 60 s, and lingeling refuses a limited solve), and
nothing already found is lost. Ctrl-C stops the child the same way (message ``interrupted``).

``best`` (the best-score question) solves :mod:`~edgematch.encodings.cnf_best`: hard clauses for an
admissible board, a soft unit per seam-fits literal. The greedy board (:func:`~edgematch.encodings.best.greedy`)
is streamed first and sets the solver's phases. Then one of two searches (option ``maxsat``):
- ``rc2`` (the default): PySAT's core-guided MaxSAT solver RC2 (``pysat.examples.rc2``, adapt + exhaust +
  minz). It reports only the optimum, at the end (SOLVED); until then the greedy board is what a time
  limit keeps.
- ``linear``: SAT-UNSAT search. Demand strictly more fitting seams than the best board so far (an
  incremental totalizer over the fit literals, ``pysat.card.ITotalizer``, tightened by one unit clause per
  step) and solve again, until UNSAT proves the last board optimal (SOLVED). Anytime: every better board is
  streamed to the parent as it is found.
Measured (``benchmarks/best_cpsat_sat.py``, glucose4, one core, 60 s, E2-like framed boards seeds 1-2):
RC2 proves the optimum up to 6x6 (4x4 and 5x5 in 0.0-0.1 s, 6x6 in 4.9 and 16.6 s); linear up to 5x5
(0.0-0.9 s) and stops at 58/60 on 6x6. On 7x7 (seed 1) linear is the better anytime search (74/84 against
RC2's greedy 63/84; cpsat 77/84); on 16x16 (seeds 1-3) neither improves on the greedy board within 60 s
(mean 385.3/480; cpsat 387.3). RC2 is the default: it proves a size more, and loses nothing on large boards.
Options ``symmetry`` and ``amo`` apply to ``best``; ``one_to_one``, ``forbidden``, ``support`` and ``proof``
shape seam clauses the best-score CNF does not have, and are refused for it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from edgematch import clock
from edgematch.core.model import Puzzle
from edgematch.core.tiletypes import decode
from edgematch.errors import BackendError, UsageError
from edgematch.formats.source import remove_leftovers, writable, writing
from edgematch.solvers.base import INTERRUPTED, Backend, Result, Status, Task, Timings, on_off
from edgematch.solvers.boards import CUT, counted, expanded, listing_deadline
from edgematch.solvers.cubes import conquer_child, cube_count
from edgematch.solvers.improving import INFEASIBLE, OPTIMAL, Improvements
from edgematch.solvers.parallel.processes import ChildDied, stream

DEFAULT_SOLVER = "glucose4"
MAXSAT = ("rc2", "linear")  # the best-score searches; the first is the default
BEST_OPTIONS = ("symmetry", "amo", "maxsat")  # the options that shape the best-score search
CNF_OPTIONS = ("one_to_one", "forbidden", "support", "amo", "symmetry")  # the options of encodings.cnf
# the solvers offered: PySAT's, minus those that are not plain CDCL SAT solvers for this use
SOLVERS = ("glucose4", "glucose42", "glucose3", "cadical195", "cadical153", "minisat22", "maplechrono",
           "maplecm", "lingeling", "mergesat3", "minicard")
CUBES_PER_WORKER = 128  # cubes=N unset, several workers or a cluster: this many per worker (2 workers: the
# measured 256, see edgematch.solvers.cubes)
# the solvers that can log a DRAT proof of unsatisfiability through PySAT (minisat22, mergesat3 and minicard
# cannot: PySAT raises NotImplementedError)
PROOF_SOLVERS = ("glucose4", "glucose42", "glucose3", "cadical195", "cadical153", "maplechrono", "maplecm",
                 "lingeling")




class SatBackend(Backend):
    name = "sat"
    extra = "sat"
    modules = ("pysat",)
    warm = ("pysat.solvers", "pysat.card", "edgematch.encodings.cnf", "edgematch.encodings.cnf_best")
    description = ("Heule-style CNF solved by a PySAT solver (sat:glucose4, sat:cadical195, ...); cubes=N: "
                   "cube-and-conquer (the native search's prefixes as assumptions), on --workers or a cluster")
    options = ("one_to_one", "forbidden", "support", "amo", "symmetry", "proof", "maxsat", "cubes")
    defaults = {"one_to_one": "on", "forbidden": "on", "support": "on", "amo": "seqcounter", "symmetry": "on",
                "proof": "none", "maxsat": MAXSAT[0],
                "cubes": f"off (solve with --workers N or a cluster: {CUBES_PER_WORKER} per worker)"}
    meanings = {
        "one_to_one": "clauses: at most as many cells per tile type as copies (the piece mapping)",
        "forbidden": "clauses: at most one label per seam (forbidden label pairs)",
        "support": "clauses: a label on a seam needs a placement showing it on each side",
        "amo": "the at-most-one encoding: pairwise, seqcounter, ladder, totalizer, bitwise, ...",
        "symmetry": "fix the board's turn with a unique tile",
        "proof": "a file for the solver's DRAT proof when there is no solution (also --proof)",
        "maxsat": "best: rc2 (MaxSAT) or linear (a SAT-UNSAT search with a totalizer)",
        "cubes": "cube-and-conquer: the number of cubes (2 or more) or off",
    }
    variants = SOLVERS
    questions = ("first", "all", "count", "best")
    on_cluster = True  # a first solution by cube-and-conquer (edgematch.solvers.cubes)

    def __init__(self, sub: str | None = None):
        if sub is not None and sub not in SOLVERS:  # refused by name, before any run is planned
            raise UsageError(f"unknown SAT solver {sub!r}; choose one of: {', '.join(SOLVERS)}")
        super().__init__(sub)

    def refusal(self, task: Task) -> str | None:
        problem = super().refusal(task)
        if problem:
            return problem
        if task.question == "best":
            extra = sorted(set(task.options) - set(BEST_OPTIONS))
            if extra:
                return (f"{self.full_name} backend: option(s) {', '.join(extra)} do not apply to the best-score "
                        f"search (it takes {', '.join(BEST_OPTIONS)})")
        elif "maxsat" in task.options:
            return f"{self.full_name} backend: option maxsat applies to the best-score search only"
        if task.question != "first":
            if "cubes" in task.options:
                return f"{self.full_name} backend: option cubes applies to a first solution (solve) only"
            if task.cluster is not None:
                return (f"{self.full_name} backend: on a cluster it finds a first solution (solve, by "
                        f"cube-and-conquer); native's count, --all and best run on a cluster")
            return None
        try:
            cubes = cube_count(task.options["cubes"]) if "cubes" in task.options else None
        except UsageError as exc:
            return f"{self.full_name} backend: {exc}"
        if cubes is None and "cubes" in task.options and (task.workers > 1 or task.cluster is not None):
            return f"{self.full_name} backend: cubes=off runs one solver; more workers or a cluster need cubes"
        if "proof" in task.options and (cubes is not None or task.workers > 1 or task.cluster is not None):
            return f"{self.full_name} backend: a proof comes from one solver on the whole CNF, not from cubes"
        return None

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        from edgematch.encodings.cnf import CnfOptions

        if task.question == "best":
            return self._best(puzzle, task)

        solver = self.sub or DEFAULT_SOLVER
        given = self.checked_options(task)
        cubes = self._cubes(given.pop("cubes", None), task)
        proof = _proof_paths(given.pop("proof", None), solver, task)
        flags = {k: on_off(v, k) for k, v in given.items() if k != "amo"}
        options = CnfOptions(**flags, **({"amo": str(given["amo"])} if "amo" in given else {}))
        self.warm_up()  # loaded here once, so the child does not pay the imports
        started = clock.now()
        deadline = task.until(started)
        # every board the CNF finds expands to at least one solution: --all -n N needs N boards at most
        want_boards = 1 if task.question == "first" else task.limit if task.question == "all" else None
        got = _Received(task, started)
        if task.cluster is not None:
            return self._on_cluster(puzzle, task, options, solver, started)
        began = time.time()  # the proof's temporary files are newer than this (the wall clock, as files are)
        try:
            if cubes is None:
                stopped = stream(_child, (puzzle, options, solver, want_boards, proof), deadline, got.handle)
            else:
                stopped = stream(conquer_child, (puzzle, options, solver, cubes, task.workers, deadline), deadline,
                                 got.handle)
        except ChildDied as exc:
            stopped = "error"
            got.message = f"sat:{solver}: {exc}"
        if proof is not None and stopped:  # killed (time limit, Ctrl-C) or dead, perhaps in the middle of a write
            remove_leftovers(proof, began)
        took = clock.now() - started
        build = got.build if got.build is not None else took
        boards, finished = got.boards, got.finished and not stopped

        result = Result(
            backend=f"sat:{solver}", status=Status.TIMEOUT, timings=Timings(build=build, solve=took - build),
            # cubes: 0 until the plan is made (a limit that ends first leaves none, not a missing counter)
            counters={**got.stats, **got.enc_stats, "boards": len(boards),
                      **({"cubes": 0} if cubes is not None else {}), **got.cube_stats},
            options={"solver": solver, **{k: getattr(options, k) for k in CNF_OPTIONS},
                     **({"cubes": cubes, "workers": task.workers} if cubes is not None else
                        {"workers": f"1 (one solver enumerates; {task.workers} asked)"} if task.workers > 1 else {})},
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
                if proof is not None:
                    result.options["proof"] = str(proof[0])
                    result.message = (f"DRAT proof of no solution in {proof[0]} for the CNF in {proof[1]} "
                                      f"(check it with drat-trim or dratify)")
            elif proof is not None:
                result.message = result.message or "no proof written: the search did not finish"
            if boards and proof is not None:
                result.message = "no proof written: there is a solution (the checker proves it)"
            if got.lost is not None and stopped != INTERRUPTED:  # dead cube workers: the others went on, or none
                failed, notes = got.lost
                if failed:  # every one died with cubes left: no answer, and none proven
                    result.status = Status.ERROR
                result.message = "; ".join(m for m in (result.message, notes) if m)
            return result
        if finished:
            result.status = Status.SOLVED if boards else Status.UNSAT
        if task.question == "count" or finished:  # a stopped count is a lower bound; stopped "all" has none
            result.count, result.distinct = counted(puzzle, types, turns, boards, task.distinct)
        if task.question == "all":
            result.solutions, cut = expanded(puzzle, types, turns, boards, task.limit,
                                             listing_deadline(deadline, stopped))
            if cut and stopped != INTERRUPTED:
                result.status, result.message = Status.TIMEOUT, CUT
            elif task.limit is not None and len(result.solutions) >= task.limit:
                result.status, result.message = Status.SOLVED, "solution limit"
                result.count = result.distinct = None
        return result


    @staticmethod
    def _cubes(given: object, task: Task) -> int | None:
        """How many cubes to split a first solution into (None: solve the CNF whole): the option, else
        :data:`CUBES_PER_WORKER` per worker when there are several workers or a cluster."""
        if given is not None:
            return cube_count(given)
        if task.question == "first" and (task.workers > 1 or task.cluster is not None):
            return CUBES_PER_WORKER * task.workers
        return None

    def _on_cluster(self, puzzle: Puzzle, task: Task, options: Any, solver: str, started: float) -> Result:
        """A first solution by cube-and-conquer on ``task.cluster`` (batches of cubes as Dask tasks). Without
        the option, :data:`CUBES_PER_WORKER` cubes per worker thread of the cluster."""
        from edgematch.solvers.cubes import run_cluster
        from edgematch.solvers.parallel.cluster import describe

        cubes = cube_count(task.options["cubes"]) if "cubes" in task.options else None
        got = run_cluster(puzzle, options, solver, cubes, task.cluster, task.until(started), CUBES_PER_WORKER)
        # the cluster's start and close are reported apart
        took = clock.now() - started - got.counters.get("cluster_start_seconds", 0.0) \
            - got.counters.get("cluster_close_seconds", 0.0)
        result = Result(
            backend=f"sat:{solver}", status=Status.TIMEOUT, timings=Timings(build=0.0, solve=took),
            counters=dict(got.counters),
            options={"solver": solver, **{k: getattr(options, k) for k in CNF_OPTIONS},
                     "cubes": int(got.counters.get("cubes_asked", 0)), "cluster": describe(task.cluster)},
        )
        if got.board is not None:
            result.status = Status.SOLVED
            result.solutions = [decode(puzzle, got.types, got.board)]
        elif got.finished:
            result.status = Status.UNSAT
        elif got.lost and not got.stopped:  # every other batch settled: neither an answer nor its absence
            result.status = Status.ERROR
        else:
            result.message = got.stopped or "time limit"
        if got.lost:
            notes = "; ".join(got.lost) + ("; the others went on" if got.board is not None or got.stopped else
                                            "; the others went on, so neither a solution nor its absence is proven")
            result.message = "; ".join(m for m in (result.message, notes) if m)
        return result

    def _best(self, puzzle: Puzzle, task: Task) -> Result:
        """The best-score question: better boards streamed from the child, until optimal or stopped."""
        from edgematch.encodings.cnf import AMO_ENCODINGS

        solver = self.sub or DEFAULT_SOLVER
        given = self.checked_options(task)
        symmetry = on_off(given.get("symmetry", True), "symmetry")
        amo = str(given.get("amo", "seqcounter"))
        if amo not in AMO_ENCODINGS:
            raise UsageError(f"unknown at-most-one encoding {amo!r}; choose one of: {', '.join(AMO_ENCODINGS)}")
        mode = str(given.get("maxsat", MAXSAT[0]))
        if mode not in MAXSAT:
            raise UsageError(f"unknown maxsat search {mode!r}; choose one of: {', '.join(MAXSAT)}")
        self.warm_up()
        started = clock.now()
        deadline = task.until(started)
        got = Improvements(puzzle, task, started)
        error = ""
        try:
            stopped = stream(_best_child, (puzzle, solver, mode, symmetry, amo), deadline, got.handle)
        except ChildDied as exc:
            stopped, error = "error", f"sat:{solver}: {exc}"
        options = {"solver": solver, "maxsat": mode, "symmetry": symmetry, "amo": amo,
                   **({"workers": f"1 (one solver improves the board; {task.workers} asked)"} if task.workers > 1
                      else {})}
        return got.result(f"sat:{solver}", stopped, options, error)


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
        self.cube_stats: dict[str, float] = {}  # cube-and-conquer: the plan's counters and the cubes settled
        self.finished = False
        self.message = ""
        self.lost: tuple[bool, str] | None = None

    def handle(self, message: tuple[str, Any]) -> bool:
        kind, payload = message
        if kind == "built":
            self.build, self.types, self.turns, self.enc_stats = payload
        elif kind == "board":
            self.boards.append(payload)
            if self.task.progress is not None:
                self.task.progress({"nodes": 0, "solutions": len(self.boards),
                                    "elapsed": clock.now() - self.started})
        elif kind == "done":
            self.stats, self.finished = dict(payload[0]), payload[1]
        elif kind == "cubes":
            self.cube_stats.update(payload)
            self.cube_stats.setdefault("cubes_unsat", 0)
        elif kind == "cube":
            self.cube_stats["cubes_unsat"] = self.cube_stats.get("cubes_unsat", 0) + payload
        elif kind == "lost":  # cube workers died: (whether every one did with cubes left, the words)
            self.lost = payload
        return False


def _proof_paths(given: object, solver: str, task: Task) -> tuple[Path, Path] | None:
    """Where a DRAT proof of "no solution" goes, and the CNF it refutes beside it (``p.drat`` -> ``p.cnf``)."""
    if given is None:
        return None
    if task.question != "first":
        raise UsageError("a proof goes with finding a solution (solve): an enumeration ends unsatisfiable "
                         "only because of its own blocking clauses")
    if solver not in PROOF_SOLVERS:
        raise UsageError(f"sat:{solver} cannot log a proof; these can: {', '.join(PROOF_SOLVERS)}")
    path = Path(str(given))
    cnf = path.with_suffix(".cnf")
    if cnf == path:
        raise UsageError(f"proof file {path}: give it another suffix (.drat): the CNF is written as {cnf}")
    writable(path)  # a link, pipe or device there is refused before the search, not after it
    writable(cnf)
    return path, cnf


def _write(path: Path, lines: Iterable[str]) -> None:
    """Write whole or not at all (a run killed at its limit leaves no half proof), through the one safe
    writer: a fresh temporary file renamed over ``path``, which must be missing or a regular file."""
    with writing(path, encoding="ascii") as out:
        for line in lines:
            out.write(line)
            out.write("\n")


def _child(send: Callable[[Any], None], puzzle: Puzzle, options: Any, solver: str, want: int | None,
           proof: tuple[Path, Path] | None) -> None:
    """Build the CNF, then solve, send each board, block it, repeat; then send the solver's counters.
    With ``proof``, an unsatisfiable first solve writes the solver's DRAT proof and the CNF it refutes."""
    from pysat.solvers import Solver

    from edgematch.encodings.cnf import encode, to_dimacs

    start = clock.now()
    enc = encode(puzzle, options)
    send(("built", (clock.now() - start, enc.types, enc.turns, enc.stats)))
    with Solver(name=solver, bootstrap_with=enc.clauses, with_proof=proof is not None) as sat:
        found = 0
        satisfiable = sat.solve()
        if proof is not None and not satisfiable:
            _write(proof[1], [to_dimacs(enc, puzzle.name or "edgematch puzzle").rstrip("\n")])
            steps = sat.get_proof() or []
            if not steps or steps[-1].strip() != "0":  # maplecm stops short of the empty clause: a RUP step
                steps.append("0")                         # any checker verifies, never taken on trust
            _write(proof[0], steps)
        while satisfiable:
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
            satisfiable = sat.solve()
        send(("done", (sat.accum_stats(), True)))


def _best_child(send: Callable[[Any], None], puzzle: Puzzle, solver: str, mode: str, symmetry: bool,
                amo: str) -> None:
    """Build the best-score CNF, find a board, then improve it (``linear`` or ``rc2``), sending each better
    board with its score; then the status (OPTIMAL, or INFEASIBLE when no board exists) and counters."""
    from pysat.solvers import Solver

    from edgematch.encodings.best import greedy
    from edgematch.encodings.cnf_best import encode_best

    start = clock.now()
    enc = encode_best(puzzle, symmetry, amo)
    space = enc.space
    send(("built", (clock.now() - start, space.types, enc.stats)))
    best = -1

    def offer(model: list[int]) -> int:
        nonlocal best
        board = tuple(enc.decode(model))
        score = space.score(board)
        if score > best:
            best = score
            send(("board", (board, score)))
        return score

    counters: dict[str, float] = {"soft": len(enc.soft)}
    start_board = greedy(space)
    with Solver(name=solver, bootstrap_with=enc.hard) as sat:
        if start_board is not None:  # an admissible board at once, and the first bound of the linear search
            send(("board", (tuple(start_board), space.score(start_board))))
            best = space.score(start_board)
            with contextlib.suppress(NotImplementedError):  # a solver without phases starts anywhere
                sat.set_phases([var for var, (c, t, r) in enc.placements.items() if start_board[c] == (t, r)])
        elif not sat.solve():
            send(("done", (INFEASIBLE, {**counters, **sat.accum_stats()})))
            return
        else:
            offer(sat.get_model())
        if mode == "linear":
            steps = _linear(sat, enc, offer, best)
            counters.update({**sat.accum_stats(), "steps": steps})
            send(("done", (OPTIMAL, counters)))
            return
    from pysat.examples.rc2 import RC2

    with RC2(enc.wcnf(), solver=solver, adapt=True, exhaust=True, minz=True) as rc2:
        model = rc2.compute()
        if model is None:  # the hard clauses were satisfiable a moment ago
            raise BackendError("RC2 found no model of hard clauses a SAT solver satisfied")
        score = offer(model)
        if score != space.constant + len(enc.soft) - rc2.cost:
            raise BackendError(f"RC2's cost {rc2.cost} does not match its board's score {score}")
        counters.update(rc2.oracle.accum_stats() or {})
    send(("done", (OPTIMAL, counters)))


def _linear(sat: Any, enc: Any, offer: Callable[[list[int]], int], score: int) -> int:
    """SAT-UNSAT search from a board of ``score``: demand one more fitting seam until UNSAT. The bound is
    an incremental totalizer over the negated fit literals ("at most j seams break"), built once for the
    first bound and tightened by a unit clause per step. Returns the number of SAT calls made."""
    from pysat.card import ITotalizer

    soft = enc.soft
    steps = 0
    totalizer = None
    try:
        while True:
            need = score - enc.space.constant + 1  # fitting soft literals wanted
            if need > len(soft):
                return steps  # every seam fits
            breaks = len(soft) - need  # at most this many fit literals false
            if totalizer is None:
                totalizer = ITotalizer(lits=[-lit for lit in soft], ubound=breaks, top_id=enc.pool.top)
                sat.append_formula(totalizer.cnf.clauses)
            sat.add_clause([-totalizer.rhs[breaks]])
            steps += 1
            if not sat.solve():
                return steps
            score = offer(sat.get_model())
    finally:
        if totalizer is not None:
            totalizer.delete()
