"""The plain loop's row look-ahead (issue 41, edgematch/solvers/native/rows.py): it keeps every solution (counts
equal the loop without it and the brute force), meets them in the same order, keeps a "no solution" a proof, and
survives being stopped and resumed anywhere."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import edgematch
from edgematch import GeneratorSpec, generate
from edgematch.bench import xcheck as xc
from edgematch.core.generator import random_tiles
from edgematch.core.model import Hint, Puzzle, Tile
from edgematch.errors import UsageError
from edgematch.solvers.native.count.cluster import digest
from edgematch.solvers.native.search import Search, drive, prefixes
from edgematch.solvers.native.tables import build_tables

FIRST = 30  # stored solutions compared in order


def _boards(seeds: range) -> list[tuple[str, Puzzle]]:
    """Small boards of every kind the loop meets: framed peak-like and E2-like (with the centre hint), clue-like,
    Tetravex, signed cards, unframed, random tiles that mostly have no solution, and a wrong hint."""
    out = []
    for seed in seeds:
        out += [
            (f"peak5x4-{seed}", generate(GeneratorSpec(5, 4, like="peak", seed=seed))[0]),
            (f"e2-5x5-hint-{seed}", generate(GeneratorSpec(5, 5, like="e2", seed=seed, hint=True))[0]),
            (f"clue5x4-{seed}", generate(GeneratorSpec(5, 4, like="clue", seed=seed))[0]),
            (f"tetravex4-{seed}", generate(GeneratorSpec(4, 4, like="tetravex", seed=seed))[0]),
            (f"cards3-{seed}", generate(GeneratorSpec(3, 3, like="cards", seed=seed))[0]),
            (f"unframed3x3-{seed}", generate(GeneratorSpec(3, 3, colours=3, seed=seed))[0]),
            (f"random3x3-{seed}", random_tiles(3, 3, 3, rule="same", seed=seed)),
        ]
    puzzle, planted = generate(GeneratorSpec(5, 4, like="peak", seed=99))
    wrong = planted.cells[7]
    out.append(("peak5x4-wrong-hint", replace(puzzle, hints=(Hint(7, wrong[0], (wrong[1] + 1) % 4),))))
    out.append(("peak5x4-true-hint", replace(puzzle, hints=(Hint(7, *planted.cells[7]),))))
    return out


def _searched(tables, budget: int, capacity: int = 0, want: int | None = None):
    """Count (or store up to ``want``) over ``tables`` in slices of ``budget`` nodes."""
    search = Search(tables, capacity=capacity)
    found = []
    while not search.finished and (want is None or len(found) < want):
        search.step(budget)
        found.extend(search.drain())
    return search.solutions, search.nodes, found


@pytest.mark.parametrize("order", ["row", "column", "frame", "band2", "spiral"])
def test_counts_and_the_order_of_solutions_equal_the_loop_without_it(order):
    """Every board of the mix, in each fill order: the same boards counted, and the same first solutions in the
    same order (the look-ahead only cuts subtrees without one); never more nodes. In the row and column orders it
    must cut."""
    cut = 0
    for name, puzzle in _boards(range(1, 9)):
        plain = build_tables(puzzle, order, symmetry=True)
        ahead = build_tables(puzzle, order, symmetry=True, lookahead=True)
        a, b = drive(Search(plain)), drive(Search(ahead))
        assert a.finished and b.finished
        assert b.solutions == a.solutions, (name, order)
        assert b.nodes <= a.nodes, (name, order)
        cut += b.nodes < a.nodes
        first_plain = drive(Search(plain, capacity=8), want=FIRST).found[:FIRST]
        first_ahead = drive(Search(ahead, capacity=8), want=FIRST).found[:FIRST]
        assert [tuple(x) for x in first_ahead] == [tuple(x) for x in first_plain], (name, order)
    if order in ("row", "column"):
        assert cut >= 40  # of 58 boards


def test_counts_agree_with_the_brute_force_on_the_cross_checks_stream():
    """Both rules, framed or not, turning or not, identical tiles, true and wrong hints: the plain loop with the
    look-ahead (the memo off, which does not use it) in the row and frame orders, against the brute force."""
    cases = list(xc.generate_cases(41, 100))
    report = xc.run_xcheck(cases, len(cases), ("native@memo=off@lookahead=on",
                                               "native@memo=off@lookahead=on@order=column",
                                               "native@memo=off@lookahead=on@order=frame"), jobs=2, out=None)
    assert report.checked == len(cases) and report.stopped == ""
    assert report.ok, [f.case.label for f in report.failures]
    assert not report.timed_out


def test_a_board_without_solution_is_still_proved_so():
    """Random signed tiles of a 4x4 with 4 colours often have no solution: the search with the look-ahead ends (a proof)
    with none exactly where the plain one does, in fewer nodes on most."""
    boards = [random_tiles(4, 4, 4, rule="signed", seed=seed) for seed in range(16)]
    unsat = fewer = 0
    for puzzle in boards:
        a = drive(Search(build_tables(puzzle, "row", symmetry=True)))
        b = drive(Search(build_tables(puzzle, "row", symmetry=True, lookahead=True)))
        assert a.finished and b.finished and a.solutions == b.solutions
        unsat += a.solutions == 0
        fewer += b.nodes < a.nodes
    assert unsat >= 4 and fewer >= unsat


def test_stopping_and_resuming_anywhere_counts_the_same():
    """Slices of a few nodes end the loop mid-row, at a row's end and at a solution; each call rebuilds the tables
    of the rows the search can come back to. Below prefixes (the split search's parts) too."""
    for name, puzzle in _boards(range(1, 3)):
        plain = drive(Search(build_tables(puzzle, "row", symmetry=True)))
        tables = build_tables(puzzle, "row", symmetry=True, lookahead=True)
        for budget in (1, 7, 50):
            solutions, _, _ = _searched(tables, budget)
            assert solutions == plain.solutions, (name, budget)
        stored = _searched(tables, 3, capacity=2, want=FIRST)[2][:FIRST]
        assert [tuple(x) for x in stored] == [tuple(x) for x in drive(Search(tables, capacity=8),
                                                                      want=FIRST).found[:FIRST]]
        parts, _ = prefixes(tables, 12)
        search = Search(tables, parts[0])
        for prefix in parts:
            search.below(prefix)
            while not search.finished:
                search.step(5)
        assert search.solutions == plain.solutions, name


def test_segments_follow_the_runs_of_cells_filled_west_to_east_or_north_to_south():
    """The row order: one segment per row, running out east. The column order: one per column, running out south.
    A hinted cell splits its row (or column) in two. The frame order: the top row and the inside rows. More norm
    labels than a word holds: no look-ahead (the loop runs without it)."""
    puzzle, planted = generate(GeneratorSpec(6, 5, like="peak", seed=3))
    rows = build_tables(puzzle, "row", lookahead=True).rows
    assert rows is not None and rows.seg_len.tolist() == [6] * 5 and rows.seg_first.tolist() == [0, 6, 12, 18, 24]
    assert rows.out == 1
    columns = build_tables(puzzle, "column", lookahead=True).rows
    assert columns is not None and columns.seg_len.tolist() == [5] * 6 and columns.out == 2
    assert columns.seg_first.tolist() == [0, 5, 10, 15, 20, 25]
    hinted = replace(puzzle, hints=(Hint(14, *planted.cells[14]),))  # row 2, column 2
    split = build_tables(hinted, "row", lookahead=True).rows
    assert split is not None and split.seg_len.tolist() == [6, 6, 2, 3, 6, 6]
    split = build_tables(hinted, "column", lookahead=True).rows
    assert split is not None and split.seg_len.tolist() == [5, 5, 2, 2, 5, 5, 5]
    frame = build_tables(puzzle, "frame", lookahead=True).rows
    # the top row; the ring's last cell (row 1, column 0) and row 1's inside; rows 2-3's inside
    assert frame is not None and frame.seg_len.tolist() == [6, 5, 4, 4]
    def labelled(n: int) -> Puzzle:  # n tiles in a row, every side its own label: 4n labels
        return Puzzle(n, 1, tuple(Tile((4 * k + 1, 4 * k + 2, 4 * k + 3, 4 * k + 4)) for k in range(n)),
                      rotations=False)

    assert build_tables(labelled(15), "row", lookahead=True).rows is not None  # 60 labels
    assert build_tables(labelled(16), "row", lookahead=True).rows is None  # 64 labels and the free one
    assert build_tables(puzzle, "row").rows is None  # off unless asked


def test_the_option_reaches_every_search_and_is_refused_where_no_plain_loop_runs():
    puzzle = generate(GeneratorSpec(5, 5, like="peak", seed=4))[0]
    on = edgematch.count(puzzle, backend="native", memo="off", time_limit=60)
    off = edgematch.count(puzzle, backend="native", memo="off", lookahead="off", time_limit=60)
    assert on.count == off.count and on.counters["nodes"] < off.counters["nodes"]
    two = edgematch.count(puzzle, backend="native", workers=2, time_limit=60)
    assert two.count == on.count
    first = edgematch.solve(puzzle, backend="native:dfs", time_limit=60)
    assert first.solutions and first.counters["nodes"] <= edgematch.solve(
        puzzle, backend="native:dfs", lookahead="off", time_limit=60).counters["nodes"]
    with pytest.raises(UsageError, match="lookahead"):
        edgematch.best(puzzle, backend="native", lookahead="on", time_limit=5)
    with pytest.raises(UsageError, match="lookahead"):
        edgematch.solve(puzzle, backend="native", fc="on", lookahead="on", time_limit=5)
    with pytest.raises(UsageError, match="lookahead"):
        edgematch.count(puzzle, backend="native", lookahead="maybe", time_limit=5)


def test_the_cluster_parts_are_of_the_same_tables_only_with_the_same_look_ahead():
    puzzle = generate(GeneratorSpec(5, 5, like="peak", seed=4))[0]
    ahead, plain = build_tables(puzzle, "row", lookahead=True), build_tables(puzzle, "row")
    assert digest(ahead) != digest(plain)
    assert digest(ahead) == digest(build_tables(puzzle, "row", lookahead=True))


def test_shuffled_tables_share_the_look_ahead():
    """The restarts shuffle every bucket: the look-ahead's slots do not depend on the candidates' order."""
    from edgematch.solvers.native.tables import shuffled

    puzzle = generate(GeneratorSpec(6, 5, like="peak", seed=2))[0]
    tables = build_tables(puzzle, "row", symmetry=True, lookahead=True)
    plain = drive(Search(tables)).solutions
    for seed in range(3):
        copy, _ = shuffled(tables, np.random.default_rng(seed))
        assert copy.rows is tables.rows
        assert drive(Search(copy)).solutions == plain
