"""Counting distinct boards only up to a bound: "is this puzzle's solution unique?" without the whole count.

A rejection of :func:`edgematch.solvers.unique.unique_puzzle` needs to know only that a puzzle has at least two
distinct solutions, and the second one usually turns up long before the tree ends (e2-like 6x6: 0.02-0.2 s
against a full count's 0.2-0.9 s). :func:`distinct_upto` runs the plain count's search (the same tables, with
the board turns folded by an anchor tile where the puzzle has one, and the same canonical test:
:func:`~edgematch.solvers.native.search.distinct_boards`) and stops at the ``most``-th distinct board; a
search that ends before it has counted every distinct board exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from edgematch import clock
from edgematch.core.model import Puzzle


@dataclass
class Upto:
    """What :func:`distinct_upto` found."""

    distinct: int  # distinct boards met, at most the bound asked for
    finished: bool  # the whole tree was searched: ``distinct`` is the exact distinct count
    seconds: float = 0.0


def distinct_upto(puzzle: Puzzle, most: int, time_limit: float | None = None) -> Upto:
    """The distinct solutions of ``puzzle`` up to ``most``: the search stops at the ``most``-th, at the time
    limit (building the tables counts against it) or at the end of the tree, whichever comes first. Ctrl-C
    raises ``KeyboardInterrupt``; a C library that was not built is a ``BackendError`` saying what to install."""
    from edgematch.solvers.native.compiled import ensure_compiled
    from edgematch.solvers.native.search import Search, distinct_boards, drive
    from edgematch.solvers.native.tables import DEFAULT_ORDER, BuildTimedOut, build_tables

    ensure_compiled()
    start = clock.now()
    deadline = clock.deadline(time_limit, start)
    try:
        tables = build_tables(puzzle, DEFAULT_ORDER, symmetry=True, deadline=deadline)
    except BuildTimedOut:
        return Upto(0, False, clock.now() - start)
    if tables.positions == 0:  # every cell hinted: the hints are the one board (the model checked they fit)
        return Upto(1, True, clock.now() - start)
    search = Search(tables, capacity=1, distinct=True)  # a stored board ends the step: the bound is looked at each

    def met() -> int:
        return distinct_boards(tables, search.solutions, search.canonical)

    outcome = drive(search, deadline, should_stop=lambda: met() >= most)
    if outcome.stopped == "interrupted":
        raise KeyboardInterrupt
    return Upto(min(met(), most), outcome.finished, clock.now() - start)
