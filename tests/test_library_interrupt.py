"""Ctrl-C in a library call (issue 22 item 2): the call stops everything it started, then raises
``edgematch.Interrupted`` (a KeyboardInterrupt) carrying what it found, so a script stops as Python scripts do."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

import edgematch
from edgematch import Interrupted, Status
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.solvers import api
from edgematch.solvers.base import get_backend
from tests.timing import contention

ROOT = Path(__file__).resolve().parent.parent
MANY = generate(GeneratorSpec(7, 7, colours=2, seed=1))[0]  # counting its solutions takes minutes
E2 = generate(GeneratorSpec(10, 10, like="e2", seed=5))[0]  # its best board: never proven in seconds
DISTINCT = generate(GeneratorSpec(4, 4, colours=5, seed=5))[0]  # 7.7 M solutions, no two tiles alike


def _ctrl_c_once(found: threading.Event, after: float = 0.2) -> threading.Thread:
    """Ctrl-C to this process (the main thread takes it, as from a terminal) once the search has ``found``
    something (its progress or a yielded solution says so: the tests assert that what it found is kept) and
    ``after`` seconds more of an idle core's work, stretched by the contention then, so the signal comes while
    the search runs on; after 1.5 s at most (as it always came before: mostly past the search's first find)."""
    busy = contention()  # measured here: in the thread it would count the search holding the GIL

    def fire() -> None:
        found.wait((1.5 - after) * busy)  # a search that reports nothing (a portfolio) gets the 1.5 s it used to
        time.sleep(after * busy)
        os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=fire, daemon=True)
    thread.start()
    return thread


def _counted(found: threading.Event):
    """A progress callback that sets ``found`` once the search reports a count above 0."""
    return lambda figures: found.set() if figures.get("solutions") else None


def _children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE]


@pytest.fixture(autouse=True)
def _no_process_left():
    get_backend("native").warm_up()
    before = {p.pid for p in _children()}
    yield
    deadline = time.monotonic() + 5
    while (left := [p for p in _children() if p.pid not in before]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left, f"processes outlived the interrupted call: {left}"


def test_interrupted_is_a_keyboard_interrupt_and_no_exception():
    assert issubclass(Interrupted, KeyboardInterrupt) and not issubclass(Interrupted, Exception)
    stop = pickle.loads(pickle.dumps(Interrupted(edgematch.Result("native", Status.TIMEOUT, count=5))))
    assert stop.result.count == 5 and str(stop) == "interrupted; a count of at least 5 raw solution(s)"


# a portfolio's count stopped by Ctrl-C: its command line is tests/test_exit_codes.py's (here under --runslow)
@pytest.mark.parametrize("backend, workers", [("native", 1), ("native", 2),
                                              pytest.param("portfolio:native+sat", 1, marks=pytest.mark.slow)])
def test_ctrl_c_in_count_raises_interrupted_with_the_lower_bound(backend, workers):
    found = threading.Event()
    thread = _ctrl_c_once(found)
    start = time.monotonic()
    with pytest.raises(Interrupted) as stop:
        edgematch.count(MANY, backend=backend, workers=workers, progress=_counted(found))
    took = time.monotonic() - start
    thread.join()
    result = stop.value.result
    assert result.status is Status.TIMEOUT and result.message == "interrupted", result
    assert result.count is not None and result.count > 0, result  # a lower bound, kept
    assert took < 15, took  # stopped soon after the Ctrl-C, not at the end of a minutes-long count


def test_ctrl_c_in_best_raises_interrupted_with_the_board_so_far():
    found = threading.Event()
    thread = _ctrl_c_once(found)
    with pytest.raises(Interrupted) as stop:
        edgematch.best(E2, backend="native", time_limit=60, on_improve=lambda board, score: found.set())
    thread.join()
    result = stop.value.result
    assert result.solution is not None and result.score == edgematch.score(E2, result.solution) > 0
    assert result.max_score == E2.seam_count and "a board scoring" in str(stop.value)


def test_ctrl_c_in_solutions_raises_after_yielding_what_was_found():
    found = []
    thread = _ctrl_c_once(threading.Event())  # after 1.5 s: a Ctrl-C soon after the first yield took longer to stop
    with pytest.raises(Interrupted) as stop:
        for solution in edgematch.solutions(DISTINCT, backend="sat"):  # enumerates in a child, then yields
            found.append(solution)
    thread.join()
    assert found and stop.value.result.count == len(found)
    assert all(edgematch.check(DISTINCT, s).ok for s in found[:100])


def test_ctrl_c_outside_the_search_is_interrupted_too(monkeypatch):
    def ctrl_c(puzzle):
        raise KeyboardInterrupt  # as if pressed while the puzzle file was read

    monkeypatch.setattr(api, "as_puzzle", ctrl_c)
    with pytest.raises(Interrupted) as stop:
        edgematch.count("examples/hunde.hunde", backend="native")
    assert stop.value.result.count == 0 and stop.value.result.message == "interrupted"
    with pytest.raises(Interrupted) as stop:
        edgematch.best("examples/hunde.hunde", backend="native")
    assert stop.value.result.solution is None


LOOP = """
import sys, edgematch
from edgematch.core.generator import GeneratorSpec, generate
puzzles = [generate(GeneratorSpec(7, 7, colours=2, seed=seed))[0] for seed in (1, 2)]
for i, puzzle in enumerate(puzzles):
    print("counting", i, flush=True)
    result = edgematch.count(puzzle, backend=sys.argv[1], workers=int(sys.argv[2]))
    print("counted", i, result.count, flush=True)
print("done", flush=True)
"""


@pytest.mark.parametrize("backend, workers", [("native", 2), ("native", 1)])
def test_ctrl_c_stops_a_script_looping_over_puzzles(backend, workers):
    proc = subprocess.Popen([sys.executable, "-c", LOOP, backend, str(workers)], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "counting 0"
        time.sleep(1.5)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole process group
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert "counting 1" not in out and "done" not in out, out  # the loop stopped at the first puzzle
    # an uncaught Interrupted ends the script with its traceback; CPython gives the death-by-SIGINT exit status
    # only to KeyboardInterrupt itself, not to subclasses, so the status is 1 here
    assert proc.returncode != 0, (proc.returncode, err)
    assert "edgematch.errors.Interrupted: interrupted; a count of at least" in err, err
