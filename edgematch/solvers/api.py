"""The library calls: ``solve``, ``solutions`` and ``count``, for any backend by name.

``puzzle`` is a :class:`Puzzle` or the path of a puzzle file (``str`` or ``pathlib.Path``, any readable
format). Arguments are checked before anything runs, each bad one a :class:`UsageError`: ``time_limit`` a
finite number of seconds up to ``MAX_TIME_LIMIT``, ``workers`` a whole number up to :func:`max_workers`,
``limit`` a whole number from 1.

Every solution a backend returns goes through the independent checker before it reaches the caller;
a backend that returns an invalid one raises :class:`BackendError` (never a silent wrong answer).

Ctrl-C during a call stops everything the call started (worker processes, solver children, Dask tasks),
then raises :class:`~edgematch.errors.Interrupted` (a ``KeyboardInterrupt``) whose ``result`` holds what was
found so far: a script stops, as Python scripts do, and may still keep the partial answer.
``backend="auto"`` picks a backend for the puzzle and question by the measured policy
(:mod:`edgematch.solvers.policy`; :func:`explain` says which and why).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from edgematch import clock
from edgematch.core.checker import check, check_admissible
from edgematch.core.model import Puzzle, Solution, whole_number
from edgematch.errors import BackendError, Interrupted, UsageError, shown
from edgematch.solvers.base import (
    INTERRUPTED,
    MAX_TIME_LIMIT,
    QUESTIONS,
    Backend,
    Confirmation,
    Question,
    Result,
    Status,
    Task,
    get_backend,
)
from edgematch.solvers.policy import choose

AUTO = "auto"
PuzzleLike = Puzzle | str | os.PathLike[str]  # a puzzle, or the path of a puzzle file
# A time limit is a finite number of seconds up to 10,000,000 (about 116 days; None means no limit): the
# limit becomes deadlines, waits and the bench's hard kill, which overflow or never fire on inf, nan or 1e308.
# ``best`` stops after this many seconds unless told otherwise (the command line's default too): the best
# board of a 16x16 is never proven, so without a limit the call would not return on its own
BEST_TIME_LIMIT = 60.0
# ``workers`` up to the larger of 16 and 4 x usable cores. The search is CPU-bound, so processes beyond the
# cores only time-share (a few more even out uneven parts of the tree); hundreds cost seconds to start and
# stop, memory, and overran the time limit (workers=10000 started about 1,250 processes). The floor of 16
# keeps a script that asks for 8 or 16 working on a small CI machine.
MIN_WORKERS_CAP = 16
WORKERS_PER_CORE = 4


def max_workers() -> int:
    """The most ``workers`` a call may ask for on this machine: max(16, 4 x usable cores)."""
    from edgematch.solvers.parallel.processes import usable_cores

    return max(MIN_WORKERS_CAP, WORKERS_PER_CORE * usable_cores())


def seconds_problem(value: object) -> str | None:
    """Why ``value`` is not a usable time limit in seconds (a finite number in (0, MAX_TIME_LIMIT]), or None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return f"must be a number of seconds, got {shown(value)}"
    try:
        seconds = float(value)
    except (OverflowError, ValueError):  # an int or a fraction too large for a float (10**400)
        seconds = math.inf if value > 0 else -math.inf
    if math.isnan(seconds) or seconds <= 0:
        return f"must be a positive number of seconds, got {shown(value, str)}"
    if seconds > MAX_TIME_LIMIT:
        return f"must be at most {MAX_TIME_LIMIT:,.0f} seconds (about 116 days), got {shown(value, str)}"
    return None


def check_workers(workers: object) -> int:
    """``workers`` checked: a whole number from 1 to :func:`max_workers`."""
    cap = max_workers()
    from edgematch.solvers.parallel.processes import usable_cores

    why = f" here (the larger of {MIN_WORKERS_CAP} and {WORKERS_PER_CORE} x the {usable_cores()} usable cores)"
    return whole_number(workers, "workers", 1, cap, why)


