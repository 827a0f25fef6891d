"""The native best's beam search (``-O search=beam``, issue 23 part 1): admissible boards scored as the
checker scores them, seeded, full solutions of small planted puzzles, the time limit, its options."""

from __future__ import annotations

import random

import numpy as np
import pytest

import edgematch
from edgematch import GeneratorSpec, Status, Tile, clock, generate
from edgematch.core.checker import check
from edgematch.core.model import Puzzle
from edgematch.errors import UsageError
from edgematch.solvers.base import Task
from edgematch.solvers.native import kernels
from edgematch.solvers.native.best import beam as beam_module
from edgematch.solvers.native.best import stages
from edgematch.solvers.native.best.beam import (
    FIRST_WIDTH,
    BeamTables,
    beam,
    beam_seed,
    board_of,
    fill_cells,
    rare_colour_weights,
)
from edgematch.solvers.native.best.stages import ROUND_STARTS, rounds_reached
from tests.timing import timed


def _spoiled(spec: GeneratorSpec, swaps: int = 2) -> Puzzle:
    """A planted puzzle with a few inner colours of some tiles exchanged, so that it rarely fits whole."""
    puzzle, _ = generate(spec)
    tiles = list(puzzle.tiles)
    for i in range(swaps):
        e = list(tiles[(7 * i + 3) % len(tiles)].edges)
        sides = [s for s in range(4) if e[s] != puzzle.frame]
        if len(sides) >= 2:
            e[sides[0]], e[sides[1]] = e[sides[1]], e[sides[0]]
            tiles[(7 * i + 3) % len(tiles)] = Tile(tuple(e))
    return puzzle.replace(tiles=tuple(tiles))


def _boards() -> list[tuple[str, Puzzle]]:
    framed = _spoiled(GeneratorSpec(6, 5, framed=True, border_colours=2, inner_colours=4, seed=3))
    unframed = _spoiled(GeneratorSpec(5, 4, colours=4, framed=False, seed=4))
    hinted = _spoiled(GeneratorSpec(6, 6, like="e2", hint=True, seed=5))
    no_turns = _spoiled(GeneratorSpec(5, 5, colours=3, framed=False, rotations=False, seed=6))
    # identical tiles: two colours only, so many tiles repeat
    identical = _spoiled(GeneratorSpec(5, 5, framed=True, border_colours=1, inner_colours=2, seed=7), swaps=1)
    signed = _spoiled(GeneratorSpec(4, 5, colours=3, framed=False, rule="signed", seed=8))
    return [("framed", framed), ("unframed", unframed), ("hinted", hinted), ("no turns", no_turns),
            ("identical", identical), ("signed", signed)]


BOARDS = _boards()


def test_identical_board_has_repeated_tiles():
    puzzle = dict(BOARDS)["identical"]
    assert len(set(puzzle.tiles)) < len(puzzle.tiles) or len(
        {min(t.rotated(r).edges for r in range(4)) for t in puzzle.tiles}) < len(puzzle.tiles)


@pytest.mark.parametrize("order", ["comb", "row", "comb4"])
@pytest.mark.parametrize("kind", [k for k, _ in BOARDS])
def test_every_streamed_board_is_admissible_and_scored_as_the_checker_scores_it(kind, order):
    puzzle = dict(BOARDS)[kind]
    streamed = []
    result = edgematch.best(puzzle, backend="native", time_limit=1.5, search="beam", width=64, order=order,
                            on_improve=lambda board, score: streamed.append((board, score)))
    assert streamed and result.solutions
    for board, score in [*streamed, (result.solutions[0], result.score)]:
        verdict = check(puzzle, board)
        assert verdict.admissible, kind
        assert verdict.score == score, kind
    assert [s for _, s in streamed] == sorted({s for _, s in streamed})  # each one strictly better
    assert result.score == streamed[-1][1]
    if puzzle.hints:
        for cell, tile, turn in puzzle.hints:
            assert result.solutions[0].cells[cell] == (tile, turn)


