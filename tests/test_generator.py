"""The generator: reproducible, shaped as asked, and its planted solution is valid."""

import pytest

from edgematch.core.analysis import edge_classes, facts
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate, peak_colours, random_tiles
from edgematch.errors import UsageError


def test_same_seed_same_puzzle_other_seed_other_puzzle():
    spec = GeneratorSpec(5, 4, colours=5, seed=11)
    assert generate(spec) == generate(spec)
    assert generate(spec)[0].tiles != generate(GeneratorSpec(5, 4, colours=5, seed=12))[0].tiles


def test_framed_puzzle_has_separate_rim_and_inner_colours():
    puzzle, solution = generate(GeneratorSpec(6, 5, framed=True, border_colours=2, inner_colours=4, seed=3))
    f = facts(puzzle)
    assert (f.corner_tiles, f.border_tiles, f.inner_tiles) == (4, 2 * 4 + 2 * 3, 4 * 3)
    classes = edge_classes(puzzle)
    assert classes.rim_values <= {1, 2}  # border colours are labels 1..2
    assert classes.inner_values <= {3, 4, 5, 6}  # inner colours follow them
    assert f.rim_colours == len(classes.rim_values) and f.inner_colours == len(classes.inner_values)
    assert check(puzzle, solution).ok


@pytest.mark.parametrize("rule", ["same", "signed"])
def test_rotations_off_keeps_tiles_upright(rule):
    puzzle, solution = generate(GeneratorSpec(4, 4, colours=3, rule=rule, rotations=False, seed=5))
    assert not puzzle.rotations
    assert all(r == 0 for _, r in solution.cells)
    assert check(puzzle, solution).ok


def test_no_duplicates_when_asked():
    for seed in range(20):
        puzzle, _ = generate(GeneratorSpec(3, 3, colours=3, duplicates=False, seed=seed))
        assert puzzle.duplicate_groups() == []


def test_impossible_no_duplicate_request_says_so():
    with pytest.raises(UsageError, match="without duplicate tiles"):
        generate(GeneratorSpec(4, 4, colours=1, duplicates=False))


def test_random_tiles_like_the_arc_article():
    puzzle = random_tiles(3, 3, colours=4, rule="signed", seed=1)
    values = {x for t in puzzle.tiles for x in t.edges}
    assert values <= set(range(-4, 5)) - {0}
    # the article: 9! * 4^9 / 8^12 = 1.38 expected solutions
    assert facts(puzzle).expected_solutions == pytest.approx(362880 * 4**9 / 8**12)


def test_eternity_iis_own_colours_sit_at_the_peak():
    """A fact from outside: the real 16x16 puzzle's 5 rim and 17 inner colours are where a random board of
    its shape expects one solution."""
    assert peak_colours(16, 16, 5) == 17


@pytest.mark.parametrize(("side", "rim"), [(6, 2), (8, 3), (8, 5), (9, 3), (10, 4)])
def test_peak_boards_have_the_inner_colours_nearest_one_expected_solution(side, rim):
    """The generator's choice, checked by the analysis of the boards themselves (``edgematch info``): one
    colour fewer or more inside puts the expected solutions further from one."""
    spec = GeneratorSpec(side, side, like="peak", border_colours=rim, seed=side)
    puzzle, solution = generate(spec)
    assert check(puzzle, solution).ok
    got = facts(puzzle)
    assert (got.rim_colours, got.inner_colours) == (rim, spec.inner_colours)
    for other in (spec.inner_colours - 1, spec.inner_colours + 1):
        if other >= 2:
            near, _ = generate(GeneratorSpec(side, side, framed=True, border_colours=rim, inner_colours=other,
                                             seed=side))
            assert facts(near).inner_colours == other
            assert abs(got.log10_expected_solutions) <= abs(facts(near).log10_expected_solutions)


def test_peak_defaults_and_limits():
    spec = GeneratorSpec(8, 8, like="peak")
    assert (spec.framed, spec.rule, spec.rotations, spec.border_colours, spec.inner_colours) == (
        True, "same", True, 3, 8)
    assert GeneratorSpec(8, 8, like="peak", inner_colours=5).inner_colours == 5  # given: kept
    with pytest.raises(UsageError, match="at least 2x2"):
        GeneratorSpec(1, 6, like="peak")
