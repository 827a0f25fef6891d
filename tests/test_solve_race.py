"""One solution on several cores or a Dask cluster: chains of native searches race (issue 24, part 2).

What must hold: every answer passes the checker; the winning chain ``i`` gives exactly the solution its search gives
alone (``chain_plan``: chain 0 is the one-process search with the caller's seed, chain 1 the plain search in a
second fill order); races agree with the brute force on random boards; a proof of no solution from a chain is
the oracle's answer; the time limit is kept (a generous bound, not a timing test); a chain killed with ``kill -9``
does not end the race (all killed: an error); Ctrl-C stops every chain (exit 130); no process outlives a call.
The library-level tests call :mod:`edgematch.solvers.native.first.race` directly; those through ``edgematch solve`` need
the native backend to route one solution with workers or a cluster to the race."""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import edgematch
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate, random_tiles
from edgematch.errors import UsageError
from edgematch.solvers.base import Status, Task
from edgematch.solvers.native import NativeBackend
from edgematch.solvers.native.first import race, sweep
from edgematch.solvers.native.search import Search
from tests.oracle import all_solutions
from tests.test_best_workers import ROOT, SCRIPT, gone, ours
from tests.timing import timed

psutil = pytest.importorskip("psutil")

PLANTED = {
    "framed": generate(GeneratorSpec(6, 6, framed=True, border_colours=3, inner_colours=5, seed=2))[0],
    "unframed": generate(GeneratorSpec(5, 5, colours=4, seed=3))[0],
    "hinted": generate(GeneratorSpec(6, 6, framed=True, border_colours=2, inner_colours=5, hint=True, seed=4))[0],
    "signed": generate(GeneratorSpec(4, 4, colours=3, rule="signed", seed=5))[0],
}
# no backend finds a first solution of this in minutes (tests/test_limits.py): the race runs to its limit
HARD = generate(GeneratorSpec(16, 16, framed=True, border_colours=5, inner_colours=17, seed=1))[0]


def wired() -> bool:
    """Whether ``edgematch.solve`` races chains for one solution (workers, a cluster) through the native backend."""
    return "cluster" in inspect.signature(edgematch.solve).parameters and NativeBackend().refusal(
        Task("first", cluster="local:2")) is None


through_solve = pytest.mark.skipif(not wired(), reason="native one-solution races are not wired into solve yet")



def raced(puzzle, workers=2, limit=30.0, **options):
    return race.run_race(NativeBackend(), puzzle, Task("first", time_limit=limit, workers=workers, options=options))


def chain_alone(puzzle, task, index):
    """What chain ``index`` of a race for ``task`` answers when it runs alone, in this process."""
    sub, options = race.chain_plan(task, index)
    return edgematch.solve(puzzle, backend="native" if sub is None else f"native:{sub}", **options)


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_the_winner_is_checked_and_is_the_one_process_search_with_its_seed(kind):
    puzzle = PLANTED[kind]
    result = raced(puzzle, seed=3)
    assert result.status is Status.SOLVED and check(puzzle, result.solution).ok
    c = result.counters
    winner = c["winner"]
    seeded = race.chain_plan(Task("first", options={"seed": 3}), winner)[0] is None
    assert winner in (0, 1) and c.get("winner_seed") == (3 + winner if seeded else None) and c["chains"] == 2
    assert result.options["winner"] == ("chain 0" if winner == 0 else "chain 1 (native:dfs)")
    assert result.options["seed"] == 3 and result.options["seeds"] == "3-4" and result.options["workers"] == 2
    alone = chain_alone(puzzle, Task("first", options={"seed": 3}), winner)  # the chain's search, as a black box
    assert alone.solution == result.solution and alone.options["order"] == result.options["order"]
    assert c["nodes"] == sum(c[f"chain{i}_nodes"] for i in range(2))
    one = raced(puzzle, workers=1, seed=3)  # chain 0 alone: exactly the one-process answer
    assert one.solution == edgematch.solve(puzzle, backend="native", seed=3).solution
    assert ours(psutil.Process()) == []


