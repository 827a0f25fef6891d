"""The repair stage of native best (issue 23 part 2): every board the kernel's moves and the tail beams
make keeps every rule, its score is the checker's, the kernel's own bookkeeping stays true, a fixed seed
gives the same board, and the stage reports which stage and operator found each improvement."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import edgematch
from edgematch import GeneratorSpec, generate
from edgematch.core.checker import check
from edgematch.core.model import Puzzle, Solution
from edgematch.solvers.native.best import repair as K
from edgematch.solvers.native.best.admissible import admissible_board
from edgematch.solvers.native.best.repair import OPERATORS, Repairer, hungarian, repair_tables
from edgematch.solvers.native.best.stages import first_broken_row, tail_rebeam
from tests.test_best_beam import BOARDS


def _state_is_true(puzzle: Puzzle, rep: Repairer) -> None:
    """The kernel's labels are those its options show, its tiles are the puzzle's, its running score is
    the checker's score of the current board."""
    rt = rep.rt
    free = rt.free
    assert (rep.lab[free] == rt.opt_edge[rep.opt[free]]).all()
    assert (rep.typ[free] == rt.opt_type[rep.opt[free]]).all()
    counts = np.bincount(rep.typ[free], minlength=len(rt.types.reps))
    assert counts.tolist() == [rt.types.count(t) for t in range(len(rt.types.reps))]
    current = [(int(rep.typ[c]), int(rt.opt_turn[rep.opt[c]])) if free[c] else None for c in range(puzzle.size)]
    from edgematch.core.tiletypes import decode

    board = decode(puzzle, rt.types, current)
    verdict = check(puzzle, board)
    assert verdict.admissible
    assert verdict.score == rep.state[K.S_CUR] == K.score_of(rep.lab, rt.nb)


def _start(puzzle: Puzzle, seed: int) -> Repairer:
    first = admissible_board(puzzle)
    assert first is not None
    return Repairer(puzzle, repair_tables(puzzle), first, seed, t0=0.5, t1=0.05, cycle=300)


@pytest.mark.parametrize("kind", [k for k, _ in BOARDS])
def test_kernel_moves_keep_every_rule_and_the_checkers_score(kind):
    puzzle = dict(BOARDS)[kind]
    rep = _start(puzzle, 1)
    start = rep.best_score
    improved = 0
    for _ in range(60):
        if rep.run(50):
            improved += 1
            board = rep.best_board()
            verdict = check(puzzle, board)
            assert verdict.admissible, kind
            assert verdict.score == rep.best_score, kind
            for cell, tile, turn in puzzle.hints:
                assert board.cells[cell] == (tile, turn)
        _state_is_true(puzzle, rep)
    assert rep.best_score >= start
    tries = sum(int(rep.counters[o, K.C_TRIES]) for o in range(K.N_OPS))
    assert tries > 0
    assert sum(int(rep.counters[o, K.C_BEST]) for o in range(K.N_OPS)) == improved


def test_the_kernel_improves_an_admissible_board_of_a_planted_puzzle():
    """From the matching's board (seams ignored) the moves find better boards: the repair does work."""
    puzzle, _ = generate(GeneratorSpec(8, 8, framed=True, border_colours=2, inner_colours=5, seed=11))
    rep = _start(puzzle, 2)
    start = rep.best_score
    for _ in range(40):
        rep.run(200)
    assert rep.best_score > start + 20
    found = rep.found_by()
    assert set(found) == {f"repair_{op.replace(' ', '_')}_{what}" for op in OPERATORS
                          for what in ("tries", "accepted", "better", "best")}
    assert sum(v for k, v in found.items() if k.endswith("_best")) >= 1


def test_a_fixed_seed_gives_the_same_repaired_board():
    puzzle = dict(BOARDS)["hinted"]
    boards = []
    for seed in (5, 5, 6):
        rep = _start(puzzle, seed)
        for _ in range(20):
            rep.run(100)
        boards.append(rep.best_board().cells + tuple(rep.counters.ravel().tolist()))
    assert boards[0] == boards[1]
    assert boards[0] != boards[2]


def test_the_assignment_is_optimal_on_small_matrices():
    rng = np.random.default_rng(3)
    from itertools import permutations

    for k in range(1, 7):
        cost = rng.integers(0, 5, (k, k)).astype(np.float64)
        assign = hungarian(cost, k)
        assert sorted(assign[:k].tolist()) == list(range(k))
        got = sum(cost[i, assign[i]] for i in range(k))
        assert got == min(sum(cost[i, p[i]] for i in range(k)) for p in permutations(range(k)))


@pytest.mark.parametrize("kind", ["framed", "hinted", "identical", "signed"])
def test_tail_beams_keep_the_pinned_rows_and_every_rule(kind):
    puzzle = dict(BOARDS)[kind]
    board = admissible_board(puzzle)
    assert board is not None
    row = puzzle.height // 2
    counters = {"children": 0, "states": 0}
    again = tail_rebeam(puzzle, board, row, 200, 4, 9, None, counters)
    assert again is not None and counters["states"] > 0
    verdict = check(puzzle, again)
    assert verdict.admissible
    assert again.cells[:row * puzzle.width] == board.cells[:row * puzzle.width]
    assert tail_rebeam(puzzle, board, row, 200, 4, 9, None, dict(counters)) == again  # seeded