def test_a_fixed_seed_gives_the_same_board():
    puzzle = dict(BOARDS)["hinted"]
    bt = BeamTables(puzzle, "comb")
    picks = [beam(bt, 50, 8, seed, None, {"children": 0, "states": 0})[0].tolist() for seed in (7, 7, 8)]
    assert picks[0] == picks[1]
    assert picks[0] != picks[2]  # the seed does draw the ties
    # through the API: the first beam's board (the second streamed, after the admissible one), twice
    boards = []
    for _ in range(2):
        with pytest.raises(edgematch.Interrupted) as stop:  # Ctrl-C handled: the best board so far is kept
            edgematch.best(puzzle, backend="native", search="beam", width=50, seed=7, time_limit=30,
                           on_improve=_stop_after(2))
        boards.append(stop.value.result.solutions[0].cells)
    assert boards[0] == boards[1]
    assert boards[0] == board_of(puzzle, bt, beam(bt, 50, 8, beam_seed(7, 1), None,
                                                  {"children": 0, "states": 0})[0]).cells


def test_a_beam_can_use_every_copy_of_a_tile_and_never_one_more():
    """A state keeps the tile copies it used as a bit each, a type's copies in consecutive bits across 64-bit words
    (beam.c): one beam over 144 (or 128, two words exactly) copies of one tile must place them all (a full board,
    every seam fitting), and over two tiles with 70 and 74 copies, whose bits share a word, must place each as often
    as the puzzle has it."""
    same = Puzzle(12, 12, (Tile((1, 1, 1, 1)),) * 144)
    words = Puzzle(16, 8, (Tile((1, 1, 1, 1)),) * 128)
    two = Puzzle(12, 12, (Tile((1, 1, 1, 1)),) * 70 + (Tile((2, 2, 2, 2)),) * 74)
    for puzzle, copies in ((same, [144]), (words, [128]), (two, [70, 74])):
        bt = BeamTables(puzzle, "comb")
        assert bt.words == 3  # a bit per copy and the one always set
        assert sorted(bt.t.type_count.tolist()) == copies
        for seed in range(3):
            found = beam(bt, 16, 8, seed, None, {"children": 0, "states": 0})
            assert found is not None
            picks, breaks = found
            types = len(bt.t.type_count)
            assert np.bincount(bt.t.cand_type[picks], minlength=types).tolist() == bt.t.type_count.tolist()
            board = board_of(puzzle, bt, picks)
            verdict = check(puzzle, board)
            assert verdict.admissible and verdict.score == puzzle.seam_count - breaks
            if len(copies) == 1:
                assert breaks == 0


def _stop_after(n: int):
    """An on_improve that interrupts the run at the ``n``-th board (the admissible one is the first)."""
    seen = []

    def hook(board, score):
        seen.append(score)
        if len(seen) >= n:
            raise KeyboardInterrupt

    return hook


@pytest.mark.parametrize("size", [4, 5])
def test_a_wide_beam_solves_small_planted_framed_puzzles(size):
    for seed in range(3):
        puzzle, _ = generate(GeneratorSpec(size, size, framed=True, border_colours=2, inner_colours=3, seed=seed))
        result = edgematch.best(puzzle, backend="native", time_limit=20, search="beam", width=20_000)
        assert result.score == puzzle.seam_count, (size, seed)
        assert result.status is Status.SOLVED
        assert check(puzzle, result.solutions[0]).score == puzzle.seam_count


def test_a_planted_board_reaches_the_full_score_and_says_so():
    puzzle, _ = generate(GeneratorSpec(6, 6, framed=True, border_colours=3, inner_colours=4, seed=2))
    result = edgematch.best(puzzle, backend="native", time_limit=30, search="beam")
    assert result.score == result.max_score == puzzle.seam_count
    assert result.optimal and check(puzzle, result.solution).ok


def test_the_time_limit_holds_on_16x16():
    puzzle, _ = generate(GeneratorSpec(16, 16, like="e2", hint=True, seed=1))
    edgematch.best(puzzle, backend="native", time_limit=0.2, search="beam", width=10)  # compiled or loaded
    with timed() as t:
        result = edgematch.best(puzzle, backend="native", time_limit=1, search="beam")
    assert t.within(1, 0.5), t
    assert check(puzzle, result.solutions[0]).score == result.score