def test_a_chain_that_proves_no_solution_ends_the_race_as_the_oracle_says():
    unsolvable = next(p for p in (random_tiles(3, 3, colours=4, seed=s) for s in range(100))
                      if next(all_solutions(p), None) is None)
    solvable = next(p for p in (random_tiles(3, 3, colours=4, seed=s) for s in range(100))
                    if next(all_solutions(p), None) is not None)
    result = raced(unsolvable, unit=2)  # restarts of 2 nodes: a run long enough to finish comes after dozens
    assert result.status is Status.UNSAT and result.solution is None
    assert result.counters["winner"] in (0, 1)
    if importlib.util.find_spec("ortools") is not None:  # another family agrees
        assert edgematch.solve(unsolvable, backend="cpsat").status is Status.UNSAT
    answer = raced(solvable, unit=2)
    assert answer.status is Status.SOLVED and answer.solution in set(all_solutions(solvable))
    assert ours(psutil.Process()) == []


def test_races_answer_what_the_brute_force_says_on_random_boards():
    # chain 1 is another search than chain 0 (the plain one in a second order): whichever ends the race, a
    # solution is one of the oracle's and "none" is the oracle's answer
    boards = [random_tiles(w, h, colours=c, seed=s) for s, (w, h, c) in
              enumerate([(3, 3, 3), (3, 3, 4), (2, 3, 3), (3, 2, 4)] * 4)]
    answers = {"solved": 0, "unsat": 0}
    for puzzle in boards:
        result = raced(puzzle, unit=50)
        oracle = set(all_solutions(puzzle))
        if oracle:
            assert result.status is Status.SOLVED and result.solution in oracle
        else:
            assert result.status is Status.UNSAT and result.solution is None
        answers[result.status.value] += 1
    assert answers["solved"] and answers["unsat"]  # both kinds of answer were raced
    assert ours(psutil.Process()) == []


def test_the_time_limit_is_kept_and_no_chain_outlives_the_call():
    with timed() as t:
        result = raced(HARD, limit=2.0)
    assert result.status is Status.TIMEOUT and result.message == "time limit" and result.solution is None
    assert t.within(2.0, 1.5), t
    assert result.counters["chain0_nodes"] > 0 and result.counters["chain1_nodes"] > 0  # both searched
    assert ours(psutil.Process()) == []


def _kill_chains(how_many: int, killed: list[int], after: float = 0.5) -> threading.Thread:
    """A thread that kills ``how_many`` of this process's chains with SIGKILL once both run."""

    def killer() -> None:
        until = time.monotonic() + 20
        while time.monotonic() < until:
            kids = ours(psutil.Process())
            if len(kids) >= 2:
                time.sleep(after)
                for victim in sorted(kids, key=lambda p: p.pid)[:how_many]:  # chain 0 first: started first
                    os.kill(victim.pid, signal.SIGKILL)
                    killed.append(victim.pid)
                return
            time.sleep(0.02)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    return thread


def test_a_chain_killed_with_kill_9_does_not_end_the_race_and_all_killed_is_an_error():
    killed: list[int] = []
    thread = _kill_chains(1, killed)
    result = raced(HARD, limit=3.0)
    thread.join()
    assert len(killed) == 1
    assert result.status is Status.TIMEOUT and result.message.startswith("time limit")
    assert "died (exit code -9)" in result.message and result.counters["chains_lost"] == 1
    nodes = sorted(result.counters[f"chain{i}_nodes"] for i in range(2))
    assert nodes[1] > nodes[0]  # the other chain went on to the limit (the killed one may not have reported
    # any nodes yet: under load a chain can still be building its tables when the killer's 0.5 s are up)
    assert ours(psutil.Process()) == []

    killed.clear()
    thread = _kill_chains(2, killed)
    began = time.monotonic()
    result = raced(HARD, limit=30.0)
    thread.join()
    assert len(killed) == 2 and time.monotonic() - began < 10  # the race ends with its last chain, not the limit
    assert result.status is Status.ERROR and result.message.startswith("every native chain was lost")
    assert ours(psutil.Process()) == []