def as_puzzle(puzzle: object) -> Puzzle:
    """A Puzzle as given, or read from a file path (``str`` or ``os.PathLike``); anything else is a UsageError."""
    if isinstance(puzzle, Puzzle):
        return puzzle
    if isinstance(puzzle, (str, os.PathLike)):
        from edgematch.formats import read_puzzle

        return read_puzzle(Path(puzzle))
    raise UsageError(
        f"puzzle must be an edgematch.Puzzle or the path of a puzzle file (str or pathlib.Path), "
        f"got {type(puzzle).__name__}"
    )


def _backend(backend: object) -> Backend:
    if not isinstance(backend, str):
        raise UsageError(f"backend must be a name such as 'auto' or 'native', got {type(backend).__name__}")
    return get_backend(backend)


def _question(question: object) -> Question:
    if question not in QUESTIONS:
        raise UsageError(f"question must be one of {', '.join(QUESTIONS)}, got {shown(question)}")
    return question  # type: ignore[return-value]


def choose_backend(puzzle: PuzzleLike, question: Question = "first", workers: int = 1,
                   **options: Any) -> str:
    """The backend ``auto`` uses for this puzzle and question (and these workers and backend options),
    as a ``name[:sub]`` string. ``puzzle`` may be a file path."""
    question = _question(question)
    return choose(as_puzzle(puzzle), question, Task(question, workers=check_workers(workers), options=options)).backend


def explain(puzzle: PuzzleLike, question: Question = "first", workers: int = 1,
            **options: Any) -> str:
    """Which backend ``auto`` picks for this puzzle and question, and the measured reason."""
    question = _question(question)
    return choose(as_puzzle(puzzle), question, Task(question, workers=check_workers(workers), options=options)).reason


def _task(question: Question, time_limit: float | None, workers: int, limit: int | None, distinct: bool,
          progress: Callable[[dict[str, float]], None] | None, options: dict[str, Any]) -> Task:
    if time_limit is not None:
        problem = seconds_problem(time_limit)
        if problem:
            raise UsageError(f"time limit {problem}")
        time_limit = float(time_limit)
    workers = check_workers(workers)
    if limit is not None:
        limit = whole_number(limit, "solution limit", 1, sys.maxsize)
    if not isinstance(distinct, bool):
        raise UsageError(f"distinct must be True or False, got {shown(distinct)}")
    if progress is not None and not callable(progress):
        raise UsageError(f"progress must be a function taking a dict of figures, got {type(progress).__name__}")
    for name, value in options.items():
        _check_option(name, value)
    return Task(question, time_limit, limit, distinct, workers, dict(options), progress)


def _check_option(name: str, value: object) -> None:
    """A backend option's value is a word, a path, a number or on/off (True/False), as on the command line
    (``-O name=value``); the backend judges its meaning. Anything else (None, a list, a dict, a number too
    long for any backend) is a UsageError here, not a TypeError deep inside a backend."""
    if value is None:
        raise UsageError(f"option {name}: got None; leave the option out for its default")
    if isinstance(value, str | os.PathLike | bool | float):
        return
    if isinstance(value, numbers.Integral):
        if abs(value) >= 10**18:  # type: ignore[operator]
            raise UsageError(f"option {name}: a number of at most 18 digits, got {shown(value, str)}")
        return
    if isinstance(value, numbers.Real):
        return
    raise UsageError(f"option {name}: expected a word, a number or True/False, got {type(value).__name__} "
                     f"{shown(value)}")


def _on_cluster(task: Task, cluster: object) -> Task:
    """``task`` to run on ``cluster`` ("local:N", a Dask scheduler address or a dask.distributed.Client;
    checked here, before anything runs; Dask itself is imported only when the search starts)."""
    if cluster is None:
        return task
    from edgematch.solvers.parallel.cluster import cluster_problem

    problem = cluster_problem(cluster)
    if problem:
        raise UsageError(problem)
    if task.workers > 1:
        raise UsageError("workers and cluster do not go together: a cluster brings its own workers (local:N)")
    return replace(task, cluster=cluster)