def test_comb2_fills_the_last_two_rows_column_by_column_and_comb_the_last_four():
    puzzle, _ = generate(GeneratorSpec(4, 4, framed=True, seed=1))
    assert fill_cells(puzzle, "comb") == [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]
    assert fill_cells(puzzle, "comb2") == [0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 9, 13, 10, 14, 11, 15]
    assert fill_cells(puzzle, "row") == list(range(16))


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 9])
def test_a_comb_of_k_fills_every_free_cell_once_with_its_west_and_north_neighbours_before_it(k):
    # combK: rows one by one, then the last K rows column by column (each column top down); a hint is skipped.
    # Every cell must come after its west and north neighbours, as the beam's keys read those two sides
    puzzle, _ = generate(GeneratorSpec(5, 7, framed=True, seed=2, hint=True))
    order = fill_cells(puzzle, f"comb{k}")
    hinted = {c for c, _, _ in puzzle.hints}
    assert sorted(order) == [c for c in range(puzzle.size) if c not in hinted]
    where = {c: i for i, c in enumerate(order)}
    for c in order:
        for before in (c - 1 if c % puzzle.width else None, c - puzzle.width if c >= puzzle.width else None):
            assert before is None or before in hinted or where[before] < where[c], (k, c, before)
    band = min(k, puzzle.height)
    tail = [c for c in order if c >= (puzzle.height - band) * puzzle.width]
    columns = [c % puzzle.width for c in tail]
    assert columns == sorted(columns)  # the band column by column
    assert order[:len(order) - len(tail)] == sorted(order[:len(order) - len(tail)])  # the rows above, row by row
    assert fill_cells(puzzle, "comb4") == fill_cells(puzzle, "comb")
    assert fill_cells(puzzle, "comb1") == fill_cells(puzzle, "row")


@pytest.mark.parametrize("order", ["comb3", "comb4", "comb9"])
@pytest.mark.parametrize("kind", [k for k, _ in BOARDS])
def test_a_comb_beam_counts_its_breaks_as_the_checker_does(kind, order):
    # a band cell's north neighbour lies up to w + (w - 1)(K - 1) placements back: the ring must reach it, or the
    # beam would read a wrong label and its own break count would differ from the checker's
    puzzle = dict(BOARDS)[kind]
    bt = BeamTables(puzzle, order)
    w, k = puzzle.width, min(int(order[4:]), puzzle.height)
    hinted = {c for c, _, _ in puzzle.hints}
    cells = fill_cells(puzzle, order)
    at = {c: i for i, c in enumerate(cells)}
    back = max((i - at[n] for c, i in at.items() for n in (c - 1 if c % w else -1, c - w) if n in at), default=1)
    assert bt.ring >= back  # the farthest back a west or north neighbour lies, counted from the order itself
    if k < puzzle.height and not hinted:
        assert back == w + (w - 1) * (k - 1)
    for seed in range(3):
        picks, breaks = beam(bt, 200, 8, seed, None, {"children": 0, "states": 0})
        verdict = check(puzzle, board_of(puzzle, bt, picks))
        assert verdict.admissible and verdict.score == puzzle.seam_count - breaks, (kind, order, seed)


@pytest.mark.parametrize("order, tails", [("comb4", "comb4"), ("comb", "comb"), ("row", "comb"), ("comb1", "comb")])
def test_the_tail_beams_fill_in_the_run_s_comb(monkeypatch, order, tails):
    puzzle, _ = generate(GeneratorSpec(8, 8, like="e2", hint=True, seed=4))
    seen = []
    real = stages.tail_rebeam

    def spy(*args, **kwargs):
        seen.append(args[9] if len(args) > 9 else kwargs.get("order", "comb"))
        return real(*args, **kwargs)

    monkeypatch.setattr(stages, "tail_rebeam", spy)
    monkeypatch.setattr(stages, "TAIL_WIDTH", 500)
    monkeypatch.setattr(stages, "KERNEL_SECONDS", 0.05)  # the kernel's turns short, so a busy core still sees tails
    result = edgematch.best(puzzle, backend="native", time_limit=4, search="beam", width=200, order=order,
                            beam_share=0.1)
    assert check(puzzle, result.solutions[0]).score == result.score
    assert seen and set(seen) == {tails}