def test_a_cluster_race_returns_a_checked_solution_and_keeps_its_limit(client):
    """On a running cluster (this test process's client: a local cluster's start is the command line tests')."""
    puzzle = PLANTED["framed"]
    task = Task("first", time_limit=60, cluster=client, options={"seed": 7})
    result = race.run_cluster_race(NativeBackend(), puzzle, task)
    assert result.status is Status.SOLVED and check(puzzle, result.solution).ok
    winner = result.counters["winner"]
    assert result.solution == chain_alone(puzzle, task, winner).solution
    assert result.options["cluster"].startswith("client ") and result.options["seeds"] == "7-8"
    with timed() as t:  # with the handover soon: chain 0 joins chain 1's search through the scheduler
        # 5 s: on one busy core shared by two test workers, chain 1 had not split its tree within 3 s once
        result = race.run_cluster_race(NativeBackend(), HARD, Task("first", time_limit=5.0, cluster=client,
                                                                    options={"handover": 0.2}))
    # the limit counts from when the cluster is ready: its start and close are reported apart
    t.took -= result.counters["cluster_start_seconds"] + result.counters["cluster_close_seconds"]
    assert result.status is Status.TIMEOUT and t.within(5.0, 1.5), t
    c = result.counters
    assert c["joined_at"] >= 0.2 and c["split_depth"] >= 1 and result.options["handover"] == "0.2 s"
    assert ours(psutil.Process()) == []


def test_on_a_cluster_the_handover_proves_no_solution_from_chain_one_s_parts(client):
    # the handover's board on the scheduler (parallel.shared.OnCluster), reached by each chain through its task:
    # a board without a solution (chain 1 alone, the column order: 4.9 s; chain 0 alone over 20 s), proven empty
    # part by part by both chains (the join within a limit, and a solution found in a part, are the tests above and
    # the local race's). A chain's task relays its node count every second and the race ends as soon as a chain
    # proves the last part: on a board of half a second (5x5, 5 colours; 7x5 of 7 colours in the column order,
    # 0.25 s) chain 0 had not relayed once in a loaded test run
    puzzle = random_tiles(7, 5, colours=6, seed=4)
    result = race.run_cluster_race(NativeBackend(), puzzle, Task("first", time_limit=60, cluster=client,
                                                                  options={"handover": 0}))
    alone = chain_alone(puzzle, Task("first"), 1)
    assert alone.status is Status.UNSAT and result.status is Status.UNSAT and result.solution is None
    assert result.counters["split_depth"] >= 1 and result.options["handover"] == "0 s"
    assert result.counters["chain0_nodes"] > 0 and result.counters["chain1_nodes"] > 0
    assert ours(psutil.Process()) == []


def _solve(args: list[str], puzzle_file) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SCRIPT, "solve", str(puzzle_file), *args, "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            cwd=ROOT)


def _watched(proc: subprocess.Popen, here: bool = False) -> set[int]:
    """Every process ``proc`` starts, seen until it ends (to check that none outlives it); with ``here``, also
    those this test process starts meanwhile (the chains on its own scheduler's worker threads)."""
    seen: set[int] = set()
    while proc.poll() is None:
        try:
            seen.update(k.pid for k in ours(psutil.Process(proc.pid)))
            if here:
                seen.update(k.pid for k in ours(psutil.Process()) if k.pid != proc.pid)
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    return seen


@through_solve
@pytest.mark.parametrize("where", [["--workers", "2"], pytest.param(["--cluster", "ADDRESS"], marks=pytest.mark.slow),
                                   pytest.param(["--cluster", "local:2"], marks=pytest.mark.slow)],
                         ids=["workers", "cluster", "local"])
