"""Counting distinct boards only up to a bound (what unique_puzzle rejects a try by): the bound and the full
count agree, with and without an anchor tile folding the board turns, and the unique search keeps the attempt
a full count keeps."""

from dataclasses import replace

import pytest

from edgematch.core.generator import GeneratorSpec, generate
from edgematch.core.symmetry import distinct_key
from edgematch.solvers.api import count
from edgematch.solvers.native.count.upto import distinct_upto
from edgematch.solvers.native.tables import build_tables
from edgematch.solvers.unique import unique_puzzle
from tests.oracle import all_solutions

# tries of the scaling suite's unique families: a few with one distinct board, most with 2-22
SPECS = [GeneratorSpec(4, 4, like="clue", seed=1, attempt=a) for a in range(2)] + \
        [GeneratorSpec(5, 5, like="e2", seed=s, attempt=a) for s in (1, 4) for a in range(3)] + \
        [GeneratorSpec(3, 3, like="cards", rule="signed", seed=4, attempt=a) for a in range(4)]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.like}-{s.width}x{s.height}-seed{s.seed}-try{s.attempt}")
def test_the_bound_agrees_with_the_full_count(spec):
    puzzle, _ = generate(spec)
    full = count(puzzle, distinct=True, backend="native").distinct
    for most in (1, 2, 3):
        upto = distinct_upto(puzzle, most)
        assert upto.distinct == min(full, most)
        if full < most:  # the whole tree searched: the exact count
            assert upto.finished


@pytest.mark.parametrize("seed", [1, 29, 32])
def test_the_bound_uses_the_canonical_test_where_no_anchor_folds_the_turns(seed):
    """Two colours on 2x2: every tile repeats or is symmetric, so no anchor fixes the board's turn and each
    board is tested against its turns (1, 4 and 30 distinct by brute force)."""
    puzzle, _ = generate(GeneratorSpec(2, 2, colours=2, seed=seed))
    tables = build_tables(puzzle, symmetry=True)
    assert tables.anchor is None and tables.turn_src.shape[0]
    full = len({distinct_key(puzzle, s) for s in all_solutions(puzzle)})
    for most in (1, 2, 5):
        upto = distinct_upto(puzzle, most)
        assert upto.distinct == min(full, most)
        assert upto.finished or upto.distinct == most


def test_unique_keeps_the_first_attempt_a_full_count_keeps():
    spec = GeneratorSpec(5, 5, like="e2", seed=1)
    _, _, tries = unique_puzzle(spec)
    counts = [count(generate(replace(spec, attempt=a))[0], distinct=True, backend="native").distinct
              for a in range(tries)]
    assert counts[-1] == 1 and all(c > 1 for c in counts[:-1])