@pytest.mark.parametrize("options, words", [
    ({"search": "wide"}, "search"),
    ({"search": "beam", "width": "lots"}, "width"),
    ({"search": "beam", "width": "0"}, "width"),
    ({"search": "beam", "fanout": "-1"}, "fanout"),
    ({"search": "beam", "order": "spiral"}, "order"),
    ({"search": "beam", "order": "comb0"}, "combK"),
    ({"search": "beam", "order": "comb-3"}, "combK"),
    ({"search": "beam", "order": "comb04"}, "combK"),
    ({"search": "beam", "order": "comb\u0664"}, "combK"),
    ({"search": "beam", "seed": "x"}, "seed"),
    ({"search": "beam", "prefer": "common"}, "prefer"),
    ({"search": "beam", "stall": "soon"}, "stall"),
    ({"search": "beam", "repair_within": "-1"}, "repair_within"),
    ({"search": "beam", "repair_within": "near"}, "repair_within"),
    ({"search": "dfs", "repair_within": "1"}, "search=dfs"),
    ({"search": "dfs", "stall": "10"}, "search=dfs"),
    ({"search": "beam", "width": str(10**9)}, "width"),
    ({"search": "beam", "start": "0.5"}, "start"),
    ({"search": "dfs", "width": "10"}, "search=dfs"),
    ({"width": "10", "start": "0.5"}, "do not go together"),
    ({"symmetry": "off"}, "symmetry"),
])
def test_bad_beam_options_are_one_line(options, words):
    puzzle, _ = generate(GeneratorSpec(4, 4, framed=True, seed=1))
    with pytest.raises(UsageError) as caught:
        edgematch.best(puzzle, backend="native", time_limit=1, **options)
    message = str(caught.value)
    assert "\n" not in message and words in message


def test_beam_options_are_listed():
    from edgematch.solvers.native import NativeBackend

    assert {"search", "width", "fanout"} <= set(NativeBackend.options)


def test_the_default_search_is_dfs_on_small_boards_and_beam_above():
    from edgematch.solvers.native import best_search
    from edgematch.solvers.native.best.dfs import EXACT_UP_TO

    small, _ = generate(GeneratorSpec(5, 5, framed=True, seed=1))
    large, _ = generate(GeneratorSpec(16, 16, like="e2", hint=True, seed=1))
    assert small.size <= EXACT_UP_TO
    assert best_search(small, {}) == "dfs" and best_search(large, {}) == "beam"
    assert best_search(large, {"start": "0.5"}) == "dfs" and best_search(small, {"width": "10"}) == "beam"
    assert best_search(small, {"search": "beam"}) == "beam" and best_search(large, {"search": "dfs"}) == "dfs"
    result = edgematch.best(large, backend="native", time_limit=1)
    assert result.options["search"] == "beam"


def _truncate(brk: list[int], key: list[int], width: int, seed: int) -> list[int]:
    """em_beam_truncate on these children: the indices it keeps."""
    p = kernels.pointer
    b, k = np.array(brk, np.int32), np.array(key, np.int32)
    keep = np.zeros(len(brk), np.int64)
    n = kernels.require().em_beam_truncate(p(b, np.int32, "brk"), p(k, np.int32, "key"), len(brk), width,
                                           p(keep, np.int64, "keep"), p(kernels.seeded(seed), np.uint64, "rng"))
    assert n == min(width, len(brk))
    return keep[:n].tolist()


def test_the_truncation_keeps_the_fewest_breaks_then_the_highest_keys():
    """Against a sort of the children by (breaks, -key): the kept ones are a prefix of it up to ties, every
    kept child beats or ties every dropped one, and among exact ties the seed draws."""
    rng = random.Random(5)
    for trial in range(300):
        n = rng.randint(1, 60)
        brk = [rng.randint(0, 3) for _ in range(n)]
        key = [rng.randint(-2, 4) if trial % 3 else 0 for _ in range(n)]
        width = rng.randint(1, n + 2)
        kept = _truncate(brk, key, width, trial)
        assert len(set(kept)) == len(kept)
        rank = [(brk[i], -key[i]) for i in range(n)]
        dropped = set(range(n)) - set(kept)
        if dropped:
            assert max(rank[i] for i in kept) <= min(rank[i] for i in dropped), trial
        assert [brk[i] for i in kept] == sorted(brk[i] for i in kept)  # the fewest breaks first
    # exact ties are drawn by the seed, unequal keys are not
    assert len({tuple(sorted(_truncate([0] * 8, [0] * 8, 3, s))) for s in range(20)}) > 1
    assert {tuple(sorted(_truncate([0] * 8, [0, 0, 5, 0, 7, 0, 6, 0], 3, s))) for s in range(20)} == {(2, 4, 6)}


