"""Time limits and child processes: every backend returns within its limit plus a quarter second (building a
model counts against it), and no worker process outlives its caller, even one killed with ``kill -9``."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import edgematch
from edgematch import clock
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.solvers.base import get_backend
from tests.timing import timed

ROOT = Path(__file__).resolve().parent.parent
OVERSHOOT = 0.25  # seconds past the limit a call may take (stopping, collecting, killing children)
# a board whose CP-SAT model and CNF take seconds to build (so the build must stop at the limit too), and
# on which no backend finds a first solution or finishes a count in a second
HARD = GeneratorSpec(16, 16, framed=True, border_colours=5, inner_colours=17, seed=1)


@pytest.fixture(scope="module")
def hard():
    return generate(HARD)[0]


@pytest.mark.parametrize(("backend", "question", "workers"), [
    ("native", "count", 1), ("native", "count", 4), ("native:restarts", "first", 1), ("cpsat", "count", 1),
    ("cpsat:table", "first", 1), ("sat", "count", 1), ("sat:lingeling", "first", 1),
    ("sat:cadical195", "count", 1), ("portfolio", "count", 1), ("portfolio", "first", 1), ("auto", "first", 1),
])
def test_every_backend_returns_within_its_limit(hard, backend, question, workers):
    get_backend(backend).warm_up()  # loading libraries is not part of the limit; building and starting are
    limit = 0.4
    with timed() as took:
        if question == "count":
            result = edgematch.count(hard, backend=backend, time_limit=limit, workers=workers)
        else:
            result = edgematch.solve(hard, backend=backend, time_limit=limit, workers=workers)
    assert result.status.value == "timeout" and result.message.startswith("time limit"), result
    # the overshoot is CPU work: on a busy core (auto 1.16 s, native:restarts 0.92 s there, 0.43 s at a
    # contention of 3 with the limit kept) it is stretched by the contention measured around the call
    assert took.within(limit, OVERSHOOT), f"{backend} {took} for a {limit} s limit"
    if question == "count":
        assert result.count is not None  # a lower bound, even when stopped while building


SCRIPT = """
import sys, threading
import edgematch
from edgematch.core.generator import GeneratorSpec, generate
puzzle = generate(GeneratorSpec(7, 7, colours=2, seed=1))[0]
backend, workers, threaded = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "thread"
call = lambda: edgematch.count(puzzle, backend=backend, workers=workers)
if threaded:  # forked by a thread that is not the main one: PR_SET_PDEATHSIG follows the forking thread
    worker = threading.Thread(target=call)
    worker.start()
    worker.join()
else:
    call()