def test_solve_races_on_the_command_line_within_its_limit_and_leaves_no_process(tmp_path, where, request):
    """With workers, a running scheduler's address (this test process's: its chains are this process's children),
    and ``local:2``. The cluster routes are slow: a cluster race's limit and leftovers are
    test_a_cluster_race_returns_a_checked_solution_and_keeps_its_limit's, its command line
    tests/test_cluster.py's solve --cluster, and a local cluster's start and close the best and count tests'."""
    if "--cluster" in where:
        pytest.importorskip("dask.distributed")
    here = where == ["--cluster", "ADDRESS"]
    if here:
        where = ["--cluster", request.getfixturevalue("scheduler")]
    hard_file, planted_file = tmp_path / "hard.em", tmp_path / "planted.em"
    edgematch.write_puzzle(HARD, hard_file)
    edgematch.write_puzzle(PLANTED["hinted"], planted_file)
    with timed() as t:  # the whole command, Python's start and imports included
        proc = _solve([*where, "-b", "native", "-t", "2"], hard_file)
        seen = _watched(proc, here)
        printed, said = proc.communicate(timeout=60)
    assert proc.returncode == 3, said
    data = json.loads(printed)
    assert data["status"] == "timeout" and data["counters"]["chains"] == 2
    t.took -= data["counters"].get("cluster_start_seconds", 0) + data["counters"].get("cluster_close_seconds", 0)
    assert t.within(2.0, 1.5 + 3.0), t  # the limit plus the margin, plus starting the interpreter (a local
    # cluster's start and close are reported apart)
    assert len(seen) >= 2 and gone(sorted(seen))
    proc = _solve([*where, "-t", "60"], planted_file)  # auto: native runs the race
    seen = _watched(proc, here)
    printed, said = proc.communicate(timeout=60)
    assert proc.returncode == 0, said
    data = json.loads(printed)
    solution = edgematch.Solution.from_pairs(PLANTED["hinted"], [tuple(cell) for cell in data["solutions"][0]])
    assert check(PLANTED["hinted"], solution).ok and data["counters"]["winner"] in (0, 1)
    assert gone(sorted(seen))


@through_solve
@pytest.mark.parametrize("where, processes", [(["--workers", "2"], 2), (["--cluster", "ADDRESS"], 2),
                                              pytest.param(["--cluster", "local:2"], 4, marks=pytest.mark.slow)],
                         ids=["workers", "cluster", "local"])
def test_ctrl_c_stops_every_chain(tmp_path, where, processes, request):
    """With workers, on a running scheduler (this test process's: the chains are its children, stopped through
    the scheduler) and on ``local:2`` (slow: a Ctrl-C reaching a local cluster is test_cluster's and best's)."""
    if "--cluster" in where:
        pytest.importorskip("dask.distributed")
    here = where == ["--cluster", "ADDRESS"]
    if here:
        where = ["--cluster", request.getfixturevalue("scheduler")]
    hard_file = tmp_path / "hard.em"
    edgematch.write_puzzle(HARD, hard_file)
    proc = _solve([*where, "-b", "native", "-t", "60"], hard_file)
    try:
        until = time.monotonic() + 40
        kids: list = []
        while time.monotonic() < until and len(kids) < processes:
            time.sleep(0.05)
            kids = ours(psutil.Process(proc.pid))  # the chains (and the cluster's workers)
            if here:  # the chains the scheduler's worker threads started here
                kids = [k for k in ours(psutil.Process()) if k.pid != proc.pid and k not in kids]
        assert len(kids) >= processes
        time.sleep(1.0)  # into the search
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        printed, said = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            for kid in kids if here else ():  # this process's children: left running, they would fail the next tests
                with contextlib.suppress(psutil.Error):
                    kid.kill()
    assert proc.returncode == 130, said
    data = json.loads(printed)
    assert data["message"] == "interrupted" and "Traceback" not in said
    assert gone([k.pid for k in kids])


