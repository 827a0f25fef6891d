"""Native ``best`` on the board turned a quarter turn or more (option ``turn``).

A search fills the board in one direction (the beam: rows from the north, the last rows column by column), so
turning the board changes where the hints fall in its order (and, on a board that is not square, the shape it
fills), while the boards it can reach are the same ones turned; on a square board without hints whose tiles may
turn, the turned puzzle is the same puzzle. On E2-like 16x16 boards with the centre hint the rounds of a turned board
were measured to reach other scores, by more than their spread, in either direction, board by board
(benchmarks/README.md, "Turned boards"); the chains of ``best --workers`` and ``--cluster`` (``chains.py``) each
take a turn of their own, so that they draw from more than one of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from edgematch.core.model import Puzzle, Solution
from edgematch.core.symmetry import turn_board, turn_puzzle
from edgematch.errors import UsageError
from edgematch.solvers.base import Result, Task, whole

TURNS = 4


def board_turn(value: object) -> int:
    """Option ``turn``: the quarter turns clockwise (0-3) the search turns the board by before it begins."""
    k = whole(value, "turn")
    if k >= TURNS:
        raise UsageError(f"option turn: must be 0, 1, 2 or 3 (quarter turns clockwise), got {k}")
    return k


def chain_turn(turn: int, index: int, puzzle: Puzzle) -> int:
    """The turn chain ``index`` of ``best --workers`` or ``--cluster`` takes when chain 0 takes ``turn``: ``index``
    quarter turns more, or ``2 index`` on a board that is not square (its shape, and so what a beam of a given width
    takes, stays the same in every chain)."""
    return (turn + (1 if puzzle.width == puzzle.height else 2) * index) % TURNS


def run_turned(search: Callable[[Puzzle, Task], Result], puzzle: Puzzle, task: Task, k: int) -> Result:
    """``search`` on ``puzzle`` turned ``k`` quarter turns clockwise: every board it streams (``on_improve``) or
    returns is turned back, and the boards of other chains it reads (``incumbent``) are turned its way."""
    if not k:
        result = search(puzzle, task)
        return dataclasses.replace(result, options={**result.options, "turn": 0})
    turned = turn_puzzle(puzzle, k)

    def back(board: Solution) -> Solution:
        return turn_board(turned, board, TURNS - k)

    def improve(board: Solution, score: int) -> None:
        task.on_improve(back(board), score)  # type: ignore[misc]

    def incumbent() -> tuple[Solution, int] | None:
        shared = task.incumbent()  # type: ignore[misc]
        return None if shared is None else (turn_board(puzzle, shared[0], k), shared[1])

    inner = dataclasses.replace(task, on_improve=None if task.on_improve is None else improve,
                                incumbent=None if task.incumbent is None else incumbent)
    result = search(turned, inner)
    return dataclasses.replace(result, solutions=[back(b) for b in result.solutions],
                               options={**result.options, "turn": k})
