"""The sweep behind the race's handover (edgematch.solvers.native.first.sweep): one depth-first search cut into parts
at a depth, taken in its own order.

What must hold: the parts after a prefix, searched one by one, give exactly the solutions the whole search gives
from that prefix on, in the same order (the compiled loop is the oracle: one search listing every solution); a
leader asked to split at any depth and then taking every part alone finds the plain search's first solution, and
proves there is none exactly when the loop's count is 0; a joiner nobody answers gives up. The race's use of it
(two processes) is tested in tests/test_solve_race.py."""

from __future__ import annotations

import multiprocessing as mp

import numpy as np
import pytest

from edgematch import clock
from edgematch.core.generator import GeneratorSpec, generate, random_tiles
from edgematch.solvers.native.compiled import ensure_compiled
from edgematch.solvers.native.first import sweep
from edgematch.solvers.native.search import Search, drive
from edgematch.solvers.native.tables import build_tables

FRAMED = generate(GeneratorSpec(4, 4, framed=True, border_colours=2, inner_colours=2, seed=1))[0]
HINTED = generate(GeneratorSpec(5, 5, framed=True, border_colours=2, inner_colours=2, hint=True, seed=2))[0]
# each board, the fill order its parts are cut in, and whether the plain loop runs the row look-ahead (the race's
# chain 1 runs it in the column order, where lookahead=auto turns it on)
BOARDS = {
    "framed": (FRAMED, "band2", False),
    "unframed": (random_tiles(3, 3, colours=2, seed=4), "row", False),
    "hinted": (HINTED, "row", False),
    "signed": (generate(GeneratorSpec(3, 3, colours=2, rule="signed", seed=5))[0], "spiral", False),
    "framed, look-ahead": (FRAMED, "column", True),
    "hinted, look-ahead": (HINTED, "row", True),
}


def tables_of(kind):
    puzzle, order, ahead = BOARDS[kind]
    tables = build_tables(puzzle, order, values="rare", lookahead=ahead)
    assert (tables.rows is not None) == ahead  # the look-ahead's kinds do run it
    return tables


def every_solution(tables, prefix=(), most=4096):
    """The loop's solutions below ``prefix``, in its order (picks per position; at most ``most``)."""
    search = Search(tables, prefix, capacity=most)
    found = drive(search).found
    assert search.finished
    return [tuple(int(v) for v in f) for f in found]


@pytest.fixture(scope="module", autouse=True)
def compiled():
    ensure_compiled()


@pytest.mark.parametrize("kind", BOARDS)
def test_the_parts_after_a_prefix_list_the_rest_of_the_search_in_its_order(kind):
    tables = tables_of(kind)
    whole = every_solution(tables)
    assert len(whole) >= 4, len(whole)  # boards with several solutions, so the order is tested
    for depth in sorted({1, 2, tables.positions // 2, tables.positions - 2}):
        # from a solution three quarters into the search and from the last, at every depth; from the first and the
        # middle one only near the root (deeper, those list 5,000-28,000 parts one by one: 35 s for the same fact)
        ks = {0, len(whole) // 2} if depth <= 2 else set()
        for k in sorted(ks | {3 * len(whole) // 4, len(whole) - 1}):
            first = whole[k][:depth]
            at = next(i for i, s in enumerate(whole) if s[:depth] == first)  # the first below `first`
            listed = every_solution(tables, first, len(whole))
            for prefix in sweep.after(tables, first):
                assert len(prefix) == depth
                listed += every_solution(tables, prefix, len(whole))
            assert listed == whole[at:], (kind, depth, k)


def lone_lead(tables, depth):
    """A leader asked to split before it starts (no other worker): it takes every part itself."""
    board = sweep.Board.create(mp.get_context("fork"), tables.positions)
    board.ask()
    return sweep.lead(tables, board, clock.deadline(30.0), depth=depth), board


@pytest.mark.parametrize("kind", BOARDS)
def test_a_leader_split_at_any_depth_finds_the_plain_search_s_first_solution(kind):
    tables = tables_of(kind)
    plain = drive(Search(tables, capacity=1), want=1).found[0]
    for depth in [None, *range(1, tables.positions)]:
        swept, board = lone_lead(tables, depth)
        assert swept.outcome.found and np.array_equal(swept.outcome.found[0], plain), (kind, depth)
        assert not swept.proof and 1 <= swept.depth < tables.positions


@pytest.mark.parametrize(("order", "ahead"), [("row", False), ("column", True)])
def test_a_lone_leader_proves_no_solution_exactly_when_the_count_is_zero(order, ahead):
    seen, split = {True: 0, False: 0}, {True: 0, False: 0}
    for seed in range(40):
        puzzle = random_tiles(3, 3, colours=3, seed=seed)
        tables = build_tables(puzzle, order, values="rare", lookahead=ahead)
        none = not every_solution(tables)
        for depth in (1, 3, tables.positions - 1):
            swept, board = lone_lead(tables, depth)
            assert swept.proof == none and bool(swept.outcome.found) != none, (seed, depth)
            if swept.depth:  # it split (a search that ends before reaching the depth proves it alone)
                assert board.state.peek(sweep.DONE) == swept.parts if not none else \
                    board.state.peek(sweep.DONE) == board.state.peek(sweep.TOTAL) == swept.parts
                split[none] += 1
        seen[none] += 1
    assert seen[True] and seen[False] and split[True] and split[False]  # both kinds swept, and split


def test_a_joiner_nobody_answers_gives_up(monkeypatch):
    monkeypatch.setattr(sweep, "WAIT_SECONDS", 0.2)
    puzzle, order, _ = BOARDS["framed"]
    tables = build_tables(puzzle, order)
    board = sweep.Board.create(mp.get_context("fork"), tables.positions)
    assert sweep.join(tables, board, clock.deadline(10.0)) is None
    assert board.asked()  # it asked; a leader starting later would split at once
