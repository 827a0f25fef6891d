"""Native best on the board turned (option ``turn``, and chain i of ``--workers`` turning it i more): a turned
puzzle and its boards map one to one onto the puzzle's, every board streamed or returned is the puzzle's (the
checker's score, the hints kept), and a repair takes a board up on the side where its breaks are."""

from __future__ import annotations

import pytest

import edgematch
from edgematch import GeneratorSpec, Status, generate
from edgematch.core.checker import check
from edgematch.core.model import Solution
from edgematch.core.symmetry import turn_board, turn_puzzle
from edgematch.errors import UsageError
from edgematch.solvers.base import Task
from edgematch.solvers.native.best import stages
from tests.oracle import best_score
from tests.test_best_beam import BOARDS
from tests.test_best_native import BOARDS as SMALL

SPECS = [
    GeneratorSpec(5, 4, colours=3, framed=False, seed=11),
    GeneratorSpec(6, 4, framed=True, border_colours=2, inner_colours=3, seed=12),
    GeneratorSpec(6, 6, like="e2", hint=True, seed=13),
    GeneratorSpec(5, 3, colours=3, framed=False, rotations=False, seed=14),
    GeneratorSpec(4, 5, colours=3, framed=False, rule="signed", seed=15),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.width}x{s.height}-{s.seed}")
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_a_turned_puzzle_has_the_turned_solution_and_turns_back(spec, k):
    """The planted solution, turned with the board, solves the turned puzzle (full score, hints kept), and
    turning it back gives the planted one; a board that breaks seams keeps its score both ways."""
    puzzle, solution = generate(spec)
    turned = turn_puzzle(puzzle, k)
    assert (turned.width, turned.height) == ((puzzle.height, puzzle.width) if k % 2 else (puzzle.width,
                                                                                          puzzle.height))
    there = turn_board(puzzle, solution, k)
    verdict = check(turned, there)
    assert verdict.ok, verdict
    assert turn_board(turned, there, 4 - k) == solution
    cells = list(solution.cells)
    cells[0], cells[-1] = cells[-1], cells[0]
    spoiled = Solution.from_pairs(puzzle, cells)
    assert check(turned, turn_board(puzzle, spoiled, k)).score == check(puzzle, spoiled).score


@pytest.mark.parametrize("kind", [k for k, _ in BOARDS])
@pytest.mark.parametrize("k", [1, 3])
def test_a_turned_search_streams_and_returns_the_puzzle_s_boards(kind, k):
    puzzle = dict(BOARDS)[kind]
    streamed = []
    result = edgematch.best(puzzle, backend="native", time_limit=1.0, search="beam", width=64, turn=k,
                            on_improve=lambda board, score: streamed.append((board, score)))
    assert result.options["turn"] == k
    assert streamed and result.score == streamed[-1][1]
    for board, score in [*streamed, (result.solutions[0], result.score)]:
        verdict = check(puzzle, board)
        assert verdict.admissible and verdict.score == score, kind
        for cell, tile, turn in puzzle.hints:
            assert board.cells[cell] == (tile, turn)


@pytest.mark.parametrize("index", range(0, 200, 10))
def test_a_turned_depth_first_best_proves_the_oracle_s_maximum(index):
    """On boards of a few free cells ``best`` is the exact branch and bound: turned, it proves the brute
    force's maximum with a board of the puzzle (not of the turned one)."""
    puzzle = SMALL[index]
    truth = best_score(puzzle)
    result = edgematch.best(puzzle, backend="native", time_limit=20, turn=1 + index % 3)
    if truth is None:
        assert result.status is Status.UNSAT and not result.solutions
        return
    assert result.status is Status.SOLVED and result.options["turn"] == 1 + index % 3
    assert result.score == truth == check(puzzle, result.solution).score


def test_chains_turn_the_board_one_more_each():
    puzzle, _ = generate(GeneratorSpec(8, 8, like="e2", hint=True, seed=5))
    streamed = []
    result = edgematch.best(puzzle, backend="native", time_limit=3, workers=2, search="beam", turn=3,
                            on_improve=lambda board, score: streamed.append((board, score)))
    assert result.options["turn"] == 3 and result.options["turns"] == "3,0"
    for board, score in [*streamed, (result.solutions[0], result.score)]:
        assert check(puzzle, board).score == score
        assert board.cells[puzzle.hints[0].cell] == tuple(puzzle.hints[0][1:])


@pytest.mark.parametrize("value", ["4", "-1", "quarter"])
def test_a_bad_turn_is_one_line(value):
    puzzle, _ = generate(GeneratorSpec(8, 8, like="e2", hint=True, seed=4))
    with pytest.raises(UsageError) as caught:
        edgematch.best(puzzle, backend="native", time_limit=1, turn=value)
    assert "turn" in str(caught.value) and "\n" not in str(caught.value)


def test_turn_is_an_option_of_best_only():
    puzzle, _ = generate(GeneratorSpec(4, 4, framed=True, seed=1))
    with pytest.raises(UsageError, match="turn"):
        edgematch.solve(puzzle, backend="native", time_limit=5, turn=1)


@pytest.mark.parametrize("width, turns", [(6, [3, 0, 1, 2, 3]), (5, [3, 1, 3, 1, 3])])
def test_chain_i_turns_the_board_i_more_or_2i_on_a_board_not_square(width, turns):
    from edgematch.solvers.native import NativeBackend
    from edgematch.solvers.native.best.chains import plan_for

    puzzle, _ = generate(GeneratorSpec(width, 6, framed=True, border_colours=2, inner_colours=3, seed=3))
    task = Task(question="best", options={"turn": "3", "seed": 5})
    plans = [plan_for(puzzle)(NativeBackend(), task, i)[1] for i in range(5)]
    assert [p["turn"] for p in plans] == turns
    assert [p["seed"] for p in plans] == [5, 6, 7, 8, 9]


def _east_broken(spec: GeneratorSpec) -> tuple:
    """A planted puzzle and its solution with two tiles of the east column exchanged: its breaks lie in the last
    two columns, not in the last rows."""
    puzzle, solution = generate(spec)
    w, h = puzzle.width, puzzle.height
    cells = list(solution.cells)
    a, b = 1 * w + w - 1, (h - 2) * w + w - 1
    cells[a], cells[b] = cells[b], cells[a]
    return puzzle, Solution.from_pairs(puzzle, cells)


@pytest.mark.parametrize("spec", [GeneratorSpec(8, 8, like="e2", hint=True, seed=21),
                                  GeneratorSpec(10, 6, framed=True, border_colours=2, inner_colours=4, seed=22)],
                         ids=["8x8", "10x6"])
def test_a_repair_takes_a_board_up_on_the_side_its_breaks_are(spec):
    """Breaks in the east column: the tail beams free the board turned once (the east column at the bottom),
    not the rows from row 1 down, and the repair puts the board back whole."""
    puzzle, board = _east_broken(spec)
    assert check(puzzle, board).score < puzzle.seam_count
    run = stages._Anytime(puzzle, Task(question="best"), 0.0, board)
    repair = stages._Repair.build(puzzle, run, 8, 1, "rare", None, lambda: None)
    assert repair is not None
    k, row = repair.tail_side(board)
    turned = repair.turned(k)
    assert k == 1 and (turned.width, turned.height) == (puzzle.height, puzzle.width)
    assert (turned.height - row) * turned.width <= 2 * puzzle.height  # the last two columns
    repair.prior = {"tail": 1.0, "kernel": 0.0}  # tail beams only
    repair.run(board, 2.0)
    assert run.best_score == puzzle.seam_count
    assert check(puzzle, run.best_board).ok
