"""Cube-and-conquer for the SAT backend (``sat -O cubes=N``, edgematch.solvers.cubes): the same answers as the
native backend and the brute force on seeded random boards, unsatisfiable ones included; the cubes cover every
solution exactly once (so "every cube unsatisfiable" is a proof of "no solution"); workers and a Dask cluster
keep a short time limit on a hard board and leave no process behind; bad option values are one line."""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner

import edgematch
from edgematch.cli.main import load_commands
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate, random_tiles
from edgematch.errors import UsageError
from edgematch.formats import write_puzzle
from edgematch.solvers.base import Status, Task, get_backend
from edgematch.solvers.boards import counted
from tests.oracle import all_solutions
from tests.samples import random_small_puzzles

pytest.importorskip("pysat")
psutil = pytest.importorskip("psutil")
from pysat.solvers import Solver  # noqa: E402

from edgematch.encodings.cnf import CnfOptions, encode  # noqa: E402
from edgematch.solvers.cubes import literals, ordered, plan_cubes  # noqa: E402
from tests.timing import timed  # noqa: E402

# planted boards (mostly solvable) and plain random tiles (mostly not); kept small for the brute force
SMALL = random_small_puzzles(48, seed=2424)
UNSAT_EXTRA = [random_tiles(3, 3, colours, rule, True, seed=s)  # about 2 in 5 without a solution
               for colours in (3, 4) for s, rule in enumerate(["same", "signed"] * 8)]
HARD, _ = generate(GeneratorSpec(8, 8, framed=True, border_colours=3, inner_colours=8, seed=1))
SOLVERS = ("sat:cadical195", "sat:glucose4", "sat:minisat22")