@contextlib.contextmanager
def _stopping(backend: str, question: Question, kept: Callable[[], Result] | None = None) -> Iterator[None]:
    """Ctrl-C anywhere in a call raises :class:`Interrupted`. A backend catches it during its search, stops its
    children and returns what it found (the caller then calls :func:`_ended`); one outside that (reading the
    puzzle, building a model, checking) carries ``kept()``, or an empty result (a count of 0, a lower bound)."""
    try:
        yield
    except Interrupted:
        raise
    except KeyboardInterrupt:
        partial = kept() if kept is not None else Result(
            backend, Status.TIMEOUT, count=0 if question == "count" else None, message=INTERRUPTED)
        raise Interrupted(partial) from None


def _ended(result: Result) -> Result:
    """``result``, or :class:`Interrupted` carrying it when Ctrl-C stopped the search (the backend has already
    stopped everything it started)."""
    if result.message == INTERRUPTED:
        raise Interrupted(result)
    return result


def _checked(puzzle: Puzzle, result: Result) -> Result:
    start = clock.now()
    for solution in result.solutions:
        _verify(puzzle, solution, result.backend)
    result.timings.check = clock.now() - start
    return result


def _verify(puzzle: Puzzle, solution: Solution, backend: str) -> None:
    verdict = check(puzzle, solution)
    if not verdict.ok:
        raise BackendError(f"backend {backend} returned an invalid solution: {verdict.violations[0]}")


def solve(
    puzzle: PuzzleLike, backend: str = AUTO, time_limit: float | None = None, workers: int = 1,
    progress: Callable[[dict[str, float]], None] | None = None, confirm: bool = False, cluster: Any = None,
    **options: Any,
) -> Result:
    """Find one solution. ``result.status`` is solved, unsat, timeout or error; ``result.solution``.
    ``confirm``: have a backend of another family re-derive "no solution" (see :func:`_answered`).
    ``workers=N`` (native): N searches race (the one-process search, the plain search in a second fill order,
    seeded restarts), the first solution stops the rest; after ``handover`` seconds (default 120, or ``off``)
    every one takes parts of the second order's search;
    ``cluster``: the same race with one chain per worker thread of a Dask cluster (as for :func:`count`)."""
    task = _on_cluster(_task("first", time_limit, workers, None, False, progress, options), cluster)
    return _answered(puzzle, backend, task, confirm)


def solve_all(
    puzzle: PuzzleLike, backend: str = AUTO, limit: int | None = None, time_limit: float | None = None,
    workers: int = 1, distinct: bool = False, progress: Callable[[dict[str, float]], None] | None = None,
    confirm: bool = False, cluster: Any = None, **options: Any,
) -> Result:
    """All raw solutions (up to ``limit``) in ``result.solutions``, with the counts when the search finished.
    ``cluster``: run the search's parts on a Dask cluster, as :func:`count` does."""
    task = _on_cluster(_task("all", time_limit, workers, limit, distinct, progress, options), cluster)
    return _answered(puzzle, backend, task, confirm)


def solutions(
    puzzle: PuzzleLike, backend: str = AUTO, limit: int | None = None,
    time_limit: float | None = None, **options: Any,
) -> Iterator[Solution]:
    """Raw solutions one at a time, found lazily (stops after ``limit`` or at the time limit). The
    arguments are checked at once, before the first solution is asked for."""
    task = _task("all", time_limit, 1, limit, False, None, options)
    chosen = _backend(backend)
    with _stopping(chosen.full_name, "all"):
        puzzle = as_puzzle(puzzle)
    return _lazily(puzzle, chosen, task)


def _lazily(puzzle: Puzzle, chosen: Backend, task: Task) -> Iterator[Solution]:
    """The checked solutions of ``chosen``; Ctrl-C raises :class:`Interrupted` from the next step of the
    iteration, after every solution found before it was yielded (``result.count``: how many)."""
    n = 0
    with _stopping(chosen.full_name, "all", lambda: Result(chosen.full_name, Status.TIMEOUT, count=n,
                                                           message=INTERRUPTED)):
        for solution in chosen.iter_solutions(puzzle, task):
            _verify(puzzle, solution, chosen.full_name)
            n += 1
            yield solution
            if task.limit is not None and n >= task.limit:
                return


