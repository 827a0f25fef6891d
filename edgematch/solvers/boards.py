"""From the boards a model backend (CP-SAT, SAT) found to the answers: raw and distinct counts, raw solutions.

A board is one (type, turn) per cell: identical tiles are merged, so each board stands for
``types.multiplier`` raw solutions, and when an anchor fixed the board's turn (``turns`` > 1) each board
stands for one orbit of ``turns`` turned boards, so boards are then the distinct count.
"""

from __future__ import annotations

from typing import Any

from edgematch.core.model import Puzzle, Solution
from edgematch.core.symmetry import distinct_key
from edgematch.core.tiletypes import decode, expand, turned_boards


def counted(puzzle: Puzzle, types: Any, turns: int, boards: list[tuple], distinct: bool) -> tuple[int, int | None]:
    """The raw count of ``boards`` and, when asked, the distinct count."""
    raw = len(boards) * turns * (types.multiplier if types is not None else 1)
    if not distinct:
        return raw, None
    if turns > 1:
        return raw, len(boards)
    return raw, len({distinct_key(puzzle, decode(puzzle, types, b)) for b in boards})


def expanded(puzzle: Puzzle, types: Any, turns: int, boards: list[tuple], limit: int | None) -> list[Solution]:
    """The raw solutions of ``boards`` (every turn the anchor folded away, every order of identical copies),
    up to ``limit``."""
    solutions: list[Solution] = []
    for board in boards:
        for turned in turned_boards(puzzle, types, board) if turns > 1 else [board]:
            for solution in expand(puzzle, types, turned):
                solutions.append(solution)
                if limit is not None and len(solutions) >= limit:
                    return solutions
    return solutions