@through_solve
def test_workers_and_a_cluster_do_not_go_together(tmp_path):
    puzzle_file = tmp_path / "p.em"
    edgematch.write_puzzle(PLANTED["framed"], puzzle_file)
    proc = _solve(["--workers", "2", "--cluster", "local:2"], puzzle_file)
    _, said = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "do not go together" in said and "Traceback" not in said


def test_auto_races_native_chains_not_a_portfolio_of_races():
    """auto with workers or a cluster passes over portfolio rules (each member would start its own chains or
    cluster); a portfolio named with them is one clear line."""
    puzzle, _ = generate(GeneratorSpec(6, 6, framed=True, border_colours=3, inner_colours=5, seed=4))
    result = edgematch.solve(puzzle, workers=2, time_limit=30)
    assert result.status.value == "solved" and "portfolio" not in result.backend
    assert edgematch.check(puzzle, result.solution).ok
    for where in ({"workers": 2}, {"cluster": "local:2"}):
        with pytest.raises(UsageError, match="one process each"):
            edgematch.solve(puzzle, backend="portfolio:native+native:dfs", **where)


def test_chain_one_is_the_plain_search_in_a_second_fill_order_unless_the_caller_names_one():
    first = Task("first", options={"seed": 5})
    assert race.chain_plan(first, 0) == (None, {"seed": 5})  # chain 0: the one-process search
    assert race.chain_plan(first, 1) == ("dfs", {"order": race.SECOND_ORDER, "values": "rare"})
    assert race.chain_plan(first, 2) == (None, {"seed": 7, "keep": "off"})  # later chains restart only
    index = Task("first", options={"values": "index", "unit": 9, "order": "auto"})
    assert race.chain_plan(index, 1) == ("dfs", {"values": "index", "order": race.SECOND_ORDER})
    named = Task("first", options={"order": "row"})
    assert race.chain_plan(named, 1) == (None, {"order": "row", "seed": 1, "keep": "off"})
    kept = Task("first", options={"keep": "on"})
    assert race.chain_plan(kept, 1) == (None, {"keep": "on", "seed": 1})
    assert race.chain_plan(Task("best", options={"seed": 2}), 1) == (None, {"seed": 3})  # best: the seed only


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_the_second_chain_alone_finds_a_checked_solution_in_its_order(kind):
    puzzle = PLANTED[kind]
    result = chain_alone(puzzle, Task("first"), 1)
    assert result.status is Status.SOLVED and check(puzzle, result.solution).ok
    assert result.options["order"] == race.SECOND_ORDER


# --- the handover (edgematch.solvers.native.first.sweep): after `handover` seconds every chain takes parts of
# chain 1's search


def test_with_the_handover_the_chains_share_chain_one_s_search_and_answer_as_it_alone_does():
    # handover at 0 s: chain 0 runs its own search one slice, then takes parts of chain 1's; the answer is a
    # solution the checker passes when chain 1's search alone finds one, and "none" exactly when it proves none
    # two solvable boards and four without a solution, each answered from a split search (seeds 1 and 7, also
    # without one, took 9 and 4 s of this test's 13 on one core)
    boards = [random_tiles(5, 5, colours=c, seed=s) for s, c in enumerate([4, 5, 6] * 4) if s in (2, 4, 5, 9, 10, 11)]
    joined = {"solved": 0, "unsat": 0}
    for puzzle in boards:
        result = raced(puzzle, handover=0)
        alone = chain_alone(puzzle, Task("first"), 1)
        if alone.status is Status.SOLVED:
            assert result.status is Status.SOLVED and check(puzzle, result.solution).ok
        else:
            assert alone.status is Status.UNSAT and result.status is Status.UNSAT and result.solution is None
        assert result.options["handover"] == "0 s"
        if "joined_at" in result.counters or "split_depth" in result.counters:
            joined[result.status.value] += 1
    assert joined["solved"] and joined["unsat"]  # both kinds of answer came from a split search
    assert ours(psutil.Process()) == []


