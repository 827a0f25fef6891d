"""From the boards a model backend (CP-SAT, SAT) found to the answers: raw and distinct counts, raw solutions.

A board is one (type, turn) per cell: identical tiles are merged, so each board stands for
``types.multiplier`` raw solutions, and when an anchor fixed the board's turn (``turns`` > 1) each board
stands for one orbit of ``turns`` turned boards, so boards are then the distinct count.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from edgematch import clock
from edgematch.core.model import Puzzle, Solution
from edgematch.core.symmetry import distinct_key
from edgematch.core.tiletypes import decode, expand, turned_boards
from edgematch.solvers.base import INTERRUPTED


def counted(puzzle: Puzzle, types: Any, turns: int, boards: list[tuple], distinct: bool) -> tuple[int, int | None]:
    """The raw count of ``boards`` and, when asked, the distinct count."""
    raw = len(boards) * turns * (types.multiplier if types is not None else 1)
    if not distinct:
        return raw, None
    if turns > 1:
        return raw, len(boards)
    return raw, len({distinct_key(puzzle, decode(puzzle, types, b)) for b in boards})


def expanded(puzzle: Puzzle, types: Any, turns: int, boards: list[tuple], limit: int | None,
             deadline: float | None = None) -> tuple[list[Solution], bool]:
    """The raw solutions of ``boards`` (every turn the anchor folded away, every order of identical copies),
    up to ``limit``, and whether the ``clock.now()`` deadline cut the listing short."""
    every = (solution for board in boards
             for turned in (turned_boards(puzzle, types, board) if turns > 1 else [board])
             for solution in expand(puzzle, types, turned))
    return listed(every, limit, deadline)


CHECK_EVERY = 256  # raw solutions listed between looks at the clock (the first ones always are)
CUT = "time limit while listing raw solutions"  # the message of a result whose listing the deadline cut


def listing_deadline(deadline: float | None, stopped: str) -> float | None:
    """The deadline of the listing after a search that ended ``stopped``: the search's own, or, when Ctrl-C
    stopped it, now, so the first :data:`CHECK_EVERY` raw solutions are listed (about 0.03 s) and the rest only
    counted. A stop must not wait for the listing: ``solve --all`` of a 4x4 with 7.7 M solutions stopped 1.2 s
    in took 145 s to list what it had found."""
    return clock.now() if stopped == INTERRUPTED else deadline


def listed(solutions: Iterator[Solution], limit: int | None, deadline: float | None) -> tuple[list[Solution], bool]:
    """Up to ``limit`` of ``solutions``, and whether the ``clock.now()`` deadline stopped the listing first.

    One board with many identical tiles stands for millions of raw solutions: listing them all could outlast
    any time limit and fill memory (a 5x5 of two colours grew to 20 GB), so the listing keeps the limit too."""
    out: list[Solution] = []
    for solution in solutions:
        if limit is not None and len(out) >= limit:
            break
        if deadline is not None and out and len(out) % CHECK_EVERY == 0 and clock.now() > deadline:
            return out, True
        out.append(solution)
    return out, False
