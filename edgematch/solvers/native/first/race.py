"""One solution on several cores, or on a Dask cluster: different searches race (issue 24, part 2).

A *chain* is a single-process native first-solution search, run as a black box (``NativeBackend(sub).run`` with
``workers=1``, no cluster, the caller's options) with option ``seed`` set to ``seed + i`` for chain ``i``: chain 0
keeps the caller's seed, so it runs exactly what one process runs and N chains are never worse than one (apart from
sharing the machine). Chain 1 is the plain depth-first search in a second fill order unless the caller names an
order, later chains restart only (:func:`chain_plan`). Whatever the single
search becomes (its options, e.g. propagation, pass through unchanged), the race runs it. After
:data:`~edgematch.solvers.native.first.sweep.HANDOVER_SECONDS` (option ``handover``: seconds, or ``off``) every
other chain stops its own search and takes parts of chain 1's, which it splits for them
(:mod:`edgematch.solvers.native.first.sweep`): the kept search and the restarts answer early or not at all, and
chain 1's order then gets every core (here or on a cluster; not when chain 1 restarts or propagates). The chain
itself is :func:`edgematch.solvers.parallel.chains._chain` (the same child ``best --workers`` runs: its own
process group, dies with its parent, live node count in shared memory, its result or failure sent over a pipe), and
on a cluster :func:`edgematch.solvers.parallel.chains.chain_task` (one chain per worker thread, in a child
process of the worker, stopped through a Dask ``Event``).

- :func:`run_race` (``workers=N``): N chains forked here. The first solution (checked by the independent checker in
  the parent) wins and every other chain's group is killed at once; a chain that *proves* there is no solution (its
  plain search, or one run of its restarts, exhausted the tree: every run is complete) ends the race with status
  unsat, also at once. A chain that dies (``kill -9``) is noted and the others go on; when every chain died the
  result is an error naming them, and so it is when a chain died during the sweep and the others then ran out of
  parts: the parts it held are not searched again, so the race has neither an answer nor a proof. Chains stop
  :data:`~edgematch.solvers.parallel.chains.REPORT_AHEAD` before the limit and report; one silent
  :data:`LATE_SECONDS` past the limit is killed. Ctrl-C kills every chain at once (the message ``interrupted``).
  Nothing outlives the call.
- :func:`run_cluster_race` (``cluster``): one chain per worker thread of the cluster (``local:N``, an address
  or a ``dask.distributed.Client``; :func:`edgematch.solvers.parallel.cluster.connected`). The first checked solution
  (or proof) back sets the stop ``Event`` the chains' tasks poll (every
  :data:`~edgematch.solvers.parallel.chains.RELAY_SECONDS`; a stopped task kills its chain) and cancels the rest;
  a local cluster is closed with the call, and chains die with their worker. A killed worker's chain runs again
  elsewhere (Dask's ``allowed-failures``).

The result: status solved with the winning chain's solution, counters ``winner`` (its index), ``winner_seed`` (when
that chain restarts with a seed), ``chains``, ``nodes`` (over every chain, as far as each reported: live counts are
read every :data:`~edgematch.solvers.parallel.chains.POLL_SECONDS` here, every second on a cluster) and
``chain{i}_nodes``; the other counters (kernel, positions, restarts, ...) are the winner's (else chain 0's). Status
timeout when none was found in time, unsat when a chain proved there is none. Its options are the winner's (its
order, ...), the caller's ``seed``, the ``seeds`` of the chains and ``winner`` (e.g. ``chain 1 (native:dfs)``).
"""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass, replace
from typing import Any

from edgematch import clock
from edgematch.core.checker import check
from edgematch.core.model import Puzzle
from edgematch.errors import BackendError
from edgematch.solvers.base import INTERRUPTED, TIME_LIMIT, Backend, Result, Status, Task, Timings, seconds
from edgematch.solvers.native.first import sweep
from edgematch.solvers.native.tables import BuildTimedOut
from edgematch.solvers.parallel.chains import (
    Gathered,
    Incumbent,
    Plan,
    Relay,
    Running,
    chain_seed,
    gather,
    looked,
    on_message,
    spawn,
    stop_chains,
)
from edgematch.solvers.parallel.cluster import connected, describe, threads
from edgematch.solvers.parallel.processes import context
from edgematch.solvers.parallel.shared import OnCluster, Shared