def test_first_broken_row():
    puzzle, solution = generate(GeneratorSpec(5, 4, colours=3, framed=False, seed=2))
    assert first_broken_row(puzzle, solution) is None
    cells = list(solution.cells)
    a, b = 2 * 5 + 1, 3 * 5 + 3  # two cells of rows 2 and 3 swap their tiles
    cells[a], cells[b] = cells[b], cells[a]
    spoiled = Solution.from_pairs(puzzle, cells)
    assert check(puzzle, spoiled).score < puzzle.seam_count  # the swap does break seams
    assert first_broken_row(puzzle, spoiled) in (1, 2)  # row 1's south seam meets the moved tile


def test_best_reports_stages_and_operators():
    puzzle, _ = generate(GeneratorSpec(10, 10, like="e2", hint=True, seed=4))
    streamed: list[int] = []
    result = edgematch.best(puzzle, backend="native", time_limit=2.5, search="beam", beam_share=0.3,
                            on_improve=lambda board, score: streamed.append(score))
    c = result.counters
    assert result.options["repair"] == "on"
    assert c["improved_by_beam"] + c["improved_by_repair"] + c.get("improved_by_first_solution_search", 0) \
        == len(result.history) - 1 == len(streamed) - 1
    assert c["repair_gain"] == result.score - c["beam_score"] >= 0
    assert c["tail_beams"] + c["repair_moves"] > 0
    assert check(puzzle, result.solutions[0]).score == result.score


def test_repair_off_runs_beams_only():
    puzzle, _ = generate(GeneratorSpec(8, 8, like="e2", hint=True, seed=4))
    result = edgematch.best(puzzle, backend="native", time_limit=1.5, search="beam", repair="off")
    assert result.options["repair"] == "off"
    assert "repair_moves" not in result.counters


@pytest.mark.parametrize("value", ["1.5", "-0.1", "half"])
def test_a_bad_beam_share_is_one_line(value):
    puzzle, _ = generate(GeneratorSpec(8, 8, like="e2", hint=True, seed=4))
    with pytest.raises(edgematch.UsageError, match="beam_share"):
        edgematch.best(puzzle, backend="native", time_limit=1, search="beam", beam_share=value)


def test_kill_9_in_the_repair_stage_keeps_the_last_saved_board(tmp_path):
    """The beams get a twentieth of the time, so the kill lands in the repair: the file holds a whole,
    admissible board, better than the first (admissible) one, scored as the checker scores it."""
    puzzle, _ = generate(GeneratorSpec(12, 12, like="e2", hint=True, seed=2))
    puzzle_file = tmp_path / "e2.em"
    edgematch.write_puzzle(puzzle, puzzle_file)
    saved = tmp_path / "best.emsol"
    script = "import sys\nfrom edgematch.cli.main import run\nsys.argv = ['edgematch', *sys.argv[1:]]\nrun()\n"
    proc = subprocess.Popen([sys.executable, "-c", script, "best", str(puzzle_file), "-b", "native", "-t", "20",
                             "-O", "beam_share=0.05", "--save", str(saved)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            cwd=Path(__file__).resolve().parent.parent)
    deadline = time.monotonic() + 60
    while not saved.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(2.5)  # past the beams (1 s of 20: the limit is on the wall clock), into the repair
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    board = edgematch.read_solution(saved, puzzle=puzzle)
    verdict = check(puzzle, board)
    first = admissible_board(puzzle)
    assert first is not None
    assert verdict.admissible and verdict.score > check(puzzle, first).score
    others = {p.name for p in tmp_path.iterdir()} - {"e2.em", "best.emsol"}
    assert all(name.endswith(".tmp") for name in others)  # at most a temporary file the kill cut short


def test_a_tail_beam_narrows_to_the_memory_bound(monkeypatch):
    """A chain shares the machine's bound (chains divide it): a tail asked 1,000,000 wide is narrowed to
    what the bound allows, read when the tail runs, and still gives a whole board."""
    from edgematch.solvers.native.best import beam as beam_search
    from edgematch.solvers.native.best.stages import pinned

    puzzle = dict(BOARDS)["hinted"]
    board = admissible_board(puzzle)
    assert board is not None
    row = puzzle.height // 2
    tables = beam_search.BeamTables(pinned(puzzle, board, set(range(row * puzzle.width, puzzle.size))), "comb")
    monkeypatch.setattr(beam_search, "MEMORY_CAP", tables.memory(40, 4))
    counters = {"children": 0, "states": 0}
    again = tail_rebeam(puzzle, board, row, 1_000_000, 4, 3, None, counters)
    assert again is not None and check(puzzle, again).admissible
    assert 0 < counters["states"] <= 40 * tables.t.positions


@pytest.mark.parametrize("name", [name for name, _ in BOARDS])
def test_the_repair_s_best_board_is_its_types_and_turns_decoded(name):
    """The board the repair hands back (built in numpy) is what decoding its types and turns gives, scored as
    the repair scores it."""
    from edgematch.core.tiletypes import decode

    puzzle = dict(BOARDS)[name]
    rt = repair_tables(puzzle)
    rep = Repairer(puzzle, rt, admissible_board(puzzle), seed=3)
    rep.run(2_000)
    cells = [(int(rep.best_typ[c]), int(rt.opt_turn[rep.best_opt[c]])) if rt.free[c] else None
             for c in range(puzzle.size)]
    board = rep.best_board()
    assert board == decode(puzzle, rt.types, cells)
    assert check(puzzle, board).score == rep.best_score
