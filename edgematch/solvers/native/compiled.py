"""Loading the compiled loop: numba caches machine code on disk, so only the first run ever compiles.

:func:`ensure_compiled` runs the kernel once on a 1x1 puzzle so the load (or first compile) is paid
and timed outside any measured search.
"""

from __future__ import annotations

import time

_loaded = False


def ensure_compiled() -> float:
    """Load (or compile) the kernel in this process; returns the seconds it took (0.0 once loaded)."""
    global _loaded
    if _loaded:
        return 0.0
    from edgematch.core.model import Puzzle, Tile
    from edgematch.solvers.native.search import Search
    from edgematch.solvers.native.tables import build_tables

    start = time.perf_counter()
    search = Search(build_tables(Puzzle(1, 1, (Tile((1, 2, 3, 4)),))), capacity=1, distinct=True)
    search.step(1000)
    _loaded = True
    return time.perf_counter() - start
