"""``best`` on several cores and on a Dask cluster: independent chains that share the best board (issue 23,
part 3).

A *chain* is the native ``best`` search exactly as one process runs it (the beam above 25 free cells, else the
depth-first search), with seed ``seed + i`` for chain ``i``, on the board turned ``i`` quarter turns more (option
``turn``, :mod:`~edgematch.solvers.native.best.turned`: a turned board's rounds reach other scores); chain 0 keeps
the caller's seed and turn, so one chain is the single-process run. Chains share one thing, the *incumbent* (the
best board any of them has found), which each reads through ``task.incumbent`` (a search may continue from it when it
beats its own). The machinery (the chain child, the incumbent, the gather loop, the Dask relay) is the parallel
layer's (:mod:`edgematch.solvers.parallel.chains`); this module is what ``best`` makes of it.

- ``workers=N`` (:func:`run_chains`): N forked children, each in its own process group. A chain sends every better
  board to the parent over its pipe; the parent keeps the best, hands each board better than all before to
  ``task.on_improve`` at once (so ``--save`` writes it at once) and publishes it in an
  :class:`~edgematch.solvers.parallel.chains.Incumbent`, memory shared with every chain and read without a lock.
- ``cluster`` (:func:`run_cluster_chains`): one chain per worker thread of the cluster, each a Dask task
  (:func:`~edgematch.solvers.parallel.chains.chain_task`) that runs its chain in a child process as above and
  relays: better boards into a ``distributed.Queue`` the client drains every
  :data:`~edgematch.solvers.parallel.chains.POLL_SECONDS`; the client's best board (a value on the scheduler it
  sets on every improvement) into the child's incumbent, and the client's stop ``Event`` (Ctrl-C) on to the child as
  a Ctrl-C, both looked at every :data:`~edgematch.solvers.parallel.chains.RELAY_SECONDS`.

The result is the best board of all chains, the history of the global improvements, the counters of every
chain summed (states, beams, nodes, ...) with each chain's own score and rate (``chain0_score``,
``chain0_states_per_s``, ...), and status solved when a chain proved its board the maximum (a full solution).

Limits and faults: every chain gets the call's deadline, less
:data:`~edgematch.solvers.parallel.chains.REPORT_AHEAD` to report; the parent waits :data:`LATE_SECONDS` past it for
the chains' last words, then passes a Ctrl-C on, waits :data:`~edgematch.solvers.parallel.chains.STOP_GRACE` and
kills what is left (it returns within about a second of the limit). Ctrl-C does the same at once and the call ends
``interrupted`` with the best board. A chain that dies (``kill -9``) loses nothing it had sent; the others go on and
the message says so. Chains die with their parent (``PR_SET_PDEATHSIG``); no process outlives the call. On a cluster
a killed worker's task runs again elsewhere (Dask's ``allowed-failures``) and starts its chain over; the boards it
had sent are the client's already, and the local cluster is closed with the call.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Any

import psutil

from edgematch import clock
from edgematch.core.model import Puzzle, Solution
from edgematch.solvers.base import INTERRUPTED, TIME_LIMIT, Backend, Result, Status, Task, Timings
from edgematch.solvers.native.best.stages import ROUND_SCORES, ROUND_STARTS
from edgematch.solvers.native.best.turned import board_turn, chain_turn
from edgematch.solvers.native.compiled import ensure_compiled
from edgematch.solvers.parallel.chains import (
    REPORT_AHEAD,
    STOP_GRACE,
    Gathered,
    Incumbent,
    Plan,
    Relay,
    Running,
    chain_seed,
    gather,
    looked,
    on_message,
    seeded,
    spawn,
    stop_chains,
)
from edgematch.solvers.parallel.cluster import connected, describe, threads
from edgematch.solvers.parallel.processes import context

LATE_SECONDS = 0.4  # past the limit, how long the parent waits for the chains' last reports
# counters of the chains that add up
SUMMED = ("states", "children", "beams", "nodes", "restarts", "rounds", "rounds_unrepaired")
# the beam-and-repair search's figures, per chain
STAGES = ("beam_score", "repair_gain", "improved_by_beam", "improved_by_repair", "adopted", "tail_beams",
          "repair_moves", "repair_from", "rounds", "rounds_unrepaired", "rounds_from")
RATES = ("states_per_s", "nodes_per_s")  # rates that add up over chains running side by side
MACHINE_SHARE = 0.25  # the share of a machine's memory the beams of its chains may take together


def best_plan(backend: Backend, task: Task, index: int, puzzle: Puzzle) -> tuple[Backend, dict]:
    """What chain ``index`` runs: the caller's search with seed ``seed + index`` on the board turned ``index``
    quarter turns more (:func:`~edgematch.solvers.native.best.turned.chain_turn`); the chains of one machine share
    its memory (:func:`chain_memory_cap`; run in the chain's process)."""
    if task.cluster is None and task.workers > 1:
        from edgematch.solvers.native.best import beam

        beam.MEMORY_CAP = chain_memory_cap(beam.MEMORY_CAP, task.workers, psutil.virtual_memory().total)
    runner, options = seeded(backend, task, index)
    return runner, {**options, "turn": chain_turn(board_turn(task.options.get("turn", 0)), index, puzzle)}


def plan_for(puzzle: Puzzle) -> Plan:
    """:func:`best_plan` for ``puzzle`` (a module function and its puzzle: a cluster's workers unpickle it)."""
    return functools.partial(best_plan, puzzle=puzzle)


def chain_memory_cap(cap: int, workers: int, total: int) -> int:
    """Bytes one beam of each of ``workers`` chains may take on a machine of ``total`` bytes: the one-process bound
    ``cap`` while the chains' beams together stay within :data:`MACHINE_SHARE` of the memory, else that share (at
    least ``cap``) divided between them. Two chains on 24 GiB keep 1.5 GiB each, room for 256,000-wide beams on
    16x16 (0.70 GiB in the four-row comb; with ``cap`` halved, as before, a chain's beams stopped at 128,000)."""
    return min(cap, max(cap, int(total * MACHINE_SHARE)) // workers)


@dataclass
class _Best(Gathered):
    """What the parent (or the cluster's client) holds: the chains' best board, its history, how to publish it."""

    publish: Any = None  # (board, score) -> None: the board shared with every chain
    board: Solution | None = None
    score: int = -1
    history: list[tuple[float, int]] = field(default_factory=list)

    def improved(self, board: Solution, score: int) -> None:
        """A chain's better board: kept, passed on and published when it beats every board before."""
        if score <= self.score:
            return
        self.board, self.score = board, score
        self.history.append((clock.now() - self.began, score))
        if self.task.on_improve is not None:  # first: the caller saves it (sharing it on a cluster takes a round trip)
            self.task.on_improve(board, score)
        if self.publish is not None:
            self.publish(board, score)

    def ended(self, index: int, result: Result) -> bool:
        """A chain's result; True when it proved its board the maximum (the other chains may stop)."""
        self.finals[index] = result
        if result.solution is not None and result.score is not None:
            self.improved(result.solution, result.score)
        return result.status is Status.SOLVED

    def progress(self) -> dict[str, float]:
        return {"score": self.score, "nodes": sum(self.live.values())}


def run_chains(backend: Backend, puzzle: Puzzle, task: Task) -> Result:
    """``best`` with ``task.workers`` chains in as many processes on this machine (see the module docstring)."""
    load = clock.now()
    ensure_compiled()  # before the clock starts and the fork: loading is never charged to the time limit
    began = clock.now()
    load = began - load
    deadline = task.until(began)
    ctx = context()
    incumbent = Incumbent.create(ctx, puzzle.size)
    live = ctx.Array("q", task.workers, lock=False)
    got = _Best(task, began, publish=incumbent.write)
    running: Running = {}
    started: list[Any] = []
    reason = ""
    try:
        spawn(ctx, task.workers, lambda index, send: (
            send, backend, puzzle, task, index, incumbent.shared, live, index, deadline, plan_for(puzzle)), running,
            started)
        reason = gather(running, got, on_message(got, "proven"), lambda: looked(got, live),
                        None if deadline is None else deadline + LATE_SECONDS)
    except KeyboardInterrupt:
        reason = INTERRUPTED
    finally:  # pass a Ctrl-C on: each chain reports what it has, then whatever is left is killed
        stop_chains(running, started, got, live, STOP_GRACE)
    if got.usage is not None:  # the chains' options differ in seed and turn only: one process would have raised it
        raise got.usage
    stopped = reason or (TIME_LIMIT if deadline is not None and clock.now() >= deadline - REPORT_AHEAD else "")
    result = merged(backend, puzzle, task, got, stopped, clock.now() - began, task.workers)
    result.counters["load_seconds"] = load  # the parent's, before the fork (the chains' own are 0)
    return result


def merged(backend: Backend, puzzle: Puzzle, task: Task, got: _Best, stopped: str, seconds: float,
           chains: int) -> Result:
    """One result for the ``chains`` chains: the best board, the global history, counters summed and per chain."""
    finals = [got.finals[i] for i in sorted(got.finals)]
    proven = any(r.status is Status.SOLVED for r in finals) or (got.board is not None
                                                                 and got.score == puzzle.seam_count)
    unsat = [r for r in finals if r.status is Status.UNSAT]
    if got.board is not None:
        status = Status.SOLVED if proven else Status.TIMEOUT
    elif unsat:
        status = Status.UNSAT
    else:  # no board at all: an error when every chain was lost, else stopped before the first board
        status = Status.ERROR if got.lost and not finals else Status.TIMEOUT
    counters: dict[str, Any] = {}
    histogram = {key for r in finals for key in r.counters if key.startswith((ROUND_SCORES, ROUND_STARTS))}
    for key in (*SUMMED, *RATES, *sorted(histogram)):
        values = [r.counters[key] for r in finals if isinstance(r.counters.get(key), int | float)]
        if values:
            counters[key] = sum(values)
    for i in range(chains):
        c = got.finals[i].counters if i in got.finals else {}
        score = got.finals[i].score if i in got.finals else None
        if score is not None:
            counters[f"chain{i}_score"] = score
        for key in ("states", "nodes", *RATES, *STAGES):
            if isinstance(c.get(key), int | float):
                counters[f"chain{i}_{key}"] = c[key]
    beams = [r.counters["beam_score"] for r in finals if isinstance(r.counters.get("beam_score"), int | float)]
    if beams and got.board is not None:  # what the beams of all chains reached, and what repair added to it
        counters["beam_score"] = max(beams)
        counters["repair_gain"] = max(0, got.score - max(beams))
    for key in ("repair_from", "rounds_from"):  # when the first chain began it
        began = [r.counters[key] for r in finals if isinstance(r.counters.get(key), int | float)]
        if began:
            counters[key] = min(began)
    counters["chains"] = chains
    if got.lost:
        counters["chains_lost"] = len(got.lost)
    first = finals[0].options if finals else {}
    seed = chain_seed(task)
    last = seed + chains - 1
    options = {**first, "seed": seed, "seeds": f"{seed}-{last}" if last > seed else str(seed)}
    turn = board_turn(task.options.get("turn", 0))
    turns = dict.fromkeys(chain_turn(turn, i, puzzle) for i in range(chains))  # each once, in the chains' order
    options.update(turn=turn, turns=",".join(map(str, turns)))
    if task.cluster is None:
        options["workers"] = task.workers
    else:
        options["cluster"] = describe(task.cluster)
    if stopped == INTERRUPTED:
        message = INTERRUPTED  # exactly: the caller raises Interrupted on it
    else:
        word = "" if stopped in ("", "proven") else stopped
        notes = [f"{lost}; the boards it had sent are kept" for lost in got.lost]
        message = "; ".join(m for m in (word, *(r.message for r in unsat[:1]), *notes) if m)
    return Result(
        backend.full_name, status, [got.board] if got.board is not None else [],
        score=got.score if got.board is not None else None, max_score=puzzle.seam_count, history=got.history,
        timings=Timings(solve=seconds), counters=counters, options=options, message=message)


def run_cluster_chains(backend: Backend, puzzle: Puzzle, task: Task) -> Result:
    """``best`` with one chain per worker thread of ``task.cluster`` (see the module docstring). The time limit
    counts from when the cluster is ready: a local cluster's start and close are reported apart (counters
    ``cluster_start_seconds``, ``cluster_close_seconds``), as with a race and a count's parts."""
    reason = ""
    connecting = clock.now()
    with connected(task.cluster) as client:
        began = clock.now()
        deadline = task.until(began, setup=began - connecting)  # the limit counts from the cluster being ready
        got = _Best(task, began)
        plain = replace(task, progress=None, on_improve=None, incumbent=None, cluster=None, workers=1)
        chains = threads(client)
        relay = Relay.submit(client, "best", backend, puzzle, plain, got, chains, deadline, LATE_SECONDS,
                             plan_for(puzzle))
        got.publish = relay.share
        try:
            reason = relay.collect("proven", None if deadline is None else deadline + LATE_SECONDS)
        except KeyboardInterrupt:
            reason = INTERRUPTED
        finally:
            relay.close(wait=True, note=reason != INTERRUPTED)
        ended = clock.now()
    if got.usage is not None:  # the chains' options differ in seed and turn only: one process would have raised it
        raise got.usage
    stopped = reason or (TIME_LIMIT if deadline is not None and ended >= deadline - REPORT_AHEAD else "")
    result = merged(backend, puzzle, task, got, stopped, ended - began, chains)
    result.counters.update(cluster_start_seconds=began - connecting, cluster_close_seconds=clock.now() - ended)
    return result
