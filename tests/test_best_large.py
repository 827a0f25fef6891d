"""Native ``best`` on boards of 40x40 and more (issue 22, item 17): the admissible board's matching used to
recurse once per cell of a path and died with RecursionError from 32x32 on; it is now iterative, takes a free
tile before any path (linear on framed boards), and finds a board exactly when the textbook recursive search
does."""

from __future__ import annotations

import random

import pytest

import edgematch
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.core.model import Puzzle, Solution
from edgematch.solvers.base import Status
from edgematch.solvers.native.best.admissible import admissible_board
from edgematch.solvers.native.tables import cell_class, shows_class


def textbook_admissible_board(puzzle: Puzzle) -> Solution | None:
    """The matching as first written (Kuhn's augmenting paths, recursive): the oracle for small boards."""
    hinted = {c: (t, r) for c, t, r in puzzle.hints}
    hinted_tiles = {t for t, _ in hinted.values()}
    free_cells = [c for c in range(puzzle.size) if c not in hinted]
    turns = range(4) if puzzle.rotations else (0,)
    turn_for: dict[tuple[int, tuple[int, ...]], int] = {}
    for t, tile in enumerate(puzzle.tiles):
        if t not in hinted_tiles:
            for r in reversed(turns):
                turn_for[t, shows_class(puzzle, tile.rotated(r))] = r
    by_class: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for (t, klass), r in turn_for.items():
        by_class.setdefault(klass, []).append((t, r))
    fits = {c: by_class.get(cell_class(puzzle, c), []) for c in free_cells}
    owner: dict[int, int] = {}

    def augment(cell: int, seen: set[int]) -> bool:
        for t, _ in fits[cell]:
            if t in seen:
                continue
            seen.add(t)
            if t not in owner or augment(owner[t], seen):
                owner[t] = cell
                return True
        return False

    for c in free_cells:
        if not augment(c, set()):
            return None
    cells: list[tuple[int, int]] = [(0, 0)] * puzzle.size
    for c, (t, r) in hinted.items():
        cells[c] = (t, r)
    for t, c in owner.items():
        cells[c] = (t, dict(fits[c])[t])
    return Solution.from_pairs(puzzle, cells)


def test_a_board_is_found_exactly_when_the_textbook_matching_finds_one_and_keeps_every_rule():
    rng = random.Random(22)
    compared = 0
    for _ in range(400):
        w, h = rng.randint(1, 12), rng.randint(1, 12)
        like = rng.choice([None, None, "e2", "clue", "tetravex", "cards"])
        framed = rng.random() < 0.6 and w * h > 1 if like is None else None
        rotations = rng.random() < 0.8 if like is None else None
        try:
            puzzle, solution = generate(GeneratorSpec(w, h, colours=rng.randint(2, 5), framed=framed,
                                                      border_colours=2, inner_colours=3, rotations=rotations,
                                                      seed=rng.randrange(10**6), like=like))
        except edgematch.EdgematchError:
            continue  # a family that does not come in this size
        if rng.random() < 0.3:
            cells = rng.sample(range(puzzle.size), min(puzzle.size, rng.randint(1, 3)))
            puzzle = puzzle.replace(hints=tuple((c, *solution.cells[c]) for c in cells))
        board, textbook = admissible_board(puzzle), textbook_admissible_board(puzzle)
        assert (board is None) == (textbook is None), puzzle
        if board is not None:
            assert check(puzzle, board).admissible, puzzle
            assert all(board.cells[c] == (t, r) for c, t, r in puzzle.hints)
        compared += 1
    assert compared > 250


@pytest.mark.parametrize("like", ["e2", None])
def test_admissible_board_of_a_64x64(like):
    puzzle, _ = generate(GeneratorSpec(64, 64, like=like, seed=1))
    board = admissible_board(puzzle)
    assert board is not None and check(puzzle, board).admissible


@pytest.mark.parametrize("backend", ["native", "auto"])
def test_best_on_a_40x40_framed_board(backend):
    puzzle, _ = generate(GeneratorSpec(40, 40, like="e2", seed=1))
    result = edgematch.best(puzzle, backend=backend, time_limit=1.0)
    assert result.status is Status.TIMEOUT, result.message
    assert "native" in result.backend  # auto picks native here
    assert check(puzzle, result.solution).admissible
    assert result.score == check(puzzle, result.solution).score > 0
