"""The puzzle model: rotation convention, validation errors, geometry."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgematch.core.model import E, Hint, N, Puzzle, S, Tile, W, rotate_edges
from edgematch.errors import PuzzleError

labels = st.integers(-9, 9)
edges = st.tuples(labels, labels, labels, labels)


def test_one_turn_brings_west_to_north():
    # docs/architecture.md: after one clockwise turn the old W edge faces N
    assert Tile((1, 2, 3, 4)).rotated(1) == (4, 1, 2, 3)
    assert Tile((1, 2, 3, 4)).rotated(3) == (2, 3, 4, 1)


@given(edges, st.integers(-8, 8))
def test_four_turns_are_the_identity(e, start):
    turned = rotate_edges(e, start)
    for _ in range(4):
        turned = rotate_edges(turned, 1)
    assert turned == rotate_edges(e, start)
    assert rotate_edges(e, 4) == e


@given(edges, st.integers(0, 3), st.integers(0, 3))
def test_turns_compose(e, a, b):
    assert rotate_edges(rotate_edges(e, a), b) == rotate_edges(e, a + b)


@given(edges)
def test_period_and_distinct_rotations(e):
    tile = Tile(e)
    looks = {tile.rotated(r) for r in range(4)}
    assert len(looks) == tile.period() == len(tile.distinct_rotations())


def _square(tiles, **kw):
    return Puzzle(2, 2, tuple(Tile(t) for t in tiles), **kw)


def test_wrong_tile_count_is_an_error():
    with pytest.raises(PuzzleError, match="needs 4 tiles, got 3"):
        Puzzle(2, 2, (Tile((1, 1, 1, 1)),) * 3)


def test_signed_puzzle_rejects_label_zero_unless_it_is_the_frame():
    with pytest.raises(PuzzleError, match="label 0 has no opposite"):
        _square([(0, 1, -1, 2)] * 4, rule="signed")
    # 0 as the frame is fine: four corners of a framed 2x2
    _square([(0, 1, -1, 0), (0, 0, 1, -1), (-1, 0, 0, 1), (1, -1, 0, 0)], rule="signed", frame=0)


def test_frame_counts_are_validated():
    with pytest.raises(PuzzleError, match="the frame needs 4 corner"):
        _square([(0, 1, 1, 0), (0, 0, 1, 1), (1, 0, 0, 1), (1, 1, 1, 1)], frame=0)


def test_frame_counts_without_rotation_need_exact_sides():
    corners = [(0, 1, 1, 0), (0, 0, 1, 1), (1, 0, 0, 1), (1, 1, 0, 0)]
    _square(corners, frame=0, rotations=False)
    turned = [corners[1], corners[0], corners[2], corners[3]]  # order does not matter
    _square(turned, frame=0, rotations=False)
    with pytest.raises(PuzzleError, match="frame needs"):
        _square([corners[0]] * 4, frame=0, rotations=False)


def test_hint_problems_are_listed():
    tiles = [(1, 1, 1, 1)] * 4
    with pytest.raises(PuzzleError, match="cell 9 is off the 2x2 board"):
        _square(tiles, hints=(Hint(9, 0, 0),))
    with pytest.raises(PuzzleError, match="cell 0 is already fixed"):
        _square(tiles, hints=(Hint(0, 0, 0), Hint(0, 1, 0)))
    with pytest.raises(PuzzleError, match="tile 0 is already placed"):
        _square(tiles, hints=(Hint(0, 0, 0), Hint(1, 0, 0)))
    with pytest.raises(PuzzleError, match="rotation 5"):
        _square(tiles, hints=(Hint(0, 0, 5),))
    with pytest.raises(PuzzleError, match="forbids rotating"):
        _square(tiles, hints=(Hint(0, 0, 1),), rotations=False)


def test_clashing_neighbour_hints_are_rejected():
    tiles = [(1, 2, 3, 4), (5, 6, 7, 8), (1, 1, 1, 1), (1, 1, 1, 1)]
    with pytest.raises(PuzzleError, match="hints on cells 0 and 1 clash"):
        _square(tiles, hints=(Hint(0, 0, 0), Hint(1, 1, 0)))


def test_label_names_must_be_unambiguous():
    tiles = [(1, 2, -1, -2)] * 4
    with pytest.raises(PuzzleError, match="both shown as '-a'"):
        _square(tiles, rule="signed", labels={1: "a", 2: "-a"})
    with pytest.raises(PuzzleError, match="looks like a number"):
        _square(tiles, rule="signed", labels={1: "7"})


def test_geometry_of_a_rectangle():
    p = Puzzle(3, 2, tuple(Tile((1, 1, 1, 1)) for _ in range(6)))
    assert p.seam_count == 3 * 1 + 2 * 2 == len(p.seams())
    assert p.neighbour(0, N) is None and p.neighbour(0, E) == 1 and p.neighbour(0, S) == 3
    assert p.neighbour(5, E) is None and p.neighbour(5, W) == 4
    assert p.border_sides(0) == (N, W) and p.border_sides(4) == (S,)


def test_partner_table_compiles_the_rule():
    same = _square([(1, 2, 1, 2)] * 4)
    signed = _square([(1, 2, -1, -2)] * 4, rule="signed")
    assert same.partner_table() == {1: 1, 2: 2}
    assert signed.partner_table() == {-2: 2, -1: 1, 1: -1, 2: -2}


def test_duplicate_groups_respect_rotation():
    p = _square([(1, 2, 3, 4), (4, 1, 2, 3), (1, 2, 3, 4), (5, 5, 5, 5)])
    assert p.duplicate_groups() == [[0, 1, 2]]
    q = p.replace(rotations=False)
    assert q.duplicate_groups() == [[0, 2]]


@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_a_board_from_an_array_is_the_board_from_its_pairs(w, h, data):
    import numpy as np

    from edgematch.core.model import Solution

    puzzle = Puzzle(w, h, tuple(Tile((1, 1, 1, 1)) for _ in range(w * h)))
    pairs = data.draw(st.lists(st.tuples(st.integers(-5, 20), st.integers(-9, 9)), min_size=w * h, max_size=w * h))
    board = Solution.from_array(puzzle, np.array(pairs, np.int64).reshape(-1, 2))
    assert board == Solution.from_pairs(puzzle, pairs)
    assert all(type(p).__name__ == "Placement" for p in board.cells)


@pytest.mark.parametrize("pairs", [
    [[0, 0], [1, 0], [2, 0]],  # a cell short
    [[0, 0], [1, 0], [2, 0], [10**18, 0]],  # a tile number past every label, in int64
    [[0, 0], [1, 0], [-10**18, 0], [3, 0]],
    [[0, 0], [1, 0], [2, 0], [10**40, 0]],  # past int64
    [[0.5, 0], [1, 0], [2, 0], [3, 0]],  # not whole
])
def test_a_board_from_a_bad_array_is_refused_as_from_its_pairs(pairs):
    import numpy as np

    from edgematch.core.model import Solution

    puzzle = Puzzle(2, 2, tuple(Tile((1, 1, 1, 1)) for _ in range(4)))
    array = np.array(pairs, dtype=object if any(abs(x) > 2**62 for p in pairs for x in p) else None)
    with pytest.raises(PuzzleError):
        Solution.from_array(puzzle, array)
