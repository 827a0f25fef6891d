"""edgematch: solve edge-matching puzzles three ways and measure which is fastest.

The public API in one place::

    import edgematch
    puzzle = edgematch.read_puzzle("examples/insects.arc")
    result = edgematch.solve(puzzle)              # backend="auto"
    edgematch.count(puzzle, distinct=True).distinct

Ctrl-C during a call raises :class:`Interrupted` (a ``KeyboardInterrupt``) once everything the call started
has stopped; its ``result`` holds what was found so far.
"""

from edgematch.core.checker import CheckResult, Violation, check, score
from edgematch.core.generator import GeneratorSpec, generate, random_tiles
from edgematch.core.model import Hint, Placement, Puzzle, Solution, Tile
from edgematch.core.symmetry import board_turns, distinct_key
from edgematch.errors import (
    BackendError,
    EdgematchError,
    FileMissingError,
    FormatError,
    Interrupted,
    PuzzleError,
    UsageError,
)
from edgematch.formats import read_puzzle, read_solution, write_puzzle, write_solution
from edgematch.solvers import (
    Result,
    Status,
    best,
    choose_backend,
    count,
    estimate,
    explain,
    solutions,
    solve,
    solve_all,
)

__version__ = "0.1.0"

__all__ = [
    "BackendError", "Result", "Status", "best", "choose_backend", "count", "estimate", "explain", "solutions", "solve",
    "solve_all",
    "CheckResult", "EdgematchError", "FileMissingError", "FormatError", "GeneratorSpec", "Hint", "Interrupted",
    "Placement", "Puzzle", "PuzzleError", "Solution", "Tile", "UsageError", "Violation", "board_turns", "check",
    "distinct_key", "generate", "random_tiles", "read_puzzle", "read_solution", "score", "write_puzzle",
    "write_solution",
]
