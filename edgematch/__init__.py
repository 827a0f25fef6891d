"""edgematch: solve edge-matching puzzles three ways and measure which is fastest.

The public API in one place::

    import edgematch
    puzzle = edgematch.read_puzzle("examples/insects.arc")
    edgematch.check(puzzle, solution)
"""

from edgematch.core.checker import CheckResult, Violation, check, score
from edgematch.core.formats import read_puzzle, read_solution, write_puzzle, write_solution
from edgematch.core.generator import GeneratorSpec, generate, random_tiles
from edgematch.core.model import Hint, Placement, Puzzle, Solution, Tile
from edgematch.core.symmetry import board_turns, distinct_key
from edgematch.errors import EdgematchError, FormatError, PuzzleError, UsageError

__version__ = "0.1.0"

__all__ = [
    "CheckResult", "EdgematchError", "FormatError", "GeneratorSpec", "Hint", "Placement", "Puzzle",
    "PuzzleError", "Solution", "Tile", "UsageError", "Violation", "board_turns", "check", "distinct_key",
    "generate", "random_tiles", "read_puzzle", "read_solution", "score", "write_puzzle", "write_solution",
]
