"""The native backend against the seed facts and the brute-force oracle, plus its splitting and limits."""


import pytest

import edgematch
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.core.symmetry import distinct_key
from edgematch.errors import UsageError
from edgematch.solvers.native.count.parts import plan, run_part
from edgematch.solvers.native.tables import ORDERS, build_tables, fill_order
from tests.oracle import all_solutions
from tests.samples import holds_every_kind, random_small_puzzles


@pytest.mark.parametrize(("path", "raw", "distinct"), [
    ("examples/insects.em", 4, 1), ("examples/insects.arc", 4, 1),
    ("examples/hunde.em", 16, 2), ("examples/hunde.hunde", 16, 2),
])
def test_seed_facts(path, raw, distinct):
    result = edgematch.count(edgematch.read_puzzle(path), distinct=True, backend="native")
    assert (result.status.value, result.count, result.distinct) == ("solved", raw, distinct)


def test_the_racket_puzzles_are_solved():
    for path in ("examples/racket3x3.rkt", "examples/racket4x4.rkt"):
        puzzle = edgematch.read_puzzle(path)
        result = edgematch.solve(puzzle, backend="native")
        assert result.status.value == "solved" and check(puzzle, result.solution).ok


SMALL = random_small_puzzles(320)


@pytest.mark.parametrize("share", [slice(None), slice(0, 60)], ids=["all", "first60"])
def test_the_sample_covers_every_kind(share):
    assert holds_every_kind(SMALL[share])


@pytest.mark.parametrize("chunk", range(8))
def test_counts_agree_with_the_brute_force_oracle(chunk):
    for puzzle in SMALL[chunk::8]:
        expected = list(all_solutions(puzzle))
        keys = {distinct_key(puzzle, s) for s in expected}
        result = edgematch.count(puzzle, distinct=True, backend="native")
        assert (result.count, result.distinct) == (len(expected), len(keys)), puzzle
        assert result.status.value == ("solved" if expected else "unsat")


@pytest.mark.parametrize("order", ORDERS)
def test_every_fill_order_finds_the_same_solutions(order):
    for puzzle in SMALL[:60]:
        expected = set(all_solutions(puzzle))
        result = edgematch.solve_all(puzzle, backend="native", order=order, distinct=True)
        assert set(result.solutions) == expected and len(result.solutions) == len(expected)


@pytest.mark.parametrize("order", ["band2", "column"])
@pytest.mark.parametrize(("width", "height"), [(1, 1), (1, 4), (4, 1), (3, 3), (5, 4), (4, 5), (6, 7)])
def test_band2_and_column_fill_every_cell_once_with_a_placed_neighbour(width, height, order):
    puzzle, _ = generate(GeneratorSpec(width, height, colours=3, seed=1))
    cells = fill_order(puzzle, order)
    assert sorted(cells) == list(range(width * height))
    for k, cell in enumerate(cells[1:], 1):  # each cell but the first meets one placed before it (a seam)
        r, c = divmod(cell, width)
        assert {(r - 1) * width + c if r else None, cell - 1 if c else None} & set(cells[:k])


@pytest.mark.parametrize("spec", [
    GeneratorSpec(5, 5, framed=True, border_colours=2, inner_colours=3, seed=4),  # 3,787,776 boards
    GeneratorSpec(5, 4, framed=True, border_colours=2, inner_colours=4, seed=3),
    GeneratorSpec(4, 5, colours=5, rotations=False, seed=2),
    GeneratorSpec(4, 4, colours=3, rule="signed", seed=6),  # 79,416 boards
])
@pytest.mark.parametrize("order", ["band2", "column"])
def test_band2_and_column_count_what_the_row_scan_counts(spec, order):
    """Beyond the oracle's 3x3 boards: whole bands and a last band of one row, and columns of boards wider than
    high and higher than wide, give the row scan's counts."""
    puzzle, _ = generate(spec)
    row = edgematch.count(puzzle, distinct=True, backend="native", order="row")
    other = edgematch.count(puzzle, distinct=True, backend="native", order=order)
    assert row.count > 0 and (other.count, other.distinct) == (row.count, row.distinct)


def test_solutions_generator_honours_the_limit_and_checks():
    puzzle = edgematch.read_puzzle("examples/hunde.em")
    assert len(list(edgematch.solutions(puzzle, limit=5))) == 5
    every = list(edgematch.solutions(puzzle))
    assert len(every) == len(set(every)) == 16


def test_parts_partition_the_tree_exactly():
    puzzle, _ = generate(GeneratorSpec(4, 4, colours=4, rule="signed", seed=3))
    whole = edgematch.count(puzzle, distinct=True, backend="native")
    tables = build_tables(puzzle)
    parts, _ = plan(tables, 20)
    assert len(parts) >= 20
    outcomes = [run_part(puzzle, "row", part, 0, True, None) for part in parts]
    assert sum(o.solutions for o in outcomes) * tables.raw_multiplier == whole.count
    assert sum(o.canonical for o in outcomes) == whole.distinct


