"""The library calls: ``solve``, ``solutions`` and ``count``, for any backend by name.

Every solution a backend returns goes through the independent checker before it reaches the caller;
a backend that returns an invalid one raises :class:`BackendError` (never a silent wrong answer).
``backend="auto"`` picks a backend for the puzzle and question by the measured policy
(:mod:`edgematch.solvers.policy`; :func:`explain` says which and why).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from edgematch.core.checker import check
from edgematch.core.model import Puzzle, Solution
from edgematch.errors import BackendError, UsageError
from edgematch.solvers.base import Question, Result, Task, get_backend
from edgematch.solvers.policy import choose

AUTO = "auto"


def choose_backend(puzzle: Puzzle, question: Question = "first", workers: int = 1, **options: Any) -> str:
    """The backend ``auto`` uses for this puzzle and question (and these workers and backend options),
    as a ``name[:sub]`` string."""
    return choose(puzzle, question, Task(question, workers=workers, options=options)).backend


def explain(puzzle: Puzzle, question: Question = "first", workers: int = 1, **options: Any) -> str:
    """Which backend ``auto`` picks for this puzzle and question, and the measured reason."""
    return choose(puzzle, question, Task(question, workers=workers, options=options)).reason


def _task(question: Question, time_limit: float | None, workers: int, limit: int | None, distinct: bool,
          progress: Callable[[dict[str, float]], None] | None, options: dict[str, Any]) -> Task:
    if time_limit is not None and time_limit <= 0:
        raise UsageError(f"time limit must be positive, got {time_limit}")
    if workers < 1:
        raise UsageError(f"workers must be at least 1, got {workers}")
    if limit is not None and limit < 1:
        raise UsageError(f"solution limit must be at least 1, got {limit}")
    return Task(question, time_limit, limit, distinct, workers, dict(options), progress)


def _checked(puzzle: Puzzle, result: Result) -> Result:
    start = time.perf_counter()
    for solution in result.solutions:
        _verify(puzzle, solution, result.backend)
    result.timings.check = time.perf_counter() - start
    return result


def _verify(puzzle: Puzzle, solution: Solution, backend: str) -> None:
    verdict = check(puzzle, solution)
    if not verdict.ok:
        raise BackendError(f"backend {backend} returned an invalid solution: {verdict.violations[0]}")


def solve(
    puzzle: Puzzle, backend: str = AUTO, time_limit: float | None = None, workers: int = 1,
    progress: Callable[[dict[str, float]], None] | None = None, **options: Any,
) -> Result:
    """Find one solution. ``result.status`` is solved, unsat, timeout or error; ``result.solution``."""
    task = _task("first", time_limit, workers, None, False, progress, options)
    return _checked(puzzle, get_backend(backend).run(puzzle, task))


def solve_all(
    puzzle: Puzzle, backend: str = AUTO, limit: int | None = None, time_limit: float | None = None,
    workers: int = 1, distinct: bool = False, progress: Callable[[dict[str, float]], None] | None = None,
    **options: Any,
) -> Result:
    """All raw solutions (up to ``limit``) in ``result.solutions``, with the counts when the search finished."""
    task = _task("all", time_limit, workers, limit, distinct, progress, options)
    return _checked(puzzle, get_backend(backend).run(puzzle, task))


def solutions(
    puzzle: Puzzle, backend: str = AUTO, limit: int | None = None, time_limit: float | None = None,
    **options: Any,
) -> Iterator[Solution]:
    """Raw solutions one at a time, found lazily (stops after ``limit`` or at the time limit)."""
    task = _task("all", time_limit, 1, limit, False, None, options)
    chosen = get_backend(backend)
    for n, solution in enumerate(chosen.iter_solutions(puzzle, task), start=1):
        _verify(puzzle, solution, chosen.full_name)
        yield solution
        if limit is not None and n >= limit:
            return


def count(
    puzzle: Puzzle, distinct: bool = False, backend: str = AUTO, time_limit: float | None = None,
    workers: int = 1, progress: Callable[[dict[str, float]], None] | None = None, **options: Any,
) -> Result:
    """Count solutions: ``result.count`` (raw) and with ``distinct=True`` also ``result.distinct``.
    On a timeout the counts are lower bounds and the status says ``timeout``."""
    task = _task("count", time_limit, workers, None, distinct, progress, options)
    return _checked(puzzle, get_backend(backend).run(puzzle, task))
