"""Loading the compiled loop before anything is timed.

The C kernel (built at install time) loads in about a millisecond; the numba kernel imports numba and
llvmlite and loads its machine code from numba's disk cache (compiling it only on the very first run).
:func:`ensure_compiled` loads the kernel :func:`~edgematch.solvers.native.kernels.selected` chooses and
runs it once on a 1x1 puzzle, so the load (or first compile) is paid and timed outside any measured search.
"""

from __future__ import annotations

import time
from collections.abc import Callable

_loaded: set[str] = set()


def once(warm: Callable[[], object]) -> Callable[[], float]:
    """An ``ensure_compiled`` for a compiled step: runs ``warm`` (a call on a tiny board, which loads the
    step's machine code or compiles it on the very first run) the first time, and returns the seconds it
    took; 0.0 once loaded."""
    done = False

    def ensure() -> float:
        nonlocal done
        if done:
            return 0.0
        start = time.perf_counter()
        warm()
        done = True
        return time.perf_counter() - start

    ensure.__doc__ = warm.__doc__
    return ensure


def ensure_compiled() -> float:
    """Load (or compile) the selected kernel in this process; returns the seconds it took (0.0 once loaded)."""
    start = time.perf_counter()
    from edgematch.solvers.native import kernels

    name = kernels.selected()
    if name in _loaded:
        return 0.0
    from edgematch.core.model import Puzzle, Tile
    from edgematch.solvers.native.search import Search
    from edgematch.solvers.native.tables import build_tables

    search = Search(build_tables(Puzzle(1, 1, (Tile((1, 2, 3, 4)),))), capacity=1, distinct=True, kernel=name)
    search.step(1000)
    _loaded.add(name)
    return time.perf_counter() - start

