"""Loading the compiled loops before anything is timed.

Every loop of the native engine is in one C library built at install time; loading it and typing its
loops takes about a millisecond. :func:`ensure_compiled` does it once per process and runs the plain search
on a 1x1 puzzle, so a measured run never pays it, and says what it took (the bench's "loaded before the
runs" line, ``solve``'s "compiled code" row).
"""

from __future__ import annotations

from edgematch import clock

_loaded = False


def ensure_compiled() -> float:
    """Load the C library in this process (a :class:`BackendError` saying what to install when it was not
    built); the seconds it took, 0.0 once loaded."""
    global _loaded
    if _loaded:
        return 0.0
    start = clock.now()
    from edgematch.core.model import Puzzle, Tile
    from edgematch.solvers.native.search import Search
    from edgematch.solvers.native.tables import build_tables

    Search(build_tables(Puzzle(1, 1, (Tile((1, 2, 3, 4)),))), capacity=1, distinct=True).step(1000)
    _loaded = True
    return clock.now() - start