def ours(process: psutil.Process) -> list[psutil.Process]:
    """The live descendants of ``process`` (multiprocessing's resource tracker aside)."""
    found = []
    for child in process.children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "resource_tracker" not in " ".join(child.cmdline()):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def no_process_left(seconds: float = 3.0) -> bool:
    """Whether every process this test started is gone (a killed child may take a moment to be reaped)."""
    until = time.monotonic() + seconds
    while ours(psutil.Process()):
        if time.monotonic() > until:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("half", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_cubes_agree_with_the_native_backend_and_the_brute_force(half):
    """Half the sample by default (every solver and cube count in each half: i % 6 < 3 or not), both with
    --runslow."""
    puzzles = SMALL + UNSAT_EXTRA
    unsat = 0
    for i, puzzle in enumerate(puzzles):
        if (i % 6 >= 3) != half:
            continue
        solvable = next(iter(all_solutions(puzzle)), None) is not None
        native = edgematch.solve(puzzle, backend="native")
        result = edgematch.solve(puzzle, backend=SOLVERS[i % 3], cubes=[2, 8, 64][i % 3], time_limit=30)
        expected = Status.SOLVED if solvable else Status.UNSAT
        assert (result.status, native.status) == (expected, expected), (puzzle, result.message)
        if solvable:
            assert check(puzzle, result.solution).ok
        unsat += not solvable
        assert result.options["cubes"] == [2, 8, 64][i % 3]
        assert result.counters["cubes"] >= 1 or not solvable
    assert unsat >= 6  # each half holds unsatisfiable boards (6 and 9): both answers are tested


def _boards_per_cube(puzzle, symmetry: bool, target: int):
    """Every board (model of the CNF) of every cube, enumerated cube by cube, and the encoding."""
    enc = encode(puzzle, CnfOptions(symmetry=symmetry))
    plan = plan_cubes(puzzle, target, symmetry)
    per_cube = []
    with Solver(name="glucose4", bootstrap_with=enc.clauses) as sat:
        for cube in plan.cubes:
            lits = literals(enc, cube)
            found = []
            while lits is not None and sat.solve(assumptions=lits):
                board = tuple(enc.decode(sat.get_model()))
                found.append(board)
                sat.add_clause(enc.block(board))  # never found again, under any cube
            per_cube.append(found)
    return enc, plan, per_cube


@pytest.mark.parametrize("symmetry", [True, False])
def test_counting_cube_by_cube_gives_the_native_count(symmetry):
    """Each board is found under the first cube that holds it and then blocked everywhere; so if the cubes
    overlapped or missed boards, the sum would still be right but a board would satisfy two cubes or none:
    both are checked below (every board satisfies exactly one cube)."""
    checked = 0
    for puzzle in SMALL[:30]:
        native = edgematch.count(puzzle, distinct=True, backend="native")
        for target in (2, 6, 40):
            enc, plan, per_cube = _boards_per_cube(puzzle, symmetry, target)
            boards = [b for found in per_cube for b in found]
            assert counted(puzzle, enc.types, enc.turns, boards, True) == (native.count, native.distinct), puzzle
            for board in boards:  # in exactly one cube
                holding = [cube for cube in plan.cubes if all(board[c] == (t, r) for c, t, r in cube)]
                assert len(holding) == 1, (puzzle, board)
            checked += len(boards)
    assert checked > 100


def test_every_brute_force_solution_satisfies_exactly_one_cube():
    """Against the oracle's raw solutions (no symmetry breaking on either side): each one's placement on the
    cubes' cells is one (type, turn) per cell, and exactly one cube lists it."""
    seen = 0
    for puzzle in SMALL[:24]:
        enc = encode(puzzle, CnfOptions(symmetry=False))
        types = enc.types
        tile_type = {tile: t for t, members in enumerate(types.members) for tile, _ in members}
        for target in (3, 30):
            cubes = plan_cubes(puzzle, target, symmetry=False).cubes
            for solution in all_solutions(puzzle):
                shows = {c: puzzle.tiles[tile].rotated(rot) for c, (tile, rot) in enumerate(solution.cells)}
                holding = [cube for cube in cubes if all(
                    tile_type.get(solution.cells[c][0]) == t and shows[c] == types.shown(t, r) for c, t, r in cube)]
                assert len(holding) == 1, (puzzle, solution)
                assert literals(enc, holding[0]) is not None  # its placements are all in the CNF
                seen += 1
    assert seen > 50


def test_no_cube_is_lost_by_ordering():
    """Ordering keeps every cube that has a solution: it drops only those naming placements the CNF lacks and
    those unit propagation refutes, and the counts add up."""
    for puzzle in SMALL[:20]:
        enc, plan, per_cube = _boards_per_cube(puzzle, True, 20)
        with Solver(name="cadical195", bootstrap_with=enc.clauses) as sat:
            order = ordered(sat, enc, plan.cubes)
        assert len(order.cubes) + order.dropped + order.refuted == len(plan.cubes)
        kept = {tuple(c) for c in order.cubes}
        for cube, found in zip(plan.cubes, per_cube, strict=True):
            if found:
                assert tuple(literals(enc, cube)) in kept


# 0.3-0.4 s a board and a way: 3 solvable and 3 unsatisfiable boards by default, 8 and 6 with --runslow
@pytest.mark.parametrize("solvable, unsat", [(3, 3), pytest.param(8, 6, marks=pytest.mark.slow)], ids=["few", "more"])
def test_two_workers_and_a_cluster_give_the_same_answers(client, solvable, unsat):
    sat = get_backend("sat:cadical195")
    for puzzle in SMALL[:solvable] + UNSAT_EXTRA[:unsat]:
        expected = Status.SOLVED if next(iter(all_solutions(puzzle)), None) is not None else Status.UNSAT
        for task in (Task("first", 30, workers=2, options={"cubes": 16}), Task("first", 30, cluster=client)):
            result = sat.run(puzzle, task)
            assert result.status is expected, (puzzle, task, result.message)
            if result.solutions:
                assert check(puzzle, result.solution).ok
    assert no_process_left()


def test_two_workers_keep_a_short_time_limit_on_a_hard_board():
    with timed() as t:
        result = edgematch.solve(HARD, backend="sat:cadical195", workers=2, time_limit=2, cubes=64)
    assert result.status is Status.TIMEOUT and result.message == "time limit"
    assert t.within(2, 1.0), t  # the limit bounds everything
    planned = "cube_depth" in result.counters  # a busy machine may reach the limit before the plan is made
    assert result.counters["cubes"] >= 64 if planned else result.counters["cubes"] == 0, result.counters
    assert result.options["workers"] == 2
    assert no_process_left()


def test_a_cluster_keeps_a_short_time_limit_on_a_hard_board(client):
    """The limit counts from the cluster being ready: its start and close are reported apart (README; on the test
    process's client: a local cluster's start, outside the limit, is tests/test_limits.py's)."""
    with timed() as t:
        result = get_backend("sat:cadical195").run(HARD, Task("first", 2, cluster=client, options={"cubes": 64}))
    assert result.status is Status.TIMEOUT and result.options["cluster"].startswith("client ")
    c = result.counters
    assert c["cluster_start_seconds"] > 0 and c["cluster_close_seconds"] >= 0
    t.took -= c["cluster_start_seconds"] + c["cluster_close_seconds"]
    assert t.within(2, 2.0), t
    assert result.timings.total < t.took + 0.01  # the solve time the result reports leaves them out too
    assert no_process_left()


def test_the_command_line_runs_cubes_and_keeps_its_limit(tmp_path):
    app = load_commands()
    path = tmp_path / "hard.em"
    path.write_text(write_puzzle(HARD))
    began = time.monotonic()
    out = CliRunner().invoke(app, ["solve", str(path), "-b", "sat:cadical195", "-O", "cubes=32", "-j", "2",
                                   "-t", "2"], catch_exceptions=False)
    assert out.exit_code == 3, out.output
    assert time.monotonic() - began < 2 + 2.0
    assert no_process_left()


@pytest.mark.parametrize(("options", "kwargs", "says"), [
    ({"cubes": "1"}, {}, "from 2 to"),
    ({"cubes": "x"}, {}, "a number of cubes"),
    ({"cubes": "٣"}, {}, "a number of cubes"),
    ({"cubes": "2_0"}, {}, "a number of cubes"),
    ({"cubes": 10**7}, {}, "from 2 to"),
    ({"cubes": True}, {}, "a number of cubes"),
    ({"cubes": 1.5}, {}, "a number of cubes"),
    ({"cubes": "off"}, {"workers": 2}, "need cubes"),
    ({"cubes": 8, "proof": "p.drat"}, {}, "not from cubes"),
])
def test_bad_values_are_one_line_usage_errors(options, kwargs, says):
    with pytest.raises(UsageError, match=says) as info:
        edgematch.solve("examples/insects.em", backend="sat", **kwargs, **options)
    assert "\n" not in str(info.value)


def test_cubes_belong_to_a_first_solution():
    for call in (edgematch.count, edgematch.solve_all):
        with pytest.raises(UsageError, match="first solution"):
            call("examples/insects.em", backend="sat", cubes=8)
    with pytest.raises(UsageError, match="first solution"):
        get_backend("sat").run(HARD, Task("count", 1, cluster="local:2"))


def test_a_count_on_more_workers_says_one_solver_counted():
    """Cubes answer a first solution only: a SAT count asked for 2 workers counts with one and says so."""
    result = edgematch.count("examples/insects.em", backend="sat", workers=2, distinct=True)
    assert (result.count, result.distinct) == (4, 1)
    assert result.options["workers"].startswith("1 (one solver enumerates; 2 asked")


def test_best_and_cpsat_counts_on_more_workers_say_they_used_one():
    """SAT's best and CP-SAT's enumeration run one solver whatever --workers says: each says so (they said
    nothing, or num_workers=1 without a reason)."""
    best = edgematch.best("examples/insects.em", backend="sat", workers=2, time_limit=10)
    assert best.options["workers"] == "1 (one solver improves the board; 2 asked)"
    counted = edgematch.count("examples/insects.em", backend="cpsat", workers=2)
    assert counted.count == 4 and counted.options["num_workers"] == "1 (CP-SAT enumerates on one; 2 asked)"
    assert edgematch.solve("examples/insects.em", backend="cpsat", workers=2).options["num_workers"] == 2


def test_the_command_line_says_one_line_for_a_bad_value():
    out = CliRunner().invoke(load_commands(), ["solve", "examples/insects.em", "-b", "sat", "-O", "cubes=many"])
    assert out.exit_code == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "cubes" in out.stderr