def count(
    puzzle: PuzzleLike, distinct: bool = False, backend: str = AUTO, time_limit: float | None = None,
    workers: int = 1, progress: Callable[[dict[str, float]], None] | None = None, confirm: bool = False,
    cluster: Any = None, **options: Any,
) -> Result:
    """Count solutions: ``result.count`` (raw) and with ``distinct=True`` also ``result.distinct``.
    On a timeout the counts are lower bounds and the status says ``timeout``. ``confirm``: have a backend
    of another family count again (see :func:`_answered`). ``cluster``: run the native search's parts on a
    Dask cluster instead of this machine's cores: ``"local:N"`` (N worker processes started for the call), a
    scheduler address (``"tcp://host:8786"``) or a ``dask.distributed.Client``; needs ``edgematch[dask]``."""
    task = _on_cluster(_task("count", time_limit, workers, None, distinct, progress, options), cluster)
    return _answered(puzzle, backend, task, confirm)


def estimate(puzzle: PuzzleLike, seconds: float = 1.0, seed: int = 1, order: str = "auto") -> Any:
    """What a count of ``puzzle`` would find and cost, in about ``seconds``, without counting: the native
    count's tree size in the fill ``order`` (auto, row, column, spiral, frame or band2: the probes follow one static
    order), its raw (and about its distinct) solutions, each with the spread of independent batches, and the
    time at the node rate measured on this machine (Knuth's random probes; see
    :mod:`edgematch.solvers.native.count.estimate`). Read it as an order of magnitude. Returns a ``CountEstimate``."""
    from edgematch.solvers.native.count.estimate import estimate_count
    from edgematch.solvers.native.tables import ORDERS

    problem = seconds_problem(seconds)
    if problem:
        raise UsageError(f"seconds {problem}")
    if order not in ORDERS:
        raise UsageError(f"the estimate follows a static fill order ({', '.join(ORDERS)}), not {order!r}")
    return estimate_count(as_puzzle(puzzle), float(seconds), whole_number(seed, "seed", 0, 2**63 - 1), order)


def best(
    puzzle: PuzzleLike, backend: str = AUTO, time_limit: float | None = BEST_TIME_LIMIT, workers: int = 1,
    progress: Callable[[dict[str, float]], None] | None = None,
    on_improve: Callable[[Solution, int], None] | None = None, cluster: Any = None, **options: Any,
) -> Result:
    """The best board found: every tile once, every rule kept except that seams may mismatch, and as many
    inner seams fitting as the search could make within the time (the Eternity II question). Returns the
    board in ``result.solution``, ``result.score`` of ``result.max_score``, ``result.optimal`` (proven the
    maximum; a full solution always is) and ``result.history`` of (seconds, score) improvements.

    ``time_limit`` defaults to ``BEST_TIME_LIMIT`` (60 s, as ``edgematch best``): the search stops then
    with the best board so far (status ``timeout``) unless it proved the maximum sooner. ``time_limit=None``
    searches until the maximum is proven, which on a large board (an Eternity II-like 16x16) never happens:
    the call then returns only on Ctrl-C (:class:`~edgematch.errors.Interrupted` carries the board).
    ``on_improve(board, score)`` sees each better board as it is found, so a caller can save it at once.
    Every board is re-scored by the independent checker; a backend whose claim differs is an error.

    ``workers=N`` (native): N independent chains of the search in N processes, chain ``i`` with seed
    ``seed + i``, sharing the best board; ``on_improve`` sees every board better than all chains' before.
    ``cluster``: the same chains on a Dask cluster, one per worker thread (``"local:N"``, a scheduler address
    or a ``dask.distributed.Client``, as for :func:`count`; needs ``edgematch[dask]``)."""
    task = _on_cluster(_task("best", time_limit, workers, None, False, progress, options), cluster)
    if on_improve is not None and not callable(on_improve):
        raise UsageError(f"on_improve must be a function taking (board, score), got {type(on_improve).__name__}")
    chosen = _backend(backend)
    # what on_improve has seen: the partial result of a Ctrl-C outside the backend's own handling
    seen = Result(chosen.full_name, Status.TIMEOUT, message=INTERRUPTED)
    with _stopping(chosen.full_name, "best", lambda: seen):
        puzzle = as_puzzle(puzzle)
        seen.max_score = puzzle.seam_count
        began = clock.now()
        if on_improve is not None:
            def checked_improvement(board: Solution, claimed: int) -> None:
                scored = _scored(puzzle, board, claimed, chosen.full_name)
                seen.solutions, seen.score = [board], scored
                seen.history.append((clock.now() - began, scored))
                on_improve(board, scored)

            task = replace(task, on_improve=checked_improvement)
        return _ended(_checked_best(puzzle, chosen.answer(puzzle, task), seen))


