"""The vectorised passes over a puzzle's tiles (tile types, edge classes: numpy since issue 39, where a 250x250
board spent seconds in them) against their definitions written plainly, tile by tile."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from edgematch.core.analysis import edge_classes
from edgematch.core.model import SIDES, Puzzle, Tile
from edgematch.core.tiletypes import placements, tile_types
from tests.strategies import planted

LABELS = st.sampled_from([-4, -3, -2, -1, 1, 2, 3, 4, -(10**18) + 1, 10**18 - 1, 2**40])  # 0 is no signed label


@st.composite
def puzzles(draw) -> Puzzle:
    """Planted puzzles (framed, hinted, signed...) and boards of arbitrary tiles the generator never makes:
    any labels, repeated tiles, self-symmetric ones."""
    if draw(st.booleans()):
        puzzle, solution = draw(planted(max_side=5, extras=False))
        cells = draw(st.sets(st.integers(0, puzzle.size - 1), max_size=min(3, puzzle.size)))
        return puzzle.replace(hints=tuple((c, *solution.cells[c]) for c in sorted(cells)))
    w, h = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    pool = draw(st.lists(st.tuples(LABELS, LABELS, LABELS, LABELS), min_size=1, max_size=4))
    tiles = [Tile(draw(st.sampled_from(pool))) for _ in range(w * h)]
    return Puzzle(w, h, tuple(tiles), rule=draw(st.sampled_from(["same", "signed"])), rotations=draw(st.booleans()))


def plain_types(puzzle: Puzzle):
    """Types by the definition: free tiles grouped by their canonical edges, in order of first appearance;
    each member with the fewest turns taking the representative to it."""
    hinted = {t for _, t, _ in puzzle.hints}
    free = [i for i in range(len(puzzle.tiles)) if i not in hinted]
    keys = {i: puzzle.tiles[i].canonical(puzzle.rotations) for i in free}
    reps = list(dict.fromkeys(keys[i] for i in free))
    members = [[(i, next(d for d in range(4) if Tile(rep).rotated(d) == puzzle.tiles[i].edges))
                for i in free if keys[i] == rep] for rep in reps]
    turns = [tuple(dict.fromkeys(Tile(rep).rotated(r) for r in range(4))) if puzzle.rotations else (rep,)
             for rep in reps]
    multiplier = math.prod(math.factorial(len(m)) * (4 // len(t) if puzzle.rotations else 1) ** len(m)
                           for m, t in zip(members, turns, strict=True))
    return reps, members, [len(t) for t in turns], multiplier


@settings(max_examples=300, deadline=None)
@given(puzzles())
def test_tile_types_are_the_tiles_grouped_by_their_canonical_edges(puzzle):
    types = tile_types(puzzle)
    reps, members, periods, multiplier = plain_types(puzzle)
    assert list(types.reps) == reps
    assert [list(m) for m in types.members] == members
    assert [len(t) for t in types.turns] == periods
    assert types.multiplier == multiplier


def plain_classes(puzzle: Puzzle) -> tuple[set[int], set[int]]:
    """Rim labels: on a side next to a side showing the frame; inner: every other label but the frame."""
    rim, inner = set(), set()
    for tile in puzzle.tiles:
        for s in SIDES:
            if puzzle.frame is not None and tile.edges[s] == puzzle.frame:
                continue
            beside = puzzle.frame is not None and puzzle.frame in (tile.edges[(s + 1) % 4], tile.edges[(s - 1) % 4])
            (rim if beside else inner).add(tile.edges[s])
    return rim, inner


@settings(max_examples=300, deadline=None)
@given(puzzles())
def test_edge_classes_split_labels_beside_the_frame_from_the_rest(puzzle):
    classes = edge_classes(puzzle)
    assert (set(classes.rim_values), set(classes.inner_values)) == plain_classes(puzzle)


def test_the_edge_array_is_the_tiles_labels_and_read_only():
    puzzle = Puzzle(2, 1, (Tile((1, -2, 3, 10**18 - 1)), Tile((0, 0, 0, 0))))
    array = puzzle.edge_array
    assert array.tolist() == [[1, -2, 3, 10**18 - 1], [0, 0, 0, 0]] and not array.flags.writeable
    assert puzzle.edge_array is array  # made once


def test_grouping_keeps_first_appearance_order_for_a_big_board_of_repeats():
    # 3 kinds of tile in a repeating pattern, turned at random: three types, in the order they first appear
    kinds = [(1, 2, 3, 4), (5, 5, 5, 5), (1, 2, 1, 2)]
    tiles = [Tile(kinds[(i * 7) % 3]).rotated(i % 4) for i in range(400)]
    types = tile_types(Puzzle(20, 20, tuple(Tile(t) for t in tiles)))
    assert list(types.reps) == [Tile(kind).canonical() for kind in kinds]
    assert sorted(len(m) for m in types.members) == sorted([134, 133, 133])


@settings(max_examples=200, deadline=None)
@given(puzzles(), st.integers(0, 3))
def test_placements_are_each_types_turns_as_shown(puzzle, extra):
    types = tile_types(puzzle)
    assert placements(types) == [(t, r, types.shown(t, r)) for t in range(len(types.reps)) for r in types.turns[t]]
    every = [range(4) if t % 2 else (extra,) for t in range(len(types.reps))]  # turns given per type
    assert placements(types, every) == [(t, r, types.shown(t, r)) for t in range(len(types.reps)) for r in every[t]]