# past the limit, how long the parent waits for the chains' own timeout reports (they stop REPORT_AHEAD before it,
# building included): a late chain only adds its counters, and the call must end within 0.25 s of its limit
# (at 0.4 s, 40x40 solve -j 2 -t 2 took 2.41 s while a chain built its tables)
LATE_SECONDS = 0.1


# chain 1 of a first-solution race, when the caller names no order: the plain depth-first search in this fill order
# (with the look-ahead along its columns). Framed 8x8 c8, one core each, side by side: it solved 4/10 of seeds 1-10 in
# 120 s, 6/10 of 11-20 in 240 s and 10/10 of 21-30 in 300 s, where band2 (chain 1 until then) solved 3, 6 and 4
# (benchmarks/README.md, "The column order as chain 1")
SECOND_ORDER = "column"
RESTARTS_ONLY = ("seed", "unit", "keep")  # the restarts' options, which the plain depth-first search has not
RACE_ONLY = ("handover",)  # the race's own options, which no chain's search takes


def chain_plan(task: Task, index: int) -> tuple[str | None, dict]:
    """What chain ``index`` runs: the native variant (None: the caller's) and its options, the caller's with seed
    ``seed + index``. For a first solution the chains differ in more than their seed. Chain 1, when the caller
    names no order (nor ``keep``), is the plain depth-first search (``native:dfs``) in another fill order,
    :data:`SECOND_ORDER` (the board's columns), the rarest colours first: where a solution lies in one order says
    little about where it lies in another, so it is a second draw, without the restarts' overhead
    (benchmarks/README.md, "Racing a second fill order" and "The column order as chain 1"). Later chains (and
    chain 1 when the order is given) restart only (``keep=off``): the search in the tables' own order is chain 0's,
    and repeating it beside every other chain's restarts only halves their speed (framed 7x7 c7 seeds 1-5: 2
    chains' winners took 286 M nodes in all with it, 214 M without)."""
    given = {k: v for k, v in task.options.items() if k not in RACE_ONLY}
    options = {**given, "seed": chain_seed(task) + index}
    if task.question != "first" or index == 0:
        return None, options
    if index == 1 and str(task.options.get("order", "auto")) == "auto" and "keep" not in task.options:
        plain = {k: v for k, v in given.items() if k not in RESTARTS_ONLY}
        return "dfs", {**plain, "order": SECOND_ORDER, "values": given.get("values", "rare")}
    return None, options if "keep" in task.options else {**options, "keep": "off"}


def race_plan(backend: Backend, task: Task, index: int) -> tuple[Backend, dict]:
    """The backend chain ``index`` runs (``backend``, or its sibling variant :func:`chain_plan` names) and its
    options."""
    sub, options = chain_plan(task, index)
    return (backend if sub is None else type(backend)(sub)), options


def single(task: Task) -> Task:
    """The task one chain runs: the single-process search (one worker, no cluster), the caller's options."""
    return replace(task, workers=1, cluster=None, progress=None, on_improve=None, incumbent=None)


@dataclass
class _Race(Gathered):
    """What the parent (or the cluster's client) holds while the chains race."""

    puzzle: Puzzle | None = None
    winner: int | None = None  # the chain whose solution (or proof of none) ended the race

    def ended(self, index: int, result: Result) -> bool:
        """A chain's result; True when it ends the race (a solution the checker passes, or a proof of none).
        A solution the checker refuses is a backend error, never an answer."""
        self.finals[index] = result
        if isinstance(result.counters.get("nodes"), int):
            self.looked(index, int(result.counters["nodes"]))
        if result.status is Status.SOLVED and result.solutions:
            verdict = check(self.puzzle, result.solutions[0])
            if not verdict.ok:
                raise BackendError(f"native chain {index} returned an invalid solution: {verdict.violations[0]}")
            self.winner = index
            return True
        if result.status is Status.UNSAT:
            self.winner = index
            return True
        if result.status is Status.ERROR:
            self.lost.append(f"chain {index} failed: {result.message}")
        return False

    def progress(self) -> dict[str, float]:
        return {"nodes": sum(self.live.values()), "solutions": 0}


