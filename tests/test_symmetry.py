"""Board turns and the distinct-solution key, against the seed facts and an explicit orbit count."""

import pytest
from hypothesis import assume, given, settings

from edgematch.core.analysis import facts
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.core.model import Puzzle, Tile
from edgematch.core.symmetry import board_turns, distinct_key, turn_grid, turn_solution
from edgematch.formats import read_puzzle
from tests.oracle import all_solutions
from tests.strategies import planted


@given(planted(extras=False))
def test_four_board_turns_are_the_identity(pair):
    puzzle, solution = pair
    grid = solution.grid(puzzle)
    turned, w, h = grid, puzzle.width, puzzle.height
    for _ in range(4):
        turned, w, h = turn_grid(turned, w, h, 1)
    assert (turned, w, h) == (grid, puzzle.width, puzzle.height)
    assert turn_solution(puzzle, turn_solution(puzzle, solution, 2), 2) == solution


@given(planted(extras=False))
def test_a_turned_solution_is_a_solution_showing_the_turned_grid(pair):
    puzzle, solution = pair
    if not puzzle.rotations:
        return
    for k in board_turns(puzzle):
        turned = turn_solution(puzzle, solution, k)
        shape = puzzle.replace(width=turned.width, height=turned.height)
        assert check(shape, turned).ok
        assert turned.grid(puzzle) == turn_grid(solution.grid(puzzle), puzzle.width, puzzle.height, k)[0]


def test_turns_allowed_by_shape_and_hints():
    square, sol = generate(GeneratorSpec(3, 3, colours=3, seed=1))
    rect, _ = generate(GeneratorSpec(4, 2, colours=3, seed=1))
    assert board_turns(square) == (0, 1, 2, 3)
    assert board_turns(rect) == (0, 2)
    hinted = square.replace(hints=((0, *sol.cells[0]),))
    assert board_turns(hinted) == (0,)
    upright, _ = generate(GeneratorSpec(3, 3, colours=4, rotations=False, seed=1))
    assert board_turns(upright) == (0,)  # turning the board would turn tiles that may not turn
    plain = Puzzle(2, 2, tuple(Tile((c, c, c, c)) for c in (1, 1, 1, 1)), rotations=False)
    assert board_turns(plain) == (0, 1, 2, 3)  # ... unless the tile set looks the same turned


@pytest.mark.parametrize(("path", "raw", "distinct"), [("examples/insects.em", 4, 1), ("examples/hunde.em", 16, 2)])
def test_seed_counts(path, raw, distinct):
    puzzle = read_puzzle(path)
    solutions = list(all_solutions(puzzle))
    assert all(check(puzzle, s).ok for s in solutions)
    assert len(solutions) == raw
    assert len({distinct_key(puzzle, s) for s in solutions}) == distinct


def _orbits(puzzle, solutions):
    """Distinct solutions counted the slow way: union solutions whose grids are turns of each other."""
    grids = [s.grid(puzzle) for s in solutions]
    parent = list(range(len(grids)))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    index = {}
    for i, g in enumerate(grids):
        index.setdefault(g, []).append(i)
    for i, g in enumerate(grids):
        for k in board_turns(puzzle):
            for j in index.get(turn_grid(g, puzzle.width, puzzle.height, k)[0], []):
                parent[find(i)] = find(j)
    return len({find(i) for i in range(len(grids))})


@settings(max_examples=40, deadline=None)
@given(planted(max_side=3, extras=False))
def test_distinct_key_counts_the_orbits(pair):
    puzzle, _ = pair
    # the naive oracle enumerates raw solutions: keep their expected number small
    assume(facts(puzzle).expected_solutions < 200)
    solutions = list(all_solutions(puzzle))
    assert solutions  # planted puzzles are solvable
    assert len({distinct_key(puzzle, s) for s in solutions}) == _orbits(puzzle, solutions)
    # soundness, independent of how board_turns decides: an allowed turn maps solutions to solutions
    grids = {s.grid(puzzle) for s in solutions}
    for k in board_turns(puzzle):
        assert all(turn_grid(g, puzzle.width, puzzle.height, k)[0] in grids for g in grids)