def test_rare_colour_weights_count_the_rarer_half_of_the_colours():
    """A hand-made 2x2 (no frame): colours 1 and 2 are shown 3 and 2 times, 3 and 4 six and five, so a tile's
    weight is how many of its sides show 1 or 2; a colour and its partner count as one under ``signed``."""
    tiles = [Tile((1, 3, 3, 4)), Tile((1, 2, 4, 3)), Tile((1, 2, 3, 4)), Tile((4, 3, 3, 4))]
    puzzle = Puzzle(2, 2, tuple(tiles))
    bt = BeamTables(puzzle, "row", prefer="rare")
    weights = rare_colour_weights(puzzle, bt.t)
    by_rep = {tuple(rep): int(w) for rep, w in zip(bt.t.types.reps, weights, strict=True)}
    assert sorted(by_rep.values()) == [0, 1, 2, 2]
    assert all(w == sum(label in (1, 2) for label in rep) for rep, w in by_rep.items())
    assert bt.cand_w.tolist() == [by_rep[tuple(bt.t.types.reps[t])] for t in bt.t.cand_type.tolist()]
    assert not BeamTables(puzzle, "row", prefer="none").cand_w.any()  # every tie at random
    signed = Puzzle(2, 2, (Tile((1, 3, -3, 4)), Tile((-1, 2, 4, 3)), Tile((1, -2, 3, -4)), Tile((4, 3, -3, 4))),
                    rule="signed")
    assert sorted(rare_colour_weights(signed, BeamTables(signed, "row").t).tolist()) == [0, 1, 2, 2]


@pytest.mark.parametrize("kind", [k for k, _ in BOARDS])
def test_prefer_rare_streams_admissible_boards_scored_as_the_checker_scores_them(kind):
    puzzle = dict(BOARDS)[kind]
    streamed = []
    result = edgematch.best(puzzle, backend="native", time_limit=1.0, search="beam", width=64, prefer="rare",
                            on_improve=lambda board, score: streamed.append(score))
    assert result.options["prefer"] == "rare"
    verdict = check(puzzle, result.solutions[0])
    assert verdict.admissible and verdict.score == result.score == streamed[-1]


def test_a_stalled_repair_gives_way_to_fresh_beams_and_keeps_the_best_board():
    """With ``stall`` short, the repair hands over to fresh beams (counter ``rounds``); every streamed board is
    admissible and scored as the checker scores it, each better than the last, and the result is the best."""
    puzzle = _spoiled(GeneratorSpec(8, 8, like="e2", hint=True, seed=5), swaps=4)
    streamed = []
    result = edgematch.best(puzzle, backend="native", time_limit=6, search="beam", width=500, stall=0.2, beam_share=0.1,
                            on_improve=lambda board, score: streamed.append((board, score)))
    assert result.counters.get("rounds", 0) >= 1
    assert result.options["stall"] == 0.2
    assert result.counters["widest"] == 500  # a given width holds for the rounds' beams too
    for board, score in streamed:
        assert check(puzzle, board).admissible and check(puzzle, board).score == score
    assert [s for _, s in streamed] == sorted({s for _, s in streamed})
    assert result.score == streamed[-1][1] == check(puzzle, result.solutions[0]).score
    # every repaired round and the first repair are in the histogram once (a fresh beam the limit cut before its
    # repair is not a round), none above the best board
    reached = rounds_reached(result.counters)
    assert sum(reached.values()) == result.counters["rounds"] + 1
    assert max(reached) <= result.score
    # and each round's fresh beam once, by the score it left (every round repaired here: no repair_within)
    started = rounds_reached(result.counters, ROUND_STARTS)
    assert sum(started.values()) == result.counters["rounds"] and max(started) <= result.score
    off = edgematch.best(puzzle, backend="native", time_limit=1, search="beam", width=500, stall="off")
    assert "rounds" not in off.counters and off.options["stall"] == "off"
    assert not rounds_reached(off.counters, ROUND_STARTS)


