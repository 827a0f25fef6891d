"""native:restarts: shuffled buckets, the Luby schedule, and answers checked against the brute-force oracle."""

import numpy as np
import pytest

import edgematch
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.errors import UsageError
from edgematch.solvers.native.search import luby
from edgematch.solvers.native.tables import build_tables, shuffled
from tests.oracle import all_solutions
from tests.samples import random_small_puzzles

SMALL = random_small_puzzles(120, seed=77)


def test_luby_sequence():
    # the sequence as Luby, Sinclair and Zuckerman define it: t_i = 2^(k-1) if i = 2^k - 1,
    # else t_(i - 2^(k-1) + 1) for 2^(k-1) <= i < 2^k - 1
    def by_definition(i: int) -> int:
        k = i.bit_length()
        return 1 << (k - 1) if i == (1 << k) - 1 else by_definition(i - (1 << (k - 1)) + 1)

    assert [luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]
    assert all(luby(i) == by_definition(i) for i in range(1, 600))


@pytest.mark.parametrize("seed", range(6))
def test_shuffling_permutes_within_buckets_only(seed):
    puzzle, _ = generate(GeneratorSpec(5, 5, colours=3, framed=seed % 2 == 0, border_colours=2, seed=seed))
    tables = build_tables(puzzle)
    copy, perm = shuffled(tables, np.random.default_rng(seed))
    assert sorted(perm) == list(range(len(tables.cand_type)))
    assert perm.tolist() != list(range(len(perm)))  # something moved
    for name in ("cand_type", "cand_rot", "cand_edge", "cand_vis"):
        assert np.array_equal(getattr(copy, name), getattr(tables, name)[perm])
    for start, end in zip(tables.tab_start, tables.tab_end, strict=True):
        assert sorted(perm[start:end]) == list(range(start, end))


@pytest.mark.parametrize("chunk", range(4))
def test_answers_agree_with_the_oracle_under_many_restarts(chunk):
    for puzzle in SMALL[chunk::4]:
        expected = set(all_solutions(puzzle))
        # a tiny unit forces dozens of restarts before a run is long enough to finish its tree
        result = edgematch.solve(puzzle, backend="native:restarts", unit=2, seed=chunk)
        if expected:
            assert result.status.value == "solved" and result.solution in expected, puzzle
            assert check(puzzle, result.solution).ok
        else:
            assert result.status.value == "unsat", puzzle


@pytest.mark.parametrize("keep_first", [True, False])
def test_restarts_over_several_orders_agree_with_the_oracle(keep_first):
    """Restarts taking three fill orders in turn (built lazily), with and without the plain search kept:
    the answer decodes with the tables that found it and is one of the oracle's; unsat is proved."""
    from edgematch.solvers.native.search import drive_restarts
    from edgematch.solvers.native.tables import decode

    for puzzle in SMALL[:40]:
        orders = [lambda name=name, puzzle=puzzle: build_tables(puzzle, name) for name in ("spiral", "row", "frame")]
        outcome, _, found_by = drive_restarts(orders, unit=2, seed=5, keep_first=keep_first)
        expected = set(all_solutions(puzzle))
        if expected:
            solution = decode(puzzle, found_by, outcome.found[0])
            assert solution in expected, puzzle
        else:
            assert outcome.finished and not outcome.found, puzzle


def test_restarts_happen_and_the_seed_reproduces_them():
    puzzle, _ = generate(GeneratorSpec(6, 6, colours=4, framed=True, border_colours=3, seed=5))
    # in the file's order: in the rarest-first order (the default) the first run finds this board in 50 nodes
    runs = [edgematch.solve(puzzle, backend="native:restarts", unit=50, seed=s, values="index")
            for s in (1, 1, 2, 3, 4)]
    assert all(r.status.value == "solved" and check(puzzle, r.solution).ok for r in runs)
    assert all(r.counters["restarts"] > 0 for r in runs)
    same = ("nodes", "restarts")
    assert runs[0].solution == runs[1].solution
    assert [runs[0].counters[k] for k in same] == [runs[1].counters[k] for k in same]
    assert len({r.solution for r in runs}) > 1  # different seeds search different orders


def test_counting_walks_the_whole_tree_as_plain_native():
    puzzle, _ = generate(GeneratorSpec(4, 4, colours=4, rule="signed", seed=3))
    plain = edgematch.count(puzzle, distinct=True, backend="native")
    restarting = edgematch.count(puzzle, distinct=True, backend="native:restarts")
    assert (restarting.count, restarting.distinct) == (plain.count, plain.distinct) and plain.count > 0
    assert "restarts" not in restarting.counters


def test_time_limit_stops_the_restarts():
    puzzle, _ = generate(GeneratorSpec(12, 12, colours=10, framed=True, border_colours=3, seed=1))
    # the static order: its tables take milliseconds, where the dynamic one auto picks for 100+ free cells takes
    # 0.2 s of CPU, which a loaded machine stretches past the limit (the build counts: nothing would restart)
    result = edgematch.solve(puzzle, backend="native:restarts", time_limit=0.3, order="row")
    assert result.status.value == "timeout" and result.counters["restarts"] > 0
    assert result.timings.solve < 2.0


@pytest.mark.parametrize(("backend", "options", "message"), [
    ("native:fast", {}, "unknown native variant 'fast'"),
    ("native:dfs", {"unit": 5}, "unit and seed are options of the restarts"),
    ("native", {"unit": 0}, "option unit: must be at least 1"),
    ("native:restarts", {"unit": 0}, "option unit: must be at least 1"),
    ("native:restarts", {"seed": "x"}, "option seed: expected a whole number"),
])
def test_bad_variants_and_options_are_named(backend, options, message):
    puzzle = edgematch.read_puzzle("examples/insects.em")
    with pytest.raises(UsageError, match=message):
        edgematch.solve(puzzle, backend=backend, **options)


@pytest.mark.parametrize(("call", "options", "message"), [
    (edgematch.count, {"seed": 5}, "seed is an option of the restarts"),
    (edgematch.count, {"unit": 7, "seed": 1}, "seed and unit are options of the restarts"),
    (edgematch.solve_all, {"unit": 7}, "unit is an option of the restarts"),
    (edgematch.solve, {"symmetry": "off"}, "symmetry is an option of count"),
    (edgematch.solve_all, {"symmetry": "off"}, "symmetry is an option of count"),
])
def test_options_a_question_never_uses_are_refused_not_ignored(call, options, message):
    """A count or a listing took seed and unit and a solution took symmetry, without effect or a word (the same
    nodes either way): each is refused with the reason, also when auto finds no backend that takes it."""
    puzzle = edgematch.read_puzzle("examples/insects.em")
    with pytest.raises(UsageError, match=message):
        call(puzzle, backend="native", **options)
    assert edgematch.count(puzzle, backend="native", symmetry="off").count == 4  # where it does apply
    assert edgematch.solve(puzzle, backend="native", seed=3).status.value == "solved"
    with pytest.raises(UsageError, match="unit is an option of the restarts"):  # no other backend takes unit
        edgematch.solve_all(puzzle, backend="auto", unit=7)
