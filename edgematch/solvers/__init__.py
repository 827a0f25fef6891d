"""Solver backends by short name, one result type, and solve() / solutions() / count().

Solver libraries are imported lazily inside each backend, so importing this package is cheap.
"""

from edgematch.solvers.api import (
    BEST_TIME_LIMIT,
    best,
    choose_backend,
    count,
    estimate,
    explain,
    solutions,
    solve,
    solve_all,
)
from edgematch.solvers.base import Backend, Result, Status, Task, Timings, backend_names, get_backend

__all__ = [
    "BEST_TIME_LIMIT", "Backend", "Result", "Status", "Task", "Timings", "backend_names", "best", "choose_backend",
    "count", "estimate", "explain", "get_backend", "solutions", "solve", "solve_all",
]
