"""Symmetry breaking in the native count: fixing the board's turn with an anchor tile and multiplying back
must give exactly the counts of the unbroken search (and of the brute force), raw and distinct."""

import random

import pytest

import edgematch
from edgematch.core.analysis import facts
from edgematch.core.generator import GeneratorSpec, generate, random_tiles
from edgematch.core.symmetry import board_turns
from edgematch.core.tiletypes import tile_types
from edgematch.encodings.domains import anchor
from edgematch.solvers.native.tables import build_tables
from tests.oracle import all_solutions


def square_and_rectangular_boards(n: int, seed: int = 14):
    """Seeded boards 2x2..4x4 and rectangles, every feature; most have an anchor (the case under test)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        w, h = rng.choice([(2, 2), (3, 3), (4, 4), (2, 3), (3, 2), (2, 4), (4, 3)])
        rule = rng.choice(["same", "signed"])
        if rng.random() < 0.15:
            puzzle = random_tiles(w, h, rng.randint(2, 3), rule, rotations=True, seed=rng.randrange(10**6))
        else:
            framed = rng.random() < 0.4
            spec = GeneratorSpec(w, h, colours=rng.randint(2, 4), framed=framed, border_colours=rng.randint(1, 3),
                                 inner_colours=rng.randint(2, 4), rule=rule, rotations=rng.random() < 0.9,
                                 seed=rng.randrange(10**6))
            puzzle, solution = generate(spec)
            if rng.random() < 0.1:
                cell = rng.randrange(puzzle.size)
                puzzle = puzzle.replace(hints=((cell, *solution.cells[cell]),))
        if facts(puzzle).expected_solutions < 5000:  # counts that finish in milliseconds
            out.append(puzzle)
    return out


BOARDS = square_and_rectangular_boards(200)


def test_the_sample_exercises_the_anchor():
    anchored = [p for p in BOARDS if build_tables(p, symmetry=True).anchor is not None]
    squares = [p for p in anchored if p.width == p.height]
    assert len(anchored) >= 120 and len(squares) >= 60
    assert any(build_tables(p, symmetry=True).folded == 2 for p in anchored)  # rectangles fold 2 turns


@pytest.mark.parametrize("chunk", range(4))
def test_broken_counts_equal_unbroken(chunk):
    for puzzle in BOARDS[chunk::4]:
        broken = edgematch.count(puzzle, distinct=True, backend="native", time_limit=30)
        plain = edgematch.count(puzzle, distinct=True, backend="native", time_limit=30, symmetry="off")
        assert broken.status == plain.status and plain.status.value in ("solved", "unsat"), puzzle
        assert (broken.count, broken.distinct) == (plain.count, plain.distinct), puzzle
        assert "anchor" not in plain.counters


def test_anchored_search_visits_fewer_boards_and_nodes():
    """A 4x4 with an anchor: the broken search finds a quarter of the boards and spends fewer nodes."""
    puzzle, _ = generate(GeneratorSpec(4, 4, colours=6, seed=3))
    assert anchor(puzzle, tile_types(puzzle), board_turns(puzzle)) is not None
    broken = edgematch.count(puzzle, backend="native")
    plain = edgematch.count(puzzle, backend="native", symmetry="off")
    assert broken.count == plain.count > 0
    assert broken.counters["boards"] * 4 == plain.counters["boards"]
    assert broken.counters["nodes"] < plain.counters["nodes"]


def test_broken_counts_equal_the_brute_force_on_small_boards():
    from edgematch.core.symmetry import distinct_key

    small = [p for p in BOARDS if p.size <= 6][:40]
    assert len(small) >= 20
    for puzzle in small:
        every = list(all_solutions(puzzle))
        got = edgematch.count(puzzle, distinct=True, backend="native")
        assert got.count == len(every), puzzle
        assert got.distinct == len({distinct_key(puzzle, s) for s in every}), puzzle


def test_symmetry_option_is_checked_and_never_changes_listings():
    puzzle = edgematch.read_puzzle("examples/hunde.hunde")
    with pytest.raises(edgematch.UsageError):
        edgematch.count(puzzle, backend="native", symmetry="sometimes")
    listed = edgematch.solutions(puzzle, backend="native")
    assert len(list(listed)) == 16  # every raw solution is still listed: only counts fold the turns
