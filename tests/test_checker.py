"""The checker: every planted solution passes, every kind of violation is found and located."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from edgematch.core.checker import _listed, _only_seams_broken, check, check_admissible, hint_violations, score
from edgematch.core.model import Puzzle, Solution, Tile
from edgematch.formats import read_puzzle
from tests.strategies import planted


@given(planted())
def test_every_planted_solution_passes(pair):
    puzzle, solution = pair
    result = check(puzzle, solution)
    assert result.ok, result.violations
    assert result.score == puzzle.seam_count == score(puzzle, solution)


def _change_one_seam(puzzle: Puzzle, solution: Solution, rng: random.Random):
    """Change one tile edge on a random inner seam; returns the new puzzle and the seam's two cells."""
    cell, side, nb, _ = rng.choice(puzzle.seams())
    t, r = solution.cells[cell]
    edges = list(puzzle.tiles[t].edges)
    k = (side - r) % 4  # the tile edge that faces `side` when turned r times
    old = edges[k]
    choices = [x for x in range(-9, 10) if x not in (old, puzzle.frame) and (x or puzzle.rule == "same")]
    edges[k] = rng.choice(choices)
    tiles = list(puzzle.tiles)
    tiles[t] = Tile(tuple(edges))
    return puzzle.replace(tiles=tuple(tiles), labels={}, hints=()), cell, nb


@settings(max_examples=150)
@given(planted(extras=False), st.randoms(use_true_random=False))
def test_a_random_one_seam_change_is_caught(pair, rng):
    puzzle, solution = pair
    if puzzle.seam_count == 0:
        return
    changed, cell, nb = _change_one_seam(puzzle, solution, rng)
    result = check(changed, solution)
    assert [(v.kind, v.cell, v.other) for v in result.violations] == [("seam", cell, nb)]
    assert result.score == puzzle.seam_count - 1


def test_each_violation_kind_is_reported():
    puzzle = read_puzzle("examples/insects.em")
    bad = Solution(3, 3, ((0, 0), (0, 1), (9, 0), (3, 7), (4, 0), (5, 0), (6, 0), (7, 0), (8, 0)))
    kinds = {v.kind for v in check(puzzle, bad).violations}
    assert {"tile-twice", "tile-range", "rotation-range", "tile-missing", "seam"} <= kinds
    assert not check(puzzle, Solution(2, 2, ((0, 0),) * 4)).ok


def test_frame_and_hint_violations():
    # a framed 2x2 made of four corner tiles, solved, then one corner turned
    tiles = (Tile((0, 1, 1, 0)), Tile((0, 0, 1, 1)), Tile((1, 0, 0, 1)), Tile((1, 1, 0, 0)))
    puzzle = Puzzle(2, 2, tiles, frame=0, hints=((0, 0, 0),))
    good = Solution(2, 2, ((0, 0), (1, 0), (3, 0), (2, 0)))
    assert check(puzzle, good).ok
    turned = Solution(2, 2, ((0, 1), (1, 0), (3, 0), (2, 0)))
    kinds = [v.kind for v in check(puzzle, turned).violations]
    assert "frame-edge" in kinds and "frame-inside" in kinds and "hint" in kinds
    fixed = puzzle.replace(rotations=False, hints=())
    assert [v.kind for v in check(fixed, turned).violations if v.kind == "rotation-forbidden"]


def test_violations_name_their_place():
    puzzle = read_puzzle("examples/insects.em")
    sol = Solution(3, 3, tuple((t, 0) for t in range(9)))
    result = check(puzzle, sol)
    seams = [v for v in result.violations if v.kind == "seam"]
    assert seams and all("cell" in str(v) and "meets" in str(v) for v in seams)
    assert result.score + len(seams) == puzzle.seam_count
    assert all(v.cell is not None for v in seams)


@settings(max_examples=150)
@given(planted(), st.randoms(use_true_random=False))
def test_the_best_score_view_is_check_without_the_seam_list(pair, rng):
    """check_admissible: the same score and the same non-seam violations as check, on scrambled boards."""
    puzzle, solution = pair
    cells = list(solution.cells)
    for _ in range(rng.randint(0, 4)):  # swaps and turns keep every tile once; a bad index breaks more rules
        i, j = rng.randrange(len(cells)), rng.randrange(len(cells))
        cells[i], cells[j] = (cells[j][0], rng.randrange(5)), cells[i]
    board = Solution(solution.width, solution.height, tuple(cells))
    full, fast = check(puzzle, board), check_admissible(puzzle, board)
    assert fast.score == full.score == score(puzzle, board)
    assert fast.violations == tuple(v for v in full.violations if v.kind != "seam")
    assert fast.admissible == full.admissible
    assert hint_violations(puzzle, board) == [v for v in full.violations if v.kind == "hint"]  # read from hints


@settings(max_examples=300, deadline=None)  # the first case imports numpy
@given(planted(), st.randoms(use_true_random=False), st.booleans())
def test_the_vectorised_check_answers_only_what_the_loop_answers_the_same(pair, rng, list_seams):
    """The whole-board pass (numpy) either gives exactly the loop's result, or leaves the board to the loop
    because it breaks a rule besides seams and hints (or a seam while seams are listed). Boards scrambled by
    swaps, turns (4 is out of range), a tile twice and a tile that does not exist."""
    puzzle, solution = pair
    cells = list(solution.cells)
    for _ in range(rng.randint(0, 3)):
        i, j = rng.randrange(len(cells)), rng.randrange(len(cells))
        move = rng.randrange(6)
        if move <= 2:
            cells[i], cells[j] = cells[j], cells[i]
        elif move == 3:
            cells[i] = (cells[i][0], rng.randrange(5))
        elif move == 4:
            cells[i] = cells[j]
        else:
            cells[i] = (len(puzzle.tiles) + rng.randrange(2), cells[i][1])
    board = Solution(solution.width, solution.height, tuple(cells))
    fast, listed = _only_seams_broken(puzzle, board, list_seams), _listed(puzzle, board, list_seams)
    if fast is None:
        assert any(v.kind not in ("seam", "hint") for v in listed.violations) or \
            (list_seams and listed.score < listed.max_score)
    else:
        assert fast == listed
