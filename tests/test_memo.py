"""The memoised count (issue 25 part 1): every count it gives equals plain enumeration and the brute force,
whatever the table's size; it merges states on boards with identical tiles; the published clue puzzle count."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

import edgematch
from edgematch import GeneratorSpec, clock, generate
from edgematch.bench import xcheck as xc
from edgematch.core.model import Hint
from edgematch.errors import EdgematchError

DATA = Path(__file__).resolve().parent / "data"
TINY = "0.0005"  # MiB: a table of 4-16 slots, so nearly every store evicts another


def counted(puzzle, memo: str, distinct: bool = True):
    result = edgematch.count(puzzle, distinct=distinct, backend="native", memo=memo, time_limit=60)
    assert result.status.value in ("solved", "unsat"), result.message
    return result


@pytest.mark.parametrize("part", [slice(0, 100), pytest.param(slice(100, 400), marks=pytest.mark.slow)],
                         ids=["first100", "next300"])
def test_memoised_counts_agree_with_the_brute_force_on_the_cross_checks_stream(part):
    """Both rules, framed or not, turning or not, duplicates, true and wrong hints: raw and distinct counts
    of the default count (memo auto), a tiny table and the plain loop against the brute force. The first 100
    puzzles hold every one of those kinds (checked); 300 more run under --runslow."""
    cases = list(xc.generate_cases(25, 400))[part]
    if part.start == 0:
        assert len({(c.puzzle.frame is not None, c.puzzle.rotations, c.puzzle.rule) for c in cases}) == 8
        assert {len(c.puzzle.hints) for c in cases} == {0, 1, 2} and {c.kind for c in cases} == {"planted", "random"}
        assert all(any(word in c.hints for c in cases) for word in ("true", "wrong"))
        assert sum(bool(c.puzzle.duplicate_groups()) for c in cases) > 20
    report = xc.run_xcheck(cases, len(cases), ("native", f"native@memo={TINY}", "native@memo=off"), jobs=2, out=None)
    assert report.checked == len(cases) and report.stopped == ""
    assert report.ok, [f.case.label for f in report.failures]
    assert not report.timed_out


def _boards():
    """Boards with many identical tiles and few colours (where states repeat), in every shape the memo meets."""
    out = []
    for seed in range(1, 5):
        out.append((f"clue5x5-s{seed}", generate(GeneratorSpec(5, 5, like="clue", seed=seed))[0]))
        out.append((f"clue6x4-s{seed}", generate(GeneratorSpec(6, 4, like="clue", seed=seed))[0]))
        out.append((f"tetravex4-s{seed}", generate(GeneratorSpec(4, 4, like="tetravex", colours=3, seed=seed))[0]))
        out.append((f"signed4x3-s{seed}", generate(GeneratorSpec(4, 3, colours=3, rule="signed", seed=seed))[0]))
        out.append((f"unframed4x3-s{seed}", generate(GeneratorSpec(4, 3, colours=2, seed=seed))[0]))
    puzzle, planted = generate(GeneratorSpec(6, 5, like="clue", seed=7))
    out.append(("clue6x5-hinted", replace(puzzle, hints=(Hint(8, *planted.cells[8]),))))
    wrong = planted.cells[8]
    out.append(("clue6x5-wrong-hint", replace(puzzle, hints=(Hint(8, wrong[0], (wrong[1] + 1) % 4),))))
    return out


@pytest.mark.parametrize("name,puzzle", _boards(), ids=[n for n, _ in _boards()])
def test_memoised_counts_equal_plain_enumeration_on_boards_with_identical_tiles(name, puzzle):
    plain = counted(puzzle, "off")
    for memo in ("64", TINY):
        result = counted(puzzle, memo)
        assert (result.count, result.distinct) == (plain.count, plain.distinct), (name, memo)
    raw = counted(puzzle, "64", distinct=False)  # raw counts never need the canonical test
    assert raw.count == plain.count
    assert raw.options["memo"] == "64 MiB"


def test_states_repeat_on_clue_like_boards_and_the_memo_searches_fewer_nodes():
    """Not a speed test: the memo must actually merge states (hits) and so visit fewer nodes, or it does
    nothing; a tiny table evicts and still counts right. Row order: the memo alone (the join, which
    enumerates halves that may never meet, needs the ring first)."""
    merged = 0
    for seed in range(1, 5):
        puzzle, _ = generate(GeneratorSpec(6, 4, like="clue", seed=seed))

        def counted(puzzle, memo, distinct=False, **options):
            result = edgematch.count(puzzle, distinct=distinct, backend="native", memo=memo, order="row", **options)
            assert result.status.value == "solved"
            return result

        plain = counted(puzzle, "off", lookahead="off")  # the memo's loop has no look-ahead: compared without it
        memo = counted(puzzle, "64")
        tiny = counted(puzzle, TINY)
        assert memo.count == plain.count == tiny.count
        assert memo.counters["nodes"] <= plain.counters["nodes"]
        if memo.counters["memo_hits"] > 0 and memo.counters["nodes"] < plain.counters["nodes"]:
            merged += 1
        if tiny.counters["memo_stores"] > tiny.counters["memo_slots"]:
            assert tiny.counters["memo_evicted"] > 0
    assert merged >= 3


def test_the_published_count_of_eternity_ii_clue_puzzle_3():
    """2,195,647,488 raw placements (the 2010 exhaustive count, eternity2.dev; ../shared/puzzles), with the
    memo on and fewer nodes than plain enumeration needs (162,874,968)."""
    puzzle = edgematch.read_puzzle(DATA / "e2-clue3.json")
    seen: list[int] = []
    result = edgematch.count(puzzle, distinct=True, backend="native", time_limit=120,
                             progress=lambda info: seen.append(int(info["solutions"])))
    assert result.count == 2_195_647_488
    per_board = result.counters["raw_per_board"]
    assert result.distinct == result.count // per_board  # the anchor folds the turns: every board is distinct
    assert result.options["memo"].endswith("MiB")
    assert result.counters["nodes"] < 162_874_968 // 2
    # the live figures are raw running totals, as the plain loop's
    assert seen and seen == sorted(seen) and all(f <= result.count and f % per_board == 0 for f in seen)


def test_distinct_counts_without_an_anchor_tile_fall_back_to_the_plain_loop_and_say_so():
    """Every tile twice: no anchor folds the board turns, so distinct boards need each board's canonical test."""
    puzzle, _ = generate(GeneratorSpec(2, 2, colours=2, seed=3))
    doubled = replace(puzzle, tiles=(puzzle.tiles[0], puzzle.tiles[0], puzzle.tiles[1], puzzle.tiles[1]))
    result = edgematch.count(doubled, distinct=True, backend="native")
    assert result.options["memo"].startswith("off (distinct boards need the canonical test")
    assert (result.count, result.distinct) == (counted(doubled, "off").count, counted(doubled, "off").distinct)
    assert counted(doubled, "auto", distinct=False).options["memo"] == "64 MiB"