@pytest.mark.parametrize("factor", [1, 2])
def test_a_round_beam_is_the_doubling_s_top_times_the_round_factor(monkeypatch, factor):
    """Without ``width``, the doubling stops at its top and every round's fresh beam is ``ROUND_FACTOR`` times that
    wide (once: the rounds do not go on doubling)."""
    monkeypatch.setattr(stages, "LADDER_TOP", 2 * FIRST_WIDTH)
    # a repair stalls only between its moves: tail beams of 100,000 took 0.6 s each here, so on a busy core one
    # round could fill the limit (seen pinned beside a busy loop: 1 round in 4 s)
    monkeypatch.setattr(stages, "TAIL_WIDTH", 2 * FIRST_WIDTH)
    monkeypatch.setattr(stages, "KERNEL_SECONDS", 0.1)
    monkeypatch.setattr(stages, "ROUND_FACTOR", factor)
    puzzle = _spoiled(GeneratorSpec(8, 8, like="e2", hint=True, seed=5), swaps=4)
    result = edgematch.best(puzzle, backend="native", time_limit=4, search="beam", stall=0.2, beam_share=0.5)
    assert result.counters.get("rounds", 0) >= 2
    assert result.counters["widest"] == factor * 2 * FIRST_WIDTH


def test_without_a_limit_the_doubling_stops_at_the_widest_beam_that_fits(monkeypatch):
    """On a board where the doubling's top beam does not fit in memory, the beams stop at the widest that does
    (and the repair begins) rather than repeating it for ever."""
    puzzle = _spoiled(GeneratorSpec(6, 6, like="e2", hint=True, seed=3))
    bt = BeamTables(puzzle, "comb")
    monkeypatch.setattr(beam_module, "MEMORY_CAP", bt.memory(2 * FIRST_WIDTH, 8))
    assert stages.widest_fitting(bt, 8) == 2 * FIRST_WIDTH < stages.LADDER_TOP
    real, calls = stages.beam, []

    def counted(*args, **kwargs):
        calls.append(args[1])
        assert len(calls) <= 3, f"the doubling repeats its widest beam: {calls}"
        return real(*args, **kwargs)

    monkeypatch.setattr(stages, "beam", counted)
    run = stages._Anytime(puzzle, Task(question="best"), 0.0, stages.admissible_board(puzzle))
    board = stages._beams(puzzle, bt, run, None, 8, 0, None, None, stages.LADDER_TOP, lambda: None)
    assert calls == [FIRST_WIDTH, 2 * FIRST_WIDTH] and run.counters["widest"] == 2 * FIRST_WIDTH
    assert board is not None and check(puzzle, board).admissible


def test_a_tail_s_tables_are_built_within_the_run_s_deadline(monkeypatch):
    """A tail beam's tables, rebuilt for each tail, stop at the deadline like the beam itself (a large board's
    build could otherwise run past the limit)."""
    puzzle, solution = generate(GeneratorSpec(8, 8, like="e2", hint=True, seed=4))
    seen = []
    real = stages.BeamTables

    def spy(sub, order, deadline=None, prefer="rare"):
        seen.append(deadline)
        return real(sub, order, deadline, prefer)

    monkeypatch.setattr(stages, "BeamTables", spy)
    with pytest.raises(stages._Stop):
        stages.tail_rebeam(puzzle, solution, 4, 100, 8, 1, clock.now() - 1.0, {"states": 0, "children": 0})
    assert len(seen) == 1 and seen[0] is not None


def test_a_round_far_below_the_best_is_not_repaired():
    """With ``repair_within=0`` a round's fresh board is repaired only when it is as good as the best so far; the
    others give way to the next fresh beam at once (counter ``rounds_unrepaired``), and nothing found is lost."""
    puzzle = _spoiled(GeneratorSpec(8, 8, like="e2", hint=True, seed=5), swaps=4)
    streamed = []
    result = edgematch.best(puzzle, backend="native", time_limit=4, search="beam", width=300, stall=0.2,
                            beam_share=0.1, repair_within=0, on_improve=lambda board, score: streamed.append(score))
    c = result.counters
    assert result.options["repair_within"] == 0
    assert c.get("rounds_unrepaired", 0) >= 1
    assert sum(rounds_reached(c).values()) == c.get("rounds", 0) + 1  # the repaired rounds and the first repair
    started = rounds_reached(c, ROUND_STARTS)  # every round's fresh beam, repaired or not
    assert sum(started.values()) == c.get("rounds", 0) + c["rounds_unrepaired"] and max(started) <= result.score
    assert result.score == streamed[-1] == check(puzzle, result.solutions[0]).score
    every = edgematch.best(puzzle, backend="native", time_limit=1, search="beam", width=300, stall=0.2)
    assert "rounds_unrepaired" not in every.counters and every.options["repair_within"] == "off"
