"""Argument checks shared by every renderer, so each reports a bad solution the same clear way."""

from __future__ import annotations

from edgematch.core.model import Puzzle, Solution
from edgematch.errors import UsageError


def check_solution(puzzle: Puzzle, solution: Solution) -> None:
    """A clear error instead of an IndexError when ``solution`` does not belong to ``puzzle``.

    Only the shape is checked: a wrong (non-matching) board is still drawn, as it is.
    """
    if (solution.width, solution.height) != (puzzle.width, puzzle.height):
        raise UsageError(
            f"the solution is {solution.width}x{solution.height} but the puzzle is "
            f"{puzzle.width}x{puzzle.height}"
        )
    for cell, (t, r) in enumerate(solution.cells):
        if not 0 <= t < len(puzzle.tiles):
            raise UsageError(
                f"the solution puts tile {t} on cell {cell}; tiles are 0..{len(puzzle.tiles) - 1}"
            )
        if not 0 <= r < 4:
            raise UsageError(f"the solution turns cell {cell} by {r}; rotations are 0..3")


__all__ = ["check_solution"]