def _refused(backend: Backend, task: Task) -> None:
    """The options a chain would refuse (a seed that is not a whole number, ...), refused here before anything
    starts: chain 0's and chain 1's (the later chains run chain 0's search, restarts only)."""
    for index in (0, 1):
        runner, options = race_plan(backend, task, index)
        runner.checked_options(replace(single(task), options=options))


def run_race(backend: Backend, puzzle: Puzzle, task: Task) -> Result:
    """One solution: ``task.workers`` chains forked here race (see the module docstring)."""
    _refused(backend, task)
    after = handover(task)
    load = _warm(backend)
    began = clock.now()  # the time limit counts from here, as in one process (loading is not counted)
    deadline = task.until(began)
    ctx = context()
    plan: Plan = race_plan
    if after is not None:
        plan = Handover(sweep.Board.create(ctx, puzzle.size).state, after)
    unused = Incumbent.create(ctx, 1).shared  # the chain's shared board (a best-only feature)
    live = ctx.Array("q", task.workers, lock=False)  # each chain's nodes, written by its progress callback
    got = _Race(task, began, puzzle=puzzle)
    plain = single(task)
    running: Running = {}
    started: list[Any] = []
    reason = ""
    try:
        spawn(ctx, task.workers, lambda index, send: (
            send, backend, puzzle, plain, index, unused, live, index, deadline, plan), running, started)
        reason = gather(running, got, on_message(got, "won"), lambda: looked(got, live),
                        None if deadline is None else deadline + LATE_SECONDS)
    except KeyboardInterrupt:
        reason = INTERRUPTED
    finally:  # every chain killed at once: a race's losers have nothing to report
        stop_chains(running, started, got, live, 0.0)
    if got.usage is not None:
        raise got.usage
    where: dict[str, Any] = {"workers": task.workers}
    if after is not None:
        where["handover"] = f"{after:g} s"
    return _merged(backend, task, got, reason, clock.now() - began, task.workers, load, where)


def handover(task: Task) -> float | None:
    """When the race's other chains join chain 1's search (option ``handover``: seconds, or ``off``), or None:
    off, or chain 1 is not the plain search in its own order (the caller named an order or ``keep``), or it
    propagates (the sweep's parts are the plain loop's)."""
    from edgematch.solvers.native.first.propagate import OPTIONS as PROPAGATION

    after = seconds(task.options.get("handover", sweep.HANDOVER_SECONDS), "handover", off=True)
    sub, options = chain_plan(task, 1)
    if sub != "dfs" or options.keys() & set(PROPAGATION) or task.workers < 2:
        return None
    return after


@dataclass
class Handover:
    """The chains' plan with the handover (:mod:`edgematch.solvers.native.first.sweep`): chain 1 leads the sweep of
    its search, every other chain runs its own search for ``after`` seconds and then joins it."""

    state: Shared  # the sweep's board: shared memory made before the fork, or on the cluster's scheduler
    after: float

    def __call__(self, backend: Backend, task: Task, index: int) -> tuple[Any, dict]:
        runner, options = race_plan(backend, task, index)
        board = sweep.Board(self.state)
        if index == 1:
            return _Leader(runner, board), options
        return _Joiner(runner, race_plan(backend, task, 1), board, self.after), options


@dataclass
class _Leader:
    """Chain 1 with the handover: its plain search, split when the others join (:func:`sweep.lead`)."""

    backend: Any  # native:dfs
    board: sweep.Board

    def checked_options(self, task: Task) -> dict:
        return self.backend.checked_options(task)

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        began = clock.now()
        try:
            tables, build, load = self.backend.prepare(puzzle, task)
        except BuildTimedOut:
            return self.backend.timed_out(task, clock.now() - began)
        if tables.positions == 0:  # every cell hinted
            return self.backend.run(puzzle, task)
        swept = sweep.lead(tables, self.board, task.until(began), task.progress)  # the build counts
        return _swept(self.backend, puzzle, task, tables, swept, build, load)