def test_a_chain_killed_holding_a_part_of_the_sweep_makes_the_race_an_error_not_a_proof_nor_a_timeout(monkeypatch):
    # the first chain to take a part after part 0 dies holding it (SIGKILL, in the forked chain); the other
    # searches every other part and runs out. The dead chain's part was never searched through, so "no solution"
    # would be unproven and "time limit" untrue (no limit here): the race must say so, as soon as its chains end
    puzzle = random_tiles(5, 5, colours=6, seed=2)  # no solution: the handover test above proves it
    taken = multiprocessing.get_context("fork").Value("i", 0)
    below = Search.below

    def dying(self, prefix):
        below(self, prefix)
        with taken.get_lock():
            first, taken.value = taken.value == 0, 1
        if first:
            os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(Search, "below", dying)
    began = time.monotonic()
    result = raced(puzzle, limit=None, handover=0)
    assert taken.value == 1  # a part was taken, and its taker died
    assert result.status is Status.ERROR and result.solution is None, (result.status, result.message)
    assert "died (exit code -9)" in result.message and "not searched again" in result.message
    assert "time limit" not in result.message and result.counters["chains_lost"] == 1
    assert time.monotonic() - began < 60  # it ended with its chains (the whole tree takes 0.3 s on one core)
    assert ours(psutil.Process()) == []


def test_with_the_handover_the_time_limit_is_kept_and_no_chain_outlives_the_call():
    with timed() as t:  # the handover soon, so chain 1 has split and chain 0 joined even on a busy machine
        result = raced(HARD, limit=3.0, handover=0.2)
    assert result.status is Status.TIMEOUT and result.message == "time limit" and result.solution is None
    assert t.within(3.0, 1.5), t
    c = result.counters
    assert c["joined_at"] >= 0.2 and c["split_depth"] >= 1 and c["parts"] >= 0  # chain 0 joined chain 1's search
    assert c["chain0_nodes"] > 0 and c["chain1_nodes"] > 0
    assert ours(psutil.Process()) == []


def test_a_chain_zero_whose_leader_was_killed_goes_on_with_its_own_search(monkeypatch):
    monkeypatch.setattr(sweep, "WAIT_SECONDS", 0.5)  # the chains are forked: they wait this long
    killed_chain_one = threading.Event()

    def kill_chain_one() -> None:
        until = time.monotonic() + 20
        while time.monotonic() < until:
            kids = sorted(ours(psutil.Process()), key=lambda p: p.pid)
            if len(kids) >= 2:
                os.kill(kids[1].pid, signal.SIGKILL)
                killed_chain_one.set()
                return
            time.sleep(0.02)

    thread = threading.Thread(target=kill_chain_one, daemon=True)
    thread.start()
    result = raced(HARD, limit=3.0, handover=0.2)
    thread.join()
    assert killed_chain_one.is_set()
    assert result.status is Status.TIMEOUT and "chain 1 died (exit code -9)" in result.message
    assert result.counters["chain0_nodes"] > 0 and "joined_at" not in result.counters  # it searched on alone
    assert ours(psutil.Process()) == []


def test_the_handover_option_is_refused_where_no_race_runs_and_named_in_the_result():
    puzzle = PLANTED["framed"]
    for backend, workers in (("native", 1), ("native:dfs", 2)):
        with pytest.raises(UsageError, match="handover is an option"):
            edgematch.solve(puzzle, backend=backend, workers=workers, handover=5)
    for bad in ("soon", -1, "inf"):
        with pytest.raises(UsageError, match="option handover: must be a number of seconds"):
            raced(puzzle, handover=bad)
    assert "handover" not in raced(puzzle, handover="off").options
    assert raced(puzzle).options["handover"] == f"{sweep.HANDOVER_SECONDS:g} s"
    assert "handover" not in raced(puzzle, order="row").options  # chain 1 restarts: no search of its own to share
    assert ours(psutil.Process()) == []