"""


def _children(pid):
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                kids.append(int(entry.name))
    return kids


def _descendants(pid):
    found, todo = [], [pid]
    while todo:
        for kid in _children(todo.pop()):
            found.append(kid)
            todo.append(kid)
    return found


def _alive(pid):
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_no_worker_outlives_a_caller_killed_with_kill_9():
    # backend, workers, how it is called, processes it starts: native's workers (forked by a thread that is
    # not the main one), the portfolio's members and the SAT and CP-SAT solver children they start
    cases = [("native", 4, "thread", 4), ("portfolio:native+sat+cpsat", 1, "main", 5)]
    callers = [(subprocess.Popen([sys.executable, "-c", SCRIPT, backend, str(workers), how], cwd=ROOT), started)
               for backend, workers, how, started in cases]
    seen = []
    try:
        for (caller, started), case in zip(callers, cases, strict=True):
            deadline = time.monotonic() + 30
            while len(kids := _descendants(caller.pid)) < started and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(kids) >= started, f"{case}: only {kids} started"
            seen.append(kids)
        for caller, _ in callers:
            caller.send_signal(signal.SIGKILL)
            caller.wait()
        time.sleep(1.0)
        for kids, case in zip(seen, cases, strict=True):
            assert not [k for k in kids if _alive(k)], f"{case}: workers outlived their killed caller"
    finally:
        for caller, _ in callers:
            caller.kill()
        for kids in seen:
            for kid in kids:
                if _alive(kid):
                    os.kill(kid, signal.SIGKILL)


def _count_hunde(backend):
    return edgematch.count(edgematch.read_puzzle(ROOT / "examples/hunde.hunde"), backend=backend).count


def test_backends_with_child_processes_run_inside_a_pool_worker():
    import multiprocessing

    # a Pool worker is daemonic, and multiprocessing forbids such a process children; ours die with it
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.map(_count_hunde, ["cpsat", "sat", "portfolio:native+sat"]) == [16, 16, 16]


def test_ctrl_c_keeps_the_count_the_workers_had_so_far():
    import threading

    puzzle = generate(GeneratorSpec(7, 7, colours=2, seed=1))[0]
    get_backend("native").warm_up()
    before = set(_descendants(os.getpid()))
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))  # Ctrl-C reaches the caller
    timer.start()
    try:
        with timed() as took, pytest.raises(edgematch.Interrupted) as stop:  # a KeyboardInterrupt with what was found
            edgematch.count(puzzle, backend="native", workers=2)
    finally:
        timer.cancel()
    result = stop.value.result
    assert result.message == "interrupted" and result.status.value == "timeout", result
    assert result.count > 0 and took.within(1.0, OVERSHOOT + 0.2), took
    assert not set(_descendants(os.getpid())) - before, "a worker outlived the interrupted count"


# Set-up inside the limit (issue 39, item 5): building tables, forking chains, submitting a cluster's parts all count;
# a local cluster's start and close are reported apart. Wall times measured around a call get LOADED, which a loaded
# machine keeps; a command's own reported time (from the start of its search) gets OVERSHOOT where it can.
LOADED = 1.5


@pytest.fixture(scope="module")
def board40(tmp_path_factory):
    """An Eternity II-like 40x40 (5 rim, 17 inner colours' proportions): its tables take 0.4 s of CPU to build (2.7 s
    with the dynamic order's masks), and no search answers it in seconds."""
    path = tmp_path_factory.mktemp("limits") / "b40.em"
    edgematch.write_puzzle(generate(GeneratorSpec(40, 40, like="e2", seed=1))[0], path)
    return path


def _reported(*args: str) -> dict:
    """The ``--json`` result of ``edgematch ARGS`` in a process of its own."""
    run = subprocess.run([sys.executable, "-m", "edgematch", *args, "--json"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode in (0, 3), run.stderr  # solved, or stopped by the time limit
    return json.loads(run.stdout)


@pytest.mark.parametrize("limit", [0.01, 1.0])
def test_a_race_ends_within_its_limit_while_its_chains_build_their_tables(board40, limit):
    # the chains take 0.4-2.7 s to build; the parent used to wait 0.4 s past the limit for their reports (2.41 s
    # for -t 2, 0.43 s for -t 0.01), and a chain built on past it
    data = _reported("solve", str(board40), "-j", "2", "-t", str(limit))
    assert data["status"] == "timeout" and data["message"].startswith("time limit"), data["message"]
    assert data["timings"]["total"] < limit + OVERSHOOT, data["timings"]


def test_building_the_tables_stops_at_the_time_limit(board40):
    # the dynamic order's tables take 2.7 s of CPU on 40x40: a 0.3 s limit used to end after them (and a first
    # slice of 200,000 nodes at 0.6 M/s after that)
    puzzle = edgematch.read_puzzle(board40)
    get_backend("native").warm_up()
    limit = 0.3
    start = time.monotonic()
    result = edgematch.solve(puzzle, backend="native", time_limit=limit, order="dynamic", bounds="on")
    took = time.monotonic() - start
    assert result.status.value == "timeout" and result.message == "time limit", result
    assert took < limit + LOADED, f"{took:.2f} s for a {limit} s limit"
    counted = edgematch.count(puzzle, backend="native", time_limit=limit, order="dynamic")
    assert counted.status.value == "timeout" and counted.count == 0  # a lower bound, nothing searched


def test_a_search_with_no_time_left_runs_one_small_slice(hard):
    from edgematch.solvers.native.search import Search, drive
    from edgematch.solvers.native.tables import build_tables

    get_backend("native").warm_up()
    outcome = drive(Search(build_tables(hard, "row"), capacity=1), until=clock.now())
    # before the loop's rate is known: the loop with propagation runs 0.5 M nodes/s on 40x40, where a first slice
    # of 200,000 nodes ended 0.34 s past the limit
    assert outcome.stopped == "time limit" and 0 < outcome.nodes <= 10_000, outcome


def test_a_cluster_count_keeps_its_limit_and_reports_the_clusters_start_apart(tmp_path, hard):
    pytest.importorskip("dask.distributed")
    board = tmp_path / "hard.em"
    edgematch.write_puzzle(hard, board)
    limit = 1.0
    data = _reported("count", str(board), "--cluster", "local:2", "-t", str(limit))
    counters = data["counters"]
    # starting the cluster took 1-15 s here, and counted: 3.34-4.59 s for a 3 s limit, 11.7 s on a loaded core
    assert counters["cluster_start_seconds"] > 0 and counters["cluster_close_seconds"] >= 0, counters
    assert data["status"] == "timeout" and data["count"] is not None
    # its scheduler shares the core with the client: 1.11-1.32 s at -t 1 on a loaded core (load average 6-10)
    assert data["timings"]["total"] < limit + LOADED, data["timings"]