@dataclass
class _Joiner:
    """Chain 0 (and any after chain 1) with the handover: its own search for ``after`` seconds, then chain 1's
    parts (:func:`sweep.join`); when chain 1 does not answer (it ended, or died) its own search again."""

    backend: Backend
    lead: tuple[Any, dict]  # chain 1's runner (native:dfs) and options: the tables the parts are of
    board: sweep.Board
    after: float

    def checked_options(self, task: Task) -> dict:
        return self.backend.checked_options(task)

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        began = clock.now()
        task = task.anchored(began)
        handing = began + self.after
        own = self.backend.run(puzzle, replace(task, deadline=handing if task.deadline is None else
                                               min(task.deadline, handing)))
        if own.status is not Status.TIMEOUT or own.message != TIME_LIMIT or clock.passed(task.deadline):
            return own
        runner, options = self.lead
        lead_task = replace(task, options=options)
        try:
            tables, build, load = runner.prepare(puzzle, lead_task)
        except BuildTimedOut:
            return own
        ran = int(own.counters.get("nodes", 0))
        progress = task.progress
        report = None if progress is None else (lambda info: progress({**info, "nodes": ran + info["nodes"]}))
        swept = sweep.join(tables, self.board, task.deadline, report)
        if swept is None:  # chain 1 did not split: this chain's search runs on alone
            return self.backend.run(puzzle, task)
        result = _swept(runner, puzzle, lead_task, tables, swept, build, load)
        result.counters["nodes"] = ran + int(result.counters["nodes"])
        result.counters["joined_at"] = round(clock.now() - began - swept.outcome.seconds, 3)
        result.counters.update({k: own.counters[k] for k in ("restarts",) if k in own.counters})
        return result


OUT_OF_PARTS = "its parts searched through; the other chains' still searching"  # a sweep's worker, no proof yet


def _swept(backend: Any, puzzle: Puzzle, task: Task, tables: Any, swept: sweep.Swept, build: float,
           load: float) -> Result:
    """A chain's result from its part of a sweep: solved, unsat when it proved every part empty, else timeout."""
    from edgematch.solvers.native.tables import decode

    outcome = swept.outcome
    if outcome.found:
        status, solutions, message = Status.SOLVED, [decode(puzzle, tables, outcome.found[0])], ""
    elif swept.proof:
        status, solutions, message = Status.UNSAT, [], ""
    else:
        status, solutions = Status.TIMEOUT, []
        message = outcome.stopped or OUT_OF_PARTS
    rate = outcome.nodes / outcome.seconds if outcome.seconds > 0 else 0.0
    counters: dict[str, Any] = {"nodes": outcome.nodes, "nodes_per_second": rate, "load_seconds": load,
                                "positions": tables.positions,
                                "candidates": len(tables.cand_type)}
    if swept.depth:
        counters.update(split_depth=swept.depth, parts=swept.parts)
    options = {"order": tables.order_name, "values": backend.values(task)}
    return Result(backend.full_name, status, solutions, timings=Timings(build=build, solve=outcome.seconds),
                  counters=counters, options=options, message=message)


def _warm(backend: Backend) -> float:
    """Load the compiled search before the fork (no chain spends its time on it); the seconds it took."""
    start_load = clock.now()
    backend.warm_up()
    return clock.now() - start_load


