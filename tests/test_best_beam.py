"""The native best's beam search (``-O search=beam``, issue 23 part 1): admissible boards scored as the
checker scores them, seeded, full solutions of small planted puzzles, the time limit, its options."""

from __future__ import annotations

import pytest

import edgematch
from edgematch import GeneratorSpec, Status, Tile, generate
from edgematch.core.checker import check
from edgematch.core.model import Puzzle
from edgematch.errors import UsageError
from edgematch.solvers.native.best.beam import BeamTables, beam, beam_seed, board_of, fill_cells
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


@pytest.mark.parametrize("order", ["comb", "row"])
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


def test_comb_order_fills_the_last_two_rows_column_by_column():
    puzzle, _ = generate(GeneratorSpec(4, 4, framed=True, seed=1))
    assert fill_cells(puzzle, "comb") == [0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 9, 13, 10, 14, 11, 15]
    assert fill_cells(puzzle, "row") == list(range(16))


@pytest.mark.parametrize("options, words", [
    ({"search": "wide"}, "search"),
    ({"search": "beam", "width": "lots"}, "width"),
    ({"search": "beam", "width": "0"}, "width"),
    ({"search": "beam", "fanout": "-1"}, "fanout"),
    ({"search": "beam", "order": "spiral"}, "order"),
    ({"search": "beam", "seed": "x"}, "seed"),
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