def _scored(puzzle: Puzzle, board: Solution, claimed: int | None, backend: str) -> int:
    """The checker's score of ``board``; an inadmissible board, or a claim that differs, is a backend error."""
    verdict = check_admissible(puzzle, board)
    if not verdict.admissible:
        wrong = next(v for v in verdict.violations if v.kind != "seam")
        raise BackendError(f"backend {backend} returned a board that breaks a rule: {wrong}")
    if claimed is not None and claimed != verdict.score:
        raise BackendError(f"backend {backend} claimed score {claimed}, the checker counts {verdict.score}")
    return verdict.score


def _checked_best(puzzle: Puzzle, result: Result, seen: Result | None = None) -> Result:
    """``result`` with its board re-scored by the checker; a board equal to the last one ``on_improve`` was given
    (``seen``, checked then) keeps that score (checking a 250x250 board again took most of a second after a
    Ctrl-C)."""
    start = clock.now()
    result.max_score = puzzle.seam_count
    if result.solutions:
        board = result.solutions[0]
        if seen is not None and seen.solutions and seen.solutions[0] == board:
            if result.score is not None and result.score != seen.score:
                raise BackendError(f"backend {result.backend} claimed score {result.score}, "
                                   f"the checker counts {seen.score}")
            result.score = seen.score
        else:
            result.score = _scored(puzzle, board, result.score, result.backend)
        if result.score == puzzle.seam_count and result.status is Status.TIMEOUT:
            result.status = Status.SOLVED  # a full solution is optimal whether or not the backend said so
    elif result.status is Status.SOLVED:
        raise BackendError(f"backend {result.backend} said its board is optimal but returned none")
    result.timings.check = clock.now() - start
    return result


def _answered(puzzle: PuzzleLike, backend: str, task: Task, confirm: bool) -> Result:
    """``backend``'s checked answer to ``task``; with ``confirm``, re-derived by a backend of another family
    within the same time limit (``result.confirmation``; :class:`~edgematch.solvers.confirm.Disagreement`
    when the two differ)."""
    if not isinstance(confirm, bool):
        raise UsageError(f"confirm must be True or False, got {shown(confirm)}")
    chosen = _backend(backend)
    with _stopping(chosen.full_name, task.question):
        deadline = task.until(clock.now())  # the second opinion's: the first's loading counts
        puzzle = as_puzzle(puzzle)
        result = _ended(_checked(puzzle, chosen.answer(puzzle, task)))
        if confirm:
            result.confirmation = _confirmed(puzzle, result, task, deadline)
        return result


def _confirmed(puzzle: Puzzle, result: Result, task: Task, deadline: float | None) -> Confirmation:
    """The second opinion on ``result``; Ctrl-C while it runs raises :class:`Interrupted` carrying
    ``result`` (its answer stands, not confirmed)."""
    from edgematch.solvers.confirm import second_opinion

    asked: list[Result] = []

    def second(name: str, question: Task) -> Result:
        asked.append(_checked(puzzle, _backend(name).answer(puzzle, question)))
        if asked[-1].message == INTERRUPTED:
            raise KeyboardInterrupt
        return asked[-1]

    try:
        return second_opinion(puzzle, result, replace(task, cluster=None), deadline, second)  # it runs here
    except KeyboardInterrupt:
        by = asked[-1].backend if asked else ""
        result.confirmation = Confirmation(by, None, "not confirmed: interrupted", asked[-1] if asked else None)
        result.message = INTERRUPTED
        raise Interrupted(result) from None
