"""The public library API as a script uses it: every bad argument is an edgematch error with a clear message
(never an OverflowError, AttributeError or TypeError from deep inside), ``best`` has a time limit by default,
and a Result says what its fields and its truth mean."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import operator
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import edgematch
from edgematch import EdgematchError, Hint, Puzzle, PuzzleError, Solution, Tile, UsageError, check, score
from edgematch.cli.best import best_cmd
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.solvers import BEST_TIME_LIMIT, Result, Status, api, base
from edgematch.solvers.base import Backend, Task

PUZZLE, SOLUTION = generate(GeneratorSpec(2, 2, colours=2, seed=1))
HUGE = 10**400  # more than a float holds
ENORMOUS = 10**5000  # more digits than Python prints (4,300)

# anything a script might pass by mistake
ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.sampled_from([HUGE, -HUGE, ENORMOUS]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5), st.binary(max_size=3),
    st.lists(st.integers(-3, 3), max_size=5), st.tuples(st.integers(-3, 3)),
    st.sampled_from([object(), {}, {1: 2}, 1j, Fraction(HUGE, 3), [[1, 2]], PUZZLE, SOLUTION, np.int64(2),
                     np.float64("nan"), np.bool_(True)]),
)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def _only_ours(call):
    """Run ``call``: it may succeed or raise an edgematch error, nothing else."""
    try:
        call()
    except EdgematchError as exc:
        assert str(exc) and "\n" not in str(exc), repr(exc)


# ----- item 26: the reported holes --------------------------------------------------------------------------

@pytest.mark.parametrize("limit", [HUGE, -HUGE, ENORMOUS, Fraction(HUGE, 7), float("inf"), 1e308],
                         ids=["1e400", "-1e400", "1e5000", "fraction", "inf", "1e308"])
def test_a_time_limit_too_large_for_a_float_is_a_usage_error(limit):
    for call in (edgematch.solve, edgematch.count, edgematch.best, edgematch.solve_all):
        with pytest.raises(UsageError, match="time limit must be"):
            call(PUZZLE, backend="native", time_limit=limit)
    with pytest.raises(UsageError, match="time limit must be"):
        edgematch.solutions(PUZZLE, backend="native", time_limit=limit)


def test_an_enormous_number_of_workers_or_solutions_is_described_not_printed():
    with pytest.raises(UsageError, match="workers must be from 1 to .* got an integer of 16,610 bits"):
        edgematch.count(PUZZLE, workers=ENORMOUS)
    with pytest.raises(UsageError, match="solution limit must be from 1"):
        edgematch.solve_all(PUZZLE, limit=-ENORMOUS)


@pytest.mark.parametrize("solution", [None, "0:0 1:0", [(0, 0)] * 4, PUZZLE, 5])
def test_check_and_score_of_something_that_is_not_a_solution_are_usage_errors(solution):
    with pytest.raises(UsageError, match="the solution must be an edgematch.Solution"):
        check(PUZZLE, solution)
    with pytest.raises(UsageError, match="the solution must be an edgematch.Solution"):
        score(PUZZLE, solution)
    with pytest.raises(UsageError, match="the puzzle must be an edgematch.Puzzle"):
        check(None, SOLUTION)


@pytest.mark.parametrize("hint, message", [
    ((0, 1), r"hint 0 must be \(cell, tile, rotation\), 3 whole numbers, got \(0, 1\)"),
    ((0, 1, 0, 0), "hint 0 must be"),
    (5, r"hint 0 must be \(cell, tile, rotation\), got 5"),
    ((0, "1", 0), "hint 0: the tile must be a whole number"),
    ((0, 1.0, 0), "hint 0: the tile must be a whole number"),
    ((None, 1, 0), "hint 0: the cell must be a whole number"),
    ((ENORMOUS, 1, 0), "the cell must be a whole number .* got an integer of"),
])
def test_a_hint_of_the_wrong_shape_is_a_puzzle_error(hint, message):
    with pytest.raises(PuzzleError, match=message):
        PUZZLE.replace(hints=[hint])


@pytest.mark.parametrize("width, height", [(True, True), (True, 1), (1, False), (1.0, 1), ("1", 1), (None, 1)])
def test_bools_and_non_integers_are_not_board_sizes(width, height):
    with pytest.raises(PuzzleError, match="must be a whole number"):
        Puzzle(width, height, (Tile((1, 2, 3, 4)),))
    with pytest.raises(PuzzleError, match="must be a whole number"):
        Solution(width, height, ((0, 0),))


@pytest.mark.parametrize("changes, message", [
    ({"rotations": "no"}, "rotations must be True or False"),
    ({"rotations": 0}, "rotations must be True or False"),
    ({"frame": True}, "the frame must be an integer label"),
    ({"frame": "0"}, "the frame must be an integer label"),
    ({"labels": [1, 2]}, "labels must map integer labels to names"),
    ({"labels": {1: ["x"]}}, "name \\['x'\\] must be a non-empty word"),
    ({"labels": {ENORMOUS: "x"}}, "keyed by integer labels"),
    ({"tiles": 5}, "tiles must be a sequence of tiles"),
    ({"tiles": None}, "tiles must be a sequence of tiles"),
    ({"tiles": [5, 6, 7, 8]}, "a tile must be 4 edge labels"),
    ({"tiles": [(1, 2, 3, ENORMOUS)] * 4}, "at most 18 digits long, got an integer of"),
    ({"width": ENORMOUS}, "at most 18 digits"),
    ({"rule": ENORMOUS}, "unknown rule an integer of"),
    ({"name": ENORMOUS}, "the puzzle name must be text"),
])
def test_puzzle_fields_of_the_wrong_type_are_puzzle_errors(changes, message):
    with pytest.raises(PuzzleError, match=message):
        PUZZLE.replace(**changes)


@pytest.mark.parametrize("cells, message", [
    (5, "a solution's cells must be a sequence of"),
    ([(0,), (1, 0), (2, 0), (3, 0)], r"solution cell 0 must be \(tile, rotation\)"),
    ([(0, "0"), (1, 0), (2, 0), (3, 0)], "solution cell 0: the rotation must be a whole number"),
    ([(0, 0), (1, 0), (2, 0), None], "solution cell 3 must be"),
])
def test_solution_cells_of_the_wrong_shape_are_puzzle_errors(cells, message):
    with pytest.raises(PuzzleError, match=message):
        Solution(2, 2, cells)


def test_numpy_integers_are_whole_numbers_and_become_ints():
    puzzle = Puzzle(np.int64(1), np.int32(1), [np.array([1, 2, 3, 4])], hints=[np.array([0, 0, 1])])
    solution = Solution(np.int64(1), 1, [np.array([0, 1])])
    assert type(puzzle.width) is int and type(puzzle.tiles[0].edges[0]) is int
    assert type(puzzle.hints[0].rotation) is int and type(solution.cells[0].rotation) is int
    assert check(puzzle, solution).ok and puzzle == Puzzle(1, 1, [(1, 2, 3, 4)], hints=[(0, 0, 1)])


def test_out_of_range_placements_are_still_a_checkers_verdict_not_an_error():
    # a Solution holds any whole numbers: judging them is the checker's job (it lists every violation)
    verdict = check(PUZZLE, Solution(2, 2, [(7, 0), (1, 9), (-1, 0), (3, 0)]))
    assert {v.kind for v in verdict.violations} >= {"tile-range", "rotation-range"}


# ----- item 26: a fuzz of the public calls ------------------------------------------------------------------

CALLS = ["solve", "count", "best", "solutions", "solve_all", "choose_backend", "explain"]
ARGUMENTS = ["puzzle", "backend", "time_limit", "workers", "limit", "distinct", "progress", "confirm", "cluster",
             "on_improve", "question", "order"]


@FUZZ
@given(st.sampled_from(CALLS), st.sampled_from(ARGUMENTS), ODD)
def test_fuzz_every_bad_argument_of_the_library_calls_is_an_edgematch_error(name, argument, value):
    call = getattr(edgematch, name)
    if argument not in inspect.signature(call).parameters and argument != "order":
        return
    kwargs = {"backend": "native"} if name not in ("choose_backend", "explain") else {}
    if argument == "puzzle":
        if isinstance(value, str | bytes):
            return  # a path: reading files is the formats' tests' business
        args: tuple = (value,)
    else:
        args, kwargs[argument] = (PUZZLE,), value

    def run():
        answer = call(*args, **kwargs, **({"time_limit": 5} if name != "solutions" and argument != "time_limit"
                                          and "time_limit" in inspect.signature(call).parameters else {}))
        if name == "solutions":
            list(answer)

    _only_ours(run)


@FUZZ
@given(st.sampled_from(["width", "height", "tiles", "rule", "frame", "rotations", "hints", "labels", "name"]), ODD)
def test_fuzz_every_bad_puzzle_field_is_a_puzzle_error(field, value):
    def run():
        puzzle = PUZZLE.replace(**{field: value})
        # what was accepted is what the model means: sizes and labels are ints, rotations a bool
        assert type(puzzle.width) is int and type(puzzle.height) is int and isinstance(puzzle.rotations, bool)
        assert puzzle.frame is None or type(puzzle.frame) is int
        check(puzzle, SOLUTION)
        repr(puzzle), hash(puzzle)

    _only_ours(run)


@FUZZ
@given(st.sampled_from(["width", "height", "cells"]), ODD, st.lists(st.tuples(ODD, ODD), max_size=4), ODD)
def test_fuzz_solutions_and_the_checker(field, value, cells, other):
    fields = {"width": 2, "height": 2, "cells": SOLUTION.cells, field: value}
    _only_ours(lambda: check(PUZZLE, Solution(**fields)))
    _only_ours(lambda: check(PUZZLE, Solution(2, 2, (cells + [(0, 0)] * 4)[:4])))
    _only_ours(lambda: PUZZLE.replace(hints=[tuple(c) for c in cells]))
    _only_ours(lambda: check(PUZZLE, other))
    _only_ours(lambda: check(other, SOLUTION))
    _only_ours(lambda: Tile(other))
    _only_ours(lambda: Hint(0, 0, 0) and PUZZLE.replace(hints=[other]))
    _only_ours(lambda: operator.index(1) and Puzzle(1, 1, [(1, 2, 3, 4)], labels={1: other}))


@pytest.mark.parametrize("value", [[1], {"a": 1}, 1j, b"row", object(), (1, 2), ENORMOUS, 10**18],
                         ids=["list", "dict", "complex", "bytes", "object", "tuple", "1e5000", "1e18"])
def test_a_backend_option_that_is_no_word_number_or_switch_is_a_usage_error(value):
    with pytest.raises(UsageError, match="option order: "):
        edgematch.count(PUZZLE, backend="native", order=value)
    with pytest.raises(UsageError, match="option start: "):
        edgematch.best(PUZZLE, backend="native", start=value)


OPTIONS = {"native": ("order", "symmetry", "unit", "seed", "start", "breaks", "double"), "cpsat": ("symmetry", "seed"),
           "sat": ("one_to_one", "forbidden", "support", "amo", "symmetry", "maxsat")}
NOT_TEXT = ODD.filter(lambda v: not isinstance(v, str))  # text options: each backend's own tests


@FUZZ
@given(st.sampled_from(["native", "cpsat", "sat", "native:dfs"]), st.sampled_from(["solve", "count", "best"]),
       st.data())
def test_fuzz_backend_option_values(backend, call, data):
    name = data.draw(st.sampled_from(OPTIONS[backend.partition(":")[0]]))
    value = data.draw(NOT_TEXT)
    _only_ours(lambda: getattr(edgematch, call)(PUZZLE, backend=backend, time_limit=5, **{name: value}))


# ----- item 14: best's default time limit, Result's documentation and truth value -------------------------

class _Spy(Backend):
    """A backend that answers at once and remembers the task it was given."""

    name = "spy"
    questions = ("first", "all", "count", "best")
    seen: list[Task] = []

    def run(self, puzzle, task):
        self.seen.append(task)
        return Result(self.name, Status.TIMEOUT, message="time limit")


def test_best_stops_after_60_seconds_unless_told_otherwise(monkeypatch):
    monkeypatch.setattr(api, "_backend", lambda name: _Spy())
    _Spy.seen.clear()
    edgematch.best(PUZZLE)
    edgematch.best(PUZZLE, time_limit=None)
    edgematch.best(PUZZLE, time_limit=5)
    assert [task.time_limit for task in _Spy.seen] == [60.0, None, 5.0]
    assert BEST_TIME_LIMIT == 60.0
    # the command line's default is the same constant
    assert inspect.signature(best_cmd).parameters["time_limit"].default is BEST_TIME_LIMIT
    doc = inspect.getdoc(edgematch.best)
    assert "60 s" in doc and "time_limit=None" in doc and "never happens" in doc


def test_every_result_field_has_a_docstring():
    tree = ast.parse(inspect.getsource(base))
    result = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Result")
    fields, documented = [], []
    for node, after in zip(result.body, [*result.body[1:], None], strict=True):
        if isinstance(node, ast.AnnAssign):
            fields.append(node.target.id)
            if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) and after.value.value.strip():
                documented.append(node.target.id)
    assert fields == [f.name for f in dataclasses.fields(Result)]
    assert documented == fields


def test_a_result_is_true_only_for_a_final_answer():
    assert not Result("native", Status.TIMEOUT, [SOLUTION], count=3, message="time limit")  # partial, a lower bound
    assert not Result("native", Status.ERROR, message="failed")
    assert Result("native", Status.SOLVED, [SOLUTION]) and Result("native", Status.UNSAT)
    assert edgematch.solve(PUZZLE, backend="native") and edgematch.count(PUZZLE, backend="native")
    hard = generate(GeneratorSpec(8, 8, like="e2", seed=2))[0]
    timed_out = edgematch.best(hard, backend="native", time_limit=0.5)
    assert timed_out.status is Status.TIMEOUT and timed_out.solution is not None and not timed_out
    doc = " ".join(Result.__doc__.split())
    assert "truth value is :attr:`complete`" in doc and "test ``result.solution is not None``" in doc


# --- the public helpers beside the solver calls (generator, symmetry, option values) ------------------------

@pytest.mark.parametrize("call", [
    lambda: edgematch.GeneratorSpec(3, 3, attempt="x"),
    lambda: edgematch.GeneratorSpec(3, 3, colours=[1]),
    lambda: edgematch.GeneratorSpec(True, 3),
    lambda: edgematch.GeneratorSpec(ENORMOUS, 3),
    lambda: edgematch.random_tiles(ENORMOUS, 2, 3),
    lambda: edgematch.GeneratorSpec(3, 3, framed="yes"),
    lambda: edgematch.random_tiles(3, 3, colours=10**30),
    lambda: edgematch.random_tiles(2, 2, rule="x"),
    lambda: edgematch.board_turns(None),
    lambda: edgematch.distinct_key(edgematch.random_tiles(2, 2), None),
    lambda: __import__("edgematch.solvers.unique", fromlist=["x"]).unique_puzzle(
        edgematch.GeneratorSpec(3, 3), time_limit=10**400),
    lambda: edgematch.best(PUZZLE, backend="native", start="abc", time_limit=1),
    lambda: edgematch.best(PUZZLE, backend="native", start=float("nan"), time_limit=1),
], ids=["attempt", "colours-list", "bool-size", "enormous-size", "enormous-random", "framed-text", "huge-colours",
        "rule", "turns-none", "key-none",
        "unique-limit", "start-text", "start-nan"])
def test_public_helpers_refuse_bad_values_with_a_usage_error(call):
    with pytest.raises(edgematch.UsageError):
        call()