def test_workers_merge_counts_exactly():
    puzzle, _ = generate(GeneratorSpec(4, 4, colours=4, rule="signed", seed=3))
    one = edgematch.count(puzzle, distinct=True, backend="native")
    two = edgematch.count(puzzle, distinct=True, backend="native", workers=2)
    assert (one.count, one.distinct) == (two.count, two.distinct) and one.count > 0
    first = edgematch.solve(puzzle, backend="native", workers=2)
    assert first.status.value == "solved" and check(puzzle, first.solution).ok


def test_time_limit_stops_a_long_count():
    puzzle, _ = generate(GeneratorSpec(7, 7, colours=2, seed=1))
    result = edgematch.count(puzzle, backend="native", time_limit=0.3)
    assert result.status.value == "timeout" and result.counters["nodes"] > 0
    assert result.timings.solve < 2.0


def test_unknown_backend_and_options_are_named():
    puzzle = edgematch.read_puzzle("examples/insects.em")
    with pytest.raises(UsageError, match="unknown backend 'fast'; valid backends: auto, native"):
        edgematch.solve(puzzle, backend="fast")
    with pytest.raises(UsageError, match="unknown order 'zigzag'"):
        edgematch.solve(puzzle, order="zigzag")
    with pytest.raises(UsageError, match="unknown option"):
        edgematch.solve(puzzle, colour="red")


def test_all_cells_hinted():
    puzzle, solution = generate(GeneratorSpec(2, 2, colours=2, seed=4))
    pinned = puzzle.replace(hints=tuple((c, *solution.cells[c]) for c in range(4)))
    result = edgematch.count(pinned, distinct=True)
    assert (result.count, result.distinct) == (1, 1)
    assert edgematch.solve(pinned).solution == solution


@pytest.mark.parametrize("part", [slice(0, 60), pytest.param(slice(60, 120), marks=pytest.mark.slow)],
                         ids=["first60", "next60"])
@pytest.mark.parametrize("order", ["row", "band2", "dynamic"])
def test_rare_values_first_list_the_same_solutions_and_find_valid_first_ones(order, part):
    """``-O values=rare`` only reorders each bucket's candidates: the listing is the oracle's, solutions check
    (on the first 60 puzzles, which hold every kind, by default; 60 more under --runslow)."""
    for puzzle in SMALL[part]:
        expected = set(all_solutions(puzzle))
        listed = edgematch.solve_all(puzzle, backend="native", order=order, values="rare")
        assert set(listed.solutions) == expected and len(listed.solutions) == len(expected), puzzle
        first = edgematch.solve(puzzle, backend="native:dfs", order=order, values="rare")
        assert (first.solution is not None) == bool(expected)
        assert first.solution is None or check(puzzle, first.solution).ok


def test_rare_values_try_the_tile_of_the_rarest_colour_first():
    from edgematch.core.model import Puzzle, Tile
    from edgematch.core.tiletypes import tile_types
    from edgematch.solvers.native.tables import rarity_rank

    # colour 3 is on two tile sides, colour 2 on four, colour 1 on the rest; the file lists the plain tile first
    puzzle = Puzzle(2, 2, tuple(Tile(e) for e in [(1, 1, 1, 1), (1, 2, 1, 2), (3, 1, 1, 3), (1, 2, 1, 2)]),
                    rotations=True)
    types = tile_types(puzzle)
    rank = rarity_rank(puzzle, types)
    type_of = {tile: t for t, members in enumerate(types.members) for tile, _ in members}
    plain, twos, threes = type_of[0], type_of[1], type_of[2]
    assert rank[threes] < rank[twos] < rank[plain]
    tables = build_tables(puzzle, "row", values="rare")
    tried = [int(t) for t in tables.cand_type]  # the first bucket is the top-left cell's: every tile, no neighbour
    assert tried.index(threes) < tried.index(twos) < tried.index(plain)
    assert [int(t) for t in build_tables(puzzle, "row").cand_type][0] == plain  # the file's order otherwise
    with pytest.raises(UsageError, match="values must be one of index, rare"):
        edgematch.solve(puzzle, backend="native", values="often")
    with pytest.raises(UsageError, match="a count tries them all"):
        edgematch.count(puzzle, backend="native", values="rare")
    with pytest.raises(UsageError, match="a split search on a cluster"):  # its workers would build other tables
        edgematch.solve_all(puzzle, backend="native", values="rare", cluster="local:2")


def test_one_solution_with_the_restarts_tries_the_rarest_colours_first_by_default():
    """``values`` defaults to ``rare`` for native's first solution (its kept search and first run), ``index`` for
    ``native:dfs`` and listings; the defaults search exactly what the explicit options do."""
    puzzle, _ = generate(GeneratorSpec(6, 6, colours=4, framed=True, border_colours=3, seed=5))

    def nodes(backend: str, **options: str) -> tuple[int, str | None]:
        result = edgematch.solve(puzzle, backend=backend, **options)
        assert result.status.value == "solved" and check(puzzle, result.solution).ok
        return result.counters["nodes"], result.options.get("values")

    assert nodes("native") == nodes("native", values="rare") == (nodes("native", values="rare")[0], "rare")
    assert nodes("native")[0] != nodes("native", values="index")[0]
    assert nodes("native:dfs")[0] == nodes("native:dfs", values="index")[0] != nodes("native:dfs", values="rare")[0]
    assert nodes("native:dfs")[1] is None  # nothing asked, the file's order: not shown
