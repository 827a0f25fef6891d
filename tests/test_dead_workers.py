"""One rule for a dead worker, and quiet workers on Ctrl-C (issue 39, items 6 and 7).

``kill -9`` of one worker of ``count --workers 2`` gave exit 4, no count at all and a time of 0.006 s for a 4 s run
(a killed SAT cube worker the same); ``solve -j 2`` and ``best --workers 2`` went on without a dead chain. Now every
set of workers follows :class:`edgematch.solvers.parallel.processes.Dealer`: the others go on and do the dead
worker's job again, so a count stays exact and "every cube unsatisfiable" stays a proof; only when every worker died
with jobs left is the answer a lower bound (exit 4, "at least N", which parts), with the true elapsed time.

Ctrl-C during ``solve -b sat -O cubes=16 -j 2`` printed a traceback from each cube worker in about half the runs
(``pysolvers.error: Caught keyboard interrupt``): PySAT's ``solve`` installs a SIGINT handler of its own, over the
worker's "ignore". A worker now keeps SIGINT blocked.

The commands run in a session of their own, with SIGINT at its default (a test runner started in the background
may ignore it, and children inherit that); the workers are found with psutil once they exist and have searched a
little (their CPU time: a readiness signal, not a sleep). A process's CPU time never exceeds its wall time, so a
killed run that reports less time than its workers spent is caught without a timing margin.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import edgematch
from edgematch.core.generator import GeneratorSpec, generate, random_tiles
from edgematch.formats import write_puzzle
from edgematch.solvers.parallel.processes import ChildDied, Flag, context, stream

psutil = pytest.importorskip("psutil")

ROOT = Path(__file__).resolve().parent.parent
# 10,386,560 raw solutions; 1.3 s to count as a whole process on 2 idle cores, 2.3-2.5 s of CPU (the kill must
# land mid-run: 4x4 of 6 colours took 0.24 s and ended before its workers had searched 0.2 s each)
COUNTED, _ = generate(GeneratorSpec(4, 4, colours=5, seed=1))
UNSAT = random_tiles(5, 4, 5, "signed", True, seed=0)  # no solution: every cube must be settled (1.4 s on 2 cores)
HARD, _ = generate(GeneratorSpec(8, 8, framed=True, border_colours=3, inner_colours=8, seed=1))  # SAT: minutes
COMMAND = "import sys; from edgematch.cli.main import run; sys.argv = ['edgematch', *sys.argv[1:]]; run()"
SEARCHED = 0.2  # CPU seconds a worker has spent before it is killed: into the search
QUICK = 0.02  # the same for the cube workers of UNSAT, which settle its cubes in about a second on free cores


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(folder: Path, *args: object) -> tuple[subprocess.Popen, Path, Path]:
    """The CLI in a session of its own (as a terminal runs it), SIGINT at its default, writing to files."""
    out, err = folder / "out", folder / "err"
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", COMMAND, *map(str, args)], stdout=stdout, stderr=stderr,
                                start_new_session=True, preexec_fn=_default_sigint, cwd=ROOT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    return proc, out, err


def workers(proc: subprocess.Popen, depth: int, count: int = 2, cpu: float = SEARCHED) -> list[psutil.Process]:
    """The ``count`` worker processes ``depth`` generations below ``proc`` (1: its children; 2: the cube workers
    the SAT backend's solver child forks), once they exist and each has spent ``cpu`` seconds searching."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the command ended before its workers were found"
        found = []
        with_cpu = 0
        for child in psutil.Process(proc.pid).children(recursive=True):
            try:
                line = " ".join(child.cmdline())
                hops, parent = 1, child.ppid()
                while parent != proc.pid and hops < 5:
                    parent, hops = psutil.Process(parent).ppid(), hops + 1
                if child.status() == psutil.STATUS_ZOMBIE or "resource_tracker" in line or hops != depth:
                    continue
                found.append(child)
                with_cpu += sum(child.cpu_times()[:2]) >= cpu
            except psutil.NoSuchProcess:
                continue
        if len(found) == count and with_cpu == count:
            return sorted(found, key=lambda p: p.pid)
        time.sleep(0.02)
    raise AssertionError("the workers were not found")


def cpu_until_gone(process: psutil.Process) -> float:
    """The CPU seconds ``process`` had spent when last seen alive, watched until it is gone."""
    spent = 0.0
    while True:
        try:
            if process.status() == psutil.STATUS_ZOMBIE:
                return spent
            spent = sum(process.cpu_times()[:2])
        except psutil.NoSuchProcess:
            return spent
        time.sleep(0.02)


def ended(proc: subprocess.Popen, out: Path, err: Path) -> tuple[int, dict, str]:
    code = proc.wait(timeout=120)
    printed, said = out.read_text(), err.read_text()
    assert "Traceback" not in said, said
    return code, json.loads(printed), said


@pytest.fixture(scope="module")
def exact():
    """The count on one worker: what two must give, one killed or not."""
    result = edgematch.count(COUNTED, backend="native", workers=1)
    assert result.complete and result.count == 10_386_560
    return result.count


@pytest.fixture
def files(tmp_path):
    paths = {"counted": tmp_path / "counted.em", "unsat": tmp_path / "unsat.em", "hard": tmp_path / "hard.em"}
    for key, puzzle in (("counted", COUNTED), ("unsat", UNSAT), ("hard", HARD)):
        write_puzzle(puzzle, paths[key])
    return paths


def test_a_count_that_loses_a_worker_searches_its_part_again_and_stays_exact(exact, files, tmp_path):
    proc, out, err = start(tmp_path, "count", files["counted"], "-b", "native", "--workers", "2", "--json")
    victim, survivor = workers(proc, depth=1)
    victim.send_signal(signal.SIGKILL)
    spent = cpu_until_gone(survivor)
    code, got, _ = ended(proc, out, err)
    assert (code, got["status"], got["count"]) == (0, "solved", exact), got  # was exit 4, no count
    assert "worker 0 died (exit code -9)" in got["message"] and "the others went on" in got["message"]
    assert got["counters"]["workers_lost"] == 1
    assert got["timings"]["total"] >= spent  # was 0.006 s: the survivor searched longer than that


def test_a_count_that_loses_every_worker_is_a_lower_bound_with_the_parts_it_lost(exact, files, tmp_path):
    proc, out, err = start(tmp_path, "count", files["counted"], "-b", "native", "--workers", "2", "--json")
    found = workers(proc, depth=1)
    spent = max(sum(p.cpu_times()[:2]) for p in found)
    for process in found:
        process.send_signal(signal.SIGKILL)
    code, got, _ = ended(proc, out, err)
    assert (code, got["status"], got["complete"]) == (4, "error", False), got
    assert got["count"] is not None and got["count"] < exact  # printed as "at least N"
    assert "every worker was lost" in got["message"] and "not searched" in got["message"]
    assert "lower bound" in got["message"]
    assert got["timings"]["total"] >= spent


def _read_until_set(flag: Flag) -> None:
    while not flag.is_set():
        pass


def test_a_worker_killed_while_reading_the_stop_flag_never_blocks_setting_it():
    # the count's workers read their stop flag between slices of the search; with a multiprocessing Event, whose
    # is_set() takes a lock, a kill -9 landing inside it (3 of 10 kills of this loop) left the lock held, and the
    # parent's set() after "every worker was lost" waited forever (a count hung for 120 s in the suite)
    ctx = context()
    for _ in range(12):
        flag = Flag(ctx)
        reader = ctx.Process(target=_read_until_set, args=(flag,), daemon=True)
        reader.start()
        time.sleep(0.02)
        reader.kill()
        reader.join()
        setter = threading.Thread(target=flag.set, daemon=True)
        setter.start()
        setter.join(timeout=10)
        assert not setter.is_alive() and flag.is_set()


def test_a_dead_cube_worker_s_cube_is_solved_again_so_no_solution_is_still_proven(files, tmp_path):
    proc, out, err = start(tmp_path, "solve", files["unsat"], "-b", "sat", "-O", "cubes=16", "-j", "2", "--json")
    workers(proc, depth=2, cpu=QUICK)[0].send_signal(signal.SIGKILL)
    code, got, _ = ended(proc, out, err)
    assert (code, got["status"]) == (1, "unsat"), got  # every cube settled: was exit 4
    assert "cube worker 0 died (exit code -9)" in got["message"] and "the others went on" in got["message"]


def test_when_every_cube_worker_dies_nothing_is_claimed(files, tmp_path):
    # the hard board's cubes keep both workers busy for minutes: the unsat one's 61 cubes were sometimes all
    # settled on two idle cores before the test found the workers to kill (the command had ended, exit 1)
    proc, out, err = start(tmp_path, "solve", files["hard"], "-b", "sat", "-O", "cubes=16", "-j", "2", "--json")
    for process in workers(proc, depth=2):
        process.send_signal(signal.SIGKILL)
    code, got, _ = ended(proc, out, err)
    assert (code, got["status"]) == (4, "error"), got
    assert "every cube worker was lost" in got["message"] and "not settled" in got["message"]


def test_ctrl_c_during_cube_workers_exits_130_without_a_traceback(files, tmp_path):
    # the traceback came in about half the runs; the mechanism is tested without a terminal, every time, below
    proc, out, err = start(tmp_path, "solve", files["hard"], "-b", "sat", "-O", "cubes=16", "-j", "2")
    workers(proc, depth=2)  # both cube workers are solving
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole group
    code = proc.wait(timeout=60)
    said = err.read_text()
    assert code == 130 and "Traceback" not in said and "keyboard interrupt" not in said, said
    assert "interrupted" in out.read_text()


def _solve_through_ctrl_c(send) -> None:
    from pysat.solvers import Solver

    from edgematch.encodings.cnf import CnfOptions, encode

    enc = encode(HARD, CnfOptions())
    with Solver(name="glucose4", bootstrap_with=enc.clauses) as sat:
        send(("solving", os.getpid()))
        sat.solve()  # minutes: killed at the deadline


def test_a_worker_s_sat_solver_does_not_take_ctrl_c():
    """The mechanism, without a terminal: SIGINT sent to a worker child while PySAT solves (PySAT installs a
    handler of its own during ``solve``, which raised ``Caught keyboard interrupt`` through the worker's
    "ignore"). The worker keeps solving: the parent stops it a second after the signal."""
    sent: list[float] = []
    timers: list[threading.Timer] = []

    def interrupt(pid: int) -> None:
        os.kill(pid, signal.SIGINT)
        sent.append(time.monotonic())

    def handle(message) -> None:
        kind, pid = message
        if kind == "solving":  # into the solve, then Ctrl-C
            timers.append(threading.Timer(0.5, interrupt, (pid,)))
            timers[-1].start()

    try:
        stopped = stream(_solve_through_ctrl_c, (), time.monotonic() + 120, handle,
                         should_stop=lambda: bool(sent) and time.monotonic() > sent[0] + 1.0)
    except ChildDied as exc:  # the fault: "error: Caught keyboard interrupt"
        pytest.fail(f"the worker took Ctrl-C: {exc}")
    finally:
        for timer in timers:
            timer.join()
    assert sent and stopped == "stopped"