def _merged(backend: Backend, task: Task, got: _Race, reason: str, seconds: float, count: int, load: float,
            where: dict[str, Any]) -> Result:
    """One result for the race: the winner's answer, or how it ended without one (see the module docstring)."""
    seed = chain_seed(task)
    win = got.finals.get(got.winner) if got.winner is not None else None
    base = next((r for r in (win, got.finals.get(0), *got.finals.values()) if r is not None), None)  # (a Result
    # is false unless it answered: `or` would take whichever chain reported first)
    counters: dict[str, Any] = dict(base.counters) if base is not None else {}
    counters.pop("workers", None)
    nodes = sum(got.live.values())
    counters.update(nodes=nodes, nodes_per_second=nodes / seconds if seconds > 0 else 0.0, chains=count,
                    load_seconds=load)
    counters.update({f"chain{i}_nodes": got.live.get(i, 0) for i in range(count)})
    won: dict[str, str] = {}
    if got.winner is not None and win is not None:
        counters["winner"] = got.winner
        if win.backend == backend.full_name:  # the chain's own, seeded search (chain 1's plain search has no seed)
            counters["winner_seed"] = seed + got.winner
        how = "" if win.backend == backend.full_name else f" ({win.backend})"
        if "joined_at" in win.counters:
            how = f" (in chain 1's search, joined at {win.counters['joined_at']:.0f} s)"
        won = {"winner": f"chain {got.winner}{how}"}
    if got.lost:
        counters["chains_lost"] = len(got.lost)
    last = seed + count - 1
    ran = {k: v for k, v in (base.options if base is not None else {}).items() if k not in ("workers", "cluster")}
    options = {**ran, **where, "seed": seed, "seeds": f"{seed}-{last}" if last > seed else str(seed), **won}
    build = base.timings.build if base is not None else 0.0
    timings = Timings(build=build, solve=max(0.0, seconds - build))
    notes = [f"{lost}; the others went on" if win is not None or len(got.lost) < count else lost
             for lost in got.lost]
    if win is not None:
        status, solutions = win.status, list(win.solutions[:1])
        message = "; ".join(m for m in ("" if win.status is Status.SOLVED else win.message, *notes) if m)
    elif reason == INTERRUPTED:
        status, solutions, message = Status.TIMEOUT, [], INTERRUPTED  # exactly: the caller raises Interrupted
    elif got.lost and len(got.lost) >= count and not any(r.status is Status.TIMEOUT for r in got.finals.values()):
        status, solutions = Status.ERROR, []
        message = "every native chain was lost: " + "; ".join(got.lost)
    elif reason != TIME_LIMIT and got.finals and all(
            r.status is Status.TIMEOUT and r.message == OUT_OF_PARTS for r in got.finals.values()):
        # every chain ran out of parts before the limit without the proof: a part taken was never searched through
        status, solutions = Status.ERROR, []
        lost = "; ".join(got.lost) or "a chain's worker died (the chain ran again elsewhere)"
        message = (lost + " while the chains swept chain 1's search; the others searched every other part, but the"
                   " parts it held were not searched again: no answer, and no proof that there is none")
    else:
        status, solutions = Status.TIMEOUT, []
        message = "; ".join([TIME_LIMIT, *notes])
    return Result(backend.full_name, status, solutions, timings=timings, counters=counters, options=options,
                  message=message)


# ---------------------------------------------------------------------------------------------------------------
# On a Dask cluster


def run_cluster_race(backend: Backend, puzzle: Puzzle, task: Task) -> Result:
    """One solution: one chain per worker thread of ``task.cluster`` races (see the module docstring). The time
    limit counts from when the cluster is ready: a local cluster's start and close are reported apart (counters
    ``cluster_start_seconds``, ``cluster_close_seconds``), as with a count's parts
    (:func:`edgematch.solvers.native.count.cluster.run_parts`)."""
    _refused(backend, task)
    reason = ""
    connecting = clock.now()
    with connected(task.cluster) as client:
        began = clock.now()
        deadline = task.until(began, setup=began - connecting)  # the limit counts from the cluster being ready
        got = _Race(task, began, puzzle=puzzle)
        count = threads(client)
        after = handover(replace(task, workers=count))
        plan: Plan = race_plan
        state: OnCluster | None = None
        if after is not None:
            state = OnCluster.create(f"edgematch-sweep-{uuid.uuid4().hex[:12]}", sweep.Board.fresh(puzzle.size),
                                     client)
            plan = Handover(state, after)
        relay = Relay.submit(client, "race", backend, puzzle, single(task), got, count, deadline, LATE_SECONDS,
                             plan)
        try:
            reason = relay.collect("won", None if deadline is None else deadline + LATE_SECONDS)
        except KeyboardInterrupt:
            reason = INTERRUPTED
        finally:  # the losers are stopped, not waited for
            relay.close(wait=False, note=False)
            if state is not None:
                with contextlib.suppress(Exception):
                    state.delete(client)
        ended = clock.now()
    if got.usage is not None:
        raise got.usage
    where: dict[str, Any] = {"cluster": describe(task.cluster)}
    if after is not None:
        where["handover"] = f"{after:g} s"
    result = _merged(backend, task, got, reason, ended - began, count, 0.0, where)
    result.counters.update(cluster_start_seconds=began - connecting, cluster_close_seconds=clock.now() - ended)
    return result
