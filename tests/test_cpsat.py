"""The CP-SAT backend: seed facts, agreement with the native backend, symmetry breaking, time limits."""

import time

import pytest

import edgematch
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate
from tests.oracle import all_solutions
from tests.samples import random_small_puzzles

pytest.importorskip("ortools")

FORMULATIONS = ["cpsat", "cpsat:table"]
SMALL = random_small_puzzles(200, seed=404)


@pytest.mark.parametrize("backend", FORMULATIONS)
@pytest.mark.parametrize("symmetry", [True, False])
@pytest.mark.parametrize(("path", "raw", "distinct"), [("examples/insects.arc", 4, 1), ("examples/hunde.hunde", 16, 2)])
def test_seed_facts(backend, symmetry, path, raw, distinct):
    puzzle = edgematch.read_puzzle(path)
    result = edgematch.count(puzzle, distinct=True, backend=backend, symmetry=symmetry)
    assert (result.status.value, result.count, result.distinct) == ("solved", raw, distinct)
    every = edgematch.solve_all(puzzle, backend=backend, symmetry=symmetry)
    assert len(set(every.solutions)) == raw


@pytest.mark.parametrize("backend", FORMULATIONS)
@pytest.mark.parametrize("symmetry", [True, False])
@pytest.mark.parametrize(("path", "raw", "distinct"), [
    ("tests/data/regressions/cpsat-table-4x4-unique.em", 1, 1),     # table: unsat under 9.15's presolve
    ("tests/data/regressions/cpsat-table-3x3-framed.em", 128, 2),   # table: 64 / 1
])
def test_boards_that_broke_the_table_model(backend, symmetry, path, raw, distinct):
    puzzle = edgematch.read_puzzle(path)
    result = edgematch.count(puzzle, distinct=True, backend=backend, symmetry=symmetry)
    assert (result.status.value, result.count) == ("solved", raw)
    assert result.count == sum(1 for _ in all_solutions(puzzle)) and result.distinct == distinct


def test_table_counts_small_framed_boards_with_turns_as_the_oracle_does():
    """The class where the table model lost solutions (3x3 framed, rotations on: 7% of boards with
    1-3 border and inner colours); the brute-force oracle is the judge."""
    for seed in range(120):
        spec = GeneratorSpec(3, 3, framed=True, border_colours=1 + seed % 3, inner_colours=1 + seed // 3 % 3,
                             rule=("same", "signed")[seed // 9 % 2], seed=seed)
        puzzle, _ = generate(spec)
        truth = sum(1 for _ in all_solutions(puzzle))
        result = edgematch.count(puzzle, backend="cpsat:table", symmetry=seed % 4 != 3)
        assert result.count == truth, spec


def test_racket_solved():
    puzzle = edgematch.read_puzzle("examples/racket4x4.rkt")
    for backend in FORMULATIONS:
        result = edgematch.solve(puzzle, backend=backend)
        assert result.status.value == "solved" and check(puzzle, result.solution).ok


@pytest.mark.parametrize("chunk", range(4))
def test_counts_equal_the_native_backend(chunk):
    """200 seeded puzzles; each formulation, with and without symmetry breaking, on a share of them."""
    for i, puzzle in enumerate(SMALL[chunk::4]):
        native = edgematch.count(puzzle, distinct=True, backend="native")
        backend = FORMULATIONS[i % 2]
        result = edgematch.count(puzzle, distinct=True, backend=backend, symmetry=(i // 2) % 2 == 0)
        assert (result.count, result.distinct) == (native.count, native.distinct), (backend, puzzle)
        assert result.status == native.status


def test_first_solutions_are_valid_or_unsat_agrees():
    for puzzle in SMALL[:60]:
        native = edgematch.solve(puzzle, backend="native")
        for backend in FORMULATIONS:
            result = edgematch.solve(puzzle, backend=backend)
            assert result.status == native.status  # solutions themselves are checked by the API


def test_all_solutions_equal_the_native_ones():
    for puzzle in SMALL[:40]:
        expected = set(edgematch.solve_all(puzzle, backend="native").solutions)
        for backend in FORMULATIONS:
            assert set(edgematch.solve_all(puzzle, backend=backend).solutions) == expected


def test_symmetry_breaking_folds_the_turns():
    puzzle = edgematch.read_puzzle("examples/racket3x3.rkt")
    anchored = edgematch.count(puzzle, distinct=True, backend="cpsat")
    plain = edgematch.count(puzzle, distinct=True, backend="cpsat", symmetry=False)
    assert anchored.options["anchor"] is not None and plain.options["anchor"] is None
    assert (anchored.count, anchored.distinct) == (plain.count, plain.distinct)
    assert plain.counters["boards"] == 4 * anchored.counters["boards"]


def test_time_limit_of_one_second_returns_within_two():
    puzzle, _ = generate(GeneratorSpec(9, 9, framed=True, border_colours=4, inner_colours=8, seed=1))
    for backend in FORMULATIONS:
        start = time.perf_counter()
        result = edgematch.solve(puzzle, backend=backend, time_limit=1.0)
        assert time.perf_counter() - start < 2.0
        assert result.status.value == "timeout"


def test_parameters_are_recorded_and_options_checked():
    puzzle = edgematch.read_puzzle("examples/insects.em")
    result = edgematch.solve(puzzle, backend="cpsat", seed=7, workers=2)
    assert result.options["random_seed"] == 7 and result.options["num_workers"] == 2
    assert {"conflicts", "branches", "booleans", "wall_time"} <= set(result.counters)
    assert result.timings.build > 0
    with pytest.raises(edgematch.UsageError, match="unknown option"):
        edgematch.solve(puzzle, backend="cpsat", order="row")
    with pytest.raises(edgematch.UsageError, match="unknown CP-SAT formulation"):
        edgematch.solve(puzzle, backend="cpsat:mip")
