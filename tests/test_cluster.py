"""Counting and benching on a Dask cluster (edgematch.solvers.parallel.cluster, edgematch.bench.cluster): the same
counts as the local search, Ctrl-C and the time limit keep a lower bound and leave no process behind, and a bench
session through the cluster stores exactly its plan even when a worker is killed mid-run."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import edgematch
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.errors import MissingDependencyError, UsageError
from tests import terminal
from tests.samples import random_small_puzzles

distributed = pytest.importorskip("dask.distributed")
psutil = pytest.importorskip("psutil")


def test_counts_match_the_local_search_on_20_random_puzzles(client):
    """20 seeded puzzles of every kind (solvable or not, framed, hinted, fixed turns, signed; a count through the
    cluster costs about 0.5 s of Dask round trips each, whatever the board, so 50 took 20 s for no more kinds)."""
    statuses = set()
    for puzzle in random_small_puzzles(20, seed=3):  # 2 unsat, 12 framed, 6 hinted, 6 fixed turns, 12 signed
        here = edgematch.count(puzzle, distinct=True, backend="native")
        there = edgematch.count(puzzle, distinct=True, backend="native", cluster=client)
        assert (there.status, there.count, there.distinct) == (here.status, here.count, here.distinct), puzzle
        assert there.options["cluster"].startswith("client ")
        statuses.add(here.status.value)
    assert statuses == {"solved", "unsat"}


def test_solve_all_on_a_cluster_lists_every_solution(client):
    puzzle, _ = generate(GeneratorSpec(4, 4, framed=True, border_colours=2, inner_colours=3, seed=3))
    here = edgematch.solve_all(puzzle, backend="native")
    there = edgematch.solve_all(puzzle, backend="native", cluster=client)
    assert there.count == here.count
    assert sorted(s.cells for s in there.solutions) == sorted(s.cells for s in here.solutions)


def test_long_parts_are_split_again_and_still_count_exactly(client, monkeypatch):
    """A part that has run past SPLIT_SECONDS hands its unsearched children back; nothing is lost or doubled."""
    from edgematch.solvers.native.count import cluster

    # 1,536 solutions in 0.4 s on one core: with parts split after 20 ms, 60-75 are handed back (2.5 s in all;
    # after 5 ms, 6-8 s for nothing more; seed 1's count took 1.5 s alone and 18 s split that finely)
    puzzle, _ = generate(GeneratorSpec(6, 6, framed=True, border_colours=3, inner_colours=5, seed=11))
    here = edgematch.count(puzzle, distinct=True, backend="native")
    resubmitted = []

    class Counted(cluster.Tasks):  # the plan goes in one map: a submit is a child a long part handed back
        def submit(self, label, *args, **kwargs):
            resubmitted.append(label)
            return super().submit(label, *args, **kwargs)

    monkeypatch.setattr(cluster, "SPLIT_SECONDS", 0.02)
    monkeypatch.setattr(cluster, "SPLITS_PER_SECOND", 1e9)
    monkeypatch.setattr(cluster, "Tasks", Counted)
    there = edgematch.count(puzzle, distinct=True, backend="native", cluster=client)
    assert resubmitted  # parts were split again
    assert (there.count, there.distinct, there.status) == (here.count, here.distinct, here.status)


def test_a_part_lost_for_good_is_named_and_the_count_is_a_lower_bound(client, monkeypatch):
    """The parallel layer's rule on a cluster: a task that raises runs once more (a transient fault costs nothing:
    the count stays exact); one that fails for good is named, the other parts go on, and the count is never
    claimed whole (it raised out of the call before, losing every part's count)."""
    from edgematch.solvers.native.count import cluster

    puzzle, _ = generate(GeneratorSpec(6, 6, framed=True, border_colours=3, inner_colours=5, seed=11))
    truth = edgematch.count(puzzle, backend="native").count
    real = cluster.search_part
    failures: dict[tuple[int, ...], int] = {}
    boards: dict[tuple[int, ...], int] = {}  # each part's boards, as counted in the first call

    first: list[tuple[int, ...]] = []  # the first part asked for (two worker threads ask at once: under a lock)
    lock = threading.Lock()

    def failing(times: int, target: tuple[int, ...] | None) -> Callable[..., object]:
        def search_part(prefix: tuple[int, ...], **given: object) -> object:
            with lock:
                first[:] = first or [prefix]
                failures.setdefault(prefix, 0)
                fails = prefix == (target or first[0]) and failures[prefix] < times
                if fails:
                    failures[prefix] += 1
            if fails:
                raise OSError("a flaky disk")
            outcome, rest = real(prefix=prefix, **given)
            boards[prefix] = outcome.solutions
            return outcome, rest
        return search_part

    monkeypatch.setattr(cluster, "search_part", failing(1, None))  # the first part asked for fails once
    once = edgematch.count(puzzle, backend="native", cluster=client)
    assert (once.status.value, once.count) == ("solved", truth) and sum(failures.values()) == 1

    failures.clear()
    monkeypatch.setattr(cluster, "search_part", failing(2, max(boards, key=boards.get)))  # the richest, twice
    lost = edgematch.count(puzzle, backend="native", cluster=client)
    assert lost.status.value == "error" and sum(failures.values()) == 2, lost.message
    assert "failed on the cluster (OSError: a flaky disk)" in lost.message and "lower bound" in lost.message
    assert 0 < lost.count < truth  # the other parts were counted


def test_a_batch_of_cubes_lost_for_good_never_reads_as_no_solution(client, monkeypatch):
    """Cube-and-conquer on a cluster: a batch that fails for good leaves its cubes unsettled, so an unsatisfiable
    board's answer is an error that says so, not "unsat" (it raised out of the call before)."""
    pytest.importorskip("pysat")
    from edgematch.core.generator import random_tiles
    from edgematch.solvers import cubes

    puzzle = next(p for p in (random_tiles(3, 3, 3, "signed", True, seed=s) for s in range(50))
                  if edgematch.count(p, backend="native").count == 0)
    assert edgematch.solve(puzzle, backend="sat", cluster=client, cubes=8).status.value == "unsat"
    real = cubes.conquer_batch
    first: list[object] = []

    def conquer_batch(puzzle, options, solver, batch, *rest):
        first[:] = first or [batch]
        if batch == first[0]:
            raise OSError("a flaky disk")
        return real(puzzle, options, solver, batch, *rest)

    monkeypatch.setattr(cubes, "conquer_batch", conquer_batch)
    result = edgematch.solve(puzzle, backend="sat", cluster=client, cubes=8)
    assert result.status.value == "error", result.message
    assert "failed on the cluster (OSError: a flaky disk)" in result.message
    assert "neither a solution nor its absence is proven" in result.message


def test_bad_cluster_arguments_are_usage_errors():
    puzzle = Path("examples/hunde.hunde")
    for bad in ("local:0", "local:x", "host:8786", 3):
        with pytest.raises(UsageError):
            edgematch.count(puzzle, backend="native", cluster=bad)
    with pytest.raises(UsageError, match="workers and cluster"):
        edgematch.count(puzzle, backend="native", workers=2, cluster="local:2")


def test_without_dask_one_line_names_the_extra(monkeypatch):
    from typer.testing import CliRunner

    from edgematch.cli.main import load_commands

    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # `import dask.distributed` now fails
    with pytest.raises(MissingDependencyError, match=r"pip install 'edgematch\[dask\]'"):
        edgematch.count("examples/hunde.hunde", backend="native", cluster="local:2")
    result = CliRunner().invoke(load_commands(), ["count", "examples/hunde.hunde", "--cluster", "local:2"])
    assert result.exit_code == 2
    assert "pip install 'edgematch[dask]'" in result.output
    assert "Traceback" not in result.output


def _workers(pid: int) -> list[psutil.Process]:
    """The Dask worker processes a local cluster of process ``pid`` started (not its other children)."""
    found = []
    for child in psutil.Process(pid).children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "--multiprocessing-fork" in child.cmdline():
                found.append(child)
    return found


def _interrupted_cluster_count(tmp_path: Path, ready: Callable[[int], bool]) -> tuple[str, list]:
    """`count --cluster local:2` of a 7x7 (minutes of work) sent a terminal's Ctrl-C once its two worker
    processes exist and ``ready(pid)``: its output and the processes it had started."""
    big = tmp_path / "big.em"
    puzzle, _ = generate(GeneratorSpec(7, 7, framed=True, border_colours=3, inner_colours=5, seed=1))
    edgematch.write_puzzle(puzzle, big)
    process = terminal.start("count", big, "--cluster", "local:2")
    try:
        until = time.monotonic() + 120
        workers: list = []
        while time.monotonic() < until and not (len(workers) >= 2 and ready(process.pid)):
            time.sleep(0.1)
            workers = _workers(process.pid)
        assert len(workers) >= 2
        children = psutil.Process(process.pid).children(recursive=True)
        os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert "interrupted" in out and "at least" in out and "Traceback" not in err
    until = time.monotonic() + 5
    while terminal.alive([c.pid for c in children]) and time.monotonic() < until:
        time.sleep(0.1)
    assert terminal.alive([c.pid for c in children]) == []
    return out, children


def test_ctrl_c_during_a_cluster_count_keeps_the_partial_count_and_leaves_no_process(tmp_path):
    # past the workers' start (about 2.5 s of CPU between them), into the count
    _interrupted_cluster_count(tmp_path, lambda pid: terminal.children_cpu(pid) >= 4.0)


def test_ctrl_c_while_a_local_cluster_starts_stops_the_call(tmp_path):
    """The worker processes start deaf to the terminal's Ctrl-C (the caller collects and closes); one that comes
    while they start is not lost: the call stops once the cluster is up (it used to count on for minutes)."""
    _interrupted_cluster_count(tmp_path, lambda pid: True)


def test_a_bench_session_on_a_cluster_stores_exactly_its_plan_even_when_a_worker_is_killed(tmp_path):
    from edgematch.bench.cluster import machine_notes, run_cluster_session
    from edgematch.bench.environment import environment
    from edgematch.bench.session import Watcher
    from edgematch.bench.store import Store
    from edgematch.bench.suite import Overrides, load_suite

    folder = tmp_path / "boards"
    folder.mkdir()
    # counts of 0.4-0.8 s each on one core: runs are in flight when the worker dies (seeds 2, 3 and 5 of this
    # family took 6-11 s each, and 30 s in all, for nothing the test asks). Four: when the first ends, each worker
    # has one in hand (six, as before, added two counts and nothing the test asks)
    for seed in (4, 6, 11, 17):
        puzzle, _ = generate(GeneratorSpec(6, 6, framed=True, border_colours=3, inner_colours=5, seed=seed))
        edgematch.write_puzzle(puzzle, folder / f"b{seed}.em")
    suite = load_suite(folder, Overrides(backends=("native",), task="count", timeout=60))
    local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    killed = []
    with local, distributed.Client(local) as c, Store(tmp_path / "bench.sqlite") as store:
        pids = c.run(os.getpid)  # worker address -> pid

        def finished(record):
            busy = [address for address, keys in c.processing().items() if keys and address in pids]
            if not killed and busy:
                killed.append(pids[busy[0]])
                os.kill(pids[busy[0]], signal.SIGKILL)  # mid-run: Dask runs its task again elsewhere

        number = store.new_session(suite, str(folder), 1, environment())
        assert run_cluster_session(store, number, suite, c, Watcher(finished=finished))
        runs = store.runs(number)
        session = store.session(number)
    assert killed
    planned = sorted((instance.key, backend, repeat) for instance, backend, repeat in suite.planned())
    assert sorted((r.instance, r.backend, r.repeat) for r in runs) == planned  # none missing, none twice
    assert all(r.category == "correct" and r.count for r in runs)
    assert all(r.counters["host"] for r in runs)
    assert sum(h["runs"] for h in session.environment["hosts"].values()) == len(runs)
    assert machine_notes(session.environment) == []  # one machine: nothing to say


def test_the_report_says_when_a_session_ran_on_mixed_machines():
    from edgematch.bench.cluster import machine_notes, machine_rows

    hosts = {"a": {"cpu": "Xeon", "cores": 2, "runs": 3}, "b": {"cpu": "EPYC", "cores": 64, "runs": 5}}
    assert "Mixed machines" in machine_notes({"hosts": hosts})[0]
    assert [name for name, _ in machine_rows({"hosts": hosts})] == ["worker a", "worker b"]
    hosts["b"] = {"cpu": "Xeon", "cores": 2, "runs": 5}
    assert "alike" in machine_notes({"hosts": hosts})[0]



def test_solve_all_cluster_on_the_command_line(tmp_path, scheduler):
    """`solve --all --cluster ADDRESS` lists the Hunde-Spiel's 16 raw solutions; --cluster without --all
    races chains for one solution, which passes the checker (on the test process's running scheduler: starting
    ``local:2`` is tested by the count and race tests)."""
    hunde = str(Path(__file__).resolve().parents[1] / "examples" / "hunde.hunde")
    script = "import sys\nfrom edgematch.cli.main import run\nsys.argv = ['edgematch', *sys.argv[1:]]\nrun()\n"
    listed = subprocess.run([sys.executable, "-c", script, "solve", hunde, "--all", "-b", "native", "--cluster",
                             scheduler, "--json"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    data = json.loads(listed.stdout)
    assert listed.returncode == 0 and data["count"] == 16 and len(data["solutions"]) == 16, listed.stderr
    assert data["options"]["cluster"] == scheduler
    alone = subprocess.run([sys.executable, "-c", script, "solve", hunde, "--cluster", scheduler, "--json"],
                           capture_output=True, text=True, timeout=120, cwd=tmp_path)
    one = json.loads(alone.stdout)
    puzzle = edgematch.read_puzzle(hunde)
    assert alone.returncode == 0 and one["status"] == "solved"
    assert edgematch.check(puzzle, edgematch.Solution.from_pairs(puzzle, [tuple(c) for c in one["solutions"][0]])).ok


@pytest.mark.slow  # a local cluster's start (5 s of the suite) for one environment's regression
def test_a_local_cluster_says_nothing_on_stderr_when_another_holds_dasks_port(tmp_path):
    """Dask's default dashboard port (8787) taken by another program: the count still prints only its answer
    (Dask warned on stderr when the local cluster asked for that port)."""
    import contextlib
    import socket

    hunde = str(Path(__file__).resolve().parents[1] / "examples" / "hunde.hunde")
    script = "import sys\nfrom edgematch.cli.main import run\nsys.argv = ['edgematch', *sys.argv[1:]]\nrun()\n"
    with socket.socket() as holder:
        with contextlib.suppress(OSError):  # something holds it already: the case this test is about
            holder.bind(("", 8787))
        holder.listen()
        done = subprocess.run([sys.executable, "-c", script, "count", hunde, "--cluster", "local:2", "--json"],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["count"] == 16
    assert done.stderr == ""


UNGUARDED = """import edgematch
from edgematch.errors import EdgematchError
try:
    print(edgematch.count({hunde!r}, cluster="local:2").count)
except EdgematchError as exc:
    print("error:", exc)
"""


# the guarded script is the control (a library call on local:2 that counts; the command line's counts on local:2
# show that too): a slow test
@pytest.mark.parametrize("guarded", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_script_without_the_main_guard_is_told_to_add_it(tmp_path, guarded):
    """Dask spawns its workers, which run an unguarded script again: the start failed with Dask's and
    multiprocessing's tracebacks on stderr. Now the library raises one project error naming the guard, and the
    guarded script counts Hunde-Spiel's 16."""
    hunde = str(Path(__file__).resolve().parents[1] / "examples" / "hunde.hunde")
    body = UNGUARDED.format(hunde=hunde)
    if guarded:
        body = 'if __name__ == "__main__":\n' + "".join(f"    {line}\n" for line in body.splitlines())
    script = tmp_path / "count_on_a_cluster.py"
    script.write_text(body)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    if guarded:
        assert done.stdout.strip() == "16"
    else:
        assert done.stdout.startswith("error: the local Dask cluster local:2 did not start")
        assert 'if __name__ == "__main__":' in done.stdout and "spawning" in done.stdout
        assert "Traceback" not in done.stderr


def test_a_local_cluster_keeps_dask_s_event_loop_errors_off_the_terminal():
    """While a local cluster runs and closes, an error of a callback on Dask's event loop (tornado's logger,
    printed with its traceback on a loaded machine's Ctrl-C: "ConnectionPool is closed") is not logged; the
    levels come back after."""
    import logging

    from edgematch.solvers.parallel.cluster import _quiet_client

    tornado, dask = logging.getLogger("tornado.application"), logging.getLogger("distributed")
    before = tornado.level, dask.level
    with _quiet_client():
        assert not tornado.isEnabledFor(logging.ERROR) and not dask.isEnabledFor(logging.WARNING)
    assert (tornado.level, dask.level) == before