@pytest.mark.parametrize("options,fragment", [
    ({"memo": "lots"}, "option memo: expected auto, on, off or the table's size in MiB"),
    ({"memo": "-3"}, "option memo"),
    ({"memo": "64", "fc": "on"}, "memo and fc, bounds, match or order=dynamic do not go together"),
])
def test_bad_memo_options_are_one_clear_error(options, fragment):
    puzzle, _ = generate(GeneratorSpec(3, 3, colours=3, seed=1))
    workers = options.pop("workers", 1)
    with pytest.raises(EdgematchError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        edgematch.count(puzzle, backend="native", workers=workers, **options)


def test_counts_on_several_workers_keep_exact_merged_counts_with_a_memo_each():
    """Each worker counts its parts with its own table; the parts partition the tree, so the counts add up."""
    for seed in (1, 2):
        puzzle, _ = generate(GeneratorSpec(6, 5, like="clue", seed=seed))
        plain = counted(puzzle, "off", distinct=False)
        for memo in ("auto", TINY):
            split = edgematch.count(puzzle, backend="native", workers=2, memo=memo, time_limit=60)
            assert split.count == plain.count, (seed, memo)
            assert split.options["memo"].endswith("MiB per worker")


def test_counts_on_a_local_cluster_keep_exact_merged_counts_with_a_memo_per_thread(client):
    """On the test process's running cluster (two worker threads; the counts run in their child processes): a
    local cluster's own start is test_cluster's and test_limits'."""
    puzzle, _ = generate(GeneratorSpec(6, 5, like="clue", seed=3))
    plain = counted(puzzle, "off", distinct=False)
    result = edgematch.count(puzzle, backend="native", cluster=client, time_limit=120)
    assert result.count == plain.count
    assert result.options["memo"].endswith("MiB per worker")


def test_memo_is_an_option_of_count_only():
    puzzle, _ = generate(GeneratorSpec(3, 3, colours=3, seed=1))
    with pytest.raises(EdgematchError, match="memo is an option of count"):
        edgematch.solve(puzzle, backend="native", memo="64")


def _framed_boards(seeds=range(1, 5)):
    """Framed boards filled ring first (the order the join needs), in the shapes it meets: square and oblong,
    both rules, turning or not, few and many colours, a true and a wrong hint inside (the three commonest
    shapes with ``seeds``, 4 by default, 4 more under --runslow)."""
    out = []
    for seed in seeds:
        out.append((f"clue5-s{seed}", generate(GeneratorSpec(5, 5, like="clue", seed=seed))[0]))
        out.append((f"clue6x5-s{seed}", generate(GeneratorSpec(6, 5, like="clue", seed=seed))[0]))
        out.append((f"framed5-s{seed}", generate(GeneratorSpec(5, 5, framed=True, border_colours=2, inner_colours=3,
                                                               seed=seed))[0]))
    for seed in range(1, 4):
        out.append((f"signed5x4-s{seed}", generate(GeneratorSpec(5, 4, framed=True, border_colours=2,
                                                                 inner_colours=3, rule="signed", seed=seed))[0]))
        out.append((f"fixed5-s{seed}", generate(GeneratorSpec(5, 5, framed=True, border_colours=2, inner_colours=2,
                                                              rotations=False, seed=seed))[0]))
    puzzle, planted = generate(GeneratorSpec(5, 6, like="clue", seed=11))
    out.append(("clue5x6-hint", replace(puzzle, hints=(Hint(11, *planted.cells[11]),))))
    tile, turn = planted.cells[17]
    out.append(("clue5x6-wrong-hint", replace(puzzle, hints=(Hint(17, tile, (turn + 1) % 4),))))
    return out


@pytest.mark.parametrize("seeds", [range(1, 5), pytest.param(range(5, 9), marks=pytest.mark.slow)],
                         ids=["seeds1-4", "seeds5-8"])
def test_the_join_counts_every_ring_first_board_as_plain_enumeration_does(seeds):
    """Ring first, the memoised count meets in the middle of the inside (bottom half enumerated once per ring,
    then joined with each top half at their seams): raw and distinct counts equal the plain loop's on 20
    boards (20 more under --runslow), and the join ran (or was rightly not planned) on each."""
    joined = 0
    boards = _framed_boards(seeds)
    for name, puzzle in boards:
        plain = edgematch.count(puzzle, distinct=True, backend="native", order="frame", memo="off", time_limit=60)
        memo = edgematch.count(puzzle, distinct=True, backend="native", order="frame", time_limit=60)
        assert (memo.count, memo.distinct) == (plain.count, plain.distinct), name
        raw = edgematch.count(puzzle, backend="native", order="frame", time_limit=60)
        assert raw.count == plain.count, name
        joined += raw.counters.get("memo_joins", 0) > 0
    assert joined >= 0.75 * len(boards)


def test_a_join_that_overflows_its_map_falls_back_to_searching_and_counts_right(monkeypatch):
    from edgematch.solvers.native.count import memo

    monkeypatch.setattr(memo, "JOIN_SLOTS", 4)  # three bottom fillings at most: most joins give up
    puzzle = generate(GeneratorSpec(6, 5, like="clue", seed=3))[0]  # 922 joins given up, 678 done (0.1 s)
    result = edgematch.count(puzzle, distinct=True, backend="native", time_limit=120)
    plain = counted(puzzle, "off")
    assert (result.count, result.distinct) == (plain.count, plain.distinct) == (983_040, 20)
    assert result.counters["memo_joins_aborted"] > 0 and result.counters["memo_joins"] > 0


def test_the_join_plan_needs_a_ring_first_order_and_two_inside_rows():
    from edgematch.solvers.native.count.memo import join_plan
    from edgematch.solvers.native.tables import build_tables

    clue = edgematch.read_puzzle(DATA / "e2-clue3.json")
    plan = join_plan(clue, build_tables(clue, "frame", symmetry=True))
    assert (plan.at, plan.split) == (20, 28) and len(plan.lab_top) == len(plan.lab_bottom) == 4
    assert join_plan(clue, build_tables(clue, "row", symmetry=True)) is None
    thin = generate(GeneratorSpec(5, 3, like="clue", seed=1))[0]
    assert join_plan(thin, build_tables(thin, "frame", symmetry=True)) is None


def _memo_count(puzzle, mib: float):
    """A memoised count of ``puzzle`` with its own table of at most ``mib`` MiB: the tables, table, outcome."""
    from edgematch.solvers.native.count.memo import MemoSearch, MemoTable
    from edgematch.solvers.native.search import drive
    from edgematch.solvers.native.tables import build_tables

    tables = build_tables(puzzle, "auto", symmetry=True)
    table = MemoTable(puzzle, tables, mib, join=False)
    outcome = drive(MemoSearch(tables, table), clock.deadline(60))
    assert outcome.finished
    return tables, table, outcome


def _misplaced(table) -> int:
    """Live records not in the bucket their key's hash (computed here, in numpy) picks."""
    import numpy as np

    from edgematch.solvers.native.count.memo import key_hash

    rows = table.slot.reshape(table.n_slots, table.record)
    at = np.flatnonzero(rows[:, 0] != 0)
    bucket = (key_hash(rows[at, 2:]) & np.uint64(table.n_slots - 1)).astype(np.int64) & ~3
    return int(np.count_nonzero(bucket != (at & ~3)))


def test_the_tables_hash_in_numpy_is_the_c_loops():
    """Records the C loop stored sit in the bucket numpy's key_hash gives them (a table that never grew), so
    a grown table puts every record where the loop will look for it."""
    from edgematch.solvers.native.count.memo import START_MIB

    puzzle = generate(GeneratorSpec(6, 6, like="clue", seed=2))[0]
    _, table, _ = _memo_count(puzzle, START_MIB)
    assert table.version == 0 and table.stored > 100
    assert _misplaced(table) == 0


@cache
def _plain_raw_count_of_clue6_s2() -> int:
    """The plain loop's raw count of the 6x6 clue board of seed 2 (2.5 s), shared by the two tests below."""
    return edgematch.count(generate(GeneratorSpec(6, 6, like="clue", seed=2))[0], backend="native", memo="off",
                           distinct=False).count


def test_a_table_grows_from_a_small_start_and_keeps_every_record_and_the_count():
    """A count starts with START_MIB and grows 4x at half full, up to the size asked for: the count stays
    exact, every record sits in its new bucket, and a small count never takes the whole size."""
    from edgematch.solvers.native.count.memo import START_MIB

    puzzle = generate(GeneratorSpec(6, 6, like="clue", seed=2))[0]
    tables, table, outcome = _memo_count(puzzle, 16)
    assert table.version >= 1 and table.bytes > START_MIB * 2**20
    assert _misplaced(table) == 0
    assert outcome.solutions * tables.raw_multiplier == _plain_raw_count_of_clue6_s2()
    small = generate(GeneratorSpec(4, 4, like="clue", seed=1))[0]
    assert _memo_count(small, 64)[1].bytes <= START_MIB * 2**20


def test_a_table_that_cannot_grow_keeps_its_records_and_the_count(monkeypatch):
    """No memory to grow: the table keeps its size and every record (then grows no more), and counts right."""
    from edgematch.solvers.native.count import memo

    def no_memory(keys):
        raise MemoryError

    monkeypatch.setattr(memo, "key_hash", no_memory)
    puzzle = generate(GeneratorSpec(6, 6, like="clue", seed=2))[0]
    tables, table, outcome = _memo_count(puzzle, 16)
    assert table.version == 0 and table.limit_slots == table.n_slots and table.stored > 0
    assert outcome.solutions * tables.raw_multiplier == _plain_raw_count_of_clue6_s2()


def test_a_board_whose_state_keys_do_not_fit_counts_without_the_memo():
    """64x64 with every tile its own type: a state's key would need 73 words of 64. The count runs the plain
    loop and says why (it was an error: auto's default count of such a board failed)."""
    from edgematch.solvers.native.count.memo import key_too_wide
    from edgematch.solvers.native.tables import build_tables

    big, _ = generate(GeneratorSpec(64, 64, like="e2", seed=1))
    assert "73 words" in key_too_wide(big, build_tables(big))
    fits, _ = generate(GeneratorSpec(16, 16, like="e2", seed=1))
    assert key_too_wide(fits, build_tables(fits)) == ""
    result = edgematch.count(big, time_limit=1.5)  # the tables take about 0.3 s of it
    assert result.status.value == "timeout", result.message
    assert result.options["memo"].startswith("off (a state's key would take")


def _front_by_walking(puzzle, tables):
    """The front of every depth as the search walks the fill order: after placing each cell, the sides of placed
    cells that face a cell not yet placed (the reference :func:`memo.front` must equal)."""
    pos = {int(c): p for p, c in enumerate(tables.order)}
    fronts, now = [], []
    for d in range(tables.positions):
        if d:
            cell = int(tables.order[d - 1])
            now = [(i, y) for i, y in now if y != cell]
            now += [(cell * 4 + s, y) for s in range(4)
                    if (y := puzzle.neighbour(cell, s)) is not None and pos.get(y, -1) >= d]
        fronts.append([i for i, _ in now])
    return fronts


@pytest.mark.parametrize("spec", [
    GeneratorSpec(4, 4, colours=3, seed=1), GeneratorSpec(5, 3, colours=3, rule="signed", seed=2),
    GeneratorSpec(1, 5, colours=2, seed=3), GeneratorSpec(7, 7, like="e2", seed=1),
    GeneratorSpec(8, 8, like="peak", seed=2), GeneratorSpec(16, 16, like="e2", seed=3, hint=True),
], ids=str)
@pytest.mark.parametrize("order", ["row", "spiral", "frame", "band2"])
def test_the_front_of_every_depth_is_the_walk_s_and_its_width_the_widest(spec, order):
    from edgematch.solvers.native.count.memo import front, front_width
    from edgematch.solvers.native.tables import build_tables

    puzzle = generate(spec)[0]
    tables = build_tables(puzzle, order)
    got, walked = front(puzzle, tables), _front_by_walking(puzzle, tables)
    assert [got.idx[got.start[d]:got.start[d + 1]].tolist() for d in range(tables.positions)] == walked
    assert got.width == front_width(puzzle, tables) == max(map(len, walked))


def _never_pays(monkeypatch) -> None:
    """The memo judged after its first step and found wanting, whatever its hits: the plain loop counts the rest."""
    from edgematch.solvers.native.count import memo

    monkeypatch.setattr(memo, "JUDGE_NODES", 1)
    monkeypatch.setattr(memo, "PAYS", float("inf"))


@pytest.mark.parametrize("name,puzzle", _boards(), ids=[n for n, _ in _boards()])
def test_a_memo_that_does_not_pay_hands_over_to_the_plain_loop_and_the_counts_stay_exact(monkeypatch, name,
                                                                                         puzzle):
    """The plain loop goes on from the memoised loop's state mid-search (its first slice is 2,000 nodes); the
    states the memo had pending are never stored, so no count is half a subtree's."""
    plain = counted(puzzle, "off", distinct=False)
    _never_pays(monkeypatch)
    for memo in ("64", TINY):
        result = counted(puzzle, memo, distinct=False)
        assert result.count == plain.count, (name, memo)
        if result.counters["nodes"] > 2_000:  # the first slice did not finish it
            assert result.counters["memo_plain_after"] > 0, (name, memo)


def test_peak_boards_hand_over_on_several_workers_and_count_as_the_plain_loop(monkeypatch):
    """Peak boards (few identical tiles, states rarely recur): each worker's table judges itself."""
    _never_pays(monkeypatch)
    for seed in (1, 2, 3):
        puzzle = generate(GeneratorSpec(5, 5, like="peak", seed=seed))[0]
        plain = counted(puzzle, "off", distinct=False)
        for workers in (1, 2):
            split = edgematch.count(puzzle, backend="native", workers=workers, memo="auto", time_limit=60)
            assert split.count == plain.count, (seed, workers)


def test_a_memo_that_pays_is_kept(monkeypatch):
    """Judged after 100,000 nodes on a clue-like board (row order: the memo alone), where its hits save a quarter
    of the tree (3.5 M nodes against 4.7 M), the memo stays on to the end."""
    from edgematch.solvers.native.count import memo

    monkeypatch.setattr(memo, "JUDGE_NODES", 100_000)
    puzzle = generate(GeneratorSpec(6, 5, like="clue", seed=2))[0]
    kept = edgematch.count(puzzle, backend="native", order="row", time_limit=60)
    plain = edgematch.count(puzzle, backend="native", order="row", memo="off", lookahead="off", time_limit=60)
    assert kept.count == plain.count
    assert kept.counters["memo_plain_after"] == 0 and kept.counters["nodes"] < 0.9 * plain.counters["nodes"]
